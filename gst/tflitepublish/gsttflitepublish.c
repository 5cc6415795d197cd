/**
 * SECTION:element-tflitepublish
 * @title: tflitepublish
 *
 * Publishes each frame's objects (#GstTfliteMeta: boxes, classes, landmarks, masks, track
 * ids, parent links) as JSON to an MQTT broker (libmosquitto), to Kafka (librdkafka) or,
 * with transport=file, as JSON lines to a file rotated by size (or standard output), and
 * passes the video through untouched, so it can sit before tfliteoverlay, an encoder
 * or a sink. The JSON schema is versioned and documented in docs/results-schema.md.
 *
 * The streaming thread only serializes and queues: a publisher thread of its own talks
 * to the broker. While the broker is unreachable messages wait in a bounded memory queue
 * (#GstTflitePublish:max-queue-messages, #GstTflitePublish:max-queue-bytes), optionally
 * moved to a ring file (#GstTflitePublish:spill-file), and are sent in order once it is
 * back (reconnects back off exponentially). Messages beyond the limits are dropped and
 * counted. With QoS 1/2 (and Kafka) a message leaves the queue only when the broker
 * acknowledged it; one whose connection broke first is sent again (QoS 1 allows the
 * duplicate).
 *
 * Objects with a track id (set by a tracker) also make "enter" and "leave" events on
 * their own topic (#GstTflitePublish:event-topic).
 *
 * Bus: element messages "tflite-publish-state" (connection changes) and
 * "tflite-publish-stats" (counts: sent, queued, spilled, dropped, ... every
 * #GstTflitePublish:stats-interval and soon after a drop); refused credentials and TLS
 * failures are element errors naming the problem; an unreachable broker is a warning
 * naming host, port and reason once per outage, and an info message when it is back.
 * The MQTT QoS is #GstTflitePublish:mqtt-qos (`qos` is the base class's QoS-events switch).
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 videotestsrc num-buffers=100 ! video/x-raw,format=RGBA ! \
 *   tflitefilter model=face_detection_short_range.tflite ! \
 *   tflitepublish host=localhost topic="cameras/{camera}/objects" camera-id=door ! fakesink
 * mosquitto_sub -h localhost -t 'cameras/#' -v
 * ]|
 * |[
 * gst-launch-1.0 -q videotestsrc num-buffers=100 ! video/x-raw,format=RGBA ! \
 *   tflitefilter model=face_detection_short_range.tflite ! \
 *   tflitepublish transport=file location=faces.jsonl max-file-bytes=10000000 ! fakesink
 * ]|
 *
 * Since: 0.1
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gsttflitepublish.h"

#include <gst/video/video.h>

#include "tp_template.h"

GST_DEBUG_CATEGORY(gst_tflite_publish_debug);
#define GST_CAT_DEFAULT gst_tflite_publish_debug

#define DEFAULT_TRANSPORT GST_TFLITE_PUBLISH_MQTT
#define DEFAULT_HOST "localhost"
#define DEFAULT_PORT 1883
#define DEFAULT_QOS 1
#define DEFAULT_RETAIN FALSE
#define DEFAULT_KEEP_ALIVE 60
#define DEFAULT_CLEAN_SESSION TRUE
#define DEFAULT_TLS_INSECURE FALSE
#define DEFAULT_BROKERS "localhost:9092"
#define DEFAULT_ACKS -1
#define DEFAULT_COMPRESSION GST_TFLITE_COMPRESSION_NONE
#define DEFAULT_MQTT_TOPIC "cameras/{camera}/objects"
#define DEFAULT_MQTT_EVENT_TOPIC "cameras/{camera}/events"
#define DEFAULT_KAFKA_TOPIC "tflite-objects"
#define DEFAULT_KAFKA_EVENT_TOPIC "tflite-events"
#define DEFAULT_KEY "{camera}"
#define DEFAULT_MASK TP_MASK_SUMMARY
#define DEFAULT_EVENTS TRUE
#define DEFAULT_CHANGES_ONLY FALSE
#define DEFAULT_RATE 0.0
#define DEFAULT_MAX_QUEUE_MESSAGES 10000
#define DEFAULT_MAX_QUEUE_BYTES (64 * 1024 * 1024)
#define DEFAULT_DROP TP_DROP_OLDEST
#define DEFAULT_SPILL_MAX_BYTES (256 * 1024 * 1024)
#define DEFAULT_MAX_INFLIGHT 100
#define DEFAULT_RECONNECT_MIN_MS 500
#define DEFAULT_RECONNECT_MAX_MS 10000
#define DEFAULT_STATS_INTERVAL_MS 1000
#define DEFAULT_EOS_TIMEOUT_MS 5000
#define STOP_FLUSH_MS 1000
#define DEFAULT_MAX_FILE_BYTES 0
#define DEFAULT_MAX_FILES 5

enum {
  PROP_0,
  PROP_TRANSPORT,
  PROP_HOST,
  PROP_PORT,
  PROP_QOS,
  PROP_RETAIN,
  PROP_CLIENT_ID,
  PROP_KEEP_ALIVE,
  PROP_CLEAN_SESSION,
  PROP_USERNAME,
  PROP_PASSWORD,
  PROP_TLS_CA_FILE,
  PROP_TLS_CERT_FILE,
  PROP_TLS_KEY_FILE,
  PROP_TLS_INSECURE,
  PROP_BROKERS,
  PROP_ACKS,
  PROP_COMPRESSION,
  PROP_KAFKA_OPTIONS,
  PROP_TOPIC,
  PROP_EVENT_TOPIC,
  PROP_KEY,
  PROP_CAMERA_ID,
  PROP_STREAM_NAME,
  PROP_MASK,
  PROP_EVENTS,
  PROP_CHANGES_ONLY,
  PROP_RATE,
  PROP_MAX_QUEUE_MESSAGES,
  PROP_MAX_QUEUE_BYTES,
  PROP_DROP,
  PROP_SPILL_FILE,
  PROP_SPILL_MAX_BYTES,
  PROP_MAX_INFLIGHT,
  PROP_RECONNECT_MIN,
  PROP_RECONNECT_MAX,
  PROP_STATS_INTERVAL,
  PROP_EOS_TIMEOUT,
  PROP_STATS,
  PROP_LOCATION,
  PROP_MAX_FILE_BYTES,
  PROP_MAX_FILES,
};

/* string properties: where each lives in the settings */
static const struct {
  guint id;
  gsize offset;
} string_props[] = {
  { PROP_HOST, G_STRUCT_OFFSET(GstTflitePublishSettings, host) },
  { PROP_CLIENT_ID, G_STRUCT_OFFSET(GstTflitePublishSettings, client_id) },
  { PROP_USERNAME, G_STRUCT_OFFSET(GstTflitePublishSettings, username) },
  { PROP_PASSWORD, G_STRUCT_OFFSET(GstTflitePublishSettings, password) },
  { PROP_TLS_CA_FILE, G_STRUCT_OFFSET(GstTflitePublishSettings, tls_ca_file) },
  { PROP_TLS_CERT_FILE, G_STRUCT_OFFSET(GstTflitePublishSettings, tls_cert_file) },
  { PROP_TLS_KEY_FILE, G_STRUCT_OFFSET(GstTflitePublishSettings, tls_key_file) },
  { PROP_BROKERS, G_STRUCT_OFFSET(GstTflitePublishSettings, brokers) },
  { PROP_KAFKA_OPTIONS, G_STRUCT_OFFSET(GstTflitePublishSettings, kafka_options) },
  { PROP_TOPIC, G_STRUCT_OFFSET(GstTflitePublishSettings, topic) },
  { PROP_EVENT_TOPIC, G_STRUCT_OFFSET(GstTflitePublishSettings, event_topic) },
  { PROP_KEY, G_STRUCT_OFFSET(GstTflitePublishSettings, key) },
  { PROP_CAMERA_ID, G_STRUCT_OFFSET(GstTflitePublishSettings, camera_id) },
  { PROP_STREAM_NAME, G_STRUCT_OFFSET(GstTflitePublishSettings, stream_name) },
  { PROP_SPILL_FILE, G_STRUCT_OFFSET(GstTflitePublishSettings, spill_file) },
  { PROP_LOCATION, G_STRUCT_OFFSET(GstTflitePublishSettings, location) },
};

