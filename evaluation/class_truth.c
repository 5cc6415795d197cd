/* class_truth.c - see class_truth.h */
#include "class_truth.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "eval_error.h"
#include "runtime/tfl_file.h"

/* Label and truth files are small; this bounds what a wrong path can make us read. */
#define MAX_TEXT_BYTES (256u << 20)

void text_lines_free(text_lines *l)
{
  for (size_t i = 0; i < l->n; i++) free(l->line[i]);
  free(l->line);
  l->line = NULL;
  l->n = 0;
}

static void trim_end(char *s)
{
  size_t n = strlen(s);
  while (n > 0 && (s[n - 1] == '\r' || s[n - 1] == ' ' || s[n - 1] == '\t')) s[--n] = '\0';
}

int text_lines_from_text(const char *text, text_lines *out, char *err, size_t err_size)
{
  out->line = NULL;
  out->n = 0;
  size_t count = 0;
  for (const char *p = text; *p; p++) count += *p == '\n';
  out->line = calloc(count + 1, sizeof *out->line);
  if (!out->line) return eval_fail(err, err_size, "out of memory");
  const char *p = text;
  while (*p) {
    const char *e = strchr(p, '\n');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    char *s = malloc(len + 1);
    if (!s) {
      text_lines_free(out);
      return eval_fail(err, err_size, "out of memory");
    }
    memcpy(s, p, len);
    s[len] = '\0';
    trim_end(s);
    out->line[out->n++] = s;
    p += len + (e ? 1 : 0);
  }
  return 0;
}

int text_lines_from_file(const char *path, text_lines *out, char *err, size_t err_size)
{
  out->line = NULL;
  out->n = 0;
  /* tfl_file: a regular file only (a FIFO would block), bounded */
  char *text = NULL;
  size_t got = 0;
  tfl_diag d;
  tfl_diag_init(&d);
  if (tfl_file_read(path, "text file", MAX_TEXT_BYTES, &text, &got, &d) != TFL_OK)
    return eval_fail(err, err_size, "%s", d.error);
  if (strlen(text) != got) {
    free(text);
    return eval_fail(err, err_size, "%s: has a NUL byte: not a text file", path);
  }
  char e2[256];
  int rc = text_lines_from_text(text, out, e2, sizeof e2);
  free(text);
  return rc == 0 ? 0 : eval_fail(err, err_size, "%s: %s", path, e2);
}

void class_truth_free(class_truth *t)
{
  for (size_t i = 0; i < t->n; i++) {
    free(t->e[i].image);
    free(t->e[i].label);
    free(t->e[i].classes);
  }
  free(t->e);
  t->e = NULL;
  t->n = 0;
}

static bool is_image_name(const char *name)
{
  const char *dot = strrchr(name, '.');
  return dot && (!strcasecmp(dot, ".jpg") || !strcasecmp(dot, ".jpeg") || !strcasecmp(dot, ".png"));
}

