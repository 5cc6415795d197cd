/* tfl_ultralytics.c - Ultralytics' metadata.json, appended to its exports as a zip.
 *
 * YOLO("...").export(format="litert") writes the flatbuffer, then a zip archive holding
 * one deflated entry, `metadata.json`: a JSON object with (among others) "task"
 * ("detect", "segment", "pose", "obb", "classify"), "imgsz" ([h, w]), "stride" (the
 * largest), "names" ({"0": "person", ...}), "end2end" (true for the NMS-free heads of
 * YOLOv10 / YOLO26) and, for pose, "kpt_shape" ([17, 3]). We read those into
 * g->meta.ultralytics and the names into g->meta.labels.
 *
 * The JSON reader below is a small checked recursive-descent one: it reads the few
 * keys we want and skips everything else; nesting depth and sizes are bounded. A
 * malformed file is a warning and leaves what was read so far.
 */
#include "tfl_loader_priv.h"
#include "tfl_zip.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define META_ENTRY "metadata.json"
#define META_MAX_BYTES (4u << 20)
#define MAX_DEPTH 32
#define MAX_NAMES 100000
#define MAX_NAME_BYTES 256

typedef struct {
  const char *p, *end;
  const char *err;   /* first problem, NULL while fine */
} json;

typedef struct {
  long index;
  char *text;
} class_name;

static void fail(json *j, const char *why)
{
  if (!j->err) j->err = why;
  j->p = j->end;
}

static void ws(json *j)
{
  while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r')) j->p++;
}

static bool eat(json *j, char c)
{
  ws(j);
  if (j->p < j->end && *j->p == c) {
    j->p++;
    return true;
  }
  return false;
}

static void put_utf8(char *dst, size_t cap, size_t *n, unsigned cp)
{
  unsigned char b[4];
  size_t k;
  if (cp < 0x80) { b[0] = (unsigned char)cp; k = 1; }
  else if (cp < 0x800) { b[0] = (unsigned char)(0xC0 | cp >> 6); b[1] = (unsigned char)(0x80 | (cp & 0x3F)); k = 2; }
  else if (cp < 0x10000) {
    b[0] = (unsigned char)(0xE0 | cp >> 12); b[1] = (unsigned char)(0x80 | (cp >> 6 & 0x3F));
    b[2] = (unsigned char)(0x80 | (cp & 0x3F)); k = 3;
  } else {
    b[0] = (unsigned char)(0xF0 | cp >> 18); b[1] = (unsigned char)(0x80 | (cp >> 12 & 0x3F));
    b[2] = (unsigned char)(0x80 | (cp >> 6 & 0x3F)); b[3] = (unsigned char)(0x80 | (cp & 0x3F)); k = 4;
  }
  if (*n + k < cap) {
    memcpy(dst + *n, b, k);
    *n += k;
  }
}

static int hex4(json *j)
{
  if (j->end - j->p < 4) return -1;
  int v = 0;
  for (int i = 0; i < 4; i++) {
    char c = j->p[i];
    int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
    if (d < 0) return -1;
    v = v * 16 + d;
  }
  j->p += 4;
  return v;
}

/* A string into dst (cap bytes with the NUL; longer strings are cut); dst may be NULL
 * to skip it. Control characters (a newline in a class name) become spaces. */
static bool string(json *j, char *dst, size_t cap)
{
  size_t n = 0;
  if (!eat(j, '"')) { fail(j, "a string expected"); return false; }
  while (j->p < j->end && *j->p != '"') {
    unsigned c = (unsigned char)*j->p++;
    if (c == '\\') {
      if (j->p >= j->end) break;
      char e = *j->p++;
      switch (e) {
      case 'n': case 'r': case 't': case 'b': case 'f': c = ' '; break;
      case 'u': {
        int v = hex4(j);
        if (v < 0) { fail(j, "a bad \\u escape"); return false; }
        unsigned cp = (unsigned)v;
        if (cp >= 0xD800 && cp < 0xDC00 && j->end - j->p >= 6 && j->p[0] == '\\' && j->p[1] == 'u') {
          j->p += 2;
          int lo = hex4(j);
          if (lo < 0xDC00 || lo >= 0xE000) { fail(j, "a bad surrogate pair"); return false; }
          cp = 0x10000 + ((cp - 0xD800) << 10) + ((unsigned)lo - 0xDC00);
        }
        if (dst) put_utf8(dst, cap, &n, cp < 0x20 ? ' ' : cp);
        continue;
      }
      default: c = (unsigned char)e; break;
      }
    } else if (c < 0x20) {
      c = ' ';
    }
    if (dst && n + 1 < cap) dst[n++] = (char)c;
  }
  if (j->p >= j->end) { fail(j, "a string runs past the end"); return false; }
  j->p++;
  if (dst && cap) dst[n] = 0;
  return true;
}

