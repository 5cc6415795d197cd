/* fma_peak.c - this machine's fp32 multiply-add peak, per core and on all cores, for
 * bench_peers.sh's GFLOP/s column. Built there with -O2 -march=native, so the widest
 * vectors the CPU has are used (GCC vector extensions: 512-bit where AVX-512 exists,
 * split into halves otherwise). Each thread runs 16 independent multiply-add chains
 * (enough to cover the latency of two FMA pipes) over registers only; prints
 * "peak 1 thread: X GFLOP/s" and "peak N threads: Y GFLOP/s". */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

typedef float v16 __attribute__((vector_size(64)));
enum { CHAINS = 16, ITERS = 50 * 1000 * 1000 };

static double now_s(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Stores the sum of the chains so the work cannot be optimized away. */
static void *run(void *arg)
{
  float *sink = arg;
  v16 a, b;
  for (int i = 0; i < 16; i++) {
    a[i] = 1.0f + 1e-7f * (float)i;
    b[i] = -1e-7f;
  }
  v16 c0 = a, c1 = a + b, c2 = a + 2 * b, c3 = a + 3 * b, c4 = a + 4 * b, c5 = a + 5 * b;
  v16 c6 = a + 6 * b, c7 = a + 7 * b, c8 = a + 8 * b, c9 = a + 9 * b, c10 = a + 10 * b;
  v16 c11 = a + 11 * b, c12 = a + 12 * b, c13 = a + 13 * b, c14 = a + 14 * b, c15 = a + 15 * b;
  for (long k = 0; k < ITERS / CHAINS; k++) {
    c0 = c0 * a + b; c1 = c1 * a + b; c2 = c2 * a + b; c3 = c3 * a + b;
    c4 = c4 * a + b; c5 = c5 * a + b; c6 = c6 * a + b; c7 = c7 * a + b;
    c8 = c8 * a + b; c9 = c9 * a + b; c10 = c10 * a + b; c11 = c11 * a + b;
    c12 = c12 * a + b; c13 = c13 * a + b; c14 = c14 * a + b; c15 = c15 * a + b;
  }
  v16 s = c0 + c1 + c2 + c3 + c4 + c5 + c6 + c7 + c8 + c9 + c10 + c11 + c12 + c13 + c14 + c15;
  float t = 0;
  for (int i = 0; i < 16; i++) t += s[i];
  *sink = t;
  return NULL;
}

/* Best of a few tries with n threads: GFLOP/s summed over them. */
static double measure(int n)
{
  double best = 0;
  for (int t = 0; t < 3; t++) {
    pthread_t th[64];
    float sink[64];
    const double t0 = now_s();
    for (int i = 0; i < n; i++) pthread_create(&th[i], NULL, run, &sink[i]);
    for (int i = 0; i < n; i++) pthread_join(th[i], NULL);
    const double dt = now_s() - t0;
    const double flops = 2.0 * 16 * CHAINS * (double)(ITERS / CHAINS) * n;
    if (flops / dt / 1e9 > best) best = flops / dt / 1e9;
  }
  return best;
}

int main(int argc, char **argv)
{
  long cores = argc > 1 ? atol(argv[1]) : sysconf(_SC_NPROCESSORS_ONLN);
  if (cores < 1 || cores > 64) cores = 1;
  printf("peak 1 thread: %.1f GFLOP/s\n", measure(1));
  printf("peak %ld threads: %.1f GFLOP/s\n", cores, measure((int)cores));
  return 0;
}
