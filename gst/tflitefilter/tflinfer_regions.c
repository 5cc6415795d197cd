/* tflinfer_regions.c - see tflinfer_regions.h */
#include "tflinfer_regions.h"

#include <math.h>
#include <string.h>

#include "decoders/tfl_region.h"
#include "tflinfer_decode.h"
#include "tflinfer_run.h"

GST_DEBUG_CATEGORY_EXTERN(gst_tflite_infer_debug);
#define GST_CAT_DEFAULT gst_tflite_infer_debug

/* Boxes overlapping at least this much are the same object (MediaPipe associates a
 * tracked region with a new detection at 0.5 of its own similarity; our boxes come from
 * two different models, so a little looser). */
#define SAME_OBJECT_IOU 0.3f

typedef struct {
  tfl_region region;
  gfloat box[4];              /* the object's box in the frame (x, y, w, h) */
  guint64 parent_id;          /* the upstream detection; 0: none, an own object is made */
} region_in;

struct _GstTfliteRegions {
  tfl_region_kind kind;       /* the rule: this model's family, else a plain box */
  GQuark from;
  gchar *from_name;
  gchar **labels;             /* region-labels, NULL: every label */
  guint max, min_size;
  gboolean track;
  GPtrArray *own_labels;      /* the label of the DETECTION objects made here */
  GArray *carried;            /* region_in: regions carried from the last frame's landmarks */
  gboolean paused;            /* the detector was asked to pause */
  GArray *last;               /* region_in of the last inference, for skipped frames */
  tfl_results *last_res;
  guint n_last;
  gboolean ask;               /* `paused` changed: the element asks the detector */
  /* the element's, for one gst_tflite_infer_regions_frame call */
  GQuark source;
  guint *age;                 /* frames since the last inference */
  gboolean *have_last;
};

static const gchar *object_name(tfl_region_kind k)
{
  switch (k) {
  case TFL_REGION_POSE: return "person";
  case TFL_REGION_PALM: return "hand";
  case TFL_REGION_FACE: return "face";
  case TFL_REGION_BOX:
  case TFL_REGION_COUNT: break;
  }
  return "object";
}

GstTfliteRegions *gst_tflite_regions_new(GstTfliteInfer *self)
{
  GstTfliteRegions *r = g_new0(GstTfliteRegions, 1);
  r->from_name = g_strdup(self->cfg->regions_from);
  if (self->cfg->region_labels && self->cfg->region_labels[0]) r->labels = g_strsplit(self->cfg->region_labels, ",", -1);
  r->max = self->cfg->max_regions;
  r->min_size = self->cfg->min_region_size;
  r->track = self->cfg->track_regions;
  for (gchar **l = r->labels; l && *l; l++) g_strstrip(*l);
  r->from = g_quark_from_string(r->from_name);
  const tfl_family *f = self->model.family;
  r->kind = f && f->landmarks != TFL_REGION_COUNT ? f->landmarks : TFL_REGION_BOX;
  r->own_labels = g_ptr_array_new_with_free_func(g_free);
  g_ptr_array_add(r->own_labels, g_strdup(object_name(r->kind)));
  r->carried = g_array_new(FALSE, TRUE, sizeof(region_in));
  r->last = g_array_new(FALSE, TRUE, sizeof(region_in));
  GST_INFO_OBJECT(self->owner, "regions from \"%s\" by the %s rule, at most %u%s", r->from_name, tfl_region_kind_name(r->kind),
                  r->max, r->track ? ", carried by landmarks" : "");
  return r;
}

static void forget_last(GstTfliteRegions *r)
{
  for (guint i = 0; i < r->n_last; i++) tfl_results_clear(&r->last_res[i]);
  g_free(r->last_res);
  r->last_res = NULL;
  r->n_last = 0;
  g_array_set_size(r->last, 0);
}

void gst_tflite_regions_free(GstTfliteRegions *r)
{
  if (!r) return;
  forget_last(r);
  g_array_free(r->carried, TRUE);
  g_array_free(r->last, TRUE);
  g_ptr_array_unref(r->own_labels);
  g_strfreev(r->labels);
  g_free(r->from_name);
  g_free(r);
}

/* ---- choosing the regions ---- */

