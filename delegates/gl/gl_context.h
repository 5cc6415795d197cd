/* gl_context.h - the GL context the delegate runs on, and its entry points.
 *
 * Either the caller's current context (GStreamer's GL thread: desktop GL 4.5 core or
 * GLES 3.x) or a headless GLES 3.1+ context of our own on the EGL device platform,
 * Mesa's surfaceless platform or GBM on a render node (gl_egl_platform.h); no surface
 * either way. All GL calls
 * go through ctx->f, loaded with eglGetProcAddress.
 *
 * Threads: create on the thread that will use it; gl_context_bind makes an owned
 * context current on the calling thread (a borrowed one must already be current).
 */
#ifndef GL_CONTEXT_H
#define GL_CONTEXT_H

#include <stdbool.h>

#include "runtime/tfl_status.h"
#include "gl_egl_platform.h"
#include "gl_funcs.h"
#include "gl_limits.h"

typedef struct gl_egl_gbm gl_egl_gbm;

/* Optional entry points (NULL when absent): GPU timestamps for profiling, from
 * GL_EXT_disjoint_timer_query under GLES or core GL 3.3+. */
#define GL_TIMESTAMP_EXT 0x8E28 /* = GL_TIMESTAMP of desktop GL */
typedef void (GL_APIENTRYP gl_query_counter_fn)(GLuint id, GLenum target);
typedef void (GL_APIENTRYP gl_get_query_u64_fn)(GLuint id, GLenum pname, GLuint64 *params);

typedef struct gl_context {
  gl_funcs f;
  gl_query_counter_fn QueryCounter;
  gl_get_query_u64_fn GetQueryObjectui64v;
  bool owned;                 /* we created (and destroy) the EGL context */
  void *egl_display, *egl_context;
  gl_egl_platform platform;   /* owned: the EGL platform it came from (AUTO when borrowed) */
  gl_egl_gbm *gbm;            /* owned on GBM: the render node and device behind the display */
  bool is_gles;               /* GLES (else desktop GL) */
  int major, minor;
  char renderer[128], version[128];
  int ssbo_offset_align;      /* GL_SHADER_STORAGE_BUFFER_OFFSET_ALIGNMENT, bytes */
  long long max_ssbo_bytes;   /* GL_MAX_SHADER_STORAGE_BLOCK_SIZE */
  int max_wg_invocations;     /* GL_MAX_COMPUTE_WORK_GROUP_INVOCATIONS */
  int max_shared_bytes;       /* GL_MAX_COMPUTE_SHARED_MEMORY_SIZE */
  int max_wg_count[3];        /* GL_MAX_COMPUTE_WORK_GROUP_COUNT */
  gl_limits lim;              /* every limit the delegate depends on, clamped to the
                                 profile's; the four fields above are lim's values too */
  gl_device_profile profile;
  bool parallel_compile;      /* GL_KHR/ARB_parallel_shader_compile: all threads asked for */
  bool oes_external;          /* GL_OES_EGL_image_external_essl3: shaders can sample
                                 GL_TEXTURE_EXTERNAL_OES textures (samplerExternalOES) */
} gl_context;

/* use_current: borrow the current context (error if none is current). Else create a
 * headless one on `platform` (AUTO: the first that works) and make it current. *out is
 * freed with gl_context_free. */
tfl_status gl_context_create(bool use_current, gl_egl_platform platform, gl_context **out, tfl_diag *diag);
/* The same with the limits clamped to profile p's (gl_limits.h); GL_PROFILE_GLES31_MIN
 * also makes the own context GLES 3.1 (not 3.2). Fails when the context offers less
 * than the delegate needs of any context (gl_limits_check_base). */
tfl_status gl_context_create_for(bool use_current, gl_egl_platform platform, gl_device_profile p, gl_context **out,
                                 tfl_diag *diag);
/* Makes an owned context current if it is not; checks a borrowed one still is. */
tfl_status gl_context_bind(gl_context *c, tfl_diag *diag);
void gl_context_free(gl_context *c);

/* Drains glGetError; when set, returns TFL_ERR_BACKEND (TFL_ERR_NOMEM for
 * GL_OUT_OF_MEMORY) with "`what`: GL_INVALID_OPERATION". */
tfl_status gl_check(gl_context *c, const char *what, tfl_diag *diag);
const char *gl_error_name(unsigned err);

#endif
