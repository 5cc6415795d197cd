/* ov_gl_comp.c - see ov_gl_comp.h */
#include "ov_gl_comp.h"

#include <gst/gl/gstglfuncs.h>
#include <math.h>

#include "ov_shaders.h"

#ifndef GL_COMPUTE_SHADER
#define GL_COMPUTE_SHADER 0x91B9
#endif
#ifndef GL_READ_WRITE
#define GL_READ_WRITE 0x88BA
#endif
#ifndef GL_WRITE_ONLY
#define GL_WRITE_ONLY 0x88B9
#endif
#ifndef GL_READ_ONLY
#define GL_READ_ONLY 0x88B8
#endif
#ifndef GL_TEXTURE_IMMUTABLE_FORMAT
#define GL_TEXTURE_IMMUTABLE_FORMAT 0x912F
#endif
#define OV_BARRIER_TEXTURE_FETCH 0x00000008
#define OV_BARRIER_SHADER_IMAGE 0x00000020
#define OV_BARRIER_PIXEL_BUFFER 0x00000080
#define OV_BARRIER_TEXTURE_UPDATE 0x00000100
#define OV_BARRIER_FRAMEBUFFER 0x00000400

/* The workgroup of mask.comp.glsl */
#define OV_GROUP 16
#define OV_UNIT_FRAME_READ 2

/* GL 4.3 / GLES 3.1 entry points GstGLFuncs lacks */
typedef void (GSTGLAPI *OvDispatchCompute)(GLuint x, GLuint y, GLuint z);
typedef void (GSTGLAPI *OvMemoryBarrier)(GLbitfield barriers);
typedef void (GSTGLAPI *OvBindImageTexture)(GLuint unit, GLuint texture, GLint level, GLboolean layered,
                                            GLint layer, GLenum access, GLenum format);
typedef void (GSTGLAPI *OvBindSampler)(GLuint unit, GLuint sampler);

struct _OvGlComp {
  GstGLContext *context;
  gboolean es;
  OvDispatchCompute DispatchCompute;
  OvMemoryBarrier MemoryBarrier;
  OvBindImageTexture BindImageTexture;
  OvBindSampler BindSampler;
  GstGLShader *mask;
  guint dispatched; /* ov_gl_comp_mask calls since the last finish */
};

gboolean ov_gl_comp_context_ok(GstGLContext *context)
{
  if (gst_gl_context_check_gl_version(context, GST_GL_API_GLES2, 3, 1)) return TRUE;
  return gst_gl_context_check_gl_version(context, GST_GL_API_OPENGL3 | GST_GL_API_OPENGL, 4, 3);
}

OvGlComp *ov_gl_comp_new(GstGLContext *context, gchar **error)
{
  if (!ov_gl_comp_context_ok(context)) {
    *error = g_strdup("the GL context is older than desktop GL 4.3 / GLES 3.1 (no compute shaders)");
    return NULL;
  }
  OvGlComp *c = g_new0(OvGlComp, 1);
  c->context = gst_object_ref(context);
  c->es = (gst_gl_context_get_gl_api(context) & GST_GL_API_GLES2) != 0;
  c->DispatchCompute = gst_gl_context_get_proc_address(context, "glDispatchCompute");
  c->MemoryBarrier = gst_gl_context_get_proc_address(context, "glMemoryBarrier");
  c->BindImageTexture = gst_gl_context_get_proc_address(context, "glBindImageTexture");
  c->BindSampler = gst_gl_context_get_proc_address(context, "glBindSampler");
  if (!c->DispatchCompute || !c->MemoryBarrier || !c->BindImageTexture || !c->BindSampler) {
    *error = g_strdup("the GL context lacks glDispatchCompute, glMemoryBarrier or glBindImageTexture");
    goto fail;
  }
  const gchar *head = c->es ? "#version 310 es\n#define OV_ES 1\nprecision highp float;\nprecision highp int;\n"
                              "precision highp sampler2D;\nprecision highp image2D;\n"
                            : "#version 430 core\n";
  const gchar *src[] = { head, mask_sample, mask_comp };
  GError *err = NULL;
  GstGLSLStage *stage = gst_glsl_stage_new_with_strings(
      context, GL_COMPUTE_SHADER, c->es ? GST_GLSL_VERSION_310 : GST_GLSL_VERSION_430,
      c->es ? GST_GLSL_PROFILE_ES : GST_GLSL_PROFILE_CORE, G_N_ELEMENTS(src), src);
  c->mask = stage ? gst_gl_shader_new_link_with_stages(context, &err, stage, NULL) : NULL;
  if (!c->mask) {
    *error = g_strdup_printf("compiling the compute shader mask.comp.glsl: %s",
                             err ? err->message : "the stage was refused");
    g_clear_error(&err);
    goto fail;
  }
  return c;
fail:
  ov_gl_comp_free(c);
  return NULL;
}

void ov_gl_comp_free(OvGlComp *c)
{
  if (!c) return;
  gst_clear_object(&c->mask);
  gst_object_unref(c->context);
  g_free(c);
}

