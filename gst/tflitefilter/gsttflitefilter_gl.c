/* gsttflitefilter_gl.c - tflitefilter's GL path (see gsttflitefilter_gl.h).
 *
 * The GL delegate lives on the GstGLContext of the incoming GL memory; every call into
 * it (create, invoke, free) is marshalled onto that context's thread with
 * gst_gl_context_thread_add, where the context is current. The frame's texture is
 * sampled by the delegate's input shader: the frame is never mapped on the CPU. */
#include "gsttflitefilter_gl.h"

#include <gst/gl/gl.h>
#include <gst/gl/gstglfuncs.h>

#include "delegates/gl/gl_delegate.h"

GST_DEBUG_CATEGORY_EXTERN(gst_tflite_filter_debug);
#define GST_CAT_DEFAULT gst_tflite_filter_debug

typedef struct {
  GstTfliteFilter *self;
  gboolean ok;
  gchar *error;
  const gl_texture_input *tex;
  gboolean mask_ok;            /* the mask texture holds this inference's mask */
  gboolean readback;           /* gl-readback: the mask output must come back to the CPU */
  gboolean no_pixels;          /* this inference read nothing back (mask as texture only) */
} gl_call;

/* ---- the segmentation mask as a GL texture (no readback needed by GL consumers) ----
 * A compute shader reads the mask output where the delegate left it (PHWC4 in its
 * arena buffer, gl_delegate_output_buffer) and writes an R32F texture: the class index
 * / 255 for class masks (argmax over channels), the probability for one-channel masks;
 * the same values tfliteoverlay reads from its own R8 / R32F uploads.
 *
 * Once the texture works, and unless gl-readback is set, the delegate leaves the mask
 * output on the GPU (gl_delegate_set_output_on_gpu): invoke then returns without waiting
 * for the GPU and the meta's mask has no CPU pixels, only its size, kind and placement.
 * The first inference always reads back: it checks the texture path and tells logits
 * from probabilities (the CPU decoder applies a sigmoid to logits; so does the shader). */

#define GL_COMPUTE_SHADER_ 0x91B9
#define GL_SHADER_STORAGE_BUFFER_ 0x90D2
#define GL_SHADER_IMAGE_ACCESS_BARRIER_BIT_ 0x00000020
#define GL_TEXTURE_FETCH_BARRIER_BIT_ 0x00000008
#define GL_WRITE_ONLY_ 0x88B9
#define GL_R32F_ 0x822E

static const char mask_shader_src[] =
  "#version 310 es\n"
  "layout(local_size_x = 8, local_size_y = 8) in;\n"
  "layout(std430, binding = 0) readonly buffer Arena { uint data[]; };\n"
  "layout(r32f, binding = 0) writeonly uniform highp image2D u_mask;\n"
  "layout(location = 0) uniform ivec4 u_geom;\n" /* w, h, c, slices */
  "layout(location = 1) uniform ivec2 u_base;\n" /* first vec4, fp16 */
  "layout(location = 2) uniform int u_sigmoid;\n" /* one-channel logits */
  "vec4 load(int i) {\n"
  "  i += u_base.x;\n"
  "  if (u_base.y != 0) return vec4(unpackHalf2x16(data[2 * i]), unpackHalf2x16(data[2 * i + 1]));\n"
  "  return uintBitsToFloat(uvec4(data[4 * i], data[4 * i + 1], data[4 * i + 2], data[4 * i + 3]));\n"
  "}\n"
  "void main() {\n"
  "  ivec2 p = ivec2(gl_GlobalInvocationID.xy);\n"
  "  if (p.x >= u_geom.x || p.y >= u_geom.y) return;\n"
  "  float v;\n"
  "  if (u_geom.z == 1) {\n"
  "    float x = load(p.y * u_geom.x + p.x).x;\n"
  "    v = u_sigmoid != 0 ? 1.0 / (1.0 + exp(-x)) : clamp(x, 0.0, 1.0);\n"
  "  } else {\n"
  "    float best = -3.0e38; int cls = 0;\n"
  "    for (int s = 0; s < u_geom.w; s++) {\n"
  "      vec4 q = load((s * u_geom.y + p.y) * u_geom.x + p.x);\n"
  "      for (int k = 0; k < 4; k++)\n"
  "        if (4 * s + k < u_geom.z && q[k] > best) { best = q[k]; cls = 4 * s + k; }\n"
  "    }\n"
  "    v = float(cls) / 255.0;\n"
  "  }\n"
  "  imageStore(u_mask, p, vec4(v, 0.0, 0.0, 1.0));\n"
  "}\n";

