/* gsttflitemessages.c - see gsttflitemessages.h */
#include "gsttflitemessages.h"

#include <string.h>

GST_DEBUG_CATEGORY_EXTERN(gst_tflite_filter_debug);
#define GST_CAT_DEFAULT gst_tflite_filter_debug

void gst_tflite_post_model_message(GstElement *element, const gchar *model_path, const gchar *decoder_name,
                                   const gchar *delegate_name, const tfl_interpreter *interp, gboolean accel,
                                   guint64 engine_id, GstDebugCategory *perf, const GstStructure *extra)
{
  const tfl_graph *g = tfl_interpreter_graph(interp);
  int n_accel = 0, n_cpu = 0;
  GString *fallback = g_string_new(NULL);
  for (int i = 0; i < g->n_nodes; i++) {
    const char *d = tfl_interpreter_node_delegate(interp, i);
    if (!d) continue;
    if (strcmp(d, "cpu")) {
      n_accel++;
      continue;
    }
    n_cpu++;
    const char *name = tfl_op_name(g->nodes[i].op);
    if (accel && !strstr(fallback->str, name)) g_string_append_printf(fallback, "%s%s", fallback->len ? "," : "", name);
  }
  int parts = tfl_interpreter_partition_count(interp);
  GST_INFO_OBJECT(element, "delegate %s: %d GL nodes, %d CPU nodes, %d partitions%s%s", delegate_name, n_accel, n_cpu,
                  parts, fallback->len ? "; CPU fallback: " : "", fallback->str);
  if (accel && n_cpu > 0 && perf)
    GST_CAT_WARNING_OBJECT(perf, element, "model split into %d partitions: ops %s run on the CPU (slow)", parts,
                           fallback->str);
  GstStructure *s = gst_structure_new(
    "tflite-model", "model", G_TYPE_STRING, model_path, "decoder", G_TYPE_STRING, decoder_name, "delegate",
    G_TYPE_STRING, delegate_name, "gl-nodes", G_TYPE_INT, n_accel, "cpu-nodes", G_TYPE_INT, n_cpu, "partitions",
    G_TYPE_INT, parts, "cpu-fallback-ops", G_TYPE_STRING, fallback->str, "arena-bytes", G_TYPE_UINT64,
    (guint64)tfl_interpreter_arena_bytes(interp), "engine-id", G_TYPE_UINT64, engine_id, NULL);
  for (gint i = 0; extra && i < gst_structure_n_fields(extra); i++) {
    const gchar *field = gst_structure_nth_field_name(extra, (guint)i);
    gst_structure_set_value(s, field, gst_structure_get_value(extra, field));
  }
  gst_element_post_message(element, gst_message_new_element(GST_OBJECT(element), s));
  g_string_free(fallback, TRUE);
}

void gst_tflite_post_results_message(GstElement *element, const GstTfliteMeta *meta, GQuark source,
                                     GstClockTime pts, gdouble latency_ms, gint batch, const gchar *delegate_name)
{
  GstStructure *s = gst_tflite_meta_to_structure(meta, source);
  gst_structure_set(s, "timestamp", G_TYPE_UINT64, pts, "latency-ms", G_TYPE_DOUBLE, latency_ms, "batch", G_TYPE_INT,
                    batch, "delegate", G_TYPE_STRING, delegate_name, NULL);
  gst_element_post_message(element, gst_message_new_element(GST_OBJECT(element), s));
}