static gfloat iou(const gfloat a[4], const gfloat b[4])
{
  gfloat x0 = MAX(a[0], b[0]), y0 = MAX(a[1], b[1]);
  gfloat x1 = MIN(a[0] + a[2], b[0] + b[2]), y1 = MIN(a[1] + a[3], b[1] + b[3]);
  gfloat inter = MAX(x1 - x0, 0.0f) * MAX(y1 - y0, 0.0f);
  gfloat uni = a[2] * a[3] + b[2] * b[3] - inter;
  return uni > 0.0f ? inter / uni : 0.0f;
}

static gint by_score(gconstpointer a, gconstpointer b)
{
  const GstTfliteObject *x = *(const GstTfliteObject *const *)a, *y = *(const GstTfliteObject *const *)b;
  return x->score < y->score ? 1 : x->score > y->score ? -1 : 0;
}

/* The region of detection o by the rule; a detection without the keypoints the rule
 * needs (say, an SSD person box for the pose model) gets the rule without rotation. */
static gboolean region_of(const GstTfliteRegions *r, const GstTfliteObject *o, tfl_region *out)
{
  tfl_box b = { o->x, o->y, o->w, o->h, o->class_id, o->score, (int)o->n_keypoints, o->keypoints };
  tfl_region_rule rule = tfl_region_rule_preset(r->kind);
  if (tfl_region_from_box(&rule, &b, out)) return TRUE;
  rule.from_points = FALSE;
  rule.start_kp = rule.end_kp = -1;
  return tfl_region_from_box(&rule, &b, out);
}

static void box_of(const GstTfliteObject *o, gfloat box[4])
{
  box[0] = o->x, box[1] = o->y, box[2] = o->w, box[3] = o->h;
}

/* The upstream detection best overlapping `box` not taken yet, or -1. */
static gint match(GPtrArray *cands, const gboolean *taken, const gfloat box[4])
{
  gint best = -1;
  gfloat best_iou = SAME_OBJECT_IOU;
  for (guint k = 0; k < cands->len; k++) {
    if (taken[k]) continue;
    gfloat b[4];
    box_of(g_ptr_array_index(cands, k), b);
    gfloat v = iou(b, box);
    if (v >= best_iou) best_iou = v, best = (gint)k;
  }
  return best;
}

/* Regions for this frame: the carried ones (tied to a detection when one overlaps),
 * then the detections not covered yet, best first. */
static guint collect(GstTfliteInfer *self, GstTfliteMeta *meta, region_in *out)
{
  GstTfliteRegions *r = self->regions;
  GPtrArray *cands = g_ptr_array_new();
  for (guint i = 0; i < gst_tflite_meta_n_objects(meta); i++) {
    const GstTfliteObject *o = gst_tflite_meta_get_object(meta, i);
    if (o->source != r->from || o->kind != GST_TFLITE_OBJECT_DETECTION || !gst_tflite_object_class_in(o, r->labels)) continue;
    if (o->w < (gfloat)r->min_size || o->h < (gfloat)r->min_size) continue;
    g_ptr_array_add(cands, (gpointer)o);
  }
  g_ptr_array_sort(cands, by_score);
  gboolean *taken = g_new0(gboolean, cands->len + 1);
  guint n = 0;
  for (guint i = 0; i < r->carried->len && n < r->max; i++) {
    region_in c = g_array_index(r->carried, region_in, i);
    gint k = match(cands, taken, c.box);
    if (k >= 0) {
      const GstTfliteObject *o = g_ptr_array_index(cands, k);
      taken[k] = TRUE;
      c.parent_id = o->id;
      box_of(o, c.box);
    }
    out[n++] = c;
  }
  for (guint k = 0; k < cands->len && n < r->max; k++) {
    if (taken[k]) continue;
    const GstTfliteObject *o = g_ptr_array_index(cands, k);
    region_in c = { .parent_id = o->id };
    box_of(o, c.box);
    gboolean covered = FALSE;
    for (guint i = 0; i < n && !covered; i++) covered = iou(out[i].box, c.box) >= SAME_OBJECT_IOU;
    if (covered || !region_of(r, o, &c.region)) continue;
    out[n++] = c;
  }
  g_free(taken);
  g_ptr_array_unref(cands);
  return n;
}

/* ---- attaching the results ---- */

