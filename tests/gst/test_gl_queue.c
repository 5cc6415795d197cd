/* test_gl_queue.c - tflitefilter gl-queue-depth=2 (a frame held while its read-back
 * finishes on the GPU): every frame still carries the results of its own inference, in
 * order, and nothing is lost or leaked at EOS, a flushing seek, a caps change or behind
 * a tee.
 *
 * The frames alternate between two pictures by their timestamp: even frames the
 * astronaut (deeplab: 45% person at 160x120; the oracle's 46% at full size), odd ones
 * black (no person), so results one frame off cannot pass. Each frame's mask is read from the
 * buffer's meta at the sink, keyed by its timestamp, and compared with gl-queue-depth=1,
 * frame by frame (a hash of the class bytes). Case "outputs": the other decoders, whose
 * outputs are queued (exported into a device buffer): face detection (her face on even frames,
 * none on odd ones) and classification, every object's numbers against depth 1's.
 *
 * Environment as test_tflitefilter (tests/meson.build). */
#include <gst/check/gstcheck.h>
#include <gst/video/video.h>
#include <math.h>

#include <gst/tflitemeta/gsttflitemeta.h>
#include "pipe_util.h"

#define DEEPLAB "deeplabv3_257_mv_gpu.tflite"
#define FACES "face_detection_short_range.tflite"
#define CLASSIFIER "mobilenet_v1_0.25_224.tflite"
#define FPS 30
#define PERSON 15
#define MAX_VALS 256

/* One frame as the sink saw it. */
typedef struct {
  guint64 idx;        /* frame number from its timestamp */
  gint caps_width;    /* the width its caps said when it arrived */
  gint meta_width;    /* the width its meta's coordinates refer to */
  gdouble person;     /* fraction of mask pixels of class 15; -1: no CPU mask */
  guint32 hash;       /* FNV-1a of the class bytes */
  gint objects;       /* tflitefilter objects on it */
  gint boxes;         /* DETECTION objects among them */
  gint entered;       /* frames that had reached the upload when it reached the sink */
  gint n_vals;        /* every object's numbers (vals[] keeps the first MAX_VALS) */
  gfloat vals[MAX_VALS];
} frame_rec;

typedef struct {
  GMutex lock;
  GArray *recs;       /* frame_rec */
  gint *entered;      /* the count of frames that reached the upload */
  GCond reached;      /* signalled when frame `wait_for` arrives */
  guint64 wait_for;   /* 0: none */
} sink_log;

static guint64 frame_idx(GstClockTime pts)
{
  return gst_util_uint64_scale_round(pts, FPS, GST_SECOND);
}

/* Before the upload: odd frames black; frame `resize_at` switches the capsfilter `cf`
 * to `resize_caps` (a renegotiation while a frame is held). */
typedef struct {
  GstElement *cf;
  guint64 resize_at;
  const gchar *resize_caps;
  gint entered;                /* frames through so far (atomic) */
  GstElement *filter;          /* frame `rebuild_at` sets its threshold: the runtime is rebuilt */
  guint64 rebuild_at;
} alt_ctx;

static GstPadProbeReturn alternate(GstPad *pad, GstPadProbeInfo *info, gpointer data)
{
  alt_ctx *a = data;
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER(info);
  guint64 idx = frame_idx(GST_BUFFER_PTS(buf));
  g_atomic_int_inc(&a->entered);
  if (a->cf && idx == a->resize_at) {
    GstCaps *c = gst_caps_from_string(a->resize_caps);
    g_object_set(a->cf, "caps", c, NULL);
    gst_caps_unref(c);
  }
  if (a->filter && idx == a->rebuild_at) g_object_set(a->filter, "threshold", 0.4f, NULL);
  if (idx % 2) {
    GstBuffer *black = gst_buffer_copy_deep(buf);
    gst_buffer_memset(black, 0, 0, gst_buffer_get_size(black));
    GST_PAD_PROBE_INFO_DATA(info) = black;
    gst_buffer_unref(buf);
  }
  return GST_PAD_PROBE_OK;
}

