/* posenet.c - see posenet.h. Works in grid units (input pixels / stride)
 * and converts to input pixels at the end. */
#include "posenet.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define K POSENET_KEYPOINTS
#define E POSENET_EDGES

const int32_t posenet_edges[E * 2] = {
  POSENET_NOSE, POSENET_LEFT_EYE,            POSENET_LEFT_EYE, POSENET_LEFT_EAR,
  POSENET_NOSE, POSENET_RIGHT_EYE,           POSENET_RIGHT_EYE, POSENET_RIGHT_EAR,
  POSENET_NOSE, POSENET_LEFT_SHOULDER,       POSENET_LEFT_SHOULDER, POSENET_LEFT_ELBOW,
  POSENET_LEFT_ELBOW, POSENET_LEFT_WRIST,    POSENET_LEFT_SHOULDER, POSENET_LEFT_HIP,
  POSENET_LEFT_HIP, POSENET_LEFT_KNEE,       POSENET_LEFT_KNEE, POSENET_LEFT_ANKLE,
  POSENET_NOSE, POSENET_RIGHT_SHOULDER,      POSENET_RIGHT_SHOULDER, POSENET_RIGHT_ELBOW,
  POSENET_RIGHT_ELBOW, POSENET_RIGHT_WRIST,  POSENET_RIGHT_SHOULDER, POSENET_RIGHT_HIP,
  POSENET_RIGHT_HIP, POSENET_RIGHT_KNEE,     POSENET_RIGHT_KNEE, POSENET_RIGHT_ANKLE,
};

const char *const posenet_keypoint_names[K] = {
  "nose", "left_eye", "right_eye", "left_ear", "right_ear", "left_shoulder", "right_shoulder",
  "left_elbow", "right_elbow", "left_wrist", "right_wrist", "left_hip", "right_hip",
  "left_knee", "right_knee", "left_ankle", "right_ankle",
};

posenet_options posenet_defaults(void)
{
  return (posenet_options){.max_detections = 10, .score_threshold = 0.5f, .stride = 16,
                           .nms_radius = 20.0f, .refine_steps = 5};
}

typedef struct {
  float score;   /* logit */
  float y, x;    /* grid units */
  int id;        /* keypoint */
} pn_cand;

/* The grid and its three heads, offsets scaled to grid units on the fly. */
typedef struct {
  const float *heat, *shorts, *mids;
  int h, w;
  float inv_stride;
} pn_grid;

static float clampf(float v, float lo, float hi)
{
  return v < lo ? lo : (v > hi ? hi : v);
}

/* Bilinear sample of channels c0 and c1 of a [h, w, nc] tensor at (y, x). */
static void pn_sample2(const pn_grid *g, const float *t, int nc, float y, float x, int c0, int c1,
                       float *v0, float *v1)
{
  y = clampf(y, 0.0f, (float)(g->h - 1));
  x = clampf(x, 0.0f, (float)(g->w - 1));
  const int y0 = (int)floorf(y), x0 = (int)floorf(x);
  const int y1 = (int)ceilf(y), x1 = (int)ceilf(x);
  const float ly = y - (float)y0, lx = x - (float)x0;
  const float *tl = t + ((size_t)y0 * (size_t)g->w + (size_t)x0) * (size_t)nc;
  const float *tr = t + ((size_t)y0 * (size_t)g->w + (size_t)x1) * (size_t)nc;
  const float *bl = t + ((size_t)y1 * (size_t)g->w + (size_t)x0) * (size_t)nc;
  const float *br = t + ((size_t)y1 * (size_t)g->w + (size_t)x1) * (size_t)nc;
  *v0 = (1 - ly) * ((1 - lx) * tl[c0] + lx * tr[c0]) + ly * ((1 - lx) * bl[c0] + lx * br[c0]);
  if (v1)
    *v1 = (1 - ly) * ((1 - lx) * tl[c1] + lx * tr[c1]) + ly * ((1 - lx) * bl[c1] + lx * br[c1]);
}

static float pn_heat(const pn_grid *g, float y, float x, int id)
{
  float v;
  pn_sample2(g, g->heat, K, y, x, id, 0, &v, NULL);
  return v;
}

/* From `from`, jump along edge `edge` (0..2E: forward, then backward) to keypoint
 * `target`, then refine with target's short offsets. */
