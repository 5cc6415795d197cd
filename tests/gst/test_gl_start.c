/* test_gl_start.c - tflitefilter gl-start=cpu: the first GL frames run on the CPU while the
 * GL engine is compiled in the background, then GL takes over between two frames.
 *
 * Cold starts are real: main() points Mesa's shader disk cache at an empty folder of its
 * own and every pipeline gets an empty cache-dir (our program cache), so the first GL
 * engine of a model compiles every program (seconds on llvmpipe), as on a first run.
 *
 * Frames: astronaut.png at 128x128, repeated at 30 fps (imagefreeze), uploaded to GL;
 * each frame's timestamp numbers it. A probe behind the filter records every frame (its
 * number, when it left, whether the GL path made its mask); the bus gives each inference's
 * "tflite-results" (delegate, mask-fraction) and the "tflite-model" messages.
 *
 * Environment as test_tflitefilter (tests/meson.build), with tests/gst/models in
 * TFL_MODEL_DIRS (make_models.py there says what its models are for). */
#include <glib/gstdio.h>
#include <gst/check/gstcheck.h>
#include <math.h>
#include <string.h>

#include <gst/tflitemeta/gsttflitemeta.h>
#include "pipe_util.h"

#define SELFIE "selfie_segmentation.tflite"
#define SELFIE_WIDE "selfie_segmentation_landscape.tflite"
#define FACE "face_detection_short_range.tflite"
#define GL_REFUSED "gl_refused_tall.tflite"
#define FPS 30
#define SIZE 128

/* ---- temporary folders ---- */

static void remove_tree(const gchar *path)
{
  GDir *d = g_dir_open(path, 0, NULL);
  const gchar *name;
  while (d && (name = g_dir_read_name(d))) {
    gchar *p = g_build_filename(path, name, NULL);
    if (g_file_test(p, G_FILE_TEST_IS_DIR) && !g_file_test(p, G_FILE_TEST_IS_SYMLINK)) remove_tree(p);
    else g_unlink(p);
    g_free(p);
  }
  if (d) g_dir_close(d);
  g_rmdir(path);
}

/* An empty folder (remove_tree when done). */
static gchar *empty_dir(const gchar *what)
{
  gchar *tmpl = g_strdup_printf("gl-start-%s-XXXXXX", what), *dir = g_dir_make_tmp(tmpl, NULL);
  fail_unless(dir != NULL);
  g_free(tmpl);
  return dir;
}

/* ---- one run ---- */

typedef struct {
  guint64 idx;           /* frame number, from the timestamp */
  gint64 left_us;        /* when it left the filter (monotonic) */
  gboolean results;      /* it carries the filter's objects */
  gboolean gl_mask;      /* its mask is a GL texture: the GL path ran it */
  gint meta_width, caps_width;
} frame_rec;

typedef struct {
  /* what to do */
  gchar *desc;           /* filter "f" (probed), optional glupload "up", sink "sink" (RGBA) */
  gchar *cache;          /* the filters' cache-dir, an empty folder of the run's own */
  guint eos_after_gl;    /* EOS once this many frames ran on GL */
  gboolean eos_after_warning; /* EOS two frames after the first warning */
  guint null_after;      /* > 0: straight to NULL (no EOS) once this many frames left the filter */
  const gchar *eos_on_gl[3]; /* EOS two frames after each of these filters (NULL-ended)
                                 posted its GL "tflite-model" */
  guint rebuild_at;      /* > 0: "f" gets another threshold at this frame (its runtime is rebuilt) */
  guint resize_at;       /* > 0: capsfilter "cf" (every pipeline has it) gets resize_caps at this frame */
  const gchar *resize_caps;
  /* what happened; frames and pixels guarded by lock (streaming thread) */
  GMutex lock;
  GArray *frames;        /* frame_rec */
  guint gl_frames;
  guint8 *raw, *first_cpu, *first_gl; /* SIZE x SIZE RGBA: the picture before the filter, the
                                         sink's first frame of each path (with "up", "sink") */
  GstElement *filter, *capsfilter;
  gint64 playing_us;     /* when PLAYING was asked for */
  gdouble stop_ms;       /* null_after: how long the change to NULL took */
  GPtrArray *messages;   /* element messages, warnings, errors (refs) */
  gchar *error;          /* the first error and its debug text */
} gl_run;

