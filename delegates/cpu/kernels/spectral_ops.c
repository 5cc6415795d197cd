/* spectral_ops.c - the complex-number ops of audio models, as TFLite computes them:
 * RFFT2D (a real 2-D DFT over the last two dims), REAL, IMAG and COMPLEX_ABS.
 *
 * complex64 tensors hold (real, imaginary) float32 pairs. RFFT2D crops or zero-pads each
 * [height, width] slice of the input to fft_length (both powers of two, as TFLite's kernel
 * requires) and keeps the fft_length[1]/2+1 non-negative frequencies of the last dim.
 * It runs a radix-2 FFT in double (rows, then columns), like TFLite's double-precision
 * Ooura FFT: O(H W log(H W)) per slice. Slices are split into groups that run on the
 * delegate's threads, each group with its own scratch, all made in prepare. A real
 * row of w values is one complex FFT of w/2 (even and odd samples as real and imaginary
 * parts) and a split into the w/2+1 frequencies. For fft_length [h, 1] this is the DFT;
 * TFLite's kernel (LiteRT 2.3.0) returns other values there.
 */
#include "eltwise_common.h"

#include <math.h>
#include <string.h>

enum { INPUT = 0, FFT_LENGTH = 1 };
enum { OUTPUT = 0 };

typedef struct {
  size_t slices;            /* product of the dims before the last two */
  int in_h, in_w;           /* input slice */
  int h, w, wh;             /* fft_length, and w / 2 + 1 kept columns */
  int nmax;                 /* max(h, w): the twiddle table's length */
  double *tw;               /* exp(-2 pi i k / nmax), k <= nmax / 2, as (cos, sin) pairs */
  size_t groups;            /* slice groups, one task each */
  size_t scratch;           /* doubles of scratch per group: work, then line */
  double *buf;              /* groups x scratch: [h][wh] complex row transforms, one line of nmax */
  const float *x;           /* eval's tensors, for the tasks */
  float *y;
} rfft_state;

static void rfft_release(void *state)
{
  rfft_state *st = state;
  if (!st) return;
  free(st->tw);
  free(st->buf);
  free(st);
}

static tfl_status rfft2d_prepare(tfl_graph *g, const tfl_node *n, void **state, tfl_diag *diag)
{
  const tfl_tensor *x = cpu_in(g, n, INPUT), *len = cpu_in(g, n, FFT_LENGTH), *y = cpu_out(g, n, OUTPUT);
  tfl_status s;
  if ((s = cpu_check_tensor(g, n, x, "input", -1, diag)) || (s = cpu_check_tensor(g, n, len, "fft_length", 1, diag)) ||
      (s = cpu_check_tensor(g, n, y, "output", x->ndim, diag)))
    return s;
  if (x->type != TFL_TYPE_FLOAT32 || y->type != TFL_TYPE_COMPLEX64 || len->type != TFL_TYPE_INT32)
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "types %s -> %s with %s fft_length, expected FLOAT32 -> "
                        "COMPLEX64 with INT32", tfl_type_name(x->type), tfl_type_name(y->type),
                        tfl_type_name(len->type));
  /* a length known only at run time would resize the output (TFLite makes it dynamic) */
  if (!len->is_const || len->dims[0] != 2)
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "fft_length (tensor %d) is %s with %d values: a constant "
                        "of 2 is supported", n->in[FFT_LENGTH], len->is_const ? "constant" : "computed at run time",
                        len->dims[0]);
  if (x->ndim < 2) return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "input has %d dims, expected at least 2", x->ndim);
  const int32_t *fl = len->data;
  int h = fl[0], w = fl[1];
  if (h < 1 || w < 1 || (h & (h - 1)) || (w & (w - 1)) || h > (1 << 20) || w > (1 << 20))
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "fft_length %d x %d: each must be a power of two up to 2^20",
                        h, w);
  int nd = x->ndim;
  if (y->dims[nd - 2] != h || y->dims[nd - 1] != w / 2 + 1)
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "output's last dims are %d x %d, fft_length %d x %d gives %d x %d",
                        y->dims[nd - 2], y->dims[nd - 1], h, w, h, w / 2 + 1);
  size_t slices = 1;
  for (int d = 0; d < nd - 2; d++) {
    if (y->dims[d] != x->dims[d])
      return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "output dim %d is %d, the input's %d", d, y->dims[d], x->dims[d]);
    slices *= (size_t)x->dims[d];
  }
  rfft_state *st = calloc(1, sizeof *st);
  if (!st) return tfl_fail(diag, TFL_ERR_NOMEM, "RFFT2D state");
  st->slices = slices;
  st->in_h = x->dims[nd - 2], st->in_w = x->dims[nd - 1];
  st->h = h, st->w = w, st->wh = w / 2 + 1;
  st->nmax = h > w ? h : w;
  /* h, w <= 2^20: every count below is far from overflowing size_t. Up to 16 groups, with
   * at most 32 MiB of scratch in all (one group for a single large transform). */
  st->scratch = 2 * (size_t)h * (size_t)st->wh + 2 * (size_t)st->nmax;
  st->groups = slices < 1 ? 1 : slices < 16 ? slices : 16;
  while (st->groups > 1 && st->groups * st->scratch > ((size_t)32 << 20) / sizeof(double)) st->groups /= 2;
  st->tw = malloc(sizeof(double) * ((size_t)st->nmax + 2));
  st->buf = malloc(sizeof(double) * st->scratch * st->groups);
  if (!st->tw || !st->buf) {
    rfft_release(st);
    return tfl_fail(diag, TFL_ERR_NOMEM, "RFFT2D scratch for fft_length %d x %d", h, w);
  }
  for (int k = 0; k <= st->nmax / 2; k++) {
    double a = -2.0 * 3.14159265358979323846 * (double)k / (double)st->nmax;
    st->tw[2 * k] = cos(a);
    st->tw[2 * k + 1] = sin(a);
  }
  *state = st;
  return TFL_OK;
}