static posenet_point pn_follow(const pn_grid *g, posenet_point from, int edge, int target, int steps)
{
  /* mid channels: [fwd y E][fwd x E][bwd y E][bwd x E] */
  const int cy = edge < E ? edge : edge + E, cx = cy + E;
  float dy, dx;
  pn_sample2(g, g->mids, 4 * E, from.y, from.x, cy, cx, &dy, &dx);
  float y = clampf(from.y + dy * g->inv_stride, 0.0f, (float)(g->h - 1));
  float x = clampf(from.x + dx * g->inv_stride, 0.0f, (float)(g->w - 1));
  for (int i = 0; i < steps; i++) {
    pn_sample2(g, g->shorts, 2 * K, y, x, target, K + target, &dy, &dx);
    y = clampf(y + dy * g->inv_stride, 0.0f, (float)(g->h - 1));
    x = clampf(x + dx * g->inv_stride, 0.0f, (float)(g->w - 1));
  }
  return (posenet_point){y, x};
}

static float sq_dist(posenet_point a, posenet_point b)
{
  const float dy = a.y - b.y, dx = a.x - b.x;
  return dy * dy + dx * dx;
}

static int cmp_cand(const void *pa, const void *pb)
{
  const pn_cand *a = pa, *b = pb;
  if (a->score != b->score) return a->score > b->score ? -1 : 1;
  if (a->y != b->y) return a->y < b->y ? -1 : 1;   /* ties: raster order, then keypoint */
  if (a->x != b->x) return a->x < b->x ? -1 : 1;
  return a->id - b->id;
}

/* Root candidates: 3x3 local maxima at or above `min_logit`, best first. */
static int pn_candidates(const pn_grid *g, float min_logit, pn_cand *out)
{
  int n = 0;
  for (int y = 0; y < g->h; y++) {
    for (int x = 0; x < g->w; x++) {
      const size_t cell = (size_t)y * (size_t)g->w + (size_t)x;
      for (int k = 0; k < K; k++) {
        const float s = g->heat[cell * K + (size_t)k];
        if (!(s >= min_logit)) continue;
        int is_max = 1;
        for (int yy = y > 0 ? y - 1 : 0; is_max && yy <= y + 1 && yy < g->h; yy++)
          for (int xx = x > 0 ? x - 1 : 0; xx <= x + 1 && xx < g->w; xx++)
            if (g->heat[((size_t)yy * (size_t)g->w + (size_t)xx) * K + (size_t)k] > s) {
              is_max = 0;
              break;
            }
        if (!is_max) continue;
        const float dy = g->shorts[cell * 2 * K + (size_t)k] * g->inv_stride;
        const float dx = g->shorts[cell * 2 * K + K + (size_t)k] * g->inv_stride;
        out[n++] = (pn_cand){s, clampf((float)y + dy, 0.0f, (float)(g->h - 1)),
                             clampf((float)x + dx, 0.0f, (float)(g->w - 1)), k};
      }
    }
  }
  qsort(out, (size_t)n, sizeof *out, cmp_cand);
  return n;
}

/* Walks the skeleton from `root`: a small best-first queue of (point, keypoint,
 * logit); each keypoint is fixed the first time it is popped. Scores stay logits. */
static void pn_walk(const pn_grid *g, const pn_cand *root, int steps, posenet_pose *pose)
{
  pn_cand queue[2 * E + 1];  /* each edge pushes at most once, plus the root */
  int nq = 0;
  int done[K] = {0};
  for (int k = 0; k < K; k++) {
    pose->keypoints[k] = (posenet_point){-1.0f, -1.0f};
    pose->keypoint_scores[k] = -1e5f;
  }
  queue[nq++] = (pn_cand){pn_heat(g, root->y, root->x, root->id), root->y, root->x, root->id};
  while (nq > 0) {
    int best = 0;
    for (int i = 1; i < nq; i++)
      if (queue[i].score > queue[best].score) best = i;
    const pn_cand cur = queue[best];
    queue[best] = queue[--nq];
    if (done[cur.id]) continue;
    done[cur.id] = 1;
    pose->keypoints[cur.id] = (posenet_point){cur.y, cur.x};
    pose->keypoint_scores[cur.id] = cur.score;
    for (int e = 0; e < 2 * E; e++) {
      /* forward edges go parent -> child, backward edges child -> parent */
      const int from = posenet_edges[2 * (e % E) + (e < E ? 0 : 1)];
      const int to = posenet_edges[2 * (e % E) + (e < E ? 1 : 0)];
      if (from != cur.id || done[to]) continue;
      const posenet_point p = pn_follow(g, (posenet_point){cur.y, cur.x}, e, to, steps);
      queue[nq++] = (pn_cand){pn_heat(g, p.y, p.x, to), p.y, p.x, to};
    }
  }
}

