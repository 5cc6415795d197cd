/* eltwise_test_util.h - small helpers for the non-convolution kernel tests: quantizing
 * test floats, dequantizing outputs, and a check macro that counts failures. */
#ifndef ELTWISE_TEST_UTIL_H
#define ELTWISE_TEST_UTIL_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../check.h"
#include "../op_runner.h"

/* Runs r and records a failure (with the kernel's message) unless it succeeds. */
static inline int run_ok(op_runner *r, int threads, const char *what)
{
  tfl_status s = op_runner_run(r, threads);
  if (s != TFL_OK) {
    fprintf(stderr, "%s: run failed: %s\n", what, r->diag.error);
    failures++;
    return 0;
  }
  return 1;
}

static inline void expect_near(const char *what, const float *got, const float *want, size_t n, float tol)
{
  if (!op_runner_expect_near(what, got, want, n, tol)) failures++;
}

/* Reference quantization (round half away from zero, clamp to the type). */
static inline int32_t q_of(float x, float scale, int32_t zp, int lo, int hi)
{
  double v = round((double)x / scale) + zp;
  return v < lo ? lo : (v > hi ? hi : (int32_t)v);
}
static inline void quantize_u8(const float *x, uint8_t *q, size_t n, float scale, int32_t zp)
{
  for (size_t i = 0; i < n; i++) q[i] = (uint8_t)q_of(x[i], scale, zp, 0, 255);
}
static inline void quantize_i8(const float *x, int8_t *q, size_t n, float scale, int32_t zp)
{
  for (size_t i = 0; i < n; i++) q[i] = (int8_t)q_of(x[i], scale, zp, -128, 127);
}
static inline void dequantize_u8(const uint8_t *q, float *x, size_t n, float scale, int32_t zp)
{
  for (size_t i = 0; i < n; i++) x[i] = scale * ((int32_t)q[i] - zp);
}
static inline void dequantize_i8(const int8_t *q, float *x, size_t n, float scale, int32_t zp)
{
  for (size_t i = 0; i < n; i++) x[i] = scale * ((int32_t)q[i] - zp);
}
/* Per-tensor quantization of tensor t. */
static inline void set_quant(op_runner *r, int t, float scale, int32_t zp)
{
  op_runner_quant(r, t, 1, &scale, &zp, 0);
}

static inline int finish(const char *name)
{
  if (failures) fprintf(stderr, "%s: %d failure(s)\n", name, failures);
  else printf("%s: all passed\n", name);
  return failures ? 1 : 0;
}

#endif
