/* preprocess.c - see preprocess.h */
#include "preprocess.h"

#include "policy/tfl_family.h"

#include <math.h>
#include <stdlib.h>

pix_norm preprocess_model_norm(const tfl_graph *g, tfl_decoder_kind kind, bool *from_metadata)
{
  float lo, hi;
  tfl_family_input_range(kind, g, &lo, &hi);
  const bool meta = g->meta.has_norm && g->meta.n_norm > 0;
  pix_norm n;
  for (int c = 0; c < 3; c++) {
    n.std[c] = 255.0f / (hi - lo);
    n.mean[c] = -lo * n.std[c];
    if (meta) {
      int k = c < g->meta.n_norm ? c : g->meta.n_norm - 1;
      n.mean[c] = g->meta.norm_mean[k];
      n.std[c] = g->meta.norm_std[k];
    }
  }
  n.pad = 0.0f;
  if (from_metadata) *from_metadata = meta;
  return n;
}

fit_mode preprocess_model_fit(const tfl_graph *g, tfl_decoder_kind kind)
{
  char why[8];
  tfl_family_match m;
  const tfl_family *f = tfl_family_identify(g, &m, why, sizeof why);
  if (!f || f->decoder != kind) return FIT_STRETCH;
  switch (f->fit) {
  case TFL_FIT_HINT_LETTERBOX_GREY: return FIT_LETTERBOX_GREY;
  case TFL_FIT_HINT_CENTER_CROP: return FIT_CROP;
  case TFL_FIT_HINT_LETTERBOX: return FIT_LETTERBOX;
  case TFL_FIT_HINT_NONE: return FIT_STRETCH;
  }
  return FIT_STRETCH;
}

float preprocess_fit_pad(fit_mode fit)
{
  return fit == FIT_LETTERBOX_GREY ? 114.0f : 0.0f;
}

tfl_transform preprocess_transform(int frame_w, int frame_h, int in_w, int in_h, fit_mode fit)
{
  tfl_transform tr = { in_w, in_h, (float)frame_w, (float)frame_h, 1, 1, 0, 0 };
  float sx = (float)frame_w / (float)in_w, sy = (float)frame_h / (float)in_h;
  switch (fit) {
  case FIT_STRETCH:
  case FIT_AUTO:
    tr.scale_x = sx;
    tr.scale_y = sy;
    break;
  case FIT_LETTERBOX:
  case FIT_LETTERBOX_GREY:
  case FIT_CROP: {
    float s = fit != FIT_CROP ? fmaxf(sx, sy) : fminf(sx, sy);
    tr.scale_x = tr.scale_y = s;
    tr.off_x = ((float)frame_w - (float)in_w * s) * 0.5f;
    tr.off_y = ((float)frame_h - (float)in_h * s) * 0.5f;
    break;
  }
  }
  return tr;
}

/* preprocess_yuv_coefficients' six numbers, worked out once per frame */
typedef struct {
  float ys, y0, rv, gu, gv, bu;
} yuv_coef;

static yuv_coef yuv_coef_of(const pix_yuv *c)
{
  double kr = c->kr, kb = c->kb;
  if (kr <= 0.0 || kb <= 0.0 || kr + kb >= 1.0) kr = 0.299, kb = 0.114; /* unset: BT.601 */
  double kg = 1.0 - kr - kb;
  /* limited range: luma spans 219 codes and chroma 224 of the 255 */
  double ys = c->full_range ? 1.0 : 255.0 / 219.0, cs = c->full_range ? 1.0 : 255.0 / 224.0;
  yuv_coef k;
  k.ys = (float)ys;
  k.y0 = c->full_range ? 0.0f : 16.0f;
  k.rv = (float)(cs * 2.0 * (1.0 - kr));
  k.bu = (float)(cs * 2.0 * (1.0 - kb));
  k.gu = (float)(cs * 2.0 * kb * (1.0 - kb) / kg);
  k.gv = (float)(cs * 2.0 * kr * (1.0 - kr) / kg);
  return k;
}

void preprocess_yuv_coefficients(const pix_yuv *c, float k[6])
{
  yuv_coef y = yuv_coef_of(c);
  k[0] = y.ys, k[1] = y.y0, k[2] = y.rv, k[3] = y.gu, k[4] = y.gv, k[5] = y.bu;
}

static float clamp255(float v)
{
  return fminf(fmaxf(v, 0.0f), 255.0f);
}

static void yuv_to_rgb(const yuv_coef *k, float Y, float U, float V, float rgb[3])
{
  float c = k->ys * (Y - k->y0), d = U - 128.0f, e = V - 128.0f;
  rgb[0] = clamp255(c + k->rv * e);
  rgb[1] = clamp255(c - k->gu * d - k->gv * e);
  rgb[2] = clamp255(c + k->bu * d);
}

