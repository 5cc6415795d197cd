/* tfl_region.c - see tfl_region.h. All geometry is in frame pixels, so a square region
 * stays square on a non-square frame (MediaPipe works in normalized coordinates and
 * converts with the image size at each step; the result is the same). */
#include "tfl_region.h"

#include <math.h>
#include <stddef.h>

#define PI_F 3.14159265358979323846f

/* Hand landmarks MediaPipe bounds the next region with (wrist, thumb base, the base two
 * joints of each finger), and the three finger bases that give its direction. */
static const int hand_region_points[] = { 0, 1, 2, 3, 5, 6, 9, 10, 13, 14, 17, 18 };
enum { HAND_WRIST = 0, HAND_INDEX_MCP = 5, HAND_MIDDLE_MCP = 9, HAND_RING_MCP = 13 };
/* face mesh: outer corners of the eyes */
enum { FACE_EYE_A = 33, FACE_EYE_B = 263, FACE_POINTS = 468 };

const char *tfl_region_kind_name(tfl_region_kind kind)
{
  switch (kind) {
  case TFL_REGION_BOX: return "box";
  case TFL_REGION_POSE: return "pose";
  case TFL_REGION_PALM: return "palm";
  case TFL_REGION_FACE: return "face";
  case TFL_REGION_COUNT: return NULL;
  }
  return NULL;
}

tfl_region_rule tfl_region_rule_preset(tfl_region_kind kind)
{
  tfl_region_rule r = { .kind = kind, .start_kp = -1, .end_kp = -1, .scale_x = 1.0f, .scale_y = 1.0f };
  switch (kind) {
  case TFL_REGION_BOX:
  case TFL_REGION_COUNT:
    break;
  case TFL_REGION_POSE:
    r.from_points = true;
    r.start_kp = 0, r.end_kp = 1, r.target_angle = 0.5f * PI_F;
    r.square_long = true, r.scale_x = r.scale_y = 1.25f, r.keep_aspect = true;
    break;
  case TFL_REGION_PALM:
    r.start_kp = 0, r.end_kp = 2, r.target_angle = 0.5f * PI_F;
    r.shift_y = -0.5f, r.square_long = true, r.scale_x = r.scale_y = 2.6f, r.keep_aspect = true;
    break;
  case TFL_REGION_FACE:
    r.start_kp = 0, r.end_kp = 1, r.target_angle = 0.0f;
    r.square_long = true, r.scale_x = r.scale_y = 1.5f, r.keep_aspect = true;
    break;
  }
  return r;
}

/* Wraps into [-pi, pi). */
static float wrap_angle(float a)
{
  return a - 2.0f * PI_F * floorf((a + PI_F) / (2.0f * PI_F));
}

/* The angle that turns vector (x0,y0)->(x1,y1) to `target` (screen y points down, so y
 * is negated to measure angles counter-clockwise as on paper). */
static float rotation_of(float x0, float y0, float x1, float y1, float target)
{
  return wrap_angle(target - atan2f(-(y1 - y0), x1 - x0));
}

/* Shift, square and scale in the region's own axes (MediaPipe's rect transformation). */
static bool finish(const tfl_region_rule *r, tfl_region *g)
{
  float c = cosf(g->angle), s = sinf(g->angle);
  float dx = g->w * r->shift_x, dy = g->h * r->shift_y;
  g->cx += dx * c - dy * s;
  g->cy += dx * s + dy * c;
  if (r->square_long) g->w = g->h = fmaxf(g->w, g->h);
  g->w *= r->scale_x;
  g->h *= r->scale_y;
  return isfinite(g->cx) && isfinite(g->cy) && isfinite(g->angle) && g->w > 0.0f && g->h > 0.0f &&
         isfinite(g->w) && isfinite(g->h);
}

static bool has_kp(int n, int i)
{
  return i >= 0 && i < n;
}

bool tfl_region_from_box(const tfl_region_rule *r, const tfl_box *b, tfl_region *out)
{
  tfl_region g = { b->x + 0.5f * b->w, b->y + 0.5f * b->h, b->w, b->h, 0.0f };
  bool rotate = r->start_kp >= 0 && r->end_kp >= 0;
  if ((rotate || r->from_points) && (!has_kp(b->n_keypoints, r->start_kp) || !has_kp(b->n_keypoints, r->end_kp)))
    return false;
  if (rotate) {
    const tfl_keypoint *k0 = &b->keypoints[r->start_kp], *k1 = &b->keypoints[r->end_kp];
    g.angle = rotation_of(k0->x, k0->y, k1->x, k1->y, r->target_angle);
    if (r->from_points) {
      g.cx = k0->x, g.cy = k0->y;
      g.w = g.h = 2.0f * hypotf(k1->x - k0->x, k1->y - k0->y);
    }
  }
  *out = g;
  return finish(r, out);
}

