/* gl_boundary.h - float32 boundary tensors converted on the GPU, not the CPU: the
 * tensor's dense BHWC values (floats in fp32 mode, halves packed two per uint in fp16
 * mode) travel through a plain buffer at binding 2, and one dispatch packs them into
 * the arena's PHWC4 (inputs) or unpacks them from it (outputs). The CPU then only
 * copies (fp32) or runs the hardware half conversion (fp16) over contiguous memory. */
#ifndef GL_BOUNDARY_H
#define GL_BOUNDARY_H

#include <stdbool.h>
#include <stddef.h>

#include "gl_layout.h"

/* Whether tensor t goes through this path (float32, not quantized). */
bool gl_boundary_ok(const tfl_tensor *t);
/* Dense elements rounded up to whole uints (fp16: two halves each). */
size_t gl_boundary_elems(gl_shape sh);

typedef struct {
  char *src;        /* malloc'd compute shader, NULL on OOM */
  int groups[3];    /* workgroups to dispatch */
} gl_boundary_prog;

/* to_arena: dense (at element dense_off of binding 2) -> arena PHWC4 at vec4 arena_off;
 * else the reverse. fp16: the arena holds halves, or with `wide` this tensor as 32-bit
 * floats (two slots per vec4, see gl_plan.h). dense16: the dense values are halves
 * (dense_off then even), else floats. */
gl_boundary_prog gl_boundary_source(bool to_arena, gl_shape sh, size_t arena_off, size_t dense_off, bool fp16, bool wide,
                                    bool dense16);

/* How the host path reads an output's values back (the delegate's download): the
 * arena's values as they are (fp32, or 32-bit floats in fp16), through packHalf2x16 on
 * the GPU (dense16 above) or the arena's half bits, each widened on the CPU
 * (tfl_half_to_float). */
typedef enum { GL_HOST_FLOATS, GL_HOST_PACKED_HALVES, GL_HOST_STORED_HALVES } gl_host_values;

/* One batch slot of an output (sh: the slot's shape, b = 1) at arena vec4 offset
 * arena_off -> dense BHWC floats at binding 2, bit for bit what the host path gives
 * (`how`): the queued read-back (a TFL_CONVERT_NONE export into a device buffer). One invocation per value.
 *   location 0: int, the slot's first vec4 (uvec2 slots when wide) after arena_off
 *   location 1: int, the first float written at binding 2
 *   location 2: int, the slot's first channel (a rank-1 output [B]: sh 1x1x1x1, slot b is
 *               channel b of the row; else 0) */
gl_boundary_prog gl_boundary_slot_source(gl_shape sh, size_t arena_off, bool fp16, bool wide, gl_host_values how);

#endif