gboolean ov_gl_comp_can_write(OvGlComp *c, guint texture)
{
  if (!c->es) return TRUE;
  const GstGLFuncs *gl = c->context->gl_vtable;
  GLint immutable = 0;
  gl->BindTexture(GL_TEXTURE_2D, texture);
  gl->GetTexParameteriv(GL_TEXTURE_2D, GL_TEXTURE_IMMUTABLE_FORMAT, &immutable);
  gl->BindTexture(GL_TEXTURE_2D, 0);
  return immutable != 0;
}

/* Pixels [*a, *b) of an axis of n pixels whose centres may lie in [lo, hi), one pixel of
 * margin each side for rounding (the shader tests each pixel exactly); empty for NaN. */
static void span(gdouble lo, gdouble hi, gint n, gint *a, gint *b)
{
  *a = *b = 0;
  if (!(lo < hi)) return;
  gdouble first = CLAMP(ceil(lo - 0.5) - 1.0, 0.0, (gdouble)n);
  gdouble end = CLAMP(ceil(hi - 0.5) + 1.0, 0.0, (gdouble)n);
  *a = (gint)first;
  *b = MAX((gint)end, *a);
}

void ov_gl_comp_mask(OvGlComp *c, guint texture, gint width, gint height, const OvMask *m)
{
  gdouble x0 = m->x, y0 = m->y, x1 = (gdouble)m->x + m->w, y1 = (gdouble)m->y + m->h;
  if (m->clipped) {
    x0 = MAX(x0, m->clip_x0), y0 = MAX(y0, m->clip_y0);
    x1 = MIN(x1, m->clip_x1), y1 = MIN(y1, m->clip_y1);
  }
  gint xa, xb, ya, yb;
  span(x0, x1, width, &xa, &xb);
  span(y0, y1, height, &ya, &yb);
  if (xb <= xa || yb <= ya) return;

  const GstGLFuncs *gl = c->context->gl_vtable;
  /* an earlier mask of this frame wrote pixels this one may read */
  if (c->dispatched) c->MemoryBarrier(OV_BARRIER_SHADER_IMAGE | OV_BARRIER_TEXTURE_FETCH);
  else {
    c->BindImageTexture(0, texture, 0, GL_FALSE, 0, c->es ? GL_WRITE_ONLY : GL_READ_WRITE, GL_RGBA8);
    if (c->es) { /* the frame read through a sampler: GLES has no read-write rgba8 image */
      gl->ActiveTexture(GL_TEXTURE0 + OV_UNIT_FRAME_READ);
      gl->BindTexture(GL_TEXTURE_2D, texture);
      c->BindSampler(OV_UNIT_FRAME_READ, 0);
      gl->ActiveTexture(GL_TEXTURE0);
    }
  }
  gst_gl_shader_use(c->mask);
  if (c->es) gst_gl_shader_set_uniform_1i(c->mask, "u_frame_read", OV_UNIT_FRAME_READ);
  gst_gl_shader_set_uniform_1i(c->mask, "u_mask", 0);
  gst_gl_shader_set_uniform_1i(c->mask, "u_palette", 1);
  gst_gl_shader_set_uniform_2i(c->mask, "u_origin", xa, ya);
  gst_gl_shader_set_uniform_2i(c->mask, "u_extent", xb - xa, yb - ya);
  gst_gl_shader_set_uniform_4f(c->mask, "u_rect", m->x, m->y, m->w, m->h);
  if (m->clipped)
    gst_gl_shader_set_uniform_4f(c->mask, "u_clip", m->clip_x0, m->clip_y0, m->clip_x1, m->clip_y1);
  else
    gst_gl_shader_set_uniform_4f(c->mask, "u_clip", -G_MAXFLOAT, -G_MAXFLOAT, G_MAXFLOAT, G_MAXFLOAT);
  gst_gl_shader_set_uniform_2i(c->mask, "u_mask_size", m->width, m->height);
  gst_gl_shader_set_uniform_1i(c->mask, "u_prob", m->kind == TFL_MASK_PROB);
  gst_gl_shader_set_uniform_1f(c->mask, "u_class_scale", 255.0f);
  gst_gl_shader_set_uniform_1f(c->mask, "u_alpha", m->alpha);
  c->DispatchCompute((GLuint)((xb - xa + OV_GROUP - 1) / OV_GROUP), (GLuint)((yb - ya + OV_GROUP - 1) / OV_GROUP), 1);
  c->dispatched++;
}

void ov_gl_comp_finish(OvGlComp *c)
{
  if (!c->dispatched) return;
  const GstGLFuncs *gl = c->context->gl_vtable;
  /* whoever reads the frame next: our shape pass, a sampler downstream, a download */
  c->MemoryBarrier(OV_BARRIER_FRAMEBUFFER | OV_BARRIER_TEXTURE_FETCH | OV_BARRIER_TEXTURE_UPDATE |
                   OV_BARRIER_PIXEL_BUFFER | OV_BARRIER_SHADER_IMAGE);
  c->BindImageTexture(0, 0, 0, GL_FALSE, 0, GL_READ_ONLY, GL_RGBA8);
  if (c->es) {
    gl->ActiveTexture(GL_TEXTURE0 + OV_UNIT_FRAME_READ);
    gl->BindTexture(GL_TEXTURE_2D, 0);
    gl->ActiveTexture(GL_TEXTURE0);
  }
  c->dispatched = 0;
}
