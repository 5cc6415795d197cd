/* landmark_decode.c - the internal op LANDMARK_DECODE: a MediaPipe landmark model's heads
 * (landmarks, presence, optional handedness) to the one row per batch item the landmark
 * decoder reads (runtime/tfl_graph.h). The arithmetic is postproc/landmarks.c, which the
 * decoder runs on raw heads too. */
#include "kernels.h"

#include "postproc/landmarks.h"

enum { IN_LANDMARKS = 0, IN_PRESENCE = 1, IN_HANDEDNESS = 2 };

static tfl_status lm_prepare(tfl_graph *g, const tfl_node *n, void **state, tfl_diag *diag)
{
  (void)state;
  const tfl_landmark_params *p = &n->p.landmark;
  const tfl_tensor *lm = cpu_in(g, n, IN_LANDMARKS), *pr = cpu_in(g, n, IN_PRESENCE);
  const tfl_tensor *hd = n->n_in > IN_HANDEDNESS ? cpu_in(g, n, IN_HANDEDNESS) : NULL, *o = cpu_out(g, n, 0);
  if (n->n_in < 2 || n->n_in > 3 || n->n_out != 1 || !lm || !pr || !o)
    return tfl_fail(diag, TFL_ERR_SHAPE, "LandmarkDecode: %d inputs and %d outputs, expected 2 or 3 and 1", n->n_in,
                    n->n_out);
  pp_lm_layout l;
  if (!pp_lm_layout_of(p->family, &l) || p->points < 1 || p->stride < (p->visibility ? 4 : 2))
    return tfl_fail(diag, TFL_ERR_UNSUPPORTED, "LandmarkDecode: landmark layout unknown: family %d, %d points of %d "
                    "values", p->family, p->points, p->stride);
  const size_t b = lm->ndim > 0 ? (size_t)lm->dims[0] : 1;
  const size_t row = (size_t)pp_lm_row(p->points, p->visibility);
  if (tfl_tensor_count(lm) != b * (size_t)p->points * (size_t)p->stride || tfl_tensor_count(pr) != b ||
      (hd && tfl_tensor_count(hd) != b) || tfl_tensor_count(o) != b * row)
    return tfl_fail(diag, TFL_ERR_SHAPE, "LandmarkDecode: expected landmarks of %zu x %d x %d, one presence and "
                    "handedness per item and an output of %zu x %zu; landmarks hold %zu", b, p->points, p->stride,
                    b, row, tfl_tensor_count(lm));
  if (lm->type != TFL_TYPE_FLOAT32 || pr->type != TFL_TYPE_FLOAT32 || (hd && hd->type != TFL_TYPE_FLOAT32) ||
      o->type != TFL_TYPE_FLOAT32)
    return tfl_fail(diag, TFL_ERR_UNSUPPORTED, "LandmarkDecode: landmarks %s, presence %s: expected float32",
                    tfl_type_name(lm->type), tfl_type_name(pr->type));
  return TFL_OK;
}

static tfl_status lm_eval(const tfl_graph *g, const tfl_node *n, void *state, cpu_ctx *ctx, tfl_diag *diag)
{
  (void)state;
  (void)ctx;
  (void)diag;
  const tfl_landmark_params *p = &n->p.landmark;
  const float *lm = cpu_in(g, n, IN_LANDMARKS)->data, *pr = cpu_in(g, n, IN_PRESENCE)->data;
  const tfl_tensor *hd = n->n_in > IN_HANDEDNESS ? cpu_in(g, n, IN_HANDEDNESS) : NULL;
  float *o = cpu_out(g, n, 0)->data;
  const size_t b = tfl_tensor_count(cpu_in(g, n, IN_PRESENCE)), row = (size_t)pp_lm_row(p->points, p->visibility);
  for (size_t i = 0; i < b; i++)
    pp_lm_decode(p->points, p->stride, p->visibility, p->presence_logit, lm + i * (size_t)p->points * p->stride,
                 pr[i], hd ? ((const float *)hd->data)[i] : 0.0f, o + i * row);
  return TFL_OK;
}

const cpu_kernel cpu_k_landmark_decode = {lm_prepare, lm_eval, NULL, CPU_F32, 0};
