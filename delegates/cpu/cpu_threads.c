/* cpu_threads.c - the CPU execution context: one set of worker threads (cpu_pool) shared
 * by our kernels and the XNNPACK runtimes, which reach it through pthreadpool's entry
 * points (cpu_pthreadpool.c). Where those entry points are not ours in this process,
 * XNNPACK gets a real pthreadpool of its own instead. */
#include "cpu_kernel.h"

#include "cpu_pool.h"
#include "cpu_pthreadpool.h"

#include <pthreadpool.h>
#include <stdlib.h>

struct cpu_ctx {
  int threads;
  cpu_pool *pool;       /* NULL when threads <= 1 */
  pthreadpool_t xnn;    /* what XNNPACK is given: pool itself, or a real pthreadpool */
  pthreadpool_t real;   /* that real pthreadpool, to destroy */
};

cpu_ctx *cpu_ctx_create(int threads)
{
  cpu_ctx *ctx = calloc(1, sizeof *ctx);
  if (!ctx) return NULL;
  ctx->threads = threads < 1 ? 1 : threads;
  if (ctx->threads > 1) {
    ctx->pool = cpu_pool_create(ctx->threads);
    if (ctx->pool && cpu_pthreadpool_interposed())
      ctx->xnn = (pthreadpool_t)ctx->pool;
    else if (ctx->pool)
      ctx->xnn = ctx->real = pthreadpool_create((size_t)ctx->threads);
    if (!ctx->pool || !ctx->xnn) {
      cpu_ctx_free(ctx);
      return NULL;
    }
  }
  return ctx;
}

void cpu_ctx_free(cpu_ctx *ctx)
{
  if (!ctx) return;
  if (ctx->real) pthreadpool_destroy(ctx->real);
  cpu_pool_free(ctx->pool);
  free(ctx);
}

struct pthreadpool *cpu_ctx_pool(cpu_ctx *ctx)
{
  return ctx ? ctx->xnn : NULL;
}

bool cpu_ctx_xnnpack_on_own_pool(const cpu_ctx *ctx)
{
  return ctx && ctx->pool && !ctx->real;
}

int cpu_thread_count(const cpu_ctx *ctx)
{
  return ctx ? ctx->threads : 1;
}

typedef struct {
  cpu_task fn;
  void *arg;
} task_range;

static void run_range(void *p, size_t b, size_t e)
{
  const task_range *t = p;
  for (size_t i = b; i < e; i++) t->fn(t->arg, i);
}

void cpu_parallel(cpu_ctx *ctx, cpu_task fn, void *arg, size_t n)
{
  task_range t = {fn, arg};
  cpu_pool_run(ctx ? ctx->pool : NULL, run_range, &t, n, 1, 0);
}
