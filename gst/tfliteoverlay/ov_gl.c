/* ov_gl.c - see ov_gl.h */
#include "ov_gl.h"

#include "ov_gl_comp.h"
#include "ov_glyphs.h"

#include <gst/gl/gstglfuncs.h>
#include <string.h>

GST_DEBUG_CATEGORY_EXTERN(gst_tflite_overlay_debug);
#define GST_CAT_DEFAULT gst_tflite_overlay_debug

#ifndef GL_R8
#define GL_R8 0x8229
#endif
#ifndef GL_R32F
#define GL_R32F 0x822E
#endif
#ifndef GL_RED
#define GL_RED 0x1903
#endif

/* GL 3.3 / GLES 3.0 entry points GstGLFuncs lacks, loaded from the context */
typedef void (GSTGLAPI *OvDrawArraysInstanced)(GLenum mode, GLint first, GLsizei count, GLsizei n);
typedef void (GSTGLAPI *OvVertexAttribDivisor)(GLuint index, GLuint divisor);
typedef void (GSTGLAPI *OvGenSamplers)(GLsizei n, GLuint *samplers);
typedef void (GSTGLAPI *OvDeleteSamplers)(GLsizei n, const GLuint *samplers);
typedef void (GSTGLAPI *OvBindSampler)(GLuint unit, GLuint sampler);
typedef void (GSTGLAPI *OvSamplerParameteri)(GLuint sampler, GLenum pname, GLint param);

/* Attribute slots, shared by the shape and glyph programs: both instance structs are
 * two vec4 of floats then four normalized bytes. */
#define OV_ATTR_A 0
#define OV_ATTR_B 1
#define OV_ATTR_COLOR 2
#define OV_UNIT_MASK 0
#define OV_UNIT_PALETTE 1
#define OV_UNIT_ATLAS 0

typedef struct {
  gfloat dst[4];   /* x0, y0, x1, y1 frame pixels */
  gfloat src[4];   /* x0, y0, x1, y1 atlas texels */
  guint8 rgba[4];
} OvGlyphQuad;

G_STATIC_ASSERT(sizeof(OvGlyphQuad) == sizeof(OvShape));

struct _OvGl {
  GstGLContext *context;
  OvDrawArraysInstanced DrawArraysInstanced;
  OvVertexAttribDivisor VertexAttribDivisor;
  OvGenSamplers GenSamplers;
  OvDeleteSamplers DeleteSamplers;
  OvBindSampler BindSampler;
  OvSamplerParameteri SamplerParameteri;
  GstGLShader *shape, *glyph, *mask;
  OvGlComp *comp;  /* the compute mask pass, NULL where the fragment pass draws masks */
  OvGlPath last_path;
  gboolean told_no_image; /* said once that a frame texture cannot be an image */
  GLuint vao, vao_empty, vbo[2], fbo, sampler; /* vao_empty: the attribute-less mask pass */
  GLuint atlas_tex, palette_tex, mask_tex;
  guint atlas_serial, atlas_generation;
  gboolean atlas_valid;
  guint8 palette[256][4];
  gboolean palette_valid;
  gint mask_w, mask_h;
  tfl_mask_kind mask_kind;
  GArray *quads;   /* OvGlyphQuad scratch */
  GArray *placed;  /* OvPlacedGlyph scratch */
};

/* The shaders: the .glsl files in shaders/, embedded at build time (ov_shaders.h, made by
 * scripts/embed_glsl.py); a version line is prepended for the context's API. */
#include "ov_shaders.h"

gboolean ov_gl_context_ok(GstGLContext *context)
{
  if (gst_gl_context_check_gl_version(context, GST_GL_API_GLES2, 3, 0)) return TRUE;
  return gst_gl_context_check_gl_version(context, GST_GL_API_OPENGL3 | GST_GL_API_OPENGL, 3, 3);
}

