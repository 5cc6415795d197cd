/* tp_mqtt.c - the MQTT transport on libmosquitto, driven from the publisher's own poll()
 * (libmosquitto's external-loop calls: socket, want_write, loop_read/write/misc), so no
 * thread of libmosquitto's runs and every callback happens on the publisher thread.
 *
 * A fresh client is made for every connection: messages without an acknowledgment when a
 * connection breaks are sent again by the publisher, and a client kept across connections
 * would resend its own copies too. */
#include "tp_transport.h"

#include "runtime/tfl_file.h"

#include <errno.h>
#include <mosquitto.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CONNECT_TIMEOUT_MS 10000
#define QOS2_WIRE_MAX 20

typedef struct {
  int mid;
  uint64_t token;
} inflight;

typedef struct {
  tp_transport base;
  tp_mqtt_config cfg;          /* strings below are owned copies */
  struct mosquitto *mosq;
  tp_state state;
  int refused;                 /* CONNACK code of a refused connection, 0 none */
  int64_t connect_started_ms;
  char last_error[256];        /* libmosquitto's last error log line (TLS details) */
  inflight *inflight;          /* max_inflight slots */
  int n_inflight;
  int publishing;              /* inside mosquitto_publish: an unknown mid is this message */
  int acked_in_publish;
  uint64_t publishing_token;
} mqtt;

static pthread_once_t lib_once = PTHREAD_ONCE_INIT;
static void lib_init(void)
{
  mosquitto_lib_init();
}

static int64_t now_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static char *dup_or_null(const char *s)
{
  return s && *s ? strdup(s) : NULL;
}

static void set_state(mqtt *c, tp_state s, tp_status why, const char *detail)
{
  if (c->state == s) return;
  c->state = s;
  if (s != TP_STATE_CONNECTED) c->n_inflight = 0; /* no acks will come for those */
  c->base.sink.state(c->base.sink.user, s, why, detail);
}

static void on_connect(struct mosquitto *mosq, void *obj, int rc)
{
  (void)mosq;
  mqtt *c = obj;
  if (rc == 0) {
    set_state(c, TP_STATE_CONNECTED, TP_OK, NULL);
    return;
  }
  c->refused = rc;
}

static void on_publish(struct mosquitto *mosq, void *obj, int mid)
{
  (void)mosq;
  mqtt *c = obj;
  for (int i = 0; i < c->n_inflight; i++) {
    if (c->inflight[i].mid != mid) continue;
    uint64_t token = c->inflight[i].token;
    c->inflight[i] = c->inflight[--c->n_inflight];
    c->base.sink.ack(c->base.sink.user, token, TP_ACK_OK, NULL);
    return;
  }
  /* QoS 0 is written (and acknowledged) inside mosquitto_publish, before its mid is known */
  if (c->publishing) {
    c->acked_in_publish = 1;
    c->base.sink.ack(c->base.sink.user, c->publishing_token, TP_ACK_OK, NULL);
  }
}

static void on_log(struct mosquitto *mosq, void *obj, int level, const char *str)
{
  (void)mosq;
  mqtt *c = obj;
  if (level == MOSQ_LOG_ERR) snprintf(c->last_error, sizeof(c->last_error), "%s", str);
  if (c->base.sink.log)
    c->base.sink.log(c->base.sink.user, level == MOSQ_LOG_ERR ? 3 : level == MOSQ_LOG_WARNING ? 4 : 7, str);
}

/* Why the connection is down, from libmosquitto's return code and what came before. */
static tp_status classify(mqtt *c, int rc, char *detail, size_t n)
{
  if (c->refused) {
    int code = c->refused;
    snprintf(detail, n, "broker %s:%d refused the connection: %s", c->cfg.host, c->cfg.port,
             mosquitto_connack_string(code));
    /* 4: bad user name or password, 5: not authorised (also what mosquitto answers for a
     * wrong password); 2: identifier rejected. None fixes itself by retrying. */
    return code == 4 || code == 5 || code == 2 ? TP_ERR_AUTH : TP_ERR_NETWORK;
  }
  if (rc == MOSQ_ERR_TLS || rc == MOSQ_ERR_TLS_HANDSHAKE) {
    snprintf(detail, n, "TLS with %s:%d failed: %s", c->cfg.host, c->cfg.port,
             c->last_error[0] ? c->last_error : mosquitto_strerror(rc));
    return TP_ERR_TLS;
  }
  if (rc == MOSQ_ERR_ERRNO)
    snprintf(detail, n, "%s:%d: %s", c->cfg.host, c->cfg.port, strerror(errno));
  else
    snprintf(detail, n, "%s:%d: %s", c->cfg.host, c->cfg.port, mosquitto_strerror(rc));
  return TP_ERR_NETWORK;
}

static void lost(mqtt *c, int rc)
{
  char detail[384];
  tp_status why = classify(c, rc, detail, sizeof(detail));
  set_state(c, TP_STATE_DISCONNECTED, why, detail);
}

static void free_client(mqtt *c)
{
  if (c->mosq) mosquitto_destroy(c->mosq);
  c->mosq = NULL;
}

