/* tp_tracks.h - frame-to-frame bookkeeping: track enter/leave events and "did anything
 * change" for changes-only publishing.
 *
 * Events come from the track ids in GstTfliteMeta (set by a tracker): a track id seen for
 * the first time enters; a track id missing from a frame's meta leaves (a tracker that
 * keeps a track through missed detections keeps its id in the meta, so leave follows its
 * own decision). Objects without a track id make no events. One tp_tracks per stream;
 * used on the streaming thread only.
 */
#ifndef TP_TRACKS_H
#define TP_TRACKS_H

#include <gst/gst.h>

#include "tp_json.h"

typedef struct tp_tracks tp_tracks;

typedef struct {
  gboolean enter;          /* FALSE: leave */
  const gchar *reason;     /* "new", "lost", "eos" (static) */
  guint64 track_id;
  guint64 frames_seen;
  GstClockTime first_pts;
  gchar *object_json;      /* owned: the object at its first (enter) or last (leave) sighting */
} tp_track_event;

tp_tracks *tp_tracks_new(void);
void tp_tracks_free(tp_tracks *t);

/* Updates the tracks with one frame (meta may be NULL) and appends its events
 * (tp_track_event *, owned by the array: made with a free func) to `events`: enters in
 * the order the objects are in the meta, then leaves by track id. */
void tp_tracks_update(tp_tracks *t, const GstTfliteMeta *meta, GstClockTime pts, tp_mask_mode mask,
                      GPtrArray *events);
/* Every track still present leaves (reason "eos"); the table is emptied. */
void tp_tracks_end(tp_tracks *t, GPtrArray *events);
/* A GPtrArray for the calls above. */
GPtrArray *tp_track_events_new(void);

/* TRUE when the frame's objects differ from the last frame passed here, compared by
 * (kind, class, track id, source) as a multiset: boxes moving do not count as a change. */
gboolean tp_tracks_changed(tp_tracks *t, const GstTfliteMeta *meta);

#endif
