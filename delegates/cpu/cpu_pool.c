/* cpu_pool.c - see cpu_pool.h.
 *
 * One job at a time. Each thread (the caller is thread 0) has a range word on its own
 * cache line: generation << 32 | first chunk << 16 | end chunk. A job gives each thread a
 * contiguous share (as pthreadpool does: neighbouring tiles share input rows); a thread
 * takes chunks from the front of its own range, then steals from the back of the others'.
 * Every take is a compare-and-swap that also checks the generation, so a worker that wakes
 * after its job ended cannot take a chunk of the next one. Before the caller rewrites the
 * job's fields it closes every range word (the next generation, empty); it stores the
 * fields with release and workers load them with acquire, so a worker that read a field of
 * the new job also sees the closed words and fails its takes: a successful take proves the
 * fields it read belong to that take's job. The caller returns when the done count reaches
 * the number of chunks, never waiting for a worker that took nothing. */
#define _GNU_SOURCE
#include "cpu_pool.h"

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define CPU_RELAX() _mm_pause()
#else
#define CPU_RELAX() ((void)0)
#endif

#define POOL_MAGIC 0x6c6f6f7055504354ull /* "TCPUPool" */
/* A worker spins for this much of its own CPU time after a job before sleeping: the steps
 * of one inference come microseconds apart, and a futex wake-up costs tens of
 * microseconds. CPU time, not wall time: a worker the scheduler set aside for another
 * process's time slice keeps spinning when it is back, instead of sleeping and needing a
 * wake-up for every step (measured: 2-3x slower steps with a busy core). */
#define WORKER_SPIN_NS 2000000
/* After this much spinning a worker also yields now and then: when the scheduler has put it
 * on the caller's core (the other one busy with another process), its spinning would
 * otherwise take half of the caller's time. */
#define WORKER_YIELD_AFTER_NS 50000
/* The caller spins this long for the last chunks before sleeping: a worker still running
 * finishes sooner, and a preempted one is then moved to the caller's idle core. */
#define CALLER_SPIN_NS 30000
/* chunk indices are 16 bits in a range word */
#define MAX_CHUNKS 65535u

typedef struct {
  _Alignas(64) _Atomic uint64_t w;
} range_word;

struct cpu_pool {
  uint64_t magic;
  int threads;
  pthread_mutex_t run_lock;
  /* the job, written by the caller before it publishes the range words */
  _Atomic(cpu_pool_range_fn) fn;
  _Atomic(void *) arg;
  _Atomic size_t n, chunk;
  _Atomic uint32_t n_chunks, ftz;
  range_word *ranges; /* one per thread */
  _Alignas(64) _Atomic uint32_t done;  /* chunks finished */
  _Atomic uint32_t caller_waiting;
  _Alignas(64) _Atomic uint32_t gen; /* futex word the workers sleep on */
  _Atomic uint32_t sleepers, stop, no_spin;
  int n_workers;
  pthread_t workers[];
};

static void futex_wait(_Atomic uint32_t *w, uint32_t v)
{
  syscall(SYS_futex, (uint32_t *)w, FUTEX_WAIT_PRIVATE, v, NULL, NULL, 0);
}

static void futex_wake(_Atomic uint32_t *w, int n)
{
  syscall(SYS_futex, (uint32_t *)w, FUTEX_WAKE_PRIVATE, n, NULL, NULL, 0);
}