static tp_status mqtt_connect(tp_transport *t, char *err, size_t errlen)
{
  mqtt *c = (mqtt *)t;
  free_client(c);
  c->refused = 0;
  c->last_error[0] = '\0';
  c->n_inflight = 0;
  c->mosq = mosquitto_new(c->cfg.client_id, c->cfg.clean_session, c);
  if (!c->mosq) {
    snprintf(err, errlen, "cannot make an MQTT client: %s", strerror(errno));
    return TP_ERR_CONFIG;
  }
  mosquitto_int_option(c->mosq, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V311);
  mosquitto_int_option(c->mosq, MOSQ_OPT_TCP_NODELAY, 1);
  /* MQTT 3.1.1 has no flow control: Mosquitto acknowledges QoS 2 messages beyond its
   * max_inflight_messages (20 by default) and then never delivers them. So at QoS 2 at most
   * 20 are on the wire; libmosquitto holds the rest of our window until PUBCOMPs come. */
  int wire = c->cfg.qos == 2 && c->cfg.max_inflight > QOS2_WIRE_MAX ? QOS2_WIRE_MAX : c->cfg.max_inflight;
  mosquitto_max_inflight_messages_set(c->mosq, (unsigned)wire);
  mosquitto_connect_callback_set(c->mosq, on_connect);
  mosquitto_publish_callback_set(c->mosq, on_publish);
  mosquitto_log_callback_set(c->mosq, on_log);
  if (c->cfg.username) mosquitto_username_pw_set(c->mosq, c->cfg.username, c->cfg.password);
  if (c->cfg.tls_ca_file || c->cfg.tls_cert_file) {
    int rc = mosquitto_tls_set(c->mosq, c->cfg.tls_ca_file, NULL, c->cfg.tls_cert_file, c->cfg.tls_key_file, NULL);
    if (rc != MOSQ_ERR_SUCCESS) {
      snprintf(err, errlen, "TLS settings refused by libmosquitto: %s", mosquitto_strerror(rc));
      return TP_ERR_TLS;
    }
    mosquitto_tls_insecure_set(c->mosq, c->cfg.tls_insecure != 0);
  }
  c->connect_started_ms = now_ms();
  c->state = TP_STATE_CONNECTING;
  int rc = mosquitto_connect_async(c->mosq, c->cfg.host, c->cfg.port, c->cfg.keep_alive_s);
  if (rc != MOSQ_ERR_SUCCESS) {
    tp_status why = classify(c, rc, err, errlen);
    c->state = TP_STATE_DISCONNECTED;
    /* a bad key or certificate shows up here, before any network */
    return why;
  }
  return TP_OK;
}

static tp_status mqtt_publish(tp_transport *t, const tp_msg *m, uint64_t token, char *err, size_t errlen)
{
  mqtt *c = (mqtt *)t;
  if (c->state != TP_STATE_CONNECTED || c->n_inflight >= c->cfg.max_inflight) return TP_AGAIN;
  int mid = 0;
  c->publishing = 1;
  c->acked_in_publish = 0;
  c->publishing_token = token;
  int rc = mosquitto_publish(c->mosq, &mid, m->topic, (int)m->payload_len, m->payload, c->cfg.qos,
                             c->cfg.retain != 0);
  c->publishing = 0;
  if (rc == MOSQ_ERR_SUCCESS) {
    if (!c->acked_in_publish) c->inflight[c->n_inflight++] = (inflight){ mid, token };
    return TP_OK;
  }
  if (rc == MOSQ_ERR_PAYLOAD_SIZE || rc == MOSQ_ERR_INVAL || rc == MOSQ_ERR_MALFORMED_UTF8 ||
      rc == MOSQ_ERR_OVERSIZE_PACKET) {
    snprintf(err, errlen, "MQTT refused the message for topic '%s': %s", m->topic, mosquitto_strerror(rc));
    return TP_ERR_MESSAGE;
  }
  lost(c, rc);
  snprintf(err, errlen, "%s", mosquitto_strerror(rc));
  return TP_AGAIN;
}

static void mqtt_poll(tp_transport *t, int wake_fd, int timeout_ms)
{
  mqtt *c = (mqtt *)t;
  struct pollfd fds[2] = { { .fd = wake_fd, .events = POLLIN } };
  int n = 1;
  int sock = c->mosq && c->state != TP_STATE_DISCONNECTED ? mosquitto_socket(c->mosq) : -1;
  if (sock >= 0) {
    fds[1].fd = sock;
    fds[1].events = POLLIN | (mosquitto_want_write(c->mosq) ? POLLOUT : 0);
    n = 2;
  }
  if (poll(fds, (nfds_t)n, timeout_ms) < 0 && errno != EINTR) return;
  if (sock < 0) return;
  int rc = MOSQ_ERR_SUCCESS;
  if (fds[1].revents & (POLLIN | POLLHUP | POLLERR)) rc = mosquitto_loop_read(c->mosq, 1);
  if (rc == MOSQ_ERR_SUCCESS && c->mosq && mosquitto_want_write(c->mosq)) rc = mosquitto_loop_write(c->mosq, 1);
  if (rc == MOSQ_ERR_SUCCESS) rc = mosquitto_loop_misc(c->mosq);
  if (rc != MOSQ_ERR_SUCCESS) {
    lost(c, rc);
    return;
  }
  if (c->state == TP_STATE_CONNECTING && now_ms() - c->connect_started_ms > CONNECT_TIMEOUT_MS) {
    char detail[300];
    snprintf(detail, sizeof(detail), "%s:%d: no answer to CONNECT within %d s", c->cfg.host, c->cfg.port,
             CONNECT_TIMEOUT_MS / 1000);
    set_state(c, TP_STATE_DISCONNECTED, TP_ERR_NETWORK, detail);
  }
}

