/* tp_unavailable.c - the transports this build lacks: creating one fails with a sentence
 * saying which library was missing when the plugin was built. */
#include "tp_transport.h"

#include <stdio.h>

#if !TP_WITH_MQTT
tp_transport *tp_mqtt_new(const tp_mqtt_config *cfg, const tp_sink *sink, char *err, size_t errlen)
{
  (void)cfg;
  (void)sink;
  snprintf(err, errlen, "this tflitepublish was built without MQTT: libmosquitto-dev was not found at build time");
  return NULL;
}

int tp_have_mqtt(void)
{
  return 0;
}
#endif

#if !TP_WITH_KAFKA
tp_transport *tp_kafka_new(const tp_kafka_config *cfg, const tp_sink *sink, char *err, size_t errlen)
{
  (void)cfg;
  (void)sink;
  snprintf(err, errlen, "this tflitepublish was built without Kafka: librdkafka-dev was not found at build time");
  return NULL;
}

int tp_have_kafka(void)
{
  return 0;
}
#endif
