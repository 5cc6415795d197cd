/* tp_kafka.c - the Kafka transport on librdkafka.
 *
 * librdkafka keeps its own connections, reconnects with backoff and retries; we make it
 * never give up on a message (message.timeout.ms=0) and, with acks=all, idempotent, so a
 * broker restart neither loses nor duplicates nor reorders what it holds. Its delivery
 * reports and errors arrive on its main queue, which writes to a pipe we poll next to the
 * publisher's wake fd, and are served here, on the publisher thread. */
#define _GNU_SOURCE /* pipe2 */
#include "tp_transport.h"

#include "runtime/tfl_file.h"

#include <errno.h>
#include <fcntl.h>
#include <librdkafka/rdkafka.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
  tp_transport base;
  rd_kafka_conf_t *conf;       /* until rd_kafka_new takes it */
  rd_kafka_t *rk;
  rd_kafka_queue_t *mainq;
  int event_pipe[2];
  tp_state state;
  int max_inflight, n_inflight;
  char *brokers;
} kafka;

static void set_state(kafka *k, tp_state s, tp_status why, const char *detail)
{
  if (k->state == s) return;
  k->state = s;
  k->base.sink.state(k->base.sink.user, s, why, detail);
}

static void on_delivery(rd_kafka_t *rk, const rd_kafka_message_t *m, void *opaque)
{
  (void)rk;
  kafka *k = opaque;
  uint64_t token = (uint64_t)(uintptr_t)m->_private;
  k->n_inflight--;
  if (m->err == RD_KAFKA_RESP_ERR_NO_ERROR) {
    set_state(k, TP_STATE_CONNECTED, TP_OK, NULL);
    k->base.sink.ack(k->base.sink.user, token, TP_ACK_OK, NULL);
    return;
  }
  /* Timeouts and purges (only when a user option asked for a timeout, or at close) are
   * worth another try; anything else the broker said about this message is final. */
  tp_ack a = m->err == RD_KAFKA_RESP_ERR__MSG_TIMED_OUT || m->err == RD_KAFKA_RESP_ERR__PURGE_QUEUE ||
                     m->err == RD_KAFKA_RESP_ERR__PURGE_INFLIGHT || m->err == RD_KAFKA_RESP_ERR__TIMED_OUT_QUEUE
                 ? TP_ACK_RETRY
                 : TP_ACK_FAILED;
  k->base.sink.ack(k->base.sink.user, token, a, rd_kafka_err2str(m->err));
}

static void on_error(rd_kafka_t *rk, int err, const char *reason, void *opaque)
{
  kafka *k = opaque;
  char detail[512];
  switch (err) {
  case RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN:
    snprintf(detail, sizeof(detail), "all Kafka brokers (%s) are down: %s", k->brokers, reason);
    set_state(k, TP_STATE_DISCONNECTED, TP_ERR_NETWORK, detail);
    break;
  case RD_KAFKA_RESP_ERR__AUTHENTICATION:
    snprintf(detail, sizeof(detail), "Kafka authentication failed: %s", reason);
    set_state(k, TP_STATE_DISCONNECTED, TP_ERR_AUTH, detail);
    break;
  case RD_KAFKA_RESP_ERR__SSL:
    snprintf(detail, sizeof(detail), "Kafka TLS failed: %s", reason);
    set_state(k, TP_STATE_DISCONNECTED, TP_ERR_TLS, detail);
    break;
  case RD_KAFKA_RESP_ERR__FATAL: {
    char why[256];
    rd_kafka_fatal_error(rk, why, sizeof(why));
    snprintf(detail, sizeof(detail), "Kafka producer failed for good: %s", why);
    set_state(k, TP_STATE_DISCONNECTED, TP_ERR_CONFIG, detail);
    break;
  }
  default:
    break; /* one broker's transport errors: librdkafka reconnects, ALL_BROKERS_DOWN follows */
  }
}

/* librdkafka's log lines (from its threads) go to the sink, not to stderr */
static void on_log(const rd_kafka_t *rk, int level, const char *fac, const char *buf)
{
  kafka *k = rd_kafka_opaque(rk);
  if (k && k->base.sink.log) k->base.sink.log(k->base.sink.user, level, buf);
  (void)fac;
}

