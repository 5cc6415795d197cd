/* tfl_family.c - see tfl_family.h */
#include "tfl_family.h"

#include "tfl_layouts.h"
#include "runtime/tfl_passes.h"

#include <stdio.h>
#include <string.h>

#define ANY (-1)
#define NO_OP TFL_OP_COUNT

typedef struct {
  tfl_family f;
  tfl_op op;              /* recognized by this (custom) op anywhere in the graph */
  int n_outputs;          /* 0: any count */
  int rank[2];            /* ranks of outputs 0 and 1 after leading 1s; 0: not checked */
  int32_t dims[2][3];     /* their dims; ANY matches any size */
  int min_outputs;        /* at least this many outputs (landmark models have extras) */
  bool guess;             /* a shape rule, not a known model */
  /* extra condition for guesses; writes what it rests on into why */
  bool (*ok)(const tfl_graph *g, char *why, size_t why_size);
} family_row;

static bool scores_ok(const tfl_graph *g, char *why, size_t why_size);
static bool mask_ok(const tfl_graph *g, char *why, size_t why_size);
static bool anchors_ok(const tfl_graph *g, char *why, size_t why_size);
static bool yolo_ok(const tfl_graph *g, char *why, size_t why_size);
static bool yolo_cls_ok(const tfl_graph *g, char *why, size_t why_size);
static bool efficientdet_ok(const tfl_graph *g, char *why, size_t why_size);
static bool movenet_lightning_ok(const tfl_graph *g, char *why, size_t why_size);
static bool movenet_thunder_ok(const tfl_graph *g, char *why, size_t why_size);
static bool movenet_ok(const tfl_graph *g, char *why, size_t why_size);

#define FAM(name, dec, lo, hi, label, region, lm) { name, TFL_DECODER_##dec, lo, hi, label, TFL_REGION_##region, lm }
#define NO_LM TFL_REGION_COUNT

