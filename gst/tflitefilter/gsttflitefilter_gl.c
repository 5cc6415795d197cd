/* gsttflitefilter_gl.c - tflitefilter's GL path (see gsttflitefilter_gl.h).
 *
 * The GL delegate lives on the GstGLContext of the incoming GL memory; every call into
 * it (create, invoke, free) is marshalled onto that context's thread with
 * gst_gl_context_thread_add, where the context is current. The frame's texture is
 * sampled by the delegate's input shader: the frame is never mapped on the CPU.
 *
 * Segmentation masks: each inference writes its mask into a texture of its own, taken
 * from a GstGLBufferPool (GRAY8: the class index, or the probability * 255) and fenced
 * with the buffer's GstGLSyncMeta; the meta holds the buffer, so the mask stays valid
 * until every frame using it is gone, whatever queues lie between the elements.
 * Once the texture works, and unless gl-readback is set, the delegate leaves the mask
 * output on the GPU: invoke then returns without waiting for the GPU. The first
 * inference always reads back (it checks the texture path). */
#include "gsttflitefilter_gl.h"

#include <gst/gl/gl.h>
#include <gst/gl/gstglfuncs.h>

#include "delegates/gl/gl_delegate.h"

GST_DEBUG_CATEGORY_EXTERN(gst_tflite_filter_debug);
#define GST_CAT_DEFAULT gst_tflite_filter_debug

#define GL_COMPUTE_SHADER_ 0x91B9
#define GL_SHADER_STORAGE_BUFFER_ 0x90D2
#define GL_PIXEL_BUFFER_BARRIER_BIT_ 0x00000080
#define GL_PIXEL_UNPACK_BUFFER_ 0x88EC

/* A compute shader reads the mask output where the delegate left it (PHWC4 in its arena
 * buffer) and writes one byte per pixel, four to a uint, rows padded to 4 bytes: the
 * layout glTexSubImage2D reads from a pixel-unpack buffer with GL_UNPACK_ALIGNMENT 4. */
static const char mask_shader_src[] =
  "#version 310 es\n"
  "layout(local_size_x = 8, local_size_y = 8) in;\n"
  "layout(std430, binding = 0) readonly buffer Arena { uint data[]; };\n"
  "layout(std430, binding = 1) writeonly buffer Mask { uint bytes[]; };\n"
  "layout(location = 0) uniform ivec4 u_geom;\n" /* w, h, c, slices */
  "layout(location = 1) uniform ivec2 u_base;\n" /* first vec4, fp16 */
  "layout(location = 2) uniform int u_sigmoid;\n" /* one-channel logits */
  "vec4 load(int i) {\n"
  "  i += u_base.x;\n"
  "  if (u_base.y != 0) return vec4(unpackHalf2x16(data[2 * i]), unpackHalf2x16(data[2 * i + 1]));\n"
  "  return uintBitsToFloat(uvec4(data[4 * i], data[4 * i + 1], data[4 * i + 2], data[4 * i + 3]));\n"
  "}\n"
  "uint value(int x, int y) {\n"
  "  if (u_geom.z == 1) {\n"
  "    float v = load(y * u_geom.x + x).x;\n"
  "    if (u_sigmoid != 0) v = 1.0 / (1.0 + exp(-v));\n"
  "    return uint(clamp(v, 0.0, 1.0) * 255.0 + 0.5);\n"
  "  }\n"
  "  float best = -3.0e38; int cls = 0;\n"
  "  for (int s = 0; s < u_geom.w; s++) {\n"
  "    vec4 q = load((s * u_geom.y + y) * u_geom.x + x);\n"
  "    for (int k = 0; k < 4; k++)\n"
  "      if (4 * s + k < u_geom.z && q[k] > best) { best = q[k]; cls = 4 * s + k; }\n"
  "  }\n"
  "  return uint(cls);\n"
  "}\n"
  "void main() {\n"
  "  int qx = int(gl_GlobalInvocationID.x), y = int(gl_GlobalInvocationID.y);\n"
  "  int row = (u_geom.x + 3) / 4;\n"
  "  if (qx >= row || y >= u_geom.y) return;\n"
  "  uint word = 0u;\n"
  "  for (int k = 0; k < 4; k++)\n"
  "    if (4 * qx + k < u_geom.x) word |= value(4 * qx + k, y) << uint(8 * k);\n"
  "  bytes[y * row + qx] = word;\n"
  "}\n";

