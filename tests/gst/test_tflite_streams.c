/* test_tflite_streams.c - tflitefilter with many streams in one process (issue 11):
 * tees in front of it on both paths (the buffer is shared: the meta must still go on,
 * without a pixel copy), eight branches of one model sharing one engine, repeated
 * launches, frames batched across streams giving the same results as one at a time, and
 * every frame drawn with its own mask while a queue holds four frames between
 * tflitefilter and tfliteoverlay.
 *
 * Models and pictures come from the environment meson sets (TFL_MODEL_DIRS: folders
 * separated by ':'; TFL_PICTURES); a missing one fails the test. GL cases run on Mesa's
 * llvmpipe here (GST_GL_WINDOW=egl-device).
 */
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/check/gstcheck.h>
#include <gst/gl/gl.h>
#include <gst/video/video.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <gst/tflitemeta/gsttflitemeta.h>

#define FACE "face_detection_short_range.tflite"
#define SELFIE "selfie_segmentation.tflite"
#define MV1 "mobilenet_v1_0.25_224.tflite"
#define DEEPLAB "deeplabv3_257_mv_gpu.tflite"

/* ---- finding files ---- */

static gchar *find_model(const gchar *name)
{
  const gchar *dirs = g_getenv("TFL_MODEL_DIRS");
  fail_unless(dirs && *dirs, "TFL_MODEL_DIRS is not set (meson sets it)");
  gchar **list = g_strsplit(dirs, ":", -1);
  gchar *found = NULL;
  for (gchar **d = list; *d && !found; d++) {
    const gchar *tries[] = { "", "*" };
    for (guint t = 0; t < G_N_ELEMENTS(tries) && !found; t++) {
      if (!t) {
        gchar *p = g_build_filename(*d, name, NULL);
        if (g_file_test(p, G_FILE_TEST_IS_REGULAR)) found = p;
        else g_free(p);
        continue;
      }
      GDir *dir = g_dir_open(*d, 0, NULL);
      const gchar *sub;
      while (dir && !found && (sub = g_dir_read_name(dir))) {
        gchar *a = g_build_filename(*d, sub, name, NULL), *b = g_build_filename(*d, sub, "package", name, NULL);
        if (g_file_test(a, G_FILE_TEST_IS_REGULAR)) found = g_strdup(a);
        else if (g_file_test(b, G_FILE_TEST_IS_REGULAR)) found = g_strdup(b);
        g_free(a);
        g_free(b);
      }
      if (dir) g_dir_close(dir);
    }
  }
  g_strfreev(list);
  fail_unless(found != NULL, "model %s not found in %s (models/fetch.sh, ../shared/models)", name, dirs);
  return found;
}

static gchar *picture(const gchar *name)
{
  const gchar *dir = g_getenv("TFL_PICTURES");
  fail_unless(dir && *dir, "TFL_PICTURES is not set (meson sets it)");
  gchar *p = g_build_filename(dir, name, NULL);
  fail_unless(g_file_test(p, G_FILE_TEST_IS_REGULAR), "picture %s missing (tests/fetch_pictures.sh)", p);
  return p;
}

/* ---- running a pipeline to its end ---- */

typedef struct {
  GPtrArray *models;   /* tflite-model structures */
  GPtrArray *results;  /* tflite-results structures, with "source" set */
  gchar *error;
} run_out;

static void run_out_clear(run_out *o)
{
  if (o->models) g_ptr_array_unref(o->models);
  if (o->results) g_ptr_array_unref(o->results);
  g_free(o->error);
  memset(o, 0, sizeof *o);
}

