/* check.h - the failure counter and CHECK macro shared by tests: a failed check prints
 * where and what, counts, and lets the test go on; main returns failures != 0. */
#ifndef TEST_CHECK_H
#define TEST_CHECK_H

#include <math.h>
#include <stdio.h>

static int failures;

#define CHECK(cond, ...)                                                        \
  do {                                                                          \
    if (!(cond)) {                                                              \
      failures++;                                                               \
      fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);           \
      fprintf(stderr, __VA_ARGS__);                                             \
      fprintf(stderr, "\n");                                                    \
    }                                                                           \
  } while (0)

#define NEAR(a, b, tol) (fabs((double)(a) - (double)(b)) <= (tol))

#endif
