/* test_gl_limits.c - the device limits (delegates/gl/gl_limits.h): what a shader
 * source's declarations use, counted by hand here; the profiles' names; a check that
 * names the limit; and the own context under the gles31-min profile: GLES 3.1 on the
 * driver (Mesa: with MESA_GLES_VERSION_OVERRIDE=3.1, which meson sets; it answers a 3.1
 * request with 3.2 otherwise), every limit the delegate reads at OpenGL ES 3.1's minimum (the numbers of
 * the specification's tables 20.45 and 20.48, typed here, not read from the delegate).
 * The models under limits (split dispatches, nodes left to the CPU) are
 * test_gl_models' --expect-split / --expect-refused runs (tests/gl/meson.build). */
#include <stdio.h>
#include <string.h>

#include "delegates/gl/gl_context.h"
#include "delegates/gl/gl_limits.h"
#include "tests/check.h"

static void test_shader_use(void)
{
  /* 16*64 + 4*100 + 8*(3+1) + 4*2 = 1024 + 400 + 32 + 8 = 1464 bytes; the #ifndef part
   * is left out when FIRST_PASS is defined */
  const char *src = "#version 310 es\n"
                    "layout(local_size_x = 64, local_size_y = 2, local_size_z = 1) in;\n"
                    "layout(std430, binding = 0) buffer Arena { uvec2 A[]; };\n"
                    "layout(std430, binding = 3) writeonly buffer Bytes { uint b[]; };\n"
                    "layout(location = 0) uniform ivec4 base;\n"
                    "layout(location = 1) uniform int slot;\n"
                    "uniform highp sampler2D tex0;\n"
                    "#define N 100\n#define M 3\n"
                    "shared highp vec4 red[64];\n"
                    "shared float S[N];\n"
                    "#ifndef FIRST_PASS\n"
                    "shared uvec2 P[M], Q;\n"
                    "shared uint A1, B1;\n"
                    "#endif\n"
                    "void main() { uint g = gl_WorkGroupID.x; }\n";
  gl_shader_use u;
  gl_shader_use_of(src, &u);
  CHECK(u.shared_bytes == 1464, "shared %ld bytes, counted 1464", u.shared_bytes);
  CHECK(u.ssbo_blocks == 2 && u.max_binding == 3, "%d blocks, binding %d", u.ssbo_blocks, u.max_binding);
  CHECK(u.samplers == 1 && u.images == 0, "%d samplers %d images", u.samplers, u.images);
  CHECK(u.uniform_components == 5, "%d uniform components (ivec4 + int)", u.uniform_components);
  CHECK(u.wg[0] == 64 && u.wg[1] == 2 && u.wg[2] == 1, "workgroup %dx%dx%d", u.wg[0], u.wg[1], u.wg[2]);
  CHECK(u.uses_group_id, "gl_WorkGroupID not seen");
  char first[2048];
  snprintf(first, sizeof first, "#define FIRST_PASS\n%s", src);
  gl_shader_use_of(first, &u);
  CHECK(u.shared_bytes == 1024 + 400, "first pass: %ld bytes, counted 1424", u.shared_bytes);
  gl_shader_use_of("shared vec4 X[UNKNOWN];\n", &u);
  CHECK(u.shared_bytes == -1, "an unreadable size is -1, got %ld", u.shared_bytes);

  /* the check names the limit and both numbers */
  gl_limits l = gl_limits_gles31;
  l.shared_bytes = 1000;
  tfl_diag d;
  tfl_diag_init(&d);
  int groups[3] = {1, 1, 1};
  CHECK(gl_limits_check_shader(&l, src, groups, "node 3 (MEAN): its shader", &d) == TFL_ERR_UNSUPPORTED, "passed");
  CHECK(strstr(d.error, "node 3 (MEAN)") && strstr(d.error, "1464") && strstr(d.error, "GL_MAX_COMPUTE_SHARED_MEMORY_SIZE") &&
            strstr(d.error, "1000"), "message: %s", d.error);
  l = gl_limits_gles31;
  groups[0] = 70000;
  CHECK(gl_limits_needs_split(&l, groups), "70000 groups fit 65535");
  CHECK(gl_limits_check_shader(&l, src, groups, "x", &d) == TFL_ERR_UNSUPPORTED && strstr(d.error, "gl_WorkGroupID"),
        "a shader reading gl_WorkGroupID was split: %s", d.error);
  l.ssbo_bindings = 3;
  CHECK(gl_limits_check_base(&l, &d) == TFL_ERR_UNSUPPORTED && strstr(d.error, "GL_MAX_SHADER_STORAGE_BUFFER_BINDINGS is 3"),
        "base check: %s", d.error);
}