/* the other settings: where each lives and how it is stored (G_TYPE_INT, G_TYPE_BOOLEAN,
 * G_TYPE_ENUM (a gint), G_TYPE_DOUBLE, G_TYPE_UINT64) */
#define SETTING(id, field, type) { id, G_STRUCT_OFFSET(GstTflitePublishSettings, field), type }
static const struct {
  guint id;
  gsize offset;
  GType type;
} value_props[] = {
  SETTING(PROP_TRANSPORT, transport, G_TYPE_ENUM),
  SETTING(PROP_PORT, port, G_TYPE_INT),
  SETTING(PROP_QOS, qos, G_TYPE_INT),
  SETTING(PROP_RETAIN, retain, G_TYPE_BOOLEAN),
  SETTING(PROP_KEEP_ALIVE, keep_alive, G_TYPE_INT),
  SETTING(PROP_CLEAN_SESSION, clean_session, G_TYPE_BOOLEAN),
  SETTING(PROP_TLS_INSECURE, tls_insecure, G_TYPE_BOOLEAN),
  SETTING(PROP_ACKS, acks, G_TYPE_INT),
  SETTING(PROP_COMPRESSION, compression, G_TYPE_ENUM),
  SETTING(PROP_MASK, mask, G_TYPE_ENUM),
  SETTING(PROP_EVENTS, events, G_TYPE_BOOLEAN),
  SETTING(PROP_CHANGES_ONLY, changes_only, G_TYPE_BOOLEAN),
  SETTING(PROP_RATE, rate, G_TYPE_DOUBLE),
  SETTING(PROP_MAX_QUEUE_MESSAGES, max_queue_messages, G_TYPE_UINT64),
  SETTING(PROP_MAX_QUEUE_BYTES, max_queue_bytes, G_TYPE_UINT64),
  SETTING(PROP_DROP, drop, G_TYPE_ENUM),
  SETTING(PROP_SPILL_MAX_BYTES, spill_max_bytes, G_TYPE_UINT64),
  SETTING(PROP_MAX_INFLIGHT, max_inflight, G_TYPE_INT),
  SETTING(PROP_RECONNECT_MIN, reconnect_min_ms, G_TYPE_INT),
  SETTING(PROP_RECONNECT_MAX, reconnect_max_ms, G_TYPE_INT),
  SETTING(PROP_STATS_INTERVAL, stats_interval_ms, G_TYPE_INT),
  SETTING(PROP_EOS_TIMEOUT, eos_timeout_ms, G_TYPE_INT),
  SETTING(PROP_MAX_FILE_BYTES, max_file_bytes, G_TYPE_UINT64),
  SETTING(PROP_MAX_FILES, max_files, G_TYPE_INT),
};

