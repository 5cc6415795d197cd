/* tfl_status.c - last-error buffer and log routing (see tfl_status.h). */
#include "tfl_status.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static _Thread_local char last_error[512];
static tfl_log_sink log_sink;
static void *log_user;

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

tfl_status tfl_error(tfl_status s, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(last_error, sizeof last_error, fmt, ap);
  va_end(ap);
  return s;
}

tfl_status tfl_error_prefix(tfl_status s, const char *fmt, ...)
{
  char prefix[256], old[sizeof last_error];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(prefix, sizeof prefix, fmt, ap);
  va_end(ap);
  memcpy(old, last_error, sizeof old);
  snprintf(last_error, sizeof last_error, "%s: %s", prefix, old);
  return s;
}

const char *tfl_last_error(void)
{
  return last_error;
}

void tfl_set_log_sink(tfl_log_sink sink, void *user)
{
  log_sink = sink;
  log_user = user;
}

void tfl_log(tfl_log_level level, const char *fmt, ...)
{
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (log_sink) {
    log_sink(level, msg, log_user);
    return;
  }
  const char *env = getenv("TFL_LOG");
  int verbose = env && (!strcmp(env, "info") || !strcmp(env, "debug"));
  int debug = env && !strcmp(env, "debug");
  if (level <= TFL_LOG_WARNING || (level == TFL_LOG_INFO && verbose) || debug) {
    static const char *const tags[] = { "ERROR", "WARNING", "INFO", "DEBUG" };
    fprintf(stderr, "%s: %s\n", tags[level], msg);
  }
}