/* The frame box the pose's points span (clamped to the frame); FALSE without points. */
static gboolean points_box(const tfl_results *res, gint fw, gint fh, gfloat box[4])
{
  if (res->n_poses < 1 || res->poses[0].n_keypoints < 1) return FALSE;
  const tfl_pose *p = &res->poses[0];
  gfloat x0 = G_MAXFLOAT, y0 = G_MAXFLOAT, x1 = -G_MAXFLOAT, y1 = -G_MAXFLOAT;
  for (int k = 0; k < p->n_keypoints; k++) {
    x0 = MIN(x0, p->keypoints[k].x), x1 = MAX(x1, p->keypoints[k].x);
    y0 = MIN(y0, p->keypoints[k].y), y1 = MAX(y1, p->keypoints[k].y);
  }
  x0 = CLAMP(x0, 0.0f, (gfloat)fw), x1 = CLAMP(x1, 0.0f, (gfloat)fw);
  y0 = CLAMP(y0, 0.0f, (gfloat)fh), y1 = CLAMP(y1, 0.0f, (gfloat)fh);
  box[0] = x0, box[1] = y0, box[2] = x1 - x0, box[3] = y1 - y0;
  return box[2] > 0.0f && box[3] > 0.0f;
}

/* Attaches one region's results (taking them) as children of its detection, or of a
 * DETECTION object made here when the region has none. */
static void attach(GstTfliteInfer *self, GstTfliteMeta *meta, const region_in *reg, tfl_results *res, guint age)
{
  GstTfliteRegions *r = self->regions;
  gboolean empty = !res->n_classes && !res->n_boxes && !res->n_poses && res->mask.kind == TFL_MASK_NONE;
  if (empty) {
    /* lost (landmark presence below the threshold), or nothing found; raw tensors
     * (decoder=tensors) still belong to the region's object */
    guint t0 = gst_tflite_meta_n_tensors(meta);
    if (res->n_tensors && reg->parent_id) gst_tflite_meta_add_tensors(meta, res, r->source, reg->parent_id);
    gst_tflite_infer_tensor_ids(self, meta, t0);
    return;
  }
  guint64 parent = reg->parent_id;
  gfloat area[4] = { reg->box[0], reg->box[1], reg->box[2], reg->box[3] };
  if (!parent) {
    GstTfliteObject o = { 0 };
    o.kind = GST_TFLITE_OBJECT_DETECTION;
    o.source = r->source;
    points_box(res, meta->frame_width, meta->frame_height, area);
    o.x = area[0], o.y = area[1], o.w = area[2], o.h = area[3];
    o.class_id = 0;
    o.score = res->n_poses ? res->poses[0].score : -1.0f;
    o.roi_id = -1;
    o.age = age;
    o.labels = g_ptr_array_ref(r->own_labels);
    parent = gst_tflite_meta_add_object(meta, &o)->id;
  }
  guint first = gst_tflite_meta_n_objects(meta), t0 = gst_tflite_meta_n_tensors(meta);
  gst_tflite_meta_add_results(meta, res, r->source, parent, area, self->model.labels, NULL);
  gst_tflite_infer_tensor_ids(self, meta, t0);
  for (guint i = first; i < gst_tflite_meta_n_objects(meta); i++)
    gst_tflite_meta_get_object_writable(meta, i)->age = age;
}

/* ---- carrying regions and pausing the detector ---- */

/* The element asks the detector (an upstream event) after the frame. */
static void ask_detector(GstTfliteInfer *self, gboolean pause)
{
  GstTfliteRegions *r = self->regions;
  if (pause == r->paused) return;
  r->paused = pause;
  r->ask = TRUE;
}

/* The next frame's regions from this frame's landmarks (before they are attached). */
static void carry(GstTfliteInfer *self, const region_in *regs, const tfl_results *res, guint n, gint fw, gint fh)
{
  GstTfliteRegions *r = self->regions;
  g_array_set_size(r->carried, 0);
  if (!r->track || r->kind == TFL_REGION_BOX) return;
  for (guint i = 0; i < n; i++) {
    region_in c = { 0 };
    if (res[i].n_poses < 1 || !tfl_region_from_landmarks(r->kind, &res[i].poses[0], &c.region)) continue;
    if (!points_box(&res[i], fw, fh, c.box)) memcpy(c.box, regs[i].box, sizeof c.box);
    g_array_append_val(r->carried, c);
  }
  ask_detector(self, r->carried->len >= r->max);
}

/* ---- per frame ---- */