static GstStaticPadTemplate sink_template =
  GST_STATIC_PAD_TEMPLATE("sink", GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);
static GstStaticPadTemplate src_template =
  GST_STATIC_PAD_TEMPLATE("src", GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);

G_DEFINE_TYPE(GstTflitePublish, gst_tflite_publish, GST_TYPE_BASE_TRANSFORM);
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE(tflitepublish, "tflitepublish", GST_RANK_NONE, GST_TYPE_TFLITE_PUBLISH,
                                      GST_DEBUG_CATEGORY_INIT(gst_tflite_publish_debug, "tflitepublish", 0,
                                                              "publish objects to MQTT / Kafka / a file"));

static gchar **string_slot(GstTflitePublish *self, guint id)
{
  for (gsize i = 0; i < G_N_ELEMENTS(string_props); i++)
    if (string_props[i].id == id) return G_STRUCT_MEMBER_P(&self->s, string_props[i].offset);
  return NULL;
}

/* ---- start / stop ---------------------------------------------------------------- */

static const gchar *compression_name(GstTflitePublishCompression c)
{
  switch (c) {
  case GST_TFLITE_COMPRESSION_NONE: return "none";
  case GST_TFLITE_COMPRESSION_GZIP: return "gzip";
  case GST_TFLITE_COMPRESSION_SNAPPY: return "snappy";
  case GST_TFLITE_COMPRESSION_LZ4: return "lz4";
  case GST_TFLITE_COMPRESSION_ZSTD: return "zstd";
  }
  return "none";
}

/* A copy of the settings the publisher is made from (strings duplicated). */
static GstTflitePublishSettings settings_copy(GstTflitePublish *self)
{
  GST_OBJECT_LOCK(self);
  GstTflitePublishSettings s = self->s;
  for (gsize i = 0; i < G_N_ELEMENTS(string_props); i++) {
    gchar **slot = G_STRUCT_MEMBER_P(&s, string_props[i].offset);
    *slot = g_strdup(*slot);
  }
  GST_OBJECT_UNLOCK(self);
  return s;
}

static void settings_clear(GstTflitePublishSettings *s)
{
  for (gsize i = 0; i < G_N_ELEMENTS(string_props); i++) {
    gchar **slot = G_STRUCT_MEMBER_P(s, string_props[i].offset);
    g_clear_pointer(slot, g_free);
  }
}

static void forget_run(GstTflitePublish *self)
{
  g_clear_pointer(&self->tracks, tp_tracks_free);
  g_clear_pointer(&self->camera, g_free);
  g_clear_pointer(&self->stream, g_free);
  g_clear_pointer(&self->frame_topic, g_free);
  g_clear_pointer(&self->events_topic, g_free);
  g_clear_pointer(&self->msg_key, g_free);
  g_clear_pointer(&self->broker_name, g_free);
}

/* Topics and key from their templates, checked against the transport's rules. */
static gboolean make_topics(GstTflitePublish *self, const GstTflitePublishSettings *s, gchar **why)
{
  gboolean kafka = s->transport == GST_TFLITE_PUBLISH_KAFKA;
  const gchar *topic = s->topic ? s->topic : kafka ? DEFAULT_KAFKA_TOPIC : DEFAULT_MQTT_TOPIC;
  const gchar *event_topic = s->event_topic ? s->event_topic : kafka ? DEFAULT_KAFKA_EVENT_TOPIC : DEFAULT_MQTT_EVENT_TOPIC;
  if (!(self->frame_topic = tp_template_expand(topic, self->camera, self->stream, "objects", why)) ||
      !(self->events_topic = tp_template_expand(event_topic, self->camera, self->stream, "events", why)) ||
      !(self->msg_key = tp_template_expand(s->key ? s->key : "", self->camera, self->stream, "objects", why)))
    return FALSE;
  gchar *(*check)(const gchar *) = kafka ? tp_topic_check_kafka : tp_topic_check_mqtt;
  if (s->transport == GST_TFLITE_PUBLISH_FILE) return TRUE; /* a file has no topics to check */
  if ((*why = check(self->frame_topic)) || (*why = check(self->events_topic))) return FALSE;
  return TRUE;
}

static tp_transport *make_transport(GstTflitePublish *self, const GstTflitePublishSettings *s, char *err,
                                    size_t errlen)
{
  if (s->transport == GST_TFLITE_PUBLISH_KAFKA) {
    tp_kafka_config k = { s->brokers, s->acks, compression_name(s->compression), s->kafka_options,
                          s->reconnect_min_ms, s->reconnect_max_ms, s->max_inflight };
    self->broker_name = g_strdup(s->brokers);
    return tp_kafka_new(&k, &(tp_sink){ 0 }, err, errlen);
  }
  if (s->transport == GST_TFLITE_PUBLISH_FILE) {
    tp_file_config f = { s->location, s->max_file_bytes, s->max_files };
    gboolean out = !s->location || g_str_equal(s->location, "-");
    self->broker_name = g_strdup(out ? "standard output" : s->location);
    return tp_file_new(&f, &(tp_sink){ 0 }, err, errlen);
  }
  tp_mqtt_config m = { .host = s->host,
                       .port = s->port,
                       .qos = s->qos,
                       .retain = s->retain,
                       .client_id = s->client_id,
                       .keep_alive_s = s->keep_alive,
                       .clean_session = s->clean_session,
                       .username = s->username,
                       .password = s->password,
                       .tls_ca_file = s->tls_ca_file,
                       .tls_cert_file = s->tls_cert_file,
                       .tls_key_file = s->tls_key_file,
                       .tls_insecure = s->tls_insecure,
                       .max_inflight = s->max_inflight };
  self->broker_name = g_strdup_printf("%s:%d", s->host ? s->host : "", s->port);
  return tp_mqtt_new(&m, &(tp_sink){ 0 }, err, errlen);
}

