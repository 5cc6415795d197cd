/* test_gl_api.c - the GL delegate's behaviour around the ops: errors (no context,
 * shader compile failure, out of memory), the program cache (miss, hit, corrupt and
 * foreign files), the caller's-context mode, and the texture input against the CPU
 * preprocessing of the same pixels (preprocess/preprocess.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <dirent.h>

#include "delegates/gl/gl_context.h"
#include "delegates/gl/gl_program.h"
#include "gl_test_util.h"
#include "decoders/tfl_region.h"
#include "preprocess/preprocess.h"
#include "crop_ref.h"

static int fails;
#define CHECK(cond, ...)                                                                                               \
  do {                                                                                                                 \
    if (cond) {                                                                                                        \
      printf("ok   ");                                                                                                 \
    } else {                                                                                                           \
      printf("FAIL ");                                                                                                 \
      fails++;                                                                                                         \
    }                                                                                                                  \
    printf(__VA_ARGS__);                                                                                               \
    printf("\n");                                                                                                      \
  } while (0)

static void test_no_context(void)
{
  gl_delegate_options o = gl_delegate_defaults();
  o.use_current_context = true;
  tfl_diag diag;
  tfl_diag_init(&diag);
  o.diag = &diag;
  tfl_delegate *d = gl_delegate_create(&o);
  CHECK(!d && strstr(diag.error, "no EGL context is current"), "no current context: \"%s\"", diag.error);
  if (d) d->destroy(d);
}

static void test_compile_error(gl_context *c)
{
  unsigned prog = 0;
  tfl_diag diag;
  tfl_diag_init(&diag);
  tfl_status s = gl_program_compile(c, "#version 310 es\nlayout(local_size_x = 1) in;\nvoid main() { undefined_thing = 1; }\n",
                                    "node 3 (TEST)", &prog, &diag);
  CHECK(s == TFL_ERR_BACKEND && strstr(diag.error, "node 3 (TEST)") && strstr(diag.error, "undefined_thing"),
        "compile failure: \"%s\"", diag.error);
}

static void test_out_of_memory(gl_context *c)
{
  unsigned buf;
  c->f.GenBuffers(1, &buf);
  c->f.BindBuffer(GL_SHADER_STORAGE_BUFFER, buf);
  c->f.BufferData(GL_SHADER_STORAGE_BUFFER, (GLsizeiptr)1 << 46, NULL, GL_DYNAMIC_COPY);
  tfl_diag diag;
  tfl_diag_init(&diag);
  tfl_status s = gl_check(c, "allocating 64 TiB", &diag);
  CHECK(s == TFL_ERR_NOMEM || s == TFL_ERR_BACKEND, "huge buffer: %s \"%s\"", tfl_status_name(s), diag.error);
  c->f.DeleteBuffers(1, &buf);
}

/* A small conv graph; `k` changes the filter size (and so the programs). */
static void conv_graph(op_runner *r, int k)
{
  unsigned seed = 99;
  float v[4 * 5 * 5 * 3];
  op_runner_init(r, TFL_OP_CONV_2D);
  glt_fill(v, 1 * 6 * 6 * 3, -1, 1, &seed);
  int x = op_runner_tensor(r, TFL_TYPE_FLOAT32, 4, (int32_t[]){1, 6, 6, 3}, v, false);
  glt_fill(v, (size_t)4 * k * k * 3, -1, 1, &seed);
  int w = op_runner_tensor(r, TFL_TYPE_FLOAT32, 4, (int32_t[]){4, k, k, 3}, v, true);
  glt_fill(v, 4, -1, 1, &seed);
  int b = op_runner_tensor(r, TFL_TYPE_FLOAT32, 1, (int32_t[]){4}, v, true);
  int y = op_runner_tensor(r, TFL_TYPE_FLOAT32, 4, (int32_t[]){1, 6, 6, 4}, NULL, false);
  op_runner_io(r, (int[]){x, w, b}, 3, (int[]){y}, 1);
  r->node.p.conv = (tfl_conv_params){TFL_PAD_SAME, 1, 1, 1, 1, 0, TFL_ACT_NONE};
}

static int cache_run(const char *dir, int k, const char *what, int want)
{
  gl_delegate_options o = gl_delegate_defaults();
  o.cache_dir = dir;
  o.precision = GL_PRECISION_FP32;
  tfl_delegate *d = gl_delegate_create(&o);
  op_runner r;
  conv_graph(&r, k);
  char name[96];
  snprintf(name, sizeof name, "cache %s", what);
  int bad = glt_compare(name, &r, d, 1e-4f);
  gl_delegate_stats st;
  gl_delegate_get_stats(d, &st);
  static const char *names[] = {"off", "miss", "hit", "corrupt"};
  CHECK(!bad && st.cache == want, "cache %s: %s (want %s), programs in %.1f ms", what, names[st.cache], names[want],
        st.compile_ms);
  op_runner_free(&r);
  d->destroy(d);
  return st.cache;
}

