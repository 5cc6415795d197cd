/* kafka_consume.c - reads a Kafka topic from the beginning for the broker tests and prints
 * one line per message: "partition offset key payload". Stops after COUNT messages or when
 * nothing arrived for IDLE_S seconds (exit 0 either way; the test counts the lines).
 *
 * Usage: kafka_consume BROKERS TOPIC COUNT IDLE_S
 */
#include <librdkafka/rdkafka.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_s(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
  if (argc != 5) {
    fprintf(stderr, "usage: kafka_consume BROKERS TOPIC COUNT IDLE_S\n");
    return 1;
  }
  long want = atol(argv[3]);
  double idle_s = atof(argv[4]);
  char err[512], group[64];
  snprintf(group, sizeof(group), "test-%ld-%d", (long)time(NULL), (int)(now_s() * 1000) % 100000);
  rd_kafka_conf_t *conf = rd_kafka_conf_new();
  if (rd_kafka_conf_set(conf, "bootstrap.servers", argv[1], err, sizeof(err)) ||
      rd_kafka_conf_set(conf, "group.id", group, err, sizeof(err)) ||
      rd_kafka_conf_set(conf, "auto.offset.reset", "earliest", err, sizeof(err)) ||
      rd_kafka_conf_set(conf, "enable.auto.commit", "false", err, sizeof(err))) {
    fprintf(stderr, "kafka_consume: %s\n", err);
    return 1;
  }
  rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof(err));
  if (!rk) {
    fprintf(stderr, "kafka_consume: %s\n", err);
    return 1;
  }
  rd_kafka_poll_set_consumer(rk);
  rd_kafka_topic_partition_list_t *topics = rd_kafka_topic_partition_list_new(1);
  rd_kafka_topic_partition_list_add(topics, argv[2], RD_KAFKA_PARTITION_UA);
  rd_kafka_subscribe(rk, topics);
  rd_kafka_topic_partition_list_destroy(topics);
  long got = 0;
  double last = now_s();
  while (got < want && now_s() - last < idle_s) {
    rd_kafka_message_t *m = rd_kafka_consumer_poll(rk, 200);
    if (!m) continue;
    if (m->err == RD_KAFKA_RESP_ERR_NO_ERROR) {
      printf("%d %lld %.*s %.*s\n", (int)m->partition, (long long)m->offset, (int)m->key_len,
             m->key ? (const char *)m->key : "", (int)m->len, (const char *)m->payload);
      got++;
      last = now_s();
    } else if (m->err != RD_KAFKA_RESP_ERR__PARTITION_EOF) {
      fprintf(stderr, "kafka_consume: %s\n", rd_kafka_message_errstr(m));
    }
    rd_kafka_message_destroy(m);
  }
  fflush(stdout);
  rd_kafka_consumer_close(rk);
  rd_kafka_destroy(rk);
  return 0;
}
