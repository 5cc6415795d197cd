/* gsttflitepublish_bus.c - what the publisher thread reports, as bus messages:
 * "tflite-publish-state" on every connection change, "tflite-publish-stats" with the
 * counts (periodically, soon after a drop and at EOS), element errors for configuration
 * problems, warnings for refused messages and for an unreachable broker (once per outage,
 * with an info message when it is back). docs/results-schema.md lists the fields. */
#include "gsttflitepublish.h"

#include <string.h>

GST_DEBUG_CATEGORY_EXTERN(gst_tflite_publish_debug);
#define GST_CAT_DEFAULT gst_tflite_publish_debug

#define WARNING_INTERVAL_US (1 * G_USEC_PER_SEC)

static const gchar *state_name(tp_state s)
{
  switch (s) {
  case TP_STATE_DISCONNECTED: return "disconnected";
  case TP_STATE_CONNECTING: return "connecting";
  case TP_STATE_CONNECTED: return "connected";
  }
  return "unknown";
}

static const gchar *why_name(tp_status why)
{
  switch (why) {
  case TP_OK: return "ok";
  case TP_AGAIN: return "again";
  case TP_ERR_NETWORK: return "network";
  case TP_ERR_AUTH: return "auth";
  case TP_ERR_TLS: return "tls";
  case TP_ERR_CONFIG: return "config";
  case TP_ERR_MESSAGE: return "message";
  }
  return "unknown";
}

static const gchar *transport_name(GstTflitePublish *self)
{
  switch ((GstTflitePublishTransport)self->transport) {
  case GST_TFLITE_PUBLISH_MQTT: return "mqtt";
  case GST_TFLITE_PUBLISH_KAFKA: return "kafka";
  case GST_TFLITE_PUBLISH_FILE: return "file";
  }
  return "unknown";
}

static const gchar *destination(GstTflitePublish *self)
{
  switch ((GstTflitePublishTransport)self->transport) {
  case GST_TFLITE_PUBLISH_MQTT: return "the MQTT broker";
  case GST_TFLITE_PUBLISH_KAFKA: return "the Kafka brokers";
  case GST_TFLITE_PUBLISH_FILE: return "the results file";
  }
  return "the destination";
}

/* An outage: one warning naming where and why (a plain gst-launch-1.0 run shows it),
 * however many retries follow; an info message when messages get through again. Refused
 * credentials and TLS are element errors (on_problem). */
static void on_outage(void *user, int down, const char *detail, int retry_ms, int64_t down_ms)
{
  GstTflitePublish *self = user;
  if (!down) {
    GST_ELEMENT_INFO(self, RESOURCE, OPEN_WRITE,
                     ("Publishing to %s %s again, after %.1f s; the queued messages follow.", destination(self),
                      self->broker_name, (gdouble)down_ms / 1000.0),
                     (NULL));
    return;
  }
  /* the details mostly start with "host:port: " (or "results file PATH: ") already */
  const gchar *reason = detail ? detail : "unknown reason";
  gsize n = strlen(self->broker_name);
  if (g_str_has_prefix(reason, "results file ") && g_str_has_prefix(reason + 13, self->broker_name)) reason += 13;
  if (g_str_has_prefix(reason, self->broker_name) && reason[n] == ':' && reason[n + 1] == ' ') reason += n + 2;
  /* libmosquitto's sentences end with a full stop; ours follows */
  gchar *why = g_strdup(reason);
  for (gsize len = strlen(why); len > 0 && (why[len - 1] == '.' || why[len - 1] == ' '); len--) why[len - 1] = '\0';
  gchar *retry = retry_ms >= 0 ? g_strdup_printf("the next try is in %d ms", retry_ms)
                               : g_strdup("the client retries by itself");
  GST_ELEMENT_WARNING(self, RESOURCE, OPEN_WRITE,
                      ("Cannot publish to %s %s: %s. Messages wait in the queue (max-queue-messages, "
                       "spill-file) and %s.", destination(self), self->broker_name, why, retry),
                      ("transport %s; this warning comes once per outage, the state messages on every try",
                       transport_name(self)));
  g_free(retry);
  g_free(why);
}