static gboolean gst_tflite_publish_start(GstBaseTransform *trans)
{
  GstTflitePublish *self = GST_TFLITE_PUBLISH(trans);
  GstTflitePublishSettings s = settings_copy(self);
  gchar *why = NULL;
  char err[512] = "";
  self->camera = g_strdup(s.camera_id ? s.camera_id : g_get_host_name());
  self->stream = g_strdup(s.stream_name ? s.stream_name : GST_OBJECT_NAME(self));
  self->tracks = tp_tracks_new();
  self->seq = self->frames = 0;
  self->next_publish = 0;
  self->transport = s.transport;
  if (s.reconnect_max_ms < s.reconnect_min_ms) s.reconnect_max_ms = s.reconnect_min_ms;
  /* messages in flight cannot be dropped: keep half the queue for waiting ones, so that
   * drop=oldest has an oldest to drop while the broker is away */
  if ((guint64)s.max_inflight > MAX(1, s.max_queue_messages / 2)) s.max_inflight = (gint)MAX(1, s.max_queue_messages / 2);
  if (!make_topics(self, &s, &why)) {
    GST_ELEMENT_ERROR(self, RESOURCE, SETTINGS, ("Bad topic or key: %s", why), (NULL));
    goto fail;
  }
  tp_transport *t = make_transport(self, &s, err, sizeof(err));
  if (!t && s.transport == GST_TFLITE_PUBLISH_FILE) { /* err names the file */
    GST_ELEMENT_ERROR(self, RESOURCE, OPEN_WRITE, ("Cannot publish: %s", err), (NULL));
    goto fail;
  }
  if (!t) {
    GST_ELEMENT_ERROR(self, RESOURCE, SETTINGS, ("Cannot publish to %s: %s", self->broker_name, err), (NULL));
    goto fail;
  }
  tp_publisher_config pc = { (size_t)s.max_queue_messages, (size_t)s.max_queue_bytes, s.drop, s.spill_file,
                             s.spill_max_bytes, s.reconnect_min_ms, s.reconnect_max_ms, s.stats_interval_ms };
  tp_publisher_events ev;
  gst_tflite_publish_events_init(self, &ev);
  if (!(self->publisher = tp_publisher_new(t, &pc, &ev, err, sizeof(err)))) {
    GST_ELEMENT_ERROR(self, RESOURCE, SETTINGS, ("Cannot publish to %s: %s", self->broker_name, err), (NULL));
    goto fail;
  }
  GST_INFO_OBJECT(self, "publishing to %s, topic '%s', events '%s'", self->broker_name, self->frame_topic,
                  self->events_topic);
  settings_clear(&s);
  return TRUE;
fail:
  g_free(why);
  settings_clear(&s);
  forget_run(self);
  return FALSE;
}

static gboolean gst_tflite_publish_stop(GstBaseTransform *trans)
{
  GstTflitePublish *self = GST_TFLITE_PUBLISH(trans);
  tp_publisher_free(self->publisher, STOP_FLUSH_MS);
  self->publisher = NULL;
  forget_run(self);
  return TRUE;
}

/* ---- per frame (streaming thread) ---------------------------------------------- */

static void push(GstTflitePublish *self, const gchar *topic, GString *json)
{
  tp_msg *m = tp_msg_new(self->seq, topic, strlen(topic), self->msg_key, strlen(self->msg_key), json->str, json->len);
  if (!m) {
    GST_WARNING_OBJECT(self, "out of memory: message %" G_GUINT64_FORMAT " lost", self->seq);
    return;
  }
  unsigned dropped = tp_publisher_push(self->publisher, m);
  if (dropped) GST_DEBUG_OBJECT(self, "queue full: %u message(s) dropped", dropped);
}

static void publish_events(GstTflitePublish *self, tp_frame_info *fi, GPtrArray *events)
{
  for (guint i = 0; i < events->len; i++) {
    const tp_track_event *e = g_ptr_array_index(events, i);
    GString *js = g_string_sized_new(512);
    fi->seq = ++self->seq;
    tp_json_event(js, fi, e->enter ? "enter" : "leave", e->reason, e->track_id, e->frames_seen, e->first_pts,
                  e->object_json);
    push(self, self->events_topic, js);
    g_string_free(js, TRUE);
  }
}