/* One pixel as RGB 0..255. 4:2:0 and 4:2:2 chroma: the sample covering the pixel. */
static void fetch_rgb(const pix_frame *f, const yuv_coef *k, int x, int y, float rgb[3])
{
  const uint8_t *p;
  switch (f->format) {
  case PIX_RGBA:
  case PIX_RGBX:
    p = f->plane[0] + (size_t)y * f->stride[0] + (size_t)x * 4;
    rgb[0] = p[0], rgb[1] = p[1], rgb[2] = p[2];
    return;
  case PIX_BGRA:
  case PIX_BGRX:
    p = f->plane[0] + (size_t)y * f->stride[0] + (size_t)x * 4;
    rgb[0] = p[2], rgb[1] = p[1], rgb[2] = p[0];
    return;
  case PIX_RGB:
    p = f->plane[0] + (size_t)y * f->stride[0] + (size_t)x * 3;
    rgb[0] = p[0], rgb[1] = p[1], rgb[2] = p[2];
    return;
  case PIX_BGR:
    p = f->plane[0] + (size_t)y * f->stride[0] + (size_t)x * 3;
    rgb[0] = p[2], rgb[1] = p[1], rgb[2] = p[0];
    return;
  case PIX_GRAY8:
    rgb[0] = rgb[1] = rgb[2] = clamp255(k->ys * ((float)f->plane[0][(size_t)y * f->stride[0] + x] - k->y0));
    return;
  case PIX_YUY2:
  case PIX_UYVY: {
    /* one 4-byte macropixel per two pixels */
    p = f->plane[0] + (size_t)y * f->stride[0] + (size_t)(x / 2) * 4;
    int yo = f->format == PIX_YUY2 ? 0 : 1, co = 1 - yo;
    yuv_to_rgb(k, p[yo + (x & 1) * 2], p[co], p[co + 2], rgb);
    return;
  }
  case PIX_I420:
  case PIX_NV12:
  case PIX_NV21: {
    float Y = f->plane[0][(size_t)y * f->stride[0] + x], U, V;
    if (f->format == PIX_I420) {
      U = f->plane[1][(size_t)(y / 2) * f->stride[1] + x / 2];
      V = f->plane[2][(size_t)(y / 2) * f->stride[2] + x / 2];
    } else {
      const uint8_t *uv = f->plane[1] + (size_t)(y / 2) * f->stride[1] + (size_t)(x / 2) * 2;
      U = uv[f->format == PIX_NV21], V = uv[f->format == PIX_NV12];
    }
    yuv_to_rgb(k, Y, U, V, rgb);
    return;
  }
  }
}

static void store(tfl_tensor *t, size_t i, float v)
{
  switch (t->type) {
  case TFL_TYPE_FLOAT32:
    ((float *)t->data)[i] = v;
    return;
  case TFL_TYPE_UINT8:
  case TFL_TYPE_INT8: {
    float q = t->type == TFL_TYPE_INT8 ? v - 128.0f : v; /* int8 image models: pixel - 128 */
    float lo = t->type == TFL_TYPE_UINT8 ? 0.0f : -128.0f, hi = lo + 255.0f;
    q = fminf(fmaxf(roundf(q), lo), hi);
    if (t->type == TFL_TYPE_UINT8)
      ((uint8_t *)t->data)[i] = (uint8_t)q;
    else
      ((int8_t *)t->data)[i] = (int8_t)q;
    return;
  }
  case TFL_TYPE_FLOAT16:
  case TFL_TYPE_INT32:
  case TFL_TYPE_INT64:
  case TFL_TYPE_STRING:
  case TFL_TYPE_COMPLEX64:
  case TFL_TYPE_BOOL:
  case TFL_TYPE_INT16:
  case TFL_TYPE_COUNT:
    return;
  }
}

/* Source columns (or rows) for each input column: two taps and the weight of the second,
 * or -1 taps for positions outside the frame (letterbox bars). Double precision so the
 * 0..255 values round as TensorFlow Lite's tools round them (../shared/oracle). */
typedef struct {
  int i0, i1;
  double w;
} tap;

static void make_taps(tap *t, int n, double scale, double off, double frame_len, int src_len)
{
  for (int u = 0; u < n; u++) {
    double f = ((double)u + 0.5) * scale + off;
    if (f < 0.0 || f >= frame_len) {
      t[u] = (tap){ -1, -1, 0.0 };
      continue;
    }
    double s = fmin(fmax(f - 0.5, 0.0), (double)(src_len - 1));
    int i0 = (int)s;
    t[u] = (tap){ i0, i0 + 1 < src_len ? i0 + 1 : i0, s - (double)i0 };
  }
}

/* One bilinear sample at frame position (fx, fy) (pixel centres at +0.5), 0 outside
 * the frame: the same rule as make_taps, for one point. */
