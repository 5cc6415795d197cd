/* tfl_status.h - status codes and diagnostics contexts.
 *
 * Every failing call returns a tfl_status other than TFL_OK and writes one sentence
 * naming the bad value into the caller's diagnostics context (tfl_diag), e.g.
 * "tensor 12: buffer 40 out of range (model has 31 buffers)". Log lines (warnings
 * such as refused ops, info such as the partition count) go to the context's sink.
 * There is no process-wide state: each interpreter, delegate, decoder or tool has a
 * context of its own (or shares one its owner hands in), so any number of them may
 * run on any threads.
 *
 *   tfl_diag d;  tfl_diag_init(&d);               // stderr, warnings and errors
 *   if (tfl_load_file(path, &g, &d) != TFL_OK) printf("%s\n", d.error);
 *
 * Threads: a tfl_diag is written by whoever holds it; one context must not be used by
 * two threads at once (give each thread, interpreter or element its own).
 */
#ifndef TFL_STATUS_H
#define TFL_STATUS_H

#include <stdarg.h>

typedef enum {
  TFL_OK = 0,
  TFL_ERR_IO,          /* file cannot be opened or read */
  TFL_ERR_FORMAT,      /* the model bytes are malformed */
  TFL_ERR_UNSUPPORTED, /* well-formed, but an op/type/option we do not run */
  TFL_ERR_SHAPE,       /* shapes or types do not fit the op */
  TFL_ERR_NOMEM,
  TFL_ERR_ARG,         /* caller passed a bad argument */
  TFL_ERR_BACKEND,     /* a delegate's own failure (GL error, XNNPACK status) */
} tfl_status;

const char *tfl_status_name(tfl_status s);

typedef enum { TFL_LOG_ERROR, TFL_LOG_WARNING, TFL_LOG_INFO, TFL_LOG_DEBUG } tfl_log_level;
/* Receives one formatted log line (no newline); called on the thread that logs. */
typedef void (*tfl_log_sink)(tfl_log_level level, const char *msg, void *user);

typedef struct tfl_diag {
  tfl_log_sink sink;          /* NULL: stderr, for levels up to `verbosity` */
  void *user;                 /* passed to sink */
  tfl_log_level verbosity;    /* stderr only: the most detailed level printed (default WARNING) */
  char error[512];            /* the last failure's message; "" when none */
} tfl_diag;

/* No sink (stderr), warnings and errors, no error message. */
void tfl_diag_init(tfl_diag *d);

/* Sets d's error message (printf format) and returns `s` for tail calls. d may be NULL:
 * the message is dropped. */
tfl_status tfl_fail(tfl_diag *d, tfl_status s, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Prefixes d's current error with more context ("loading x.tflite: ..."); returns s. */
tfl_status tfl_fail_prefix(tfl_diag *d, tfl_status s, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* One log line to d's sink (or stderr); d NULL: dropped. */
void tfl_logf(tfl_diag *d, tfl_log_level level, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