typedef struct {
  void (*DispatchCompute)(GLuint, GLuint, GLuint);
  void (*MemoryBarrier)(GLbitfield);
  void (*BindBufferBase)(GLenum, GLuint, GLuint);
  void (*BindImageTexture)(GLuint, GLuint, GLint, GLboolean, GLint, GLenum, GLenum);
  void (*TexStorage2D)(GLenum, GLsizei, GLenum, GLsizei, GLsizei);
  void (*Uniform4i)(GLint, GLint, GLint, GLint, GLint);
  void (*Uniform2i)(GLint, GLint, GLint);
  GLuint program, texture;
  int width, height;
  gboolean failed;             /* tried and could not: CPU pixels only from then on */
  gboolean gpu_refused;        /* the delegate cannot leave the output on the GPU */
} gl_mask_writer;

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

static gl_mask_writer *mask_writer_new(GstGLContext *ctx, gchar **why)
{
  gl_mask_writer *m = g_new0(gl_mask_writer, 1);
  m->DispatchCompute = gst_gl_context_get_proc_address(ctx, "glDispatchCompute");
  m->MemoryBarrier = gst_gl_context_get_proc_address(ctx, "glMemoryBarrier");
  m->BindBufferBase = gst_gl_context_get_proc_address(ctx, "glBindBufferBase");
  m->BindImageTexture = gst_gl_context_get_proc_address(ctx, "glBindImageTexture");
  m->TexStorage2D = gst_gl_context_get_proc_address(ctx, "glTexStorage2D");
  m->Uniform4i = gst_gl_context_get_proc_address(ctx, "glUniform4i");
  m->Uniform2i = gst_gl_context_get_proc_address(ctx, "glUniform2i");
  if (!m->DispatchCompute || !m->MemoryBarrier || !m->BindBufferBase || !m->BindImageTexture ||
      !m->TexStorage2D || !m->Uniform4i || !m->Uniform2i) {
    *why = g_strdup("the GL context lacks compute or image entry points");
    m->failed = TRUE;
    return m;
  }
  if (!(m->program = mask_compile(ctx, why))) m->failed = TRUE;
  return m;
}

static void mask_writer_free(GstGLContext *ctx, gl_mask_writer *m)
{
  if (!m) return;
  const GstGLFuncs *gl = ctx->gl_vtable;
  if (m->program) gl->DeleteProgram(m->program);
  if (m->texture) gl->DeleteTextures(1, &m->texture);
  g_free(m);
}

