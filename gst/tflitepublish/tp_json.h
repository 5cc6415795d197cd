/* tp_json.h - a frame's objects, and track events, as JSON text (docs/results-schema.md).
 *
 * The schema is versioned: TP_JSON_SCHEMA and TP_JSON_VERSION are in every message, and
 * docs/results-schema.json is the JSON Schema a test checks messages against. Numbers
 * are written in the C locale whatever the process locale is; NaN and infinities become
 * null; strings are escaped and made valid UTF-8. Called on the streaming thread.
 */
#ifndef TP_JSON_H
#define TP_JSON_H

#include <gst/gst.h>

#include <gst/tflitemeta/gsttflitemeta.h>

#define TP_JSON_SCHEMA "gst-tflite/objects"
#define TP_JSON_VERSION 1

typedef enum {
  TP_MASK_NONE,     /* segmentation objects without a "mask" member */
  TP_MASK_SUMMARY,  /* size and the share of the mask each class covers */
  TP_MASK_PNG,      /* the summary and the pixels as a base64 grey PNG */
} tp_mask_mode;

/* What a message says about where and when, besides the objects. */
typedef struct {
  const gchar *camera, *stream;
  guint64 seq;                   /* the message's sequence number in its element */
  guint64 frame;                 /* frames seen by the element, from 0 */
  GstClockTime pts, running_time, duration;  /* GST_CLOCK_TIME_NONE: null */
  gint64 wall_time_us;           /* g_get_real_time() when the frame passed */
  gint width, height;            /* frame size (the meta's, else the caps') */
} tp_frame_info;

/* Appends one object. */
void tp_json_object(GString *out, const GstTfliteObject *o, tp_mask_mode mask);
/* A "frame" message: every object of `meta` (NULL: none). */
void tp_json_frame(GString *out, const tp_frame_info *fi, const GstTfliteMeta *meta, tp_mask_mode mask);
/* An "event" message: `event` is "enter" or "leave"; object_json an object written by
 * tp_json_object (the first sighting for enter, the last for leave). */
void tp_json_event(GString *out, const tp_frame_info *fi, const gchar *event, const gchar *reason,
                   guint64 track_id, guint64 frames_seen, GstClockTime first_pts, const gchar *object_json);

/* Helpers shared by the serializers. */
void tp_json_string(GString *out, const gchar *s);
void tp_json_number(GString *out, double v);

#endif
