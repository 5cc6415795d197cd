/* gl_limits.h - the context's limits that the delegate's shaders depend on, the device
 * profiles that clamp them to a given GPU's published limits (docs/boards.md has the
 * table and where each number comes from), and the checks of a shader against them.
 * Pure data and string work, no GL: the context (gl_context.c) queries the values,
 * the planner (gl_plan.c) checks every dispatch before anything is compiled, so a
 * kernel that cannot fit is refused with a reason instead of failing in the driver. */
#ifndef GL_LIMITS_H
#define GL_LIMITS_H

#include <stdbool.h>

#include "gl_delegate.h" /* gl_device_profile */

typedef struct {
  int ssbo_blocks;            /* GL_MAX_COMPUTE_SHADER_STORAGE_BLOCKS */
  int ssbo_bindings;          /* GL_MAX_SHADER_STORAGE_BUFFER_BINDINGS */
  long long ssbo_bytes;       /* GL_MAX_SHADER_STORAGE_BLOCK_SIZE */
  int shared_bytes;           /* GL_MAX_COMPUTE_SHARED_MEMORY_SIZE */
  int wg_invocations;         /* GL_MAX_COMPUTE_WORK_GROUP_INVOCATIONS */
  int wg_size[3];             /* GL_MAX_COMPUTE_WORK_GROUP_SIZE */
  int wg_count[3];            /* GL_MAX_COMPUTE_WORK_GROUP_COUNT */
  int texture_units;          /* GL_MAX_COMPUTE_TEXTURE_IMAGE_UNITS */
  int image_uniforms;         /* GL_MAX_COMPUTE_IMAGE_UNIFORMS */
  int uniform_components;     /* GL_MAX_COMPUTE_UNIFORM_COMPONENTS */
} gl_limits;

/* OpenGL ES 3.1's minimums (what every GLES 3.1 context has at least). */
extern const gl_limits gl_limits_gles31;

/* The profile's limits; NULL for GL_PROFILE_NATIVE (the context's own). */
const gl_limits *gl_profile_limits(gl_device_profile p);

/* Each limit of l lowered to to's where to's is lower. */
void gl_limits_clamp(gl_limits *l, const gl_limits *to);

/* What every program of the delegate needs (storage blocks and bindings 0..3, a
 * workgroup of 128, 16 KiB of shared memory, three samplers): fails naming the limit
 * and its value when the context (or profile) offers less. */
tfl_status gl_limits_check_base(const gl_limits *l, tfl_diag *diag);

/* What a compute shader source uses, read from its declarations: shared memory bytes
 * (std430-like sizes; arrays sized by literals or #defines, #ifdef/#ifndef honoured),
 * storage blocks and the highest binding, samplers, images, uniform components.
 * shared_bytes is -1 when a declaration cannot be read. */
typedef struct {
  long shared_bytes;
  int ssbo_blocks, max_binding;
  int samplers, images, uniform_components;
  int wg[3];                  /* local_size_x/y/z (1 when absent) */
  bool uses_group_id;         /* gl_WorkGroupID / gl_NumWorkGroups: cannot be split */
  char bad[64];               /* the first shared declaration not read (shared_bytes -1) */
} gl_shader_use;
void gl_shader_use_of(const char *src, gl_shader_use *u);

/* Checks one dispatch (its source and workgroups) against l: "`what` needs ... (limit
 * ...)" into diag. Workgroup counts over the limit are fine when the shader can be
 * split into several dispatches (see gl_plan_dispatch.split). */
tfl_status gl_limits_check_shader(const gl_limits *l, const char *src, const int groups[3], const char *what,
                                  tfl_diag *diag);

/* Whether groups exceed l's counts in some axis (the dispatch must be split). */
bool gl_limits_needs_split(const gl_limits *l, const int groups[3]);

#endif