/* Writes the mask texture from output 0; FALSE (with *why) when it cannot. */
static gboolean mask_write(GstGLContext *ctx, GstTfliteFilter *self, gchar **why)
{
  const GstGLFuncs *gl = ctx->gl_vtable;
  if (!self->gl_mask) self->gl_mask = mask_writer_new(ctx, why);
  gl_mask_writer *m = self->gl_mask;
  if (m->failed) return FALSE;
  const tfl_graph *g = tfl_interpreter_graph(self->interp);
  gl_output_buffer ob;
  if (g->n_outputs < 1 || gl_delegate_output_buffer(self->accel, g->outputs[0], &ob) != TFL_OK) {
    *why = g_strdup_printf("the mask output is not on the GPU: %s", self->diag.error);
    m->failed = TRUE;
    return FALSE;
  }
  if (!m->texture || m->width != ob.w || m->height != ob.h) {
    if (m->texture) gl->DeleteTextures(1, &m->texture);
    gl->GenTextures(1, &m->texture);
    gl->BindTexture(GL_TEXTURE_2D, m->texture);
    /* immutable storage: image stores need it under GLES */
    m->TexStorage2D(GL_TEXTURE_2D, 1, GL_R32F_, ob.w, ob.h);
    gl->TexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    gl->TexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    gl->BindTexture(GL_TEXTURE_2D, 0);
    m->width = ob.w;
    m->height = ob.h;
  }
  size_t vec4_bytes = ob.fp16 ? 8 : 16;
  gl->UseProgram(m->program);
  m->BindBufferBase(GL_SHADER_STORAGE_BUFFER_, 0, ob.buffer);
  m->BindImageTexture(0, m->texture, 0, GL_FALSE, 0, GL_WRITE_ONLY_, GL_R32F_);
  m->Uniform4i(0, ob.w, ob.h, ob.c, ob.slices);
  m->Uniform2i(1, (GLint)(ob.offset / vec4_bytes), ob.fp16);
  gl->Uniform1i(2, self->gl_mask_sigmoid);
  m->DispatchCompute((GLuint)(ob.w + 7) / 8, (GLuint)(ob.h + 7) / 8, 1);
  m->MemoryBarrier(GL_TEXTURE_FETCH_BARRIER_BIT_ | GL_SHADER_IMAGE_ACCESS_BARRIER_BIT_);
  gl->UseProgram(0);
  GLenum e = gl->GetError();
  if (e != GL_NO_ERROR) {
    *why = g_strdup_printf("writing the mask texture: GL error 0x%04x", e);
    m->failed = TRUE;
    return FALSE;
  }
  return TRUE;
}

static void setup_on_gl_thread(GstGLContext *ctx, gpointer data)
{
  gl_call *c = data;
  GstTfliteFilter *self = c->self;
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
  self->accel = gl_delegate_create(&o);
  g_free(cache_dir);
  if (!self->accel) {
    c->error = g_strdup_printf("GL delegate: %s", self->diag.error);
    return;
  }
  tfl_interp_options io = tfl_interp_defaults();
  io.delegate = self->accel;
  io.diag = &self->diag;
  if (!gst_tflite_filter_make_cpu(self, threads)) {
    c->error = g_strdup_printf("CPU delegate: %s", self->diag.error);
    self->accel->destroy(self->accel);
    self->accel = NULL;
    return;
  }
  io.fallback = self->cpu;
  if (tfl_interpreter_create(self->graph, &io, &self->interp) != TFL_OK) {
    c->error = g_strdup_printf("preparing the model for GL: %s", self->diag.error);
    self->accel->destroy(self->accel);
    self->accel = NULL;
    return;
  }
  c->ok = TRUE;
}

gboolean gst_tflite_filter_gl_setup(GstTfliteFilter *self, GstBuffer *buf, GError **err)
{
  GstMemory *mem = gst_buffer_n_memory(buf) > 0 ? gst_buffer_peek_memory(buf, 0) : NULL;
  if (!mem || !gst_is_gl_memory(mem)) {
    g_set_error(err, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_INIT, "the buffer holds no GL memory");
    return FALSE;
  }
  GstGLContext *ctx = ((GstGLBaseMemory *)mem)->context;
  /* compute shaders: GLES 3.1 or desktop GL 4.3 */
  GstGLAPI api = gst_gl_context_get_gl_api(ctx);
  gint major = 0, minor = 0;
  gst_gl_context_get_gl_version(ctx, &major, &minor);
  gboolean compute = (api & GST_GL_API_GLES2) ? (major > 3 || (major == 3 && minor >= 1))
                                              : (major > 4 || (major == 4 && minor >= 3));
  if (!compute) {
    g_set_error(err, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_INIT,
                "the GL context (version %d.%d) has no compute shaders (needs GLES 3.1 or GL 4.3)",
                major, minor);
    return FALSE;
  }
  self->gl_context = gst_object_ref(ctx);
  gl_call c = { self, FALSE, NULL, NULL, FALSE, FALSE, FALSE };
  gst_gl_context_thread_add(ctx, setup_on_gl_thread, &c);
  if (!c.ok) {
    g_set_error(err, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_INIT, "%s", c.error ? c.error : "GL setup failed");
    g_free(c.error);
    gst_clear_object((GstGLContext **)&self->gl_context);
    return FALSE;
  }
  GST_INFO_OBJECT(self, "GL delegate ready on %" GST_PTR_FORMAT, ctx);
  return TRUE;
}