static guint64 frame_idx(GstClockTime pts)
{
  return gst_util_uint64_scale_round(pts, FPS, GST_SECOND);
}

/* A SIZE x SIZE frame's pixels, or NULL (said in the log) for any other frame. Called from
 * streaming threads, so no check here: a failed check off the test's thread under
 * CK_FORK=no (the leaks runs) jumps into the test runner from that thread and hangs the
 * process; the tests check the pixels they kept on their own thread. */
static guint8 *copy_pixels(GstBuffer *buf)
{
  GstMapInfo map;
  if (!gst_buffer_map(buf, &map, GST_MAP_READ)) {
    GST_WARNING("a frame could not be mapped");
    return NULL;
  }
  guint8 *p = map.size >= SIZE * SIZE * 4 ? g_memdup2(map.data, SIZE * SIZE * 4) : NULL;
  if (!p) GST_WARNING("a frame of %" G_GSIZE_FORMAT " bytes, not %d x %d", map.size, SIZE, SIZE);
  gst_buffer_unmap(buf, &map);
  return p;
}

static GstPadProbeReturn picture_in(GstPad *pad, GstPadProbeInfo *info, gpointer data)
{
  gl_run *r = data;
  g_mutex_lock(&r->lock);
  if (!r->raw) r->raw = copy_pixels(GST_PAD_PROBE_INFO_BUFFER(info));
  g_mutex_unlock(&r->lock);
  return GST_PAD_PROBE_OK;
}

static GstPadProbeReturn filter_out(GstPad *pad, GstPadProbeInfo *info, gpointer data)
{
  gl_run *r = data;
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER(info);
  frame_rec f = { .idx = frame_idx(GST_BUFFER_PTS(buf)), .left_us = g_get_monotonic_time() };
  GstCaps *caps = gst_pad_get_current_caps(pad);
  if (caps) {
    gst_structure_get_int(gst_caps_get_structure(caps, 0), "width", &f.caps_width);
    gst_caps_unref(caps);
  }
  GstTfliteMeta *meta = gst_buffer_get_tflite_meta(buf);
  if (meta) {
    f.meta_width = meta->frame_width;
    f.results = gst_tflite_meta_n_objects(meta) > 0;
    for (guint i = 0; i < gst_tflite_meta_n_objects(meta); i++) {
      const GstTfliteObject *o = gst_tflite_meta_get_object(meta, i);
      if (o->mask && gst_tflite_mask_texture(o->mask, NULL)) f.gl_mask = TRUE;
    }
  }
  g_mutex_lock(&r->lock);
  g_array_append_val(r->frames, f);
  r->gl_frames += f.gl_mask;
  guint n = r->frames->len;
  g_mutex_unlock(&r->lock);
  if (r->rebuild_at && f.idx == r->rebuild_at) g_object_set(r->filter, "threshold", 0.4f, NULL);
  if (r->resize_at && f.idx == r->resize_at) {
    GstCaps *c = gst_caps_from_string(r->resize_caps);
    g_object_set(r->capsfilter, "caps", c, NULL);
    gst_caps_unref(c);
  }
  GST_LOG("frame %u left the filter", n);
  return GST_PAD_PROBE_OK;
}

/* The sink's frames (drawn by tfliteoverlay): the first of each path is kept. */
static GstPadProbeReturn frame_out(GstPad *pad, GstPadProbeInfo *info, gpointer data)
{
  gl_run *r = data;
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER(info);
  guint64 idx = frame_idx(GST_BUFFER_PTS(buf));
  g_mutex_lock(&r->lock);
  for (guint i = r->frames->len; i-- > 0;) {
    const frame_rec *f = &g_array_index(r->frames, frame_rec, i);
    if (f->idx != idx) continue;
    guint8 **keep = f->gl_mask ? &r->first_gl : &r->first_cpu;
    /* only frames of the first size: test_changes_during_start's GL may start after its resize */
    if (f->results && !*keep && f->caps_width == SIZE) *keep = copy_pixels(buf);
    break;
  }
  g_mutex_unlock(&r->lock);
  return GST_PAD_PROBE_OK;
}