/* Known models first (their exact layouts), shape guesses last. */
static const family_row rows[] = {
  /* TFLite Model Maker's (and MediaPipe's) EfficientDet-Lite0..4: TFLite_Detection_PostProcess
   * and metadata with the labels (no background line); stretched as the Task Library and
   * MediaPipe feed it; mean 127 std 128 from the metadata */
  { FAM("EfficientDet-Lite (TFLite Model Maker / MediaPipe)", DETECTION, -1, 1, NULL, BOX, NO_LM),
    TFL_OP_DETECTION_POSTPROCESS, 0, { 0, 0 }, { { 0 } }, 0, false, efficientdet_ok },
  { FAM("SSD with TFLite_Detection_PostProcess", DETECTION, -1, 1, NULL, BOX, NO_LM), TFL_OP_DETECTION_POSTPROCESS },
  { FAM("PoseNet with PosenetDecoderOp", POSE, -1, 1, NULL, BOX, NO_LM), TFL_OP_POSENET_DECODER },
  { FAM("MediaPipe face detection (short range)", DETECTION, -1, 1, "face", FACE, NO_LM), NO_OP, 2, { 2, 2 },
    { { 896, 16 }, { 896, 1 } } },
  { FAM("MediaPipe face detection (full range)", DETECTION, -1, 1, "face", FACE, NO_LM), NO_OP, 2, { 2, 2 },
    { { 2304, 16 }, { 2304, 1 } } },
  { FAM("MediaPipe BlazePose person detector", DETECTION, -1, 1, "person", POSE, NO_LM), NO_OP, 2, { 2, 2 },
    { { 2254, 12 }, { 2254, 1 } } },
  { FAM("MediaPipe palm detector", DETECTION, 0, 1, "palm", PALM, NO_LM), NO_OP, 2, { 2, 2 },
    { { 2016, 18 }, { 2016, 1 } } },
  { FAM("SSD MobileNet (raw box encodings and class scores)", DETECTION, -1, 1, NULL, BOX, NO_LM), NO_OP, 2,
    { 2, 2 }, { { 1917, 4 }, { 1917, ANY } } },
  { FAM("MediaPipe pose landmarks (BlazePose GHUM)", LANDMARKS, 0, 1, NULL, BOX, TFL_REGION_POSE), NO_OP, 0,
    { 1, 0 }, { { 195 } }, 2 },
  { FAM("MediaPipe hand landmarks", LANDMARKS, 0, 1, NULL, BOX, TFL_REGION_PALM), NO_OP, 0, { 1, 0 }, { { 63 } }, 2 },
  { FAM("MediaPipe face mesh", LANDMARKS, 0, 1, NULL, BOX, TFL_REGION_FACE), NO_OP, 0, { 1, 0 }, { { 1404 } }, 2 },
  /* MoveNet (TF Hub): uint8 0..255 in (it scales itself), the frame padded to the input's
   * aspect (tf.image.resize_with_pad, TF.js's padding); Lightning 192, Thunder 256 */
  { { "MoveNet single-pose Lightning", TFL_DECODER_POSE, 0, 255, NULL, TFL_REGION_BOX, NO_LM, TFL_FIT_HINT_LETTERBOX },
    NO_OP, 1, { 2, 0 }, { { 17, 3 } }, 0, false, movenet_lightning_ok },
  { { "MoveNet single-pose Thunder", TFL_DECODER_POSE, 0, 255, NULL, TFL_REGION_BOX, NO_LM, TFL_FIT_HINT_LETTERBOX },
    NO_OP, 1, { 2, 0 }, { { 17, 3 } }, 0, false, movenet_thunder_ok },
  { { "MoveNet single-pose", TFL_DECODER_POSE, 0, 255, NULL, TFL_REGION_BOX, NO_LM, TFL_FIT_HINT_LETTERBOX },
    NO_OP, 1, { 2, 0 }, { { 17, 3 } }, 0, false, movenet_ok },
  /* TF Hub's MultiPose .tflite leaves its input size open ([1,1,1,3]); 256 is its default
   * (multiples of 32) */
  { { "MoveNet MultiPose", TFL_DECODER_POSE, 0, 255, NULL, TFL_REGION_BOX, NO_LM, TFL_FIT_HINT_LETTERBOX, 256 },
    NO_OP, 1, { 2, 0 }, { { ANY, 56 } }, 0, false, movenet_ok },
  { FAM("PoseNet (raw heatmaps and offsets)", POSE, -1, 1, NULL, BOX, NO_LM), NO_OP, 3, { 3, 0 },
    { { ANY, ANY, 17 } } },
  { FAM("MediaPipe selfie segmentation", SEGMENTATION, 0, 1, NULL, BOX, NO_LM), NO_OP, 1, { 3, 0 },
    { { 256, 256, 1 } } },
  { FAM("MediaPipe selfie segmentation (landscape)", SEGMENTATION, 0, 1, NULL, BOX, NO_LM), NO_OP, 1, { 3, 0 },
    { { 144, 256, 1 } } },
  { FAM("DeepLab v3 (PASCAL VOC)", SEGMENTATION, -1, 1, NULL, BOX, NO_LM), NO_OP, 1, { 3, 0 },
    { { 257, 257, 21 } } },
  /* Ultralytics YOLO classifiers (metadata task classify): probabilities, 0..1 input on a
   * centre crop (its classify_transforms) */
  { { "Ultralytics YOLO classifier", TFL_DECODER_CLASSIFICATION, 0, 1, NULL, TFL_REGION_BOX, NO_LM,
      TFL_FIT_HINT_CENTER_CROP }, NO_OP, 1, { 1, 0 }, { { ANY } }, 0, false, yolo_cls_ok },
  { FAM("ImageNet classifier (1001 classes)", CLASSIFICATION, -1, 1, NULL, BOX, NO_LM), NO_OP, 1, { 1, 0 },
    { { 1001 } } },
  { FAM("ImageNet classifier (1000 classes)", CLASSIFICATION, -1, 1, NULL, BOX, NO_LM), NO_OP, 1, { 1, 0 },
    { { 1000 } } },
  /* Ultralytics YOLO detection heads: its metadata.json, else the output shape against the
   * input size (decode_yolo.c); 0..1 input on its grey letterbox, labels from the names */
  { { "Ultralytics YOLO", TFL_DECODER_DETECTION, 0, 1, NULL, TFL_REGION_BOX, NO_LM, TFL_FIT_HINT_LETTERBOX_GREY },
    NO_OP, 0, { 0, 0 }, { { 0 } }, 1, false, yolo_ok },
  /* guesses */
  { FAM("class scores", CLASSIFICATION, -1, 1, NULL, BOX, NO_LM), NO_OP, 1, { 1, 0 }, { { ANY } }, 0, true,
    scores_ok },
  { FAM("a probability mask", SEGMENTATION, 0, 1, NULL, BOX, NO_LM), NO_OP, 1, { 3, 0 }, { { ANY, ANY, 1 } }, 0, true,
    mask_ok },
  { FAM("a class mask", SEGMENTATION, -1, 1, NULL, BOX, NO_LM), NO_OP, 1, { 3, 0 }, { { ANY, ANY, ANY } }, 0, true,
    mask_ok },
  { FAM("anchor boxes and scores", DETECTION, -1, 1, NULL, BOX, NO_LM), NO_OP, 2, { 2, 2 },
    { { ANY, ANY }, { ANY, ANY } }, 0, true, anchors_ok },
};

