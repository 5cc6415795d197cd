/* yolo_detection.c - the internal op YOLO_DETECTION (runtime/tfl_graph.h): an Ultralytics
 * YOLO head to its kept boxes, per batch item. The arithmetic is postproc/yolo_detect.c,
 * which the YOLO decoder runs on raw heads too, so both give the same boxes; the GL
 * generator (delegates/gl/gl_gen_yolo_detect.c) follows this kernel. */
#include "kernels.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "postproc/yolo_detect.h"
#include "runtime/tfl_half.h"

enum { HEAD_ANCHOR_FREE = 0, HEAD_V5 = 1, HEAD_END2END = 2 };

typedef struct {
  int batch, boxes, values, row, cap;
  size_t item;              /* values an item */
  float *vals;              /* one item's head as float, when it is not float32 */
  pp_yolo_work w;
  pp_yolo_found *found;
} yd_state;

static void yd_release(void *state)
{
  yd_state *s = state;
  if (!s) return;
  free(s->vals);
  free(s->w.cand);
  free(s->w.boxes);
  free(s->w.classes);
  free(s->w.scratch);
  free(s->w.selected);
  free(s->found);
  free(s);
}

static tfl_status yd_prepare(tfl_graph *g, const tfl_node *n, void **state, tfl_diag *diag)
{
  const tfl_yolo_detection_params *p = &n->p.yolo_det;
  const tfl_tensor *x = cpu_in(g, n, 0), *o = cpu_out(g, n, 0);
  if (n->n_in != 1 || n->n_out != 1 || !x || !o)
    return tfl_fail(diag, TFL_ERR_SHAPE, "YoloDetection: %d inputs and %d outputs, expected 1 and 1", n->n_in, n->n_out);
  if (x->ndim != 3 || p->max_detections < 1)
    return tfl_fail(diag, TFL_ERR_SHAPE, "YoloDetection: head of %d dims (expected [batch, boxes, values]), %d "
                    "detections", x->ndim, p->max_detections);
  const int b = x->dims[0], boxes = p->values_first ? x->dims[2] : x->dims[1];
  const int values = p->values_first ? x->dims[1] : x->dims[2], row = 6 + p->n_extra;
  const int first = p->head == HEAD_END2END ? 6 : (p->head == HEAD_V5 ? 5 : 4) + p->n_classes;
  if (values < first || (p->n_extra > 0 && (p->extra_offset < first || p->extra_offset > values - p->n_extra)))
    return tfl_fail(diag, TFL_ERR_SHAPE, "YoloDetection: %d values a box, fewer than %d or than %d extra from %d",
                    values, first, p->n_extra, p->extra_offset);
  const size_t item = (size_t)boxes * (size_t)values, md = (size_t)p->max_detections;
  if (o->type != TFL_TYPE_FLOAT32 || tfl_tensor_count(o) != (size_t)b * md * (size_t)row)
    return tfl_fail(diag, TFL_ERR_SHAPE, "YoloDetection: the output is not %d x %zu x %d floats", b, md, row);
  yd_state *s = calloc(1, sizeof *s);
  if (!s) return tfl_fail(diag, TFL_ERR_NOMEM, "out of memory");
  *s = (yd_state){ .batch = b, .boxes = boxes, .values = values, .row = row, .cap = p->max_detections, .item = item };
  const size_t nb = (size_t)boxes;
  if (x->type != TFL_TYPE_FLOAT32) s->vals = malloc(item * sizeof(float));
  s->w.cand = malloc(nb * sizeof *s->w.cand);
  s->w.boxes = malloc(nb * sizeof *s->w.boxes);
  s->w.classes = malloc(nb * sizeof(int));
  s->w.scratch = malloc(nb);
  s->w.selected = malloc(md * sizeof(int));
  s->found = malloc(md * sizeof *s->found);
  if ((x->type != TFL_TYPE_FLOAT32 && !s->vals) || !s->w.cand || !s->w.boxes || !s->w.classes || !s->w.scratch ||
      !s->w.selected || !s->found) {
    yd_release(s);
    return tfl_fail(diag, TFL_ERR_NOMEM, "out of memory");
  }
  *state = s;
  return TFL_OK;
}