static GstFlowReturn gst_tflite_publish_transform_ip(GstBaseTransform *trans, GstBuffer *buf)
{
  GstTflitePublish *self = GST_TFLITE_PUBLISH(trans);
  GST_OBJECT_LOCK(self);
  tp_mask_mode mask = self->s.mask;
  gboolean events = self->s.events, changes_only = self->s.changes_only;
  gdouble rate = self->s.rate;
  GST_OBJECT_UNLOCK(self);

  const GstTfliteMeta *meta = gst_buffer_get_tflite_meta(buf);
  GstClockTime pts = GST_BUFFER_PTS(buf);
  tp_frame_info fi = {
    .camera = self->camera,
    .stream = self->stream,
    .frame = self->frames++,
    .pts = pts,
    .running_time = gst_segment_to_running_time(&trans->segment, GST_FORMAT_TIME, pts),
    .duration = GST_BUFFER_DURATION(buf),
    .wall_time_us = g_get_real_time(),
    .width = meta ? meta->frame_width : self->caps_width,
    .height = meta ? meta->frame_height : self->caps_height,
  };
  if (events) {
    GPtrArray *ev = tp_track_events_new();
    tp_tracks_update(self->tracks, meta, pts, mask, ev);
    publish_events(self, &fi, ev);
    g_ptr_array_unref(ev);
  }
  /* rate: frame messages at least 1/rate apart in running time (frames without a time
   * always pass); changes-only: only when the set of objects changed */
  if (rate > 0 && GST_CLOCK_TIME_IS_VALID(fi.running_time)) {
    GstClockTime period = (GstClockTime)(GST_SECOND / rate);
    /* 1% slack: timestamps rounded to the nanosecond (3 x 33333333) still meet the grid */
    if (fi.running_time + period / 100 < self->next_publish) return GST_FLOW_OK;
    /* a fixed grid, so rounding does not slow the rate down */
    self->next_publish = self->next_publish + period > fi.running_time ? self->next_publish + period
                                                                       : fi.running_time + period;
  }
  if (changes_only && !tp_tracks_changed(self->tracks, meta)) return GST_FLOW_OK;
  GString *js = g_string_sized_new(1024);
  fi.seq = ++self->seq;
  tp_json_frame(js, &fi, meta, mask);
  push(self, self->frame_topic, js);
  g_string_free(js, TRUE);
  return GST_FLOW_OK;
}

static gboolean gst_tflite_publish_set_caps(GstBaseTransform *trans, GstCaps *in, GstCaps *out)
{
  GstTflitePublish *self = GST_TFLITE_PUBLISH(trans);
  GstVideoInfo info;
  (void)out;
  self->caps_width = self->caps_height = 0;
  if (gst_video_info_from_caps(&info, in)) {
    self->caps_width = GST_VIDEO_INFO_WIDTH(&info);
    self->caps_height = GST_VIDEO_INFO_HEIGHT(&info);
  }
  return TRUE;
}

/* EOS: tracks still present leave, then the stream waits (up to eos-timeout) for the
 * broker to have everything, so an application that stops at EOS loses nothing. */
static gboolean gst_tflite_publish_sink_event(GstBaseTransform *trans, GstEvent *event)
{
  GstTflitePublish *self = GST_TFLITE_PUBLISH(trans);
  if (GST_EVENT_TYPE(event) == GST_EVENT_EOS && self->publisher) {
    GST_OBJECT_LOCK(self);
    gboolean events = self->s.events;
    gint timeout = self->s.eos_timeout_ms;
    GST_OBJECT_UNLOCK(self);
    if (events) {
      GPtrArray *ev = tp_track_events_new();
      tp_tracks_end(self->tracks, ev);
      tp_frame_info fi = { .camera = self->camera,
                           .stream = self->stream,
                           .frame = self->frames,
                           .pts = GST_CLOCK_TIME_NONE,
                           .running_time = GST_CLOCK_TIME_NONE,
                           .wall_time_us = g_get_real_time() };
      publish_events(self, &fi, ev);
      g_ptr_array_unref(ev);
    }
    gboolean delivered = timeout <= 0 || tp_publisher_flush(self->publisher, timeout);
    /* the counts as they are at EOS, not the last periodic ones: an application reading
     * `stats` when EOS reaches the bus sees every message of the stream */
    tp_stats st = tp_publisher_get_stats(self->publisher);
    gst_tflite_publish_post_stats(self, &st);
    /* said where a plain gst-launch-1.0 run shows it: the run ends losing these */
    if (!delivered)
      GST_ELEMENT_WARNING(self, RESOURCE, WRITE,
                          ("At EOS %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " messages were not delivered to %s "
                           "within eos-timeout (%d ms); they are lost when the pipeline stops.",
                           st.queued + st.spilled, st.pushed, self->broker_name, timeout),
                          (NULL));
  }
  return GST_BASE_TRANSFORM_CLASS(gst_tflite_publish_parent_class)->sink_event(trans, event);
}

/* ---- properties ----------------------------------------------------------------- */

static void gst_tflite_publish_set_property(GObject *object, guint id, const GValue *value, GParamSpec *pspec)
{
  GstTflitePublish *self = GST_TFLITE_PUBLISH(object);
  GST_OBJECT_LOCK(self);
  gchar **slot = string_slot(self, id);
  if (slot) {
    g_free(*slot);
    *slot = g_value_dup_string(value);
    if (*slot && !**slot) g_clear_pointer(slot, g_free); /* "" means unset */
  }
  for (gsize i = 0; !slot && i < G_N_ELEMENTS(value_props); i++) {
    if (value_props[i].id != id) continue;
    gpointer p = G_STRUCT_MEMBER_P(&self->s, value_props[i].offset);
    switch (value_props[i].type) {
    case G_TYPE_ENUM: *(gint *)p = g_value_get_enum(value); break;
    case G_TYPE_INT: *(gint *)p = g_value_get_int(value); break;
    case G_TYPE_BOOLEAN: *(gboolean *)p = g_value_get_boolean(value); break;
    case G_TYPE_DOUBLE: *(gdouble *)p = g_value_get_double(value); break;
    case G_TYPE_UINT64: *(guint64 *)p = g_value_get_uint64(value); break;
    }
    slot = (gchar **)p;
  }
  GST_OBJECT_UNLOCK(self);
  if (!slot) G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
}

