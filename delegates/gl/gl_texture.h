/* gl_texture.h - source of the texture-input shader (see gl_gen_texture.c). */
#ifndef GL_TEXTURE_H
#define GL_TEXTURE_H

#include "gl_gen.h"

/* Can tensor t ([1,H,W,3|4], float32/uint8/int8) be fed from a texture? */
tfl_status gl_texture_check(const tfl_tensor *t, tfl_diag *diag);
/* malloc'd source writing t at arena vec4 offset out_off; NULL on OOM. */
char *gl_texture_source(const tfl_tensor *t, size_t out_off, bool fp16);

#endif
