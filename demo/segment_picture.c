/* segment_picture - runs a person-segmentation model (MediaPipe selfie segmentation) on a
 * PNG picture with our runtime and writes what a person can look at:
 *
 *   segment_picture MODEL PICTURE.png MASK.png [OVERLAY.png] [--threads N]
 *
 * MASK.png: the model's mask scaled up to the picture's size, gray (white = person).
 * OVERLAY.png: the picture with the background dimmed and tinted blue.
 * The input is the picture resized (bilinear, half-pixel centers) to the model's input and
 * mapped onto 0..1, as MediaPipe feeds this model.
 */
#include "runtime/tfl_interpreter.h"
#include "runtime/tfl_loader.h"

#include <math.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct {
  int w, h;
  uint8_t *rgb;
} picture;

static double now_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int read_png(const char *path, picture *p)
{
  png_image img;
  memset(&img, 0, sizeof img);
  img.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_file(&img, path)) {
    fprintf(stderr, "segment_picture: %s: %s\n", path, img.message);
    return -1;
  }
  img.format = PNG_FORMAT_RGB;
  p->w = (int)img.width;
  p->h = (int)img.height;
  p->rgb = malloc((size_t)p->w * p->h * 3);
  if (!p->rgb || !png_image_finish_read(&img, NULL, p->rgb, 0, NULL)) {
    fprintf(stderr, "segment_picture: %s: %s\n", path, p->rgb ? img.message : "out of memory");
    png_image_free(&img);
    return -1;
  }
  return 0;
}

static int write_png(const char *path, const uint8_t *pixels, int w, int h, int channels)
{
  png_image img;
  memset(&img, 0, sizeof img);
  img.version = PNG_IMAGE_VERSION;
  img.width = (png_uint_32)w;
  img.height = (png_uint_32)h;
  img.format = channels == 1 ? PNG_FORMAT_GRAY : PNG_FORMAT_RGB;
  if (!png_image_write_to_file(&img, path, 0, pixels, 0, NULL)) {
    fprintf(stderr, "segment_picture: cannot write %s: %s\n", path, img.message);
    return -1;
  }
  return 0;
}

/* Bilinear sample with half-pixel centers of a w x h x c float image at output pixel
 * (x, y) of an ow x oh image, channel ch. */
static float sample(const float *src, int w, int h, int c, int ch, int x, int y, int ow, int oh)
{
  float fx = (x + 0.5f) * w / ow - 0.5f, fy = (y + 0.5f) * h / oh - 0.5f;
  fx = fx < 0 ? 0 : fx > w - 1 ? (float)(w - 1) : fx;
  fy = fy < 0 ? 0 : fy > h - 1 ? (float)(h - 1) : fy;
  int x0 = (int)fx, y0 = (int)fy;
  int x1 = x0 + 1 < w ? x0 + 1 : w - 1, y1 = y0 + 1 < h ? y0 + 1 : h - 1;
  float wx = fx - x0, wy = fy - y0;
#define AT(yy, xx) src[((size_t)(yy) * w + (xx)) * c + ch]
  float top = AT(y0, x0) * (1 - wx) + AT(y0, x1) * wx;
  float bottom = AT(y1, x0) * (1 - wx) + AT(y1, x1) * wx;
#undef AT
  return top * (1 - wy) + bottom * wy;
}

int main(int argc, char **argv)
{
  const char *args[4] = { 0 };
  int n_args = 0, threads = 2;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc) threads = atoi(argv[++i]);
    else if (n_args < 4) args[n_args++] = argv[i];
  }
  if (n_args < 3 || threads < 1) {
    fprintf(stderr, "usage: segment_picture MODEL PICTURE.png MASK.png [OVERLAY.png] [--threads N]\n");
    return 2;
  }
  picture pic;
  if (read_png(args[1], &pic)) return 1;

  double t0 = now_ms();
  tfl_graph *g;
  tfl_interpreter *it;
  tfl_interp_options opt = tfl_interp_defaults();
  opt.threads = threads;
  if (tfl_load_file(args[0], &g) != TFL_OK || tfl_interpreter_create(g, &opt, &it) != TFL_OK) {
    fprintf(stderr, "segment_picture: %s: %s\n", args[0], tfl_last_error());
    return 1;
  }
  double t1 = now_ms();
  tfl_tensor *in = tfl_interpreter_input(it, 0), *out = tfl_interpreter_output(it, 0);
  if (in->type != TFL_TYPE_FLOAT32 || in->ndim != 4 || in->dims[3] != 3 || out->type != TFL_TYPE_FLOAT32 ||
      out->ndim != 4 || out->dims[3] != 1) {
    fprintf(stderr, "segment_picture: %s is not a float NHWC RGB -> 1-channel mask model\n", args[0]);
    return 1;
  }
  const int iw = in->dims[2], ih = in->dims[1], mw = out->dims[2], mh = out->dims[1];

  /* picture -> model input: bilinear resize, 0..255 -> 0..1 */
  float *rgbf = malloc((size_t)pic.w * pic.h * 3 * sizeof(float));
  for (size_t i = 0; i < (size_t)pic.w * pic.h * 3; i++) rgbf[i] = pic.rgb[i];
  float *x = in->data;
  for (int y = 0; y < ih; y++)
    for (int xx = 0; xx < iw; xx++)
      for (int c = 0; c < 3; c++)
        x[((size_t)y * iw + xx) * 3 + c] = sample(rgbf, pic.w, pic.h, 3, c, xx, y, iw, ih) / 255.0f;

  double t2 = now_ms();
  if (tfl_interpreter_invoke(it) != TFL_OK) {
    fprintf(stderr, "segment_picture: invoke: %s\n", tfl_last_error());
    return 1;
  }
  double t3 = now_ms();

  /* mask -> picture size; overlay dims and tints the background */
  const float *m = out->data;
  uint8_t *mask = malloc((size_t)pic.w * pic.h), *overlay = malloc((size_t)pic.w * pic.h * 3);
  size_t person = 0;
  for (int y = 0; y < pic.h; y++)
    for (int xx = 0; xx < pic.w; xx++) {
      float v = sample(m, mw, mh, 1, 0, xx, y, pic.w, pic.h);
      v = v < 0 ? 0 : v > 1 ? 1 : v;
      size_t i = (size_t)y * pic.w + xx;
      mask[i] = (uint8_t)lrintf(v * 255);
      person += v > 0.5f;
      static const float tint[3] = { 40, 60, 160 };
      for (int c = 0; c < 3; c++)
        overlay[i * 3 + c] = (uint8_t)lrintf(v * pic.rgb[i * 3 + c] + (1 - v) * (0.3f * pic.rgb[i * 3 + c] + 0.7f * tint[c]));
    }
  int rc = write_png(args[2], mask, pic.w, pic.h, 1) ? 1 : 0;
  if (!rc && args[3]) rc = write_png(args[3], overlay, pic.w, pic.h, 3) ? 1 : 0;
  if (!rc) {
    printf("%s on %s (%dx%d -> %dx%d, %d thread%s): load+prepare %.1f ms, first inference %.1f ms\n",
           args[0], args[1], pic.w, pic.h, iw, ih, threads, threads > 1 ? "s" : "", t1 - t0, t3 - t2);
    printf("person: %.1f%% of the picture; mask written to %s%s%s\n",
           100.0 * person / ((size_t)pic.w * pic.h), args[2], args[3] ? ", overlay to " : "",
           args[3] ? args[3] : "");
  }
  free(mask);
  free(overlay);
  free(rgbf);
  free(pic.rgb);
  tfl_interpreter_free(it);
  tfl_graph_free(g);
  return rc;
}
