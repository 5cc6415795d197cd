/* shapes_spectral.c - output shapes of the complex-number ops (RFFT2D, REAL, IMAG,
 * COMPLEX_ABS), BUCKETIZE and BITCAST (tfl_shapes_priv.h), as TFLite's kernels size them. */
#include "tfl_shapes_priv.h"

static bool power_of_two(int64_t v)
{
  return v > 0 && (v & (v - 1)) == 0;
}

/* RFFT2D: the input's dims with the last two replaced by fft_length[0], fft_length[1]/2+1.
 * A fft_length computed at run time keeps the declared shape (the kernel refuses it). */
static tfl_status rfft2d_shape(const tfl_graph *g, const tfl_node *n, int ni, tfl_shape *out, tfl_inf_kind *kind,
                               tfl_diag *diag)
{
  const tfl_tensor *x = tfl_shape_in(g, n, 0), *len = tfl_shape_in(g, n, 1);
  int64_t v[2];
  int c = 0;
  if (!x || x->ndim < 2) return TFL_SHAPE_ERR(TFL_ERR_SHAPE, "input has %d dims, expected at least 2", x ? x->ndim : 0);
  if (!tfl_shape_const_ints(len, v, 2, &c)) {
    *kind = TFL_INF_KEEP;
    return TFL_OK;
  }
  if (c != 2 || len->type != TFL_TYPE_INT32)
    return TFL_SHAPE_ERR(TFL_ERR_SHAPE, "fft_length has %d %s values, expected 2 INT32", c, tfl_type_name(len->type));
  /* TFLite's kernel (Ooura's rdft2d) takes powers of two only */
  if (!power_of_two(v[0]) || !power_of_two(v[1]) || v[0] > (1 << 20) || v[1] > (1 << 20))
    return TFL_SHAPE_ERR(TFL_ERR_UNSUPPORTED, "fft_length %lld x %lld: each must be a power of two up to 2^20",
                         (long long)v[0], (long long)v[1]);
  *out = tfl_shape_of(x);
  out->d[x->ndim - 2] = (int32_t)v[0];
  out->d[x->ndim - 1] = (int32_t)(v[1] / 2 + 1);
  return TFL_OK;
}

/* BITCAST (TFLite's bitcast.cc): same element size, same shape; a smaller output type
 * appends a dim of in/out elements; a larger one drops the last dim, which must hold
 * out/in elements. */
static tfl_status bitcast_shape(const tfl_graph *g, const tfl_node *n, int ni, tfl_shape *out, tfl_diag *diag)
{
  const tfl_tensor *x = tfl_shape_in(g, n, 0), *y = &g->tensors[n->out[0]];
  size_t si = tfl_type_size(x->type), so = tfl_type_size(y->type);
  if (!si || !so)
    return TFL_SHAPE_ERR(TFL_ERR_UNSUPPORTED, "bitcast from %s to %s: a type without a fixed size",
                         tfl_type_name(x->type), tfl_type_name(y->type));
  *out = tfl_shape_of(x);
  if (si == so) return TFL_OK;
  if (si > so) {
    if (si % so || x->ndim >= TFL_MAX_DIMS)
      return TFL_SHAPE_ERR(TFL_ERR_UNSUPPORTED, "bitcast from %s to %s of a %d-dim input", tfl_type_name(x->type),
                           tfl_type_name(y->type), x->ndim);
    out->d[out->ndim++] = (int32_t)(si / so);
    return TFL_OK;
  }
  if (so % si || x->ndim < 1 || (size_t)x->dims[x->ndim - 1] != so / si)
    return TFL_SHAPE_ERR(TFL_ERR_SHAPE, "bitcast from %s to %s needs a last dim of %zu, the input's is %d",
                         tfl_type_name(x->type), tfl_type_name(y->type), so / si,
                         x->ndim ? x->dims[x->ndim - 1] : 0);
  out->ndim--;
  return TFL_OK;
}

tfl_status tfl_shape_spectral(const tfl_graph *g, const tfl_node *n, int ni, int o, tfl_shape *out,
                              tfl_inf_kind *kind, tfl_diag *diag)
{
  const tfl_tensor *x = tfl_shape_in(g, n, 0);
  (void)o;
  *kind = TFL_INF_OK;
  if (!x) return TFL_SHAPE_ERR(TFL_ERR_FORMAT, "input 0 is missing");
  if (n->op == TFL_OP_RFFT2D) return rfft2d_shape(g, n, ni, out, kind, diag);
  if (n->op == TFL_OP_BITCAST) return bitcast_shape(g, n, ni, out, diag);
  *out = tfl_shape_of(x); /* REAL, IMAG, COMPLEX_ABS, BUCKETIZE: elementwise */
  return TFL_OK;
}
