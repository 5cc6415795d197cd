/* core_pingpong.c - the round trip of one cache line between two cores, for
 * bench_peers.sh: on a VM the two virtual cores are sometimes near and sometimes far
 * apart (50-60 ns against ~300 ns were seen), and every 2-thread figure depends on
 * which, so the benchmark prints it beside them.
 *
 * Two threads pinned to CPUs A and B pass a counter back and forth through one
 * cache line; prints "core round trip A<->B: X ns" (median of 9 bursts). */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { TRIPS = 20000, BURSTS = 9 };

static _Alignas(64) _Atomic long ball;

static void pin(int cpu)
{
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

/* The partner: answers every odd value with the next even one. */
static void *partner(void *arg)
{
  pin(*(int *)arg);
  for (long want = 1; want < (long)TRIPS * BURSTS * 2; want += 2) {
    while (atomic_load_explicit(&ball, memory_order_acquire) != want) {
    }
    atomic_store_explicit(&ball, want + 1, memory_order_release);
  }
  return NULL;
}

static double now_ns(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return 1e9 * (double)ts.tv_sec + (double)ts.tv_nsec;
}

static int by_value(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
  int a = argc > 1 ? atoi(argv[1]) : 0, b = argc > 2 ? atoi(argv[2]) : 1;
  pthread_t t;
  if (pthread_create(&t, NULL, partner, &b) != 0) {
    fprintf(stderr, "core_pingpong: no thread\n");
    return 1;
  }
  pin(a);
  double ns[BURSTS];
  long v = 0;
  for (int k = 0; k < BURSTS; k++) {
    double t0 = now_ns();
    for (int i = 0; i < TRIPS; i++) {
      atomic_store_explicit(&ball, ++v, memory_order_release);
      ++v;
      while (atomic_load_explicit(&ball, memory_order_acquire) != v) {
      }
    }
    ns[k] = (now_ns() - t0) / TRIPS;
  }
  pthread_join(t, NULL);
  qsort(ns, BURSTS, sizeof ns[0], by_value);
  printf("core round trip %d<->%d: %.0f ns\n", a, b, ns[BURSTS / 2]);
  return 0;
}
