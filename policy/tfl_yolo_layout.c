/* tfl_yolo_layout.c - which Ultralytics YOLO head a graph ends in (see tfl_layouts.h and
 * decoders/decode_yolo.c for the heads), from its metadata.json or its output shapes. */
#include "tfl_layouts.h"

#include <stdio.h>
#include <string.h>

#define E2E_ROWS 300 /* Ultralytics' max_det, the end-to-end head's row count */

const tfl_yolo_detection_params *tfl_yolo_op(const tfl_graph *g, int tensor)
{
  for (int i = 0; i < g->n_nodes; i++) {
    const tfl_node *n = &g->nodes[i];
    if (!n->dead && n->op == TFL_OP_YOLO_DETECTION && n->n_out == 1 && n->out[0] == tensor) return &n->p.yolo_det;
  }
  return NULL;
}

static const char *head_name(tfl_yolo_head h)
{
  switch (h) {
  case YOLO_ANCHOR_FREE: return "anchor-free YOLO (v5u/v8/v9/v11/v12)";
  case YOLO_V5: return "anchor-based YOLOv5 (objectness)";
  case YOLO_END2END: return "end-to-end YOLO (v10/26)";
  }
  return "YOLO";
}

/* Dims after leading 1s; 0 when the tensor is not [1, ..., A, B]. */
static int rows_cols(const tfl_tensor *t, int *a, int *b)
{
  int n = 0, d0 = 0;
  while (d0 < t->ndim - 2 && t->dims[d0] == 1) d0++;
  n = t->ndim - d0;
  if (n != 2) return 0;
  *a = t->dims[d0];
  *b = t->dims[d0 + 1];
  return *a > 0 && *b > 0;
}

/* Whether the model took NCHW input: as loaded ([1, 3, H, W]), or made NHWC by
 * tfl_pass_nhwc_input (its TRANSPOSE dead, writing the graph input). */
static bool input_was_nchw(const tfl_graph *g, int *h, int *w)
{
  if (g->n_inputs < 1) return false;
  const int ti = g->inputs[0];
  const tfl_tensor *in = &g->tensors[ti];
  if (in->ndim != 4) return false;
  for (int i = 0; i < g->n_nodes; i++) {
    const tfl_node *n = &g->nodes[i];
    if (n->dead && n->op == TFL_OP_TRANSPOSE && n->n_out > 0 && n->out[0] == ti) {
      *h = in->dims[1], *w = in->dims[2];
      return true;
    }
  }
  const bool nchw = (in->dims[1] == 1 || in->dims[1] == 3) && in->dims[3] != 1 && in->dims[3] != 3;
  *h = nchw ? in->dims[2] : in->dims[1];
  *w = nchw ? in->dims[3] : in->dims[2];
  return nchw;
}

static int grid_boxes(int h, int w)
{
  int n = 0;
  for (int s = 8; s <= 32; s *= 2) n += (h / s) * (w / s);
  return n;
}

/* One reading of the output's shape. */
typedef struct {
  tfl_yolo_head head;
  bool values_first;
  int boxes, values;
} yolo_fit;