/* Item b's head as floats: the tensor's own data, else dequantized into s->vals. */
static const float *item_floats(yd_state *s, const tfl_tensor *x, int b)
{
  const size_t off = (size_t)b * s->item;
  if (x->type == TFL_TYPE_FLOAT32) return (const float *)x->data + off;
  const float sc = x->q.n ? x->q.scale[0] : 1.0f;
  const int zp = x->q.n ? x->q.zero_point[0] : 0;
  for (size_t i = 0; i < s->item; i++) {
    switch (x->type) {
    case TFL_TYPE_FLOAT16: s->vals[i] = tfl_half_to_float(((const uint16_t *)x->data)[off + i]); break;
    case TFL_TYPE_INT8: s->vals[i] = sc * (float)((int)((const int8_t *)x->data)[off + i] - zp); break;
    default: s->vals[i] = sc * (float)((int)((const uint8_t *)x->data)[off + i] - zp); break;
    }
  }
  return s->vals;
}

/* Row k: the corners, score, class, then the extra values of the box whose first value is
 * v (its values `step` apart), keypoints scaled as the box. */
static void write_row(const tfl_yolo_detection_params *p, float *r, const float *v, size_t step, const float c[4],
                      float score, float class_id)
{
  r[0] = c[0], r[1] = c[1], r[2] = c[2], r[3] = c[3], r[4] = score, r[5] = class_id;
  for (int e = 0; e < p->n_extra; e++) {
    float x = v[(size_t)(p->extra_offset + e) * step];
    const int m = p->kpt_dim ? e % p->kpt_dim : 2;
    if (m == 0) x *= p->scale_x;
    else if (m == 1) x *= p->scale_y;
    r[6 + e] = x;
  }
}

static tfl_status yd_eval(const tfl_graph *g, const tfl_node *n, void *state, cpu_ctx *ctx, tfl_diag *diag)
{
  (void)ctx;
  (void)diag;
  yd_state *s = state;
  const tfl_yolo_detection_params *p = &n->p.yolo_det;
  const tfl_tensor *x = cpu_in(g, n, 0);
  float *out = cpu_out(g, n, 0)->data;
  const size_t row = (size_t)s->row, md = (size_t)s->cap;
  for (int b = 0; b < s->batch; b++) {
    const float *v = item_floats(s, x, b);
    float *o = out + (size_t)b * md * row;
    int m = 0;
    if (p->head == HEAD_END2END) {
      /* already suppressed: the rows above the threshold with finite boxes, in order */
      for (int i = 0; i < s->boxes && m < s->cap; i++) {
        const float *r = v + (size_t)i * (size_t)s->values;
        if (!(r[4] > p->threshold) || !isfinite(r[0] + r[1] + r[2] + r[3])) continue;
        const float c[4] = { r[0] * p->scale_x, r[1] * p->scale_y, r[2] * p->scale_x, r[3] * p->scale_y };
        write_row(p, o + (size_t)m++ * row, r, 1, c, r[4], r[5]);
      }
    } else {
      const pp_yolo_params pp = {
        .n_boxes = s->boxes, .n_classes = p->n_classes, .objectness = p->head == HEAD_V5,
        .box_step = p->values_first ? 1 : (size_t)s->values, .value_step = p->values_first ? (size_t)s->boxes : 1,
        .scale_x = p->scale_x, .scale_y = p->scale_y, .threshold = p->threshold, .iou_threshold = p->iou_threshold,
        .max_out = s->cap, .agnostic = p->agnostic,
      };
      m = pp_yolo_detect(&pp, v, &s->w, s->found);
      for (int i = 0; i < m; i++) {
        const pp_yolo_found *f = &s->found[i];
        const float c[4] = { f->box.xmin, f->box.ymin, f->box.xmax, f->box.ymax };
        write_row(p, o + (size_t)i * row, v + (size_t)f->index * pp.box_step, pp.value_step, c, f->score, (float)f->class_id);
      }
    }
    /* unused rows read as empty, whatever the arena held before */
    for (size_t k = (size_t)m; k < md; k++) {
      memset(o + k * row, 0, row * sizeof(float));
      o[k * row + 4] = -1.0f;
      o[k * row + 5] = -1.0f;
    }
  }
  return TFL_OK;
}

const cpu_kernel cpu_k_yolo_detection = { yd_prepare, yd_eval, yd_release, CPU_F32 | CPU_F16 | CPU_Q8, 0 };