static tp_status kafka_connect(tp_transport *t, char *err, size_t errlen)
{
  kafka *k = (kafka *)t;
  if (k->rk) return TP_OK;
  k->rk = rd_kafka_new(RD_KAFKA_PRODUCER, k->conf, err, errlen);
  if (!k->rk) return TP_ERR_CONFIG; /* conf is still ours: freed at close */
  k->conf = NULL;
  k->mainq = rd_kafka_queue_get_main(k->rk);
  static const char one = 1;
  rd_kafka_queue_io_event_enable(k->mainq, k->event_pipe[1], &one, 1);
  k->state = TP_STATE_CONNECTING;
  return TP_OK;
}

static tp_status kafka_publish(tp_transport *t, const tp_msg *m, uint64_t token, char *err, size_t errlen)
{
  kafka *k = (kafka *)t;
  if (!k->rk || k->n_inflight >= k->max_inflight) return TP_AGAIN;
  rd_kafka_resp_err_t e = rd_kafka_producev(
      k->rk, RD_KAFKA_V_TOPIC(m->topic), RD_KAFKA_V_VALUE(m->payload, m->payload_len),
      RD_KAFKA_V_KEY(m->key_len ? m->key : NULL, m->key_len), RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
      RD_KAFKA_V_OPAQUE((void *)(uintptr_t)token), RD_KAFKA_V_END);
  if (e == RD_KAFKA_RESP_ERR_NO_ERROR) {
    k->n_inflight++;
    return TP_OK;
  }
  if (e == RD_KAFKA_RESP_ERR__QUEUE_FULL) return TP_AGAIN;
  snprintf(err, errlen, "Kafka refused the message for topic '%s': %s", m->topic, rd_kafka_err2str(e));
  return TP_ERR_MESSAGE;
}

static void kafka_poll(tp_transport *t, int wake_fd, int timeout_ms)
{
  kafka *k = (kafka *)t;
  struct pollfd fds[2] = { { .fd = wake_fd, .events = POLLIN }, { .fd = k->event_pipe[0], .events = POLLIN } };
  if (poll(fds, 2, timeout_ms) < 0 && errno != EINTR) return;
  if (fds[1].revents & POLLIN) {
    char buf[64];
    while (read(k->event_pipe[0], buf, sizeof(buf)) > 0) {
    }
  }
  if (k->rk) rd_kafka_poll(k->rk, 0);
}

static void kafka_close(tp_transport *t, int flush_ms)
{
  kafka *k = (kafka *)t;
  if (k->rk) {
    rd_kafka_flush(k->rk, flush_ms);
    /* what is still queued gets a purge report (TP_ACK_RETRY) now, not a hang in destroy */
    rd_kafka_purge(k->rk, RD_KAFKA_PURGE_F_QUEUE | RD_KAFKA_PURGE_F_INFLIGHT | RD_KAFKA_PURGE_F_NON_BLOCKING);
    rd_kafka_poll(k->rk, 0);
    rd_kafka_queue_io_event_enable(k->mainq, -1, NULL, 0);
    rd_kafka_queue_destroy(k->mainq);
    rd_kafka_destroy(k->rk);
  }
  if (k->conf) rd_kafka_conf_destroy(k->conf);
  close(k->event_pipe[0]);
  close(k->event_pipe[1]);
  free(k->brokers);
  free(k);
}

static const tp_transport_ops kafka_ops = {
  .name = "kafka",
  .reconnects_itself = 1,
  .connect = kafka_connect,
  .publish = kafka_publish,
  .poll = kafka_poll,
  .close = kafka_close,
};

static int set(rd_kafka_conf_t *conf, const char *name, const char *value, char *err, size_t errlen)
{
  char why[256];
  if (rd_kafka_conf_set(conf, name, value, why, sizeof(why)) == RD_KAFKA_CONF_OK) return 0;
  snprintf(err, errlen, "Kafka option %s=%s: %s", name, value, why);
  return -1;
}

