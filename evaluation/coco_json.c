/* coco_json.c - see coco_json.h */
#include "coco_json.h"

#include <errno.h>
#include <json-c/json.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eval_error.h"
#include "runtime/tfl_file.h"

/* COCO nests 5 deep (root, annotations, entry, segmentation, polygon). */
#define JSON_DEPTH 32

/* Parses the whole file; NULL with a message on any error. */
static json_object *parse_file(const char *path, char *err, size_t n)
{
  /* tfl_file: a regular file only (a FIFO would block); json-c takes an int length */
  char *text = NULL;
  size_t len = 0;
  tfl_diag d;
  tfl_diag_init(&d);
  if (tfl_file_read(path, "COCO file", (size_t)INT_MAX - 1, &text, &len, &d) != TFL_OK) {
    eval_fail(err, n, "%s", d.error);
    return NULL;
  }
  json_tokener *tok = json_tokener_new_ex(JSON_DEPTH);
  if (!tok) {
    free(text);
    eval_fail(err, n, "%s: out of memory", path);
    return NULL;
  }
  json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
  /* the terminating NUL tells the tokener the input ends there */
  json_object *root = json_tokener_parse_ex(tok, text, (int)len + 1);
  enum json_tokener_error e = json_tokener_get_error(tok);
  size_t end = json_tokener_get_parse_end(tok);
  if (!root || e != json_tokener_success) {
    eval_fail(err, n, "%s: not valid JSON at byte %zu: %s", path, end < len ? end : len,
         e == json_tokener_continue ? "the file ends too early" : json_tokener_error_desc(e));
    json_object_put(root);
    root = NULL;
  } else if (end < len) {
    eval_fail(err, n, "%s: unexpected text after the JSON value at byte %zu", path, end);
    json_object_put(root);
    root = NULL;
  }
  json_tokener_free(tok);
  free(text);
  return root;
}

/* Field readers: each writes a message naming where and returns false on a bad value. */
typedef struct {
  const char *path, *array;
  size_t index;
  char *err;
  size_t err_size;
} where;

static bool bad(const where *w, const char *field, const char *what)
{
  eval_fail(w->err, w->err_size, "%s: %s[%zu].%s %s", w->path, w->array, w->index, field, what);
  return false;
}

static json_object *field(const where *w, json_object *o, const char *name, bool required)
{
  json_object *v = NULL;
  if (!json_object_object_get_ex(o, name, &v) || !v) {
    if (required) bad(w, name, "is missing");
    return NULL;
  }
  return v;
}

static bool get_id(const where *w, json_object *o, const char *name, int64_t *out)
{
  json_object *v = field(w, o, name, true);
  if (!v) return false;
  if (!json_object_is_type(v, json_type_int)) return bad(w, name, "is not a whole number");
  errno = 0;
  *out = json_object_get_int64(v);
  if (errno == ERANGE) return bad(w, name, "does not fit in 64 bits");
  return true;
}

static bool get_number(const where *w, json_object *v, const char *name, double *out)
{
  if (!json_object_is_type(v, json_type_int) && !json_object_is_type(v, json_type_double))
    return bad(w, name, "is not a number");
  *out = json_object_get_double(v);
  if (!isfinite(*out)) return bad(w, name, "is not a finite number");
  return true;
}

static bool get_bbox(const where *w, json_object *o, double box[4])
{
  json_object *v = field(w, o, "bbox", true);
  if (!v) return false;
  if (!json_object_is_type(v, json_type_array) || json_object_array_length(v) != 4)
    return bad(w, "bbox", "is not an array of 4 numbers [x, y, width, height]");
  for (size_t i = 0; i < 4; i++)
    if (!get_number(w, json_object_array_get_idx(v, i), "bbox", &box[i])) return false;
  return true;
}

static bool get_string(const where *w, json_object *o, const char *name, char **out)
{
  json_object *v = field(w, o, name, true);
  if (!v) return false;
  if (!json_object_is_type(v, json_type_string)) return bad(w, name, "is not a string");
  *out = strdup(json_object_get_string(v));
  if (!*out) return bad(w, name, "could not be copied (out of memory)");
  return true;
}

static bool get_size(const where *w, json_object *o, const char *name, int *out)
{
  json_object *v = field(w, o, name, false);
  *out = 0;
  if (!v) return true;
  if (!json_object_is_type(v, json_type_int)) return bad(w, name, "is not a whole number");
  int64_t s = json_object_get_int64(v);
  if (s < 0 || s > INT_MAX) return bad(w, name, "is out of range");
  *out = (int)s;
  return true;
}