static void test_profiles(void)
{
  static const char *names[] = {"native", "gles31-min", "mali-g610", "v3d", "adreno6xx"};
  for (int i = 0; i < 5; i++) {
    gl_device_profile p;
    CHECK(gl_device_profile_parse(names[i], &p) && !strcmp(gl_device_profile_name(p), names[i]), "%s", names[i]);
    /* no profile goes below what GLES 3.1 guarantees (the delegate's base needs) */
    const gl_limits *l = gl_profile_limits(p);
    tfl_diag d;
    tfl_diag_init(&d);
    CHECK(!l || gl_limits_check_base(l, &d) == TFL_OK, "%s: %s", names[i], d.error);
  }
  gl_device_profile p;
  CHECK(!gl_device_profile_parse("gles31", &p), "a wrong name parsed");
}

static void test_gles31_context(void)
{
  gl_context *c;
  tfl_diag d;
  tfl_diag_init(&d);
  if (gl_context_create_for(false, GL_EGL_AUTO, GL_PROFILE_GLES31_MIN, &c, &d)) {
    CHECK(0, "no gles31-min context: %s", d.error);
    return;
  }
  printf("     gles31-min: %s, %s\n", c->version, c->renderer);
  CHECK(c->is_gles && c->major == 3 && c->minor == 1, "context %s is not OpenGL ES 3.1", c->version);
  const gl_limits *l = &c->lim;
  /* OpenGL ES 3.1, tables 20.45 and 20.48: the minimum maximums; llvmpipe offers more of each */
  CHECK(l->ssbo_blocks == 4 && l->ssbo_bindings == 4, "%d blocks %d bindings", l->ssbo_blocks, l->ssbo_bindings);
  CHECK(l->ssbo_bytes == 134217728, "block size %lld", l->ssbo_bytes);
  CHECK(l->shared_bytes == 16384 && c->max_shared_bytes == 16384, "shared %d", l->shared_bytes);
  CHECK(l->wg_invocations == 128 && c->max_wg_invocations == 128, "invocations %d", l->wg_invocations);
  CHECK(l->wg_size[0] == 128 && l->wg_size[1] == 128 && l->wg_size[2] == 64, "size %d %d %d", l->wg_size[0],
        l->wg_size[1], l->wg_size[2]);
  for (int a = 0; a < 3; a++) CHECK(l->wg_count[a] == 65535 && c->max_wg_count[a] == 65535, "count %d", l->wg_count[a]);
  CHECK(l->texture_units == 16 && l->image_uniforms == 4 && l->uniform_components == 512, "%d units %d images %d comps",
        l->texture_units, l->image_uniforms, l->uniform_components);
  gl_context_free(c);
  /* the native context reports at least those (what the clamp lowered from) */
  if (gl_context_create(false, GL_EGL_AUTO, &c, &d)) {
    CHECK(0, "no native context: %s", d.error);
    return;
  }
  printf("     native: %s; shared %d, invocations %d, blocks %d, bindings %d, block size %lld\n", c->version,
         c->lim.shared_bytes, c->lim.wg_invocations, c->lim.ssbo_blocks, c->lim.ssbo_bindings, c->lim.ssbo_bytes);
  CHECK(c->lim.shared_bytes >= 16384 && c->lim.wg_invocations >= 128 && c->lim.ssbo_blocks >= 4, "native below GLES 3.1");
  gl_context_free(c);
}

int main(void)
{
  test_shader_use();
  test_profiles();
  test_gles31_context();
  printf("%d failure(s)\n", failures);
  return failures != 0;
}