/* In-place forward DFT of n (a power of two <= nmax) interleaved complex values:
 * bit-reversal permutation, then radix-2 butterflies. */
static void fft(double *z, int n, const double *tw, int nmax)
{
  for (int i = 1, j = 0; i < n; i++) {
    int bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j |= bit;
    if (i < j) {
      double r = z[2 * i], m = z[2 * i + 1];
      z[2 * i] = z[2 * j], z[2 * i + 1] = z[2 * j + 1];
      z[2 * j] = r, z[2 * j + 1] = m;
    }
  }
  for (int len = 2; len <= n; len <<= 1) {
    int half = len / 2, step = nmax / len;
    for (int i = 0; i < n; i += len) {
      for (int k = 0; k < half; k++) {
        double c = tw[2 * k * step], s = tw[2 * k * step + 1];
        double *a = z + 2 * (i + k), *b = z + 2 * (i + k + half);
        double br = b[0] * c - b[1] * s, bi = b[0] * s + b[1] * c;
        b[0] = a[0] - br, b[1] = a[1] - bi;
        a[0] += br, a[1] += bi;
      }
    }
  }
}

/* The first w/2+1 frequencies of w real values (w a power of two >= 2, already in z as
 * w/2 complex pairs: z_k = x_2k + i x_2k+1) into out: the w/2-point FFT Z of z, then
 * X_k = E_k + exp(-2 pi i k / w) O_k with E_k = (Z_k + conj Z_-k) / 2, O_k = (Z_k - conj Z_-k) / 2i. */
static void real_fft(double *z, int w, double *out, const double *tw, int nmax)
{
  const int m = w / 2, step = nmax / w;
  fft(z, m, tw, nmax);
  for (int k = 0; k <= m; k++) {
    const double *a = z + 2 * (k % m), *b = z + 2 * ((m - k) % m);
    double er = (a[0] + b[0]) / 2, ei = (a[1] - b[1]) / 2;
    double orr = (a[1] + b[1]) / 2, oi = -(a[0] - b[0]) / 2;
    double c = tw[2 * k * step], s = tw[2 * k * step + 1];
    out[2 * k] = er + orr * c - oi * s;
    out[2 * k + 1] = ei + orr * s + oi * c;
  }
}

