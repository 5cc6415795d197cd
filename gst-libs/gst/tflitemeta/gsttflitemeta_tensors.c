/* gsttflitemeta_tensors.c - the raw output tensors on GstTfliteMeta (see gsttflitemeta.h).
 * The decoder's malloc'd bytes become the tensor's GstBuffer as they are: no copy on the
 * way to the application. */
#include "gsttflitemeta_tensors_priv.h"

#ifdef HAVE_GST_TENSOR_META
#include <gst/analytics/analytics.h>
#endif
#include <stdlib.h>
#include <string.h>

static void tensor_clear(gpointer p)
{
  GstTfliteTensor *t = p;
  gst_clear_buffer(&t->buffer);
}

GArray *gst_tflite_tensors_array_new(void)
{
  GArray *a = g_array_new(FALSE, TRUE, sizeof(GstTfliteTensor));
  g_array_set_clear_func(a, tensor_clear);
  return a;
}

void gst_tflite_tensors_array_free(GArray *tensors)
{
  if (tensors) g_array_free(tensors, TRUE);
}

void gst_tflite_tensors_array_append(GArray *dst, const GArray *src)
{
  for (guint i = 0; i < src->len; i++) {
    GstTfliteTensor t = g_array_index(src, GstTfliteTensor, i);
    if (t.buffer) gst_buffer_ref(t.buffer);
    g_array_append_val(dst, t);
  }
}

/**
 * gst_tflite_meta_add_tensors: (skip)
 *
 * C only (plain C arrays); see gsttflitemeta.h.
 */
guint gst_tflite_meta_add_tensors(GstTfliteMeta *meta, tfl_results *r, GQuark source, guint64 parent_id)
{
  guint added = 0;
  for (int i = 0; i < r->n_tensors; i++) {
    tfl_raw_tensor *raw = &r->tensors[i];
    GstTfliteTensor t = { 0 };
    t.name = g_quark_from_string(raw->name ? raw->name : "");
    t.index = raw->index >= 0 ? (guint)raw->index : 0;
    t.source = source;
    t.parent_id = parent_id;
    t.type = raw->type;
    t.n_dims = raw->ndim > 0 ? MIN((guint)raw->ndim, GST_TFLITE_TENSOR_MAX_DIMS) : 0;
    for (guint d = 0; d < t.n_dims; d++) t.dims[d] = raw->dims[d];
    t.scale = raw->scale;
    t.zero_point = raw->zero_point;
    /* the decoder's malloc'd bytes, taken as they are: freed with the last buffer */
    if (raw->data && raw->bytes)
      t.buffer = gst_buffer_new_wrapped_full(GST_MEMORY_FLAG_READONLY, raw->data, raw->bytes, 0, raw->bytes,
                                             raw->data, free);
    else
      t.buffer = gst_buffer_new();
    t.data = raw->data;
    t.size = raw->data ? raw->bytes : 0;
    raw->data = NULL;
    g_array_append_val(meta->tensors, t);
    added++;
  }
  tfl_results_clear_tensors(r);
  return added;
}

guint gst_tflite_meta_n_tensors(const GstTfliteMeta *meta)
{
  return meta ? meta->tensors->len : 0;
}

/**
 * gst_tflite_meta_get_tensor:
 * @meta: a meta
 * @index: which tensor
 *
 * Returns: (transfer none) (nullable): tensor @index, NULL when out of range
 */
const GstTfliteTensor *gst_tflite_meta_get_tensor(const GstTfliteMeta *meta, guint index)
{
  if (!meta || index >= meta->tensors->len) return NULL;
  return &g_array_index(meta->tensors, GstTfliteTensor, index);
}

/**
 * gst_tflite_meta_find_tensor:
 * @meta: a meta
 * @name: a tensor name
 * @source: (nullable): the element that ran the model; NULL: any
 *
 * Returns: the index of the first such tensor, -1 when there is none
 */
gint gst_tflite_meta_find_tensor(const GstTfliteMeta *meta, const gchar *name, const gchar *source)
{
  GQuark n = name ? g_quark_try_string(name) : 0, s = source ? g_quark_try_string(source) : 0;
  if (!meta || !n || (source && !s)) return -1;
  for (guint i = 0; i < meta->tensors->len; i++) {
    const GstTfliteTensor *t = &g_array_index(meta->tensors, GstTfliteTensor, i);
    if (t->name == n && (!s || t->source == s)) return (gint)i;
  }
  return -1;
}

/**
 * gst_tflite_tensor_get_name:
 * @tensor: a tensor
 *
 * Returns: (transfer none): the model's name of the tensor
 */
const gchar *gst_tflite_tensor_get_name(const GstTfliteTensor *tensor)
{
  return tensor && tensor->name ? g_quark_to_string(tensor->name) : "";
}

/**
 * gst_tflite_tensor_get_id:
 * @tensor: a tensor
 *
 * Returns: (transfer none): the tensor id its model's .modelinfo gives it, "" when none
 */
const gchar *gst_tflite_tensor_get_id(const GstTfliteTensor *tensor)
{
  return tensor && tensor->id ? g_quark_to_string(tensor->id) : "";
}

/**
 * gst_tflite_tensor_get_source:
 * @tensor: a tensor
 *
 * Returns: (transfer none): the name of the element that ran the model
 */
const gchar *gst_tflite_tensor_get_source(const GstTfliteTensor *tensor)
{
  return tensor && tensor->source ? g_quark_to_string(tensor->source) : "";
}