/* Dims after the leading 1s ([1,1,1,1001] -> [1001]); the last dim always stays. */
static int trailing(const tfl_tensor *t, int32_t *dims)
{
  int n = 0, lead = 1;
  for (int d = 0; d < t->ndim; d++) {
    if (lead && t->dims[d] == 1 && d < t->ndim - 1) continue;
    lead = 0;
    if (n < TFL_MAX_DIMS) dims[n++] = t->dims[d];
  }
  return n;
}

static const tfl_tensor *output(const tfl_graph *g, int i)
{
  return i < g->n_outputs ? &g->tensors[g->outputs[i]] : NULL;
}

static bool has_op(const tfl_graph *g, tfl_op op)
{
  for (int i = 0; i < g->n_nodes; i++)
    if (g->nodes[i].op == op) return true;
  return false;
}

/* Whether a softmax or sigmoid makes tensor t (through reshapes and (de)quantization). */
static bool made_by_activation(const tfl_graph *g, int t)
{
  for (int hops = 0; hops < 6 && t >= 0 && t < g->n_tensors; hops++) {
    int p = g->tensors[t].producer;
    if (p < 0 || p >= g->n_nodes) return false;
    const tfl_node *n = &g->nodes[p];
    if (n->op == TFL_OP_SOFTMAX || n->op == TFL_OP_LOGISTIC) return true;
    if (n->op != TFL_OP_RESHAPE && n->op != TFL_OP_SQUEEZE && n->op != TFL_OP_DEQUANTIZE && n->op != TFL_OP_QUANTIZE)
      return false;
    if (n->n_in < 1) return false;
    t = n->in[0];
  }
  return false;
}

/* Scores: a softmax or sigmoid makes them, or there are too many values (10+) to be a
 * box or a regression. A [1,1,1,4] box regressor is neither. */
static bool scores_ok(const tfl_graph *g, char *why, size_t why_size)
{
  int32_t d[TFL_MAX_DIMS];
  trailing(output(g, 0), d);
  bool act = made_by_activation(g, g->outputs[0]);
  if (d[0] < 2 || (!act && d[0] < 10)) {
    snprintf(why, why_size,
             "one output of %d value(s) that no softmax or sigmoid makes: not class scores (a box or a regression?)",
             d[0]);
    return false;
  }
  snprintf(why, why_size, "one output of %d values%s, read as class scores", d[0],
           act ? " made by a softmax/sigmoid" : "");
  return true;
}

static bool mask_ok(const tfl_graph *g, char *why, size_t why_size)
{
  int32_t d[TFL_MAX_DIMS];
  trailing(output(g, 0), d);
  if (d[0] < 8 || d[1] < 8) return false;
  snprintf(why, why_size, "one %dx%d output with %d channel(s), read as %s", d[1], d[0], d[2],
           d[2] == 1 ? "a per-pixel probability mask" : "per-pixel class scores");
  return true;
}

static bool anchors_ok(const tfl_graph *g, char *why, size_t why_size)
{
  int32_t a[TFL_MAX_DIMS], b[TFL_MAX_DIMS];
  trailing(output(g, 0), a);
  trailing(output(g, 1), b);
  if (a[0] != b[0]) return false;
  snprintf(why, why_size, "two outputs over %d anchors (%d and %d values each), read as boxes and scores", a[0], a[1],
           b[1]);
  return true;
}

/* Known when it fits (why: which head, from metadata or shape); an ambiguous shape or an
 * oriented-box model says so in why and fits no row, so that the sentence is what the
 * user sees; anything else is silently not YOLO. */
static bool yolo_ok(const tfl_graph *g, char *why, size_t why_size)
{
  char because[256];
  tfl_yolo_layout L;
  const int r = tfl_yolo_find(g, &L, because, sizeof because);
  if (r != 0) snprintf(why, why_size, "%s", because);
  return r > 0;
}