static bool number(json *j, double *v)
{
  ws(j);
  char buf[64];
  size_t n = 0;
  while (j->p < j->end && n + 1 < sizeof buf && strchr("+-0123456789.eE", *j->p)) buf[n++] = *j->p++;
  buf[n] = 0;
  char *e;
  *v = strtod(buf, &e);
  if (!n || *e) { fail(j, "a number expected"); return false; }
  return true;
}

static bool literal(json *j, const char *word)
{
  ws(j);
  size_t n = strlen(word);
  if ((size_t)(j->end - j->p) >= n && !memcmp(j->p, word, n)) {
    j->p += n;
    return true;
  }
  return false;
}

static void skip(json *j, int depth)
{
  ws(j);
  if (depth > MAX_DEPTH) { fail(j, "nested too deeply"); return; }
  if (j->p >= j->end) { fail(j, "a value expected"); return; }
  double d;
  switch (*j->p) {
  case '"': string(j, NULL, 0); return;
  case '{':
    j->p++;
    if (eat(j, '}')) return;
    do {
      string(j, NULL, 0);
      if (!eat(j, ':')) { fail(j, "':' expected"); return; }
      skip(j, depth + 1);
    } while (!j->err && eat(j, ','));
    if (!eat(j, '}')) fail(j, "'}' expected");
    return;
  case '[':
    j->p++;
    if (eat(j, ']')) return;
    do skip(j, depth + 1); while (!j->err && eat(j, ','));
    if (!eat(j, ']')) fail(j, "']' expected");
    return;
  default:
    if (literal(j, "true") || literal(j, "false") || literal(j, "null")) return;
    number(j, &d);
  }
}

/* [a, b] (or one number: both) of small ints */
static void int_pair(json *j, int out[2])
{
  double v;
  if (eat(j, '[')) {
    int k = 0;
    if (eat(j, ']')) return;
    do {
      if (!number(j, &v)) return;
      if (k < 2) out[k] = v >= 0 && v < 1e6 ? (int)v : 0;
      k++;
    } while (eat(j, ','));
    if (!eat(j, ']')) fail(j, "']' expected");
    if (k == 1) out[1] = out[0];
  } else if (number(j, &v)) {
    out[0] = out[1] = v >= 0 && v < 1e6 ? (int)v : 0;
  }
}

typedef struct {
  class_name *v;
  int n, cap;
} name_list;

static void add_name(json *j, name_list *l, long index)
{
  char text[MAX_NAME_BYTES];
  if (!string(j, text, sizeof text)) return;
  if (l->n >= MAX_NAMES || index < 0 || index >= MAX_NAMES) { fail(j, "too many class names"); return; }
  if (l->n == l->cap) {
    int cap = l->cap ? 2 * l->cap : 64;
    class_name *v = realloc(l->v, (size_t)cap * sizeof *v);
    if (!v) { fail(j, "out of memory"); return; }
    l->v = v;
    l->cap = cap;
  }
  l->v[l->n].index = index;
  l->v[l->n].text = strdup(text);
  if (!l->v[l->n].text) { fail(j, "out of memory"); return; }
  l->n++;
}

