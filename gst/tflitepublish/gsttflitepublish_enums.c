/* gsttflitepublish_enums.c - the enum types of tflitepublish's properties. */
#include "gsttflitepublish.h"

#include "gst/tflitefilter/gsttfliteenums.h"

GType gst_tflite_publish_transport_get_type(void)
{
  static GType t;
  static const GEnumValue values[] = {
    { GST_TFLITE_PUBLISH_MQTT, "MQTT 3.1.1 (libmosquitto): host, port, mqtt-qos, tls-*", "mqtt" },
    { GST_TFLITE_PUBLISH_KAFKA, "Kafka (librdkafka): brokers, acks, compression, kafka-options", "kafka" },
    { GST_TFLITE_PUBLISH_FILE, "JSON lines to a file or standard output: location, max-file-bytes, max-files",
      "file" },
    { 0, NULL, NULL },
  };
  return gst_tflite_enum_type(&t, "GstTflitePublishTransport", values);
}

GType gst_tflite_publish_compression_get_type(void)
{
  static GType t;
  static const GEnumValue values[] = {
    { GST_TFLITE_COMPRESSION_NONE, "No compression", "none" },
    { GST_TFLITE_COMPRESSION_GZIP, "gzip", "gzip" },
    { GST_TFLITE_COMPRESSION_SNAPPY, "Snappy", "snappy" },
    { GST_TFLITE_COMPRESSION_LZ4, "LZ4", "lz4" },
    { GST_TFLITE_COMPRESSION_ZSTD, "Zstandard", "zstd" },
    { 0, NULL, NULL },
  };
  return gst_tflite_enum_type(&t, "GstTflitePublishCompression", values);
}

GType gst_tflite_publish_mask_get_type(void)
{
  static GType t;
  static const GEnumValue values[] = {
    { TP_MASK_NONE, "No mask member", "none" },
    { TP_MASK_SUMMARY, "Mask size and the share of it each class covers", "summary" },
    { TP_MASK_PNG, "The summary plus the mask as a base64 grey PNG", "png" },
    { 0, NULL, NULL },
  };
  return gst_tflite_enum_type(&t, "GstTflitePublishMask", values);
}

GType gst_tflite_publish_drop_get_type(void)
{
  static GType t;
  static const GEnumValue values[] = {
    { TP_DROP_OLDEST, "Drop the oldest waiting message (keep the freshest results)", "oldest" },
    { TP_DROP_NEWEST, "Drop the new message (keep the oldest)", "newest" },
    { 0, NULL, NULL },
  };
  return gst_tflite_enum_type(&t, "GstTflitePublishDrop", values);
}
