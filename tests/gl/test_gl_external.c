/* test_gl_external.c - the texture input from a GL_TEXTURE_EXTERNAL_OES texture (what
 * GStreamer's glupload makes of an imported DMABuf). No DMABuf exporter exists on
 * llvmpipe, so the external texture is an EGLImage made from a 2D texture
 * (EGL_KHR_gl_texture_2D_image) bound with glEGLImageTargetTexture2DOES: the same
 * pixels through the external sampler. Checked against the CPU preprocessing of those
 * pixels (preprocess/preprocess.c) and bit for bit against the 2D path; a YUV layout on
 * an external texture is refused. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <EGL/egl.h>
#include <EGL/eglext.h>

#include "delegates/gl/gl_context.h"
#include "gl_test_util.h"
#include "preprocess/preprocess.h"

#ifndef GL_TEXTURE_EXTERNAL_OES
#define GL_TEXTURE_EXTERNAL_OES 0x8D65
#endif

static int fails;
#define CHECK(cond, ...)               \
  do {                                 \
    printf((cond) ? "ok   " : "FAIL "); \
    fails += !(cond);                  \
    printf(__VA_ARGS__);               \
    printf("\n");                      \
  } while (0)

typedef void (*image_target_fn)(GLenum target, void *image);

/* An external texture sharing tex's storage through an EGLImage (0 on failure, *img
 * the image to destroy). */
static unsigned external_of(gl_context *c, unsigned tex, EGLImageKHR *img)
{
  EGLDisplay dpy = c->egl_display;
  PFNEGLCREATEIMAGEKHRPROC create = (PFNEGLCREATEIMAGEKHRPROC)eglGetProcAddress("eglCreateImageKHR");
  image_target_fn target = (image_target_fn)eglGetProcAddress("glEGLImageTargetTexture2DOES");
  const char *exts = eglQueryString(dpy, EGL_EXTENSIONS);
  if (!create || !target || !exts || !strstr(exts, "EGL_KHR_gl_texture_2D_image")) {
    printf("FAIL no EGL_KHR_gl_texture_2D_image / glEGLImageTargetTexture2DOES (EGL: %s)\n", exts ? exts : "?");
    return 0;
  }
  const EGLint attrs[] = {EGL_GL_TEXTURE_LEVEL_KHR, 0, EGL_NONE};
  *img = create(dpy, c->egl_context, EGL_GL_TEXTURE_2D_KHR, (EGLClientBuffer)(uintptr_t)tex, attrs);
  if (*img == EGL_NO_IMAGE_KHR) {
    printf("FAIL eglCreateImageKHR: 0x%x\n", (unsigned)eglGetError());
    return 0;
  }
  unsigned ext;
  c->f.GenTextures(1, &ext);
  c->f.BindTexture(GL_TEXTURE_EXTERNAL_OES, ext);
  target(GL_TEXTURE_EXTERNAL_OES, *img);
  c->f.BindTexture(GL_TEXTURE_EXTERNAL_OES, 0);
  if (c->f.GetError() != GL_NO_ERROR) {
    printf("FAIL glEGLImageTargetTexture2DOES on GL_TEXTURE_EXTERNAL_OES\n");
    return 0;
  }
  return ext;
}

/* One frame through the ADD graph (input + 0) with binding x; the output into out. */
static tfl_status run(tfl_type type, int IW, int IH, const tfl_image_desc *x, void *out, size_t bytes, char *err, size_t n)
{
  gl_delegate_options o = gl_delegate_defaults();
  o.use_current_context = true;
  o.texture_input = true;
  o.precision = GL_PRECISION_FP32;
  tfl_diag diag;
  tfl_diag_init(&diag);
  o.diag = &diag;
  tfl_delegate *d = gl_delegate_create(&o);
  op_runner r;
  int32_t gin[1];
  int y;
  int in = glt_texture_add_graph(&r, type, IH, IW, gin, &y);
  tfl_status s = d ? glt_run_gl_ext(&r, d, in, x, 1, NULL) : TFL_ERR_BACKEND;
  if (!s && r.tensors[y].bytes == bytes) memcpy(out, r.tensors[y].data, bytes);
  else if (!s) s = TFL_ERR_SHAPE;
  snprintf(err, n, "%s", diag.error[0] ? diag.error : r.diag.error);
  op_runner_free(&r);
  if (d) d->destroy(d);
  return s;
}

