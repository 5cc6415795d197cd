/* eval_error.h - how evaluation/ reports errors: one formatted line into the caller's
 * buffer (err may be NULL), and -1 to return. */
#ifndef EVAL_ERROR_H
#define EVAL_ERROR_H

#include <stddef.h>

int eval_fail(char *err, size_t err_size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
