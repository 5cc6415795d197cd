/* test_arg_max.c - ARG_MAX: last axis (-1) with int32 output, axis 0 with int64 output,
 * ties keep the first index, uint8 input, and an out-of-range axis is refused. */
#include "eltwise_test_util.h"

static void run_case(const char *what, tfl_type in_type, const void *x, int32_t axis, tfl_type out_type,
                     const int64_t *want, int n_want, int ny, const int32_t *dy)
{
  op_runner r;
  op_runner_init(&r, TFL_OP_ARG_MAX);
  int tx = op_runner_tensor(&r, in_type, 2, (int32_t[]){ 2, 3 }, x, false);
  int ta = op_runner_tensor(&r, TFL_TYPE_INT32, 1, (int32_t[]){ 1 }, &axis, true);
  int ty = op_runner_tensor(&r, out_type, ny, dy, NULL, false);
  op_runner_io(&r, (int[]){ tx, ta }, 2, (int[]){ ty }, 1);
  r.node.p.arg_max.output_type = out_type;
  if (run_ok(&r, 1, what))
    for (int i = 0; i < n_want; i++) {
      int64_t got = out_type == TFL_TYPE_INT64 ? ((int64_t *)r.tensors[ty].data)[i]
                                               : ((int32_t *)r.tensors[ty].data)[i];
      CHECK(got == want[i], "%s: element %d is %lld, expected %lld", what, i, (long long)got, (long long)want[i]);
    }
  op_runner_free(&r);
}

int main(void)
{
  /* [[1, 5, 5], [7, -2, 3]] */
  const float x[] = { 1, 5, 5, 7, -2, 3 };
  run_case("arg_max axis -1 int32 (tie keeps first)", TFL_TYPE_FLOAT32, x, -1, TFL_TYPE_INT32,
           (int64_t[]){ 1, 0 }, 2, 1, (int32_t[]){ 2 });
  run_case("arg_max axis 0 int64", TFL_TYPE_FLOAT32, x, 0, TFL_TYPE_INT64, (int64_t[]){ 1, 0, 0 }, 3, 1,
           (int32_t[]){ 3 });
  const uint8_t q[] = { 9, 200, 3, 0, 0, 1 };
  run_case("arg_max uint8", TFL_TYPE_UINT8, q, 1, TFL_TYPE_INT32, (int64_t[]){ 1, 2 }, 2, 1, (int32_t[]){ 2 });
  const int8_t s[] = { -5, -9, -1, -128, -128, -128 };
  run_case("arg_max int8", TFL_TYPE_INT8, s, 1, TFL_TYPE_INT64, (int64_t[]){ 2, 0 }, 2, 1, (int32_t[]){ 2 });

  op_runner r;
  op_runner_init(&r, TFL_OP_ARG_MAX);
  int tx = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){ 2, 3 }, x, false);
  int ta = op_runner_tensor(&r, TFL_TYPE_INT32, 1, (int32_t[]){ 1 }, (int32_t[]){ 2 }, true);
  int ty = op_runner_tensor(&r, TFL_TYPE_INT32, 1, (int32_t[]){ 2 }, NULL, false);
  op_runner_io(&r, (int[]){ tx, ta }, 2, (int[]){ ty }, 1);
  r.node.p.arg_max.output_type = TFL_TYPE_INT32;
  CHECK(op_runner_run(&r, 1) == TFL_ERR_SHAPE, "axis 2 of a 2-dim input accepted");
  op_runner_free(&r);
  return finish("test_arg_max");
}
