/* test_auto.c - the choices delegate=auto and threads make for a user who sets neither
 * (issue 28): GL frames on a software renderer (Mesa's llvmpipe here) run on the CPU,
 * said in a warning (once) and in "tflite-model"; delegate=gl still runs GL there;
 * threads defaults to the cores the process may use; a CPU-only pipeline opens no GL
 * display (no window-system probe noise on a headless machine).
 * Env (meson): GST_PLUGIN_PATH, TFL_MODEL_DIRS, TFL_PICTURES, GST_GL_WINDOW.
 */
#define _GNU_SOURCE /* sched_getaffinity */
#include <gst/check/gstcheck.h>
#include <gst/gl/gl.h>
#include <gst/gl/gstglfuncs.h>
#include <sched.h>

#include "pipe_util.h"

#define FRAMES 3

static gchar *gl_desc(const gchar *props)
{
  gchar *model = pipe_model("face_detection_short_range.tflite");
  gchar *d = g_strdup_printf("videotestsrc num-buffers=%d ! video/x-raw,format=RGBA,width=128,height=128 ! glupload ! "
                             "tflitefilter name=f model=\"%s\" %s ! appsink name=sink",
                             FRAMES, model, props);
  g_free(model);
  return d;
}

static void read_renderer(GstGLContext *ctx, gpointer data)
{
  *(gchar **)data = g_strdup((const gchar *)ctx->gl_vtable->GetString(GL_RENDERER));
}

/* The renderer of the GL frames that came out, asked here, not by the element. */
static gchar *frames_renderer(const pipe_run *r)
{
  GstMemory *mem = gst_buffer_peek_memory(g_ptr_array_index(r->buffers, 0), 0);
  fail_unless(gst_is_gl_memory(mem), "the frames are not GL memory");
  gchar *renderer = NULL;
  gst_gl_context_thread_add(((GstGLBaseMemory *)mem)->context, read_renderer, &renderer);
  return renderer;
}

GST_START_TEST(test_software_gl_runs_on_cpu)
{
  gchar *desc = gl_desc("");
  pipe_run r;
  pipe_run_launch(desc, 120, &r);
  fail_unless(r.error == NULL, "%s", r.error);
  fail_unless_equals_int(r.buffers->len, FRAMES);
  gchar *renderer = frames_renderer(&r);
  /* this machine's GL is Mesa's software rasterizer (PLATFORM.md) */
  fail_unless(renderer && strstr(renderer, "llvmpipe"), "renderer %s: not the software one this test needs", renderer);
  const GstStructure *m = pipe_run_message(&r, "tflite-model", "f", 0);
  fail_unless(m != NULL);
  fail_unless_equals_string(gst_structure_get_string(m, "delegate"), "cpu");
  fail_unless_equals_string(gst_structure_get_string(m, "software-gl-renderer"), renderer);
  fail_unless(pipe_run_message(&r, "tflite-model", "f", 1) == NULL, "one model message");
  fail_unless_equals_int(pipe_run_count_warnings(&r, "is software (no GPU)"), 1);
  for (guint i = 0; i < FRAMES; i++) {
    const GstStructure *res = pipe_run_message(&r, "tflite-results", "f", i);
    fail_unless(res && !g_strcmp0(gst_structure_get_string(res, "delegate"), "cpu"), "frame %u not on the CPU", i);
  }
  g_free(renderer);
  pipe_run_clear(&r);
  g_free(desc);
}
GST_END_TEST;

/* delegate=gl is obeyed on the software renderer, without the warning. */
GST_START_TEST(test_software_gl_forced)
{
  gchar *desc = gl_desc("delegate=gl");
  pipe_run r;
  pipe_run_launch(desc, 120, &r);
  fail_unless(r.error == NULL, "%s", r.error);
  const GstStructure *m = pipe_run_message(&r, "tflite-model", "f", 0);
  fail_unless(m != NULL);
  fail_unless_equals_string(gst_structure_get_string(m, "delegate"), "gl");
  fail_unless(!gst_structure_has_field(m, "software-gl-renderer"));
  fail_unless_equals_int(pipe_run_count_warnings(&r, "is software"), 0);
  pipe_run_clear(&r);
  g_free(desc);
}
GST_END_TEST;

static gint model_threads(const gchar *props)
{
  gchar *model = pipe_model("face_detection_short_range.tflite");
  gchar *desc = g_strdup_printf("videotestsrc num-buffers=1 ! video/x-raw,format=RGBA,width=128,height=128 ! "
                                "tflitefilter name=f model=\"%s\" %s ! appsink name=sink", model, props);
  pipe_run r;
  pipe_run_launch(desc, 60, &r);
  fail_unless(r.error == NULL, "%s", r.error);
  const GstStructure *m = pipe_run_message(&r, "tflite-model", "f", 0);
  gint threads = -1;
  fail_unless(m && gst_structure_get_int(m, "threads", &threads));
  fail_unless_equals_string(gst_structure_get_string(m, "delegate"), "cpu");
  pipe_run_clear(&r);
  g_free(desc);
  g_free(model);
  return threads;
}

GST_START_TEST(test_threads_automatic)
{
  cpu_set_t set;
  fail_unless(sched_getaffinity(0, sizeof set, &set) == 0);
  fail_unless_equals_int(model_threads(""), CPU_COUNT(&set));
  fail_unless_equals_int(model_threads("threads=1"), 1);
  /* one core allowed (as taskset -c 0 would): automatic follows the affinity */
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(0, &one);
  fail_unless(sched_setaffinity(0, sizeof one, &one) == 0);
  gint n = model_threads("");
  sched_setaffinity(0, sizeof set, &set);
  fail_unless_equals_int(n, 1);
}
GST_END_TEST;

/* A CPU-only pipeline with the default delegate, headless (no XDG_RUNTIME_DIR, no
 * GST_GL_WINDOW): nothing on stderr, where a GL display probe prints the Wayland error. */
GST_START_TEST(test_cpu_run_quiet)
{
  gchar *model = pipe_model("face_detection_short_range.tflite");
  gchar *loc = g_strdup_printf("model=%s", model);
  gchar *argv[] = { "gst-launch-1.0", "-q", "videotestsrc", "num-buffers=2", "!",
                    "video/x-raw,format=RGBA,width=128,height=128", "!", "tflitefilter", loc, "!", "fakesink", NULL };
  gchar **env = g_get_environ();
  env = g_environ_unsetenv(env, "XDG_RUNTIME_DIR");
  env = g_environ_unsetenv(env, "GST_GL_WINDOW");
  env = g_environ_unsetenv(env, "GST_DEBUG");
  gchar *out = NULL, *err = NULL;
  gint status = -1;
  fail_unless(g_spawn_sync(NULL, argv, env, G_SPAWN_SEARCH_PATH, NULL, NULL, &out, &err, &status, NULL));
  fail_unless(g_spawn_check_wait_status(status, NULL), "gst-launch failed: %s", err);
  fail_unless_equals_string(err, "");
  g_free(out);
  g_free(err);
  g_strfreev(env);
  g_free(loc);
  g_free(model);
}
GST_END_TEST;

static Suite *auto_suite(void)
{
  Suite *s = suite_create("auto");
  TCase *tc = tcase_create("auto");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_software_gl_runs_on_cpu);
  tcase_add_test(tc, test_software_gl_forced);
  tcase_add_test(tc, test_threads_automatic);
  tcase_add_test(tc, test_cpu_run_quiet);
  suite_add_tcase(s, tc);
  return s;
}

GST_CHECK_MAIN(auto);