static void gst_tflite_publish_get_property(GObject *object, guint id, GValue *value, GParamSpec *pspec)
{
  GstTflitePublish *self = GST_TFLITE_PUBLISH(object);
  if (id == PROP_STATS) {
    g_mutex_lock(&self->stats_lock);
    GstStructure *st = self->last_stats ? gst_structure_copy(self->last_stats) : NULL;
    g_mutex_unlock(&self->stats_lock);
    if (!st && self->publisher) {
      tp_stats now = tp_publisher_get_stats(self->publisher);
      st = gst_tflite_publish_stats_structure(&now);
    }
    gst_value_set_structure(value, st);
    if (st) gst_structure_free(st);
    return;
  }
  GST_OBJECT_LOCK(self);
  gchar **slot = string_slot(self, id);
  if (slot) g_value_set_string(value, *slot);
  for (gsize i = 0; !slot && i < G_N_ELEMENTS(value_props); i++) {
    if (value_props[i].id != id) continue;
    gpointer p = G_STRUCT_MEMBER_P(&self->s, value_props[i].offset);
    switch (value_props[i].type) {
    case G_TYPE_ENUM: g_value_set_enum(value, *(gint *)p); break;
    case G_TYPE_INT: g_value_set_int(value, *(gint *)p); break;
    case G_TYPE_BOOLEAN: g_value_set_boolean(value, *(gboolean *)p); break;
    case G_TYPE_DOUBLE: g_value_set_double(value, *(gdouble *)p); break;
    case G_TYPE_UINT64: g_value_set_uint64(value, *(guint64 *)p); break;
    }
    slot = (gchar **)p;
  }
  GST_OBJECT_UNLOCK(self);
  if (!slot) G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
}

static void gst_tflite_publish_finalize(GObject *object)
{
  GstTflitePublish *self = GST_TFLITE_PUBLISH(object);
  settings_clear(&self->s);
  if (self->last_stats) gst_structure_free(self->last_stats);
  g_mutex_clear(&self->stats_lock);
  G_OBJECT_CLASS(gst_tflite_publish_parent_class)->finalize(object);
}

#define RW (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY)
#define RW_PLAYING (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING)

static void str_prop(GObjectClass *oc, guint id, const gchar *name, const gchar *blurb, const gchar *def)
{
  g_object_class_install_property(oc, id, g_param_spec_string(name, name, blurb, def, RW));
}

static void int_prop(GObjectClass *oc, guint id, const gchar *name, const gchar *blurb, gint min, gint max, gint def)
{
  g_object_class_install_property(oc, id, g_param_spec_int(name, name, blurb, min, max, def, RW));
}

static void bool_prop(GObjectClass *oc, guint id, const gchar *name, const gchar *blurb, gboolean def, GParamFlags f)
{
  g_object_class_install_property(oc, id, g_param_spec_boolean(name, name, blurb, def, f));
}

