/* quantize_lut.c - see quantize_lut.h. The table comes from the reference kernel's prepare
 * (cpu_quantize_table); the bytes are split over the threads in 64-byte-aligned ranges. */
#include "quantize_lut.h"

#include "conv_common.h" /* CPU_NODE_ERR */
#include "kernels.h"

enum { INPUT = 0 };
enum { OUTPUT = 0 };

#define LUT_MIN_TASK_BYTES 65536 /* below this, a second thread costs more than it saves */

typedef struct {
  void *ref;            /* the reference kernel's state */
  uint8_t table[256];   /* output byte per stored input byte */
  cpu_features isa;
} lut_state;

static bool is_q8(tfl_type t)
{
  return t == TFL_TYPE_UINT8 || t == TFL_TYPE_INT8;
}

bool cpu_quantize_lut_fits(const tfl_graph *g, const tfl_node *n)
{
  if (n->op != TFL_OP_QUANTIZE || n->dead) return false;
  const tfl_tensor *x = cpu_in(g, n, INPUT), *y = cpu_out(g, n, OUTPUT);
  return x && y && is_q8(x->type) && is_q8(y->type);
}

bool cpu_quantize_lut_applies(const tfl_graph *g, const tfl_node *n, const cpu_features *isa)
{
  return isa->avx512_vbmi && cpu_quantize_lut_fits(g, n);
}

void cpu_quantize_lut_use_isa(void *state, const cpu_features *isa)
{
  lut_state *st = state;
  if (st) st->isa = *isa;
}

static void release(void *state)
{
  lut_state *st = state;
  if (!st) return;
  cpu_k_quantize.release(st->ref);
  free(st);
}

static tfl_status prepare(tfl_graph *g, const tfl_node *n, void **state, tfl_diag *diag)
{
  *state = NULL;
  if (!cpu_quantize_lut_fits(g, n))
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "%s", "not a QUANTIZE from 8-bit to 8-bit");
  lut_state *st = calloc(1, sizeof *st);
  if (!st) return tfl_fail(diag, TFL_ERR_NOMEM, "quantize table state");
  *state = st;
  tfl_status s = cpu_k_quantize.prepare(g, n, &st->ref, diag);
  if (s != TFL_OK) return s;
  if (!cpu_quantize_table(st->ref, st->table))
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "%s", "the reference kernel made no 8-bit table");
  st->isa = cpu_features_detect();
  return TFL_OK;
}

typedef struct {
  const lut_state *st;
  const uint8_t *x;
  uint8_t *y;
  size_t count;
  size_t n_tasks;
} lut_args;

static void range_portable(const uint8_t *table, const uint8_t *x, uint8_t *y, size_t n)
{
  for (size_t i = 0; i < n; i++) y[i] = table[x[i]];
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define LUT_X86 1

/* 64 bytes per step: entries 0-127 and 128-255 from two 128-byte lookups, the input's
 * top bit picks one; the tail under a mask. */
__attribute__((target("avx512f,avx512bw,avx512vbmi"))) static void range_vbmi(const uint8_t *table,
                                                                             const uint8_t *x, uint8_t *y,
                                                                             size_t n)
{
  const __m512i t0 = _mm512_loadu_si512(table), t1 = _mm512_loadu_si512(table + 64);
  const __m512i t2 = _mm512_loadu_si512(table + 128), t3 = _mm512_loadu_si512(table + 192);
  size_t i = 0;
  for (; i + 64 <= n; i += 64) {
    const __m512i v = _mm512_loadu_si512(x + i);
    const __m512i lo = _mm512_permutex2var_epi8(t0, v, t1), hi = _mm512_permutex2var_epi8(t2, v, t3);
    _mm512_storeu_si512(y + i, _mm512_mask_blend_epi8(_mm512_movepi8_mask(v), lo, hi));
  }
  if (i < n) {
    const __mmask64 m = ((__mmask64)1 << (n - i)) - 1;
    const __m512i v = _mm512_maskz_loadu_epi8(m, x + i);
    const __m512i lo = _mm512_permutex2var_epi8(t0, v, t1), hi = _mm512_permutex2var_epi8(t2, v, t3);
    _mm512_mask_storeu_epi8(y + i, m, _mm512_mask_blend_epi8(_mm512_movepi8_mask(v), lo, hi));
  }
}
#else
#define LUT_X86 0
#endif

static void run_task(void *arg, size_t task)
{
  const lut_args *a = arg;
  const size_t blocks = (a->count + 63) / 64;
  const size_t b0 = blocks * task / a->n_tasks, b1 = blocks * (task + 1) / a->n_tasks;
  const size_t i0 = b0 * 64, i1 = b1 * 64 < a->count ? b1 * 64 : a->count;
  if (i1 <= i0) return;
#if LUT_X86
  if (a->st->isa.avx512_vbmi) {
    range_vbmi(a->st->table, a->x + i0, a->y + i0, i1 - i0);
    return;
  }
#endif
  range_portable(a->st->table, a->x + i0, a->y + i0, i1 - i0);
}

static tfl_status eval(const tfl_graph *g, const tfl_node *n, void *state, cpu_ctx *ctx, tfl_diag *diag)
{
  (void)diag;
  const tfl_tensor *x = cpu_in(g, n, INPUT);
  lut_args a = {state, x->data, cpu_out(g, n, OUTPUT)->data, tfl_tensor_count(x), 1};
  const size_t most = a.count / LUT_MIN_TASK_BYTES;
  a.n_tasks = (size_t)cpu_thread_count(ctx);
  if (a.n_tasks > most) a.n_tasks = most;
  if (a.n_tasks < 1) a.n_tasks = 1;
  cpu_parallel(ctx, run_task, &a, a.n_tasks);
  return TFL_OK;
}

const cpu_kernel cpu_k_quantize_lut = {prepare, eval, release};
