/* gsttfliteenums.h - the enum types of tflitefilter's properties (GEnum registrations). */
#ifndef GST_TFLITE_ENUMS_H
#define GST_TFLITE_ENUMS_H

#include <gst/gst.h>

G_BEGIN_DECLS

typedef enum {
  GST_TFLITE_DELEGATE_AUTO,
  GST_TFLITE_DELEGATE_GL,
  GST_TFLITE_DELEGATE_CPU,
} GstTfliteDelegate;

typedef enum {
  GST_TFLITE_PRECISION_FP16,
  GST_TFLITE_PRECISION_FP32,
} GstTflitePrecision;

typedef enum {
  GST_TFLITE_ENGINE_CONTEXT_FRAMES,  /* the GL context of the first stream's frames */
  GST_TFLITE_ENGINE_CONTEXT_SHARED,  /* a context (and thread) of the engine's own */
} GstTfliteEngineContext;

typedef enum {
  GST_TFLITE_GL_START_WAIT,  /* the first GL frame waits until the GL engine is made */
  GST_TFLITE_GL_START_CPU,   /* the first frames run on the CPU while it is made */
} GstTfliteGlStart;

GType gst_tflite_delegate_get_type(void);   /* GstTfliteDelegate */
GType gst_tflite_gl_start_get_type(void);   /* GstTfliteGlStart */
GType gst_tflite_engine_context_get_type(void); /* GstTfliteEngineContext */
GType gst_tflite_precision_get_type(void);  /* GstTflitePrecision */
GType gst_tflite_decoder_get_type(void);    /* tfl_decoder_kind */
GType gst_tflite_fit_get_type(void);        /* fit_mode */
GType gst_tflite_anchors_get_type(void);    /* tfl_anchor_kind */

/* Registers `values` once under `name` (*t caches the type; thread-safe). For the enum
 * types of every tflite element's properties. */
GType gst_tflite_enum_type(GType *t, const gchar *name, const GEnumValue *values);

/* Marks every enum above as plugin API (gst-inspect documents them). */
void gst_tflite_enums_mark_as_plugin_api(void);

G_END_DECLS

#endif