static void probe(GstElement *pipe, const gchar *name, const gchar *pad, GstPadProbeCallback cb, gl_run *r)
{
  GstElement *e = gst_bin_get_by_name(GST_BIN(pipe), name);
  if (!e) return;
  GstPad *p = gst_element_get_static_pad(e, pad);
  gst_pad_add_probe(p, GST_PAD_PROBE_TYPE_BUFFER, cb, r, NULL);
  gst_object_unref(p);
  gst_object_unref(e);
}

static guint n_frames(gl_run *r)
{
  g_mutex_lock(&r->lock);
  guint n = r->frames->len;
  g_mutex_unlock(&r->lock);
  return n;
}

/* Whether filter `name` posted a "tflite-model" saying it runs on GL. */
static gboolean on_gl(const gl_run *r, const gchar *name)
{
  const GstStructure *s;
  for (guint i = 0; (s = pipe_run_message(&(pipe_run){ .messages = r->messages }, "tflite-model", name, i)); i++)
    if (!g_strcmp0(gst_structure_get_string(s, "delegate"), "gl")) return TRUE;
  return FALSE;
}

static gboolean all_on_gl(const gl_run *r)
{
  if (!r->eos_on_gl[0]) return FALSE;
  for (guint i = 0; r->eos_on_gl[i]; i++)
    if (!on_gl(r, r->eos_on_gl[i])) return FALSE;
  return TRUE;
}

/* Runs r->desc until EOS or an error (or r->null_after frames), at most 300 s. */
static void run(gl_run *r)
{
  g_mutex_init(&r->lock);
  r->frames = g_array_new(FALSE, TRUE, sizeof(frame_rec));
  r->messages = g_ptr_array_new_with_free_func((GDestroyNotify)gst_message_unref);
  GError *err = NULL;
  GstElement *pipe = gst_parse_launch(r->desc, &err);
  fail_unless(pipe && !err, "%s: %s", r->desc, err ? err->message : "?");
  r->filter = gst_bin_get_by_name(GST_BIN(pipe), "f");
  r->capsfilter = gst_bin_get_by_name(GST_BIN(pipe), "cf");
  fail_unless(r->filter != NULL && r->capsfilter != NULL);
  probe(pipe, "up", "sink", picture_in, r);
  probe(pipe, "f", "src", filter_out, r);
  probe(pipe, "sink", "sink", frame_out, r);
  GstBus *bus = gst_element_get_bus(pipe);
  r->playing_us = g_get_monotonic_time();
  gst_element_set_state(pipe, GST_STATE_PLAYING);
  gint64 end = r->playing_us + 300 * G_USEC_PER_SEC;
  gboolean eos_sent = FALSE;
  guint warned_at = 0, gl_at = 0;
  for (;;) {
    guint n = n_frames(r);
    if (r->null_after && n >= r->null_after) break;
    g_mutex_lock(&r->lock);
    gboolean enough = r->eos_after_gl && r->gl_frames >= r->eos_after_gl;
    g_mutex_unlock(&r->lock);
    if (!gl_at && all_on_gl(r)) gl_at = n + 1;
    enough |= (warned_at && n >= warned_at + 2) || (gl_at && n >= gl_at + 2);
    if (enough && !eos_sent) {
      /* imagefreeze repeats its picture past its own input's EOS: the end is sent below it */
      GstPad *pad = gst_element_get_static_pad(r->capsfilter, "sink");
      eos_sent = gst_pad_send_event(pad, gst_event_new_eos());
      gst_object_unref(pad);
    }
    GstMessage *m = gst_bus_timed_pop(bus, 20 * GST_MSECOND);
    fail_unless(g_get_monotonic_time() < end, "%s: did not end within 300 s", r->desc);
    if (!m) continue;
    GstMessageType t = GST_MESSAGE_TYPE(m);
    if (t == GST_MESSAGE_ERROR && !r->error) {
      GError *e = NULL;
      gchar *dbg = NULL;
      gst_message_parse_error(m, &e, &dbg);
      r->error = g_strdup_printf("%s: %s (%s)", GST_OBJECT_NAME(GST_MESSAGE_SRC(m)), e->message, dbg ? dbg : "");
      g_clear_error(&e);
      g_free(dbg);
    }
    if (t == GST_MESSAGE_WARNING && r->eos_after_warning && !warned_at) warned_at = n + 1;
    if (t == GST_MESSAGE_ELEMENT || t == GST_MESSAGE_WARNING || t == GST_MESSAGE_ERROR)
      g_ptr_array_add(r->messages, gst_message_ref(m));
    gst_message_unref(m);
    if (t == GST_MESSAGE_EOS || t == GST_MESSAGE_ERROR) break;
  }
  gint64 t0 = g_get_monotonic_time();
  fail_unless_equals_int(gst_element_set_state(pipe, GST_STATE_NULL), GST_STATE_CHANGE_SUCCESS);
  r->stop_ms = (gdouble)(g_get_monotonic_time() - t0) / 1000.0;
  gst_object_unref(bus);
  gst_object_unref(r->filter);
  gst_object_unref(r->capsfilter);
  gst_object_unref(pipe);
}