/* The array under `name` of the root object; NULL (message) when missing or not one. */
static json_object *root_array(const char *path, json_object *root, const char *name, char *err, size_t n)
{
  json_object *v = NULL;
  if (!json_object_is_type(root, json_type_object) || !json_object_object_get_ex(root, name, &v) ||
      !json_object_is_type(v, json_type_array)) {
    eval_fail(err, n, "%s: no \"%s\" array (not a COCO instances file?)", path, name);
    return NULL;
  }
  return v;
}

static int cmp_i64(const void *a, const void *b)
{
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* Ids must not repeat: fails naming the first repeat. */
static bool unique_ids(const char *path, const char *array, const int64_t *ids, size_t n, char *err,
                       size_t err_size)
{
  int64_t *s = malloc((n ? n : 1) * sizeof *s);
  if (!s) {
    eval_fail(err, err_size, "%s: out of memory", path);
    return false;
  }
  if (n) memcpy(s, ids, n * sizeof *s);
  qsort(s, n, sizeof *s, cmp_i64);
  for (size_t i = 1; i < n; i++)
    if (s[i] == s[i - 1]) {
      eval_fail(err, err_size, "%s: %s id %lld appears more than once", path, array, (long long)s[i]);
      free(s);
      return false;
    }
  free(s);
  return true;
}

void coco_dataset_free(coco_dataset *ds)
{
  for (size_t i = 0; i < ds->n_images; i++) free(ds->images[i].file_name);
  for (size_t i = 0; i < ds->n_categories; i++) free(ds->categories[i].name);
  free(ds->images);
  free(ds->categories);
  free(ds->annotations);
  memset(ds, 0, sizeof *ds);
}

/* One entry of an array; its id is the entry's first member. */
typedef bool (*entry_reader)(const where *w, json_object *o, void *entry);
_Static_assert(offsetof(coco_image, id) == 0 && offsetof(coco_category, id) == 0 && offsetof(coco_gt, id) == 0,
               "read_entries reads ids from the start of each entry");

static bool read_image(const where *w, json_object *o, void *entry)
{
  coco_image *im = entry;
  return get_id(w, o, "id", &im->id) && get_string(w, o, "file_name", &im->file_name) &&
         get_size(w, o, "width", &im->width) && get_size(w, o, "height", &im->height);
}

static bool read_category(const where *w, json_object *o, void *entry)
{
  coco_category *c = entry;
  return get_id(w, o, "id", &c->id) && get_string(w, o, "name", &c->name);
}

static bool read_annotation(const where *w, json_object *o, void *entry)
{
  coco_gt *g = entry;
  if (!get_id(w, o, "id", &g->id) || !get_id(w, o, "image_id", &g->image_id) ||
      !get_id(w, o, "category_id", &g->category_id) || !get_bbox(w, o, g->bbox))
    return false;
  json_object *v = field(w, o, "rbox", false);
  if (v) {
    if (!json_object_is_type(v, json_type_array) || json_object_array_length(v) != 5)
      return bad(w, "rbox", "is not an array of 5 numbers [cx, cy, width, height, angle]");
    for (size_t i = 0; i < 5; i++)
      if (!get_number(w, json_object_array_get_idx(v, i), "rbox", &g->rbox[i])) return false;
    g->oriented = true;
  }
  v = field(w, o, "area", false);
  g->area = g->bbox[2] * g->bbox[3];
  if (v && !get_number(w, v, "area", &g->area)) return false;
  v = field(w, o, "iscrowd", false);
  if (!v) return true;
  if (json_object_is_type(v, json_type_boolean)) {
    g->iscrowd = json_object_get_boolean(v);
    return true;
  }
  if (json_object_is_type(v, json_type_int) && (json_object_get_int64(v) == 0 || json_object_get_int64(v) == 1)) {
    g->iscrowd = json_object_get_int64(v) == 1;
    return true;
  }
  return bad(w, "iscrowd", "is not 0 or 1");
}

/* Reads every entry of `arr` into a calloc'd array (*out, *n: all of it, so a partly
 * read one frees cleanly) and checks that ids do not repeat. */
static bool read_entries(const char *path, json_object *arr, const char *name, size_t size, entry_reader rd,
                         void **out, size_t *n, char *err, size_t err_size)
{
  size_t count = json_object_array_length(arr);
  char *items = calloc(count ? count : 1, size);
  int64_t *ids = malloc((count ? count : 1) * sizeof *ids);
  *out = items;
  *n = items ? count : 0;
  bool ok = items && ids;
  if (!ok) eval_fail(err, err_size, "%s: out of memory", path);
  for (size_t i = 0; ok && i < count; i++) {
    where w = { path, name, i, err, err_size };
    json_object *o = json_object_array_get_idx(arr, i);
    if (!json_object_is_type(o, json_type_object)) {
      eval_fail(err, err_size, "%s: %s[%zu] is not an object", path, name, i);
      ok = false;
      break;
    }
    ok = rd(&w, o, items + i * size);
    memcpy(&ids[i], items + i * size, sizeof ids[i]);
  }
  ok = ok && unique_ids(path, name, ids, count, err, err_size);
  free(ids);
  return ok;
}

int coco_dataset_load(const char *path, coco_dataset *ds, char *err, size_t err_size)
{
  memset(ds, 0, sizeof *ds);
  json_object *root = parse_file(path, err, err_size);
  if (!root) return -1;
  json_object *images = root_array(path, root, "images", err, err_size);
  json_object *cats = images ? root_array(path, root, "categories", err, err_size) : NULL;
  json_object *anns = cats ? root_array(path, root, "annotations", err, err_size) : NULL;
  void *im = NULL, *cat = NULL, *ann = NULL;
  bool ok = anns && read_entries(path, images, "images", sizeof *ds->images, read_image, &im, &ds->n_images,
                                 err, err_size);
  ds->images = im;
  ok = ok && read_entries(path, cats, "categories", sizeof *ds->categories, read_category, &cat,
                          &ds->n_categories, err, err_size);
  ds->categories = cat;
  ok = ok && read_entries(path, anns, "annotations", sizeof *ds->annotations, read_annotation, &ann,
                          &ds->n_annotations, err, err_size);
  ds->annotations = ann;
  json_object_put(root);
  if (!ok) {
    coco_dataset_free(ds);
    return -1;
  }
  return 0;
}

int coco_results_load(const char *path, coco_det **dt, size_t *n, char *err, size_t err_size)
{
  *dt = NULL;
  *n = 0;
  json_object *root = parse_file(path, err, err_size);
  if (!root) return -1;
  if (!json_object_is_type(root, json_type_array)) {
    json_object_put(root);
    return eval_fail(err, err_size, "%s: a results file is a JSON array of detections", path);
  }
  size_t count = json_object_array_length(root);
  coco_det *d = calloc(count ? count : 1, sizeof *d);
  bool ok = d != NULL;
  if (!ok) eval_fail(err, err_size, "%s: out of memory", path);
  for (size_t i = 0; ok && i < count; i++) {
    where w = { path, "results", i, err, err_size };
    json_object *o = json_object_array_get_idx(root, i), *v;
    if (!json_object_is_type(o, json_type_object)) {
      eval_fail(err, err_size, "%s: results[%zu] is not an object", path, i);
      ok = false;
      break;
    }
    ok = get_id(&w, o, "image_id", &d[i].image_id) && get_id(&w, o, "category_id", &d[i].category_id) &&
         get_bbox(&w, o, d[i].bbox) && (v = field(&w, o, "score", true)) != NULL &&
         get_number(&w, v, "score", &d[i].score);
  }
  json_object_put(root);
  if (!ok) {
    free(d);
    return -1;
  }
  *dt = d;
  *n = count;
  return 0;
}

int coco_results_write(const char *path, const coco_det *dt, size_t n, char *err, size_t err_size)
{
  /* built in memory, then replaced whole (tfl_file): a link under the name is replaced,
   * never written through, and a reader never sees half a file */
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  if (!f) return eval_fail(err, err_size, "%s: out of memory", path);
  fputs("[", f);
  for (size_t i = 0; i < n; i++) {
    const coco_det *d = &dt[i];
    /* %.17g: the file reads back to the very doubles that were evaluated */
    fprintf(f, "%s\n{\"image_id\": %lld, \"category_id\": %lld, \"bbox\": [%.17g, %.17g, %.17g, %.17g], "
               "\"score\": %.17g}",
            i ? "," : "", (long long)d->image_id, (long long)d->category_id, d->bbox[0], d->bbox[1],
            d->bbox[2], d->bbox[3], d->score);
  }
  fputs("\n]\n", f);
  if (fclose(f) != 0) {
    free(buf);
    return eval_fail(err, err_size, "%s: out of memory", path);
  }
  tfl_diag d;
  tfl_diag_init(&d);
  tfl_status st = tfl_file_replace(path, "COCO results", buf, len, &d);
  free(buf);
  return st == TFL_OK ? 0 : eval_fail(err, err_size, "%s", d.error);
}