/* The single cache file in dir (there is one per model/options/driver/program set). */
static int cache_file(const char *dir, char *path, size_t n)
{
  DIR *dp = opendir(dir);
  int count = 0;
  struct dirent *e;
  while (dp && (e = readdir(dp)))
    if (strncmp(e->d_name, "tflgl-", 6) == 0) {
      snprintf(path, n, "%s/%s", dir, e->d_name);
      count++;
    }
  if (dp) closedir(dp);
  return count;
}

static void test_cache(void)
{
  char dir[] = "/tmp/tflgl-cache-XXXXXX";
  if (!mkdtemp(dir)) {
    CHECK(0, "mkdtemp");
    return;
  }
  char path[512];
  cache_run(dir, 3, "first run", 1);
  CHECK(cache_file(dir, path, sizeof path) == 1, "one cache file written");
  cache_run(dir, 3, "second run", 2);
  /* corrupt: flip bytes in the middle of the binary */
  FILE *f = fopen(path, "r+b");
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  fseek(f, 24, SEEK_SET);
  for (long i = 24; i < size; i++) fputc(0x5a, f);
  fclose(f);
  cache_run(dir, 3, "corrupt file", 3);
  cache_run(dir, 3, "rewritten after corruption", 2);
  /* foreign: a valid header with another key under this file's name */
  f = fopen(path, "r+b");
  fseek(f, 8, SEEK_SET);
  fputc(0x77, f);
  fclose(f);
  cache_run(dir, 3, "foreign file", 3);
  /* a changed model misses cleanly (a second file) */
  cache_run(dir, 5, "changed model", 1);
  CHECK(cache_file(dir, path, sizeof path) == 2, "a second cache file for the changed model");
  DIR *dp = opendir(dir);
  struct dirent *e;
  while (dp && (e = readdir(dp))) {
    if (e->d_name[0] == '.') continue;
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    unlink(path);
  }
  if (dp) closedir(dp);
  rmdir(dir);
}

/* ADD(x, 0) with x fed by the texture: the output is the input tensor the shader made.
 * `region` (may be NULL): a rotated region (tfl_region) instead of the fit mode; then the
 * tensor is also checked against the tests' own crop (crop_ref.h). */
