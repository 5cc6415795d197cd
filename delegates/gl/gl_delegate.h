/* gl_delegate.h - the GL compute delegate (OpenGL ES 3.1 compute shaders).
 *
 *   gl_delegate_options o = gl_delegate_defaults();   o.texture_input = true;  o.diag = &diag;
 *   tfl_delegate *gl = gl_delegate_create(&o);          // on the thread owning the context
 *   tfl_interp_options io = tfl_interp_defaults();
 *   io.delegate = gl;  io.fallback = cpu;  io.diag = &diag;   // cpu: cpu_delegate_create
 *   tfl_interpreter_create(g, &io, &it);                // compiles the GL partition(s)
 *   tfl_buffer_new(gl, TFL_BUFFER_IMAGE, 0, &diag, &img);  // and a mask image, device buffers
 *   per frame: tfl_buffer_import(img, &(tfl_image_desc){.handle = texture, ...});
 *              tfl_interpreter_bind_input(it, 0, img);
 *              tfl_interpreter_invoke(it);
 *              tfl_interpreter_export_output(it, 0, &(tfl_export){.convert = TFL_CONVERT_CLASS_U8}, mask);
 *   tfl_buffer_free(img);  tfl_interpreter_free(it);  gl->destroy(gl);  cpu->destroy(cpu);
 *
 * Buffers (runtime/tfl_buffer.h): image buffers are textures by name (handle: the frame,
 * planes: its chroma), sampled straight into the arena (RGBA8, or YUV/gray planes
 * converted in the same shader: tfl_image_layout), one batch slot per bound frame, or
 * written by a class export (an R8 mask texture); device buffers are GL buffer objects
 * with a fence, mapped read-only. Outputs can stay on the GPU (no readback, no wait for
 * the GPU in invoke), and any float32 output's slot is exported into a device buffer as
 * its host bytes (made by a shader that repeats the readback's rounding, so the caller
 * maps the very bytes an invoke would have read back). Nobody outside reads the arena's
 * layout.
 *
 * Threads: every call, including the interpreter's create/invoke/free, must happen
 * with the delegate's GL context current (GStreamer: on the GstGLContext thread).
 * Delegates are independent: several, each with its own context (use_current_context
 * false: a headless EGL context each), may run on several threads at once. The
 * delegate reads no environment; its switches are gl_delegate_options.tuning.
 * No GStreamer here.
 */
#ifndef GL_DELEGATE_H
#define GL_DELEGATE_H

#include "runtime/tfl_delegate.h"
#include "delegates/gl/gl_egl_platform.h"

typedef enum { GL_PRECISION_FP16, GL_PRECISION_FP32 } gl_precision;

/* Switches that change the generated programs, for tests and for bisecting speed or
 * precision problems (tools/gl_bench and tflite-benchmark expose them as flags). The
 * zero value is what production runs: the tuning table decides. */
