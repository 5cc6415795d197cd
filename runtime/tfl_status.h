/* tfl_status.h - status codes, the last error message and log routing.
 *
 * Every failing call returns a tfl_status other than TFL_OK and leaves one sentence
 * naming the bad value in a thread-local buffer (tfl_last_error), e.g.
 * "tensor 12: buffer 40 out of range (model has 31 buffers)".
 * Log lines (warnings such as refused ops) go to stderr unless a sink is set;
 * the GStreamer elements route them into their debug categories.
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

/* Sets the thread's last error (printf format) and returns `s` for tail calls. */
tfl_status tfl_error(tfl_status s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Prefixes the current last error with more context ("loading x.tflite: ..."). */
tfl_status tfl_error_prefix(tfl_status s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The last error set on this thread; "" when none. Valid until the next error. */
const char *tfl_last_error(void);

typedef enum { TFL_LOG_ERROR, TFL_LOG_WARNING, TFL_LOG_INFO, TFL_LOG_DEBUG } tfl_log_level;
typedef void (*tfl_log_sink)(tfl_log_level level, const char *msg, void *user);
/* Routes log lines to `sink` (NULL: stderr for warnings and errors, info with TFL_LOG=info). */
void tfl_set_log_sink(tfl_log_sink sink, void *user);
void tfl_log(tfl_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
