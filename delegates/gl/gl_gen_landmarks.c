/* gl_gen_landmarks.c - the internal op LANDMARK_DECODE (a MediaPipe landmark model's
 * heads to the landmark decoder's row, appended by decoders/landmark_op.c) on the GPU, so
 * only that row comes back (BlazePose: 119 floats) and not the model's other outputs
 * (its segmentation and heatmap, 0.9 MB). The CPU kernel
 * (delegates/cpu/kernels/landmark_decode.c, postproc/landmarks.c) is the reference: the
 * same values in float, the GPU's exp in the sigmoids. One invocation per vec4 of the
 * output, any batch.
 * Inputs: I0 landmarks [B,...] (points * stride values an item, row-major), I1 presence
 * [B,...], I2 handedness [B,...] (optional). Output [B, 2 + points * (3 or 2)]. */
#include "gl_gen.h"

#include "postproc/landmarks.h"

tfl_status gl_check_landmarks(const tfl_graph *g, int node, tfl_diag *diag)
{
  const tfl_node *n = &g->nodes[node];
  const tfl_landmark_params *p = &n->p.landmark;
  pp_lm_layout l;
  if (n->n_in < 2 || n->n_in > 3 || n->n_out != 1 || n->in[0] < 0 || n->in[1] < 0)
    return gl_node_error(diag, TFL_ERR_SHAPE, g, node, "2 or 3 inputs and 1 output");
  if (!pp_lm_layout_of(p->family, &l) || p->points < 1 || p->stride < (p->visibility ? 4 : 2))
    return gl_node_error(diag, TFL_ERR_UNSUPPORTED, g, node, "landmark layout unknown: family %d, %d points of %d values",
                         p->family, p->points, p->stride);
  const tfl_tensor *lm = &g->tensors[n->in[0]];
  const int32_t b = lm->ndim > 0 ? lm->dims[0] : 1;
  for (int k = 0; k < n->n_in; k++) {
    if (n->in[k] < 0) continue;
    const tfl_tensor *t = &g->tensors[n->in[k]];
    /* item b's values are the b-th block of each input */
    if (t->type != TFL_TYPE_FLOAT32 || (t->ndim > 0 ? t->dims[0] : 1) != b || t->ndim > 4)
      return gl_node_error(diag, TFL_ERR_UNSUPPORTED, g, node, "input %d is %s with %d dims, expected float32 [%d,...]",
                           k, tfl_type_name(t->type), t->ndim, b);
  }
  if (tfl_tensor_count(lm) != (size_t)b * (size_t)p->points * (size_t)p->stride)
    return gl_node_error(diag, TFL_ERR_SHAPE, g, node, "landmarks hold %zu values, expected %d x %d x %d",
                         tfl_tensor_count(lm), b, p->points, p->stride);
  return TFL_OK;
}

tfl_status gl_gen_landmarks(const gl_gen_in *in, gl_gen_out *o, tfl_diag *diag)
{
  const tfl_landmark_params *p = &in->n->p.landmark;
  const bool hand = in->n->n_in > 2 && in->n->in[2] >= 0;
  (void)diag;
  gl_gen_per_vec4(in, o);
  gl_str *dc = &o->decls;
  gl_str_addf(dc, "#define ROW %d\n#define PV %d\n#define STRIDE %d\n", pp_lm_row(p->points, p->visibility),
              pp_lm_point_values(p->visibility), p->stride);
  gl_str_addf(dc, "float sig(float v) { return 1.0 / (1.0 + exp(-v)); }\n"
                  /* value i of item b, row-major over I0's H, W, C */
                  "float lmv(int b, int i) {\n  int r = i / I0_C;\n  return I0_AT(b, r / I0_W, r %% I0_W, i %% I0_C);\n}\n"
                  "float row_value(int b, int e) {\n"
                  "  if (e == 0) return %s;\n"
                  "  if (e == 1) return %s;\n"
                  "  int k = e - 2, j = k %% PV;\n"
                  "  float v = lmv(b, (k / PV) * STRIDE + (j == 2 ? 3 : j));\n"
                  "  return j == 2 ? sig(v) : v;\n}\n",
              p->presence_logit ? "sig(I1_AT(b, 0, 0, 0))" : "I1_AT(b, 0, 0, 0)", hand ? "I2_AT(b, 0, 0, 0)" : "0.0");
  gl_str_addf(&o->main, "  vec4 v = vec4(0.0);\n"
                        "  for (int l = 0; l < 4; l++) if (4 * s + l < ROW) v[l] = row_value(b, 4 * s + l);\n"
                        "  store_out(b, y, x, s, FLT4(v));\n");
  return TFL_OK;
}
