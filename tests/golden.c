/* golden.c - inputs as the oracle makes them, golden-file reading and comparison,
 * and cutting a model before its last op. See golden.h.
 *
 * Built with -ffp-contract=off: the picture resize must round like the oracle's
 * JavaScript (no fused multiply-add).
 */
#include "golden.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t golden_type_size(int type)
{
  switch (type) {
  case GOLDEN_I64: case GOLDEN_C64: return 8;
  case GOLDEN_F32: case GOLDEN_I32: return 4;
  case GOLDEN_I16: return 2;
  case GOLDEN_U8: case GOLDEN_I8: case GOLDEN_BOOL: return 1;
  }
  return 0;
}

static const struct { int type; const char *name; } type_names[] = {
  { GOLDEN_F32, "float32" }, { GOLDEN_I32, "int32" }, { GOLDEN_U8, "uint8" },
  { GOLDEN_I8, "int8" }, { GOLDEN_BOOL, "bool" }, { GOLDEN_I64, "int64" }, { GOLDEN_I16, "int16" },
  { GOLDEN_C64, "complex64" },
};

int golden_type_from_name(const char *name)
{
  for (size_t i = 0; i < sizeof type_names / sizeof type_names[0]; i++)
    if (strcmp(type_names[i].name, name) == 0) return type_names[i].type;
  return -1;
}

const char *golden_type_name(int type)
{
  for (size_t i = 0; i < sizeof type_names / sizeof type_names[0]; i++)
    if (type_names[i].type == type) return type_names[i].name;
  return "?";
}

/* ---- gauss: mulberry32 + Box-Muller, as oracle.mjs ---- */

void golden_rng_seed(golden_rng *r, uint32_t seed) { r->state = seed; }

double golden_rng_uniform(golden_rng *r)
{
  /* JavaScript's Math.imul and >>> are 32-bit wrapping operations: uint32_t does the same. */
  r->state += 0x6d2b79f5u;
  uint32_t t = r->state;
  t = (t ^ (t >> 15)) * (t | 1u);
  t ^= t + (t ^ (t >> 7)) * (t | 61u);
  return (double)(t ^ (t >> 14)) / 4294967296.0;
}

double golden_rng_normal(golden_rng *r)
{
  double u1 = golden_rng_uniform(r);   /* drawn first: the left operand in the oracle */
  if (u1 == 0) u1 = 1e-12;
  double u2 = golden_rng_uniform(r);
  return sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}

/* JavaScript's Math.round: halves go up. */
static double js_round(double v) { return floor(v + 0.5); }

static double clampd(double v, double lo, double hi) { return v < lo ? lo : v > hi ? hi : v; }

bool golden_fill_gauss(golden_rng *r, int type, float scale, int32_t zero_point, void *out, size_t n)
{
  for (size_t i = 0; i < n; i++) {
    double z = golden_rng_normal(r);
    double q = scale != 0 ? js_round(z / (double)scale + zero_point) : js_round(z);
    switch (type) {
    case GOLDEN_F32: ((float *)out)[i] = (float)z; break;
    case GOLDEN_U8: ((uint8_t *)out)[i] = (uint8_t)clampd(q, 0, 255); break;
    case GOLDEN_I8: ((int8_t *)out)[i] = (int8_t)clampd(q, -128, 127); break;
    case GOLDEN_I32: ((int32_t *)out)[i] = (int32_t)clampd(q, -2147483648.0, 2147483647.0); break;
    case GOLDEN_I64: ((int64_t *)out)[i] = (int64_t)q; break;
    case GOLDEN_I16: ((int16_t *)out)[i] = (int16_t)clampd(q, -32768, 32767); break;
    case GOLDEN_BOOL: ((uint8_t *)out)[i] = z > 0; break;   /* ours: the oracle has no bool inputs */
    default:
      fprintf(stderr, "golden: gauss input of type %s is not supported\n", golden_type_name(type));
      return false;
    }
  }
  return true;
}

/* ---- pictures ---- */