typedef struct {
  void (*DispatchCompute)(GLuint, GLuint, GLuint);
  void (*MemoryBarrier)(GLbitfield);
  void (*BindBufferBase)(GLenum, GLuint, GLuint);
  void (*Uniform4i)(GLint, GLint, GLint, GLint, GLint);
  void (*Uniform2i)(GLint, GLint, GLint);
} compute_funcs;

struct _GstTfliteFilterGl {
  GstGLContext *context;
  tfl_delegate *accel;
  gboolean segmentation;       /* the model's decoder makes masks */
  gboolean sigmoid;            /* its one-channel mask is logits */
  /* mask writing; GL thread only */
  compute_funcs f;
  GLuint program, bytes;       /* the shader, its output buffer */
  gsize bytes_size;
  GstBufferPool *pool;         /* GRAY8 GL textures of the mask size */
  gint mask_w, mask_h;
  gboolean mask_failed;        /* tried and could not: CPU masks only from then on */
  gboolean gpu_refused;        /* the delegate cannot leave the output on the GPU */
  gboolean out_on_gpu;         /* the mask output is not read back */
};

/* One call marshalled to the GL thread. */
typedef struct {
  GstTfliteFilter *self;
  gboolean ok;
  gchar *error;
  const gl_texture_input *tex;
  gboolean readback;
  GstBuffer *mask;             /* the texture to write (in), NULL when not written (out) */
  gboolean no_pixels;          /* nothing read back: mask as texture only */
} gl_call;

/* ---- the mask texture ---- */

static GLuint mask_compile(GstGLContext *ctx, gchar **why)
{
  const GstGLFuncs *gl = ctx->gl_vtable;
  GLuint sh = gl->CreateShader(GL_COMPUTE_SHADER_), prog = 0;
  const char *src = mask_shader_src;
  GLint ok = 0;
  char log[512] = "";
  gl->ShaderSource(sh, 1, &src, NULL);
  gl->CompileShader(sh);
  gl->GetShaderiv(sh, GL_COMPILE_STATUS, &ok);
  if (!ok) {
    gl->GetShaderInfoLog(sh, sizeof log, NULL, log);
    *why = g_strdup_printf("mask shader: %s", log);
    gl->DeleteShader(sh);
    return 0;
  }
  prog = gl->CreateProgram();
  gl->AttachShader(prog, sh);
  gl->LinkProgram(prog);
  gl->DeleteShader(sh);
  gl->GetProgramiv(prog, GL_LINK_STATUS, &ok);
  if (!ok) {
    gl->GetProgramInfoLog(prog, sizeof log, NULL, log);
    *why = g_strdup_printf("mask program: %s", log);
    gl->DeleteProgram(prog);
    return 0;
  }
  return prog;
}

/* The pool of mask textures, made once the mask size is known. */
static GstBufferPool *mask_pool_new(GstGLContext *ctx, gint w, gint h, gchar **why)
{
  GstVideoInfo info;
  gst_video_info_set_format(&info, GST_VIDEO_FORMAT_GRAY8, (guint)w, (guint)h);
  GstCaps *caps = gst_video_info_to_caps(&info);
  gst_caps_set_features(caps, 0, gst_caps_features_new(GST_CAPS_FEATURE_MEMORY_GL_MEMORY, NULL));
  GstBufferPool *pool = gst_gl_buffer_pool_new(ctx);
  GstStructure *config = gst_buffer_pool_get_config(pool);
  gst_buffer_pool_config_set_params(config, caps, (guint)info.size, 0, 0);
  gst_buffer_pool_config_add_option(config, GST_BUFFER_POOL_OPTION_GL_SYNC_META);
  gst_caps_unref(caps);
  if (!gst_buffer_pool_set_config(pool, config) || !gst_buffer_pool_set_active(pool, TRUE)) {
    *why = g_strdup_printf("no pool of %dx%d GRAY8 GL textures", w, h);
    gst_object_unref(pool);
    return NULL;
  }
  return pool;
}

