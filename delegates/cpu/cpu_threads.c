/* cpu_threads.c - the CPU execution context: a pthreadpool shared by our kernels and
 * XNNPACK runtimes, so both use the same worker threads. */
#include "cpu_kernel.h"

#include <pthreadpool.h>
#include <stdlib.h>

struct cpu_ctx {
  int threads;
  pthreadpool_t pool; /* NULL when threads <= 1 */
};

cpu_ctx *cpu_ctx_create(int threads)
{
  cpu_ctx *ctx = calloc(1, sizeof *ctx);
  if (!ctx) return NULL;
  ctx->threads = threads < 1 ? 1 : threads;
  if (ctx->threads > 1) {
    ctx->pool = pthreadpool_create((size_t)ctx->threads);
    if (!ctx->pool) {
      free(ctx);
      return NULL;
    }
  }
  return ctx;
}

void cpu_ctx_free(cpu_ctx *ctx)
{
  if (!ctx) return;
  if (ctx->pool) pthreadpool_destroy(ctx->pool);
  free(ctx);
}

struct pthreadpool *cpu_ctx_pool(cpu_ctx *ctx)
{
  return ctx ? ctx->pool : NULL;
}

int cpu_thread_count(const cpu_ctx *ctx)
{
  return ctx ? ctx->threads : 1;
}

void cpu_parallel(cpu_ctx *ctx, cpu_task fn, void *arg, size_t n)
{
  if (!ctx || !ctx->pool || n < 2) {
    for (size_t i = 0; i < n; i++) fn(arg, i);
    return;
  }
  pthreadpool_parallelize_1d(ctx->pool, (pthreadpool_task_1d_t)fn, arg, n, 0);
}
