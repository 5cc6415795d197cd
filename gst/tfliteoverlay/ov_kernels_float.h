/* ov_kernels_float.h - the float row kernels, written once for every vector width.
 *
 * Included by ov_kernels_avx2.c and ov_kernels_avx512.c after they define the vector
 * types and helpers below for their instruction set (VW lanes):
 *   vf, VW                                 float vector and its lane count
 *   vf_set1, vf_load, vf_add, vf_sub, vf_mul, vf_min, vf_max, vf_abs, vf_sqrt
 *   vf_lanes_from(x)                       (float)(x + lane)
 *   vf_where_positive(p, v)                v where p > 0 (ordered), else 0
 *   store_weights(w, v)                    VW truncated values to uint16
 *   fetch_pair(row, i0, i1, &a, &b)        a = row[i0[lane]], b = row[i1[lane]]
 * The operations are the portable kernels' (ov_kernels.c), in the same order, so each
 * lane rounds as the portable code does.
 */
#ifndef OV_KERNELS_FLOAT_H
#define OV_KERNELS_FLOAT_H

static inline vf clamp01(vf v)
{
  return vf_min(vf_max(v, vf_set1(0.0f)), vf_set1(1.0f)); /* max(NaN, 0) is 0 */
}

static void shape_weights(uint16_t *w, int x0, int n, float yc, const OvKernelShape *s)
{
  const vf half = vf_set1(0.5f), cx = vf_set1(s->cx), dx = vf_set1(s->dx), dy = vf_set1(s->dy);
  const vf weight = vf_set1(s->weight), hx = vf_set1(s->hx + 0.5f), hy = vf_set1(s->hy + 0.5f);
  const vf ly = vf_set1(yc - s->cy);
  for (int i = 0; i < n; i += VW) { /* the last vector may fill spare lanes past n */
    vf lx = vf_sub(vf_add(vf_lanes_from(x0 + i), half), cx), a;
    if (s->disk) {
      a = clamp01(vf_sub(hx, vf_sqrt(vf_add(vf_mul(lx, lx), vf_mul(ly, ly)))));
    } else {
      vf along = vf_add(vf_mul(lx, dx), vf_mul(ly, dy)), across = vf_sub(vf_mul(ly, dx), vf_mul(lx, dy));
      a = vf_mul(clamp01(vf_sub(hx, vf_abs(along))), clamp01(vf_sub(hy, vf_abs(across))));
    }
    store_weights(w + i, vf_add(vf_mul(a, weight), half));
  }
}

static void prob_weights(uint16_t *w, const float *h0, const float *h1, float t, float scale, int n)
{
  const vf vt = vf_set1(t), vu = vf_set1(1.0f - t), one = vf_set1(1.0f), vs = vf_set1(scale), half = vf_set1(0.5f);
  int i = 0;
  for (; i + VW <= n; i += VW) {
    vf p = vf_add(vf_mul(vf_load(h0 + i), vu), vf_mul(vf_load(h1 + i), vt));
    store_weights(w + i, vf_where_positive(p, vf_add(vf_mul(vf_min(p, one), vs), half)));
  }
  ov_prob_weights_c(w + i, h0 + i, h1 + i, t, scale, n - i);
}

static void lerp_gather(float *out, const float *row, const int32_t *i0, const int32_t *i1,
                        const float *t, int n)
{
  const vf one = vf_set1(1.0f);
  int i = 0;
  for (; i + VW <= n; i += VW) {
    vf a, b, vt = vf_load(t + i);
    fetch_pair(row, i0 + i, i1 + i, &a, &b);
    vf_store(out + i, vf_add(vf_mul(a, vf_sub(one, vt)), vf_mul(b, vt)));
  }
  ov_lerp_gather_c(out + i, row, i0 + i, i1 + i, t + i, n - i);
}

#endif
