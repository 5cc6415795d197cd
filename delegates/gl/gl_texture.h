/* gl_texture.h - sources of the shaders between the arena and textures: the texture
 * input (gl_gen_texture.c) and the mask export (gl_gen_mask.c). */
#ifndef GL_TEXTURE_H
#define GL_TEXTURE_H

#include "gl_gen.h"

/* Can tensor t ([B,H,W,3|4], float32/uint8/int8) be fed from a texture? */
tfl_status gl_texture_check(const tfl_tensor *t, tfl_diag *diag);
/* malloc'd source writing t at arena vec4 offset out_off (wide: 32-bit floats in an
 * fp16 arena, see gl_plan.h), the frame on unit 0 a 2D or (external) an external-OES
 * texture; NULL on OOM. */
char *gl_texture_source(const tfl_tensor *t, size_t out_off, bool fp16, bool wide, bool external);

/* malloc'd source of the mask export of an output of shape sh (one batch slot) at arena
 * vec4 offset off (wide: 32-bit floats in an fp16 arena); NULL on OOM. */
char *gl_mask_source(gl_shape sh, size_t off, bool fp16, bool wide);

#endif