static int cmp_str(const void *a, const void *b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

int list_images(const char *dir, text_lines *out, char *err, size_t err_size)
{
  out->line = NULL;
  out->n = 0;
  DIR *d = opendir(dir);
  if (!d) return eval_fail(err, err_size, "%s: %s", dir, strerror(errno));
  size_t cap = 0;
  struct dirent *e;
  int rc = 0;
  while (rc == 0 && (e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.' || !is_image_name(e->d_name)) continue;
    if (out->n == cap) {
      cap = cap ? cap * 2 : 256;
      char **l = realloc(out->line, cap * sizeof *l);
      if (!l) {
        rc = eval_fail(err, err_size, "%s: out of memory listing it", dir);
        break;
      }
      out->line = l;
    }
    if (!(out->line[out->n] = strdup(e->d_name))) rc = eval_fail(err, err_size, "%s: out of memory", dir);
    else out->n++;
  }
  closedir(d);
  if (rc != 0) {
    text_lines_free(out);
    return rc;
  }
  qsort(out->line, out->n, sizeof *out->line, cmp_str);
  return 0;
}

static bool ends_with_csv(const char *path)
{
  size_t n = strlen(path);
  return n >= 4 && !strcasecmp(path + n - 4, ".csv");
}

/* ILSVRC format: line i labels the i-th image in sorted order. */
static int load_ilsvrc(const char *path, const text_lines *lines, const char *dir, class_truth *t,
                       char *err, size_t err_size)
{
  text_lines imgs;
  if (list_images(dir, &imgs, err, err_size) != 0) return -1;
  size_t n_lines = lines->n;
  while (n_lines > 0 && lines->line[n_lines - 1][0] == '\0') n_lines--;  /* blank lines at the end */
  if (imgs.n != n_lines) {
    int rc = eval_fail(err, err_size, "%s has %zu labels but %s has %zu images (.jpg/.jpeg/.png); "
                  "the ILSVRC format needs one label per image, in sorted file-name order",
                  path, n_lines, dir, imgs.n);
    text_lines_free(&imgs);
    return rc;
  }
  t->e = calloc(n_lines ? n_lines : 1, sizeof *t->e);
  if (!t->e) {
    text_lines_free(&imgs);
    return eval_fail(err, err_size, "out of memory");
  }
  t->n = n_lines;
  int rc = 0;
  for (size_t i = 0; i < n_lines && rc == 0; i++) {
    t->e[i].image = imgs.line[i];
    imgs.line[i] = NULL;
    if (lines->line[i][0] == '\0') rc = eval_fail(err, err_size, "%s:%zu: empty label", path, i + 1);
    else if (!(t->e[i].label = strdup(lines->line[i]))) rc = eval_fail(err, err_size, "out of memory");
  }
  text_lines_free(&imgs);
  return rc;
}

static int load_csv(const char *path, const text_lines *lines, class_truth *t, char *err, size_t err_size)
{
  t->e = calloc(lines->n ? lines->n : 1, sizeof *t->e);
  if (!t->e) return eval_fail(err, err_size, "out of memory");
  for (size_t i = 0; i < lines->n; i++) {
    const char *l = lines->line[i];
    if (l[0] == '\0') continue;
    if (i == 0 && !strcmp(l, "image,label")) continue;
    const char *comma = strchr(l, ',');
    if (!comma || comma == l || comma[1] == '\0')
      return eval_fail(err, err_size, "%s:%zu: expected \"image,label\", got \"%.80s\"", path, i + 1, l);
    truth_entry *e = &t->e[t->n++];
    e->image = strndup(l, (size_t)(comma - l));
    e->label = strdup(comma + 1);
    if (!e->image || !e->label) return eval_fail(err, err_size, "out of memory");
    if (strstr(e->image, "..") || e->image[0] == '/')
      return eval_fail(err, err_size, "%s:%zu: image \"%s\" must be a name inside the images folder", path,
                  i + 1, e->image);
  }
  if (t->n == 0) return eval_fail(err, err_size, "%s: no \"image,label\" lines", path);
  return 0;
}

int class_truth_load(const char *truth_path, const char *images_dir, class_truth *out, char *err,
                     size_t err_size)
{
  out->e = NULL;
  out->n = 0;
  text_lines lines;
  if (text_lines_from_file(truth_path, &lines, err, err_size) != 0) return -1;
  int rc = ends_with_csv(truth_path) ? load_csv(truth_path, &lines, out, err, err_size)
                                     : load_ilsvrc(truth_path, &lines, images_dir, out, err, err_size);
  text_lines_free(&lines);
  if (rc != 0) class_truth_free(out);
  return rc;
}

static bool parse_index(const char *s, int n_outputs, int *out)
{
  if (!isdigit((unsigned char)s[0])) return false;
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (errno || *end != '\0' || v < 0 || v >= n_outputs) return false;
  *out = (int)v;
  return true;
}

int class_truth_resolve(class_truth *t, const text_lines *model_labels, int n_outputs, char *err,
                        size_t err_size)
{
  for (size_t i = 0; i < t->n; i++) {
    truth_entry *e = &t->e[i];
    free(e->classes);
    e->classes = NULL;
    e->n_classes = 0;
    int count = 0;
    size_t n_labels = model_labels ? model_labels->n : 0;
    for (size_t k = 0; k < n_labels && k < (size_t)n_outputs; k++) count += !strcmp(model_labels->line[k], e->label);
    e->classes = malloc((size_t)(count ? count : 1) * sizeof *e->classes);
    if (!e->classes) return eval_fail(err, err_size, "out of memory");
    for (size_t k = 0; k < n_labels && k < (size_t)n_outputs; k++)
      if (!strcmp(model_labels->line[k], e->label)) e->classes[e->n_classes++] = (int)k;
    if (e->n_classes == 0 && parse_index(e->label, n_outputs, &e->classes[0])) e->n_classes = 1;
    if (e->n_classes == 0)
      return eval_fail(err, err_size, "image %s: label \"%s\" is no model label%s and no class index 0..%d",
                  e->image, e->label, model_labels ? "" : " (the model has no label list)", n_outputs - 1);
  }
  return 0;
}

int class_truth_rank(const truth_entry *e, const int *top, int n_top)
{
  for (int r = 0; r < n_top; r++)
    for (int k = 0; k < e->n_classes; k++)
      if (top[r] == e->classes[k]) return r;
  return -1;
}