static void run_clear(gl_run *r)
{
  g_free(r->desc);
  remove_tree(r->cache);
  g_free(r->cache);
  g_array_unref(r->frames);
  g_ptr_array_unref(r->messages);
  g_free(r->raw);
  g_free(r->first_cpu);
  g_free(r->first_gl);
  g_free(r->error);
  g_mutex_clear(&r->lock);
}

static const frame_rec *frame(const gl_run *r, guint i)
{
  return &g_array_index(r->frames, frame_rec, i);
}

static const GstStructure *message(const gl_run *r, const gchar *name, guint i)
{
  return pipe_run_message(&(pipe_run){ .messages = r->messages }, name, "f", i);
}

static guint count_messages(const gl_run *r, const gchar *name)
{
  guint n = 0;
  while (message(r, name, n)) n++;
  return n;
}

/* Milliseconds from PLAYING until the first frame with results left the filter. */
static gdouble first_result_ms(const gl_run *r)
{
  for (guint i = 0; i < r->frames->len; i++)
    if (frame(r, i)->results) return (gdouble)(frame(r, i)->left_us - r->playing_us) / 1000.0;
  fail("%s: no frame with results", r->desc);
  return 0;
}

/* Every frame 0..n-1 left the filter once, in order. */
static void check_in_order(const gl_run *r)
{
  for (guint i = 0; i < r->frames->len; i++)
    fail_unless(frame(r, i)->idx == i, "%s: frame %u left as frame %" G_GUINT64_FORMAT, r->desc, i, frame(r, i)->idx);
}

static gdouble mean_abs_diff(const guint8 *a, const guint8 *b)
{
  guint64 sum = 0;
  for (guint i = 0; i < SIZE * SIZE * 4; i++) sum += (guint64)ABS((gint)a[i] - (gint)b[i]);
  return (gdouble)sum / (SIZE * SIZE * 4);
}

#define GL_FRAMES "filesrc location=%s ! pngdec ! videoconvert ! videoscale ! " \
  "video/x-raw,format=RGBA,width=128,height=128 ! imagefreeze %s ! video/x-raw,framerate=30/1 ! videoscale ! " \
  "capsfilter name=cf ! glupload name=up ! "

/* r's pipeline on GL frames: `source` after imagefreeze (num-buffers), the filter with
 * `model`, delegate=gl (llvmpipe here: delegate=auto would run on the CPU), the run's own
 * empty cache-dir (r->cache, made unless set) and `props` (a delegate there wins), `tail`
 * after it. */
static void gl_pipeline(gl_run *r, const gchar *source, const gchar *model, const gchar *props, const gchar *tail)
{
  gchar *pic = pipe_picture("astronaut.png"), *path = pipe_model(model);
  if (!r->cache) r->cache = empty_dir("cache");
  r->desc = g_strdup_printf(GL_FRAMES "tflitefilter name=f model=%s qos=false delegate=gl cache-dir=%s %s ! %s", pic, source, path,
                            r->cache, props, tail);
  g_free(path);
  g_free(pic);
}