/* fs_prelude: text the fragment stage shares with another program (NULL: none) */
static GstGLShader *make_program(GstGLContext *ctx, const gchar *vs, const gchar *fs_prelude,
                                 const gchar *fs, gchar **error)
{
  gboolean es = (gst_gl_context_get_gl_api(ctx) & GST_GL_API_GLES2) != 0;
  GstGLSLVersion version = es ? GST_GLSL_VERSION_300 : GST_GLSL_VERSION_330;
  GstGLSLProfile profile = es ? GST_GLSL_PROFILE_ES : GST_GLSL_PROFILE_CORE;
  const gchar *head = es ? "#version 300 es\nprecision highp float;\nprecision highp int;\n"
                           "precision highp sampler2D;\n"
                         : "#version 330 core\n";
  const gchar *vsrc[] = { head, vs };
  const gchar *fsrc[] = { head, fs_prelude ? fs_prelude : "", fs };
  GError *err = NULL;
  GstGLSLStage *v = gst_glsl_stage_new_with_strings(ctx, GL_VERTEX_SHADER, version, profile, 2, vsrc);
  GstGLSLStage *f = gst_glsl_stage_new_with_strings(ctx, GL_FRAGMENT_SHADER, version, profile, 3, fsrc);
  GstGLShader *sh = gst_gl_shader_new_link_with_stages(ctx, &err, v, f, NULL);
  if (!sh) {
    *error = g_strdup_printf("compiling a shader: %s", err ? err->message : "unknown error");
    g_clear_error(&err);
  }
  return sh;
}

static GLuint make_texture(const GstGLFuncs *gl)
{
  GLuint tex = 0;
  gl->GenTextures(1, &tex);
  gl->BindTexture(GL_TEXTURE_2D, tex);
  gl->TexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  gl->TexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  gl->BindTexture(GL_TEXTURE_2D, 0);
  return tex;
}

/* TFL_OVERLAY_GL_PATH: how masks are composited; FALSE with *error on a bad value. */
static gboolean path_choice(OvGlPath *choice, gchar **error)
{
  const gchar *env = g_getenv("TFL_OVERLAY_GL_PATH");
  if (!env || !*env || !g_strcmp0(env, "auto")) *choice = OV_GL_PATH_NONE; /* the best the context has */
  else if (!g_strcmp0(env, "fragment")) *choice = OV_GL_PATH_FRAGMENT;
  else if (!g_strcmp0(env, "compute")) *choice = OV_GL_PATH_COMPUTE;
  else {
    *error = g_strdup_printf("TFL_OVERLAY_GL_PATH is '%s': expected auto, fragment or compute", env);
    return FALSE;
  }
  return TRUE;
}

/* The compute mask pass unless the choice or the context rule it out; FALSE with *error
 * only when compute was asked for and cannot be made. */
static gboolean make_comp(OvGl *g, OvGlPath choice, gchar **error)
{
  if (choice == OV_GL_PATH_FRAGMENT) {
    GST_INFO("masks: the fragment pass (TFL_OVERLAY_GL_PATH=fragment)");
    return TRUE;
  }
  gchar *why = NULL;
  g->comp = ov_gl_comp_new(g->context, &why);
  if (g->comp) {
    GST_INFO("masks: the compute pass (%s)%s", gst_gl_context_get_gl_api(g->context) & GST_GL_API_GLES2
             ? "GLES 3.1; frame textures of mutable storage still take the fragment pass" : "desktop GL 4.3",
             choice == OV_GL_PATH_COMPUTE ? ", TFL_OVERLAY_GL_PATH=compute" : "");
  } else if (choice == OV_GL_PATH_COMPUTE) {
    *error = g_strdup_printf("TFL_OVERLAY_GL_PATH=compute, but %s", why);
  } else if (ov_gl_comp_context_ok(g->context)) { /* the context has compute, yet it failed */
    GST_WARNING("masks: the fragment pass (%s)", why);
  } else {
    GST_INFO("masks: the fragment pass (%s)", why);
  }
  g_free(why);
  return g->comp || choice != OV_GL_PATH_COMPUTE;
}

