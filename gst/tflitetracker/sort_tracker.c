/* sort_tracker.c - see sort_tracker.h */
#include "sort_tracker.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct sort_tracker {
  sort_options o;
  sort_track *tracks;
  int n, cap;
  uint64_t next_id, entered;
};

sort_options sort_defaults(void)
{
  return (sort_options){ 0.3f, 3, 30, 0.7f, 0.3f };
}

sort_tracker *sort_tracker_new(const sort_options *o)
{
  sort_tracker *t = calloc(1, sizeof *t);
  if (!t) return NULL;
  t->o = o ? *o : sort_defaults();
  t->next_id = 1;
  return t;
}

void sort_tracker_free(sort_tracker *t)
{
  if (!t) return;
  free(t->tracks);
  free(t);
}

float sort_iou(const sort_box *a, const sort_box *b)
{
  float x0 = fmaxf(a->x, b->x), y0 = fmaxf(a->y, b->y);
  float x1 = fminf(a->x + a->w, b->x + b->w), y1 = fminf(a->y + a->h, b->y + b->h);
  float inter = fmaxf(x1 - x0, 0.0f) * fmaxf(y1 - y0, 0.0f);
  float uni = a->w * a->h + b->w * b->h - inter;
  return uni > 0.0f ? inter / uni : 0.0f;
}

static bool same_class(int a, int b)
{
  return a < 0 || b < 0 || a == b;
}

static void predict(sort_track *k)
{
  k->box.x += k->vx;
  k->box.y += k->vy;
  k->box.w = fmaxf(k->box.w + k->vw, 1.0f);
  k->box.h = fmaxf(k->box.h + k->vh, 1.0f);
}

/* alpha-beta step towards the measurement, on centre and size */
static void correct(sort_track *k, const sort_box *d, const sort_options *o)
{
  float pcx = k->box.x + k->box.w / 2, pcy = k->box.y + k->box.h / 2;
  float dcx = d->x + d->w / 2, dcy = d->y + d->h / 2;
  float ex = dcx - pcx, ey = dcy - pcy, ew = d->w - k->box.w, eh = d->h - k->box.h;
  float cx = pcx + o->alpha * ex, cy = pcy + o->alpha * ey;
  float w = k->box.w + o->alpha * ew, h = k->box.h + o->alpha * eh;
  k->vx += o->beta * ex, k->vy += o->beta * ey, k->vw += o->beta * ew, k->vh += o->beta * eh;
  k->box = (sort_box){ cx - w / 2, cy - h / 2, w, h, k->box.class_id };
}

static int add_track(sort_tracker *t, const sort_box *d)
{
  if (t->n == t->cap) {
    int cap = t->cap ? 2 * t->cap : 16;
    sort_track *p = realloc(t->tracks, sizeof *p * (size_t)cap);
    if (!p) return -1;
    t->tracks = p;
    t->cap = cap;
  }
  sort_track *k = &t->tracks[t->n];
  memset(k, 0, sizeof *k);
  k->id = t->next_id++;
  k->box = *d;
  k->class_id = d->class_id;
  k->hits = 1;
  k->matched = true;
  if (t->o.min_hits <= 1) {
    k->confirmed = true;
    k->event = SORT_ENTERED;
    t->entered++;
  }
  return t->n++;
}

int sort_tracker_step(sort_tracker *t, const sort_box *dets, int n, bool fresh, int *assign)
{
  /* tracks that left last step are gone now */
  int w = 0;
  for (int i = 0; i < t->n; i++)
    if (t->tracks[i].event != SORT_LEFT) t->tracks[w++] = t->tracks[i];
  t->n = w;
  int n_tracks = t->n;
  for (int i = 0; i < n_tracks; i++) {
    sort_track *k = &t->tracks[i];
    predict(k);
    k->matched = false;
    k->event = SORT_NONE;
  }
  for (int d = 0; d < n; d++) assign[d] = -1;
  /* greedy assignment: best overlapping (detection, track) pairs first */
  bool *used = calloc((size_t)(n_tracks + 1), 1);
  if (!used) return -1;
  for (;;) {
    float best = t->o.iou_threshold;
    int bd = -1, bt = -1;
    for (int d = 0; d < n; d++) {
      if (assign[d] >= 0) continue;
      for (int i = 0; i < n_tracks; i++) {
        if (used[i] || !same_class(dets[d].class_id, t->tracks[i].class_id)) continue;
        float v = sort_iou(&dets[d], &t->tracks[i].box);
        if (v > 0.0f && (v > best || (v == best && bd < 0))) best = v, bd = d, bt = i;
      }
    }
    if (bd < 0) break;
    assign[bd] = bt;
    used[bt] = true;
  }
  free(used);
  if (!fresh) return 0; /* repeated detections: prediction only, no evidence either way */
  for (int d = 0; d < n; d++) {
    if (assign[d] < 0) continue;
    sort_track *k = &t->tracks[assign[d]];
    correct(k, &dets[d], &t->o);
    k->matched = true;
    k->hits++;
    k->misses = 0;
    if (!k->confirmed && k->hits >= t->o.min_hits) {
      k->confirmed = true;
      k->event = SORT_ENTERED;
      t->entered++;
    }
  }
  for (int i = 0; i < n_tracks; i++) {
    sort_track *k = &t->tracks[i];
    if (k->matched) continue;
    k->misses++;
    /* a tentative track that misses is noise: dropped at once, as SORT does */
    /* a tentative track that misses is noise and goes at once, as in SORT; a confirmed
     * one coasts on its prediction through up to max_age misses (occlusion) */
    if (!k->confirmed || k->misses > t->o.max_age) k->event = SORT_LEFT;
  }
  for (int d = 0; d < n; d++)
    if (assign[d] < 0 && (assign[d] = add_track(t, &dets[d])) < 0) return -1;
  return 0;
}

int sort_tracker_count(const sort_tracker *t)
{
  return t->n;
}

const sort_track *sort_tracker_track(const sort_tracker *t, int i)
{
  return i >= 0 && i < t->n ? &t->tracks[i] : NULL;
}

uint64_t sort_tracker_entered(const sort_tracker *t)
{
  return t->entered;
}
