/* tp_tracks.c - track table and frame signatures. */
#include "tp_tracks.h"


typedef struct {
  guint64 frames_seen;
  guint64 last_frame;
  GstClockTime first_pts;
  gchar *object_json;       /* last sighting */
} track;

struct tp_tracks {
  GHashTable *tracks;       /* guint64* track id -> track */
  guint64 frame;            /* frames passed to update */
  GArray *signature;        /* sorted entries of the last frame passed to changed */
  gboolean have_signature;
};

typedef struct {
  gint kind, class_id;
  guint64 track_id;
  GQuark source;
} sig_entry;

static void track_free(gpointer p)
{
  track *tr = p;
  g_free(tr->object_json);
  g_free(tr);
}

tp_tracks *tp_tracks_new(void)
{
  tp_tracks *t = g_new0(tp_tracks, 1);
  t->tracks = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, track_free);
  t->signature = g_array_new(FALSE, FALSE, sizeof(sig_entry));
  return t;
}

void tp_tracks_free(tp_tracks *t)
{
  if (!t) return;
  g_hash_table_destroy(t->tracks);
  g_array_free(t->signature, TRUE);
  g_free(t);
}

static void event_free(gpointer p)
{
  tp_track_event *e = p;
  g_free(e->object_json);
  g_free(e);
}

GPtrArray *tp_track_events_new(void)
{
  return g_ptr_array_new_with_free_func(event_free);
}

static void add_event(GPtrArray *events, gboolean enter, const gchar *reason, guint64 id, const track *tr)
{
  tp_track_event *e = g_new0(tp_track_event, 1);
  e->enter = enter;
  e->reason = reason;
  e->track_id = id;
  e->frames_seen = tr->frames_seen;
  e->first_pts = tr->first_pts;
  e->object_json = g_strdup(tr->object_json);
  g_ptr_array_add(events, e);
}

static gint cmp_u64(gconstpointer a, gconstpointer b)
{
  guint64 x = *(const guint64 *)a, y = *(const guint64 *)b;
  return x < y ? -1 : x > y;
}

void tp_tracks_update(tp_tracks *t, const GstTfliteMeta *meta, GstClockTime pts, tp_mask_mode mask,
                      GPtrArray *events)
{
  guint64 frame = ++t->frame;
  guint n = meta ? gst_tflite_meta_n_objects(meta) : 0;
  for (guint i = 0; i < n; i++) {
    const GstTfliteObject *o = gst_tflite_meta_get_object(meta, i);
    if (!o->track_id) continue;
    track *tr = g_hash_table_lookup(t->tracks, &o->track_id);
    if (tr && tr->last_frame == frame) continue; /* its first object in this frame speaks for it */
    GString *js = g_string_new(NULL);
    tp_json_object(js, o, mask);
    if (!tr) {
      tr = g_new0(track, 1);
      tr->first_pts = pts;
      g_hash_table_insert(t->tracks, g_memdup2(&o->track_id, sizeof(guint64)), tr);
      tr->frames_seen = 1;
      tr->last_frame = frame;
      tr->object_json = g_string_free(js, FALSE);
      add_event(events, TRUE, "new", o->track_id, tr);
      continue;
    }
    tr->frames_seen++;
    tr->last_frame = frame;
    g_free(tr->object_json);
    tr->object_json = g_string_free(js, FALSE);
  }
  /* leaves in track id order, so the output does not depend on hash order */
  GArray *gone = g_array_new(FALSE, FALSE, sizeof(guint64));
  GHashTableIter it;
  gpointer k, v;
  g_hash_table_iter_init(&it, t->tracks);
  while (g_hash_table_iter_next(&it, &k, &v))
    if (((track *)v)->last_frame != frame) g_array_append_val(gone, *(guint64 *)k);
  g_array_sort(gone, cmp_u64);
  for (guint i = 0; i < gone->len; i++) {
    guint64 id = g_array_index(gone, guint64, i);
    add_event(events, FALSE, "lost", id, g_hash_table_lookup(t->tracks, &id));
    g_hash_table_remove(t->tracks, &id);
  }
  g_array_free(gone, TRUE);
}

void tp_tracks_end(tp_tracks *t, GPtrArray *events)
{
  GArray *ids = g_array_new(FALSE, FALSE, sizeof(guint64));
  GHashTableIter it;
  gpointer k, v;
  g_hash_table_iter_init(&it, t->tracks);
  while (g_hash_table_iter_next(&it, &k, &v)) g_array_append_val(ids, *(guint64 *)k);
  g_array_sort(ids, cmp_u64);
  for (guint i = 0; i < ids->len; i++) {
    guint64 id = g_array_index(ids, guint64, i);
    add_event(events, FALSE, "eos", id, g_hash_table_lookup(t->tracks, &id));
  }
  g_array_free(ids, TRUE);
  g_hash_table_remove_all(t->tracks);
}

static gint cmp_sig(gconstpointer pa, gconstpointer pb)
{
  const sig_entry *a = pa, *b = pb;
  if (a->kind != b->kind) return a->kind < b->kind ? -1 : 1;
  if (a->class_id != b->class_id) return a->class_id < b->class_id ? -1 : 1;
  if (a->track_id != b->track_id) return a->track_id < b->track_id ? -1 : 1;
  return a->source < b->source ? -1 : a->source > b->source;
}

gboolean tp_tracks_changed(tp_tracks *t, const GstTfliteMeta *meta)
{
  guint n = meta ? gst_tflite_meta_n_objects(meta) : 0;
  GArray *sig = g_array_sized_new(FALSE, FALSE, sizeof(sig_entry), n);
  for (guint i = 0; i < n; i++) {
    const GstTfliteObject *o = gst_tflite_meta_get_object(meta, i);
    sig_entry e = { (gint)o->kind, o->class_id, o->track_id, o->source };
    g_array_append_val(sig, e);
  }
  g_array_sort(sig, cmp_sig);
  gboolean changed = !t->have_signature || sig->len != t->signature->len;
  for (guint i = 0; !changed && i < sig->len; i++)
    changed = cmp_sig(&g_array_index(sig, sig_entry, i), &g_array_index(t->signature, sig_entry, i)) != 0;
  t->have_signature = TRUE;
  g_array_free(t->signature, TRUE);
  t->signature = sig;
  return changed;
}
