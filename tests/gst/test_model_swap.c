/* test_model_swap.c - tflitefilter's model settings changed while frames flow (issue 30,
 * finding 1): `model` is set every 0-30 ms (random, seeded) to a valid model A, a valid
 * model B of another family, a missing file or a truncated copy of A, while a live
 * source pushes frames, on the CPU path (system memory, delegate=cpu) and on the GL path
 * (glupload, delegate=gl: llvmpipe here).
 *
 * What must hold: an error or warning names a bad file (missing or truncated), never a
 * valid one (a rebuild that mixed the old and the new model's settings failed with the
 * valid file's name, or "Inference failed." with no file at all); frames keep flowing
 * between swaps; no crash (the suite also runs under ASan and TSan, scripts/test.sh).
 * After an error the pipeline stops, as it must; the test restarts it on a valid model
 * and goes on swapping. Before the timed part, both models run once (a cold GL start
 * compiles their programs into the user's program cache; rebuilds then load them).
 *
 * Usage: test_model_swap [--gl] [--seconds S] [--valid-only] [--plugin SO]. --valid-only swaps A and B
 * alone (the race's rate without the bad files' restarts). Environment:
 * TFL_MODEL_DIRS (where the models are), GST_PLUGIN_PATH, GST_GL_WINDOW=egl-device.
 * Exit 0 when every check held; the counts go to stdout. */
#include <gst/gst.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>

#include "model_path.h"

#define MODEL_A "face_detection_short_range.tflite"
#define MODEL_B "selfie_segmentation.tflite"
#define MAX_GAP_US 30000

typedef struct {
  gchar *path;
  gboolean valid;
  guint sets;                  /* times `model` was set to it */
} model_choice;

/* NAME in one of TFL_MODEL_DIRS' folders (g_free), or NULL. */
static gchar *model_path_find(const gchar *name)
{
  const gchar *dirs = g_getenv("TFL_MODEL_DIRS");
  gchar **list = g_strsplit(dirs ? dirs : "", ":", -1);
  gchar *found = NULL;
  char buf[4096];
  for (gchar **d = list; *d && !found; d++)
    if (**d && test_find_model(*d, name, buf, sizeof buf)) found = g_strdup(buf);
  g_strfreev(list);
  return found;
}

typedef struct {
  gint frames;                 /* at the sink since the last restart (atomic) */
  gint total;                  /* at the sink in the whole run (atomic) */
} sink_count;

/* GLib warnings and criticals of any thread (a freed model path reached a message as
 * "not valid UTF-8"): each one fails the test. */
static gint log_problems;

static void count_log(const gchar *domain, GLogLevelFlags level, const gchar *message, gpointer data)
{
  (void)data;
  if (level & (G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING)) g_atomic_int_inc(&log_problems);
  g_log_default_handler(domain, level, message, NULL);
}

static GstPadProbeReturn count_frame(GstPad *pad, GstPadProbeInfo *info, gpointer data)
{
  (void)pad;
  (void)info;
  g_atomic_int_inc(&((sink_count *)data)->frames);
  g_atomic_int_inc(&((sink_count *)data)->total);
  return GST_PAD_PROBE_OK;
}

/* Whether text names one of the bad files (and so may be an error). */
static gboolean names_bad_file(const gchar *text, model_choice *m, gint n)
{
  for (gint i = 0; i < n; i++)
    if (!m[i].valid && text && strstr(text, m[i].path)) return TRUE;
  return FALSE;
}

/* A copy of src cut to half its size, in dir (g_free). */
static gchar *truncated_copy(const gchar *src, const gchar *dir)
{
  gchar *data = NULL;
  gsize len = 0;
  GError *err = NULL;
  if (!g_file_get_contents(src, &data, &len, &err)) {
    fprintf(stderr, "cannot read %s: %s\n", src, err->message);
    g_error_free(err);
    return NULL;
  }
  gchar *dst = g_build_filename(dir, "truncated.tflite", NULL);
  if (!g_file_set_contents(dst, data, (gssize)(len / 2), &err)) {
    fprintf(stderr, "cannot write %s: %s\n", dst, err->message);
    g_error_free(err);
    g_clear_pointer(&dst, g_free);
  }
  g_free(data);
  return dst;
}