static void add_val(frame_rec *r, gfloat v)
{
  if (r->n_vals < MAX_VALS) r->vals[r->n_vals] = v;
  r->n_vals++;
}

/* An object's numbers: kind, class, box, score, classes, keypoints. */
static void add_object(frame_rec *r, const GstTfliteObject *o)
{
  const gfloat head[] = { (gfloat)o->kind, (gfloat)o->class_id, o->x, o->y, o->w, o->h, o->score };
  for (guint k = 0; k < G_N_ELEMENTS(head); k++) add_val(r, head[k]);
  for (guint k = 0; k < o->n_classes; k++) {
    add_val(r, (gfloat)o->classes[k].class_id);
    add_val(r, o->classes[k].score);
  }
  for (guint k = 0; k < o->n_keypoints; k++) {
    add_val(r, o->keypoints[k].x);
    add_val(r, o->keypoints[k].y);
  }
  r->boxes += o->kind == GST_TFLITE_OBJECT_DETECTION;
}

static GstPadProbeReturn record(GstPad *pad, GstPadProbeInfo *info, gpointer data)
{
  sink_log *log = data;
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER(info);
  frame_rec r = { .idx = frame_idx(GST_BUFFER_PTS(buf)), .person = -1, .hash = 2166136261u,
                  .entered = g_atomic_int_get(log->entered) };
  GstCaps *caps = gst_pad_get_current_caps(pad);
  if (caps) {
    gst_structure_get_int(gst_caps_get_structure(caps, 0), "width", &r.caps_width);
    gst_caps_unref(caps);
  }
  GstTfliteMeta *meta = gst_buffer_get_tflite_meta(buf);
  if (meta) {
    r.meta_width = meta->frame_width;
    r.objects = (gint)gst_tflite_meta_n_objects(meta);
    for (guint i = 0; i < gst_tflite_meta_n_objects(meta); i++) {
      const GstTfliteObject *o = gst_tflite_meta_get_object(meta, i);
      add_object(&r, o);
      if (o->kind != GST_TFLITE_OBJECT_SEGMENTATION || !o->mask || !o->mask->classes) continue;
      gsize n = (gsize)o->mask->width * (gsize)o->mask->height, person = 0;
      for (gsize k = 0; k < n; k++) {
        person += o->mask->classes[k] == PERSON;
        r.hash = (r.hash ^ o->mask->classes[k]) * 16777619u;
      }
      r.person = (gdouble)person / (gdouble)n;
    }
  }
  g_mutex_lock(&log->lock);
  g_array_append_val(log->recs, r);
  if (log->wait_for && r.idx == log->wait_for) g_cond_signal(&log->reached);
  g_mutex_unlock(&log->lock);
  return GST_PAD_PROBE_OK;
}

typedef struct {
  const gchar *desc;           /* with an identity "alt" before the upload, sinks "s1" [, "s2"] */
  gboolean tee;                /* two sinks */
  GstClockTime seek_start, seek_stop; /* a flushing seek when stop > 0 ... */
  guint64 seek_after;          /* ... once frame seek_after reached the sink (playing) */
  guint64 resize_at;           /* capsfilter "cf" changes at this frame when resize_caps */
  const gchar *resize_caps;
  guint64 rebuild_at;          /* > 0: filter "f" is given another threshold at this frame */
  GstClockTime latency;        /* out: the min latency at filter "f"'s src pad when prerolled */
} queue_run;

/* $TFL_GL_PROFILE (tests/gl_profile_env.h): every tflitefilter's gl-profile */
static void set_profile(const GValue *item, gpointer user)
{
  GstElement *e = g_value_get_object(item);
  if (g_object_class_find_property(G_OBJECT_GET_CLASS(e), "gl-profile")) g_object_set(e, "gl-profile", user, NULL);
}