/* {"0": "person", ...} or ["person", ...] */
static void names(json *j, name_list *l)
{
  char key[32];
  if (eat(j, '[')) {
    if (eat(j, ']')) return;
    long i = 0;
    do add_name(j, l, i++); while (!j->err && eat(j, ','));
    if (!eat(j, ']')) fail(j, "']' expected");
    return;
  }
  if (!eat(j, '{')) { fail(j, "names: an object expected"); return; }
  if (eat(j, '}')) return;
  do {
    if (!string(j, key, sizeof key)) return;
    char *e;
    long i = strtol(key, &e, 10);
    if (!key[0] || *e) { fail(j, "names: a key that is not a class index"); return; }
    if (!eat(j, ':')) { fail(j, "':' expected"); return; }
    add_name(j, l, i);
  } while (!j->err && eat(j, ','));
  if (!eat(j, '}')) fail(j, "'}' expected");
}

static int by_index(const void *a, const void *b)
{
  const class_name *x = a, *y = b;
  return (x->index > y->index) - (x->index < y->index);
}

/* Names in index order, one a line; a missing index gets its number. */
static char *labels_text(name_list *l)
{
  qsort(l->v, (size_t)l->n, sizeof *l->v, by_index);
  size_t size = 1;
  long last = l->n ? l->v[l->n - 1].index : -1;
  for (int i = 0; i < l->n; i++) size += strlen(l->v[i].text) + 1;
  size += (size_t)(last + 1) * 12;  /* room for the numbers of gaps */
  char *t = malloc(size), *p = t;
  if (!t) return NULL;
  int k = 0;
  for (long i = 0; i <= last; i++) {
    while (k < l->n && l->v[k].index < i) k++;  /* duplicates: the first wins */
    if (k < l->n && l->v[k].index == i) p += sprintf(p, "%s\n", l->v[k].text);
    else p += sprintf(p, "%ld\n", i);
  }
  *p = 0;
  return t;
}

static void read_object(json *j, tfl_graph *g, name_list *l)
{
  char key[32];
  double v;
  if (!eat(j, '{')) { fail(j, "not a JSON object"); return; }
  if (eat(j, '}')) return;
  do {
    if (!string(j, key, sizeof key)) return;
    if (!eat(j, ':')) { fail(j, "':' expected"); return; }
    if (!strcmp(key, "task")) string(j, g->meta.ultralytics.task, sizeof g->meta.ultralytics.task);
    else if (!strcmp(key, "imgsz")) int_pair(j, g->meta.ultralytics.imgsz);
    else if (!strcmp(key, "kpt_shape")) int_pair(j, g->meta.ultralytics.kpt_shape);
    else if (!strcmp(key, "stride") && number(j, &v)) g->meta.ultralytics.stride = v > 0 && v < 1e4 ? (int)v : 0;
    else if (!strcmp(key, "end2end")) {
      if (literal(j, "true")) g->meta.ultralytics.end2end = 1;
      else if (literal(j, "false")) g->meta.ultralytics.end2end = 0;
      else skip(j, 1);
    } else if (!strcmp(key, "names")) names(j, l);
    else skip(j, 1);
  } while (!j->err && eat(j, ','));
  if (!j->err && !eat(j, '}')) fail(j, "'}' expected");
}

void tfl_read_ultralytics(tfl_graph *g, tfl_diag *diag)
{
  char *text = NULL;
  size_t len = 0;
  const char *why = "";
  g->meta.ultralytics.end2end = -1;
  if (!g->model_bytes) return;
  if (!tfl_zip_read(g->model_bytes, g->model_size, META_ENTRY, META_MAX_BYTES, &text, &len, &why)) {
    /* most models have none: not worth a word; a broken one is */
    if (strcmp(why, TFL_ZIP_NO_ARCHIVE) && strcmp(why, TFL_ZIP_NO_ENTRY))
      tfl_logf(diag, TFL_LOG_WARNING, "Ultralytics %s ignored: %s", META_ENTRY, why);
    return;
  }
  json j = { text, text + len, NULL };
  name_list l = { 0 };
  read_object(&j, g, &l);
  g->meta.ultralytics.present = true;
  g->meta.ultralytics.n_names = l.n;
  if (j.err)
    tfl_logf(diag, TFL_LOG_WARNING, "Ultralytics metadata.json partly read: %s at byte %zu", j.err,
             (size_t)(j.p - text));
  if (l.n > 0 && !g->meta.labels) g->meta.labels = labels_text(&l);
  for (int i = 0; i < l.n; i++) free(l.v[i].text);
  free(l.v);
  free(text);
}