static int64_t now_ns(clockid_t clock)
{
  struct timespec t;
  clock_gettime(clock, &t);
  return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* x86 MXCSR flush-to-zero and denormals-are-zero, as pthreadpool sets them */
static unsigned denormals_off(void)
{
#if defined(__x86_64__) || defined(__i386__)
  const unsigned saved = _mm_getcsr();
  _mm_setcsr(saved | 0x8040u);
  return saved;
#else
  return 0;
#endif
}

static void denormals_restore(unsigned saved)
{
#if defined(__x86_64__) || defined(__i386__)
  _mm_setcsr(saved);
#else
  (void)saved;
#endif
}

static uint64_t range_pack(uint32_t g, uint32_t lo, uint32_t hi)
{
  return (uint64_t)g << 32 | (uint64_t)lo << 16 | hi;
}

/* the next chunk from the front (own range) or the back (another's) of a range of job g */
static bool take(range_word *r, uint32_t g, bool back, uint32_t *c)
{
  uint64_t w = atomic_load_explicit(&r->w, memory_order_acquire);
  for (;;) {
    const uint32_t lo = (uint32_t)(w >> 16) & 0xffffu, hi = (uint32_t)w & 0xffffu;
    if ((uint32_t)(w >> 32) != g || lo >= hi) return false;
    const uint64_t next = back ? range_pack(g, lo, hi - 1) : range_pack(g, lo + 1, hi);
    if (atomic_compare_exchange_weak_explicit(&r->w, &w, next, memory_order_acq_rel, memory_order_acquire)) {
      *c = back ? hi - 1 : lo;
      return true;
    }
  }
}

/* thread self takes chunks of job g until none is left anywhere */
static void work(cpu_pool *p, uint32_t g, int self)
{
  const cpu_pool_range_fn fn = atomic_load_explicit(&p->fn, memory_order_acquire);
  void *const arg = atomic_load_explicit(&p->arg, memory_order_acquire);
  const size_t n = atomic_load_explicit(&p->n, memory_order_acquire);
  const size_t chunk = atomic_load_explicit(&p->chunk, memory_order_acquire);
  const uint32_t n_chunks = atomic_load_explicit(&p->n_chunks, memory_order_acquire);
  const bool ftz = atomic_load_explicit(&p->ftz, memory_order_acquire);
  uint32_t took = 0, c;
  unsigned saved = 0;
  for (int k = 0; k < p->threads; k++) {
    range_word *r = &p->ranges[(self + k) % p->threads];
    while (take(r, g, k > 0, &c)) {
      if (!took && ftz) saved = denormals_off();
      took++;
      const size_t b = (size_t)c * chunk, e = n - b > chunk ? b + chunk : n;
      fn(arg, b, e);
    }
  }
  if (!took) return;
  if (ftz) denormals_restore(saved);
  /* counted once per thread and job, not per chunk: the done line is shared */
  const uint32_t d = atomic_fetch_add(&p->done, took) + took;
  if (d == n_chunks && atomic_load(&p->caller_waiting)) futex_wake(&p->done, 1);
}

typedef struct {
  cpu_pool *p;
  int self;
} worker_arg;

static void *worker_main(void *varg)
{
  worker_arg *a = varg;
  cpu_pool *const p = a->p;
  const int self = a->self;
  free(a);
  uint32_t last = atomic_load(&p->gen);
  for (;;) {
    uint32_t g = atomic_load_explicit(&p->gen, memory_order_acquire);
    if (g == last && !atomic_load_explicit(&p->no_spin, memory_order_relaxed)) {
      const int64_t t0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
      for (int k = 0; g == last; k++) {
        CPU_RELAX();
        if ((k & 255) == 255) {
          const int64_t spun = now_ns(CLOCK_THREAD_CPUTIME_ID) - t0;
          if (spun > WORKER_SPIN_NS) break;
          if (spun > WORKER_YIELD_AFTER_NS) sched_yield();
        }
        g = atomic_load_explicit(&p->gen, memory_order_acquire);
      }
    }
    if (g == last) {
      atomic_fetch_add(&p->sleepers, 1);
      /* stop too: a worker that started after cpu_pool_free bumped gen took that as its last */
      while ((g = atomic_load(&p->gen)) == last && !atomic_load(&p->stop)) futex_wait(&p->gen, last);
      atomic_fetch_sub(&p->sleepers, 1);
    }
    if (atomic_load(&p->stop)) return NULL;
    last = g;
    work(p, g, self);
  }
}

cpu_pool *cpu_pool_create(int threads)
{
  if (threads < 2 || threads > 1024) return NULL;
  cpu_pool *p = calloc(1, sizeof *p + sizeof(pthread_t) * (size_t)(threads - 1));
  if (!p) return NULL;
  p->magic = POOL_MAGIC;
  p->threads = threads;
  pthread_mutex_init(&p->run_lock, NULL);
  p->ranges = aligned_alloc(64, sizeof(range_word) * (size_t)threads);
  if (!p->ranges) {
    cpu_pool_free(p);
    return NULL;
  }
  for (int t = 0; t < threads; t++) atomic_init(&p->ranges[t].w, 0);
  for (; p->n_workers < threads - 1; p->n_workers++) {
    worker_arg *a = malloc(sizeof *a);
    if (a) *a = (worker_arg){p, p->n_workers + 1};
    if (!a || pthread_create(&p->workers[p->n_workers], NULL, worker_main, a) != 0) {
      free(a);
      cpu_pool_free(p);
      return NULL;
    }
  }
  return p;
}

void cpu_pool_free(cpu_pool *p)
{
  if (!p) return;
  atomic_store(&p->stop, 1);
  atomic_fetch_add(&p->gen, 1);
  futex_wake(&p->gen, INT_MAX);
  for (int i = 0; i < p->n_workers; i++) pthread_join(p->workers[i], NULL);
  pthread_mutex_destroy(&p->run_lock);
  free(p->ranges);
  p->magic = 0;
  free(p);
}

int cpu_pool_threads(const cpu_pool *p)
{
  return p ? p->threads : 1;
}

int cpu_pool_is_ours(const void *p)
{
  return p && ((const cpu_pool *)p)->magic == POOL_MAGIC;
}

void cpu_pool_run(cpu_pool *p, cpu_pool_range_fn fn, void *arg, size_t n, size_t min_chunk, unsigned flags)
{
  const bool disable_denormals = flags & CPU_POOL_DENORMALS_OFF;
  if (n == 0) return;
  if (min_chunk < 1) min_chunk = 1;
  if (!p || n <= min_chunk) {
    const unsigned saved = disable_denormals ? denormals_off() : 0;
    fn(arg, 0, n);
    if (disable_denormals) denormals_restore(saved);
    return;
  }
  size_t chunk = (n + MAX_CHUNKS - 1) / MAX_CHUNKS;
  if (chunk < min_chunk) chunk = min_chunk;
  const uint32_t n_chunks = (uint32_t)((n + chunk - 1) / chunk);

  pthread_mutex_lock(&p->run_lock);
  const uint32_t g = atomic_load_explicit(&p->gen, memory_order_relaxed) + 1;
  const int T = p->threads;
  for (int t = 0; t < T; t++) /* closed: see the top */
    atomic_store_explicit(&p->ranges[t].w, range_pack(g, 0, 0), memory_order_relaxed);
  atomic_store_explicit(&p->fn, fn, memory_order_release);
  atomic_store_explicit(&p->arg, arg, memory_order_release);
  atomic_store_explicit(&p->n, n, memory_order_release);
  atomic_store_explicit(&p->chunk, chunk, memory_order_release);
  atomic_store_explicit(&p->n_chunks, n_chunks, memory_order_release);
  atomic_store_explicit(&p->ftz, disable_denormals ? 1u : 0u, memory_order_release);
  atomic_store_explicit(&p->no_spin, flags & CPU_POOL_YIELD_WORKERS ? 1u : 0u, memory_order_relaxed);
  atomic_store_explicit(&p->done, 0, memory_order_relaxed);
  for (int t = 0; t < T; t++)
    atomic_store_explicit(&p->ranges[t].w,
                          range_pack(g, (uint32_t)((uint64_t)n_chunks * t / T), (uint32_t)((uint64_t)n_chunks * (t + 1) / T)),
                          memory_order_release);
  atomic_store(&p->gen, g); /* seq_cst: against a worker going to sleep (sleepers) */
  if (atomic_load(&p->sleepers)) futex_wake(&p->gen, INT_MAX);

  work(p, g, 0);

  if (atomic_load_explicit(&p->done, memory_order_acquire) != n_chunks) {
    const int64_t t0 = now_ns(CLOCK_MONOTONIC);
    for (int k = 0; atomic_load_explicit(&p->done, memory_order_acquire) != n_chunks; k++) {
      CPU_RELAX();
      if ((k & 63) == 63 && now_ns(CLOCK_MONOTONIC) - t0 > CALLER_SPIN_NS) break;
    }
    uint32_t d = atomic_load(&p->done);
    if (d != n_chunks) {
      atomic_store(&p->caller_waiting, 1);
      while ((d = atomic_load(&p->done)) != n_chunks) futex_wait(&p->done, d);
      atomic_store(&p->caller_waiting, 0);
    }
  }
  pthread_mutex_unlock(&p->run_lock);
}