/* Runs until EOS or an error, collecting the element messages. */
static void run_pipeline(GstElement *pipe, run_out *o)
{
  o->models = g_ptr_array_new_with_free_func((GDestroyNotify)gst_structure_free);
  o->results = g_ptr_array_new_with_free_func((GDestroyNotify)gst_structure_free);
  GstBus *bus = gst_element_get_bus(pipe);
  fail_unless(gst_element_set_state(pipe, GST_STATE_PLAYING) != GST_STATE_CHANGE_FAILURE);
  gboolean done = FALSE;
  while (!done) {
    GstMessage *m = gst_bus_timed_pop(bus, 120 * GST_SECOND);
    fail_unless(m != NULL, "the pipeline neither ended nor failed in 120 s");
    switch (GST_MESSAGE_TYPE(m)) {
    case GST_MESSAGE_EOS: done = TRUE; break;
    case GST_MESSAGE_ERROR: {
      GError *e = NULL;
      gchar *dbg = NULL;
      gst_message_parse_error(m, &e, &dbg);
      o->error = g_strdup_printf("%s (%s)", e->message, dbg ? dbg : "");
      g_clear_error(&e);
      g_free(dbg);
      done = TRUE;
      break;
    }
    case GST_MESSAGE_ELEMENT: {
      const GstStructure *s = gst_message_get_structure(m);
      GstStructure *c = gst_structure_copy(s);
      gst_structure_set(c, "source", G_TYPE_STRING, GST_OBJECT_NAME(GST_MESSAGE_SRC(m)), NULL);
      if (gst_structure_has_name(s, "tflite-model")) g_ptr_array_add(o->models, c);
      else if (gst_structure_has_name(s, "tflite-results")) g_ptr_array_add(o->results, c);
      else gst_structure_free(c);
      break;
    }
    default: break;
    }
    gst_message_unref(m);
  }
  gst_element_set_state(pipe, GST_STATE_NULL);
  gst_object_unref(bus);
}

static void run_launch(const gchar *desc, run_out *o)
{
  GError *err = NULL;
  GstElement *pipe = gst_parse_launch(desc, &err);
  fail_unless(pipe != NULL && !err, "%s: %s", desc, err ? err->message : "?");
  run_pipeline(pipe, o);
  gst_object_unref(pipe);
}

/* ---- tees ---- */

/* Both branches of a tee see the same memory: the branch through tflitefilter gets its
 * meta on a copy of the buffer, not of the pixels. */
typedef struct {
  GstMemory *mem[2];
  gboolean meta[2];
} tee_seen;

static void check_tee(gboolean gl)
{
  gchar *model = find_model(FACE);
  gchar *desc = g_strdup_printf(
    "%s num-buffers=5 ! video/x-raw%s,width=160,height=120,format=RGBA ! tee name=t "
    "t. ! queue ! tflitefilter model=%s %s ! appsink name=a sync=false "
    "t. ! queue ! appsink name=b sync=false",
    gl ? "gltestsrc" : "videotestsrc", gl ? "(memory:GLMemory)" : "", model, gl ? "delegate=gl" : "");
  GError *err = NULL;
  GstElement *pipe = gst_parse_launch(desc, &err);
  fail_unless(pipe && !err);
  GstElement *a = gst_bin_get_by_name(GST_BIN(pipe), "a"), *b = gst_bin_get_by_name(GST_BIN(pipe), "b");
  fail_unless(gst_element_set_state(pipe, GST_STATE_PLAYING) != GST_STATE_CHANGE_FAILURE);
  guint frames = 0;
  for (;;) {
    GstSample *sa = gst_app_sink_try_pull_sample(GST_APP_SINK(a), 60 * GST_SECOND);
    GstSample *sb = gst_app_sink_try_pull_sample(GST_APP_SINK(b), 60 * GST_SECOND);
    if (!sa || !sb) {
      if (sa) gst_sample_unref(sa);
      if (sb) gst_sample_unref(sb);
      break;
    }
    GstBuffer *ba = gst_sample_get_buffer(sa), *bb = gst_sample_get_buffer(sb);
    fail_unless(gst_buffer_get_tflite_meta(ba) != NULL, "frame %u: no meta after tflitefilter", frames);
    fail_unless(gst_buffer_get_tflite_meta(bb) == NULL, "frame %u: the meta leaked into the other branch", frames);
    fail_unless(gst_buffer_peek_memory(ba, 0) == gst_buffer_peek_memory(bb, 0),
                "frame %u: the branches hold different memory: the pixels were copied", frames);
    frames++;
    gst_sample_unref(sa);
    gst_sample_unref(sb);
  }
  GstBus *bus = gst_element_get_bus(pipe);
  GstMessage *m = gst_bus_pop_filtered(bus, GST_MESSAGE_ERROR);
  fail_unless(m == NULL, "error behind the tee");
  gst_object_unref(bus);
  fail_unless_equals_int(frames, 5);
  gst_element_set_state(pipe, GST_STATE_NULL);
  gst_object_unref(a);
  gst_object_unref(b);
  gst_object_unref(pipe);
  g_free(desc);
  g_free(model);
}

