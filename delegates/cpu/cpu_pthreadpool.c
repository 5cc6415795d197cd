/* cpu_pthreadpool.c - pthreadpool's parallelize entry points, run on cpu_pool.
 *
 * Debian's XNNPACK (2022) threads through pthreadpool (2021), whose caller waits at every
 * step for each worker to check in (see cpu_pool.h). XNNPACK only calls the functions
 * below on the pool it was given; defined here, they come before libpthreadpool's in the
 * lookup order of every object we are linked into (an executable, or the plugin with
 * XNNPACK loaded as its dependency), so XNNPACK's steps run on our pool. A pool that is
 * not ours (another library's, made by the real pthreadpool_create) is passed on to the
 * next definition, libpthreadpool's. cpu_pthreadpool_interposed() says whether the lookup
 * order is as expected; cpu_threads.c hands XNNPACK a real pthreadpool when it is not. */
#define _GNU_SOURCE
#include "cpu_pthreadpool.h"

#include "cpu_pool.h"

#include <dlfcn.h>
#include <pthreadpool.h>

int cpu_pthreadpool_interposed(void)
{
  /* glibc looks a name up in the caller's scope: the one XNNPACK, loaded with us, binds in */
  void *found = dlsym(RTLD_DEFAULT, "pthreadpool_parallelize_2d_tile_2d");
  Dl_info a, b;
  if (!found || !dladdr(found, &a) || !dladdr((void *)cpu_pthreadpool_interposed, &b)) return 0;
  return a.dli_fbase == b.dli_fbase;
}

/* A grid of up to 6 dimensions, the last ones tiled; items run in row-major order. */
enum kind { K1D, K1D_T1, K2D, K2D_T1, K2D_T2, K3D, K3D_T2, K4D, K4D_T2, K5D, K5D_T2, K6D_T2 };

typedef struct {
  enum kind kind;
  void *fn, *ctx;
  int nd;
  size_t range[6], tile[6], count[6];
} grid;

static void call(const grid *gr, const size_t *c)
{
  size_t s[6], t[6]; /* start and size of each dimension's tile */
  for (int d = 0; d < gr->nd; d++) {
    s[d] = c[d] * gr->tile[d];
    t[d] = gr->range[d] - s[d] < gr->tile[d] ? gr->range[d] - s[d] : gr->tile[d];
  }
  void *x = gr->ctx;
  switch (gr->kind) {
  case K1D: ((pthreadpool_task_1d_t)gr->fn)(x, s[0]); break;
  case K1D_T1: ((pthreadpool_task_1d_tile_1d_t)gr->fn)(x, s[0], t[0]); break;
  case K2D: ((pthreadpool_task_2d_t)gr->fn)(x, s[0], s[1]); break;
  case K2D_T1: ((pthreadpool_task_2d_tile_1d_t)gr->fn)(x, s[0], s[1], t[1]); break;
  case K2D_T2: ((pthreadpool_task_2d_tile_2d_t)gr->fn)(x, s[0], s[1], t[0], t[1]); break;
  case K3D: ((pthreadpool_task_3d_t)gr->fn)(x, s[0], s[1], s[2]); break;
  case K3D_T2: ((pthreadpool_task_3d_tile_2d_t)gr->fn)(x, s[0], s[1], s[2], t[1], t[2]); break;
  case K4D: ((pthreadpool_task_4d_t)gr->fn)(x, s[0], s[1], s[2], s[3]); break;
  case K4D_T2: ((pthreadpool_task_4d_tile_2d_t)gr->fn)(x, s[0], s[1], s[2], s[3], t[2], t[3]); break;
  case K5D: ((pthreadpool_task_5d_t)gr->fn)(x, s[0], s[1], s[2], s[3], s[4]); break;
  case K5D_T2: ((pthreadpool_task_5d_tile_2d_t)gr->fn)(x, s[0], s[1], s[2], s[3], s[4], t[3], t[4]); break;
  case K6D_T2:
    ((pthreadpool_task_6d_tile_2d_t)gr->fn)(x, s[0], s[1], s[2], s[3], s[4], s[5], t[4], t[5]);
    break;
  }
}