static void mask_free(GstTfliteFilterGl *gl)
{
  const GstGLFuncs *f = gl->context->gl_vtable;
  if (gl->program) f->DeleteProgram(gl->program);
  if (gl->bytes) f->DeleteBuffers(1, &gl->bytes);
  gl->program = gl->bytes = 0;
  if (gl->pool) {
    /* buffers still out (in metas downstream) are freed when they come back */
    gst_buffer_pool_set_active(gl->pool, FALSE);
    gst_object_unref(gl->pool);
    gl->pool = NULL;
  }
}

/* Prepares the shader, its output buffer and the pool for a w x h mask. */
static gboolean mask_prepare(GstTfliteFilterGl *gl, gint w, gint h, gchar **why)
{
  GstGLContext *ctx = gl->context;
  const GstGLFuncs *f = ctx->gl_vtable;
  if (!gl->program) {
    gl->f.DispatchCompute = gst_gl_context_get_proc_address(ctx, "glDispatchCompute");
    gl->f.MemoryBarrier = gst_gl_context_get_proc_address(ctx, "glMemoryBarrier");
    gl->f.BindBufferBase = gst_gl_context_get_proc_address(ctx, "glBindBufferBase");
    gl->f.Uniform4i = gst_gl_context_get_proc_address(ctx, "glUniform4i");
    gl->f.Uniform2i = gst_gl_context_get_proc_address(ctx, "glUniform2i");
    if (!gl->f.DispatchCompute || !gl->f.MemoryBarrier || !gl->f.BindBufferBase || !gl->f.Uniform4i ||
        !gl->f.Uniform2i) {
      *why = g_strdup("the GL context lacks compute entry points");
      return FALSE;
    }
    if (!(gl->program = mask_compile(ctx, why))) return FALSE;
  }
  gsize size = (gsize)((w + 3) / 4) * 4 * (gsize)h;
  if (!gl->bytes || gl->bytes_size != size) {
    if (!gl->bytes) f->GenBuffers(1, &gl->bytes);
    f->BindBuffer(GL_SHADER_STORAGE_BUFFER_, gl->bytes);
    f->BufferData(GL_SHADER_STORAGE_BUFFER_, (GLsizeiptr)size, NULL, GL_DYNAMIC_COPY);
    f->BindBuffer(GL_SHADER_STORAGE_BUFFER_, 0);
    gl->bytes_size = size;
  }
  if (!gl->pool || gl->mask_w != w || gl->mask_h != h) {
    if (gl->pool) {
      gst_buffer_pool_set_active(gl->pool, FALSE);
      gst_object_unref(gl->pool);
    }
    if (!(gl->pool = mask_pool_new(ctx, w, h, why))) return FALSE;
    gl->mask_w = w;
    gl->mask_h = h;
  }
  return TRUE;
}

/* Writes output 0 of the interpreter into the texture of `mask`; FALSE (with *why) when it
 * cannot. */
static gboolean mask_write(GstTfliteFilter *self, GstBuffer *mask, gchar **why)
{
  GstTfliteFilterGl *gl = self->gl;
  GstGLContext *ctx = gl->context;
  const GstGLFuncs *f = ctx->gl_vtable;
  const tfl_graph *g = tfl_interpreter_graph(self->interp);
  gl_output_buffer ob;
  if (g->n_outputs < 1 || gl_delegate_output_buffer(gl->accel, g->outputs[0], &ob) != TFL_OK) {
    *why = g_strdup_printf("the mask output is not on the GPU: %s", self->diag.error);
    return FALSE;
  }
  if (ob.w != gl->mask_w || ob.h != gl->mask_h) {
    *why = g_strdup_printf("the mask output is %dx%d, the pool's textures %dx%d", ob.w, ob.h, gl->mask_w,
                           gl->mask_h);
    return FALSE;
  }
  GstGLMemory *mem = (GstGLMemory *)gst_buffer_peek_memory(mask, 0);
  size_t vec4_bytes = ob.fp16 ? 8 : 16;
  f->UseProgram(gl->program);
  gl->f.BindBufferBase(GL_SHADER_STORAGE_BUFFER_, 0, ob.buffer);
  gl->f.BindBufferBase(GL_SHADER_STORAGE_BUFFER_, 1, gl->bytes);
  gl->f.Uniform4i(0, ob.w, ob.h, ob.c, ob.slices);
  gl->f.Uniform2i(1, (GLint)(ob.offset / vec4_bytes), ob.fp16);
  f->Uniform1i(2, gl->sigmoid);
  gl->f.DispatchCompute((GLuint)((ob.w + 3) / 4 + 7) / 8, (GLuint)(ob.h + 7) / 8, 1);
  gl->f.MemoryBarrier(GL_PIXEL_BUFFER_BARRIER_BIT_);
  f->UseProgram(0);
  /* the bytes into the pool's texture, GPU to GPU */
  f->BindBuffer(GL_PIXEL_UNPACK_BUFFER_, gl->bytes);
  f->PixelStorei(GL_UNPACK_ALIGNMENT, 4);
  f->BindTexture(GL_TEXTURE_2D, gst_gl_memory_get_texture_id(mem));
  f->TexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, ob.w, ob.h, GL_RED, GL_UNSIGNED_BYTE, NULL);
  f->BindTexture(GL_TEXTURE_2D, 0);
  f->BindBuffer(GL_PIXEL_UNPACK_BUFFER_, 0);
  GLenum e = f->GetError();
  if (e != GL_NO_ERROR) {
    *why = g_strdup_printf("writing the mask texture: GL error 0x%04x", e);
    return FALSE;
  }
  GstGLSyncMeta *sync = gst_buffer_get_gl_sync_meta(mask);
  if (sync) gst_gl_sync_meta_set_sync_point(sync, ctx);
  return TRUE;
}