GST_START_TEST(test_tee_cpu)
{
  check_tee(FALSE);
}
GST_END_TEST;

GST_START_TEST(test_tee_gl)
{
  check_tee(TRUE);
}
GST_END_TEST;

/* The issue's own line: a tee before tflitefilter, fakesinks, both paths. */
GST_START_TEST(test_tee_launch_line)
{
  gchar *model = find_model(FACE);
  for (int gl = 0; gl < 2; gl++) {
    gchar *desc = g_strdup_printf("%s num-buffers=10 ! tee name=t t. ! queue ! tflitefilter model=%s %s ! fakesink "
                                  "t. ! queue ! fakesink",
                                  gl ? "gltestsrc" : "videotestsrc", model, gl ? "delegate=gl" : "");
    run_out o = { 0 };
    run_launch(desc, &o);
    fail_unless(o.error == NULL, "%s: %s", desc, o.error);
    fail_unless_equals_int(o.results->len, 10);
    run_out_clear(&o);
    g_free(desc);
  }
  g_free(model);
}
GST_END_TEST;

/* ---- eight branches, one engine ---- */

static gchar *branches_line(const gchar *src, const gchar *model, gint n, gint frames, const gchar *extra)
{
  GString *s = g_string_new(NULL);
  g_string_append_printf(s, "%s num-buffers=%d ! video/x-raw%s,width=128,height=96,format=RGBA ! tee name=t ", src,
                         frames, g_str_has_prefix(src, "gl") ? "(memory:GLMemory)" : "");
  for (gint i = 0; i < n; i++)
    g_string_append_printf(s, "t. ! queue ! tflitefilter name=f%d model=%s %s %s ! fakesink sync=false ", i, model,
                           g_str_has_prefix(src, "gl") ? "delegate=gl" : "", extra);
  return g_string_free(s, FALSE);
}

static void check_branches(const gchar *src, const gchar *extra, gint launches, gint frames)
{
  gchar *model = find_model(FACE);
  gchar *desc = branches_line(src, model, 8, frames, extra);
  for (gint l = 0; l < launches; l++) {
    run_out o = { 0 };
    run_launch(desc, &o);
    fail_unless(o.error == NULL, "launch %d: %s", l, o.error);
    fail_unless_equals_int(o.models->len, 8);
    fail_unless_equals_int(o.results->len, 8 * frames);
    guint64 id0 = 0;
    for (guint i = 0; i < o.models->len; i++) {
      guint64 id = 0;
      fail_unless(gst_structure_get_uint64(g_ptr_array_index(o.models, i), "engine-id", &id));
      if (!i) id0 = id;
      fail_unless(id == id0, "launch %d: branch %u runs engine %" G_GUINT64_FORMAT ", branch 0 engine %" G_GUINT64_FORMAT,
                  l, i, id, id0);
    }
    run_out_clear(&o);
  }
  g_free(desc);
  g_free(model);
}

GST_START_TEST(test_branches_cpu)
{
  check_branches("videotestsrc", "", 100, 3);
}
GST_END_TEST;