/* items [b, e): the first one's coordinates by division, then counting */
static void run_items(void *arg, size_t b, size_t e)
{
  const grid *gr = arg;
  size_t c[6], rest = b;
  for (int d = gr->nd - 1; d >= 0; d--) {
    c[d] = rest % gr->count[d];
    rest /= gr->count[d];
  }
  for (size_t i = b; i < e; i++) {
    call(gr, c);
    for (int d = gr->nd - 1; d >= 0 && ++c[d] == gr->count[d]; d--) c[d] = 0;
  }
}

static void run_grid(pthreadpool_t pool, grid *gr, uint32_t flags)
{
  size_t n = 1;
  for (int d = 0; d < gr->nd; d++) {
    gr->count[d] = (gr->range[d] + gr->tile[d] - 1) / gr->tile[d];
    n *= gr->count[d];
  }
  cpu_pool_run((cpu_pool *)pool, run_items, gr, n, 1, flags);
}

/* the next definition of NAME (libpthreadpool's), for pools that are not ours; NULL when
 * there is none, and the grid then runs on the caller */
static void *next_definition(const char *name)
{
  return dlsym(RTLD_NEXT, name);
}

#define FOREIGN(name, ...)                                  \
  do {                                                      \
    if (pool && !cpu_pool_is_ours(pool)) {                  \
      void *real = next_definition(#name);                  \
      if (real) {                                           \
        ((__typeof__(&name))real)(pool, __VA_ARGS__);       \
        return;                                             \
      }                                                     \
      pool = NULL;                                          \
    }                                                       \
  } while (0)

size_t pthreadpool_get_threads_count(pthreadpool_t pool)
{
  if (pool && !cpu_pool_is_ours(pool)) {
    void *real = next_definition("pthreadpool_get_threads_count");
    return real ? ((__typeof__(&pthreadpool_get_threads_count))real)(pool) : 1;
  }
  return (size_t)cpu_pool_threads((cpu_pool *)pool);
}

void pthreadpool_parallelize_1d(pthreadpool_t pool, pthreadpool_task_1d_t f, void *ctx, size_t r0, uint32_t flags)
{
  FOREIGN(pthreadpool_parallelize_1d, f, ctx, r0, flags);
  grid gr = {K1D, (void *)f, ctx, 1, {r0}, {1}, {0}};
  run_grid(pool, &gr, flags);
}

void pthreadpool_parallelize_1d_tile_1d(pthreadpool_t pool, pthreadpool_task_1d_tile_1d_t f, void *ctx, size_t r0,
                                        size_t t0, uint32_t flags)
{
  FOREIGN(pthreadpool_parallelize_1d_tile_1d, f, ctx, r0, t0, flags);
  grid gr = {K1D_T1, (void *)f, ctx, 1, {r0}, {t0}, {0}};
  run_grid(pool, &gr, flags);
}

void pthreadpool_parallelize_2d(pthreadpool_t pool, pthreadpool_task_2d_t f, void *ctx, size_t r0, size_t r1,
                                uint32_t flags)
{
  FOREIGN(pthreadpool_parallelize_2d, f, ctx, r0, r1, flags);
  grid gr = {K2D, (void *)f, ctx, 2, {r0, r1}, {1, 1}, {0}};
  run_grid(pool, &gr, flags);
}

void pthreadpool_parallelize_2d_tile_1d(pthreadpool_t pool, pthreadpool_task_2d_tile_1d_t f, void *ctx, size_t r0,
                                        size_t r1, size_t t1, uint32_t flags)
{
  FOREIGN(pthreadpool_parallelize_2d_tile_1d, f, ctx, r0, r1, t1, flags);
  grid gr = {K2D_T1, (void *)f, ctx, 2, {r0, r1}, {1, t1}, {0}};
  run_grid(pool, &gr, flags);
}

void pthreadpool_parallelize_2d_tile_2d(pthreadpool_t pool, pthreadpool_task_2d_tile_2d_t f, void *ctx, size_t r0,
                                        size_t r1, size_t t0, size_t t1, uint32_t flags)
{
  FOREIGN(pthreadpool_parallelize_2d_tile_2d, f, ctx, r0, r1, t0, t1, flags);
  grid gr = {K2D_T2, (void *)f, ctx, 2, {r0, r1}, {t0, t1}, {0}};
  run_grid(pool, &gr, flags);
}

void pthreadpool_parallelize_3d(pthreadpool_t pool, pthreadpool_task_3d_t f, void *ctx, size_t r0, size_t r1,
                                size_t r2, uint32_t flags)
{
  FOREIGN(pthreadpool_parallelize_3d, f, ctx, r0, r1, r2, flags);
  grid gr = {K3D, (void *)f, ctx, 3, {r0, r1, r2}, {1, 1, 1}, {0}};
  run_grid(pool, &gr, flags);
}

void pthreadpool_parallelize_3d_tile_2d(pthreadpool_t pool, pthreadpool_task_3d_tile_2d_t f, void *ctx, size_t r0,
                                        size_t r1, size_t r2, size_t t1, size_t t2, uint32_t flags)
{
  FOREIGN(pthreadpool_parallelize_3d_tile_2d, f, ctx, r0, r1, r2, t1, t2, flags);
  grid gr = {K3D_T2, (void *)f, ctx, 3, {r0, r1, r2}, {1, t1, t2}, {0}};
  run_grid(pool, &gr, flags);
}

void pthreadpool_parallelize_4d(pthreadpool_t pool, pthreadpool_task_4d_t f, void *ctx, size_t r0, size_t r1,
                                size_t r2, size_t r3, uint32_t flags)
{
  FOREIGN(pthreadpool_parallelize_4d, f, ctx, r0, r1, r2, r3, flags);
  grid gr = {K4D, (void *)f, ctx, 4, {r0, r1, r2, r3}, {1, 1, 1, 1}, {0}};
  run_grid(pool, &gr, flags);
}

void pthreadpool_parallelize_4d_tile_2d(pthreadpool_t pool, pthreadpool_task_4d_tile_2d_t f, void *ctx, size_t r0,
                                        size_t r1, size_t r2, size_t r3, size_t t2, size_t t3, uint32_t flags)
{
  FOREIGN(pthreadpool_parallelize_4d_tile_2d, f, ctx, r0, r1, r2, r3, t2, t3, flags);
  grid gr = {K4D_T2, (void *)f, ctx, 4, {r0, r1, r2, r3}, {1, 1, t2, t3}, {0}};
  run_grid(pool, &gr, flags);
}

void pthreadpool_parallelize_5d(pthreadpool_t pool, pthreadpool_task_5d_t f, void *ctx, size_t r0, size_t r1,
                                size_t r2, size_t r3, size_t r4, uint32_t flags)
{
  FOREIGN(pthreadpool_parallelize_5d, f, ctx, r0, r1, r2, r3, r4, flags);
  grid gr = {K5D, (void *)f, ctx, 5, {r0, r1, r2, r3, r4}, {1, 1, 1, 1, 1}, {0}};
  run_grid(pool, &gr, flags);
}

void pthreadpool_parallelize_5d_tile_2d(pthreadpool_t pool, pthreadpool_task_5d_tile_2d_t f, void *ctx, size_t r0,
                                        size_t r1, size_t r2, size_t r3, size_t r4, size_t t3, size_t t4,
                                        uint32_t flags)
{
  FOREIGN(pthreadpool_parallelize_5d_tile_2d, f, ctx, r0, r1, r2, r3, r4, t3, t4, flags);
  grid gr = {K5D_T2, (void *)f, ctx, 5, {r0, r1, r2, r3, r4}, {1, 1, 1, t3, t4}, {0}};
  run_grid(pool, &gr, flags);
}

void pthreadpool_parallelize_6d_tile_2d(pthreadpool_t pool, pthreadpool_task_6d_tile_2d_t f, void *ctx, size_t r0,
                                        size_t r1, size_t r2, size_t r3, size_t r4, size_t r5, size_t t4,
                                        size_t t5, uint32_t flags)
{
  FOREIGN(pthreadpool_parallelize_6d_tile_2d, f, ctx, r0, r1, r2, r3, r4, r5, t4, t5, flags);
  grid gr = {K6D_T2, (void *)f, ctx, 6, {r0, r1, r2, r3, r4, r5}, {1, 1, 1, 1, t4, t5}, {0}};
  run_grid(pool, &gr, flags);
}