static void test_external(gl_context *c, tfl_type type, fit_mode fit)
{
  const int TW = 37, TH = 23, IW = 16, IH = 12;
  uint8_t *px = malloc((size_t)TW * TH * 4);
  for (int i = 0; i < TW * TH * 4; i++) px[i] = (uint8_t)((i * 41 + (i / 4) * 13 + 7) & 0xff);
  unsigned tex;
  c->f.GenTextures(1, &tex);
  c->f.BindTexture(GL_TEXTURE_2D, tex);
  c->f.TexStorage2D(GL_TEXTURE_2D, 1, GL_RGBA8, TW, TH);
  c->f.TexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, TW, TH, GL_RGBA, GL_UNSIGNED_BYTE, px);
  c->f.BindTexture(GL_TEXTURE_2D, 0);
  EGLImageKHR img = EGL_NO_IMAGE_KHR;
  unsigned ext = external_of(c, tex, &img);

  tfl_transform tr = preprocess_transform(TW, TH, IW, IH, fit);
  pix_norm norm = {{127.5f, 120.0f, 100.0f}, {127.5f, 60.0f, 50.0f}};
  tfl_image_desc x = {.handle = tex, .width = TW, .height = TH, .affine = {tr.scale_x, 0, tr.off_x, 0, tr.scale_y, tr.off_y}};
  for (int ch = 0; ch < 3; ch++) {
    x.mean[ch] = norm.mean[ch];
    x.std[ch] = norm.std[ch];
  }
  size_t es = type == TFL_TYPE_FLOAT32 ? 4 : 1, n = (size_t)IW * IH * 3, bytes = n * es;
  void *a = calloc(1, bytes), *b = calloc(1, bytes), *want = calloc(1, bytes);
  char ea[512], eb[512];
  tfl_status sa = run(type, IW, IH, &x, a, bytes, ea, sizeof ea);
  x.handle = ext;
  x.external = true;
  tfl_status sb = ext ? run(type, IW, IH, &x, b, bytes, eb, sizeof eb) : TFL_ERR_BACKEND;
  if (!ext) snprintf(eb, sizeof eb, "no external texture");

  tfl_tensor t = {0};
  t.type = type;
  t.ndim = 4;
  t.dims[0] = 1;
  t.dims[1] = IH;
  t.dims[2] = IW;
  t.dims[3] = 3;
  t.bytes = bytes;
  t.data = want;
  float qs = 0.0078125f;
  int32_t qz = 128;
  if (type == TFL_TYPE_UINT8) {
    t.q.n = 1;
    t.q.scale = &qs;
    t.q.zero_point = &qz;
  }
  pix_frame f = {PIX_RGBA, TW, TH, {px, NULL, NULL}, {TW * 4, 0, 0}};
  preprocess_frame(&f, &tr, &norm, &t);
  double worst = 0;
  for (size_t i = 0; i < n && !sb; i++) {
    double e = type == TFL_TYPE_FLOAT32 ? (double)((float *)want)[i] - ((float *)b)[i]
                                        : (double)((uint8_t *)want)[i] - ((uint8_t *)b)[i];
    if (e < 0) e = -e;
    if (e > worst) worst = e;
  }
  double tol = type == TFL_TYPE_FLOAT32 ? 1e-4 : 1.0; /* uint8: a bilinear mix's rounding may differ by 1 */
  const char *fn = fit == FIT_LETTERBOX ? "letterbox" : fit == FIT_CROP ? "crop" : "stretch";
  CHECK(sb == TFL_OK && worst <= tol, "external-OES %dx%d -> %s [1,%d,%d,3] %s: max difference from CPU "
        "preprocessing %.3g%s%s", TW, TH, tfl_type_name(type), IH, IW, fn, worst, sb ? ": " : "", sb ? eb : "");
  CHECK(sa == TFL_OK && sb == TFL_OK && !memcmp(a, b, bytes), "external-OES and 2D texture of the same pixels (%s, %s): "
        "identical outputs%s%s", tfl_type_name(type), fn, sa ? ": 2D: " : "", sa ? ea : "");

  /* the driver converts an external image's format: no YUV layout on it */
  x.layout = TFL_IMAGE_NV12;
  x.planes[0] = tex;
  tfl_status sy = run(type, IW, IH, &x, b, bytes, eb, sizeof eb);
  CHECK(sy != TFL_OK && strstr(eb, "external-OES"), "external-OES texture with layout NV12 refused: %s", eb);

  if (ext) c->f.DeleteTextures(1, &ext);
  if (img != EGL_NO_IMAGE_KHR) {
    PFNEGLDESTROYIMAGEKHRPROC destroy = (PFNEGLDESTROYIMAGEKHRPROC)eglGetProcAddress("eglDestroyImageKHR");
    if (destroy) destroy(c->egl_display, img);
  }
  c->f.DeleteTextures(1, &tex);
  free(a);
  free(b);
  free(want);
  free(px);
}

int main(void)
{
  gl_context *c;
  tfl_diag diag;
  tfl_diag_init(&diag);
  if (gl_context_create(false, GL_EGL_AUTO, &c, &diag)) {
    printf("FAIL: no headless context: %s\n", diag.error);
    return 1;
  }
  printf("     %s, %s\n", c->version, c->renderer);
  CHECK(c->oes_external, "the context offers GL_OES_EGL_image_external_essl3");
  if (c->oes_external) {
    test_external(c, TFL_TYPE_FLOAT32, FIT_LETTERBOX);
    test_external(c, TFL_TYPE_FLOAT32, FIT_CROP);
    test_external(c, TFL_TYPE_UINT8, FIT_STRETCH);
  }
  gl_context_free(c);
  printf("%d failure(s)\n", fails);
  return fails != 0;
}
