/* test_quantize_lut.c - the fast path's 8-bit -> 8-bit QUANTIZE against the reference
 * QUANTIZE kernel: every pair of uint8 / int8 types, random scales (ratios from 1/300 to
 * 200: both of the reference's requantization schemes) and zero points, sizes from 1 byte
 * to past several threads' ranges (whole 64-byte blocks, tails, every byte value); each on
 * every path this machine has (AVX-512 VBMI, portable C) and 1-3 threads. Worst element:
 * 0 LSB. Also which nodes the fast path gives it. */
#include "conv_test_util.h"

#include "../../delegates/cpu/cpu_features.h"
#include "../../delegates/cpu/kernels/quantize_lut.h"

static int failures, runs;

static void build(op_runner *r, tfl_type xt_type, tfl_type yt_type, int count, int *yt)
{
  uint8_t *x = malloc((size_t)count);
  for (int i = 0; i < count; i++) x[i] = (uint8_t)(i < 256 ? i : test_rand_int(0, 255)); /* every byte value */
  op_runner_init(r, TFL_OP_QUANTIZE);
  const int xt = op_runner_tensor(r, xt_type, 2, (int32_t[]){1, count}, x, false);
  *yt = op_runner_tensor(r, yt_type, 2, (int32_t[]){1, count}, NULL, false);
  const float xs = test_uniform(0.005f, 0.5f), ratio = expf(test_uniform(logf(1.0f / 300), logf(200.0f)));
  const float ys = xs / ratio;
  const int32_t xz = xt_type == TFL_TYPE_UINT8 ? test_rand_int(0, 255) : test_rand_int(-128, 127);
  const int32_t yz = yt_type == TFL_TYPE_UINT8 ? test_rand_int(0, 255) : test_rand_int(-128, 127);
  op_runner_quant(r, xt, 1, &xs, &xz, 0);
  op_runner_quant(r, *yt, 1, &ys, &yz, 0);
  op_runner_io(r, (int[]){xt}, 1, (int[]){*yt}, 1);
  free(x);
}

static void run_case(tfl_type xt_type, tfl_type yt_type, int count, const cpu_features *paths,
                     const char *const *names, int n_paths)
{
  op_runner r;
  int yt;
  build(&r, xt_type, yt_type, count, &yt);
  char what[96];
  snprintf(what, sizeof what, "%s -> %s, %d bytes", tfl_type_name(xt_type), tfl_type_name(yt_type), count);
  uint8_t *want = test_reference_output(&r, yt, cpu_quantize_lut_fits(&r.graph, &r.node), what);
  if (!want) {
    failures++;
    op_runner_free(&r);
    return;
  }
  const test_fast_kernel f = {&cpu_k_quantize_lut, cpu_quantize_lut_use_isa, NULL, NULL};
  failures += test_fast_paths(&f, &r.graph, &r.node, yt, want, paths, names, n_paths, what, &runs);
  free(want);
  op_runner_free(&r);
}

int main(void)
{
  const int counts[] = {1, 63, 64, 65, 256, 1000, 131072 + 17, 509379};
  const tfl_type types[] = {TFL_TYPE_UINT8, TFL_TYPE_INT8};
  const cpu_features cpu = cpu_features_detect();
  cpu_features paths[2];
  const char *names[2];
  int n_paths = 0;
  if (cpu.avx512_vbmi) paths[n_paths] = cpu, names[n_paths++] = "avx512-vbmi";
  paths[n_paths] = cpu_features_none(), names[n_paths++] = "portable";
  for (int rep = 0; rep < 3; rep++)
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++)
      for (int a = 0; a < 2; a++)
        for (int b = 0; b < 2; b++) run_case(types[a], types[b], counts[c], paths, names, n_paths);
  /* a QUANTIZE from float is left to the reference kernel */
  op_runner r;
  op_runner_init(&r, TFL_OP_QUANTIZE);
  const int xt = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 1, (int32_t[]){8}, NULL, false);
  const int yt = op_runner_tensor(&r, TFL_TYPE_UINT8, 1, (int32_t[]){8}, NULL, false);
  op_runner_io(&r, (int[]){xt}, 1, (int[]){yt}, 1);
  if (cpu_quantize_lut_fits(&r.graph, &r.node)) {
    fprintf(stderr, "FAIL refusal (float input): the kernel takes it\n");
    failures++;
  }
  op_runner_free(&r);
  if (failures) {
    fprintf(stderr, "%d failures\n", failures);
    return 1;
  }
  printf("OK: %d runs (3 x %zu sizes x 4 type pairs x %d paths x 1-3 threads), worst 0; 1 refusal\n", runs,
         sizeof counts / sizeof counts[0], n_paths);
  return 0;
}
