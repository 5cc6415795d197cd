/* test_cpu_pool.c - the CPU delegate's thread pool and pthreadpool's entry points on it:
 *   - every parallelize variant XNNPACK calls, on our pool, with ranges that leave partial
 *     tiles: each call's (start, size) tuple is recorded and the multiset must equal the
 *     serial loop pthreadpool's header documents for that variant, each item exactly once;
 *   - the same through a pool made by the real pthreadpool_create (passed on to it);
 *   - this executable's lookup order puts our entry points first (XNNPACK's calls reach
 *     them), and cpu_ctx hands XNNPACK our pool;
 *   - flags: FTZ/DAZ set inside tasks when asked, the caller's MXCSR as it was after;
 *   - 20000 jobs of random sizes back to back (coverage each time), under TSan in CI;
 *   - cpu_parallel through cpu_ctx, 1 and 3 threads. */
#include <pthreadpool.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "../../delegates/cpu/cpu_kernel.h"
#include "../../delegates/cpu/cpu_pool.h"
#include "../../delegates/cpu/cpu_pthreadpool.h"

static int failures;

#define CHECK(c, ...)                                    \
  do {                                                   \
    if (!(c)) {                                          \
      failures++;                                        \
      fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
      fprintf(stderr, __VA_ARGS__);                      \
      fprintf(stderr, "\n");                             \
    }                                                    \
  } while (0)

/* ThreadSanitizer cannot see libpthreadpool's (uninstrumented) join when the real pool
 * runs the tasks: each task releases the log it wrote, the checker acquires it. */
#if defined(__SANITIZE_THREAD__)
#define TEST_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define TEST_TSAN 1
#endif
#endif
#ifdef TEST_TSAN
void __tsan_acquire(void *addr);
void __tsan_release(void *addr);
#define TSAN_RELEASE(p) __tsan_release(p)
#define TSAN_ACQUIRE(p) __tsan_acquire(p)
#else
#define TSAN_RELEASE(p) ((void)(p))
#define TSAN_ACQUIRE(p) ((void)(p))
#endif

/* a call's arguments, as up to 8 numbers, counted in a table keyed by them */
#define MAXCALLS 20000
typedef struct {
  size_t v[8];
} rec;

typedef struct {
  _Atomic size_t n;
  rec r[MAXCALLS];
} log_t;

static void put(log_t *l, const size_t *v, int k)
{
  size_t i = atomic_fetch_add(&l->n, 1);
  if (i >= MAXCALLS) return;
  memset(&l->r[i], 0, sizeof l->r[i]);
  memcpy(l->r[i].v, v, sizeof(size_t) * (size_t)k);
  TSAN_RELEASE(l);
}

static int cmp_rec(const void *a, const void *b)
{
  return memcmp(a, b, sizeof(rec));
}

static bool same_calls(log_t *a, log_t *b)
{
  TSAN_ACQUIRE(a);
  TSAN_ACQUIRE(b);
  if (a->n != b->n || a->n > MAXCALLS) return false;
  qsort(a->r, a->n, sizeof(rec), cmp_rec);
  qsort(b->r, b->n, sizeof(rec), cmp_rec);
  return memcmp(a->r, b->r, sizeof(rec) * a->n) == 0;
}

static void t1(void *c, size_t a) { put(c, (size_t[]){a}, 1); }
static void t2(void *c, size_t a, size_t b) { put(c, (size_t[]){a, b}, 2); }
static void t3(void *c, size_t a, size_t b, size_t d) { put(c, (size_t[]){a, b, d}, 3); }
static void t4(void *c, size_t a, size_t b, size_t d, size_t e) { put(c, (size_t[]){a, b, d, e}, 4); }
static void t5(void *c, size_t a, size_t b, size_t d, size_t e, size_t f) { put(c, (size_t[]){a, b, d, e, f}, 5); }
static void t6(void *c, size_t a, size_t b, size_t d, size_t e, size_t f, size_t g)
{
  put(c, (size_t[]){a, b, d, e, f, g}, 6);
}
static void t7(void *c, size_t a, size_t b, size_t d, size_t e, size_t f, size_t g, size_t h)
{
  put(c, (size_t[]){a, b, d, e, f, g, h}, 7);
}
static void t8(void *c, size_t a, size_t b, size_t d, size_t e, size_t f, size_t g, size_t h, size_t i)
{
  put(c, (size_t[]){a, b, d, e, f, g, h, i}, 8);
}

static size_t mn(size_t a, size_t b)
{
  return a < b ? a : b;
}