GST_START_TEST(test_branches_gl)
{
  /* llvmpipe compiles slowly: the program cache keeps the other 99 launches short, and
   * one frame per branch is enough to meet the engine's creation and its batches */
  gchar *cache = g_dir_make_tmp("tflite-streams-XXXXXX", NULL);
  gchar *extra = g_strdup_printf("cache-dir=%s", cache);
  check_branches("gltestsrc", extra, 100, 1);
  gchar *rm = g_strdup_printf("rm -rf '%s'", cache);
  fail_unless(system(rm) == 0);
  g_free(rm);
  g_free(extra);
  g_free(cache);
}
GST_END_TEST;

/* Different names keep engines apart. */
GST_START_TEST(test_instance_id)
{
  gchar *model = find_model(FACE);
  gchar *desc = g_strdup_printf("videotestsrc num-buffers=2 ! tee name=t t. ! queue ! tflitefilter model=%s "
                                "model-instance-id=a ! fakesink t. ! queue ! tflitefilter model=%s "
                                "model-instance-id=b ! fakesink t. ! queue ! tflitefilter model=%s "
                                "model-instance-id=a ! fakesink", model, model, model);
  run_out o = { 0 };
  run_launch(desc, &o);
  fail_unless(o.error == NULL, "%s", o.error);
  fail_unless_equals_int(o.models->len, 3);
  GHashTable *ids = g_hash_table_new(g_int64_hash, g_int64_equal);
  for (guint i = 0; i < o.models->len; i++) {
    static gint64 keys[3];
    guint64 id = 0;
    gst_structure_get_uint64(g_ptr_array_index(o.models, i), "engine-id", &id);
    keys[i] = (gint64)id;
    g_hash_table_add(ids, &keys[i]);
  }
  fail_unless_equals_int(g_hash_table_size(ids), 2);
  g_hash_table_unref(ids);
  run_out_clear(&o);
  g_free(desc);
  g_free(model);
}
GST_END_TEST;

/* ---- batching across streams ---- */

/* Four appsrc streams of different pictures into four tflitefilters of one model: with a
 * batch window the frames run in batches, and every result equals the one of a run
 * without batching. */
static GstBuffer *picture_frame(const gchar *name, gint w, gint h, gboolean flip)
{
  gchar *path = picture(name);
  gchar *desc = g_strdup_printf("filesrc location=%s ! pngdec ! videoconvert ! videoscale %s ! "
                                "video/x-raw,format=RGBA,width=%d,height=%d ! appsink name=s",
                                path, flip ? "! videoflip method=horizontal-flip" : "", w, h);
  GstElement *p = gst_parse_launch(desc, NULL);
  fail_unless(p != NULL);
  GstElement *s = gst_bin_get_by_name(GST_BIN(p), "s");
  gst_element_set_state(p, GST_STATE_PLAYING);
  GstSample *sample = gst_app_sink_try_pull_sample(GST_APP_SINK(s), 30 * GST_SECOND);
  fail_unless(sample != NULL, "could not decode %s", path);
  GstBuffer *b = gst_buffer_copy_deep(gst_sample_get_buffer(sample));
  gst_sample_unref(sample);
  gst_element_set_state(p, GST_STATE_NULL);
  gst_object_unref(s);
  gst_object_unref(p);
  g_free(desc);
  g_free(path);
  return b;
}

typedef struct {
  GstElement *src;
  GstBuffer *frame;
  gint left;
} feeder;

static gpointer feed(gpointer data)
{
  feeder *f = data;
  for (gint i = 0; i < f->left; i++) {
    GstBuffer *b = gst_buffer_copy(f->frame);
    GST_BUFFER_PTS(b) = (GstClockTime)i * GST_SECOND / 30;
    if (gst_app_src_push_buffer(GST_APP_SRC(f->src), b) != GST_FLOW_OK) break;
  }
  gst_app_src_end_of_stream(GST_APP_SRC(f->src));
  return NULL;
}