#define OVERLAY_TAIL "tfliteoverlay ! gldownload ! video/x-raw,format=RGBA ! fakesink name=sink sync=%s"

/* ---- the first results come from the CPU, then GL takes over ---- */

/* The mask fraction of the inference on frame idx, and its delegate. */
static gdouble fraction_of(const gl_run *r, guint64 idx, const gchar **delegate)
{
  for (guint i = 0;; i++) {
    const GstStructure *s = message(r, "tflite-results", i);
    fail_unless(s != NULL, "%s: no results for frame %" G_GUINT64_FORMAT, r->desc, idx);
    guint64 ts = 0;
    gst_structure_get_uint64(s, "timestamp", &ts);
    if (frame_idx(ts) != idx) continue;
    gdouble f = -1;
    fail_unless(gst_structure_get_double(s, "mask-fraction", &f), "frame %" G_GUINT64_FORMAT ": no mask-fraction", idx);
    *delegate = gst_structure_get_string(s, "delegate");
    return f;
  }
}

GST_START_TEST(test_cpu_first_then_gl)
{
  /* gl-start=wait, cold: the first result waits for every program to compile */
  gchar *tail = g_strdup_printf(OVERLAY_TAIL, "false");
  gl_run wait = { 0 };
  gl_pipeline(&wait, "num-buffers=2", SELFIE, "gl-readback=true gl-start=wait", tail);
  run(&wait);
  fail_unless(wait.error == NULL, "%s", wait.error);
  const gchar *d = NULL;
  gdouble wait_fraction = fraction_of(&wait, 1, &d);
  fail_unless_equals_string(d, "gl");

  /* delegate=cpu on the same GL frames (read through a download): the CPU's results */
  gl_run ref = { 0 };
  gl_pipeline(&ref, "num-buffers=1", SELFIE, "delegate=cpu", tail);
  run(&ref);
  fail_unless(ref.error == NULL, "%s", ref.error);
  gdouble cpu_fraction = fraction_of(&ref, 0, &d);
  fail_unless_equals_string(d, "cpu");

  /* gl-start=cpu: CPU frames from the start, GL from the frame after the engine is ready */
  g_free(tail);
  tail = g_strdup_printf(OVERLAY_TAIL, "true");
  gl_run cpu = { .eos_after_gl = 3 };
  gl_pipeline(&cpu, "", SELFIE, "gl-readback=true gl-start=cpu", tail);
  run(&cpu);
  fail_unless(cpu.error == NULL, "%s", cpu.error);
  fail_unless(pipe_run_count_warnings(&(pipe_run){ .messages = cpu.messages }, "") == 0, "a warning");
  check_in_order(&cpu);
  gdouble wait_ms = first_result_ms(&wait), cpu_ms = first_result_ms(&cpu);
  g_print("first result: gl-start=wait %.0f ms, gl-start=cpu %.0f ms\n", wait_ms, cpu_ms);
  fail_unless(cpu_ms * 3 < wait_ms, "gl-start=cpu's first result after %.0f ms, wait's after %.0f ms", cpu_ms, wait_ms);

  /* every frame ran: first on the CPU (CPU masks), then on GL (masks on the GPU too) */
  guint n = cpu.frames->len, on_cpu = 0;
  while (on_cpu < n && !frame(&cpu, on_cpu)->gl_mask) on_cpu++;
  fail_unless(on_cpu >= 1 && n - on_cpu >= 3, "%u frames on the CPU, %u on GL", on_cpu, n - on_cpu);
  fail_unless_equals_int(count_messages(&cpu, "tflite-results"), n);
  for (guint i = 0; i < n; i++) {
    fail_unless(frame(&cpu, i)->results, "frame %u has no results", i);
    fail_unless(frame(&cpu, i)->gl_mask == (i >= on_cpu), "frame %u: GL mask %d after %u CPU frames", i,
                frame(&cpu, i)->gl_mask, on_cpu);
    gdouble f = fraction_of(&cpu, i, &d);
    if (i < on_cpu) {
      fail_unless_equals_string(d, "cpu");
      fail_unless(fabs(f - cpu_fraction) < 1e-9, "CPU frame %u: mask %f, delegate=cpu %f", i, f, cpu_fraction);
    } else {
      fail_unless_equals_string(d, "gl");
      /* the GL / CPU tolerance of test_tflitefilter's test_gl_matches_cpu */
      fail_unless(fabs(f - wait_fraction) < 0.005, "GL frame %u: mask %f, gl-start=wait %f", i, f, wait_fraction);
    }
  }
  fail_unless(cpu_fraction > 0.3 && fabs(cpu_fraction - wait_fraction) < 0.005, "CPU %f GL %f", cpu_fraction,
              wait_fraction);

  /* the model message twice: on the CPU while GL is made, then on GL */
  fail_unless_equals_int(count_messages(&cpu, "tflite-model"), 2);
  const GstStructure *m0 = message(&cpu, "tflite-model", 0), *m1 = message(&cpu, "tflite-model", 1);
  gboolean pending = FALSE;
  fail_unless_equals_string(gst_structure_get_string(m0, "delegate"), "cpu");
  fail_unless(gst_structure_get_boolean(m0, "gl-start-pending", &pending) && pending);
  fail_unless_equals_string(gst_structure_get_string(m1, "delegate"), "gl");
  guint64 cpu_frames = 0;
  gdouble gl_ms = 0;
  fail_unless(gst_structure_get_uint64(m1, "cpu-frames", &cpu_frames) && cpu_frames == on_cpu, "cpu-frames %" G_GUINT64_FORMAT
              ", %u frames ran on the CPU", cpu_frames, on_cpu);
  fail_unless(gst_structure_get_double(m1, "gl-start-ms", &gl_ms) && gl_ms > 0);
  g_print("gl-start=cpu: %u frames on the CPU, GL ready after %.0f ms\n", on_cpu, gl_ms);

  /* tfliteoverlay on GL frames draws the CPU mask as it draws the GL one */
  fail_unless(cpu.raw && cpu.first_cpu && cpu.first_gl);
  gdouble drawn = mean_abs_diff(cpu.raw, cpu.first_cpu), apart = mean_abs_diff(cpu.first_cpu, cpu.first_gl);
  fail_unless(drawn > 5 && apart < drawn / 10, "overlay: the CPU frame differs from the picture by %.2f, "
              "from the GL frame by %.2f", drawn, apart);

  run_clear(&wait);
  run_clear(&ref);
  run_clear(&cpu);
  g_free(tail);
}
GST_END_TEST;