/* pthreadpool.h's serial snippets */
static void serial(int variant, log_t *l, const size_t *r, const size_t *t)
{
  switch (variant) {
  case 0: for (size_t i = 0; i < r[0]; i++) t1(l, i); break;
  case 1: for (size_t i = 0; i < r[0]; i += t[0]) t2(l, i, mn(r[0] - i, t[0])); break;
  case 2: for (size_t i = 0; i < r[0]; i++) for (size_t j = 0; j < r[1]; j++) t2(l, i, j); break;
  case 3:
    for (size_t i = 0; i < r[0]; i++)
      for (size_t j = 0; j < r[1]; j += t[1]) t3(l, i, j, mn(r[1] - j, t[1]));
    break;
  case 4:
    for (size_t i = 0; i < r[0]; i += t[0])
      for (size_t j = 0; j < r[1]; j += t[1]) t4(l, i, j, mn(r[0] - i, t[0]), mn(r[1] - j, t[1]));
    break;
  case 5:
    for (size_t i = 0; i < r[0]; i++)
      for (size_t j = 0; j < r[1]; j++)
        for (size_t k = 0; k < r[2]; k++) t3(l, i, j, k);
    break;
  case 6:
    for (size_t i = 0; i < r[0]; i++)
      for (size_t j = 0; j < r[1]; j += t[1])
        for (size_t k = 0; k < r[2]; k += t[2]) t5(l, i, j, k, mn(r[1] - j, t[1]), mn(r[2] - k, t[2]));
    break;
  case 7:
    for (size_t i = 0; i < r[0]; i++)
      for (size_t j = 0; j < r[1]; j++)
        for (size_t k = 0; k < r[2]; k++)
          for (size_t m = 0; m < r[3]; m++) t4(l, i, j, k, m);
    break;
  case 8:
    for (size_t i = 0; i < r[0]; i++)
      for (size_t j = 0; j < r[1]; j++)
        for (size_t k = 0; k < r[2]; k += t[2])
          for (size_t m = 0; m < r[3]; m += t[3]) t6(l, i, j, k, m, mn(r[2] - k, t[2]), mn(r[3] - m, t[3]));
    break;
  case 9:
    for (size_t i = 0; i < r[0]; i++)
      for (size_t j = 0; j < r[1]; j++)
        for (size_t k = 0; k < r[2]; k++)
          for (size_t m = 0; m < r[3]; m++)
            for (size_t n = 0; n < r[4]; n++) t5(l, i, j, k, m, n);
    break;
  case 10:
    for (size_t i = 0; i < r[0]; i++)
      for (size_t j = 0; j < r[1]; j++)
        for (size_t k = 0; k < r[2]; k++)
          for (size_t m = 0; m < r[3]; m += t[3])
            for (size_t n = 0; n < r[4]; n += t[4])
              t7(l, i, j, k, m, n, mn(r[3] - m, t[3]), mn(r[4] - n, t[4]));
    break;
  case 11:
    for (size_t i = 0; i < r[0]; i++)
      for (size_t j = 0; j < r[1]; j++)
        for (size_t k = 0; k < r[2]; k++)
          for (size_t m = 0; m < r[3]; m++)
            for (size_t n = 0; n < r[4]; n += t[4])
              for (size_t o = 0; o < r[5]; o += t[5])
                t8(l, i, j, k, m, n, o, mn(r[4] - n, t[4]), mn(r[5] - o, t[5]));
    break;
  }
}

static void parallel(int variant, pthreadpool_t p, log_t *l, const size_t *r, const size_t *t)
{
  switch (variant) {
  case 0: pthreadpool_parallelize_1d(p, t1, l, r[0], 0); break;
  case 1: pthreadpool_parallelize_1d_tile_1d(p, t2, l, r[0], t[0], 0); break;
  case 2: pthreadpool_parallelize_2d(p, t2, l, r[0], r[1], 0); break;
  case 3: pthreadpool_parallelize_2d_tile_1d(p, t3, l, r[0], r[1], t[1], 0); break;
  case 4: pthreadpool_parallelize_2d_tile_2d(p, t4, l, r[0], r[1], t[0], t[1], 0); break;
  case 5: pthreadpool_parallelize_3d(p, t3, l, r[0], r[1], r[2], 0); break;
  case 6: pthreadpool_parallelize_3d_tile_2d(p, t5, l, r[0], r[1], r[2], t[1], t[2], 0); break;
  case 7: pthreadpool_parallelize_4d(p, t4, l, r[0], r[1], r[2], r[3], 0); break;
  case 8: pthreadpool_parallelize_4d_tile_2d(p, t6, l, r[0], r[1], r[2], r[3], t[2], t[3], 0); break;
  case 9: pthreadpool_parallelize_5d(p, t5, l, r[0], r[1], r[2], r[3], r[4], 0); break;
  case 10: pthreadpool_parallelize_5d_tile_2d(p, t7, l, r[0], r[1], r[2], r[3], r[4], t[3], t[4], 0); break;
  case 11: pthreadpool_parallelize_6d_tile_2d(p, t8, l, r[0], r[1], r[2], r[3], r[4], r[5], t[4], t[5], 0); break;
  }
}

