/* check.h - the failure counter and CHECK macro shared by tests: a failed check prints
 * where and what, counts, and lets the test go on; main returns failures != 0. A test whose
 * log is read as a list (what passed, what was seen) defines CHECK_PRINTS_OK first. */
#ifndef TEST_CHECK_H
#define TEST_CHECK_H

#include <math.h>
#include <stdio.h>

static int failures;

#ifdef CHECK_PRINTS_OK
/* defined before the include: passing checks print "ok   what" on stdout as well */
#define CHECK_OK_LINE(...)                                                      \
  do {                                                                          \
    printf("ok   ");                                                            \
    printf(__VA_ARGS__);                                                        \
    printf("\n");                                                               \
  } while (0)
#else
#define CHECK_OK_LINE(...) ((void)0)
#endif

#define CHECK(cond, ...)                                                        \
  do {                                                                          \
    if (!(cond)) {                                                              \
      failures++;                                                               \
      fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);           \
      fprintf(stderr, __VA_ARGS__);                                             \
      fprintf(stderr, "\n");                                                    \
    } else {                                                                    \
      CHECK_OK_LINE(__VA_ARGS__);                                               \
    }                                                                           \
  } while (0)

#define NEAR(a, b, tol) (fabs((double)(a) - (double)(b)) <= (tol))

#endif