static void sample(const pix_frame *f, const yuv_coef *k, double fx, double fy, double pad, double rgb[3])
{
  rgb[0] = rgb[1] = rgb[2] = pad;
  if (fx < 0.0 || fy < 0.0 || fx >= (double)f->width || fy >= (double)f->height) return;
  double sx = fmin(fmax(fx - 0.5, 0.0), (double)(f->width - 1));
  double sy = fmin(fmax(fy - 0.5, 0.0), (double)(f->height - 1));
  int x0 = (int)sx, y0 = (int)sy;
  int x1 = x0 + 1 < f->width ? x0 + 1 : x0, y1 = y0 + 1 < f->height ? y0 + 1 : y0;
  double wx = sx - x0, wy = sy - y0;
  float p00[3], p01[3], p10[3], p11[3];
  fetch_rgb(f, k, x0, y0, p00);
  fetch_rgb(f, k, x1, y0, p01);
  fetch_rgb(f, k, x0, y1, p10);
  fetch_rgb(f, k, x1, y1, p11);
  for (int c = 0; c < 3; c++)
    rgb[c] = (1 - wy) * ((1 - wx) * p00[c] + wx * p01[c]) + wy * ((1 - wx) * p10[c] + wx * p11[c]);
}

static void store_pixel(tfl_tensor *t, size_t base, int C, int raw, const double rgb[3], const pix_norm *norm,
                        const float inv_std[3])
{
  for (int c = 0; c < C; c++) {
    float px = c < 3 ? (float)rgb[c] : 255.0f;
    int nc = c < 3 ? c : 2;
    store(t, base + c, raw ? px : (px - norm->mean[nc]) * inv_std[nc]);
  }
}

static bool stretched(float scale, int n, float frame_len)
{
  return fabs((double)scale * n - (double)frame_len) <= 1e-6 * frame_len;
}

int preprocess_frame(const pix_frame *f, const tfl_transform *tr, const pix_norm *norm,
                     tfl_tensor *t)
{
  if (t->ndim != 4 || t->dims[0] != 1 || (t->dims[3] != 3 && t->dims[3] != 4)) return -1;
  if (t->type != TFL_TYPE_FLOAT32 && t->type != TFL_TYPE_UINT8 && t->type != TFL_TYPE_INT8)
    return -1;
  /* 8-bit inputs take the pixel value itself, as TFLite's image models expect (their
   * input quantization maps 0..255 onto the trained range) */
  int raw = t->type != TFL_TYPE_FLOAT32;
  int H = t->dims[1], W = t->dims[2], C = t->dims[3];
  float inv_std[3];
  for (int c = 0; c < 3; c++) inv_std[c] = 1.0f / norm->std[c];
  const yuv_coef k = yuv_coef_of(&f->yuv);
  if (tr->shear_x != 0.0f || tr->shear_y != 0.0f) {
    /* a rotated region: every input pixel has its own two source rows */
    for (int v = 0; v < H; v++)
      for (int u = 0; u < W; u++) {
        double cu = u + 0.5, cv = v + 0.5, rgb[3];
        sample(f, &k, cu * tr->scale_x + cv * tr->shear_x + tr->off_x, cu * tr->shear_y + cv * tr->scale_y + tr->off_y,
               norm->pad, rgb);
        store_pixel(t, ((size_t)v * W + u) * C, C, raw, rgb, norm, inv_std);
      }
    return 0;
  }
  tap *cols = malloc(sizeof(tap) * (size_t)(W + H));
  if (!cols) return -1;
  tap *rows = cols + W;
  /* the exact ratio when the whole frame is stretched, as the oracle computes it (the
   * float scale times the size misses the frame size by a rounding for ratios such as
   * 640/300, so compare within float precision) */
  double sx = tr->off_x == 0.0f && stretched(tr->scale_x, W, tr->frame_w) ? (double)tr->frame_w / W : tr->scale_x;
  double sy = tr->off_y == 0.0f && stretched(tr->scale_y, H, tr->frame_h) ? (double)tr->frame_h / H : tr->scale_y;
  make_taps(cols, W, sx, tr->off_x, tr->frame_w, f->width);
  make_taps(rows, H, sy, tr->off_y, tr->frame_h, f->height);
  for (int v = 0; v < H; v++) {
    const tap *ty = &rows[v];
    for (int u = 0; u < W; u++) {
      const tap *tx = &cols[u];
      double rgb[3] = { norm->pad, norm->pad, norm->pad };
      if (ty->i0 >= 0 && tx->i0 >= 0) {
        float p00[3], p01[3], p10[3], p11[3];
        fetch_rgb(f, &k, tx->i0, ty->i0, p00);
        fetch_rgb(f, &k, tx->i1, ty->i0, p01);
        fetch_rgb(f, &k, tx->i0, ty->i1, p10);
        fetch_rgb(f, &k, tx->i1, ty->i1, p11);
        double wx = tx->w, wy = ty->w;
        for (int c = 0; c < 3; c++)
          rgb[c] = (1 - wy) * ((1 - wx) * p00[c] + wx * p01[c]) + wy * ((1 - wx) * p10[c] + wx * p11[c]);
      }
      store_pixel(t, ((size_t)v * W + u) * C, C, raw, rgb, norm, inv_std);
    }
  }
  free(cols);
  return 0;
}