static log_t la, lb;

/* zero_ranges: libpthreadpool asserts on some of them (XNNPACK never passes any) */
static void variants(pthreadpool_t p, const char *what, bool zero_ranges)
{
  static const size_t shapes[][2][6] = {
    {{7, 5, 3, 4, 6, 5}, {3, 2, 2, 3, 4, 2}},
    {{1, 1, 1, 1, 1, 1}, {1, 1, 1, 1, 1, 1}},
    {{13, 1, 2, 1, 9, 1}, {5, 1, 1, 1, 4, 1}},
    {{2, 3, 1, 17, 1, 31}, {2, 3, 1, 16, 1, 8}},
    {{0, 4, 4, 4, 4, 4}, {1, 1, 1, 1, 1, 1}},
  };
  for (int v = 0; v < 12; v++)
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
      if (!zero_ranges && shapes[s][0][0] == 0) continue;
      la.n = lb.n = 0;
      serial(v, &la, shapes[s][0], shapes[s][1]);
      parallel(v, p, &lb, shapes[s][0], shapes[s][1]);
      CHECK(same_calls(&la, &lb), "%s: variant %d shape %zu: %zu calls, serial %zu", what, v, s, (size_t)lb.n,
            (size_t)la.n);
    }
}

#if defined(__x86_64__)
static void ftz_task(void *c, size_t i)
{
  (void)i;
  if ((_mm_getcsr() & 0x8040u) != 0x8040u) atomic_fetch_add((_Atomic int *)c, 1);
}
#endif

/* random jobs: every index once */
typedef struct {
  _Atomic unsigned char seen[4096];
} cover;

static void mark(void *c, size_t i)
{
  atomic_fetch_add(&((cover *)c)->seen[i], 1);
}

static void stress(cpu_ctx *ctx)
{
  static cover cv;
  uint32_t rng = 12345;
  for (int j = 0; j < 20000; j++) {
    rng = rng * 1664525u + 1013904223u;
    const size_t n = (rng >> 8) % (j % 100 == 0 ? 4096 : 64);
    for (size_t i = 0; i < n; i++) atomic_store(&cv.seen[i], 0);
    cpu_parallel(ctx, mark, &cv, n);
    for (size_t i = 0; i < n; i++)
      if (atomic_load(&cv.seen[i]) != 1) {
        CHECK(0, "job %d: index %zu of %zu ran %d times", j, i, n, atomic_load(&cv.seen[i]));
        return;
      }
  }
}

int main(void)
{
  CHECK(cpu_pthreadpool_interposed(), "pthreadpool's entry points here are not this program's");

  for (int threads = 2; threads <= 4; threads++) {
    cpu_ctx *ctx = cpu_ctx_create(threads);
    CHECK(ctx, "cpu_ctx_create(%d)", threads);
    if (!ctx) continue;
    pthreadpool_t p = cpu_ctx_pool(ctx);
    CHECK(cpu_pool_is_ours(p), "XNNPACK is not given our pool");
    CHECK(pthreadpool_get_threads_count(p) == (size_t)threads, "threads count %zu", pthreadpool_get_threads_count(p));
    char what[32];
    snprintf(what, sizeof what, "our pool, %d threads", threads);
    variants(p, what, true);
    if (threads == 2) stress(ctx);
#if defined(__x86_64__)
    _Atomic int bad = 0;
    const unsigned before = _mm_getcsr();
    pthreadpool_parallelize_1d(p, ftz_task, &bad, 64, PTHREADPOOL_FLAG_DISABLE_DENORMALS);
    CHECK(bad == 0, "%d tasks ran without FTZ/DAZ", bad);
    CHECK(_mm_getcsr() == before, "the caller's MXCSR changed");
#endif
    cpu_ctx_free(ctx);
  }

  /* NULL: the caller alone */
  variants(NULL, "no pool", true);
  CHECK(pthreadpool_get_threads_count(NULL) == 1, "NULL pool threads");

  /* a real pthreadpool: passed on to libpthreadpool */
  pthreadpool_t real = pthreadpool_create(3);
  CHECK(real && !cpu_pool_is_ours(real), "pthreadpool_create");
  if (real) {
    CHECK(pthreadpool_get_threads_count(real) == 3, "real pool threads %zu", pthreadpool_get_threads_count(real));
    variants(real, "libpthreadpool's pool", false);
    pthreadpool_destroy(real);
  }

  cpu_ctx *one = cpu_ctx_create(1);
  CHECK(one && cpu_ctx_pool(one) == NULL, "1 thread: no pool");
  stress(one);
  cpu_ctx_free(one);

  printf("%s\n", failures ? "FAILED" : "ok");
  return failures ? 1 : 0;
}
