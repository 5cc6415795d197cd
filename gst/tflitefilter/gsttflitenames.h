/* gsttflitenames.h - checking a property that names another element of the pipeline
 * (tflitefilter's regions-from, tflitetracker's source), so a typo is reported, not a
 * model that silently gets no regions. */
#pragma once

#include <gst/gst.h>

G_BEGIN_DECLS

typedef enum {
  GST_TFLITE_NAME_FOUND,       /* an element that makes objects (tflitefilter, tflitetracker) */
  GST_TFLITE_NAME_NOT_CHECKED, /* self is in no bin (a harness, not added yet): nothing to search */
  GST_TFLITE_NAME_MISSING,     /* no element of that name in self's top-level bin */
  GST_TFLITE_NAME_WRONG_KIND,  /* an element of that name that makes no objects */
} GstTfliteNameCheck;

/* Looks `name` up in the top-level bin holding self. *known (may be NULL) gets the
 * comma-separated names of the elements there that make objects, other than self
 * ("none" if there are none), and for WRONG_KIND *kind the found element's factory
 * name; free both with g_free. */
GstTfliteNameCheck gst_tflite_check_element_name(GstElement *self, const gchar *name, gchar **known, gchar **kind);

/* Whether an element of self's top-level bin (not a tflite one) has a pad template that can
 * carry GL memory (glupload, glimagesink, GL sources, GL-output decoders): without one,
 * delegate=auto needs no GL display (opening one probes window systems, which prints
 * noise on headless machines). Outside a bin: TRUE (nothing to tell). */
gboolean gst_tflite_pipeline_has_gl(GstElement *self);

G_END_DECLS