OvGl *ov_gl_new(GstGLContext *context, gchar **error)
{
  OvGlPath choice;
  if (!path_choice(&choice, error)) return NULL;
  if (!ov_gl_context_ok(context)) {
    *error = g_strdup("the GL context is older than desktop GL 3.3 / GLES 3.0");
    return NULL;
  }
  const GstGLFuncs *gl = context->gl_vtable;
  OvGl *g = g_new0(OvGl, 1);
  g->context = gst_object_ref(context);
  g->DrawArraysInstanced = gst_gl_context_get_proc_address(context, "glDrawArraysInstanced");
  g->VertexAttribDivisor = gst_gl_context_get_proc_address(context, "glVertexAttribDivisor");
  g->GenSamplers = gst_gl_context_get_proc_address(context, "glGenSamplers");
  g->DeleteSamplers = gst_gl_context_get_proc_address(context, "glDeleteSamplers");
  g->BindSampler = gst_gl_context_get_proc_address(context, "glBindSampler");
  g->SamplerParameteri = gst_gl_context_get_proc_address(context, "glSamplerParameteri");
  if (!g->DrawArraysInstanced || !g->VertexAttribDivisor || !g->GenSamplers || !g->DeleteSamplers ||
      !g->BindSampler || !g->SamplerParameteri || !gl->GenVertexArrays) {
    *error = g_strdup("the GL context lacks instancing, sampler or vertex array entry points");
    goto fail;
  }
  if (!(g->shape = make_program(context, shape_vert, NULL, shape_frag, error)) ||
      !(g->glyph = make_program(context, glyph_vert, NULL, glyph_frag, error)) ||
      !(g->mask = make_program(context, mask_vert, mask_sample, mask_frag, error)))
    goto fail;

  gl->GenVertexArrays(1, &g->vao);
  gl->GenVertexArrays(1, &g->vao_empty);
  gl->GenBuffers(2, g->vbo);
  gl->GenFramebuffers(1, &g->fbo);
  /* our own sampler: nearest, whatever state the meta's mask texture carries */
  g->GenSamplers(1, &g->sampler);
  g->SamplerParameteri(g->sampler, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  g->SamplerParameteri(g->sampler, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  g->SamplerParameteri(g->sampler, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
  g->SamplerParameteri(g->sampler, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
  g->atlas_tex = make_texture(gl);
  g->palette_tex = make_texture(gl);
  g->mask_tex = make_texture(gl);
  g->quads = g_array_new(FALSE, FALSE, sizeof(OvGlyphQuad));
  g->placed = g_array_new(FALSE, FALSE, sizeof(OvPlacedGlyph));

  gl->BindVertexArray(g->vao);
  for (GLuint a = OV_ATTR_A; a <= OV_ATTR_COLOR; a++) {
    gl->EnableVertexAttribArray(a);
    g->VertexAttribDivisor(a, 1);
  }
  gl->BindVertexArray(0);
  GLenum e = gl->GetError();
  if (e != GL_NO_ERROR) {
    *error = g_strdup_printf("creating GL objects: GL error 0x%x", e);
    goto fail;
  }
  if (!make_comp(g, choice, error)) goto fail;
  return g;
fail:
  ov_gl_free(g);
  return NULL;
}

void ov_gl_free(OvGl *g)
{
  if (!g) return;
  const GstGLFuncs *gl = g->context->gl_vtable;
  gst_clear_object(&g->shape);
  gst_clear_object(&g->glyph);
  gst_clear_object(&g->mask);
  ov_gl_comp_free(g->comp);
  if (g->vao) gl->DeleteVertexArrays(1, &g->vao);
  if (g->vao_empty) gl->DeleteVertexArrays(1, &g->vao_empty);
  if (g->vbo[0]) gl->DeleteBuffers(2, g->vbo);
  if (g->fbo) gl->DeleteFramebuffers(1, &g->fbo);
  if (g->sampler) g->DeleteSamplers(1, &g->sampler);
  GLuint tex[] = { g->atlas_tex, g->palette_tex, g->mask_tex };
  for (guint i = 0; i < G_N_ELEMENTS(tex); i++)
    if (tex[i]) gl->DeleteTextures(1, &tex[i]);
  if (g->quads) g_array_unref(g->quads);
  if (g->placed) g_array_unref(g->placed);
  gst_object_unref(g->context);
  g_free(g);
}

/* Points the three instance attributes at buffer vbo holding n 36-byte records. */
static void bind_instances(OvGl *g, GLuint vbo, const void *data, guint n)
{
  const GstGLFuncs *gl = g->context->gl_vtable;
  const GLsizei stride = sizeof(OvShape);
  gl->BindBuffer(GL_ARRAY_BUFFER, vbo);
  gl->BufferData(GL_ARRAY_BUFFER, (GLsizeiptr)n * stride, data, GL_STREAM_DRAW);
  gl->VertexAttribPointer(OV_ATTR_A, 4, GL_FLOAT, GL_FALSE, stride, (void *)0);
  gl->VertexAttribPointer(OV_ATTR_B, 4, GL_FLOAT, GL_FALSE, stride, (void *)(4 * sizeof(gfloat)));
  gl->VertexAttribPointer(OV_ATTR_COLOR, 4, GL_UNSIGNED_BYTE, GL_TRUE, stride,
                          (void *)(8 * sizeof(gfloat)));
}

static void upload_palette(OvGl *g, const OvMask *m)
{
  const GstGLFuncs *gl = g->context->gl_vtable;
  if (g->palette_valid && memcmp(g->palette, m->colors, sizeof g->palette) == 0) return;
  memcpy(g->palette, m->colors, sizeof g->palette);
  gl->BindTexture(GL_TEXTURE_2D, g->palette_tex);
  gl->TexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, 256, 1, 0, GL_RGBA, GL_UNSIGNED_BYTE, g->palette);
  g->palette_valid = TRUE;
}

/* The texture to sample the mask from: the meta's own when it lives in a context sharing
 * with ours, else ours filled from the meta's CPU pixels; 0 when neither exists. */
static GLuint mask_texture(OvGl *g, const OvMask *m)
{
  const GstGLFuncs *gl = g->context->gl_vtable;
  if (m->texture && m->gl_context &&
      (m->gl_context == (gpointer)g->context ||
       gst_gl_context_can_share(GST_GL_CONTEXT(m->gl_context), g->context))) {
    /* the producer fenced the GPU work that wrote this mask: wait for it, and only it */
    GstGLSyncMeta *sync = m->gl_buffer ? gst_buffer_get_gl_sync_meta(m->gl_buffer) : NULL;
    if (sync) gst_gl_sync_meta_wait(sync, g->context);
    return m->texture;
  }
  const void *pixels = m->kind == TFL_MASK_CLASSES ? (const void *)m->classes : (const void *)m->prob;
  if (!pixels) return 0;
  GLenum internal = m->kind == TFL_MASK_CLASSES ? GL_R8 : GL_R32F;
  GLenum type = m->kind == TFL_MASK_CLASSES ? GL_UNSIGNED_BYTE : GL_FLOAT;
  gl->BindTexture(GL_TEXTURE_2D, g->mask_tex);
  gl->PixelStorei(GL_UNPACK_ALIGNMENT, 1);
  if (g->mask_w != m->width || g->mask_h != m->height || g->mask_kind != m->kind) {
    gl->TexImage2D(GL_TEXTURE_2D, 0, internal, m->width, m->height, 0, GL_RED, type, pixels);
    g->mask_w = m->width;
    g->mask_h = m->height;
    g->mask_kind = m->kind;
  } else {
    gl->TexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, m->width, m->height, GL_RED, type, pixels);
  }
  gl->PixelStorei(GL_UNPACK_ALIGNMENT, 4);
  return g->mask_tex;
}

/* One mask, by the compute pass when comp (texture: the frame's), else by the fragment
 * pass into the bound framebuffer. */
static void draw_mask(OvGl *g, const OvMask *m, gboolean comp, guint texture, gint width, gint height)
{
  const GstGLFuncs *gl = g->context->gl_vtable;
  gl->ActiveTexture(GL_TEXTURE0 + OV_UNIT_MASK);
  GLuint tex = mask_texture(g, m);
  if (!tex) return;
  gl->BindTexture(GL_TEXTURE_2D, tex);
  g->BindSampler(OV_UNIT_MASK, g->sampler);
  gl->ActiveTexture(GL_TEXTURE0 + OV_UNIT_PALETTE);
  upload_palette(g, m);
  gl->BindTexture(GL_TEXTURE_2D, g->palette_tex);
  g->BindSampler(OV_UNIT_PALETTE, g->sampler);

  if (comp) {
    ov_gl_comp_mask(g->comp, texture, width, height, m);
  } else {
    gst_gl_shader_use(g->mask);
    gst_gl_shader_set_uniform_1i(g->mask, "u_mask", OV_UNIT_MASK);
    gst_gl_shader_set_uniform_1i(g->mask, "u_palette", OV_UNIT_PALETTE);
    gst_gl_shader_set_uniform_4f(g->mask, "u_rect", m->x, m->y, m->w, m->h);
    if (m->clipped)
      gst_gl_shader_set_uniform_4f(g->mask, "u_clip", m->clip_x0, m->clip_y0, m->clip_x1, m->clip_y1);
    else /* the mask's rectangle already bounds it */
      gst_gl_shader_set_uniform_4f(g->mask, "u_clip", -G_MAXFLOAT, -G_MAXFLOAT, G_MAXFLOAT, G_MAXFLOAT);
    gst_gl_shader_set_uniform_2i(g->mask, "u_mask_size", m->width, m->height);
    gst_gl_shader_set_uniform_1i(g->mask, "u_prob", m->kind == TFL_MASK_PROB);
    gst_gl_shader_set_uniform_1f(g->mask, "u_class_scale", 255.0f);
    gst_gl_shader_set_uniform_1f(g->mask, "u_alpha", m->alpha);
    gl->DrawArrays(GL_TRIANGLES, 0, 3);
  }
  gl->ActiveTexture(GL_TEXTURE0 + OV_UNIT_PALETTE);
  g->BindSampler(OV_UNIT_PALETTE, 0);
  gl->BindTexture(GL_TEXTURE_2D, 0);
  gl->ActiveTexture(GL_TEXTURE0 + OV_UNIT_MASK);
  g->BindSampler(OV_UNIT_MASK, 0);
  gl->BindTexture(GL_TEXTURE_2D, 0);
}

/* The scene's masks (the segmentation mask, then the boxes' own) with the compute pass. */
static void draw_masks_comp(OvGl *g, const OvScene *scene, guint texture, gint width, gint height)
{
  if (scene->mask.on) draw_mask(g, &scene->mask, TRUE, texture, width, height);
  for (guint i = 0; i < scene->instances->len; i++)
    draw_mask(g, &g_array_index(scene->instances, OvMask, i), TRUE, texture, width, height);
  ov_gl_comp_finish(g->comp);
  gst_gl_context_clear_shader(g->context);
}

/* Whether this frame's masks take the compute pass. */
static gboolean use_comp(OvGl *g, guint texture, guint format)
{
  if (!g->comp) return FALSE;
  /* GstGLMemory says GL_RGBA and allocates RGBA8 on GL 3 / GLES 3 contexts (sized formats) */
  if (format != GL_RGBA8 && format != GL_RGBA) {
    if (!g->told_no_image)
      GST_INFO("masks: the frame texture %u has internal format 0x%x, the compute pass writes only "
               "RGBA8: the fragment pass", texture, format);
  } else if (ov_gl_comp_can_write(g->comp, texture)) {
    return TRUE;
  } else if (!g->told_no_image) {
    GST_INFO("masks: the frame texture %u has mutable storage, which GLES cannot bind as an image: "
             "the fragment pass", texture);
  }
  g->told_no_image = TRUE;
  return FALSE;
}

static void draw_shapes(OvGl *g, const OvScene *scene)
{
  const GstGLFuncs *gl = g->context->gl_vtable;
  bind_instances(g, g->vbo[0], scene->shapes->data, scene->shapes->len);
  gst_gl_shader_use(g->shape);
  gst_gl_shader_set_uniform_2f(g->shape, "u_size", (gfloat)scene->width, (gfloat)scene->height);
  g->DrawArraysInstanced(GL_TRIANGLE_STRIP, 0, 4, (GLsizei)scene->shapes->len);
  (void)gl;
}

/* One quad per placed glyph. */
static void build_glyph_quads(OvGl *g, const OvScene *scene, OvFont *font)
{
  ov_glyphs_place(scene, font, g->placed);
  g_array_set_size(g->quads, 0);
  for (guint i = 0; i < g->placed->len; i++) {
    const OvPlacedGlyph *p = &g_array_index(g->placed, OvPlacedGlyph, i);
    gfloat x = (gfloat)p->x, y = (gfloat)p->y;
    OvGlyphQuad q = { { x, y, x + p->w, y + p->h },
                      { (gfloat)p->ax, (gfloat)p->ay, (gfloat)(p->ax + p->w), (gfloat)(p->ay + p->h) },
                      { p->rgba[0], p->rgba[1], p->rgba[2], p->rgba[3] } };
    g_array_append_val(g->quads, q);
  }
}

static void draw_texts(OvGl *g, const OvScene *scene, OvFont *font)
{
  const GstGLFuncs *gl = g->context->gl_vtable;
  build_glyph_quads(g, scene, font);
  if (!g->quads->len) return;
  gl->ActiveTexture(GL_TEXTURE0 + OV_UNIT_ATLAS);
  gl->BindTexture(GL_TEXTURE_2D, g->atlas_tex);
  if (!g->atlas_valid || g->atlas_serial != font->serial || g->atlas_generation != font->generation) {
    gl->PixelStorei(GL_UNPACK_ALIGNMENT, 1);
    gl->TexImage2D(GL_TEXTURE_2D, 0, GL_R8, OV_ATLAS_SIZE, OV_ATLAS_SIZE, 0, GL_RED,
                   GL_UNSIGNED_BYTE, font->atlas);
    gl->PixelStorei(GL_UNPACK_ALIGNMENT, 4);
    g->atlas_valid = TRUE;
    g->atlas_serial = font->serial;
    g->atlas_generation = font->generation;
  }
  g->BindSampler(OV_UNIT_ATLAS, g->sampler);
  bind_instances(g, g->vbo[1], g->quads->data, g->quads->len);
  gst_gl_shader_use(g->glyph);
  gst_gl_shader_set_uniform_1i(g->glyph, "u_atlas", OV_UNIT_ATLAS);
  gst_gl_shader_set_uniform_2f(g->glyph, "u_size", (gfloat)scene->width, (gfloat)scene->height);
  g->DrawArraysInstanced(GL_TRIANGLE_STRIP, 0, 4, (GLsizei)g->quads->len);
  g->BindSampler(OV_UNIT_ATLAS, 0);
  gl->BindTexture(GL_TEXTURE_2D, 0);
}

/* The fragment passes into the frame texture through our framebuffer: the masks when
 * masks, then shapes and glyphs. */
static gboolean draw_fragment(OvGl *g, guint texture, gint width, gint height, const OvScene *scene,
                              OvFont *font, gboolean masks, gchar **error)
{
  const GstGLFuncs *gl = g->context->gl_vtable;
  gl->BindFramebuffer(GL_FRAMEBUFFER, g->fbo);
  gl->FramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, texture, 0);
  GLenum status = gl->CheckFramebufferStatus(GL_FRAMEBUFFER);
  if (status != GL_FRAMEBUFFER_COMPLETE) {
    *error = g_strdup_printf("the frame texture %u cannot be drawn on (framebuffer status 0x%x)",
                             texture, status);
    gl->BindFramebuffer(GL_FRAMEBUFFER, 0);
    return FALSE;
  }
  gl->Viewport(0, 0, width, height);
  gl->Disable(GL_DEPTH_TEST);
  gl->Disable(GL_SCISSOR_TEST);
  gl->Enable(GL_BLEND);
  /* colour over the frame; the frame's alpha stays as it is */
  gl->BlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ZERO, GL_ONE);
  if (masks) {
    gl->BindVertexArray(g->vao_empty);
    if (scene->mask.on) draw_mask(g, &scene->mask, FALSE, texture, width, height);
    for (guint i = 0; i < scene->instances->len; i++)
      draw_mask(g, &g_array_index(scene->instances, OvMask, i), FALSE, texture, width, height);
  }
  gl->BindVertexArray(g->vao);
  if (scene->shapes->len) draw_shapes(g, scene);
  if (scene->texts->len) draw_texts(g, scene, font);

  gl->BindVertexArray(0);
  gl->BindBuffer(GL_ARRAY_BUFFER, 0);
  gst_gl_context_clear_shader(g->context);
  gl->Disable(GL_BLEND);
  gl->FramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, 0, 0);
  gl->BindFramebuffer(GL_FRAMEBUFFER, 0);
  return TRUE;
}

OvGlPath ov_gl_last_path(OvGl *g)
{
  return g->last_path;
}

gboolean ov_gl_draw(OvGl *g, guint texture, guint format, gint width, gint height, const OvScene *scene,
                    OvFont *font, gchar **error)
{
  const GstGLFuncs *gl = g->context->gl_vtable;
  while (gl->GetError() != GL_NO_ERROR) {} /* errors of others are not ours */
  gboolean masks = scene->mask.on || scene->instances->len;
  gboolean comp = masks && use_comp(g, texture, format);
  g->last_path = !masks ? OV_GL_PATH_NONE : comp ? OV_GL_PATH_COMPUTE : OV_GL_PATH_FRAGMENT;
  if (comp) draw_masks_comp(g, scene, texture, width, height);
  /* the framebuffer only for what is left to draw */
  if ((masks && !comp) || scene->shapes->len || scene->texts->len) {
    if (!draw_fragment(g, texture, width, height, scene, font, masks && !comp, error)) return FALSE;
  }
  GLenum e = gl->GetError();
  if (e != GL_NO_ERROR) {
    *error = g_strdup_printf("drawing the overlay: GL error 0x%x", e);
    return FALSE;
  }
  return TRUE;
}
