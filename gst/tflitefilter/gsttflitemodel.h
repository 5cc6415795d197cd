/* gsttflitemodel.h - tflitefilter's model-family policy: which model file, which labels,
 * which input normalization and which decoder. Called from the streaming thread (or the
 * state change); errors are posted on the element with a sentence naming the problem. */
#ifndef GST_TFLITE_MODEL_H
#define GST_TFLITE_MODEL_H

#include <gst/gst.h>

#include "decoders/tfl_decoder.h"
#include "policy/tfl_family.h"
#include "gsttflitemodelinfo.h"
#include "preprocess/preprocess.h"
#include "runtime/tfl_graph.h"

G_BEGIN_DECLS

#define GST_TFLITE_NORM_FROM_MODEL -1.0f
/* A label file larger than this is refused (ImageNet's 1001 labels take 11 KB). */
#define GST_TFLITE_LABELS_MAX_BYTES (16u << 20)

/* What the element's properties say (a snapshot taken under the object lock). */
typedef struct {
  gchar *model_path;
  gchar *labels_path;                /* NULL: the model's embedded label file */
  tfl_decoder_kind decoder_kind;
  gfloat norm_mean[3], norm_std[3];  /* GST_TFLITE_NORM_FROM_MODEL: not set */
} GstTfliteModelSettings;

/* What the policy decided for one model file. */
typedef struct {
  tfl_graph *graph;                  /* owned */
  GPtrArray *labels;                 /* owned ref, or NULL */
  pix_norm norm;
  fit_mode fit;              /* the family's (preprocess_model_fit): what fit=auto means */
  tfl_decoder_kind decoder_kind;     /* never AUTO */
  const tfl_family *family;          /* its row in policy/tfl_family.h (static), or NULL */
  gboolean has_info;                 /* a .modelinfo was read (gsttflitemodelinfo.h) */
  GstTfliteModelInfo info;
} GstTfliteModel;

/* Loads settings->model_path, checks it takes an image, reads the labels, picks the
 * decoder and the normalization. FALSE after posting an element error. */
gboolean gst_tflite_model_load(GstElement *element, const GstTfliteModelSettings *settings, tfl_diag *diag,
                               GstTfliteModel *out);
void gst_tflite_model_clear(GstTfliteModel *m);
void gst_tflite_model_settings_clear(GstTfliteModelSettings *s);

G_END_DECLS

#endif