static void on_state(void *user, tp_state state, tp_status why, const char *detail, int retry_ms)
{
  GstTflitePublish *self = user;
  GstStructure *s = gst_structure_new("tflite-publish-state", "transport", G_TYPE_STRING, transport_name(self), "broker",
                                      G_TYPE_STRING, self->broker_name, "state", G_TYPE_STRING, state_name(state),
                                      NULL);
  if (state == TP_STATE_DISCONNECTED) {
    gst_structure_set(s, "reason", G_TYPE_STRING, why_name(why), "detail", G_TYPE_STRING, detail ? detail : "",
                      "retry-ms", G_TYPE_INT, retry_ms, NULL);
    GST_INFO_OBJECT(self, "%s: disconnected (%s), next try in %d ms", self->broker_name, detail ? detail : "",
                    retry_ms);
  } else {
    GST_INFO_OBJECT(self, "%s: %s", self->broker_name, state_name(state));
  }
  gst_element_post_message(GST_ELEMENT(self), gst_message_new_element(GST_OBJECT(self), s));
}

GstStructure *gst_tflite_publish_stats_structure(const tp_stats *s)
{
  return gst_structure_new("tflite-publish-stats", "state", G_TYPE_STRING, state_name(s->state), "pushed",
                           G_TYPE_UINT64, s->pushed, "sent", G_TYPE_UINT64, s->sent, "queued", G_TYPE_UINT64,
                           s->queued, "queued-bytes", G_TYPE_UINT64, s->queued_bytes, "spilled", G_TYPE_UINT64,
                           s->spilled, "spill-bytes", G_TYPE_UINT64, s->spill_bytes, "in-flight", G_TYPE_UINT64,
                           s->in_flight, "dropped", G_TYPE_UINT64, s->dropped_queue + s->dropped_spill,
                           "dropped-queue", G_TYPE_UINT64, s->dropped_queue, "dropped-spill", G_TYPE_UINT64,
                           s->dropped_spill, "failed", G_TYPE_UINT64, s->failed, "unsent", G_TYPE_UINT64, s->unsent,
                           "resent", G_TYPE_UINT64, s->resent, "connects", G_TYPE_UINT64, s->connects,
                           "disconnects", G_TYPE_UINT64, s->disconnects, NULL);
}

void gst_tflite_publish_post_stats(GstTflitePublish *self, const tp_stats *st)
{
  GstStructure *s = gst_tflite_publish_stats_structure(st);
  g_mutex_lock(&self->stats_lock);
  if (self->last_stats) gst_structure_free(self->last_stats);
  self->last_stats = gst_structure_copy(s);
  g_mutex_unlock(&self->stats_lock);
  gst_element_post_message(GST_ELEMENT(self), gst_message_new_element(GST_OBJECT(self), s));
}

static void on_problem(void *user, tp_status what, const char *detail)
{
  GstTflitePublish *self = user;
  switch (what) {
  case TP_ERR_AUTH:
    GST_ELEMENT_ERROR(self, RESOURCE, NOT_AUTHORIZED,
                      ("The broker %s refused the credentials (username / password / client-id).",
                       self->broker_name),
                      ("%s", detail));
    break;
  case TP_ERR_TLS:
    GST_ELEMENT_ERROR(self, RESOURCE, SETTINGS,
                      ("TLS with the broker %s failed: check tls-ca-file, tls-cert-file and tls-key-file.",
                       self->broker_name),
                      ("%s", detail));
    break;
  case TP_ERR_CONFIG:
    GST_ELEMENT_ERROR(self, RESOURCE, SETTINGS, ("Publishing to %s failed: %s", self->broker_name, detail), (NULL));
    break;
  case TP_ERR_MESSAGE: {
    /* one warning a second at most: a broker refusing every message must not flood the bus */
    gint64 now = g_get_monotonic_time();
    if (now - self->last_warning_us < WARNING_INTERVAL_US) break;
    self->last_warning_us = now;
    GST_ELEMENT_WARNING(self, RESOURCE, WRITE, ("A message could not be published to %s.", self->broker_name),
                        ("%s (the stats message counts them all as \"failed\")", detail));
    break;
  }
  case TP_OK:
  case TP_AGAIN:
  case TP_ERR_NETWORK:
    break;
  }
}

static void on_stats(void *user, const tp_stats *st)
{
  gst_tflite_publish_post_stats(user, st);
}

/* The client library's log, in this element's debug category (GST_DEBUG=tflitepublish:N). */
static void on_log(void *user, int level, const char *line)
{
  GstTflitePublish *self = user;
  if (level <= 3) GST_WARNING_OBJECT(self, "%s", line);
  else if (level <= 5) GST_INFO_OBJECT(self, "%s", line);
  else GST_DEBUG_OBJECT(self, "%s", line);
}

void gst_tflite_publish_events_init(GstTflitePublish *self, tp_publisher_events *ev)
{
  *ev = (tp_publisher_events){ self, on_state, on_stats, on_problem, on_log, on_outage };
}