/* Runs 4 streams x frames; returns the results messages sorted by source then time. */
static void run_four(const gchar *model, guint window_us, gboolean gl, GstBuffer *pics[4], gint frames, run_out *o)
{
  GString *s = g_string_new(NULL);
  for (gint i = 0; i < 4; i++)
    g_string_append_printf(s, "appsrc name=src%d is-live=false format=time caps=video/x-raw,format=RGBA,width=224,"
                              "height=224,framerate=30/1 %s ! tflitefilter name=f%d model=%s %s batch-window=%u "
                              "threshold=0 max-results=5 ! fakesink sync=false ",
                           i, gl ? "! glupload" : "", i, model, gl ? "delegate=gl" : "", window_us);
  GError *err = NULL;
  GstElement *pipe = gst_parse_launch(s->str, &err);
  fail_unless(pipe && !err, "%s", err ? err->message : "");
  g_string_free(s, TRUE);
  feeder fd[4];
  GThread *th[4];
  fail_unless(gst_element_set_state(pipe, GST_STATE_PAUSED) != GST_STATE_CHANGE_FAILURE);
  for (gint i = 0; i < 4; i++) {
    gchar name[8];
    g_snprintf(name, sizeof name, "src%d", i);
    fd[i] = (feeder){ gst_bin_get_by_name(GST_BIN(pipe), name), pics[i], frames };
    th[i] = g_thread_new("feed", feed, &fd[i]);
  }
  run_pipeline(pipe, o);
  for (gint i = 0; i < 4; i++) {
    g_thread_join(th[i]);
    gst_object_unref(fd[i].src);
  }
  gst_object_unref(pipe);
}

static const GstStructure *item(const GstStructure *s, const gchar *field, guint i)
{
  const GValue *l = gst_structure_get_value(s, field);
  if (!l || i >= gst_value_list_get_size(l)) return NULL;
  return gst_value_get_structure(gst_value_list_get_value(l, i));
}

static gdouble top_score(const GstStructure *res, gint *id)
{
  const GstStructure *c = item(res, "classes", 0);
  gdouble v = -1;
  *id = -1;
  if (c) {
    gst_structure_get_int(c, "id", id);
    gst_structure_get_double(c, "score", &v);
  }
  return v;
}

static void check_batching(gboolean gl)
{
  gchar *model = find_model(MV1);
  GstBuffer *pics[4] = { picture_frame("astronaut.png", 224, 224, FALSE), picture_frame("chelsea.png", 224, 224, FALSE),
                         picture_frame("astronaut.png", 224, 224, TRUE), picture_frame("chelsea.png", 224, 224, TRUE) };
  const gint frames = gl ? 3 : 6;
  run_out one = { 0 }, many = { 0 };
  run_four(model, 0, gl, pics, frames, &one);
  /* a window long enough for four feeders on a busy 2-core machine */
  run_four(model, 200000, gl, pics, frames, &many);
  fail_unless(!one.error && !many.error, "%s %s", one.error, many.error);
  fail_unless_equals_int(one.results->len, 4 * frames);
  fail_unless_equals_int(many.results->len, 4 * frames);
  gint batched = 0, worst_batch = 0;
  gdouble worst = 0;
  for (guint i = 0; i < many.results->len; i++) {
    const GstStructure *m = g_ptr_array_index(many.results, i);
    gint batch = 0;
    gst_structure_get_int(m, "batch", &batch);
    batched += batch > 1;
    worst_batch = MAX(worst_batch, batch);
    /* the same stream's first result of the unbatched run (every frame of a stream is alike) */
    const gchar *src = gst_structure_get_string(m, "source");
    const GstStructure *ref = NULL;
    for (guint k = 0; k < one.results->len && !ref; k++)
      if (!g_strcmp0(gst_structure_get_string(g_ptr_array_index(one.results, k), "source"), src))
        ref = g_ptr_array_index(one.results, k);
    fail_unless(ref != NULL);
    gint ida, idb;
    gdouble a = top_score(m, &ida), b = top_score(ref, &idb);
    fail_unless(ida == idb, "%s: batched class %d, alone %d", src, ida, idb);
    worst = MAX(worst, ABS(a - b));
  }
  /* GL: the batched shaders do the same arithmetic; CPU: oneDNN picks other blockings for
   * a batch, so float sums round in another order (the fp32 model tolerance, 1e-4 of
   * these 0..1 scores; the reference and 8-bit paths stay bit-exact: test_engine) */
  fail_unless(worst <= (gl ? 1e-3 : 1e-4), "batched scores differ by %g", worst);
  fail_unless(batched > 0, "no frame ran in a batch (largest %d)", worst_batch);
  g_print("batching (%s): %d of %u results ran batched (largest batch %d), worst score difference %g\n",
          gl ? "GL" : "CPU", batched, many.results->len, worst_batch, worst);
  run_out_clear(&one);
  run_out_clear(&many);
  for (gint i = 0; i < 4; i++) gst_buffer_unref(pics[i]);
  g_free(model);
}

