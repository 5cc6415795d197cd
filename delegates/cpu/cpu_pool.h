/* cpu_pool.h - the CPU delegate's worker threads: a parallel-for whose caller never
 * waits for a worker that has not started.
 *
 * Work is handed out in chunks from one counter; the caller takes chunks too, and returns
 * as soon as every chunk is done. A worker that the scheduler has not run yet (another
 * process on its core, a preempted vCPU) finds nothing left when it wakes, instead of
 * holding up every step: pthreadpool (2021), which XNNPACK uses, waits for each worker to
 * check in, so on a busy box every parallel step cost a scheduler time slice. The caller
 * spins only briefly before sleeping, so the kernel can move a preempted worker onto the
 * caller's idle core. */
#ifndef CPU_POOL_H
#define CPU_POOL_H

#include <stddef.h>
#include <stdint.h>

typedef struct cpu_pool cpu_pool;

/* threads counts the caller: threads - 1 workers are started. NULL when threads < 2 or
 * out of memory / threads. */
cpu_pool *cpu_pool_create(int threads);
void cpu_pool_free(cpu_pool *p);
int cpu_pool_threads(const cpu_pool *p);

/* flags, with pthreadpool's values: tasks run with x86 FTZ/DAZ set; workers sleep right
 * after this job instead of spinning for the next (the last step of an inference) */
#define CPU_POOL_DENORMALS_OFF 0x1u
#define CPU_POOL_YIELD_WORKERS 0x2u

/* fn(arg, begin, end) over [0, n) in chunks of at least min_chunk items; returns when all
 * ran. Calls on one pool are serialized; p NULL runs fn(arg, 0, n) on the caller. */
typedef void (*cpu_pool_range_fn)(void *arg, size_t begin, size_t end);
void cpu_pool_run(cpu_pool *p, cpu_pool_range_fn fn, void *arg, size_t n, size_t min_chunk, unsigned flags);

/* true when p is a pool made by cpu_pool_create (pthreadpool entry points receive pools
 * of the real library too) */
int cpu_pool_is_ours(const void *p);

#endif
