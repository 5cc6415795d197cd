/* class_truth.h - classification ground truth: which class each image shows, and the
 * top-k bookkeeping of TensorFlow Lite's ILSVRC evaluation.
 *
 *   text_lines labels;   text_lines_from_file("labels.txt", &labels, err, sizeof err);
 *   class_truth t;       class_truth_load("truth.txt", "images/", &t, err, sizeof err);
 *   class_truth_resolve(&t, &labels, 1001, err, sizeof err);   // label text -> classes
 *   per image i: rank = class_truth_rank(&t.e[i], top_classes, k);  // 0-based, -1 = missed
 *
 * Ground-truth formats:
 *  - TensorFlow Lite's ILSVRC format: one label per line, line i for the i-th image of the
 *    images folder in sorted file-name order (byte order; files ending in .jpg, .jpeg or
 *    .png, any case). The counts must match, as in TFLite's tool.
 *  - CSV (a file name ending in .csv): "image,label" per line, the image relative to the
 *    folder, the label everything after the first comma; a first line "image,label" is a
 *    header.
 * A label is the text of a model label: as TFLite's tool compares label texts, every class
 * with that text counts (ImageNet has two "crane"s). A label that no model label spells
 * but that is a whole number is a class index into the model's output. Lines lose a
 * trailing CR and trailing blanks.
 *
 * Plain C, no global state; objects belong to their caller.
 */
#ifndef CLASS_TRUTH_H
#define CLASS_TRUTH_H

#include <stddef.h>

typedef struct {
  char **line;
  size_t n;
} text_lines;

/* Splits text at newlines (a last empty line is dropped); 0, or -1 (message) on failure. */
int text_lines_from_text(const char *text, text_lines *out, char *err, size_t err_size);
int text_lines_from_file(const char *path, text_lines *out, char *err, size_t err_size);
void text_lines_free(text_lines *l);

typedef struct {
  char *image;              /* file name inside the images folder */
  char *label;
  int *classes;             /* after class_truth_resolve: the classes the label names */
  int n_classes;
} truth_entry;

typedef struct {
  truth_entry *e;
  size_t n;
} class_truth;

/* Reads the ground truth (format by file name, above) for the images in images_dir. */
int class_truth_load(const char *truth_path, const char *images_dir, class_truth *out, char *err,
                     size_t err_size);
void class_truth_free(class_truth *t);

/* Maps every entry's label to model classes 0..n_outputs-1. model_labels may be NULL
 * (then labels must be class indices). Fails naming the first label it cannot map. */
int class_truth_resolve(class_truth *t, const text_lines *model_labels, int n_outputs, char *err,
                        size_t err_size);

/* Position (0-based) of the first of `top` (classes, best first) that the entry's label
 * names; -1 when none does. */
int class_truth_rank(const truth_entry *e, const int *top, int n_top);

/* Image files of a folder in byte order of their names (.jpg/.jpeg/.png, any case). */
int list_images(const char *dir, text_lines *out, char *err, size_t err_size);

#endif