/**
 * gst_tflite_tensor_get_dtype:
 * @tensor: a tensor
 *
 * Returns: (transfer none): numpy's name of the element type ("float32", "int8", ...)
 */
const gchar *gst_tflite_tensor_get_dtype(const GstTfliteTensor *tensor)
{
  /* TensorFlow Lite's TensorType values, as the runtime keeps them */
  switch (tensor ? tensor->type : -1) {
  case 0: return "float32";
  case 1: return "float16";
  case 2: return "int32";
  case 3: return "uint8";
  case 4: return "int64";
  case 6: return "bool";
  case 7: return "int16";
  case 9: return "int8";
  default: return "";
  }
}

/**
 * gst_tflite_tensor_get_dims:
 * @tensor: a tensor
 * @n_dims: (out): the number of dimensions
 *
 * Returns: (array length=n_dims) (transfer none): the shape, outermost first
 */
const gint *gst_tflite_tensor_get_dims(const GstTfliteTensor *tensor, guint *n_dims)
{
  *n_dims = tensor ? tensor->n_dims : 0;
  return tensor ? tensor->dims : NULL;
}

/**
 * gst_tflite_tensor_get_quantization:
 * @tensor: a tensor
 * @scale: (out): real = scale * (q - zero_point)
 * @zero_point: (out): the integer that stands for 0
 *
 * Returns: FALSE when the tensor is not quantized
 */
gboolean gst_tflite_tensor_get_quantization(const GstTfliteTensor *tensor, gfloat *scale, gint *zero_point)
{
  *scale = tensor ? tensor->scale : 0.0f;
  *zero_point = tensor ? tensor->zero_point : 0;
  return tensor && tensor->scale != 0.0f;
}

/**
 * gst_tflite_tensor_get_buffer:
 * @tensor: a tensor
 *
 * Returns: (transfer none): the tensor's bytes as a read-only buffer (map it: in Python
 * the map's data is a memoryview that numpy.frombuffer takes without a copy)
 */
GstBuffer *gst_tflite_tensor_get_buffer(const GstTfliteTensor *tensor)
{
  return tensor ? tensor->buffer : NULL;
}

/**
 * gst_tflite_tensor_get_data: (skip)
 * @tensor: a tensor
 * @size: (out): bytes
 *
 * C only: the bytes without a map (valid as long as the meta).
 */
gconstpointer gst_tflite_tensor_get_data(const GstTfliteTensor *tensor, gsize *size)
{
  if (size) *size = tensor ? tensor->size : 0;
  return tensor ? tensor->data : NULL;
}

#ifdef HAVE_GST_TENSOR_META
/* TensorFlow Lite's TensorType values -> GStreamer's; FALSE for what it has no type for */
static gboolean gst_data_type(gint type, GstTensorDataType *out)
{
  switch (type) {
  case 0: *out = GST_TENSOR_DATA_TYPE_FLOAT32; return TRUE;
  case 1: *out = GST_TENSOR_DATA_TYPE_FLOAT16; return TRUE;
  case 2: *out = GST_TENSOR_DATA_TYPE_INT32; return TRUE;
  case 3: *out = GST_TENSOR_DATA_TYPE_UINT8; return TRUE;
  case 4: *out = GST_TENSOR_DATA_TYPE_INT64; return TRUE;
  case 7: *out = GST_TENSOR_DATA_TYPE_INT16; return TRUE;
  case 9: *out = GST_TENSOR_DATA_TYPE_INT8; return TRUE;
  default: return FALSE;
  }
}

guint gst_tflite_meta_sync_tensors(GstTfliteMeta *meta, GstBuffer *buffer)
{
  guint fresh = 0;
  for (guint i = 0; i < meta->tensors->len; i++) fresh += !g_array_index(meta->tensors, GstTfliteTensor, i).mirrored;
  if (!fresh || !gst_buffer_is_writable(buffer)) return 0;
  GstTensorMeta *tm = gst_buffer_get_tensor_meta(buffer);
  if (!tm) tm = gst_buffer_add_tensor_meta(buffer);
  if (!tm) return 0;
  /* gst_tensor_meta_set replaces (and frees) the meta's array: the ones there are copied */
  gsize have = tm->num_tensors;
  GstTensor **all = g_new0(GstTensor *, have + fresh);
  for (gsize i = 0; i < have; i++) all[i] = gst_tensor_copy(tm->tensors[i]);
  guint added = 0;
  for (guint i = 0; i < meta->tensors->len; i++) {
    GstTfliteTensor *t = &g_array_index(meta->tensors, GstTfliteTensor, i);
    GstTensorDataType type;
    if (t->mirrored) continue;
    t->mirrored = TRUE;
    if (!gst_data_type(t->type, &type)) continue; /* bool: GStreamer has no such type */
    gsize dims[GST_TFLITE_TENSOR_MAX_DIMS];
    for (guint d = 0; d < t->n_dims; d++) dims[d] = (gsize)MAX(t->dims[d], 0);
    /* the same bytes: a ref of our buffer */
    all[have + added++] = gst_tensor_new_simple(t->id ? t->id : t->name, type, gst_buffer_ref(t->buffer),
                                                GST_TENSOR_DIM_ORDER_ROW_MAJOR, t->n_dims, dims);
  }
  gst_tensor_meta_set(tm, (guint)(have + added), all);
  return added;
}
#else
guint gst_tflite_meta_sync_tensors(GstTfliteMeta *meta, GstBuffer *buffer)
{
  (void)meta;
  (void)buffer;
  return 0;
}
#endif