bool golden_picture_load(const char *path, golden_picture *pic)
{
  png_image img;
  memset(&img, 0, sizeof img);
  img.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_file(&img, path)) {
    fprintf(stderr, "golden: %s: %s\n", path, img.message);
    return false;
  }
  /* The oracle ignores alpha; libpng's simplified API would composite it, so take RGBA
   * and drop the alpha byte ourselves. */
  img.format = PNG_FORMAT_RGBA;
  size_t n = (size_t)img.width * img.height;
  uint8_t *rgba = malloc(n * 4);
  pic->rgb = malloc(n * 3);
  if (!rgba || !pic->rgb || !png_image_finish_read(&img, NULL, rgba, 0, NULL)) {
    fprintf(stderr, "golden: %s: %s\n", path, rgba && pic->rgb ? img.message : "out of memory");
    png_image_free(&img);
    free(rgba);
    free(pic->rgb);
    pic->rgb = NULL;
    return false;
  }
  for (size_t i = 0; i < n; i++) memcpy(pic->rgb + 3 * i, rgba + 4 * i, 3);
  free(rgba);
  pic->width = (int)img.width;
  pic->height = (int)img.height;
  return true;
}

void golden_picture_free(golden_picture *pic)
{
  free(pic->rgb);
  pic->rgb = NULL;
}

/* Source coordinate of output pixel `o` (half-pixel centers, clamped), as image.mjs. */
static void source_coord(int o, double scale, int in, int *i0, int *i1, double *w)
{
  double f = (o + 0.5) * scale - 0.5;
  f = f < 0 ? 0 : f > in - 1 ? in - 1 : f;
  *i0 = (int)floor(f);
  *i1 = *i0 + 1 < in - 1 ? *i0 + 1 : in - 1;
  *w = f - *i0;
}

bool golden_fill_picture(const golden_picture *pic, int w, int h, int type, double lo, double hi,
                         void *out)
{
  const int in_w = pic->width, in_h = pic->height;
  const double sx = (double)in_w / w, sy = (double)in_h / h;
  for (int y = 0; y < h; y++) {
    int y0, y1;
    double wy;
    source_coord(y, sy, in_h, &y0, &y1, &wy);
    for (int x = 0; x < w; x++) {
      int x0, x1;
      double wx;
      source_coord(x, sx, in_w, &x0, &x1, &wx);
      for (int c = 0; c < 3; c++) {
#define P(yy, xx) ((double)pic->rgb[((size_t)(yy) * in_w + (xx)) * 3 + c])
        double top = P(y0, x0) * (1 - wx) + P(y0, x1) * wx;
        double bottom = P(y1, x0) * (1 - wx) + P(y1, x1) * wx;
#undef P
        float v = (float)(top * (1 - wy) + bottom * wy);   /* the oracle keeps a Float32Array */
        size_t i = ((size_t)y * w + x) * 3 + c;
        switch (type) {
        case GOLDEN_F32: ((float *)out)[i] = (float)(lo + ((double)v / 255) * (hi - lo)); break;
        case GOLDEN_U8: ((uint8_t *)out)[i] = (uint8_t)js_round(v); break;
        case GOLDEN_I8: ((int8_t *)out)[i] = (int8_t)(js_round(v) - 128); break;
        default:
          fprintf(stderr, "golden: picture input of type %s is not supported\n", golden_type_name(type));
          return false;
        }
      }
    }
  }
  return true;
}

uint64_t golden_fnv1a(const void *data, size_t n)
{
  const uint8_t *p = data;
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ull;
  return h;
}

/* ---- golden files ---- */

uint8_t *golden_read_file(const char *path, size_t *size)
{
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "golden: cannot open %s: %s\n", path, strerror(errno));
    return NULL;
  }
  uint8_t *buf = NULL;
  size_t cap = 0, n = 0;
  for (;;) {
    if (n == cap) {
      cap = cap ? cap * 2 : 1 << 16;
      uint8_t *nb = realloc(buf, cap + 1);
      if (!nb) { free(buf); fclose(f); fprintf(stderr, "golden: out of memory\n"); return NULL; }
      buf = nb;
    }
    size_t got = fread(buf + n, 1, cap - n, f);
    n += got;
    if (got == 0) break;
  }
  bool err = ferror(f);
  fclose(f);
  if (err) {
    free(buf);
    fprintf(stderr, "golden: error reading %s\n", path);
    return NULL;
  }
  buf[n] = 0;   /* text files become C strings */
  *size = n;
  return buf;
}