static float sigmoidf(float v)
{
  return 1.0f / (1.0f + expf(-v));
}

size_t posenet_scratch_bytes(int height, int width, int max_detections)
{
  const size_t cells = (size_t)(height > 0 ? height : 0) * (size_t)(width > 0 ? width : 0);
  const size_t md = (size_t)(max_detections > 0 ? max_detections : 0);
  return cells * K * sizeof(pn_cand) + md * (sizeof(posenet_pose) + 2 * sizeof(float) + sizeof(int));
}

/* Orders pose indices by score, best first (insertion sort: a handful of poses). */
static void pn_order(const float *score, int n, int *order)
{
  for (int i = 0; i < n; i++) {
    int j = i;
    while (j > 0 && score[order[j - 1]] < score[i]) {
      order[j] = order[j - 1];
      j--;
    }
    order[j] = i;
  }
}

int posenet_decode(const float *heatmaps, const float *short_offsets, const float *mid_offsets,
                   int height, int width, const posenet_options *opt, posenet_pose *out,
                   void *scratch)
{
  if (height <= 0 || width <= 0 || opt->max_detections <= 0 || opt->stride <= 0) return 0;
  const int md = opt->max_detections;
  const pn_grid g = {heatmaps, short_offsets, mid_offsets, height, width, 1.0f / (float)opt->stride};
  const size_t cells = (size_t)height * (size_t)width;
  pn_cand *cand = scratch;
  posenet_pose *poses = (posenet_pose *)(cand + cells * K);
  float *score = (float *)(poses + md);
  int *order = (int *)(score + md);
  float *rescored = (float *)(order + md);

  const float r = opt->nms_radius / (float)opt->stride;
  const float r2 = r * r;
  const float thr = opt->score_threshold;
  /* the threshold as a logit, as the heatmaps are logits (epsilon keeps 1.0 finite) */
  const float min_logit = -logf(1.0f / (thr + 1e-6f) - 1.0f);

  const int n_cand = pn_candidates(&g, min_logit, cand);
  int n = 0;
  for (int c = 0; c < n_cand && n < md; c++) {
    int near = 0;
    for (int p = 0; p < n && !near; p++)
      near = sq_dist((posenet_point){cand[c].y, cand[c].x}, poses[p].keypoints[cand[c].id]) <= r2;
    if (near) continue;
    posenet_pose *pose = &poses[n];
    pn_walk(&g, &cand[c], opt->refine_steps, pose);
    float sum = 0.0f;
    for (int k = 0; k < K; k++) {
      pose->keypoint_scores[k] = sigmoidf(pose->keypoint_scores[k]);
      sum += pose->keypoint_scores[k];
    }
    if (sum / K >= thr) score[n++] = sum / K;
  }

  /* Rescore: a keypoint close to the same keypoint of a better pose does not count. */
  pn_order(score, n, order);
  for (int i = 0; i < n; i++) {
    const posenet_pose *cur = &poses[order[i]];
    float sum = 0.0f;
    for (int k = 0; k < K; k++) {
      int hidden = 0;
      for (int j = 0; j < i && !hidden; j++)
        hidden = sq_dist(cur->keypoints[k], poses[order[j]].keypoints[k]) <= r2;
      if (!hidden) sum += cur->keypoint_scores[k];
    }
    rescored[order[i]] = sum / K;
  }
  memcpy(score, rescored, sizeof(float) * (size_t)n);
  pn_order(score, n, order);

  int kept = 0;
  for (int i = 0; i < n; i++) {
    const posenet_pose *src = &poses[order[i]];
    if (score[order[i]] < thr) break;
    posenet_pose *dst = &out[kept++];
    for (int k = 0; k < K; k++) {
      dst->keypoints[k].y = src->keypoints[k].y * (float)opt->stride;
      dst->keypoints[k].x = src->keypoints[k].x * (float)opt->stride;
      dst->keypoint_scores[k] = src->keypoint_scores[k];
    }
    dst->score = score[order[i]];
  }
  return kept;
}
