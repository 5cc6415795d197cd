/* ov_gl.h - tfliteoverlay's GL path: draws a scene straight into the frame's texture.
 *
 * The frame texture is drawn on in place (no copy, no readback): each mask by a compute
 * pass over its rectangle (ov_gl_comp.h) where the context allows, else by one full-frame
 * fragment pass, both sampling the mask texture and a class palette texture; then, through
 * a framebuffer, boxes, skeletons and keypoints as instanced quads with analytic
 * antialiasing, text as one quad per glyph from ov_font's atlas.
 *
 * The mask texture of the meta (GstTfliteMeta.mask_texture) is read with texelFetch from
 * level 0 through our own sampler: a (mask width x mask height) 2D texture whose red
 * channel is the probability (TFL_MASK_PROB) or the class id / 255 (TFL_MASK_CLASSES,
 * R8 unorm). Without one, the meta's CPU mask is uploaded (model resolution, small).
 *
 * Every function runs on the GL thread of the context given to ov_gl_new().
 */
#ifndef OV_GL_H
#define OV_GL_H

#include <gst/gl/gl.h>

#include "ov_font.h"
#include "ov_scene.h"

G_BEGIN_DECLS

typedef struct _OvGl OvGl;

/* How a frame's masks were composited. */
typedef enum {
  OV_GL_PATH_NONE,      /* no mask in the frame */
  OV_GL_PATH_FRAGMENT,  /* mask.frag.glsl, blending, full frame */
  OV_GL_PATH_COMPUTE,   /* mask.comp.glsl, image load/store, the mask's rectangle */
} OvGlPath;

/* Whether the context can run the GL path (desktop GL 3.3 or GLES 3.0). */
gboolean ov_gl_context_ok(GstGLContext *context);

/* Compiles the programs and makes the GL objects; NULL with *error set on failure.
 * Masks take the compute pass where the context has one, unless the environment variable
 * TFL_OVERLAY_GL_PATH says "fragment" ("compute": fail without one; "auto" or unset: the
 * default), for tests and benchmarks; the choice is logged at INFO. */
OvGl *ov_gl_new(GstGLContext *context, gchar **error);
void ov_gl_free(OvGl *gl);

/* Draws scene on the 2D RGBA texture (width x height) of GL internal format `format`
 * (GstGLMemory's tex_format: the compute pass writes only RGBA8, GL_RGBA8 or GL_RGBA as
 * GstGLMemory names it on GL 3 / GLES 3 contexts); FALSE with *error on
 * GL failure. */
gboolean ov_gl_draw(OvGl *gl, guint texture, guint format, gint width, gint height, const OvScene *scene,
                    OvFont *font, gchar **error);

/* The path of the last ov_gl_draw's masks. */
OvGlPath ov_gl_last_path(OvGl *gl);

G_END_DECLS

#endif
