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

#if defined(__SANITIZE_THREAD__) /* gcc -fsanitize=thread */
#define CPU_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer) /* clang */
#define CPU_TSAN 1
#endif
#endif

#ifdef CPU_TSAN
/* Debian's pthreadpool is not instrumented, so ThreadSanitizer cannot see the order it
 * guarantees and would report every task's reads of what the caller prepared. Tell it
 * exactly that order and nothing more: the caller's writes happen before every task
 * (fork), every task's writes happen before parallelize returns (join). Tasks do not
 * synchronize with each other, so two tasks touching the same bytes are still reported. */
void __tsan_acquire(void *addr);
void __tsan_release(void *addr);

typedef struct {
  cpu_task fn;
  void *arg;
  char fork, join; /* their addresses name the two synchronization points */
} tsan_call;

static void tsan_task(void *p, size_t i)
{
  tsan_call *c = p;
  __tsan_acquire(&c->fork);
  c->fn(c->arg, i);
  __tsan_release(&c->join);
}

void cpu_parallel(cpu_ctx *ctx, cpu_task fn, void *arg, size_t n)
{
  if (!ctx || !ctx->pool || n < 2) {
    for (size_t i = 0; i < n; i++) fn(arg, i);
    return;
  }
  tsan_call c = {fn, arg, 0, 0};
  __tsan_release(&c.fork);
  pthreadpool_parallelize_1d(ctx->pool, tsan_task, &c, n, 0);
  __tsan_acquire(&c.join);
}
#else
void cpu_parallel(cpu_ctx *ctx, cpu_task fn, void *arg, size_t n)
{
  if (!ctx || !ctx->pool || n < 2) {
    for (size_t i = 0; i < n; i++) fn(arg, i);
    return;
  }
  pthreadpool_parallelize_1d(ctx->pool, (pthreadpool_task_1d_t)fn, arg, n, 0);
}
#endif
