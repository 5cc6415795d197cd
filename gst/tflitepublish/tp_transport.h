/* tp_transport.h - what the publisher needs from a broker client: connect, publish, poll,
 * close. MQTT (libmosquitto, tp_mqtt.c), Kafka (librdkafka, tp_kafka.c) and JSON-lines files
 * (tp_file.c) implement it.
 *
 *   tp_transport *t = tp_mqtt_new (&cfg, &sink, err, sizeof err);   // checks the settings
 *   t->ops->connect (t, err, n);            // starts connecting; never waits for the broker
 *   t->ops->publish (t, msg, token, err, n) // hands one message over (copied)
 *   t->ops->poll (t, wake_fd, 100);         // network I/O; calls sink.state / sink.ack
 *   t->ops->close (t, 2000);                // flushes up to 2 s, frees t
 *
 * Every call and every sink callback happens on the one thread that owns the transport
 * (the publisher thread). A message is delivered when sink.ack says TP_ACK_OK for its
 * token (QoS 0: written to the socket; QoS 1/2 and Kafka: acknowledged by the broker).
 * Plain C: no GLib.
 */
#ifndef TP_TRANSPORT_H
#define TP_TRANSPORT_H

#include <stddef.h>
#include <stdint.h>

#include "tp_msg.h"

typedef enum {
  TP_STATE_DISCONNECTED,
  TP_STATE_CONNECTING,
  TP_STATE_CONNECTED,
} tp_state;

typedef enum {
  TP_OK = 0,
  TP_AGAIN,        /* not now (not connected, the client's queue is full): try later */
  TP_ERR_NETWORK,  /* the broker is away or the connection broke: reconnect with backoff */
  TP_ERR_AUTH,     /* the broker refused the credentials: a configuration error */
  TP_ERR_TLS,      /* TLS failed (certificate not trusted, bad key): a configuration error */
  TP_ERR_CONFIG,   /* a setting is wrong (unreadable file, unknown option) */
  TP_ERR_MESSAGE,  /* this message cannot be sent (too large, bad topic): drop it */
} tp_status;

typedef enum {
  TP_ACK_OK,       /* delivered */
  TP_ACK_RETRY,    /* not delivered; send it again */
  TP_ACK_FAILED,   /* not delivered and never will be (permanent error) */
} tp_ack;

typedef struct {
  void *user;
  /* The connection changed; `why` and `detail` say why it is down (TP_OK when it is up). */
  void (*state)(void *user, tp_state state, tp_status why, const char *detail);
  void (*ack)(void *user, uint64_t token, tp_ack ack, const char *detail);
  /* The client library's own log lines (level: syslog 0-7); may be called from the
   * library's threads; NULL: dropped. */
  void (*log)(void *user, int level, const char *line);
} tp_sink;

typedef struct tp_transport tp_transport;

typedef struct {
  const char *name;            /* "mqtt", "kafka", "file" */
  /* Kafka's client reconnects by itself and accepts messages while disconnected; MQTT's
   * is reconnected by the publisher (with backoff) and accepts messages only when up. */
  int reconnects_itself;
  tp_status (*connect)(tp_transport *t, char *err, size_t errlen);
  tp_status (*publish)(tp_transport *t, const tp_msg *m, uint64_t token, char *err, size_t errlen);
  /* Waits up to timeout_ms for network events or for wake_fd to become readable. */
  void (*poll)(tp_transport *t, int wake_fd, int timeout_ms);
  /* Tries for up to flush_ms to deliver what was handed over, then frees t. Messages not
   * acknowledged by then get no ack. */
  void (*close)(tp_transport *t, int flush_ms);
} tp_transport_ops;

struct tp_transport {
  const tp_transport_ops *ops;
  tp_sink sink;
};

/* ---- MQTT ---------------------------------------------------------------------- */

typedef struct {
  const char *host;            /* name or address */
  int port;
  int qos;                     /* 0, 1, 2 */
  int retain;
  const char *client_id;       /* NULL: random (then clean_session must be set) */
  int keep_alive_s;
  int clean_session;
  const char *username, *password;      /* NULL: none */
  const char *tls_ca_file;     /* any TLS file set turns TLS on */
  const char *tls_cert_file, *tls_key_file;
  int tls_insecure;            /* do not check the broker's host name against its certificate */
  int max_inflight;            /* messages handed over but not yet acknowledged */
} tp_mqtt_config;

/* NULL when libmosquitto was not built in or a setting is wrong; err says which. */
tp_transport *tp_mqtt_new(const tp_mqtt_config *cfg, const tp_sink *sink, char *err, size_t errlen);

/* ---- Kafka --------------------------------------------------------------------- */

typedef struct {
  const char *brokers;         /* "host:port[,host:port]" */
  int acks;                    /* -1 (all), 0, 1 */
  const char *compression;     /* "none", "gzip", "snappy", "lz4", "zstd" */
  const char *options;         /* extra librdkafka settings "k=v,k=v" (SASL, TLS...); NULL */
  int reconnect_min_ms, reconnect_max_ms;
  int max_inflight;
} tp_kafka_config;

tp_transport *tp_kafka_new(const tp_kafka_config *cfg, const tp_sink *sink, char *err, size_t errlen);

/* ---- file ---------------------------------------------------------------------- */

typedef struct {
  const char *path;            /* NULL, "" or "-": standard output (never rotated) */
  uint64_t max_bytes;          /* rotate before a line would take the file past this; 0: never */
  int max_files;               /* rotated files kept: path.1 (newest) .. path.N */
} tp_file_config;

/* Always built (no library). Opens the file now: NULL with err naming the path and the
 * reason when it cannot be written (a directory, a symbolic link, no permission). */
tp_transport *tp_file_new(const tp_file_config *cfg, const tp_sink *sink, char *err, size_t errlen);

/* Which transports this build has (1/0). */
int tp_have_mqtt(void);
int tp_have_kafka(void);

#endif