typedef enum { GL_SPLIT_AUTO, GL_SPLIT_NEVER, GL_SPLIT_ALWAYS } gl_split;
typedef struct {
  int conv_tile_px;           /* > 0: force the convolution tile to this many output pixels
                                 along x per invocation (1..8, with conv_tile_slices) */
  int conv_tile_slices;       /* > 0: ... and this many output slices (4 channels each) */
  gl_split conv_split;        /* split each output's reduction over a workgroup: AUTO (few
                                 outputs, long reductions), NEVER or ALWAYS */
  int conv_fill;              /* > 0: invocations a convolution's tiles keep at least, and a
                                 quarter of it the outputs under which its reduction is
                                 split over a workgroup (default: the device's fill / 16;
                                 gl_plan.c) */
  bool no_fuse;               /* every node its own dispatch (element-wise ops are not
                                 fused into the dispatch producing their input) */
  bool no_se;                 /* squeeze-excite chains stay separate dispatches (pool, 1x1
                                 layers; default: one, gl_gen_se.c) */
  bool no_dwpw;               /* a depthwise convolution and the 1x1 convolution reading it
                                 stay two dispatches (default: one, the depthwise output
                                 kept in shared memory; gl_gen_dwpw.c) */
  int dwpw_tile;              /* > 0: output pixels per workgroup of those dispatches (at
                                 most what shared memory holds) */
  bool irb;                   /* with the pair, the 1x1 expansion before it: the whole
                                 inverted residual block in one dispatch, the expansion
                                 recomputed per tile (gl_gen_irb.c). Default off: on
                                 llvmpipe slower or even, and its first invoke (shader
                                 compilation) 2-16x longer; unmeasured on GPUs
                                 (docs/gl-performance.md) */
  int irb_tile;               /* > 0: those dispatches' output tiles, N x N pixels (at most
                                 what shared memory and the workgroup allow) */
  int se_wg;                  /* > 0: at most this many invocations (a power of two, 32..1024)
                                 in a squeeze-excite dispatch's workgroup (default: as
                                 many as the device and its shared memory allow, up to
                                 1024; gl_gen_se.c) */
  bool no_reorder;            /* dispatches in graph order, not grouped by dependency level */
  bool all_barriers;          /* a memory barrier before every dispatch, not only where
                                 arena ranges conflict */
  bool const_fp32;            /* fp16 mode: constants (weights, biases) stay 32-bit floats */
  bool wide_residuals;        /* fp16 mode with half_activations: residual sums (ADD/SUB of
                                 two activations) stay 32-bit floats too */
  bool half_activations;      /* fp16 mode: activations stored as halves where
                                 gl_precision.c allows (default: 32-bit; the weights are
                                 16-bit either way). Faster where bandwidth binds, but
                                 segmentation and landmark models then miss 1e-2. */
  bool mediump;               /* fp16 mode: the shaders' floats mediump by default, so a
                                GPU with fp16 ALUs computes in halves; sums (ACC4) stay highp.
                                Off by default (docs/boards.md: what it costs in accuracy) */
  int max_groups;             /* > 0: workgroups per dimension the device is taken to allow
                                 at most (below its own limit): dispatches over it are split
                                 into several, as on a GPU with that limit (tests) */
  int max_shared;             /* > 0: bytes of shared memory taken as the limit (below the
                                 device's and the profile's): kernels over it are left to
                                 the CPU with the reason (tests) */
  bool cpu_postproc;          /* post-processing ops (TFLite_Detection_PostProcess,
                                 ANCHOR_DETECTION, the SSD ops, LANDMARK_DECODE) are refused
                                 and run on the CPU
                                 fallback (default: on the GPU, so only the final few KB
                                 come back) */
} gl_tuning;

/* Device profiles: the context's limits clamped to a GPU's published ones
 * (docs/boards.md has the table and the sources), so a desktop or software GL tests
 * what fits a board's GPU; gles31-min also asks the own context for GLES 3.1. */
typedef enum {
  GL_PROFILE_NATIVE,          /* the context's own limits */
  GL_PROFILE_GLES31_MIN,      /* OpenGL ES 3.1's minimums */
  GL_PROFILE_MALI_G610,       /* RK3588 (Mesa panfrost) */
  GL_PROFILE_V3D,             /* Raspberry Pi 5, VideoCore VII (Mesa v3d) */
  GL_PROFILE_ADRENO6XX,       /* Qualcomm Adreno 6xx (Mesa freedreno) */
} gl_device_profile;
/* "native", "gles31-min", "mali-g610", "v3d", "adreno6xx"; false for other names. */
bool gl_device_profile_parse(const char *name, gl_device_profile *out);
const char *gl_device_profile_name(gl_device_profile p);
const char *gl_device_profile_names(void); /* the list above, for messages */