static GstElement *make_pipeline(gboolean gl, const gchar *model, sink_count *count, GstElement **filter)
{
  gchar *desc = g_strdup_printf(
    "videotestsrc is-live=true pattern=ball ! video/x-raw,format=RGBA,width=128,height=96,framerate=60/1 ! %s"
    "tflitefilter name=f delegate=%s model=\"%s\" ! fakesink name=sink sync=false", gl ? "glupload ! " : "",
    gl ? "gl" : "cpu", model);
  GError *err = NULL;
  GstElement *p = gst_parse_launch_full(desc, NULL, GST_PARSE_FLAG_FATAL_ERRORS, &err);
  g_free(desc);
  if (!p) {
    fprintf(stderr, "pipeline: %s\n", err ? err->message : "?");
    g_clear_error(&err);
    return NULL;
  }
  *filter = gst_bin_get_by_name(GST_BIN(p), "f");
  GstElement *sink = gst_bin_get_by_name(GST_BIN(p), "sink");
  GstPad *pad = gst_element_get_static_pad(sink, "sink");
  gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_BUFFER, count_frame, count, NULL);
  gst_object_unref(pad);
  gst_object_unref(sink);
  return p;
}

int main(int argc, char **argv)
{
  gboolean gl = FALSE, valid_only = FALSE;
  const gchar *plugin = NULL; /* this build's plugin, loaded before the registry's */
  gdouble seconds = 5.0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--gl")) gl = TRUE;
    else if (!strcmp(argv[i], "--valid-only")) valid_only = TRUE;
    else if (!strcmp(argv[i], "--seconds") && i + 1 < argc) seconds = g_ascii_strtod(argv[++i], NULL);
    else if (!strcmp(argv[i], "--plugin") && i + 1 < argc) plugin = argv[++i];
    else {
      fprintf(stderr, "usage: %s [--gl] [--seconds S] [--valid-only] [--plugin SO]\n", argv[0]);
      return 2;
    }
  }
  gst_init(NULL, NULL);
  g_log_set_default_handler(count_log, NULL);
  if (plugin) {
    GError *perr = NULL;
    GstPlugin *p = gst_plugin_load_file(plugin, &perr);
    if (!p) {
      fprintf(stderr, "FAIL: cannot load %s: %s\n", plugin, perr ? perr->message : "?");
      return 1;
    }
    gst_object_unref(p);
  }
  gchar *a = model_path_find(MODEL_A), *b = model_path_find(MODEL_B);
  if (!a || !b) {
    /* a missing test model is a failure, not a skip */
    fprintf(stderr, "FAIL: test models %s / %s not found in TFL_MODEL_DIRS\n", MODEL_A, MODEL_B);
    return 1;
  }
  gchar *dir = g_dir_make_tmp("tfl-swap-XXXXXX", NULL);
  gchar *missing = g_build_filename(dir, "missing.tflite", NULL);
  gchar *trunc = truncated_copy(a, dir);
  if (!trunc) return 1;
  model_choice models[] = {
    { a, TRUE, 0 }, { b, TRUE, 0 }, { missing, FALSE, 0 }, { trunc, FALSE, 0 },
  };
  const gint n_models = valid_only ? 2 : 4;

  guint32 seed = g_getenv("TFL_SWAP_SEED") ? (guint32)g_ascii_strtoull(g_getenv("TFL_SWAP_SEED"), NULL, 10)
                                          : (guint32)g_get_real_time();
  GRand *rng = g_rand_new_with_seed(seed);
  printf("%s path, %.1f s, seed %u%s\n", gl ? "GL" : "CPU", seconds, seed, valid_only ? ", valid models only" : "");

  sink_count count = { 0 };
  gint64 t_warm = g_get_monotonic_time();
  GstElement *filter = NULL;
  GstElement *pipe = make_pipeline(gl, a, &count, &filter);
  if (!pipe) return 1;
  GstBus *bus = gst_element_get_bus(pipe);
  gst_element_set_state(pipe, GST_STATE_PLAYING);
  /* warm-up, not timed: both models once each (on GL a cold start compiles their programs,
   * into the user's program cache: later rebuilds load them) */
  const gchar *warm[] = { a, b, a };
  for (guint w = 0; w < G_N_ELEMENTS(warm); w++) {
    if (w) g_object_set(filter, "model", warm[w], NULL);
    gint f0 = g_atomic_int_get(&count.total);
    gint64 until = g_get_monotonic_time() + 120 * G_USEC_PER_SEC;
    while (g_atomic_int_get(&count.total) < f0 + 2 && g_get_monotonic_time() < until) {
      GstMessage *m = gst_bus_timed_pop_filtered(bus, 20 * GST_MSECOND, GST_MESSAGE_ERROR);
      if (m) {
        GError *e = NULL;
        gst_message_parse_error(m, &e, NULL);
        fprintf(stderr, "FAIL: warm-up on %s: %s\n", warm[w], e->message);
        return 1;
      }
    }
    if (g_atomic_int_get(&count.total) < f0 + 2) {
      fprintf(stderr, "FAIL: no frame within 120 s of starting %s\n", warm[w]);
      return 1;
    }
  }
  printf("warm-up: %.1f s\n", (g_get_monotonic_time() - t_warm) / 1e6);

  guint swaps = 0, wrong_errors = 0, bad_errors = 0, warnings = 0, restarts = 0, stalls = 0;
  gint64 start = g_get_monotonic_time(), end = start + (gint64)(seconds * G_USEC_PER_SEC);
  gint64 next_swap = start + g_rand_int_range(rng, 0, MAX_GAP_US + 1);
  gint64 last_restart = start;
  gint last_frames = 0;
  gint64 last_progress = start;
  while (g_get_monotonic_time() < end) {
    gint64 now = g_get_monotonic_time();
    if (now >= next_swap) {
      model_choice *m = &models[g_rand_int_range(rng, 0, n_models)];
      g_object_set(filter, "model", m->path, NULL);
      m->sets++;
      swaps++;
      next_swap = now + g_rand_int_range(rng, 0, MAX_GAP_US + 1);
    }
    /* frames keep flowing: on the GL path a rebuild compiles programs (from the cache
     * after the first), so allow seconds */
    gint f = g_atomic_int_get(&count.frames);
    if (f != last_frames) last_frames = f, last_progress = now;
    else if (now - last_progress > 10 * G_USEC_PER_SEC) {
      fprintf(stderr, "FAIL: no frame for 10 s (since the restart at %.2f s)\n", (last_restart - start) / 1e6);
      stalls++;
      break;
    }
    gint64 wait = MAX(0, next_swap - g_get_monotonic_time());
    GstMessage *msg =
      gst_bus_timed_pop_filtered(bus, (GstClockTime)wait * GST_USECOND, GST_MESSAGE_ERROR | GST_MESSAGE_WARNING);
    if (!msg) continue;
    GError *err = NULL;
    gchar *debug = NULL;
    gboolean is_error = GST_MESSAGE_TYPE(msg) == GST_MESSAGE_ERROR;
    if (is_error) gst_message_parse_error(msg, &err, &debug);
    else gst_message_parse_warning(msg, &err, &debug);
    gboolean bad = names_bad_file(err->message, models, 4);
    if (!is_error) {
      warnings++;
      /* decoder=auto's notes on a model family are warnings of valid models too; a
       * warning that is not about a file is fine, one blaming a valid file is not */
      if (!bad && strstr(err->message, "Model") && strstr(err->message, "\""))
        fprintf(stderr, "note: warning \"%s\" (%s)\n", err->message, debug ? debug : "");
    } else if (bad) {
      bad_errors++;
    } else {
      wrong_errors++;
      fprintf(stderr, "FAIL at %.2f s: an error that names no bad file: \"%s\" (%s)\n", (now - start) / 1e6,
              err->message, debug ? debug : "");
    }
    g_clear_error(&err);
    g_free(debug);
    gst_message_unref(msg);
    if (is_error) {
      /* the stream stopped, as it must: on again with a valid model */
      gst_element_set_state(pipe, GST_STATE_NULL);
      model_choice *m = &models[g_rand_int_range(rng, 0, 2)];
      g_object_set(filter, "model", m->path, NULL);
      m->sets++;
      g_atomic_int_set(&count.frames, 0);
      last_frames = 0;
      last_progress = last_restart = g_get_monotonic_time();
      if (gst_element_set_state(pipe, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE) {
        fprintf(stderr, "FAIL: the pipeline does not restart on %s\n", m->path);
        wrong_errors++;
        break;
      }
      restarts++;
    }
  }
  gst_element_set_state(pipe, GST_STATE_NULL);
  gint frames_end = g_atomic_int_get(&count.frames);
  gint problems = g_atomic_int_get(&log_problems);
  printf("%u swaps (A %u, B %u, missing %u, truncated %u), %u restarts, errors naming a bad file %u, "
         "other errors %u, element warnings %u, GLib warnings/criticals %d, frames %d (%d since the last restart)\n",
         swaps, models[0].sets, models[1].sets, models[2].sets, models[3].sets, restarts, bad_errors, wrong_errors,
         warnings, problems, g_atomic_int_get(&count.total), frames_end);
  gboolean ok = wrong_errors == 0 && stalls == 0 && swaps > 0 && problems == 0 && g_atomic_int_get(&count.total) > 0;
  /* the bad files must have been noticed at least once in a run of seconds */
  if (!valid_only && models[2].sets + models[3].sets > 20 && bad_errors == 0) {
    fprintf(stderr, "FAIL: %u swaps to a bad file and not one error naming it\n", models[2].sets + models[3].sets);
    ok = FALSE;
  }
  gst_object_unref(bus);
  gst_object_unref(filter);
  gst_object_unref(pipe);
  g_rand_free(rng);
  g_unlink(trunc);
  g_free(trunc);
  g_free(missing);
  gchar *rm = g_strdup_printf("rm -rf '%s'", dir);
  (void)!system(rm);
  g_free(rm);
  g_free(dir);
  g_free(a);
  g_free(b);
  gst_deinit();
  printf("%s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