static void run_queue(queue_run *q, sink_log *logs)
{
  GError *err = NULL;
  GstElement *pipe = gst_parse_launch(q->desc, &err);
  fail_unless(pipe != NULL && err == NULL, "%s: %s", q->desc, err ? err->message : "no pipeline");
  const gchar *profile = g_getenv("TFL_GL_PROFILE");
  if (profile && *profile) {
    GstIterator *it = gst_bin_iterate_recurse(GST_BIN(pipe));
    gst_iterator_foreach(it, set_profile, (gpointer)profile);
    gst_iterator_free(it);
    gchar *got = NULL;
    GstElement *f = gst_bin_get_by_name(GST_BIN(pipe), "f");
    if (f) g_object_get(f, "gl-profile", &got, NULL);
    fail_unless(!f || g_strcmp0(got, profile) == 0, "gl-profile is %s, not %s", got, profile);
    g_free(got);
    if (f) gst_object_unref(f);
  }
  GstElement *alt = gst_bin_get_by_name(GST_BIN(pipe), "alt");
  alt_ctx a = { q->resize_caps ? gst_bin_get_by_name(GST_BIN(pipe), "cf") : NULL, q->resize_at, q->resize_caps, 0,
                q->rebuild_at ? gst_bin_get_by_name(GST_BIN(pipe), "f") : NULL, q->rebuild_at };
  GstPad *ap = gst_element_get_static_pad(alt, "src");
  gst_pad_add_probe(ap, GST_PAD_PROBE_TYPE_BUFFER, alternate, &a, NULL);
  for (gint s = 0; s < (q->tee ? 2 : 1); s++) {
    gchar *name = g_strdup_printf("s%d", s + 1);
    GstElement *sink = gst_bin_get_by_name(GST_BIN(pipe), name);
    fail_unless(sink != NULL, "no %s", name);
    GstPad *sp = gst_element_get_static_pad(sink, "sink");
    g_mutex_init(&logs[s].lock);
    g_cond_init(&logs[s].reached);
    logs[s].wait_for = s == 0 ? q->seek_after : 0;
    logs[s].recs = g_array_new(FALSE, TRUE, sizeof(frame_rec));
    logs[s].entered = &a.entered;
    gst_pad_add_probe(sp, GST_PAD_PROBE_TYPE_BUFFER, record, &logs[s], NULL);
    gst_object_unref(sp);
    gst_object_unref(sink);
    g_free(name);
  }
  GstBus *bus = gst_element_get_bus(pipe);
  gst_element_set_state(pipe, GST_STATE_PAUSED);
  fail_unless(gst_element_get_state(pipe, NULL, NULL, 300 * GST_SECOND) == GST_STATE_CHANGE_SUCCESS,
              "%s: no preroll", q->desc);
  GstElement *f = gst_bin_get_by_name(GST_BIN(pipe), "f");
  if (f) {
    GstPad *fp = gst_element_get_static_pad(f, "src");
    GstQuery *lq = gst_query_new_latency();
    fail_unless(gst_pad_query(fp, lq), "latency query failed");
    gst_query_parse_latency(lq, NULL, &q->latency, NULL);
    gst_query_unref(lq);
    gst_object_unref(fp);
    gst_object_unref(f);
  }
  gst_element_set_state(pipe, GST_STATE_PLAYING);
  if (q->seek_stop) {
    /* while playing: the element holds a frame when the seek flushes it */
    gint64 until = g_get_monotonic_time() + 300 * G_TIME_SPAN_SECOND;
    g_mutex_lock(&logs[0].lock);
    gboolean reached = FALSE;
    while (!(reached = logs[0].recs->len > 0 &&
                       g_array_index(logs[0].recs, frame_rec, logs[0].recs->len - 1).idx >= q->seek_after) &&
           g_cond_wait_until(&logs[0].reached, &logs[0].lock, until)) {
    }
    g_mutex_unlock(&logs[0].lock);
    fail_unless(reached, "frame %" G_GUINT64_FORMAT " never reached the sink", q->seek_after);
    fail_unless(gst_element_seek(pipe, 1.0, GST_FORMAT_TIME, GST_SEEK_FLAG_FLUSH | GST_SEEK_FLAG_ACCURATE,
                                 GST_SEEK_TYPE_SET, (gint64)q->seek_start, GST_SEEK_TYPE_SET, (gint64)q->seek_stop),
                "seek refused");
  }
  GstMessage *m = gst_bus_timed_pop_filtered(bus, 600 * GST_SECOND, GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
  fail_unless(m != NULL, "%s timed out", q->desc);
  if (GST_MESSAGE_TYPE(m) == GST_MESSAGE_ERROR) {
    GError *e = NULL;
    gchar *dbg = NULL;
    gst_message_parse_error(m, &e, &dbg);
    fail("%s: %s (%s)", q->desc, e->message, dbg ? dbg : "");
  }
  gst_message_unref(m);
  gst_element_set_state(pipe, GST_STATE_NULL);
  gst_object_unref(bus);
  gst_object_unref(ap);
  gst_object_unref(alt);
  if (a.cf) gst_object_unref(a.cf);
  if (a.filter) gst_object_unref(a.filter);
  gst_object_unref(pipe);
}

static void logs_clear(sink_log *l, gint n)
{
  for (gint i = 0; i < n; i++) {
    g_array_unref(l[i].recs);
    g_mutex_clear(&l[i].lock);
    g_cond_clear(&l[i].reached);
  }
}

/* Every frame of the log carries its own picture's results: person on even frames, none
 * on odd ones, its meta in its own frame size. */
static void check_parity(const sink_log *l, const gchar *what)
{
  for (guint i = 0; i < l->recs->len; i++) {
    const frame_rec *r = &g_array_index(l->recs, frame_rec, i);
    fail_unless(r->person >= 0, "%s: frame %" G_GUINT64_FORMAT " has no CPU mask", what, r->idx);
    if (r->idx % 2 == 0)
      fail_unless(r->person > 0.35 && r->person < 0.55, "%s: frame %" G_GUINT64_FORMAT " (astronaut): person %f",
                  what, r->idx, r->person);
    else
      fail_unless(r->person < 0.01, "%s: frame %" G_GUINT64_FORMAT " (black): person %f", what, r->idx, r->person);
    fail_unless(r->meta_width == r->caps_width, "%s: frame %" G_GUINT64_FORMAT ": meta for width %d, the frame is %d",
                what, r->idx, r->meta_width, r->caps_width);
  }
}

static gchar *pipeline_of(const gchar *model_name, const gchar *filter_props, guint frames, const gchar *tail)
{
  gchar *pic = pipe_picture("astronaut.png"), *model = pipe_model(model_name);
  gchar *num = frames ? g_strdup_printf("num-buffers=%u", frames) : g_strdup("");
  gchar *d = g_strdup_printf(
    "filesrc location=%s ! pngdec ! imagefreeze %s ! videoconvert ! videoscale ! "
    "capsfilter name=cf caps=video/x-raw,format=RGBA,width=160,height=120,framerate=%d/1 ! identity name=alt ! "
    "glupload ! %s",
    pic, num, FPS, tail);
  gchar *desc = g_strdup_printf(d, model, filter_props);
  g_free(d);
  g_free(num);
  g_free(pic);
  g_free(model);
  return desc;
}

static gchar *pipeline(const gchar *filter_props, guint frames, const gchar *tail)
{
  return pipeline_of(DEEPLAB, filter_props, frames, tail);
}

/* Frames 0..n-1 in order in both logs, each frame's numbers at depth 2 within tol of
 * depth 1's (the same count) and the same mask bytes, and each frame held at depth 2
 * until the next one came in. */
static void check_against_depth1(const sink_log *d1, const sink_log *d2, guint n, gdouble tol, const gchar *what)
{
  fail_unless(d1->recs->len == n && d2->recs->len == n, "%s: %u and %u frames, not %u", what, d1->recs->len,
              d2->recs->len, n);
  for (guint i = 0; i < n; i++) {
    const frame_rec *a = &g_array_index(d1->recs, frame_rec, i), *b = &g_array_index(d2->recs, frame_rec, i);
    fail_unless(a->idx == i && b->idx == i, "%s: frame %u arrived as %" G_GUINT64_FORMAT " / %" G_GUINT64_FORMAT, what,
                i, a->idx, b->idx);
    fail_unless(a->objects == b->objects && a->boxes == b->boxes && a->n_vals == b->n_vals,
                "%s: frame %u: depth 2 has %d objects (%d boxes, %d numbers), depth 1 %d (%d, %d)", what, i, b->objects,
                b->boxes, b->n_vals, a->objects, a->boxes, a->n_vals);
    gdouble worst = 0;
    for (gint k = 0; k < MIN(a->n_vals, MAX_VALS); k++) worst = MAX(worst, fabs((gdouble)a->vals[k] - b->vals[k]));
    fail_unless(worst <= tol && a->hash == b->hash,
                "%s: frame %u: depth 2's results differ from depth 1's by %g (mask hash %08x, depth 1 %08x)", what, i,
                worst, b->hash, a->hash);
    /* one streaming thread: depth 1 pushes a frame before the next one comes; depth 2
     * holds each (but the first, read back whole to check the GPU path) until the next
     * one has been submitted, the last until EOS */
    gint held = i == 0 ? 1 : i == n - 1 ? (gint)n : (gint)i + 2;
    fail_unless(a->entered == (gint)i + 1 && b->entered == held,
                "%s: frame %u reached the sink after %d frames had come in (depth 1: %d; expected %d and %u)", what, i,
                b->entered, a->entered, held, i + 1);
  }
}

/* Both depths of `model` with filter_props, n frames each (log[0]: depth 1); the min
 * latencies at filter "f" in latency[] (may be NULL). */
static void run_depths(const gchar *model, const gchar *filter_props, guint n, sink_log *log, GstClockTime *latency)
{
  for (gint d = 0; d < 2; d++) {
    gchar *props = g_strdup_printf("%s gl-queue-depth=%d", filter_props, d + 1);
    gchar *desc = pipeline_of(model, props, n, "tflitefilter name=f model=%s delegate=gl %s ! fakesink name=s1");
    queue_run q = { .desc = desc };
    run_queue(&q, &log[d]);
    if (latency) latency[d] = q.latency;
    g_free(desc);
    g_free(props);
  }
}

#define ONE_FILTER "tflitefilter name=f model=%s delegate=gl gl-readback=true %s ! fakesink name=s1"

GST_START_TEST(test_queue_matches_depth1)
{
  const guint N = 7; /* odd: the last frame is held at EOS */
  sink_log l[2];
  GstClockTime latency[2];
  run_depths(DEEPLAB, "gl-readback=true", N, l, latency);
  /* EOS pushed the held frame: all of them, in order, each with its own results */
  check_against_depth1(&l[0], &l[1], N, 0, "segmentation");
  check_parity(&l[0], "depth 1");
  check_parity(&l[1], "depth 2");
  /* one frame (1/30 s) more latency, and only with the queue */
  GstClockTime frame = gst_util_uint64_scale_int_ceil(GST_SECOND, 1, FPS);
  fail_unless(latency[1] == latency[0] + frame, "latency %" GST_TIME_FORMAT ", depth 1 %" GST_TIME_FORMAT,
              GST_TIME_ARGS(latency[1]), GST_TIME_ARGS(latency[0]));
  logs_clear(l, 2);
}
GST_END_TEST;

/* inference-interval=3: frames 0, 3 and 6 run, the others reuse the last results. A
 * frame that runs no inference completes the held one first, so frames 4 and 5 reuse
 * frame 3's (black: no person), not frame 0's, as at depth 1. */
GST_START_TEST(test_queue_interval)
{
  const guint N = 7;
  sink_log l[2];
  for (gint d = 0; d < 2; d++) {
    gchar *desc = pipeline(d ? "inference-interval=3 gl-queue-depth=2" : "inference-interval=3 gl-queue-depth=1", N,
                           ONE_FILTER);
    queue_run q = { .desc = desc };
    run_queue(&q, &l[d]);
    fail_unless_equals_int(l[d].recs->len, N);
    g_free(desc);
  }
  for (guint i = 0; i < N; i++) {
    const frame_rec *a = &g_array_index(l[0].recs, frame_rec, i), *b = &g_array_index(l[1].recs, frame_rec, i);
    fail_unless(a->idx == i && b->idx == i, "frame %u arrived as %" G_GUINT64_FORMAT " / %" G_GUINT64_FORMAT, i,
                a->idx, b->idx);
    fail_unless(a->hash == b->hash && a->objects == b->objects, "frame %u: depth 2 (hash %08x) is not depth 1 (%08x)",
                i, b->hash, a->hash);
    gboolean person = i < 3 || i == 6;
    fail_unless(person ? b->person > 0.35 && b->person < 0.55 : b->person < 0.01, "frame %u: person %f", i, b->person);
  }
  logs_clear(l, 2);
}
GST_END_TEST;

/* A flushing seek while playing, a frame held, drops that frame: before the seek the
 * frames come in order from 0, after it only the seek's frames, the same as
 * gl-queue-depth=1 gets (imagefreeze sends the seek's first frame twice, whatever the
 * depth), each with its own results. */
GST_START_TEST(test_queue_flush_seek)
{
  sink_log l[2];
  GstClockTime frame = gst_util_uint64_scale_int(GST_SECOND, 1, FPS);
  guint first_after[2];
  for (gint d = 0; d < 2; d++) {
    gchar *desc = pipeline(d ? "gl-queue-depth=2" : "gl-queue-depth=1", 0, ONE_FILTER);
    queue_run q = { .desc = desc, .seek_after = 3, .seek_start = 10 * frame, .seek_stop = 15 * frame };
    run_queue(&q, &l[d]);
    const gchar *what = d ? "seek, depth 2" : "seek, depth 1";
    check_parity(&l[d], what);
    GString *order = g_string_new(NULL);
    for (guint i = 0; i < l[d].recs->len; i++)
      g_string_append_printf(order, " %" G_GUINT64_FORMAT, g_array_index(l[d].recs, frame_rec, i).idx);
    guint i = 0;
    for (; i < l[d].recs->len && g_array_index(l[d].recs, frame_rec, i).idx < 10; i++)
      fail_unless(g_array_index(l[d].recs, frame_rec, i).idx == i, "%s: frames%s", what, order->str);
    fail_unless(i > 3, "%s: frames%s: the seek came before frame 3", what, order->str);
    first_after[d] = i;
    for (guint k = i; k < l[d].recs->len; k++) {
      guint64 idx = g_array_index(l[d].recs, frame_rec, k).idx;
      fail_unless(idx >= 10 && idx < 15, "%s: frames%s: %" G_GUINT64_FORMAT " after the seek", what, order->str, idx);
    }
    g_string_free(order, TRUE);
    g_free(desc);
  }
  guint n0 = l[0].recs->len - first_after[0], n1 = l[1].recs->len - first_after[1];
  fail_unless(n0 == n1 && n1 >= 5, "after the seek: %u frames at depth 2, %u at depth 1", n1, n0);
  for (guint i = 0; i < n0; i++) {
    const frame_rec *a = &g_array_index(l[0].recs, frame_rec, first_after[0] + i),
                    *b = &g_array_index(l[1].recs, frame_rec, first_after[1] + i);
    fail_unless(a->idx == b->idx && a->hash == b->hash, "after the seek, frame %u: depth 2 has frame %" G_GUINT64_FORMAT
                " (hash %08x), depth 1 frame %" G_GUINT64_FORMAT " (%08x)", i, b->idx, b->hash, a->idx, a->hash);
  }
  logs_clear(l, 2);
}
GST_END_TEST;

/* New caps (another frame size) while a frame is held: it leaves with its own size's
 * results before the caps, and no frame is lost. */
GST_START_TEST(test_queue_caps_change)
{
  const guint N = 8;
  sink_log l;
  gchar *desc = pipeline("gl-queue-depth=2", N, ONE_FILTER);
  queue_run q = { .desc = desc, .resize_at = 4,
                  .resize_caps = "video/x-raw,format=RGBA,width=200,height=150,framerate=30/1" };
  run_queue(&q, &l);
  fail_unless_equals_int(l.recs->len, N);
  check_parity(&l, "caps change");
  /* frames up to 4 (the capsfilter changes as it passes) at 160, the rest at 200 */
  for (guint i = 0; i < N; i++) {
    const frame_rec *r = &g_array_index(l.recs, frame_rec, i);
    fail_unless(r->idx == i, "frame %u arrived as %" G_GUINT64_FORMAT, i, r->idx);
    fail_unless(r->caps_width == (i <= 4 ? 160 : 200), "frame %u: width %d", i, r->caps_width);
  }
  logs_clear(&l, 1);
  g_free(desc);
}
GST_END_TEST;

/* A setting changed mid-stream rebuilds the runtime: the held frame gets its results
 * from the runtime it ran on first, and no frame is lost. */
GST_START_TEST(test_queue_rebuild)
{
  const guint N = 7;
  sink_log l;
  gchar *desc = pipeline("gl-queue-depth=2", N, ONE_FILTER);
  queue_run q = { .desc = desc, .rebuild_at = 4 };
  run_queue(&q, &l);
  fail_unless_equals_int(l.recs->len, N);
  check_parity(&l, "rebuild");
  for (guint i = 0; i < N; i++)
    fail_unless(g_array_index(l.recs, frame_rec, i).idx == i, "frame %u arrived as %" G_GUINT64_FORMAT, i,
                g_array_index(l.recs, frame_rec, i).idx);
  logs_clear(&l, 1);
  g_free(desc);
}
GST_END_TEST;

/* Two elements behind a tee on one shared engine (their frames may batch): each branch's
 * frames carry their own results, the same in both branches. */
/* Two elements of `model` with filter_props (gl-queue-depth=2) behind a tee, n frames:
 * both branches get every frame in order, with the same objects (numbers within tol, the
 * same mask bytes), and check() passes on each branch's frames. */
static void run_tee(const gchar *model, const gchar *filter_props, guint n, gdouble tol,
                    void (*check)(const sink_log *l, const gchar *what))
{
  sink_log l[2];
  gchar *props = g_strdup_printf("%s gl-queue-depth=2", filter_props);
  gchar *desc = pipeline_of(model, props, n,
                            "tee name=t t. ! queue ! tflitefilter name=f model=%1$s delegate=gl %2$s ! fakesink name=s1 "
                            "t. ! queue ! tflitefilter model=%1$s delegate=gl %2$s ! fakesink name=s2");
  queue_run q = { .desc = desc, .tee = TRUE };
  run_queue(&q, l);
  for (gint s = 0; s < 2; s++) fail_unless_equals_int(l[s].recs->len, n);
  for (guint i = 0; i < n; i++) {
    const frame_rec *a = &g_array_index(l[0].recs, frame_rec, i), *b = &g_array_index(l[1].recs, frame_rec, i);
    fail_unless(a->idx == i && b->idx == i && a->hash == b->hash, "frame %u: branches differ", i);
    /* each element's own meta only */
    fail_unless(a->objects == b->objects && a->n_vals == b->n_vals, "frame %u: %d and %d objects", i, a->objects,
                b->objects);
    for (gint k = 0; k < MIN(a->n_vals, MAX_VALS); k++)
      fail_unless(fabs((gdouble)a->vals[k] - b->vals[k]) <= tol, "frame %u: the branches' number %d: %g and %g", i, k,
                  a->vals[k], b->vals[k]);
  }
  check(&l[0], "tee branch 1");
  check(&l[1], "tee branch 2");
  logs_clear(l, 2);
  g_free(desc);
  g_free(props);
}

/* Two elements behind a tee on one shared engine (their frames may batch): each branch's
 * frames carry their own results, the same in both. */
GST_START_TEST(test_queue_tee)
{
  run_tee(DEEPLAB, "gl-readback=true", 6, 0, check_parity);
}
GST_END_TEST;

/* Faces on an even frame, none on an odd one, in every frame of log l. */
static void check_faces(const sink_log *l, const gchar *what)
{
  for (guint i = 0; i < l->recs->len; i++) {
    const frame_rec *r = &g_array_index(l->recs, frame_rec, i);
    fail_unless(r->idx % 2 ? r->boxes == 0 : r->boxes >= 1, "%s: frame %" G_GUINT64_FORMAT " (%s) has %d faces", what,
                r->idx, r->idx % 2 ? "black" : "astronaut", r->boxes);
  }
}

/* Face detection, its anchor decoding and NMS appended to the graph (on the GPU): the
 * four outputs queued. Her face on even frames, none on black ones, the same boxes,
 * scores and keypoints as depth 1 frame by frame (within 1e-6, the same count). */
GST_START_TEST(test_queue_detection)
{
  const guint N = 7; /* odd: the last frame is held at EOS */
  sink_log l[2];
  run_depths(FACES, "", N, l, NULL);
  check_against_depth1(&l[0], &l[1], N, 1e-6, "face detection");
  check_faces(&l[1], "face detection");
  logs_clear(l, 2);
}
GST_END_TEST;

/* Two face detectors behind a tee on one engine. Frames that run as a batch run the
 * detector's op on the GPU too, each frame's outputs queued from its slot of the batch
 * (its count one value of the count [B]). Each branch's frames carry their own faces,
 * the same in both (within 0.02: a frame may have run alone in one branch and batched in
 * the other, the op on heads that a plan of batch 1 and one of batch 2 rounded
 * differently; seen 0.0017 pixels apart when the batch's op ran on the CPU). */
GST_START_TEST(test_queue_tee_detection)
{
  run_tee(FACES, "", 6, 0.02, check_faces);
}
GST_END_TEST;

/* Classification (float scores, top 3 at threshold 0): the classes and scores of depth 1,
 * frame by frame; the astronaut's and black's differ, so a frame off cannot pass. */
GST_START_TEST(test_queue_classification)
{
  const guint N = 5;
  sink_log l[2];
  run_depths(CLASSIFIER, "threshold=0 max-results=3", N, l, NULL);
  check_against_depth1(&l[0], &l[1], N, 1e-6, "classification");
  const frame_rec *a = &g_array_index(l[0].recs, frame_rec, 0), *b = &g_array_index(l[0].recs, frame_rec, 1);
  fail_unless(a->n_vals > 7 && a->n_vals == b->n_vals && memcmp(a->vals, b->vals, sizeof(gfloat) * (gsize)a->n_vals),
              "classification: the astronaut and black give the same %d numbers", a->n_vals);
  logs_clear(l, 2);
}
GST_END_TEST;

static Suite *gl_queue_suite(void)
{
  Suite *s = suite_create("gl_queue");
  TCase *tc = tcase_create("queue");
  tcase_set_timeout(tc, 900);
  tcase_add_checked_fixture(tc, pipe_filter_imagefreeze_race, NULL);
  suite_add_tcase(s, tc);
  tcase_add_test(tc, test_queue_matches_depth1);
  tcase_add_test(tc, test_queue_interval);
  tcase_add_test(tc, test_queue_flush_seek);
  tcase_add_test(tc, test_queue_caps_change);
  tcase_add_test(tc, test_queue_rebuild);
  tcase_add_test(tc, test_queue_tee);
  /* the other decoders' outputs queued */
  TCase *out = tcase_create("outputs");
  tcase_set_timeout(out, 900);
  tcase_add_checked_fixture(out, pipe_filter_imagefreeze_race, NULL);
  suite_add_tcase(s, out);
  tcase_add_test(out, test_queue_detection);
  tcase_add_test(out, test_queue_tee_detection);
  tcase_add_test(out, test_queue_classification);
  return s;
}

GST_CHECK_MAIN(gl_queue);