static void mqtt_close(tp_transport *t, int flush_ms)
{
  mqtt *c = (mqtt *)t;
  int64_t end = now_ms() + flush_ms;
  int wake[2] = { -1, -1 };
  if (c->state == TP_STATE_CONNECTED && pipe(wake) == 0) {
    while (c->state == TP_STATE_CONNECTED && c->n_inflight > 0 && now_ms() < end)
      mqtt_poll(t, wake[0], (int)(end - now_ms()) < 20 ? (int)(end - now_ms()) : 20);
    close(wake[0]);
    close(wake[1]);
  }
  if (c->mosq && c->state == TP_STATE_CONNECTED) mosquitto_disconnect(c->mosq);
  free_client(c);
  free((char *)c->cfg.host);
  free((char *)c->cfg.client_id);
  free((char *)c->cfg.username);
  free((char *)c->cfg.password);
  free((char *)c->cfg.tls_ca_file);
  free((char *)c->cfg.tls_cert_file);
  free((char *)c->cfg.tls_key_file);
  free(c->inflight);
  free(c);
}

static const tp_transport_ops mqtt_ops = {
  .name = "mqtt",
  .reconnects_itself = 0,
  .connect = mqtt_connect,
  .publish = mqtt_publish,
  .poll = mqtt_poll,
  .close = mqtt_close,
};

/* A TLS file must exist and be readable: say which one is not, before any connection. */
static int check_file(const char *what, const char *path, char *err, size_t errlen)
{
  if (!path) return 0;
  /* tfl_file: a regular file, opened without blocking (mosquitto reads it later) */
  tfl_diag d;
  tfl_diag_init(&d);
  size_t size = 0;
  int fd = tfl_file_open_read(path, what, &size, &d);
  if (fd < 0) {
    snprintf(err, errlen, "%s", d.error);
    return -1;
  }
  close(fd);
  return 0;
}

tp_transport *tp_mqtt_new(const tp_mqtt_config *cfg, const tp_sink *sink, char *err, size_t errlen)
{
  pthread_once(&lib_once, lib_init);
  if (!cfg->host || !*cfg->host) {
    snprintf(err, errlen, "no MQTT host set");
    return NULL;
  }
  if (cfg->qos < 0 || cfg->qos > 2 || cfg->port <= 0 || cfg->port > 65535 || cfg->max_inflight <= 0) {
    snprintf(err, errlen, "MQTT settings out of range (qos %d, port %d)", cfg->qos, cfg->port);
    return NULL;
  }
  if (!cfg->clean_session && !(cfg->client_id && *cfg->client_id)) {
    snprintf(err, errlen, "a persistent MQTT session (clean-session=false) needs a client-id");
    return NULL;
  }
  if ((cfg->tls_cert_file != NULL) != (cfg->tls_key_file != NULL)) {
    snprintf(err, errlen, "TLS client authentication needs both tls-cert-file and tls-key-file");
    return NULL;
  }
  if ((cfg->tls_cert_file || cfg->tls_key_file) && !cfg->tls_ca_file) {
    snprintf(err, errlen, "TLS needs tls-ca-file (the CA that signed the broker's certificate)");
    return NULL;
  }
  if (check_file("tls-ca-file", cfg->tls_ca_file, err, errlen) < 0 ||
      check_file("tls-cert-file", cfg->tls_cert_file, err, errlen) < 0 ||
      check_file("tls-key-file", cfg->tls_key_file, err, errlen) < 0)
    return NULL;
  mqtt *c = calloc(1, sizeof(*c));
  if (!c || !(c->inflight = calloc((size_t)cfg->max_inflight, sizeof(inflight)))) {
    free(c);
    snprintf(err, errlen, "out of memory");
    return NULL;
  }
  c->base.ops = &mqtt_ops;
  c->base.sink = *sink;
  c->cfg = *cfg;
  c->cfg.host = strdup(cfg->host);
  c->cfg.client_id = dup_or_null(cfg->client_id);
  c->cfg.username = dup_or_null(cfg->username);
  c->cfg.password = dup_or_null(cfg->password);
  c->cfg.tls_ca_file = dup_or_null(cfg->tls_ca_file);
  c->cfg.tls_cert_file = dup_or_null(cfg->tls_cert_file);
  c->cfg.tls_key_file = dup_or_null(cfg->tls_key_file);
  c->state = TP_STATE_DISCONNECTED;
  return &c->base;
}

int tp_have_mqtt(void)
{
  return 1;
}
