/* ov_gl_comp.h - the GL path's mask composite as a compute pass (ov_gl.c chooses it).
 *
 * The fragment pass (mask.frag.glsl with blending) runs on the graphics units only, few on
 * compute GPUs (2 TPCs of an H100), and covers the whole frame; this pass runs on every SM
 * and covers only the mask's rectangle: mask.comp.glsl reads and writes the frame texture
 * as an rgba8 image, same sampling, same blend.
 *
 * It needs desktop GL 4.3, or GLES 3.1 with a frame texture of immutable storage (GLES binds
 * only those as images; GstGLMemory's are mutable, so there it rarely applies). The caller
 * binds the mask texture on unit 0 and the palette on unit 1, as for the fragment pass.
 * Every function runs on the GL thread of the context given to ov_gl_comp_new(). */
#ifndef OV_GL_COMP_H
#define OV_GL_COMP_H

#include <gst/gl/gl.h>

#include "ov_scene.h"

G_BEGIN_DECLS

typedef struct _OvGlComp OvGlComp;

/* Whether the context's API and version allow the pass (GLES: see ov_gl_comp_can_write). */
gboolean ov_gl_comp_context_ok(GstGLContext *context);

/* Compiles the program; NULL with *error set on failure. */
OvGlComp *ov_gl_comp_new(GstGLContext *context, gchar **error);
void ov_gl_comp_free(OvGlComp *c);

/* Whether texture can be bound as the frame image (GLES: only immutable storage). */
gboolean ov_gl_comp_can_write(OvGlComp *c, guint texture);

/* Composites m into texture (width x height); the mask and palette bound as said above.
 * Consecutive calls are ordered by a barrier (instance masks may overlap). */
void ov_gl_comp_mask(OvGlComp *c, guint texture, gint width, gint height, const OvMask *m);

/* After the last ov_gl_comp_mask of a frame: makes its writes visible to later draws,
 * samplers and copies of the frame, and unbinds the image. */
void ov_gl_comp_finish(OvGlComp *c);

G_END_DECLS

#endif