/* A cursor over the golden text: words and rest-of-line strings. */
typedef struct {
  char *p;
  const char *path;
  int line;
} reader;

static void skip_space(reader *r, bool newlines)
{
  while (*r->p == ' ' || *r->p == '\t' || *r->p == '\r' || (newlines && *r->p == '\n')) {
    if (*r->p == '\n') r->line++;
    r->p++;
  }
}

/* Next word on this or later lines (NUL-terminated in place); NULL at end. */
static char *word(reader *r)
{
  skip_space(r, true);
  if (!*r->p) return NULL;
  char *s = r->p;
  while (*r->p && !isspace((unsigned char)*r->p)) r->p++;
  if (*r->p) {
    if (*r->p == '\n') r->line++;
    *r->p++ = 0;
  }
  return s;
}

/* The rest of the current line, without leading blanks. */
static char *rest_of_line(reader *r)
{
  skip_space(r, false);
  char *s = r->p;
  while (*r->p && *r->p != '\n') r->p++;
  if (*r->p) { *r->p++ = 0; r->line++; }
  size_t n = strlen(s);
  while (n && (s[n - 1] == '\r' || s[n - 1] == ' ')) s[--n] = 0;
  return s;
}

static bool parse_error(reader *r, const char *what)
{
  fprintf(stderr, "golden: %s:%d: %s\n", r->path, r->line, what);
  return false;
}

static bool number(reader *r, double *v)
{
  char *w = word(r), *end;
  if (!w) return parse_error(r, "unexpected end of file");
  errno = 0;
  *v = strtod(w, &end);
  if (*end || end == w) return parse_error(r, "expected a number");
  return true;
}

static bool integer(reader *r, long long lo, long long hi, long long *v)
{
  double d;
  if (!number(r, &d)) return false;
  if (d != floor(d) || d < (double)lo || d > (double)hi) return parse_error(r, "integer out of range");
  *v = (long long)d;
  return true;
}

static bool expect(reader *r, const char *kw)
{
  char *w = word(r);
  if (!w || strcmp(w, kw) != 0) {
    char msg[160];
    snprintf(msg, sizeof msg, "expected '%s', found '%s'", kw, w ? w : "end of file");
    return parse_error(r, msg);
  }
  return true;
}

static bool read_output(reader *r, golden_output *o)
{
  long long v;
  if (!expect(r, "name")) return false;
  o->name = strdup(rest_of_line(r));
  if (!expect(r, "type")) return false;
  char *t = word(r);
  o->type = t ? golden_type_from_name(t) : -1;
  if (o->type < 0) return parse_error(r, "unknown type");
  if (!expect(r, "shape") || !integer(r, 0, 8, &v)) return false;
  o->ndim = (int)v;
  size_t count = 1;
  for (int d = 0; d < o->ndim; d++) {
    if (!integer(r, 0, 1 << 30, &v)) return false;
    o->dims[d] = (int)v;
    count *= (size_t)v;
  }
  double s;
  if (!expect(r, "quant") || !number(r, &s) || !integer(r, -(1LL << 31), (1LL << 31) - 1, &v))
    return false;
  o->scale = (float)s;
  o->zero_point = (int32_t)v;
  if (!expect(r, "count") || !integer(r, 0, 1LL << 40, &v)) return false;
  o->count = (size_t)v;
  if (o->type == GOLDEN_C64) count *= 2;   /* (real, imaginary) floats */
  if (o->count != count) return parse_error(r, "count does not match the shape");
  if (!expect(r, "stats") || !number(r, &o->sum) || !number(r, &o->min) || !number(r, &o->max) ||
      !integer(r, 0, 1LL << 40, &v))
    return false;
  o->argmax = (size_t)v;
  char *w;
  while ((w = word(r)) && strcmp(w, "samples") != 0) {
    double *dst = strcmp(w, "spread") == 0 ? &o->spread : strcmp(w, "lsb") == 0 ? &o->lsb : NULL;
    if (!dst) return parse_error(r, "expected 'spread', 'lsb' or 'samples'");
    if (!number(r, dst)) return false;
  }
  if (!w || strcmp(w, "samples") != 0) return parse_error(r, "expected 'samples'");
  if (!integer(r, 1, 1LL << 40, &v)) return false;
  o->stride = (size_t)v;
  if (!integer(r, 0, 1 << 24, &v)) return false;
  o->n_samples = (size_t)v;
  if (o->n_samples != (o->count + o->stride - 1) / o->stride)
    return parse_error(r, "sample count does not match count and stride");
  o->samples = malloc((o->n_samples + 1) * sizeof(double));
  if (!o->samples) return parse_error(r, "out of memory");
  for (size_t i = 0; i < o->n_samples; i++)
    if (!number(r, &o->samples[i])) return false;
  return true;
}