/* ---- changes while the GL engine is made ---- */

/* The pipeline goes to NULL during the cold compile: the state change returns once the
 * compile step it is in ends, nothing is leaked (the leaks run) and no GL message came. */
GST_START_TEST(test_stop_during_start)
{
  gl_run r = { .null_after = 2 };
  gl_pipeline(&r, "", FACE, "gl-start=cpu", "fakesink sync=true");
  run(&r);
  fail_unless(r.error == NULL, "%s", r.error);
  fail_unless_equals_int(count_messages(&r, "tflite-model"), 1);
  fail_unless(frame(&r, 0)->results && !frame(&r, 0)->gl_mask);
  g_print("stopped during the GL start: NULL took %.0f ms\n", r.stop_ms);
  fail_unless(r.stop_ms < 120000, "stopping took %.0f ms", r.stop_ms);
  run_clear(&r);
}
GST_END_TEST;

/* The delegates of the inferences, in order ("c" CPU, "g" GL). */
static gchar *delegates(const gl_run *r)
{
  GString *str = g_string_new(NULL);
  const GstStructure *s;
  for (guint i = 0; (s = message(r, "tflite-results", i)); i++)
    g_string_append_c(str, !g_strcmp0(gst_structure_get_string(s, "delegate"), "gl") ? 'g' : 'c');
  return g_string_free(str, FALSE);
}

/* A property change (the runtime is rebuilt: the background start is joined and begins
 * again) and new caps while the GL engine is made (a model no other test compiled, so it
 * is cold): frames keep coming in order, each with its own frame size's results, and GL
 * takes over in the end. */
