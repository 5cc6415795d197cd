/* eval_error.c - see eval_error.h */
#include "eval_error.h"

#include <stdarg.h>
#include <stdio.h>

int eval_fail(char *err, size_t err_size, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  if (err && err_size) vsnprintf(err, err_size, fmt, ap);
  va_end(ap);
  return -1;
}