static bool yolo_cls_ok(const tfl_graph *g, char *why, size_t why_size)
{
  if (!g->meta.ultralytics.present || strcmp(g->meta.ultralytics.task, "classify")) return false;
  snprintf(why, why_size, "metadata.json task classify, %d names", g->meta.ultralytics.n_names);
  return true;
}

/* The first input's height and width; 0 when it is not [1,H,W,C]. */
static void input_size(const tfl_graph *g, int *h, int *w)
{
  const tfl_tensor *in = g->n_inputs > 0 ? &g->tensors[g->inputs[0]] : NULL;
  const bool image = in && in->ndim == 4 && in->dims[0] == 1;
  *h = image ? in->dims[1] : 0;
  *w = image ? in->dims[2] : 0;
}

/* EfficientDet-Lite: Model Maker's metadata name ("efficientdet-lite0".."4"), or a label
 * file in TFLite metadata on one of the five square inputs (Lite0..4: 320, 384, 448,
 * 512, 640). Other postprocess models (the TF detection zoo's SSDs) are the next row. */
static bool efficientdet_ok(const tfl_graph *g, char *why, size_t why_size)
{
  static const int sizes[5] = { 320, 384, 448, 512, 640 };
  int h, w;
  input_size(g, &h, &w);
  const char *name = g->meta.name ? g->meta.name : "";
  static const char prefix[] = "efficientdet";
  size_t n = 0;
  while (n < sizeof prefix - 1 && name[n] && (name[n] | 0x20) == prefix[n]) n++;
  if (n == sizeof prefix - 1) {
    snprintf(why, why_size, "metadata name \"%s\", input %dx%d", name, w, h);
    return true;
  }
  for (int i = 0; i < 5 && g->meta.labels && !g->meta.ultralytics.present; i++)
    if (h == sizes[i] && w == sizes[i]) {
      snprintf(why, why_size, "input %dx%d (Lite%d) and a label file in its metadata", w, h, i);
      return true;
    }
  return false;
}

static bool movenet_size_ok(const tfl_graph *g, int size, char *why, size_t why_size)
{
  int h, w;
  input_size(g, &h, &w);
  if (h != size || w != size) return false;
  return movenet_ok(g, why, why_size);
}

static bool movenet_lightning_ok(const tfl_graph *g, char *why, size_t why_size)
{
  return movenet_size_ok(g, 192, why, why_size);
}

static bool movenet_thunder_ok(const tfl_graph *g, char *why, size_t why_size)
{
  return movenet_size_ok(g, 256, why, why_size);
}

/* Its exact output ([1,1,17,3] / [1,N,56]) on an image input. */
static bool movenet_ok(const tfl_graph *g, char *why, size_t why_size)
{
  int h, w;
  bool multi;
  char what[160];
  input_size(g, &h, &w);
  if (h < 1 || w < 1 || !tfl_movenet_find(g, &multi, what, sizeof what)) return false;
  snprintf(why, why_size, "%s, input %dx%d", what, w, h);
  return true;
}

static bool shape_fits(const tfl_graph *g, const family_row *r, int i)
{
  if (!r->rank[i]) return true;
  const tfl_tensor *t = output(g, i);
  int32_t d[TFL_MAX_DIMS];
  if (!t || trailing(t, d) != r->rank[i]) return false;
  for (int k = 0; k < r->rank[i]; k++)
    if (r->dims[i][k] != ANY && r->dims[i][k] != d[k]) return false;
  return true;
}

static bool row_fits(const tfl_graph *g, const family_row *r)
{
  if (r->op != NO_OP) return has_op(g, r->op);
  if (r->n_outputs && g->n_outputs != r->n_outputs) return false;
  if (g->n_outputs < r->min_outputs || g->n_outputs < 1) return false;
  return shape_fits(g, r, 0) && shape_fits(g, r, 1);
}

static void describe_outputs(const tfl_graph *g, char *why, size_t why_size)
{
  size_t n = (size_t)snprintf(why, why_size, "no decoder recognizes %d output(s):", g->n_outputs);
  for (int i = 0; i < g->n_outputs && i < 4 && n < why_size; i++) {
    const tfl_tensor *t = output(g, i);
    n += (size_t)snprintf(why + n, why_size - n, " [");
    for (int d = 0; d < t->ndim && n < why_size; d++)
      n += (size_t)snprintf(why + n, why_size - n, "%s%d", d ? "," : "", t->dims[d]);
    if (n < why_size) n += (size_t)snprintf(why + n, why_size - n, "]");
  }
}