GST_START_TEST(test_changes_during_start)
{
  gl_run r = { .eos_on_gl = { "f" }, .rebuild_at = 2, .resize_at = 4, .resize_caps = "video/x-raw,width=96,height=96" };
  gl_pipeline(&r, "", SELFIE_WIDE, "gl-start=cpu threshold=0.3", "fakesink sync=true");
  run(&r);
  fail_unless(r.error == NULL, "%s", r.error);
  check_in_order(&r);
  guint n = r.frames->len;
  for (guint i = 0; i < n; i++) {
    const frame_rec *f = frame(&r, i);
    fail_unless(f->results, "frame %u: no results", i);
    fail_unless(f->caps_width == (i <= 4 ? SIZE : 96), "frame %u: width %d", i, f->caps_width);
    fail_unless(f->meta_width == f->caps_width, "frame %u: meta for width %d, the frame is %d", i, f->meta_width,
                f->caps_width);
  }
  /* CPU frames, the rebuild (CPU again), then GL to the end */
  gchar *order = delegates(&r);
  g_print("changes during the GL start: inferences %s\n", order);
  fail_unless(strlen(order) == n && g_regex_match_simple("^c{3,}g{2,}$", order, 0, 0), "inferences %s", order);
  guint models = count_messages(&r, "tflite-model");
  fail_unless(models == 3, "%u model messages", models);
  fail_unless_equals_string(gst_structure_get_string(message(&r, "tflite-model", 1), "delegate"), "cpu");
  fail_unless_equals_string(gst_structure_get_string(message(&r, "tflite-model", 2), "delegate"), "gl");
  g_free(order);
  run_clear(&r);
}
GST_END_TEST;

/* ---- failures and sharing ---- */

/* A model the GL delegate refuses when it compiles it (tests/gst/models/make_models.py):
 * the CPU goes on, with one warning naming why; with delegate=gl an error, as without
 * gl-start. */
GST_START_TEST(test_gl_failure_keeps_cpu)
{
  gl_run r = { .eos_after_warning = TRUE };
  /* delegate=auto tries GL on this software renderer only when told to */
  g_setenv("GST_TFLITE_SOFTWARE_GL", "1", TRUE);
  gl_pipeline(&r, "", GL_REFUSED, "gl-start=cpu delegate=auto decoder=none", "fakesink sync=true");
  run(&r);
  fail_unless(r.error == NULL, "%s", r.error);
  check_in_order(&r);
  pipe_run pr = { .messages = r.messages };
  fail_unless_equals_int(pipe_run_count_warnings(&pr, ""), 1);
  fail_unless_equals_int(pipe_run_count_warnings(&pr, "workgroups"), 1);
  gchar *order = delegates(&r);
  fail_unless(strlen(order) == r.frames->len && strlen(order) >= 3 && !strchr(order, 'g'), "inferences %s", order);
  fail_unless_equals_int(count_messages(&r, "tflite-model"), 1);
  g_free(order);
  run_clear(&r);

  gl_run e = { 0 };
  gl_pipeline(&e, "", GL_REFUSED, "gl-start=cpu delegate=gl decoder=none", "fakesink sync=true");
  run(&e);
  fail_unless(e.error && g_str_has_prefix(e.error, "f: The GL delegate is not available.") && strstr(e.error, "workgroups"),
              "error %s", e.error);
  run_clear(&e);
}
GST_END_TEST;

/* Two elements of one model starting at once, a queue between them: the first with its
 * engine on the shared context (made there directly, in the background), the second on
 * the frames' context (which shares with it): both end on one GL engine. */
GST_START_TEST(test_shared_engine)
{
  /* one cache-dir, as a shared engine needs */
  gl_run r = { .eos_on_gl = { "f", "f2" }, .cache = empty_dir("cache") };
  gchar *model = pipe_model(SELFIE);
  gchar *second = g_strdup_printf("queue ! tflitefilter name=f2 model=%s qos=false delegate=gl gl-start=cpu cache-dir=%s ! "
                                  "fakesink sync=true", model, r.cache);
  gl_pipeline(&r, "", SELFIE, "gl-start=cpu engine-context=shared", second);
  g_free(second);
  g_free(model);
  run(&r);
  fail_unless(r.error == NULL, "%s", r.error);
  guint64 id[2] = { 0, 1 };
  const gchar *names[2] = { "f", "f2" };
  for (gint k = 0; k < 2; k++) {
    const GstStructure *s;
    for (guint i = 0; (s = pipe_run_message(&(pipe_run){ .messages = r.messages }, "tflite-model", names[k], i)); i++)
      if (!g_strcmp0(gst_structure_get_string(s, "delegate"), "gl")) gst_structure_get_uint64(s, "engine-id", &id[k]);
  }
  fail_unless(id[0] == id[1], "GL engines %" G_GUINT64_FORMAT " and %" G_GUINT64_FORMAT, id[0], id[1]);
  run_clear(&r);
}
GST_END_TEST;