typedef struct {
  gl_precision precision;     /* default FP16, as TFLite's GPU delegate */
  bool use_current_context;   /* true: the caller's current context; false: own headless EGL */
  gl_egl_platform egl_platform; /* own context: its EGL platform (default AUTO: device,
                                 surfaceless, then GBM; callers map TFL_GL_EGL_PLATFORM) */
  const char *cache_dir;      /* program binary cache directory (copied); NULL (default):
                                 the user's, $XDG_CACHE_HOME/gst-tflite or
                                 $HOME/.cache/gst-tflite; "": no cache */
  bool texture_input;         /* graph input 0 always comes from a bound GL image
                                 (tfl_interpreter_bind_input): its texture program is
                                 compiled at prepare and no host upload path is built */
  gl_tuning tuning;           /* zero: the defaults (see gl_tuning) */
  gl_device_profile profile;  /* limits to respect (default NATIVE: the context's own) */
  tfl_diag *diag;             /* errors and logs of create and of the gl_delegate_* calls
                                 (borrowed, must outlive the delegate; may be NULL);
                                 partitions report to their interpreter's context */
} gl_delegate_options;

gl_delegate_options gl_delegate_defaults(void);

/* NULL on failure with o->diag saying why (no context, no compute shaders...). */
tfl_delegate *gl_delegate_create(const gl_delegate_options *o);

/* Whether the GL delegate has a generator for op (gl_ops.c's table; a node may still be
 * refused by its check, e.g. a shape it cannot do), for tflite-inspect --ops and the docs. */
bool gl_delegate_has_op(tfl_op op);

/* Whether d takes node `node` of g (its supports()); when not, why (the op's check:
 * "node 7 (GELU): input 0 (tensor 3) is INT8 ...") into why (may be NULL). For tools:
 * tflite-inspect prints it for every node left to the CPU. */
bool gl_delegate_why(tfl_delegate *d, const tfl_graph *g, int node, tfl_diag *why);

/* Waits until the GPU has run everything issued so far (after invokes that left their
 * outputs on the GPU, which do not wait: a queue of them overlaps on the GPU). */
tfl_status gl_delegate_finish(tfl_delegate *d);

/* What the last prepare did, for tools and tests. */
typedef struct {
  int partitions;             /* prepared and not released */
  int dispatches;             /* per invoke, all partitions */
  int fused;                  /* element-wise nodes fused into other dispatches */
  int inlined, se, remapped, paired, dwpw, irb; /* what each fusion pass of gl_fuse*.c
                                 took (gl_plan's n_inlined ... n_irb), for tests */
  int aliased;                /* reshapes etc. that cost nothing */
  int barriers;               /* per invoke between dispatches (only where ranges conflict) */
  int split;                  /* dispatches over the workgroup count limit, run in parts */
  size_t const_bytes;         /* last prepare: its constant buffer (weights, biases) */
  int cache;                  /* last gl_cache_result (gl_program.h): 0 off 1 miss 2 hit 3 corrupt */
  double compile_ms;          /* last prepare: building the programs */
  double upload_ms;           /* last invoke, CPU wall: inputs converted and sent */
  double submit_ms;           /* last invoke, CPU wall: issuing the dispatches */
  double readback_ms;         /* last invoke, CPU wall: waiting for the GPU, copying and
                                 converting the outputs */
  const char *renderer, *version;
  int device_fill, device_wg; /* the device as measured (invocations that fill it,
                                 workgroup size; delegates/gl/gl_device.h) */
  double device_ms;           /* that measurement (0: read from the cache directory) */
} gl_delegate_stats;
void gl_delegate_get_stats(tfl_delegate *d, gl_delegate_stats *out);

/* Profiling: while on, every invoke times each dispatch on the GPU (timestamp queries:
 * GL_EXT_disjoint_timer_query or desktop GL; else glFinish around each dispatch, which
 * adds the sync cost). Costs a readback per invoke: leave off when not measuring. */
void gl_delegate_set_profiling(tfl_delegate *d, bool on);
typedef struct {
  int node;                   /* graph node the dispatch was generated for */
  const char *op;             /* its op name */
  int fused;                  /* element-wise nodes fused into it */
  double ms;                  /* GPU time of the last invoke */
  double flops;               /* 2 per multiply-add (conv family), else output elements */
} gl_dispatch_profile;
/* Fills up to max entries (all partitions, run order) from the last invoke; returns
 * how many dispatches there are (may exceed max). 0 when profiling was off. */
int gl_delegate_get_profile(tfl_delegate *d, gl_dispatch_profile *out, int max);

#endif