/* ---- set-up ---- */

static void start_on_gl_thread(GstGLContext *ctx, gpointer data)
{
  gl_call *c = data;
  GstTfliteFilter *self = c->self;
  GstTfliteFilterGl *gl = self->gl;
  gl_delegate_options o = gl_delegate_defaults();
  GST_OBJECT_LOCK(self);
  o.precision = self->precision == GST_TFLITE_PRECISION_FP32 ? GL_PRECISION_FP32 : GL_PRECISION_FP16;
  gchar *cache_dir = g_strdup(self->cache_dir);
  gint threads = self->threads;
  GST_OBJECT_UNLOCK(self);
  o.use_current_context = true;
  o.cache_dir = cache_dir;
  o.texture_input = true;
  o.diag = &self->diag;
  gl->accel = gl_delegate_create(&o);
  g_free(cache_dir);
  if (!gl->accel) {
    c->error = g_strdup_printf("GL delegate: %s", self->diag.error);
    return;
  }
  if (!gst_tflite_filter_make_cpu(self, threads)) {
    c->error = g_strdup_printf("CPU delegate: %s", self->diag.error);
    gl->accel->destroy(gl->accel);
    gl->accel = NULL;
    return;
  }
  tfl_interp_options io = tfl_interp_defaults();
  io.fallback = self->cpu;
  io.diag = &self->diag;
  io.delegate = gl->accel;
  if (tfl_interpreter_create(self->graph, &io, &self->interp) != TFL_OK) {
    c->error = g_strdup_printf("preparing the model for GL: %s", self->diag.error);
    gl->accel->destroy(gl->accel);
    gl->accel = NULL;
    return;
  }
  c->ok = TRUE;
}

static gboolean has_compute(GstGLContext *ctx, GError **err)
{
  GstGLAPI api = gst_gl_context_get_gl_api(ctx);
  gint major = 0, minor = 0;
  gst_gl_context_get_gl_version(ctx, &major, &minor);
  gboolean compute = (api & GST_GL_API_GLES2) ? (major > 3 || (major == 3 && minor >= 1))
                                              : (major > 4 || (major == 4 && minor >= 3));
  if (!compute)
    g_set_error(err, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_INIT,
                "the GL context (version %d.%d) has no compute shaders (needs GLES 3.1 or GL 4.3)", major, minor);
  return compute;
}