/* Whether output 0 of the mask stays on the GPU (see the mask texture's comment above). */
static void set_out_on_gpu(GstTfliteFilter *self, gboolean on)
{
  gl_mask_writer *m = self->gl_mask;
  const tfl_graph *g = tfl_interpreter_graph(self->interp);
  if (on == self->gl_out_on_gpu || (on && m->gpu_refused)) return;
  if (gl_delegate_set_output_on_gpu(self->accel, g->outputs[0], on) != TFL_OK) {
    GST_INFO_OBJECT(self, "mask output read back on every frame: %s", self->diag.error);
    if (m) m->gpu_refused = TRUE;
    return;
  }
  GST_DEBUG_OBJECT(self, "mask output %s", on ? "left on the GPU" : "read back");
  self->gl_out_on_gpu = on;
}

/* A one-channel float mask of values outside 0..1 is logits (decode_segmentation's test). */
static gboolean mask_is_logits(GstTfliteFilter *self)
{
  const tfl_tensor *t = tfl_interpreter_output(self->interp, 0);
  if (t->type != TFL_TYPE_FLOAT32 || t->ndim != 4 || t->dims[3] != 1 || !t->data) return FALSE;
  const float *v = t->data;
  size_t n = tfl_tensor_count(t);
  for (size_t i = 0; i < n; i++)
    if (v[i] < -1e-3f || v[i] > 1.0f + 1e-3f) return TRUE;
  return FALSE;
}

static void infer_on_gl_thread(GstGLContext *ctx, gpointer data)
{
  gl_call *c = data;
  GstTfliteFilter *self = c->self;
  gboolean seg = self->decoder && tfl_decoder_get_kind(self->decoder) == TFL_DECODER_SEGMENTATION;
  if (c->readback) set_out_on_gpu(self, FALSE);
  if (gl_delegate_set_input_texture(self->accel, c->tex) != TFL_OK ||
      tfl_interpreter_invoke(self->interp) != TFL_OK) {
    c->error = g_strdup(self->diag.error);
    return;
  }
  c->ok = TRUE;
  c->mask_ok = FALSE;
  c->no_pixels = self->gl_out_on_gpu;
  if (!seg) return;
  if (!c->no_pixels) self->gl_mask_sigmoid = mask_is_logits(self);
  gboolean tried = self->gl_mask && ((gl_mask_writer *)self->gl_mask)->failed;
  gchar *why = NULL;
  c->mask_ok = !tried && mask_write(ctx, self, &why);
  if (why) GST_WARNING_OBJECT(self, "no GL mask texture (CPU mask only): %s", why);
  g_free(why);
  if (!c->mask_ok && c->no_pixels) {
    /* the texture broke on a frame that read nothing back: read back from now on */
    set_out_on_gpu(self, FALSE);
    c->no_pixels = FALSE;
    if (tfl_interpreter_invoke(self->interp) != TFL_OK) {
      c->ok = FALSE;
      c->error = g_strdup(self->diag.error);
    }
    return;
  }
  /* the texture works: later inferences need not wait for the GPU */
  if (c->mask_ok && !c->readback) set_out_on_gpu(self, TRUE);
}

