/* gsttflitepublish.h - tflitepublish: each frame's GstTfliteMeta objects as JSON to MQTT,
 * Kafka or a file of JSON lines, passing the video through. */
#ifndef GST_TFLITE_PUBLISH_H
#define GST_TFLITE_PUBLISH_H

#include <gst/base/gstbasetransform.h>
#include <gst/gst.h>

#include "tp_json.h"
#include "tp_publisher.h"
#include "tp_tracks.h"

G_BEGIN_DECLS

typedef enum {
  GST_TFLITE_PUBLISH_MQTT,
  GST_TFLITE_PUBLISH_KAFKA,
  GST_TFLITE_PUBLISH_FILE,
} GstTflitePublishTransport;

typedef enum {
  GST_TFLITE_COMPRESSION_NONE,
  GST_TFLITE_COMPRESSION_GZIP,
  GST_TFLITE_COMPRESSION_SNAPPY,
  GST_TFLITE_COMPRESSION_LZ4,
  GST_TFLITE_COMPRESSION_ZSTD,
} GstTflitePublishCompression;

#define GST_TYPE_TFLITE_PUBLISH (gst_tflite_publish_get_type())
G_DECLARE_FINAL_TYPE(GstTflitePublish, gst_tflite_publish, GST, TFLITE_PUBLISH, GstBaseTransform)

/* Settings: written by set_property under the object lock. Connection, topic and queue
 * settings are read when the element starts (READY -> PAUSED); what is published per frame
 * (rate, changes-only, mask, events) is read on every frame. Enums are kept as gint (the
 * property table stores them so). */
typedef struct {
  gint transport;                  /* GstTflitePublishTransport */
  gchar *host;
  gint port, qos, keep_alive;
  gboolean retain, clean_session, tls_insecure;
  gchar *client_id, *username, *password, *tls_ca_file, *tls_cert_file, *tls_key_file;
  gchar *brokers, *kafka_options;
  gint acks;
  gint compression;                /* GstTflitePublishCompression */
  gchar *topic, *event_topic, *key, *camera_id, *stream_name;
  gint mask;                       /* tp_mask_mode */
  gboolean events, changes_only;
  gdouble rate;
  guint64 max_queue_messages, max_queue_bytes, spill_max_bytes;
  gint drop;                       /* tp_drop_policy */
  gchar *spill_file;
  gchar *location;                 /* file transport: NULL or "-" for standard output */
  guint64 max_file_bytes;
  gint max_files;
  gint max_inflight, reconnect_min_ms, reconnect_max_ms, stats_interval_ms, eos_timeout_ms;
} GstTflitePublishSettings;

struct _GstTflitePublish {
  GstBaseTransform parent;
  GstTflitePublishSettings s;     /* object lock */

  /* between start and stop; the streaming thread's */
  tp_publisher *publisher;
  tp_tracks *tracks;
  gchar *camera, *stream, *frame_topic, *events_topic, *msg_key, *broker_name;
  guint64 seq, frames;
  GstClockTime next_publish;      /* running time the next frame message may have (rate) */
  gint caps_width, caps_height;
  gint transport;                 /* of this run (the setting may change meanwhile) */

  /* publisher thread -> any thread */
  GMutex stats_lock;
  GstStructure *last_stats;
  gint64 last_warning_us;
};

/* gsttflitepublish_bus.c: the publisher's events as bus messages and element errors */
void gst_tflite_publish_events_init(GstTflitePublish *self, tp_publisher_events *ev);
GstStructure *gst_tflite_publish_stats_structure(const tp_stats *s);
/* keeps st as the `stats` property's value and posts it as "tflite-publish-stats" */
void gst_tflite_publish_post_stats(GstTflitePublish *self, const tp_stats *st);

GType gst_tflite_publish_transport_get_type(void);
GType gst_tflite_publish_compression_get_type(void);
GType gst_tflite_publish_mask_get_type(void);
GType gst_tflite_publish_drop_get_type(void);

G_END_DECLS

#endif