gboolean gst_tflite_filter_gl_start(GstTfliteFilter *self, GstBuffer *buf, GError **err)
{
  GstMemory *mem = gst_buffer_n_memory(buf) > 0 ? gst_buffer_peek_memory(buf, 0) : NULL;
  if (!mem || !gst_is_gl_memory(mem)) {
    g_set_error(err, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_INIT, "the buffer holds no GL memory");
    return FALSE;
  }
  GstGLContext *ctx = ((GstGLBaseMemory *)mem)->context;
  if (!has_compute(ctx, err)) return FALSE;
  GstTfliteFilterGl *gl = g_new0(GstTfliteFilterGl, 1);
  gl->context = gst_object_ref(ctx);
  self->gl = gl;
  gl->segmentation = self->decoder && tfl_decoder_get_kind(self->decoder) == TFL_DECODER_SEGMENTATION;
  gl->sigmoid = gl->segmentation && self->graph->n_outputs > 0 &&
                tfl_decoder_output_is_logits(self->graph, self->graph->outputs[0]);
  gl_call c = { self, FALSE, NULL, NULL, FALSE, NULL, FALSE };
  gst_gl_context_thread_add(ctx, start_on_gl_thread, &c);
  if (!c.ok) {
    g_set_error(err, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_INIT, "%s", c.error ? c.error : "GL setup failed");
    g_free(c.error);
    gst_object_unref(gl->context);
    g_free(gl);
    self->gl = NULL;
    return FALSE;
  }
  GST_INFO_OBJECT(self, "GL delegate ready on %" GST_PTR_FORMAT, ctx);
  return TRUE;
}

/* ---- per frame ---- */

/* Whether output 0 stays on the GPU (see the top comment). */
static void set_out_on_gpu(GstTfliteFilter *self, gboolean on)
{
  GstTfliteFilterGl *gl = self->gl;
  const tfl_graph *g = tfl_interpreter_graph(self->interp);
  if (on == gl->out_on_gpu || (on && gl->gpu_refused)) return;
  if (gl_delegate_set_output_on_gpu(gl->accel, g->outputs[0], on) != TFL_OK) {
    GST_INFO_OBJECT(self, "mask output read back on every frame: %s", self->diag.error);
    gl->gpu_refused = TRUE;
    return;
  }
  GST_DEBUG_OBJECT(self, "mask output %s", on ? "left on the GPU" : "read back");
  gl->out_on_gpu = on;
}

static void infer_on_gl_thread(GstGLContext *ctx, gpointer data)
{
  gl_call *c = data;
  GstTfliteFilter *self = c->self;
  GstTfliteFilterGl *gl = self->gl;
  if (c->readback) set_out_on_gpu(self, FALSE);
  if (gl_delegate_set_input_texture(gl->accel, c->tex) != TFL_OK || tfl_interpreter_invoke(self->interp) != TFL_OK) {
    c->error = g_strdup(self->diag.error);
    return;
  }
  c->ok = TRUE;
  c->no_pixels = gl->out_on_gpu;
  if (!c->mask) return;
  gchar *why = NULL;
  gboolean written = mask_write(self, c->mask, &why);
  if (!written) {
    GST_WARNING_OBJECT(self, "no GL mask texture (CPU mask only): %s", why);
    g_free(why);
    gl->mask_failed = TRUE;
    gst_clear_buffer(&c->mask);
    if (c->no_pixels) {
      /* the texture broke on a frame that read nothing back: read back from now on */
      set_out_on_gpu(self, FALSE);
      c->no_pixels = FALSE;
      if (tfl_interpreter_invoke(self->interp) != TFL_OK) {
        c->ok = FALSE;
        c->error = g_strdup(self->diag.error);
      }
    }
    return;
  }
  /* the texture works: later inferences need not wait for the GPU */
  if (!c->readback) set_out_on_gpu(self, TRUE);
}

static void prepare_mask_on_gl_thread(GstGLContext *ctx, gpointer data)
{
  gl_call *c = data;
  GstTfliteFilterGl *gl = c->self->gl;
  const tfl_tensor *t = tfl_interpreter_output(c->self->interp, 0);
  c->ok = mask_prepare(gl, t->dims[2], t->dims[1], &c->error);
}

/* A texture for this inference's mask from the pool, or NULL (CPU mask only). */
static GstBuffer *acquire_mask(GstTfliteFilter *self)
{
  GstTfliteFilterGl *gl = self->gl;
  if (!gl->segmentation || gl->mask_failed) return NULL;
  if (!gl->pool) {
    gl_call c = { self, FALSE, NULL, NULL, FALSE, NULL, FALSE };
    gst_gl_context_thread_add(gl->context, prepare_mask_on_gl_thread, &c);
    if (!c.ok) {
      GST_WARNING_OBJECT(self, "no GL mask texture (CPU mask only): %s", c.error ? c.error : "unknown");
      g_free(c.error);
      gl->mask_failed = TRUE;
      return NULL;
    }
  }
  GstBuffer *mask = NULL;
  if (gst_buffer_pool_acquire_buffer(gl->pool, &mask, NULL) != GST_FLOW_OK) {
    GST_WARNING_OBJECT(self, "the mask texture pool gave no buffer (CPU mask only)");
    gl->mask_failed = TRUE;
    return NULL;
  }
  return mask;
}

