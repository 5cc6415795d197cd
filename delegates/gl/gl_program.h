/* gl_program.h - compute programs from sources, through the program binary cache.
 *
 * Cache file: <dir>/tflgl-<key>.bin, key = 64-bit fingerprint the caller computes
 * (model bytes, delegate options, GL renderer and version) mixed here with every
 * source. Layout: "TFLGLPC1", key (u64), count (u32), then per program: format (u32),
 * length (u32), bytes. A missing file is a miss; a corrupt, truncated or foreign one
 * (wrong key, a binary the driver rejects) is a warning and a recompile, after which
 * the file is rewritten. */
#ifndef GL_PROGRAM_H
#define GL_PROGRAM_H

#include <stddef.h>
#include <stdint.h>

#include "gl_context.h"

/* Compiles and links one compute program; errors carry the info log and `label`. */
tfl_status gl_program_compile(gl_context *c, const char *src, const char *label, unsigned *prog, tfl_diag *diag);

typedef enum { GL_CACHE_OFF, GL_CACHE_MISS, GL_CACHE_HIT, GL_CACHE_CORRUPT } gl_cache_result;

/* Builds n programs (progs[i] from srcs[i]); labels[i] names each in errors.
 * cache_dir NULL: no cache. *result says what the cache did. Debugging: with the
 * environment's TFLGL_DUMP_SHADERS=DIR every source is written there first. */
tfl_status gl_programs_build(gl_context *c, const char *cache_dir, uint64_t key, char *const *srcs,
                             const char *const *labels, int n, unsigned *progs, gl_cache_result *result, tfl_diag *diag);

/* FNV-1a style 64-bit hash, chained through h. */
uint64_t gl_hash(uint64_t h, const void *data, size_t n);
#define GL_HASH_INIT 0xcbf29ce484222325ull

#endif