/* Whether r got a warning whose debug text holds `what`. */
static gboolean warned(const gl_run *r, const gchar *what)
{
  for (guint i = 0; i < r->messages->len; i++) {
    GstMessage *m = g_ptr_array_index(r->messages, i);
    if (GST_MESSAGE_TYPE(m) != GST_MESSAGE_WARNING) continue;
    GError *e = NULL;
    gchar *dbg = NULL;
    gst_message_parse_warning(m, &e, &dbg);
    gboolean hit = dbg && strstr(dbg, what);
    g_clear_error(&e);
    g_free(dbg);
    if (hit) return TRUE;
  }
  return FALSE;
}

/* TFL_GL_EGL_PLATFORM=none: the element cannot make a GL context of its own (as on an EGL
 * with no platform we use); delegate=gl engine-context=shared then runs on the frames'
 * context after a warning naming why, not an error, with the CPU's mask on those frames. */
GST_START_TEST(test_frames_context_fallback)
{
  gl_run ref = { 0 };
  gl_pipeline(&ref, "num-buffers=1", SELFIE, "delegate=cpu", "fakesink name=sink");
  run(&ref);
  fail_unless(ref.error == NULL, "%s", ref.error);
  const gchar *d = NULL;
  gdouble cpu_fraction = fraction_of(&ref, 0, &d);
  fail_unless_equals_string(d, "cpu");

  g_setenv("TFL_GL_EGL_PLATFORM", "none", TRUE);
  gl_run r = { 0 };
  gl_pipeline(&r, "num-buffers=1", SELFIE, "gl-start=wait engine-context=shared", "fakesink name=sink");
  run(&r);
  g_unsetenv("TFL_GL_EGL_PLATFORM");
  fail_unless(r.error == NULL, "%s", r.error);
  fail_unless(warned(&r, "TFL_GL_EGL_PLATFORM=none"), "no warning naming TFL_GL_EGL_PLATFORM=none");
  gdouble gl_fraction = fraction_of(&r, 0, &d);
  fail_unless_equals_string(d, "gl");
  fail_unless(cpu_fraction > 0.3 && fabs(cpu_fraction - gl_fraction) < 0.005, "CPU %f GL on the frames' context %f",
              cpu_fraction, gl_fraction);
  run_clear(&ref);
  run_clear(&r);
}
GST_END_TEST;

static Suite *gl_start_suite(void)
{
  Suite *s = suite_create("gl_start");
  TCase *tc = tcase_create("gl_start");
  tcase_set_timeout(tc, 600);
  tcase_add_checked_fixture(tc, pipe_filter_imagefreeze_race, NULL);
  suite_add_tcase(s, tc);
  tcase_add_test(tc, test_cpu_first_then_gl);
  tcase_add_test(tc, test_stop_during_start);
  tcase_add_test(tc, test_changes_during_start);
  tcase_add_test(tc, test_gl_failure_keeps_cpu);
  tcase_add_test(tc, test_shared_engine);
  tcase_add_test(tc, test_frames_context_fallback);
  return s;
}

int main(int argc, char **argv)
{
  /* Mesa's shader disk cache in an empty folder of this run's: cold starts compile */
  gchar *mesa_cache = g_dir_make_tmp("gl-start-mesa-XXXXXX", NULL);
  if (!mesa_cache) return 1;
  g_setenv("MESA_SHADER_CACHE_DIR", mesa_cache, TRUE);
  gst_check_init(&argc, &argv);
  int failed = gst_check_run_suite(gl_start_suite(), "gl_start", __FILE__);
  remove_tree(mesa_cache);
  g_free(mesa_cache);
  return failed;
}