/* Centre and size of the points' bounds measured along axes turned by `angle`. */
static void rotated_bounds(const tfl_keypoint *kp, const int *idx, int n, float angle, tfl_region *g)
{
  float c = cosf(angle), s = sinf(angle);
  float lo_u = INFINITY, hi_u = -INFINITY, lo_v = INFINITY, hi_v = -INFINITY;
  for (int i = 0; i < n; i++) {
    const tfl_keypoint *p = &kp[idx ? idx[i] : i];
    /* the point in the region's axes: rotate by -angle */
    float u = p->x * c + p->y * s, v = -p->x * s + p->y * c;
    lo_u = fminf(lo_u, u), hi_u = fmaxf(hi_u, u);
    lo_v = fminf(lo_v, v), hi_v = fmaxf(hi_v, v);
  }
  float mu = 0.5f * (lo_u + hi_u), mv = 0.5f * (lo_v + hi_v);
  g->cx = mu * c - mv * s;
  g->cy = mu * s + mv * c;
  g->w = hi_u - lo_u;
  g->h = hi_v - lo_v;
  g->angle = angle;
}

bool tfl_region_from_landmarks(tfl_region_kind kind, const tfl_pose *p, tfl_region *out)
{
  tfl_region_rule r = tfl_region_rule_preset(kind);
  tfl_region g = { 0 };
  switch (kind) {
  case TFL_REGION_POSE: {
    /* the hips centre and the body-scale point, as the detector's keypoints 0 and 1 */
    if (p->n_aux < 2) return false;
    tfl_box b = { .n_keypoints = 2, .keypoints = p->aux };
    return tfl_region_from_box(&r, &b, out);
  }
  case TFL_REGION_PALM: {
    if (p->n_keypoints < 21) return false;
    const tfl_keypoint *k = p->keypoints;
    float x1 = 0.5f * (0.5f * (k[HAND_INDEX_MCP].x + k[HAND_RING_MCP].x) + k[HAND_MIDDLE_MCP].x);
    float y1 = 0.5f * (0.5f * (k[HAND_INDEX_MCP].y + k[HAND_RING_MCP].y) + k[HAND_MIDDLE_MCP].y);
    float angle = rotation_of(k[HAND_WRIST].x, k[HAND_WRIST].y, x1, y1, 0.5f * PI_F);
    rotated_bounds(k, hand_region_points, (int)(sizeof hand_region_points / sizeof hand_region_points[0]), angle,
                   &g);
    r.shift_y = -0.1f;
    r.scale_x = r.scale_y = 2.0f;
    break;
  }
  case TFL_REGION_FACE: {
    if (p->n_keypoints < FACE_POINTS) return false;
    const tfl_keypoint *k = p->keypoints;
    rotated_bounds(k, NULL, p->n_keypoints, 0.0f, &g);
    g.angle = rotation_of(k[FACE_EYE_A].x, k[FACE_EYE_A].y, k[FACE_EYE_B].x, k[FACE_EYE_B].y, 0.0f);
    break;
  }
  case TFL_REGION_BOX:
  case TFL_REGION_COUNT:
    return false;
  }
  *out = g;
  return finish(&r, out);
}

tfl_transform tfl_region_transform(const tfl_region *reg, int in_w, int in_h, float frame_w, float frame_h,
                                   bool keep_aspect)
{
  float w = reg->w, h = reg->h;
  if (keep_aspect && in_w > 0 && in_h > 0 && w > 0.0f && h > 0.0f) {
    float want = (float)in_w / (float)in_h;
    if (w / h < want) w = h * want;
    else h = w / want;
  }
  float c = cosf(reg->angle), s = sinf(reg->angle);
  float sx = in_w > 0 ? w / (float)in_w : 0.0f, sy = in_h > 0 ? h / (float)in_h : 0.0f;
  tfl_transform tr = { in_w, in_h, frame_w, frame_h, 0, 0, 0, 0, 0, 0 };
  /* frame = centre + R(angle) * (u sx - w/2, v sy - h/2) */
  tr.scale_x = c * sx;
  tr.shear_x = -s * sy;
  tr.off_x = reg->cx - c * 0.5f * w + s * 0.5f * h;
  tr.shear_y = s * sx;
  tr.scale_y = c * sy;
  tr.off_y = reg->cy - s * 0.5f * w - c * 0.5f * h;
  return tr;
}

void tfl_region_corners(const tfl_region *reg, float xy[8])
{
  static const float su[4] = { -0.5f, 0.5f, 0.5f, -0.5f }, sv[4] = { -0.5f, -0.5f, 0.5f, 0.5f };
  float c = cosf(reg->angle), s = sinf(reg->angle);
  for (int i = 0; i < 4; i++) {
    float u = su[i] * reg->w, v = sv[i] * reg->h;
    xy[2 * i] = reg->cx + u * c - v * s;
    xy[2 * i + 1] = reg->cy + u * s + v * c;
  }
}