int tfl_yolo_find(const tfl_graph *g, tfl_yolo_layout *L, char *why, size_t why_size)
{
  memset(L, 0, sizeof *L);
  const bool meta = g->meta.ultralytics.present;
  const char *task = meta ? g->meta.ultralytics.task : "";
  const bool obb = meta && !strcmp(task, "obb");
  if (meta && task[0] && strcmp(task, "detect") && strcmp(task, "segment") && strcmp(task, "pose") && !obb) {
    snprintf(why, why_size, "an Ultralytics YOLO '%s' model: no detection head", task);
    return 0;
  }
  int a = 0, b = 0;
  for (int i = 0; i < g->n_outputs && !L->n_boxes; i++)
    if (rows_cols(&g->tensors[g->outputs[i]], &a, &b)) {
      L->output = i;
      L->n_boxes = 1;
    }
  if (!L->n_boxes) {
    snprintf(why, why_size, "no [1, values, boxes] output");
    return 0;
  }
  int in_h = 0, in_w = 0;
  const bool nchw = input_was_nchw(g, &in_h, &in_w);
  if (meta && g->meta.ultralytics.imgsz[0] > 0) {
    in_h = g->meta.ultralytics.imgsz[0];
    in_w = g->meta.ultralytics.imgsz[1];
  }
  L->in_h = in_h;
  L->in_w = in_w;
  L->from_metadata = meta;
  /* the appended YOLO_DETECTION's rows (yolo_op.c) read as an end-to-end head in pixels */
  const tfl_yolo_detection_params *op = tfl_yolo_op(g, g->outputs[L->output]);
  const int n = grid_boxes(in_h, in_w), e2e_hint = op ? 1 : meta ? g->meta.ultralytics.end2end : -1;
  const int nc_meta = meta ? g->meta.ultralytics.n_names : 0;
  /* every layout the shape fits */
  yolo_fit fits[6];
  int k = 0;
  if (e2e_hint == 1) {
    if (b >= 6) fits[k++] = (yolo_fit){ YOLO_END2END, false, a, b };
  } else {
    if (n > 0 && b == n && a >= 5) fits[k++] = (yolo_fit){ YOLO_ANCHOR_FREE, true, b, a };
    if (n > 0 && a == n && b >= 5) fits[k++] = (yolo_fit){ YOLO_ANCHOR_FREE, false, a, b };
    if (n > 0 && a == 3 * n && b >= 6) fits[k++] = (yolo_fit){ YOLO_V5, false, a, b };
    if (n > 0 && b == 3 * n && a >= 6) fits[k++] = (yolo_fit){ YOLO_V5, true, b, a };
    if (e2e_hint < 0 && a == E2E_ROWS && b >= 6 && b < E2E_ROWS) fits[k++] = (yolo_fit){ YOLO_END2END, false, a, b };
  }
  if (k == 0) {
    snprintf(why, why_size, "output [1,%d,%d] is no YOLO head for a %dx%d input (anchor-free: %d boxes, YOLOv5: %d, "
             "end-to-end: 300 rows of 6+)", a, b, in_w, in_h, n, 3 * n);
    return 0;
  }
  if (k > 1) {
    snprintf(why, why_size, "output [1,%d,%d] fits both %s%s and %s%s: Ultralytics' metadata.json (its 'end2end' and "
             "'names') settles which", a, b, head_name(fits[0].head), fits[0].values_first ? " [values, boxes]" : "",
             head_name(fits[1].head), fits[1].values_first ? " [values, boxes]" : "");
    return -1;
  }
  /* an oriented head is read only where the angle's place is certain: after the classes
   * (anchor-free), or after the class column as the row's last value (end-to-end) */
  if (obb && (nc_meta <= 0 || fits[0].head == YOLO_V5 ||
              fits[0].values != (fits[0].head == YOLO_END2END ? 7 : 4 + nc_meta + 1))) {
    snprintf(why, why_size, "an Ultralytics YOLO oriented-box model (metadata task 'obb', %d names) with output "
             "[1,%d,%d]: only the anchor-free head [1, 4 + classes + angle, %d] and the end-to-end head [1, 300, 7] "
             "(box, score, class, angle) are decoded", nc_meta, a, b, n);
    return -1;
  }
  L->head = fits[0].head;
  L->values_first = fits[0].values_first;
  L->n_boxes = fits[0].boxes;
  L->n_values = fits[0].values;
  switch (L->head) {
  case YOLO_ANCHOR_FREE: L->n_classes = nc_meta > 0 && 4 + nc_meta <= L->n_values ? nc_meta : L->n_values - 4; break;
  case YOLO_V5: L->n_classes = nc_meta > 0 && 5 + nc_meta <= L->n_values ? nc_meta : L->n_values - 5; break;
  case YOLO_END2END: L->n_classes = op ? op->n_classes : nc_meta; break;
  }
  L->normalized = !op && (L->head != YOLO_END2END || !nchw);
  if (obb) {
    L->oriented = true;
    L->angle_offset = L->head == YOLO_END2END ? 6 : 4 + L->n_classes;
  }
  /* a pose head's keypoints follow the classes (anchor-free) or the class column (end-to-end) */
  const int nk = meta ? g->meta.ultralytics.kpt_shape[0] : 0, kd = meta ? g->meta.ultralytics.kpt_shape[1] : 0;
  const int kpt_at = L->head == YOLO_END2END ? 6 : L->head == YOLO_ANCHOR_FREE ? 4 + L->n_classes : -1;
  if (!strcmp(task, "pose") && nk > 0 && (kd == 2 || kd == 3) && kpt_at > 0 && kpt_at + nk * kd <= L->n_values) {
    L->n_kpts = nk;
    L->kpt_dim = kd;
    L->kpt_offset = kpt_at;
  }
  /* a segmentation head's mask coefficients follow the classes (or the class column);
   * the prototypes are the other output, [1, nm, H/4, W/4] (NCHW) or [1, H/4, W/4, nm] */
  L->protos = -1;
  const int nm = L->n_values - kpt_at;
  if (!strcmp(task, "segment") && kpt_at > 0 && nm > 0) {
    for (int i = 0; i < g->n_outputs; i++) {
      const tfl_tensor *p = &g->tensors[g->outputs[i]];
      if (i == L->output || p->ndim != 4 || p->dims[0] != 1) continue;
      const bool cf = p->dims[1] == nm, cl = p->dims[3] == nm;
      if (!cf && !cl) continue;
      L->protos = i;
      L->protos_channels_first = cf;
      L->proto_h = cf ? p->dims[2] : p->dims[1];
      L->proto_w = cf ? p->dims[3] : p->dims[2];
      L->n_coeffs = nm;
      L->coeff_offset = kpt_at;
      break;
    }
  }
  snprintf(why, why_size, "%s, %d boxes of %d values (%d classes%s), %dx%d input, %s coordinates%s", head_name(L->head),
           L->n_boxes, L->n_values, L->n_classes,
           L->n_kpts ? ", keypoints" : L->protos >= 0 ? ", masks" : L->oriented ? ", oriented" : "", in_w, in_h,
           L->normalized ? "normalized" : "pixel", meta ? " (Ultralytics metadata)" : " (from the output shape)");
  return 1;
}