gboolean gst_tflite_filter_gl_infer(GstTfliteFilter *self, GstBuffer *buf, const tfl_transform *tr,
                                    gboolean readback, GstBuffer **gl_mask, gboolean *gpu_only, GError **err)
{
  GstTfliteFilterGl *gl = self->gl;
  *gl_mask = NULL;
  *gpu_only = FALSE;
  GstMemory *mem = gst_buffer_n_memory(buf) > 0 ? gst_buffer_peek_memory(buf, 0) : NULL;
  if (!mem || !gst_is_gl_memory(mem)) {
    g_set_error(err, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_FAILED, "the buffer holds no GL memory");
    return FALSE;
  }
  GstGLContext *ctx = gl->context;
  if (((GstGLBaseMemory *)mem)->context != ctx && !gst_gl_context_can_share(((GstGLBaseMemory *)mem)->context, ctx)) {
    g_set_error(err, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_FAILED,
                "the frame's GL context changed and does not share with the delegate's");
    return FALSE;
  }
  /* A GL map, not a CPU one: it gives the texture name and runs a pending upload
   * (glupload hands out memory whose texture is filled lazily). */
  GstMapInfo map;
  if (!gst_memory_map(mem, &map, GST_MAP_READ | GST_MAP_GL)) {
    g_set_error(err, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_FAILED, "could not map the frame's texture");
    return FALSE;
  }
  /* the producer's GL commands must be done before our shader samples the texture */
  GstGLSyncMeta *sync = gst_buffer_get_gl_sync_meta(buf);
  if (sync) gst_gl_sync_meta_wait(sync, ctx);

  gl_texture_input tex = {
    .texture = *(guint *)map.data,
    /* the frame, not the texture: a texture may be wider than the frame (row padding) */
    .width = GST_VIDEO_INFO_WIDTH(&self->info),
    .height = GST_VIDEO_INFO_HEIGHT(&self->info),
    /* tfl_transform maps to frame pixels; the texture is the frame */
    .scale_x = tr->scale_x, .scale_y = tr->scale_y, .off_x = tr->off_x, .off_y = tr->off_y,
  };
  for (int ch = 0; ch < 3; ch++) {
    tex.mean[ch] = self->model.norm.mean[ch];
    tex.std[ch] = self->model.norm.std[ch];
  }
  gl_call c = { self, FALSE, NULL, &tex, readback, acquire_mask(self), FALSE };
  gst_gl_context_thread_add(ctx, infer_on_gl_thread, &c);
  gst_memory_unmap(mem, &map);
  if (!c.ok) {
    g_set_error(err, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_FAILED, "%s", c.error ? c.error : "GL inference failed");
    g_free(c.error);
    gst_clear_buffer(&c.mask);
    return FALSE;
  }
  /* downstream writers wait for our reads of the texture */
  if (sync) gst_gl_sync_meta_set_sync_point(sync, ctx);
  *gl_mask = c.mask;
  *gpu_only = c.no_pixels;
  return TRUE;
}

/* ---- tear-down ---- */

static void stop_on_gl_thread(GstGLContext *ctx, gpointer data)
{
  GstTfliteFilter *self = data;
  GstTfliteFilterGl *gl = self->gl;
  mask_free(gl);
  tfl_interpreter_free(self->interp);
  self->interp = NULL;
  if (gl->accel) gl->accel->destroy(gl->accel);
  gl->accel = NULL;
}

void gst_tflite_filter_gl_stop(GstTfliteFilter *self)
{
  GstTfliteFilterGl *gl = self->gl;
  if (!gl) return;
  gst_gl_context_thread_add(gl->context, stop_on_gl_thread, self);
  gst_object_unref(gl->context);
  g_free(gl);
  self->gl = NULL;
}
