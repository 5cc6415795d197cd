/* gsttflitemeta_tensors_priv.h - the meta's raw-tensor array as gsttflitemeta.c keeps it
 * (internal to the meta library). */
#ifndef GST_TFLITE_META_TENSORS_PRIV_H
#define GST_TFLITE_META_TENSORS_PRIV_H

#include "gsttflitemeta.h"

/* A fresh empty array; the tensors' buffers unreffed and the array freed; src's tensors
 * appended to dst (buffers reffed: the bytes are shared, never copied). */
GArray *gst_tflite_tensors_array_new(void);
void gst_tflite_tensors_array_free(GArray *tensors);
void gst_tflite_tensors_array_append(GArray *dst, const GArray *src);

#endif