gboolean gst_tflite_filter_gl_infer(GstTfliteFilter *self, GstBuffer *buf, const tfl_transform *tr,
                                    GError **err)
{
  GstMemory *mem = gst_buffer_n_memory(buf) > 0 ? gst_buffer_peek_memory(buf, 0) : NULL;
  if (!mem || !gst_is_gl_memory(mem)) {
    g_set_error(err, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_FAILED, "the buffer holds no GL memory");
    return FALSE;
  }
  GstGLContext *ctx = self->gl_context;
  if (((GstGLBaseMemory *)mem)->context != ctx &&
      !gst_gl_context_can_share(((GstGLBaseMemory *)mem)->context, ctx)) {
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
    tex.mean[ch] = self->norm.mean[ch];
    tex.std[ch] = self->norm.std[ch];
  }
  gl_call c = { self, FALSE, NULL, &tex, FALSE, FALSE, FALSE };
  GST_OBJECT_LOCK(self);
  c.readback = self->gl_readback;
  GST_OBJECT_UNLOCK(self);
  gst_gl_context_thread_add(ctx, infer_on_gl_thread, &c);
  self->gl_mask_valid = c.mask_ok;
  self->gl_frame_no_pixels = c.ok && c.no_pixels;
  gst_memory_unmap(mem, &map);
  if (!c.ok) {
    g_set_error(err, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_FAILED, "%s", c.error ? c.error : "GL inference failed");
    g_free(c.error);
    return FALSE;
  }
  /* downstream writers wait for our reads of the texture */
  if (sync) gst_gl_sync_meta_set_sync_point(sync, ctx);
  return TRUE;
}

gboolean gst_tflite_filter_gl_mask_without_pixels(GstTfliteFilter *self, const tfl_transform *tr,
                                                  tfl_results *res)
{
  if (!self->gl_frame_no_pixels) return FALSE;
  /* decode_segmentation's geometry: output 0 is [1, H, W, C], checked when it was created */
  const tfl_tensor *t = tfl_interpreter_output(self->interp, 0);
  tfl_mask *m = &res->mask;
  m->kind = t->dims[3] == 1 ? TFL_MASK_PROB : TFL_MASK_CLASSES;
  m->width = t->dims[2];
  m->height = t->dims[1];
  m->n_classes = t->dims[3] == 1 ? 2 : t->dims[3];
  m->frame_x = tr->off_x;
  m->frame_y = tr->off_y;
  m->frame_w = (float)tr->in_w * tr->scale_x;
  m->frame_h = (float)tr->in_h * tr->scale_y;
  return TRUE;
}

void gst_tflite_filter_gl_attach_mask(GstTfliteFilter *self, GstTfliteMeta *meta)
{
  gl_mask_writer *m = self->gl_mask;
  if (!m || !self->gl_mask_valid || meta->results.mask.kind == TFL_MASK_NONE) return;
  meta->mask_texture = m->texture;
  if (meta->gl_context) gst_object_unref(meta->gl_context);
  meta->gl_context = gst_object_ref(self->gl_context);
}

static void release_on_gl_thread(GstGLContext *ctx, gpointer data)
{
  GstTfliteFilter *self = data;
  mask_writer_free(ctx, self->gl_mask);
  self->gl_mask = NULL;
  self->gl_mask_valid = FALSE;
  self->gl_out_on_gpu = FALSE;
  self->gl_mask_sigmoid = FALSE;
  self->gl_frame_no_pixels = FALSE;
  tfl_interpreter_free(self->interp);
  self->interp = NULL;
  self->accel->destroy(self->accel);
  self->accel = NULL;
}

void gst_tflite_filter_gl_release(GstTfliteFilter *self)
{
  if (!self->accel) return;
  if (self->gl_context)
    gst_gl_context_thread_add(self->gl_context, release_on_gl_thread, self);
  gst_clear_object((GstGLContext **)&self->gl_context);
}
