/* tflinfer_notice.c - GstTfliteNotice (tflinfer.h): the failures and warnings the
 * inference object hands to the element. A leaf: every part of the object uses it. */
#include "tflinfer.h"

void gst_tflite_notice_clear(GstTfliteNotice *n)
{
  g_clear_error(&n->error);
  g_clear_pointer(&n->debug, g_free);
}

void gst_tflite_notice_set(GstTfliteNotice *n, GQuark domain, gint code, const gchar *debug, const gchar *format, ...)
{
  gst_tflite_notice_clear(n);
  va_list ap;
  va_start(ap, format);
  n->error = g_error_new_valist(domain, code, format, ap);
  va_end(ap);
  n->debug = g_strdup(debug);
}