static void install_properties(GObjectClass *oc)
{
  g_object_class_install_property(oc, PROP_TRANSPORT,
    g_param_spec_enum("transport", "Transport", "Where messages go: an MQTT broker, Kafka or a file of JSON lines",
                      gst_tflite_publish_transport_get_type(), DEFAULT_TRANSPORT, RW));
  /* MQTT */
  str_prop(oc, PROP_HOST, "host", "MQTT broker host name or address", DEFAULT_HOST);
  int_prop(oc, PROP_PORT, "port", "MQTT broker TCP port (1883 plain, 8883 usual for TLS)", 1, 65535, DEFAULT_PORT);
  /* not "qos": that is GstBaseTransform's boolean (QoS events), which this would shadow */
  int_prop(oc, PROP_QOS, "mqtt-qos",
           "MQTT quality of service: 0 at most once (no acknowledgment), 1 at least once, 2 exactly once "
           "(within one connection)", 0, 2, DEFAULT_QOS);
  bool_prop(oc, PROP_RETAIN, "retain", "MQTT retain flag: the broker keeps the last message of each topic for new "
            "subscribers", DEFAULT_RETAIN, RW);
  str_prop(oc, PROP_CLIENT_ID, "client-id", "MQTT client id (NULL: a random one; needed when clean-session=false)",
           NULL);
  int_prop(oc, PROP_KEEP_ALIVE, "keep-alive", "MQTT keep-alive in seconds: a dead connection is noticed within 1.5x "
           "this", 5, 65535, DEFAULT_KEEP_ALIVE);
  bool_prop(oc, PROP_CLEAN_SESSION, "clean-session", "MQTT clean session (FALSE: a persistent session kept by the "
            "broker under client-id)", DEFAULT_CLEAN_SESSION, RW);
  str_prop(oc, PROP_USERNAME, "username", "MQTT user name (NULL: none)", NULL);
  str_prop(oc, PROP_PASSWORD, "password", "MQTT password (with username)", NULL);
  str_prop(oc, PROP_TLS_CA_FILE, "tls-ca-file", "PEM file of the CA that signed the broker's certificate; setting "
           "it turns TLS on (MQTT)", NULL);
  str_prop(oc, PROP_TLS_CERT_FILE, "tls-cert-file", "PEM client certificate for TLS client authentication (MQTT; "
           "with tls-key-file)", NULL);
  str_prop(oc, PROP_TLS_KEY_FILE, "tls-key-file", "PEM private key of tls-cert-file (MQTT; unencrypted)", NULL);
  bool_prop(oc, PROP_TLS_INSECURE, "tls-insecure", "Do not check that the broker's certificate names the host "
            "(MQTT; the CA is still checked)", DEFAULT_TLS_INSECURE, RW);
  /* Kafka */
  str_prop(oc, PROP_BROKERS, "brokers", "Kafka bootstrap brokers, host:port[,host:port...]", DEFAULT_BROKERS);
  int_prop(oc, PROP_ACKS, "acks", "Kafka acks: -1 all in-sync replicas (and an idempotent producer: no duplicates "
           "or reordering on retries), 1 the leader, 0 none", -1, 1, DEFAULT_ACKS);
  g_object_class_install_property(oc, PROP_COMPRESSION,
    g_param_spec_enum("compression", "Compression", "Kafka compression codec",
                      gst_tflite_publish_compression_get_type(), DEFAULT_COMPRESSION, RW));
  str_prop(oc, PROP_KAFKA_OPTIONS, "kafka-options", "More librdkafka settings, 'name=value;name=value' (e.g. "
           "security.protocol=ssl;ssl.ca.location=ca.pem or sasl.*); applied last", NULL);
  /* what goes where */
  str_prop(oc, PROP_TOPIC, "topic", "Topic of frame messages; {camera}, {stream} and {kind} are replaced (NULL: "
           "\"" DEFAULT_MQTT_TOPIC "\" for MQTT, \"" DEFAULT_KAFKA_TOPIC "\" for Kafka)", NULL);
  str_prop(oc, PROP_EVENT_TOPIC, "event-topic", "Topic of track enter/leave events, same placeholders (NULL: \""
           DEFAULT_MQTT_EVENT_TOPIC "\" for MQTT, \"" DEFAULT_KAFKA_EVENT_TOPIC "\" for Kafka)", NULL);
  str_prop(oc, PROP_KEY, "key", "Kafka message key template: one key's messages stay in order in one partition "
           "(empty: no key)", DEFAULT_KEY);
  str_prop(oc, PROP_CAMERA_ID, "camera-id", "Camera id in messages and topics (NULL: the host name)", NULL);
  str_prop(oc, PROP_STREAM_NAME, "stream-name", "Stream name in messages and topics (NULL: the element's name)",
           NULL);
  g_object_class_install_property(oc, PROP_MASK,
    g_param_spec_enum("mask", "Mask", "How segmentation masks are sent", gst_tflite_publish_mask_get_type(),
                      DEFAULT_MASK, RW_PLAYING));
  bool_prop(oc, PROP_EVENTS, "events", "Publish enter/leave events of tracked objects on event-topic",
            DEFAULT_EVENTS, RW_PLAYING);
  bool_prop(oc, PROP_CHANGES_ONLY, "changes-only", "Publish a frame only when its objects changed (kind, class, "
            "track id or count; boxes moving do not count)", DEFAULT_CHANGES_ONLY, RW_PLAYING);
  g_object_class_install_property(oc, PROP_RATE,
    g_param_spec_double("rate", "Rate", "Most frame messages per second of stream time (0: every frame; events "
                        "are never limited)", 0.0, 1000.0, DEFAULT_RATE,
                        G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING));
  /* queue */
  g_object_class_install_property(oc, PROP_MAX_QUEUE_MESSAGES,
    g_param_spec_uint64("max-queue-messages", "Max queue messages", "Messages held in memory (waiting or "
                        "unacknowledged) before dropping", 1, G_MAXINT32, DEFAULT_MAX_QUEUE_MESSAGES, RW));
  g_object_class_install_property(oc, PROP_MAX_QUEUE_BYTES,
    g_param_spec_uint64("max-queue-bytes", "Max queue bytes", "Bytes of messages held in memory before dropping",
                        4096, G_MAXINT64, DEFAULT_MAX_QUEUE_BYTES, RW));
  g_object_class_install_property(oc, PROP_DROP,
    g_param_spec_enum("drop", "Drop", "Which message goes when the queue (or spill file) is full",
                      gst_tflite_publish_drop_get_type(), DEFAULT_DROP, RW));
  str_prop(oc, PROP_SPILL_FILE, "spill-file", "File that takes the queued messages while the broker is away, "
           "a ring of spill-max-bytes; created empty at start, removed at stop (NULL: memory only)", NULL);
  g_object_class_install_property(oc, PROP_SPILL_MAX_BYTES,
    g_param_spec_uint64("spill-max-bytes", "Spill max bytes", "Size of the spill file in bytes", 4096, G_MAXINT64,
                        DEFAULT_SPILL_MAX_BYTES, RW));
  int_prop(oc, PROP_MAX_INFLIGHT, "max-inflight", "Messages handed to the client and not yet acknowledged "
           "(at most half of max-queue-messages; MQTT QoS 2: at most 20 of them on the wire, Mosquitto's "
           "limit)", 1, 65535, DEFAULT_MAX_INFLIGHT);
  int_prop(oc, PROP_RECONNECT_MIN, "reconnect-min", "First reconnect delay in ms, doubled on each failure", 10,
           600000, DEFAULT_RECONNECT_MIN_MS);
  int_prop(oc, PROP_RECONNECT_MAX, "reconnect-max", "Longest reconnect delay in ms", 10, 3600000,
           DEFAULT_RECONNECT_MAX_MS);
  int_prop(oc, PROP_STATS_INTERVAL, "stats-interval", "Milliseconds between tflite-publish-stats messages (0: only "
           "after drops, at most one a second)", 0, 3600000, DEFAULT_STATS_INTERVAL_MS);
  int_prop(oc, PROP_EOS_TIMEOUT, "eos-timeout", "At EOS, how many ms the stream waits for the broker to have "
           "every message (0: no wait)", 0, 3600000, DEFAULT_EOS_TIMEOUT_MS);
  /* file */
  str_prop(oc, PROP_LOCATION, "location", "transport=file: the file JSON lines are appended to (a regular file; a "
           "symbolic link is refused); NULL or \"-\": standard output (use gst-launch-1.0 -q)", NULL);
  g_object_class_install_property(oc, PROP_MAX_FILE_BYTES,
    g_param_spec_uint64("max-file-bytes", "Max file bytes", "transport=file: rotate location to location.1 (and "
                        "location.1 to .2 ...) before a line would make it larger (0: never rotate)", 0,
                        G_MAXINT64, DEFAULT_MAX_FILE_BYTES, RW));
  int_prop(oc, PROP_MAX_FILES, "max-files", "transport=file: rotated files kept (location.1 newest .. location.N; "
           "the oldest is overwritten)", 1, 1000, DEFAULT_MAX_FILES);
  g_object_class_install_property(oc, PROP_STATS,
    g_param_spec_boxed("stats", "Stats", "The latest tflite-publish-stats counts (read-only)", GST_TYPE_STRUCTURE,
                       G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
}

static void gst_tflite_publish_class_init(GstTflitePublishClass *klass)
{
  GObjectClass *oc = G_OBJECT_CLASS(klass);
  GstElementClass *ec = GST_ELEMENT_CLASS(klass);
  GstBaseTransformClass *tc = GST_BASE_TRANSFORM_CLASS(klass);
  oc->set_property = gst_tflite_publish_set_property;
  oc->get_property = gst_tflite_publish_get_property;
  oc->finalize = gst_tflite_publish_finalize;
  install_properties(oc);
  gst_element_class_set_static_metadata(ec, "TFLite results publisher", "Filter/Analyzer/Network",
                                        "Publishes GstTfliteMeta objects as JSON to MQTT, Kafka or a file", "gst-tflite");
  gst_element_class_add_static_pad_template(ec, &sink_template);
  gst_element_class_add_static_pad_template(ec, &src_template);
  tc->start = gst_tflite_publish_start;
  tc->stop = gst_tflite_publish_stop;
  tc->set_caps = gst_tflite_publish_set_caps;
  tc->sink_event = gst_tflite_publish_sink_event;
  tc->transform_ip = gst_tflite_publish_transform_ip;
  tc->passthrough_on_same_caps = TRUE;
  tc->transform_ip_on_passthrough = TRUE;
  gst_type_mark_as_plugin_api(gst_tflite_publish_transport_get_type(), 0);
  gst_type_mark_as_plugin_api(gst_tflite_publish_compression_get_type(), 0);
  gst_type_mark_as_plugin_api(gst_tflite_publish_mask_get_type(), 0);
  gst_type_mark_as_plugin_api(gst_tflite_publish_drop_get_type(), 0);
}

static void gst_tflite_publish_init(GstTflitePublish *self)
{
  GstTflitePublishSettings *s = &self->s;
  s->transport = DEFAULT_TRANSPORT;
  s->host = g_strdup(DEFAULT_HOST);
  s->port = DEFAULT_PORT;
  s->qos = DEFAULT_QOS;
  s->retain = DEFAULT_RETAIN;
  s->keep_alive = DEFAULT_KEEP_ALIVE;
  s->clean_session = DEFAULT_CLEAN_SESSION;
  s->tls_insecure = DEFAULT_TLS_INSECURE;
  s->brokers = g_strdup(DEFAULT_BROKERS);
  s->acks = DEFAULT_ACKS;
  s->compression = DEFAULT_COMPRESSION;
  s->key = g_strdup(DEFAULT_KEY);
  s->mask = DEFAULT_MASK;
  s->events = DEFAULT_EVENTS;
  s->changes_only = DEFAULT_CHANGES_ONLY;
  s->rate = DEFAULT_RATE;
  s->max_queue_messages = DEFAULT_MAX_QUEUE_MESSAGES;
  s->max_queue_bytes = DEFAULT_MAX_QUEUE_BYTES;
  s->drop = DEFAULT_DROP;
  s->spill_max_bytes = DEFAULT_SPILL_MAX_BYTES;
  s->max_inflight = DEFAULT_MAX_INFLIGHT;
  s->reconnect_min_ms = DEFAULT_RECONNECT_MIN_MS;
  s->reconnect_max_ms = DEFAULT_RECONNECT_MAX_MS;
  s->stats_interval_ms = DEFAULT_STATS_INTERVAL_MS;
  s->eos_timeout_ms = DEFAULT_EOS_TIMEOUT_MS;
  s->max_file_bytes = DEFAULT_MAX_FILE_BYTES;
  s->max_files = DEFAULT_MAX_FILES;
  g_mutex_init(&self->stats_lock);
  gst_base_transform_set_passthrough(GST_BASE_TRANSFORM(self), TRUE);
  gst_base_transform_set_in_place(GST_BASE_TRANSFORM(self), TRUE);
}