static gboolean reuse_last(GstTfliteInfer *self, GstTfliteMeta *meta)
{
  GstTfliteRegions *r = self->regions;
  (*r->age)++;
  for (guint i = 0; i < r->n_last; i++) {
    region_in reg = g_array_index(r->last, region_in, i);
    /* the detection it belonged to is gone with the last frame: the one overlapping it now */
    reg.parent_id = 0;
    for (guint k = 0; k < gst_tflite_meta_n_objects(meta); k++) {
      const GstTfliteObject *o = gst_tflite_meta_get_object(meta, k);
      gfloat b[4];
      box_of(o, b);
      if (o->source == r->from && o->kind == GST_TFLITE_OBJECT_DETECTION && iou(b, reg.box) >= SAME_OBJECT_IOU) {
        reg.parent_id = o->id;
        break;
      }
    }
    tfl_results copy = { 0 };
    if (tfl_results_copy(&copy, &r->last_res[i]) == 0) attach(self, meta, &reg, &copy, (*r->age));
    tfl_results_clear(&copy);
  }
  return TRUE;
}

gboolean gst_tflite_infer_regions_frame(GstTfliteInfer *self, GstBuffer *buf, GstTfliteMeta *meta, gboolean run,
                                        const GstTfliteRegionFrame *frame, GstTfliteNotice *fail)
{
  GstTfliteRegions *r = self->regions;
  r->source = frame->source;
  r->age = frame->age;
  r->have_last = frame->have_last;
  if (!run && (*r->have_last)) return reuse_last(self, meta);
  region_in *regs = g_new0(region_in, r->max ? r->max : 1);
  guint n = collect(self, meta, regs);
  const tfl_graph *g = self->model.graph;
  const tfl_tensor *in = &g->tensors[g->inputs[0]];
  tfl_region_rule rule = tfl_region_rule_preset(r->kind);
  tfl_transform *trs = g_new0(tfl_transform, n ? n : 1);
  tfl_results *res = g_new0(tfl_results, n ? n : 1);
  /* the fit applies within each region as it does to a whole frame: crop (Ultralytics'
   * classifiers) cuts the region's centre to the input's aspect; the letterboxes keep the
   * aspect by widening the region (frame context, not bars, where the frame goes on) */
  const fit_mode fit = self->fit;
  const gboolean keep_aspect = rule.keep_aspect || fit == FIT_LETTERBOX || fit == FIT_LETTERBOX_GREY;
  const gfloat aspect = (gfloat)in->dims[2] / (gfloat)in->dims[1];
  for (guint i = 0; i < n; i++) {
    tfl_region reg = regs[i].region;
    if (fit == FIT_CROP) {
      if (reg.w > reg.h * aspect) reg.w = reg.h * aspect;
      else reg.h = reg.w / aspect;
    }
    trs[i] = tfl_region_transform(&reg, in->dims[2], in->dims[1], (gfloat)meta->frame_width,
                                  (gfloat)meta->frame_height, keep_aspect);
  }
  gboolean ok = n == 0 || gst_tflite_infer_run(self, buf, trs, (gint)n, FALSE, res, NULL, NULL, fail);
  if (ok) {
    (*r->have_last) = TRUE;
    (*r->age) = 0;
    carry(self, regs, res, n, meta->frame_width, meta->frame_height);
    forget_last(r);
    r->last_res = g_new0(tfl_results, n ? n : 1);
    for (guint i = 0; i < n; i++) {
      /* repeated frames carry the objects, not the raw tensors */
      tfl_results kept = res[i];
      kept.n_tensors = 0;
      kept.tensors = NULL;
      if (tfl_results_copy(&r->last_res[r->n_last], &kept) != 0) {
        tfl_results_clear(&r->last_res[r->n_last]);
        continue;
      }
      g_array_append_val(r->last, regs[i]);
      r->n_last++;
    }
    for (guint i = 0; i < n; i++) attach(self, meta, &regs[i], &res[i], 0);
  }
  for (guint i = 0; i < n; i++) tfl_results_clear(&res[i]);
  g_free(res);
  g_free(trs);
  g_free(regs);
  return ok;
}

gboolean gst_tflite_regions_pause_request(GstTfliteRegions *r, gboolean *pause, const gchar **detector)
{
  if (!r || !r->ask) return FALSE;
  r->ask = FALSE;
  *pause = r->paused;
  *detector = r->from_name;
  return TRUE;
}