GST_START_TEST(test_batching_cpu)
{
  check_batching(FALSE);
}
GST_END_TEST;

GST_START_TEST(test_batching_gl)
{
  check_batching(TRUE);
}
GST_END_TEST;

/* ---- every frame drawn with its own mask, four frames queued ---- */

typedef struct {
  GMutex lock;
  GCond cond;
  gint filtered;   /* frames out of tflitefilter */
  gint drawn;      /* frames into tfliteoverlay */
  gboolean eos;
} hold;

static GstPadProbeReturn count_filtered(GstPad *pad, GstPadProbeInfo *info, gpointer data)
{
  hold *h = data;
  g_mutex_lock(&h->lock);
  if (GST_PAD_PROBE_INFO_TYPE(info) & GST_PAD_PROBE_TYPE_BUFFER) h->filtered++;
  else if (GST_EVENT_TYPE(GST_PAD_PROBE_INFO_EVENT(info)) == GST_EVENT_EOS) h->eos = TRUE;
  g_cond_broadcast(&h->cond);
  g_mutex_unlock(&h->lock);
  return GST_PAD_PROBE_OK;
}

/* The overlay draws frame k only once tflitefilter has run frames k+1..k+3: without
 * masks of their own, frame k would be drawn with a later frame's mask. */
static GstPadProbeReturn hold_overlay(GstPad *pad, GstPadProbeInfo *info, gpointer data)
{
  hold *h = data;
  gint64 until = g_get_monotonic_time() + 60 * G_TIME_SPAN_SECOND;
  g_mutex_lock(&h->lock);
  gint k = h->drawn++;
  while (h->filtered < k + 4 && !h->eos)
    if (!g_cond_wait_until(&h->cond, &h->lock, until)) break;
  g_mutex_unlock(&h->lock);
  return GST_PAD_PROBE_OK;
}

/* Frames alternating between two pictures through selfie segmentation and the overlay;
 * held: the overlay waits as above. Returns the drawn frames' RGBA bytes. */