/* "k=v;k=v" into conf; spaces around names and values are trimmed. */
static int set_options(rd_kafka_conf_t *conf, const char *options, char *err, size_t errlen)
{
  char *copy = strdup(options), *save = NULL;
  if (!copy) return -1;
  int rc = 0;
  for (char *item = strtok_r(copy, ";", &save); item && rc == 0; item = strtok_r(NULL, ";", &save)) {
    while (*item == ' ') item++;
    if (!*item) continue;
    char *eq = strchr(item, '=');
    if (!eq) {
      snprintf(err, errlen, "Kafka option '%s' is not name=value", item);
      rc = -1;
      break;
    }
    *eq = '\0';
    char *name = item, *value = eq + 1;
    for (char *e = eq - 1; e >= name && *e == ' '; e--) *e = '\0';
    while (*value == ' ') value++;
    for (char *e = value + strlen(value) - 1; e >= value && *e == ' '; e--) *e = '\0';
    rc = set(conf, name, value, err, errlen);
    /* librdkafka's own message for an unreadable file does not say which one it was */
    size_t n = strlen(name);
    if (rc == 0 && n > 9 && !strcmp(name + n - 9, ".location") && strcmp(value, "probe") != 0) {
      /* tfl_file: a regular file, opened without blocking (librdkafka reads it later) */
      tfl_diag d;
      tfl_diag_init(&d);
      size_t size = 0;
      int fd = tfl_file_open_read(value, name, &size, &d);
      if (fd < 0) {
        snprintf(err, errlen, "Kafka option %s", d.error);
        rc = -1;
      } else {
        close(fd);
      }
    }
  }
  free(copy);
  return rc;
}

tp_transport *tp_kafka_new(const tp_kafka_config *cfg, const tp_sink *sink, char *err, size_t errlen)
{
  if (!cfg->brokers || !*cfg->brokers) {
    snprintf(err, errlen, "no Kafka brokers set");
    return NULL;
  }
  if (cfg->acks < -1 || cfg->acks > 1 || cfg->max_inflight <= 0) {
    snprintf(err, errlen, "Kafka acks must be -1 (all), 0 or 1, not %d", cfg->acks);
    return NULL;
  }
  kafka *k = calloc(1, sizeof(*k));
  if (!k) return NULL;
  k->base.ops = &kafka_ops;
  k->base.sink = *sink;
  k->max_inflight = cfg->max_inflight;
  k->brokers = strdup(cfg->brokers);
  k->conf = rd_kafka_conf_new();
  k->event_pipe[0] = k->event_pipe[1] = -1;
  char num[32], num2[32], num3[32];
  snprintf(num, sizeof(num), "%d", cfg->acks);
  snprintf(num2, sizeof(num2), "%d", cfg->reconnect_min_ms);
  snprintf(num3, sizeof(num3), "%d", cfg->reconnect_max_ms);
  int bad = pipe2(k->event_pipe, O_NONBLOCK | O_CLOEXEC) < 0;
  if (bad) snprintf(err, errlen, "pipe: %s", strerror(errno));
  bad = bad || set(k->conf, "bootstrap.servers", cfg->brokers, err, errlen) ||
        set(k->conf, "acks", num, err, errlen) ||
        set(k->conf, "compression.codec", cfg->compression ? cfg->compression : "none", err, errlen) ||
        /* never give up on a message: the publisher's limits bound what waits */
        set(k->conf, "message.timeout.ms", "0", err, errlen) ||
        set(k->conf, "reconnect.backoff.ms", num2, err, errlen) ||
        set(k->conf, "reconnect.backoff.max.ms", num3, err, errlen) ||
        /* retries without idempotence could reorder: keep one request in flight then */
        (cfg->acks == -1 ? set(k->conf, "enable.idempotence", "true", err, errlen)
                         : set(k->conf, "max.in.flight.requests.per.connection", "1", err, errlen)) ||
        (cfg->options && set_options(k->conf, cfg->options, err, errlen));
  if (bad) {
    kafka_close(&k->base, 0);
    return NULL;
  }
  rd_kafka_conf_set_opaque(k->conf, k);
  rd_kafka_conf_set_dr_msg_cb(k->conf, on_delivery);
  rd_kafka_conf_set_error_cb(k->conf, on_error);
  rd_kafka_conf_set_log_cb(k->conf, on_log);
  k->state = TP_STATE_DISCONNECTED;
  return &k->base;
}

int tp_have_kafka(void)
{
  return 1;
}