const tfl_family *tfl_family_identify(const tfl_graph *g, tfl_family_match *match, char *why, size_t why_size)
{
  char because[256] = "";
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    const family_row *r = &rows[i];
    if (!row_fits(g, r)) continue;
    if (r->ok && !r->ok(g, because, sizeof because)) continue;
    *match = r->guess ? TFL_FAMILY_GUESS : TFL_FAMILY_KNOWN;
    if (!r->guess && r->ok) snprintf(why, why_size, "%s: %s", r->f.name, because);
    else if (r->guess) snprintf(why, why_size, "guessed '%s' from the output shape: %s", tfl_decoder_kind_name(r->f.decoder),
                           because);
    else snprintf(why, why_size, "%s", r->f.name);
    return &r->f;
  }
  *match = TFL_FAMILY_NONE;
  if (because[0]) snprintf(why, why_size, "%s", because);
  else describe_outputs(g, why, why_size);
  return NULL;
}

tfl_status tfl_family_size_input(tfl_graph *g, bool *sized, tfl_diag *diag)
{
  *sized = false;
  const tfl_tensor *in = g->n_inputs > 0 ? &g->tensors[g->inputs[0]] : NULL;
  if (!in || in->ndim != 4 || (in->dyn_dims & 6u) != 6u) return TFL_OK;
  char why[256];
  tfl_family_match m;
  const tfl_family *f = tfl_family_identify(g, &m, why, sizeof why);
  if (!f || m != TFL_FAMILY_KNOWN || f->open_size < 1) return TFL_OK;
  tfl_status st = tfl_pass_set_input_size(g, 0, f->open_size, f->open_size, diag);
  *sized = st == TFL_OK;
  return st;
}

const tfl_family *tfl_family_generic(tfl_decoder_kind kind)
{
  /* the first guess row of that decoder: its range is the common one */
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
    if (rows[i].guess && rows[i].f.decoder == kind) return &rows[i].f;
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
    if (rows[i].f.decoder == kind) return &rows[i].f;
  return NULL;
}

int tfl_family_class_count(const tfl_graph *g, tfl_decoder_kind kind)
{
  int32_t d[TFL_MAX_DIMS];
  const tfl_tensor *o0 = output(g, 0);
  if (!o0) return -1;
  int n = trailing(o0, d);
  switch (kind) {
  case TFL_DECODER_CLASSIFICATION: return n == 1 ? d[0] : -1;
  case TFL_DECODER_SEGMENTATION: return n == 3 && d[2] > 1 ? d[2] : -1;
  case TFL_DECODER_DETECTION: {
    char why[8];
    tfl_yolo_layout L;
    if (tfl_yolo_find(g, &L, why, sizeof why) > 0) return L.n_classes > 0 ? L.n_classes : -1;
    for (int i = 0; i < g->n_nodes; i++)
      if (g->nodes[i].op == TFL_OP_DETECTION_POSTPROCESS)
        return g->nodes[i].p.detection.num_classes + tfl_family_class_offset(g); /* + a background line */
    if (g->n_outputs == 2 && output(g, 1) && trailing(output(g, 1), d) == 2 && d[1] > 1) return d[1];
    return -1;
  }
  case TFL_DECODER_AUTO:
  case TFL_DECODER_NONE:
  case TFL_DECODER_POSE:
  case TFL_DECODER_LANDMARKS:
  case TFL_DECODER_TENSORS: return -1;
  }
  return -1;
}

void tfl_family_input_range(tfl_decoder_kind kind, const tfl_graph *g, float *lo, float *hi)
{
  char why[8];
  tfl_family_match m;
  const tfl_family *f = tfl_family_identify(g, &m, why, sizeof why);
  if (!f || f->decoder != kind) f = tfl_family_generic(kind);
  *lo = f ? f->input_lo : -1.0f;
  *hi = f ? f->input_hi : 1.0f;
  /* a forced segmentation decoder on an unknown model: one or two channels are a
   * probability (selfie-style, 0..1), more are classes (-1..1) */
  if (kind == TFL_DECODER_SEGMENTATION && m != TFL_FAMILY_KNOWN && g->n_outputs > 0) {
    const tfl_tensor *o0 = &g->tensors[g->outputs[0]];
    *lo = o0->ndim == 4 && o0->dims[3] <= 2 ? 0.0f : -1.0f;
  }
}

int tfl_family_class_offset(const tfl_graph *g)
{
  /* Ultralytics' names also fill meta.labels, but never with this op */
  return g->meta.labels && !g->meta.ultralytics.present ? 0 : 1;
}
