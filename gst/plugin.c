/* plugin.c - registers the tflite elements. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/gst.h>

GST_ELEMENT_REGISTER_DECLARE(tflitefilter);
GST_ELEMENT_REGISTER_DECLARE(tfliteoverlay);
#if TFL_HAVE_PUBLISH
GST_ELEMENT_REGISTER_DECLARE(tflitepublish);
#endif
GST_ELEMENT_REGISTER_DECLARE(tflitetracker);

static gboolean plugin_init(GstPlugin *plugin)
{
  gboolean ok = FALSE;
  ok |= GST_ELEMENT_REGISTER(tflitefilter, plugin);
  ok |= GST_ELEMENT_REGISTER(tfliteoverlay, plugin);
#if TFL_HAVE_PUBLISH
  ok |= GST_ELEMENT_REGISTER(tflitepublish, plugin); /* with libmosquitto and/or librdkafka */
#endif
  ok |= GST_ELEMENT_REGISTER(tflitetracker, plugin);
  return ok;
}

#define PACKAGE "gst-tflite"
GST_PLUGIN_DEFINE(GST_VERSION_MAJOR, GST_VERSION_MINOR, tflite,
                  "TensorFlow Lite inference with a GL compute delegate", plugin_init, "0.1.0",
                  "LGPL", "gst-tflite", "local build")