static void test_texture(gl_context *c, tfl_type type, fit_mode fit, const tfl_region *region)
{
  const int TW = 37, TH = 23, IW = 16, IH = 12;
  uint8_t *px = malloc((size_t)TW * TH * 4);
  for (int i = 0; i < TW * TH * 4; i++) px[i] = (uint8_t)((i * 37 + (i / 4) * 11) & 0xff);
  unsigned tex;
  c->f.GenTextures(1, &tex);
  c->f.BindTexture(GL_TEXTURE_2D, tex);
  c->f.TexStorage2D(GL_TEXTURE_2D, 1, GL_RGBA8, TW, TH);
  c->f.TexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, TW, TH, GL_RGBA, GL_UNSIGNED_BYTE, px);
  c->f.TexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);

  gl_delegate_options o = gl_delegate_defaults();
  o.use_current_context = true; /* the caller's context: ours, current on this thread */
  o.texture_input = true;
  o.precision = GL_PRECISION_FP32;
  tfl_diag diag; /* set_input_texture's errors; the partition's go to r.diag */
  tfl_diag_init(&diag);
  o.diag = &diag;
  tfl_delegate *d = gl_delegate_create(&o);
  op_runner r;
  op_runner_init(&r, TFL_OP_ADD);
  int x = op_runner_tensor(&r, type, 4, (int32_t[]){1, IH, IW, 3}, NULL, false);
  int z = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 1, (int32_t[]){1}, NULL, true);
  int y = op_runner_tensor(&r, type, 4, (int32_t[]){1, IH, IW, 3}, NULL, false);
  if (type == TFL_TYPE_UINT8) {
    op_runner_quant(&r, x, 1, (float[]){0.0078125f}, (int32_t[]){128}, 0);
    op_runner_quant(&r, y, 1, (float[]){0.0078125f}, (int32_t[]){128}, 0);
  }
  op_runner_io(&r, (int[]){x, z}, 2, (int[]){y}, 1);
  int32_t gin[1] = {x};
  r.graph.inputs = gin;
  r.graph.n_inputs = 1;

  tfl_transform tr = region ? tfl_region_transform(region, IW, IH, TW, TH, false)
                            : preprocess_transform(TW, TH, IW, IH, fit);
  pix_norm norm = {{127.5f, 120.0f, 100.0f}, {127.5f, 60.0f, 50.0f}};
  gl_texture_input ti = {tex, TW, TH, tr.scale_x, tr.scale_y, tr.off_x, tr.off_y, {0}, {0}};
  ti.shear_x = tr.shear_x;
  ti.shear_y = tr.shear_y;
  for (int ch = 0; ch < 3; ch++) {
    ti.mean[ch] = norm.mean[ch];
    ti.std[ch] = norm.std[ch];
  }
  tfl_status s = gl_delegate_set_input_texture(d, &ti);
  if (s == TFL_OK) s = glt_run_gl(&r, d);
  tfl_tensor want = r.tensors[x];
  want.data = calloc(1, want.bytes);
  pix_frame f = {PIX_RGBA, TW, TH, {px, NULL, NULL}, {TW * 4, 0, 0}};
  preprocess_frame(&f, &tr, &norm, &want);
  double worst = 0;
  size_t n = tfl_tensor_count(&want);
  for (size_t i = 0; i < n; i++) {
    double e = type == TFL_TYPE_FLOAT32 ? (double)((float *)want.data)[i] - ((float *)r.tensors[y].data)[i]
                                        : (double)((uint8_t *)want.data)[i] - ((uint8_t *)r.tensors[y].data)[i];
    if (e < 0) e = -e;
    if (e > worst) worst = e;
  }
  double tol = type == TFL_TYPE_FLOAT32 ? 1e-4 : 1.0; /* uint8: rounding of a bilinear mix may differ by 1 */
  char what[96];
  if (region)
    snprintf(what, sizeof what, "region %.1fx%.1f at (%.1f,%.1f) turned %.2f rad", region->w, region->h, region->cx,
             region->cy, region->angle);
  else
    snprintf(what, sizeof what, "%s", fit == FIT_LETTERBOX ? "letterbox" : fit == FIT_CROP ? "crop" : "stretch");
  CHECK(s == TFL_OK && worst <= tol, "texture %dx%d -> %s [1,%d,%d,3] %s: max difference from CPU preprocessing %.3g%s%s",
        TW, TH, tfl_type_name(type), IH, IW, what, worst, s ? ": " : "", s ? (diag.error[0] ? diag.error : r.diag.error) : "");
  if (region && type == TFL_TYPE_FLOAT32) {
    /* the GL tensor against the tests' own crop of the same region */
    crop_pt tl, tr_, bl;
    crop_ref_corners(region->cx, region->cy, region->w, region->h, region->angle, &tl, &tr_, &bl);
    double *ref = malloc(sizeof(double) * IW * IH * 3);
    crop_ref(px, TW, TH, 4, TW * 4, tl, tr_, bl, IW, IH, ref);
    double worst_ref = 0;
    int outside = 0;
    for (int i = 0; i < IW * IH * 3; i++) {
      double e = fabs((ref[i] - norm.mean[i % 3]) / norm.std[i % 3] - ((float *)r.tensors[y].data)[i]);
      if (e > worst_ref) worst_ref = e;
      outside += ref[i] == 0.0 && i % 3 == 0;
    }
    CHECK(s == TFL_OK && worst_ref <= 1e-4 && outside > 0 && outside < IW * IH,
          "GL %s: max difference from the tests' own crop %.3g (%d of %d pixels outside the texture)", what,
          worst_ref, outside, IW * IH);
    free(ref);
  }
  free(want.data);
  op_runner_free(&r);
  d->destroy(d);
  c->f.DeleteTextures(1, &tex);
  free(px);
}

int main(void)
{
  test_no_context();
  gl_context *c;
  tfl_diag diag;
  tfl_diag_init(&diag);
  if (gl_context_create(false, &c, &diag)) {
    printf("FAIL: no headless context: %s\n", diag.error);
    return 1;
  }
  printf("     %s, %s\n", c->version, c->renderer);
  test_compile_error(c);
  test_out_of_memory(c);
  test_texture(c, TFL_TYPE_FLOAT32, FIT_LETTERBOX, NULL);
  test_texture(c, TFL_TYPE_FLOAT32, FIT_CROP, NULL);
  test_texture(c, TFL_TYPE_FLOAT32, FIT_STRETCH, NULL);
  test_texture(c, TFL_TYPE_UINT8, FIT_LETTERBOX, NULL);
  /* rotated, scaled regions reaching past the texture's corner, both turn directions */
  const tfl_region rot[] = {{30.0f, 18.0f, 20.0f, 14.0f, 0.6f}, {8.0f, 6.0f, 25.0f, 19.0f, -2.3f}};
  for (int i = 0; i < 2; i++) test_texture(c, TFL_TYPE_FLOAT32, FIT_STRETCH, &rot[i]);
  test_texture(c, TFL_TYPE_UINT8, FIT_STRETCH, &rot[0]);
  test_cache();
  gl_context_free(c);
  printf("%d failure(s)\n", fails);
  return fails != 0;
}