bool golden_read(const char *path, golden_case *gc)
{
  memset(gc, 0, sizeof *gc);
  size_t size;
  char *text = (char *)golden_read_file(path, &size);
  if (!text) return false;
  reader r = { text, path, 1 };
  bool ok = false;
  long long v;
  char *w;

  if (!expect(&r, "golden") || !expect(&r, "1")) goto out;
  while ((w = word(&r)) && strcmp(w, "outputs") != 0) {
    if (strcmp(w, "model") == 0) gc->model = strdup(rest_of_line(&r));
    else if (strcmp(w, "sha256") == 0) gc->sha256 = strdup(rest_of_line(&r));
    else if (strcmp(w, "runtime") == 0) gc->runtime = strdup(rest_of_line(&r));
    else if (strcmp(w, "cut") == 0) gc->cut = strdup(rest_of_line(&r));
    else if (strcmp(w, "input") == 0) {
      char *kind = word(&r);
      if (!kind) { parse_error(&r, "input without a kind"); goto out; }
      gc->input_kind = strdup(kind);
      if (strcmp(kind, "gauss") == 0) {
        if (!integer(&r, 0, UINT32_MAX, &v)) goto out;
        gc->seed = (uint32_t)v;
      } else if (strcmp(kind, "picture") == 0) {
        char *pic = word(&r);
        if (!pic) { parse_error(&r, "picture without a file"); goto out; }
        gc->picture = strdup(pic);
        if (!number(&r, &gc->lo) || !number(&r, &gc->hi)) goto out;
      } else {
        parse_error(&r, "input is gauss or picture");
        goto out;
      }
    } else if (strcmp(w, "input_hash") == 0) {
      if (!integer(&r, 0, 7, &v)) goto out;
      char *h = word(&r);
      if (v != gc->n_inputs || !h) { parse_error(&r, "input_hash out of order"); goto out; }
      gc->input_hash[gc->n_inputs++] = strtoull(h, NULL, 16);
    } else {
      parse_error(&r, "unknown keyword");
      goto out;
    }
  }
  if (!w || !gc->model || !gc->input_kind) { parse_error(&r, "incomplete header"); goto out; }
  if (!integer(&r, 0, 64, &v)) goto out;
  gc->n_outputs = (int)v;
  gc->outputs = calloc((size_t)gc->n_outputs + 1, sizeof *gc->outputs);
  for (int i = 0; i < gc->n_outputs; i++) {
    if (!expect(&r, "output") || !integer(&r, i, i, &v)) goto out;
    if (!read_output(&r, &gc->outputs[i])) goto out;
  }
  if (!expect(&r, "end")) goto out;
  ok = true;
out:
  free(text);
  if (!ok) golden_free(gc);
  return ok;
}

void golden_free(golden_case *gc)
{
  for (int i = 0; gc->outputs && i < gc->n_outputs; i++) {
    free(gc->outputs[i].name);
    free(gc->outputs[i].samples);
  }
  free(gc->outputs);
  free(gc->model);
  free(gc->sha256);
  free(gc->runtime);
  free(gc->cut);
  free(gc->input_kind);
  free(gc->picture);
  memset(gc, 0, sizeof *gc);
}

