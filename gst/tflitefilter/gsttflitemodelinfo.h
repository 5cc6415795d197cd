/* gsttflitemodelinfo.h - GStreamer 1.28's ".modelinfo" model description, read beside a
 * model that carries no metadata of its own.
 *
 * The file is an ini file (GKeyFile, lists separated by ',') named "MODEL.modelinfo"
 * ("yolo.tflite.modelinfo"), else the model's name without its extension + ".modelinfo"
 * ("yolo.modelinfo"), as gst_analytics_modelinfo_load looks for it. A [modelinfo] group
 * holds version=1.x (required) and group-id; every other group is one tensor, titled
 * with its name in the model: dir (input / output), type (float32, uint8, int8, ...),
 * dims (-1: any), id (the tensor id GStreamer's tensor decoders look for), ranges (input:
 * "min,max" or one pair per channel separated by ';', the values pixels 0..255 map onto).
 * gst-tflite adds one key of its own, labels= in [modelinfo]: a label file, one class
 * per line, relative to the .modelinfo file. Format and examples:
 * docs/bring-your-own-model.md. */
#ifndef GST_TFLITE_MODELINFO_H
#define GST_TFLITE_MODELINFO_H

#include <gst/gst.h>

#include "decoders/tfl_decoder.h"
#include "runtime/tfl_graph.h"

G_BEGIN_DECLS

typedef struct {
  gchar *path;               /* the file read */
  gchar *group_id;           /* [modelinfo] group-id, or NULL */
  gboolean has_ranges;       /* input 0's ranges, as (pixel - mean) / std per channel */
  gfloat mean[3], std[3];
  gint n_outputs;
  gchar **output_ids;        /* per graph output: its id, or NULL */
  gchar *labels_path;        /* labels= resolved against the file's folder, or NULL */
} GstTfliteModelInfo;

/* Reads the .modelinfo beside model_path, checked against graph g (each group's dir,
 * type and dims must fit the model's tensor of that name, else of that position).
 * TRUE: read (out filled). FALSE without *err: there is none. FALSE with *err: the file
 * is there but wrong; the message names the file, the group, the key and the value. */
gboolean gst_tflite_modelinfo_load(const gchar *model_path, const tfl_graph *g, GstTfliteModelInfo *out,
                                   GError **err);
void gst_tflite_modelinfo_clear(GstTfliteModelInfo *mi);

/* The decoder the outputs' ids ask for: GStreamer's tensor decoders' ids where one of ours
 * applies (the SSD post-processed outputs, the classifier's, the YOLO heads); *id: the id
 * that decided (borrowed), NULL with TFL_DECODER_AUTO when no id is known. */
tfl_decoder_kind gst_tflite_modelinfo_decoder(const GstTfliteModelInfo *mi, const gchar **id);

G_END_DECLS

#endif
