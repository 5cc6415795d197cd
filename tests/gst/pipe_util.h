/* pipe_util.h - running a pipeline to its end for element tests: the buffers an appsink
 * named "sink" received (with their metas) and the messages on the bus. Models come from
 * TFL_MODEL_DIRS (':'-separated, set by meson), pictures from TFL_PICTURES; a missing one
 * fails the test (CI must have them). */
#ifndef PIPE_UTIL_H
#define PIPE_UTIL_H

#include <gst/gst.h>

typedef struct {
  GPtrArray *buffers;    /* GstBuffer, in order (refs) */
  GPtrArray *messages;   /* GstMessage: element messages, warnings, errors (refs) */
  gchar *error;          /* the first error's text, or NULL */
} pipe_run;

/* Runs `desc` until EOS or an error (at most `timeout_s` seconds). */
void pipe_run_launch(const gchar *desc, guint timeout_s, pipe_run *out);
void pipe_run_clear(pipe_run *r);

/* The i-th element message whose structure is named `name` (from any element when
 * `source` is NULL), or NULL. Borrowed from r. */
const GstStructure *pipe_run_message(const pipe_run *r, const gchar *name, const gchar *source, guint i);
/* How many warnings were posted whose text contains `text`. */
guint pipe_run_count_warnings(const pipe_run *r, const gchar *text);

/* Full path of a model found in TFL_MODEL_DIRS / a picture in TFL_PICTURES (g_free);
 * fails the running test when missing. */
gchar *pipe_model(const gchar *name);
gchar *pipe_picture(const gchar *name);

/* A checked fixture for suites whose pipelines run imagefreeze: GStreamer 1.22's imagefreeze
 * can read its frame rate after a stop reset it to 0/0 (its loop races the PAUSED->READY
 * reset), a critical inside imagefreeze, not ours (seen once, in a leaks run). Under
 * CK_FORK=no a critical from a streaming thread jumps into the test runner from that thread
 * and hangs the process, so that one message is filtered; every other critical still fails. */
void pipe_filter_imagefreeze_race(void);

#endif