static double element(int type, const void *data, size_t i)
{
  switch (type) {
  case GOLDEN_F32: case GOLDEN_C64: return ((const float *)data)[i];
  case GOLDEN_I32: return ((const int32_t *)data)[i];
  case GOLDEN_U8: return ((const uint8_t *)data)[i];
  case GOLDEN_I8: return ((const int8_t *)data)[i];
  case GOLDEN_I64: return (double)((const int64_t *)data)[i];
  case GOLDEN_I16: return ((const int16_t *)data)[i];
  case GOLDEN_BOOL: return ((const uint8_t *)data)[i] != 0;
  }
  return NAN;
}

static void note(golden_result *res, double err, size_t index)
{
  /* NaN counts as failed (and as the worst). */
  if (err > res->tol || err != err) res->n_bad++;
  if (err > res->max_err || (err != err && res->max_err == res->max_err)) {
    res->max_err = err;
    res->worst_index = index;
  }
}

golden_result golden_compare(const golden_output *g, const void *data, double abs_tol, double lsb,
                             bool allow_spread)
{
  golden_result res = { 0 };
  bool is_float = g->type == GOLDEN_F32 || g->type == GOLDEN_C64;
  bool exact_type = !is_float || g->scale != 0;
  double range = g->max - g->min;
  /* plain integers (indices, counts, bools: no quantization) match exactly */
  bool plain_int = !is_float && g->scale == 0 && g->type != GOLDEN_U8 && g->type != GOLDEN_I8;
  res.tol = plain_int ? 0 : exact_type ? lsb : abs_tol * (range > 1 ? range : 1);
  if (res.tol < g->lsb) res.tol = g->lsb;   /* float output of a quantized chain */
  if (allow_spread && !exact_type && res.tol < g->spread) res.tol = g->spread;
  for (size_t s = 0; s < g->n_samples; s++) {
    size_t i = s * g->stride;
    note(&res, fabs(element(g->type, data, i) - g->samples[s]), i);
  }
  if (g->count) {
    note(&res, fabs(element(g->type, data, g->argmax) - g->max), g->argmax);
    double sum = 0;
    for (size_t i = 0; i < g->count; i++) sum += element(g->type, data, i);
    /* the mean is compared with the same tolerance; index `count` marks it */
    note(&res, fabs(sum / g->count - g->sum / g->count), g->count);
  }
  res.ok = res.n_bad == 0;
  return res;
}

/* ---- cutting a model before its last op ----
 * Just enough FlatBuffers to find, in a .tflite (schema.fbs): Model.subgraphs (field 2),
 * Model.buffers (4); SubGraph.tensors (0), outputs (2), operators (3); Operator.inputs (1);
 * Tensor.buffer (2); Buffer.data (0). Every read is bounds-checked. */

typedef struct {
  const uint8_t *b;
  size_t n;
  bool bad;
} fb;

static uint32_t fb_u32(fb *f, size_t at)
{
  if (at > f->n || f->n - at < 4) { f->bad = true; return 0; }
  return (uint32_t)f->b[at] | (uint32_t)f->b[at + 1] << 8 | (uint32_t)f->b[at + 2] << 16 |
         (uint32_t)f->b[at + 3] << 24;
}

static uint16_t fb_u16(fb *f, size_t at)
{
  if (at > f->n || f->n - at < 2) { f->bad = true; return 0; }
  return (uint16_t)(f->b[at] | f->b[at + 1] << 8);
}

/* Position of field `id`'s value in the table at `t`, 0 when absent. */
static size_t fb_field(fb *f, size_t t, int id)
{
  int32_t back = (int32_t)fb_u32(f, t);
  int64_t vt = (int64_t)t - back;
  if (vt < 0 || (uint64_t)vt >= f->n) { f->bad = true; return 0; }
  uint16_t vt_size = fb_u16(f, (size_t)vt);
  size_t slot = 4 + 2 * (size_t)id;
  if (slot + 2 > vt_size) return 0;
  uint16_t off = fb_u16(f, (size_t)vt + slot);
  return off ? t + off : 0;
}

