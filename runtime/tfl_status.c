/* tfl_status.c - status names and diagnostics contexts (see tfl_status.h). */
#include "tfl_status.h"

#include <stdio.h>
#include <string.h>

const char *tfl_status_name(tfl_status s)
{
  switch (s) {
  case TFL_OK: return "ok";
  case TFL_ERR_IO: return "i/o error";
  case TFL_ERR_FORMAT: return "malformed model";
  case TFL_ERR_UNSUPPORTED: return "unsupported";
  case TFL_ERR_SHAPE: return "shape mismatch";
  case TFL_ERR_NOMEM: return "out of memory";
  case TFL_ERR_ARG: return "bad argument";
  case TFL_ERR_BACKEND: return "delegate failure";
  }
  return "unknown status";
}

void tfl_diag_init(tfl_diag *d)
{
  if (!d) return;
  memset(d, 0, sizeof *d);
  d->verbosity = TFL_LOG_WARNING;
}

tfl_status tfl_fail(tfl_diag *d, tfl_status s, const char *fmt, ...)
{
  if (!d) return s;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(d->error, sizeof d->error, fmt, ap);
  va_end(ap);
  return s;
}

tfl_status tfl_fail_prefix(tfl_diag *d, tfl_status s, const char *fmt, ...)
{
  if (!d) return s;
  char prefix[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(prefix, sizeof prefix, fmt, ap);
  va_end(ap);
  /* "prefix: old", the old message cut at the buffer's end */
  size_t pn = strlen(prefix), room = sizeof d->error - pn - 2;
  memmove(d->error + pn + 2, d->error, room);
  d->error[sizeof d->error - 1] = '\0';
  memcpy(d->error, prefix, pn);
  d->error[pn] = ':';
  d->error[pn + 1] = ' ';
  return s;
}

void tfl_logf(tfl_diag *d, tfl_log_level level, const char *fmt, ...)
{
  if (!d || (!d->sink && level > d->verbosity)) return;
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (d->sink) {
    d->sink(level, msg, d->user);
    return;
  }
  static const char *const tags[] = { "ERROR", "WARNING", "INFO", "DEBUG" };
  fprintf(stderr, "%s: %s\n", tags[level], msg);
}