static GPtrArray *draw_alternating(gboolean gl, const gchar *props, gboolean held, GstBuffer *pics[2], gint frames)
{
  gchar *model = find_model(SELFIE);
  gchar *desc = g_strdup_printf(
    "appsrc name=src format=time caps=video/x-raw,format=RGBA,width=192,height=192,framerate=30/1 %s ! "
    "tflitefilter name=f model=%s %s %s ! queue max-size-buffers=4 max-size-time=0 max-size-bytes=0 ! "
    "tfliteoverlay name=ov mask-alpha=0.8 %s ! video/x-raw,format=RGBA ! appsink name=out sync=false",
    gl ? "! glupload" : "", model, gl ? "delegate=gl" : "", props, gl ? "! gldownload" : "");
  GstElement *pipe = gst_parse_launch(desc, NULL);
  fail_unless(pipe != NULL);
  hold h = { 0 };
  g_mutex_init(&h.lock);
  g_cond_init(&h.cond);
  if (held) {
    GstElement *f = gst_bin_get_by_name(GST_BIN(pipe), "f"), *ov = gst_bin_get_by_name(GST_BIN(pipe), "ov");
    GstPad *fsrc = gst_element_get_static_pad(f, "src"), *ovsink = gst_element_get_static_pad(ov, "sink");
    gst_pad_add_probe(fsrc, GST_PAD_PROBE_TYPE_BUFFER | GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, count_filtered, &h, NULL);
    gst_pad_add_probe(ovsink, GST_PAD_PROBE_TYPE_BUFFER, hold_overlay, &h, NULL);
    gst_object_unref(fsrc);
    gst_object_unref(ovsink);
    gst_object_unref(f);
    gst_object_unref(ov);
  }
  GstElement *src = gst_bin_get_by_name(GST_BIN(pipe), "src"), *out = gst_bin_get_by_name(GST_BIN(pipe), "out");
  gst_element_set_state(pipe, GST_STATE_PLAYING);
  for (gint i = 0; i < frames; i++) {
    GstBuffer *b = gst_buffer_copy_deep(pics[i % 2]);
    GST_BUFFER_PTS(b) = (GstClockTime)i * GST_SECOND / 30;
    fail_unless(gst_app_src_push_buffer(GST_APP_SRC(src), b) == GST_FLOW_OK);
  }
  gst_app_src_end_of_stream(GST_APP_SRC(src));
  GPtrArray *drawn = g_ptr_array_new_with_free_func((GDestroyNotify)g_bytes_unref);
  GstSample *s;
  while ((s = gst_app_sink_try_pull_sample(GST_APP_SINK(out), 120 * GST_SECOND))) {
    GstMapInfo m;
    GstBuffer *b = gst_sample_get_buffer(s);
    fail_unless(gst_buffer_map(b, &m, GST_MAP_READ));
    g_ptr_array_add(drawn, g_bytes_new(m.data, m.size));
    gst_buffer_unmap(b, &m);
    gst_sample_unref(s);
  }
  gst_element_set_state(pipe, GST_STATE_NULL);
  gst_object_unref(src);
  gst_object_unref(out);
  gst_object_unref(pipe);
  g_mutex_clear(&h.lock);
  g_cond_clear(&h.cond);
  g_free(desc);
  g_free(model);
  return drawn;
}

static void check_own_masks(gboolean gl, const gchar *props)
{
  /* the astronaut (a person: a mask) and a black frame (no person: no mask) */
  GstBuffer *pics[2] = { picture_frame("astronaut.png", 192, 192, FALSE), NULL };
  pics[1] = gst_buffer_copy_deep(pics[0]);
  gst_buffer_memset(pics[1], 0, 0, gst_buffer_get_size(pics[1]));
  const gint frames = 8;
  GPtrArray *alone = draw_alternating(gl, props, FALSE, pics, frames),
            *held = draw_alternating(gl, props, TRUE, pics, frames);
  fail_unless_equals_int(alone->len, frames);
  fail_unless_equals_int(held->len, frames);
  /* the two pictures' drawings must differ, or the check below could not fail */
  fail_unless(!g_bytes_equal(g_ptr_array_index(alone, 0), g_ptr_array_index(alone, 1)));
  for (gint i = 0; i < frames; i++) {
    gsize n;
    const guint8 *a = g_bytes_get_data(g_ptr_array_index(alone, i), &n);
    const guint8 *b = g_bytes_get_data(g_ptr_array_index(held, i), NULL);
    gint worst = 0;
    for (gsize k = 0; k < n; k++) worst = MAX(worst, ABS((gint)a[k] - (gint)b[k]));
    fail_unless(worst <= 1, "%s: frame %d drawn with 4 frames queued differs by %d levels from the same frame drawn "
                "alone: another frame's mask", gl ? "GL" : "CPU", i, worst);
  }
  g_ptr_array_unref(alone);
  g_ptr_array_unref(held);
  gst_buffer_unref(pics[0]);
  gst_buffer_unref(pics[1]);
}

GST_START_TEST(test_own_masks_cpu)
{
  check_own_masks(FALSE, "");
}
GST_END_TEST;

GST_START_TEST(test_own_masks_gl)
{
  check_own_masks(TRUE, "");
}
GST_END_TEST;