/* Follows the offset stored at `at` (a table or vector reference). */
static size_t fb_deref(fb *f, size_t at)
{
  uint64_t to = (uint64_t)at + fb_u32(f, at);
  if (to >= f->n) { f->bad = true; return 0; }
  return (size_t)to;
}

/* Vector for field `id` of table `t`: position of its length word, 0 when absent. */
static size_t fb_vector(fb *f, size_t t, int id)
{
  size_t at = fb_field(f, t, id);
  return at ? fb_deref(f, at) : 0;
}

static size_t fb_vec_len(fb *f, size_t v) { return v ? fb_u32(f, v) : 0; }

static size_t fb_vec_table(fb *f, size_t v, size_t i) { return fb_deref(f, v + 4 + 4 * i); }

uint8_t *golden_cut_last_op(const uint8_t *model, size_t size, size_t *out_size)
{
  fb f = { model, size, false };
  size_t root = fb_deref(&f, 0);
  size_t subgraphs = fb_vector(&f, root, 2), buffers = fb_vector(&f, root, 4);
  if (f.bad || fb_vec_len(&f, subgraphs) < 1) {
    fprintf(stderr, "golden: cut: no subgraph\n");
    return NULL;
  }
  size_t sg = fb_vec_table(&f, subgraphs, 0);
  size_t tensors = fb_vector(&f, sg, 0), ops = fb_vector(&f, sg, 3);
  size_t outputs_field = fb_field(&f, sg, 2);
  size_t n_ops = fb_vec_len(&f, ops), n_tensors = fb_vec_len(&f, tensors);
  if (f.bad || n_ops < 2 || !outputs_field) {
    fprintf(stderr, "golden: cut: subgraph has %zu operators and %s outputs\n", n_ops,
            outputs_field ? "some" : "no");
    return NULL;
  }
  size_t last = fb_vec_table(&f, ops, n_ops - 1);
  size_t ins = fb_vector(&f, last, 1);
  size_t n_ins = fb_vec_len(&f, ins);
  int32_t keep[16];
  size_t n_keep = 0;
  for (size_t i = 0; i < n_ins && !f.bad; i++) {
    int32_t t = (int32_t)fb_u32(&f, ins + 4 + 4 * i);
    if (t < 0 || (size_t)t >= n_tensors) continue;
    size_t tensor = fb_vec_table(&f, tensors, (size_t)t);
    size_t buf_at = fb_field(&f, tensor, 2);
    size_t b = buf_at ? fb_u32(&f, buf_at) : 0;
    bool is_const = false;
    if (b < fb_vec_len(&f, buffers)) {
      size_t data = fb_vector(&f, fb_vec_table(&f, buffers, b), 0);
      is_const = fb_vec_len(&f, data) > 0;
    }
    if (!is_const && n_keep < 16) keep[n_keep++] = t;
  }
  if (f.bad || n_keep == 0) {
    fprintf(stderr, "golden: cut: the last operator has no activation inputs\n");
    return NULL;
  }
  /* Copy, drop the last operator (shorten the vector), append the new outputs vector
   * and point SubGraph.outputs at it (offsets are relative, forward). */
  size_t at = (size + 3) & ~(size_t)3;
  size_t total = at + 4 + 4 * n_keep;
  uint8_t *out = calloc(1, total);
  if (!out) return NULL;
  memcpy(out, model, size);
  uint32_t words[17];
  words[0] = (uint32_t)n_keep;
  for (size_t i = 0; i < n_keep; i++) words[1 + i] = (uint32_t)keep[i];
  uint32_t n_ops_new = (uint32_t)(n_ops - 1);
  uint32_t rel = (uint32_t)(at - outputs_field);
  /* .tflite is little-endian, like every machine we run on */
  memcpy(out + ops, &n_ops_new, 4);
  memcpy(out + outputs_field, &rel, 4);
  memcpy(out + at, words, 4 + 4 * n_keep);
  *out_size = total;
  return out;
}