/* Task `gi`: the slices of group gi, with that group's scratch. */
static void rfft2d_group(void *arg, size_t gi)
{
  const rfft_state *st = arg;
  const float *x = st->x;
  float *y = st->y;
  const int h = st->h, w = st->w, wh = st->wh;
  const int rows = st->in_h < h ? st->in_h : h, cols = st->in_w < w ? st->in_w : w;
  double *work = st->buf + gi * st->scratch, *line = work + 2 * (size_t)h * (size_t)wh;
  const size_t s0 = gi * st->slices / st->groups, s1 = (gi + 1) * st->slices / st->groups;
  for (size_t sl = s0; sl < s1; sl++) {
    const float *xs = x + sl * (size_t)st->in_h * (size_t)st->in_w;
    float *ys = y + sl * 2 * (size_t)h * (size_t)wh;
    /* rows: the real input cropped or zero-padded to w, its first w/2+1 frequencies */
    for (int m = 0; m < h; m++) {
      double *out = work + 2 * (size_t)m * (size_t)wh;
      if (m >= rows) {
        memset(out, 0, sizeof(double) * 2 * (size_t)wh);
        continue;
      }
      if (w == 1) {
        out[0] = cols ? xs[(size_t)m * (size_t)st->in_w] : 0.0, out[1] = 0.0;
        continue;
      }
      memset(line, 0, sizeof(double) * (size_t)w);
      for (int j = 0; j < cols; j++) line[j] = xs[(size_t)m * (size_t)st->in_w + (size_t)j];
      real_fft(line, w, out, st->tw, st->nmax);
    }
    /* columns: a complex DFT of h values each */
    for (int v = 0; v < wh; v++) {
      for (int m = 0; m < h; m++) {
        line[2 * m] = work[2 * ((size_t)m * (size_t)wh + (size_t)v)];
        line[2 * m + 1] = work[2 * ((size_t)m * (size_t)wh + (size_t)v) + 1];
      }
      fft(line, h, st->tw, st->nmax);
      for (int m = 0; m < h; m++) {
        ys[2 * ((size_t)m * (size_t)wh + (size_t)v)] = (float)line[2 * m];
        ys[2 * ((size_t)m * (size_t)wh + (size_t)v) + 1] = (float)line[2 * m + 1];
      }
    }
  }
}

static tfl_status rfft2d_eval(const tfl_graph *g, const tfl_node *n, void *state, cpu_ctx *ctx, tfl_diag *diag)
{
  rfft_state *st = state;
  (void)diag;
  st->x = cpu_in(g, n, INPUT)->data;
  st->y = cpu_out(g, n, OUTPUT)->data;
  cpu_parallel(ctx, rfft2d_group, st, st->groups);
  return TFL_OK;
}

/* ---- REAL, IMAG, COMPLEX_ABS: complex64 -> float32, element by element ------------------- */

static tfl_status part_prepare(tfl_graph *g, const tfl_node *n, void **state, tfl_diag *diag)
{
  const tfl_tensor *x = cpu_in(g, n, INPUT), *y = cpu_out(g, n, OUTPUT);
  tfl_status s;
  if ((s = cpu_check_tensor(g, n, x, "input", -1, diag)) || (s = cpu_check_tensor(g, n, y, "output", -1, diag)))
    return s;
  if (x->type != TFL_TYPE_COMPLEX64 || y->type != TFL_TYPE_FLOAT32)
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "types %s -> %s, expected COMPLEX64 -> FLOAT32",
                        tfl_type_name(x->type), tfl_type_name(y->type));
  if (tfl_tensor_count(x) != tfl_tensor_count(y))
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "input has %zu elements, output %zu", tfl_tensor_count(x),
                        tfl_tensor_count(y));
  *state = NULL;
  return TFL_OK;
}

static tfl_status part_eval(const tfl_graph *g, const tfl_node *n, void *state, cpu_ctx *ctx, tfl_diag *diag)
{
  const tfl_tensor *xt = cpu_in(g, n, INPUT);
  const float *x = xt->data;
  float *y = cpu_out(g, n, OUTPUT)->data;
  size_t count = tfl_tensor_count(xt);
  (void)state, (void)ctx, (void)diag;
  if (n->op == TFL_OP_REAL) {
    for (size_t i = 0; i < count; i++) y[i] = x[2 * i];
  } else if (n->op == TFL_OP_IMAG) {
    for (size_t i = 0; i < count; i++) y[i] = x[2 * i + 1];
  } else { /* COMPLEX_ABS: std::abs of a complex<float>; float squares cannot overflow a double */
    for (size_t i = 0; i < count; i++) {
      double re = x[2 * i], im = x[2 * i + 1];
      y[i] = (float)sqrt(re * re + im * im);
    }
  }
  return TFL_OK;
}

const cpu_kernel cpu_k_rfft2d = {rfft2d_prepare, rfft2d_eval, rfft_release, CPU_F32, 0};
const cpu_kernel cpu_k_real = {part_prepare, part_eval, NULL, CPU_C64, 0};
const cpu_kernel cpu_k_imag = {part_prepare, part_eval, NULL, CPU_C64, 0};
const cpu_kernel cpu_k_complex_abs = {part_prepare, part_eval, NULL, CPU_C64, 0};