/* the engine on a context of its own: frames and masks cross contexts, fenced */
GST_START_TEST(test_own_masks_gl_shared)
{
  /* Mesa 22.3's llvmpipe crashed here once in 9-25 runs (SIGSEGV inside swrast_dri during
   * the engine context's input dispatch, while the pipeline's context drew the overlay:
   * two contexts' work on llvmpipe's shared worker threads); with its rendering on the
   * calling threads (LP_NUM_THREADS=0) 40 runs of 40 pass. The contexts still run
   * concurrently, which is what this case checks. Read when the display is opened (in
   * this forked test). */
  g_setenv("LP_NUM_THREADS", "0", TRUE);
  check_own_masks(TRUE, "engine-context=shared");
}
GST_END_TEST;

/* ---- memory: eight branches of deeplab on the CPU ---- */

/* Peak resident memory (KiB) of gst-launch-1.0 running desc. */
static glong peak_rss_kib(const gchar *desc)
{
  gchar *cmd = g_strdup_printf("gst-launch-1.0 -q %s", desc);
  gchar **argv = NULL;
  fail_unless(g_shell_parse_argv(cmd, NULL, &argv, NULL));
  GPid pid;
  GError *err = NULL;
  fail_unless(g_spawn_async(NULL, argv, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_DO_NOT_REAP_CHILD |
                            G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, &pid, &err), "%s", err ? err->message : "");
  int status = 0;
  struct rusage ru;
  fail_unless(wait4(pid, &status, 0, &ru) == pid);
  g_spawn_close_pid(pid);
  fail_unless(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s failed", cmd);
  g_strfreev(argv);
  g_free(cmd);
  return ru.ru_maxrss;
}

/* One engine for the eight: weights once, one arena. (With batching the batch runner adds
 * eight frames' activations - ours and XNNPACK's own workspace - which is what batching
 * costs, not sharing: measured in docs/pipeline-performance.md.) */
GST_START_TEST(test_memory_branches)
{
  gchar *model = find_model(DEEPLAB);
  gchar *one = branches_line("videotestsrc", model, 1, 20, "threads=2 batch-window=0"),
        *eight = branches_line("videotestsrc", model, 8, 20, "threads=2 batch-window=0");
  run_out o = { 0 };
  run_launch(one, &o);
  fail_unless(o.error == NULL && o.models->len == 1, "%s", o.error);
  guint64 arena = 0;
  gst_structure_get_uint64(g_ptr_array_index(o.models, 0), "arena-bytes", &arena);
  run_out_clear(&o);
  glong rss1 = peak_rss_kib(one), rss8 = peak_rss_kib(eight);
  double bound = 1.10 * ((double)rss1 + 8.0 * (double)arena / 1024.0);
  g_print("deeplab on the CPU: peak RSS 1 branch %ld KiB, 8 branches %ld KiB; arena %.0f KiB; bound "
          "1.1 x (1 branch + 8 arenas) = %.0f KiB\n", rss1, rss8, (double)arena / 1024.0, bound);
  fail_unless((double)rss8 <= bound, "8 branches take %ld KiB, over %.0f KiB", rss8, bound);
  g_free(one);
  g_free(eight);
  g_free(model);
}
GST_END_TEST;

static Suite *streams_suite(void)
{
  Suite *s = suite_create("tflite_streams");
  TCase *tc = tcase_create("streams");
  tcase_set_timeout(tc, 1200);
  suite_add_tcase(s, tc);
  tcase_add_test(tc, test_tee_cpu);
  tcase_add_test(tc, test_tee_gl);
  tcase_add_test(tc, test_tee_launch_line);
  tcase_add_test(tc, test_instance_id);
  tcase_add_test(tc, test_branches_cpu);
  tcase_add_test(tc, test_branches_gl);
  tcase_add_test(tc, test_batching_cpu);
  tcase_add_test(tc, test_batching_gl);
  tcase_add_test(tc, test_own_masks_cpu);
  tcase_add_test(tc, test_own_masks_gl);
  tcase_add_test(tc, test_own_masks_gl_shared);
  tcase_add_test(tc, test_memory_branches);
  return s;
}

GST_CHECK_MAIN(streams);
