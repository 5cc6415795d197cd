/* gl_limits.c - device profiles, clamping, and what a shader source uses (gl_limits.h). */
#include "gl_limits.h"

#include <ctype.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* OpenGL ES 3.1 specification, table 20.45 (compute shader limits) and 20.48 (storage
 * blocks): the minimum maximums. */
const gl_limits gl_limits_gles31 = {
    .ssbo_blocks = 4, .ssbo_bindings = 4, .ssbo_bytes = 1ll << 27, .shared_bytes = 16384, .wg_invocations = 128,
    .wg_size = {128, 128, 64}, .wg_count = {65535, 65535, 65535}, .texture_units = 16, .image_uniforms = 4,
    .uniform_components = 512,
};

/* Published limits per GPU; docs/boards.md says where each number comes from. Values
 * the sources do not state stay at the GLES 3.1 minimum. */
static const gl_limits mali_g610 = { /* Mesa panfrost (pan_screen.c, Valhall) */
    .ssbo_blocks = 16, .ssbo_bindings = 16, .ssbo_bytes = 1ll << 27, .shared_bytes = 32768, .wg_invocations = 256,
    .wg_size = {256, 256, 256}, .wg_count = {65535, 65535, 65535}, .texture_units = 16, .image_uniforms = 4,
    .uniform_components = 512,
};
static const gl_limits v3d = { /* Mesa v3d (v3d_screen.c), VideoCore VII */
    .ssbo_blocks = 16, .ssbo_bindings = 16, .ssbo_bytes = 1ll << 27, .shared_bytes = 32768, .wg_invocations = 256,
    .wg_size = {256, 256, 256}, .wg_count = {65535, 65535, 65535}, .texture_units = 16, .image_uniforms = 4,
    .uniform_components = 512,
};
static const gl_limits adreno6xx = { /* Mesa freedreno (freedreno_screen.c, a6xx) */
    .ssbo_blocks = 16, .ssbo_bindings = 16, .ssbo_bytes = 1ll << 27, .shared_bytes = 32768, .wg_invocations = 1024,
    .wg_size = {1024, 1024, 64}, .wg_count = {65535, 65535, 65535}, .texture_units = 16, .image_uniforms = 4,
    .uniform_components = 512,
};

static const struct {
  const char *name;
  gl_device_profile p;
  const gl_limits *lim;
} profiles[] = {
    {"native", GL_PROFILE_NATIVE, NULL},          {"gles31-min", GL_PROFILE_GLES31_MIN, &gl_limits_gles31},
    {"mali-g610", GL_PROFILE_MALI_G610, &mali_g610}, {"v3d", GL_PROFILE_V3D, &v3d},
    {"adreno6xx", GL_PROFILE_ADRENO6XX, &adreno6xx},
};
#define N_PROFILES (int)(sizeof profiles / sizeof profiles[0])

bool gl_device_profile_parse(const char *name, gl_device_profile *out)
{
  for (int i = 0; name && i < N_PROFILES; i++)
    if (!strcmp(name, profiles[i].name)) {
      *out = profiles[i].p;
      return true;
    }
  return false;
}

const char *gl_device_profile_name(gl_device_profile p)
{
  for (int i = 0; i < N_PROFILES; i++)
    if (profiles[i].p == p) return profiles[i].name;
  return "unknown";
}

const char *gl_device_profile_names(void)
{
  return "native, gles31-min, mali-g610, v3d, adreno6xx";
}

const gl_limits *gl_profile_limits(gl_device_profile p)
{
  for (int i = 0; i < N_PROFILES; i++)
    if (profiles[i].p == p) return profiles[i].lim;
  return NULL;
}

static void lower(int *v, int to)
{
  if (to > 0 && (*v <= 0 || *v > to)) *v = to;
}

void gl_limits_clamp(gl_limits *l, const gl_limits *to)
{
  if (!to) return;
  lower(&l->ssbo_blocks, to->ssbo_blocks);
  lower(&l->ssbo_bindings, to->ssbo_bindings);
  if (to->ssbo_bytes > 0 && (l->ssbo_bytes <= 0 || l->ssbo_bytes > to->ssbo_bytes)) l->ssbo_bytes = to->ssbo_bytes;
  lower(&l->shared_bytes, to->shared_bytes);
  lower(&l->wg_invocations, to->wg_invocations);
  for (int a = 0; a < 3; a++) {
    lower(&l->wg_size[a], to->wg_size[a]);
    lower(&l->wg_count[a], to->wg_count[a]);
  }
  lower(&l->texture_units, to->texture_units);
  lower(&l->image_uniforms, to->image_uniforms);
  lower(&l->uniform_components, to->uniform_components);
}

tfl_status gl_limits_check_base(const gl_limits *l, tfl_diag *diag)
{
  /* every shader: arena + constants (or + host buffer, + mask bytes at binding 3); the
   * texture input samples up to three planes; generators' fixed workgroups are 128 */
  static const struct {
    const char *name;
    size_t off;
    int need;
  } base[] = {
      {"GL_MAX_COMPUTE_SHADER_STORAGE_BLOCKS", offsetof(gl_limits, ssbo_blocks), 2},
      {"GL_MAX_SHADER_STORAGE_BUFFER_BINDINGS", offsetof(gl_limits, ssbo_bindings), 4},
      {"GL_MAX_COMPUTE_WORK_GROUP_INVOCATIONS", offsetof(gl_limits, wg_invocations), 128},
      {"GL_MAX_COMPUTE_SHARED_MEMORY_SIZE", offsetof(gl_limits, shared_bytes), 16384},
      {"GL_MAX_COMPUTE_TEXTURE_IMAGE_UNITS", offsetof(gl_limits, texture_units), 3},
  };
  for (size_t i = 0; i < sizeof base / sizeof base[0]; i++) {
    int v = *(const int *)((const char *)l + base[i].off);
    if (v < base[i].need)
      return tfl_fail(diag, TFL_ERR_UNSUPPORTED, "GL: %s is %d; the delegate needs %d (GLES 3.1 guarantees it)",
                      base[i].name, v, base[i].need);
  }
  return TFL_OK;
}

/* ---- reading a source's declarations ---- */

#define MAX_DEFS 1024 /* the emitter defines a dozen macros per object */
#define MAX_DEPTH 8

typedef struct {
  char name[32];
  long value;
  bool has_value;
} def;

typedef struct {
  def d[MAX_DEFS];
  int n;
} defs;

static const def *find_def(const defs *ds, const char *name, size_t len)
{
  for (int i = ds->n - 1; i >= 0; i--)
    if (strlen(ds->d[i].name) == len && !strncmp(ds->d[i].name, name, len)) return &ds->d[i];
  return NULL;
}

static size_t ident_len(const char *p)
{
  size_t n = 0;
  while (isalnum((unsigned char)p[n]) || p[n] == '_') n++;
  return n;
}

static const char *skip_ws(const char *p)
{
  while (*p == ' ' || *p == '\t') p++;
  return p;
}

/* An array size: a literal, a #define'd name, or a product of those. -1: unreadable. */
static long eval_size(const defs *ds, const char *p, const char *end)
{
  long v = 1;
  for (;;) {
    p = skip_ws(p);
    long f;
    if (isdigit((unsigned char)*p)) {
      char *e;
      f = strtol(p, &e, 10);
      p = e;
      if (*p == 'u' || *p == 'U') p++;
    } else {
      size_t n = ident_len(p);
      const def *d = n ? find_def(ds, p, n) : NULL;
      if (!d || !d->has_value) return -1;
      f = d->value;
      p += n;
    }
    if (f < 0 || (f > 0 && v > (1L << 40) / f)) return -1;
    v *= f;
    p = skip_ws(p);
    if (p >= end) return v;
    if (*p != '*') return -1;
    p++;
  }
}

/* Bytes of a shared variable's element type (vec3 takes a vec4's room). 0: unknown. */
static int type_bytes(const char *t, size_t n)
{
  static const struct {
    const char *name;
    int bytes;
  } types[] = {{"float", 4}, {"int", 4}, {"uint", 4}, {"bool", 4}, {"vec2", 8}, {"ivec2", 8}, {"uvec2", 8},
               {"bvec2", 8}, {"vec3", 16}, {"ivec3", 16}, {"uvec3", 16}, {"vec4", 16}, {"ivec4", 16},
               {"uvec4", 16}, {"bvec4", 16}, {"mat4", 64}};
  for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
    if (strlen(types[i].name) == n && !strncmp(types[i].name, t, n)) return types[i].bytes;
  return 0;
}

/* "shared [precision] TYPE a[N], b, c[M];" -> bytes, -1 when unreadable */
static long shared_decl(const defs *ds, const char *p, const char *eol)
{
  p = skip_ws(p + 6);
  size_t n = ident_len(p);
  if (n == 5 && (!strncmp(p, "highp", 5))) p = skip_ws(p + n), n = ident_len(p);
  else if ((n == 7 && !strncmp(p, "mediump", 7)) || (n == 4 && !strncmp(p, "lowp", 4))) p = skip_ws(p + n), n = ident_len(p);
  int tb = type_bytes(p, n);
  if (!tb) return -1;
  p += n;
  long total = 0;
  while (p < eol) {
    p = skip_ws(p);
    size_t vn = ident_len(p);
    if (!vn) return -1;
    p = skip_ws(p + vn);
    long count = 1;
    if (*p == '[') {
      const char *close = memchr(p, ']', (size_t)(eol - p));
      if (!close) return -1;
      count = eval_size(ds, p + 1, close);
      if (count < 0) return -1;
      p = skip_ws(close + 1);
    }
    total += count * tb;
    if (*p == ',') {
      p++;
      continue;
    }
    if (*p == ';') break;
    return -1;
  }
  return total;
}

static bool starts(const char *p, const char *word)
{
  size_t n = strlen(word);
  return !strncmp(p, word, n) && !(isalnum((unsigned char)p[n]) || p[n] == '_');
}

void gl_shader_use_of(const char *src, gl_shader_use *u)
{
  memset(u, 0, sizeof *u);
  u->max_binding = -1;
  u->wg[0] = u->wg[1] = u->wg[2] = 1;
  defs ds = {.n = 0};
  bool active[MAX_DEPTH + 1] = {true};
  int depth = 0;
  u->uses_group_id = strstr(src, "gl_WorkGroupID") || strstr(src, "gl_NumWorkGroups");
  for (const char *line = src; line && *line;) {
    const char *eol = strchr(line, '\n');
    if (!eol) eol = line + strlen(line);
    const char *p = skip_ws(line);
    bool on = active[depth];
    if (*p == '#') {
      p = skip_ws(p + 1);
      if (starts(p, "ifdef") || starts(p, "ifndef")) {
        bool neg = starts(p, "ifndef");
        p = skip_ws(p + (neg ? 6 : 5));
        bool defined = find_def(&ds, p, ident_len(p)) != NULL;
        if (depth < MAX_DEPTH) depth++;
        active[depth] = on && (neg ? !defined : defined);
      } else if (starts(p, "else") && depth > 0) {
        active[depth] = active[depth - 1] && !active[depth];
      } else if (starts(p, "endif") && depth > 0) {
        depth--;
      } else if (starts(p, "define") && on && ds.n < MAX_DEFS) {
        p = skip_ws(p + 6);
        size_t n = ident_len(p);
        def *d = &ds.d[ds.n];
        if (n && n < sizeof d->name && p[n] != '(') { /* function-like macros are no sizes */
          memcpy(d->name, p, n);
          d->name[n] = 0;
          const char *v = skip_ws(p + n);
          char *e;
          d->value = strtol(v, &e, 10);
          d->has_value = e != v && (*skip_ws(e) == '\n' || *skip_ws(e) == 0 || *e == 'u');
          ds.n++;
        }
      } else if (starts(p, "undef") && on) {
        p = skip_ws(p + 5);
        size_t n = ident_len(p);
        for (int i = 0; i < ds.n; i++)
          if (strlen(ds.d[i].name) == n && !strncmp(ds.d[i].name, p, n)) ds.d[i].name[0] = 0;
      }
    } else if (on) {
      if (starts(p, "shared")) {
        long b = shared_decl(&ds, p, eol);
        if (b < 0 && u->shared_bytes >= 0) snprintf(u->bad, sizeof u->bad, "%.*s", (int)(eol - p), p);
        if (b < 0 || u->shared_bytes < 0) u->shared_bytes = -1;
        else u->shared_bytes += b;
      }
      const char *lay = strstr(p, "layout(");
      if (lay && lay < eol) {
        const char *b = strstr(lay, "binding");
        const char *buf = strstr(lay, " buffer ");
        if (buf && buf < eol) {
          u->ssbo_blocks++;
          int k = -1;
          if (b && b < eol && sscanf(b, "binding = %d", &k) == 1 && k > u->max_binding) u->max_binding = k;
        }
        static const char *axes[3] = {"local_size_x = ", "local_size_y = ", "local_size_z = "};
        for (int a = 0; a < 3; a++) {
          const char *s = strstr(lay, axes[a]);
          if (s && s < eol) u->wg[a] = atoi(s + strlen(axes[a]));
        }
      }
      const char *un = strstr(p, "uniform ");
      if (un && un < eol) {
        const char *sm = strstr(un, "sampler"), *im = strstr(un, "image");
        if (sm && sm < eol) u->samplers++;
        else if (im && im < eol) u->images++;
        else if (!strstr(p, " buffer ") || strstr(p, " buffer ") > eol) {
          const char *v4 = strstr(un, "vec4"), *v3 = strstr(un, "vec3"), *v2 = strstr(un, "vec2");
          u->uniform_components += v4 && v4 < eol ? 4 : v3 && v3 < eol ? 3 : v2 && v2 < eol ? 2 : 1;
        }
      }
    }
    line = *eol ? eol + 1 : eol;
  }
}

bool gl_limits_needs_split(const gl_limits *l, const int groups[3])
{
  for (int a = 0; a < 3; a++)
    if (l->wg_count[a] > 0 && groups[a] > l->wg_count[a]) return true;
  return false;
}

tfl_status gl_limits_check_shader(const gl_limits *l, const char *src, const int groups[3], const char *what,
                                  tfl_diag *diag)
{
  gl_shader_use u;
  gl_shader_use_of(src, &u);
  long inv = (long)u.wg[0] * u.wg[1] * u.wg[2];
  for (int a = 0; a < 3; a++)
    if (l->wg_size[a] > 0 && u.wg[a] > l->wg_size[a])
      return tfl_fail(diag, TFL_ERR_UNSUPPORTED, "%s: workgroup size %d in dimension %d, over GL_MAX_COMPUTE_WORK_GROUP_SIZE's %d",
                      what, u.wg[a], a, l->wg_size[a]);
  if (l->wg_invocations > 0 && inv > l->wg_invocations)
    return tfl_fail(diag, TFL_ERR_UNSUPPORTED, "%s: workgroup of %ld invocations, over GL_MAX_COMPUTE_WORK_GROUP_INVOCATIONS' %d",
                    what, inv, l->wg_invocations);
  if (u.shared_bytes < 0)
    return tfl_fail(diag, TFL_ERR_UNSUPPORTED, "%s: cannot read the size of its shared memory declaration \"%s\"", what,
                    u.bad);
  if (l->shared_bytes > 0 && u.shared_bytes > l->shared_bytes)
    return tfl_fail(diag, TFL_ERR_UNSUPPORTED, "%s: %ld bytes of shared memory, over GL_MAX_COMPUTE_SHARED_MEMORY_SIZE's %d",
                    what, u.shared_bytes, l->shared_bytes);
  if (l->ssbo_blocks > 0 && u.ssbo_blocks > l->ssbo_blocks)
    return tfl_fail(diag, TFL_ERR_UNSUPPORTED, "%s: %d storage blocks, over GL_MAX_COMPUTE_SHADER_STORAGE_BLOCKS' %d", what,
                    u.ssbo_blocks, l->ssbo_blocks);
  if (l->ssbo_bindings > 0 && u.max_binding >= l->ssbo_bindings)
    return tfl_fail(diag, TFL_ERR_UNSUPPORTED, "%s: storage binding %d, over GL_MAX_SHADER_STORAGE_BUFFER_BINDINGS' %d", what,
                    u.max_binding, l->ssbo_bindings);
  if (l->texture_units > 0 && u.samplers > l->texture_units)
    return tfl_fail(diag, TFL_ERR_UNSUPPORTED, "%s: %d samplers, over GL_MAX_COMPUTE_TEXTURE_IMAGE_UNITS' %d", what, u.samplers,
                    l->texture_units);
  if (l->image_uniforms > 0 && u.images > l->image_uniforms)
    return tfl_fail(diag, TFL_ERR_UNSUPPORTED, "%s: %d images, over GL_MAX_COMPUTE_IMAGE_UNIFORMS' %d", what, u.images,
                    l->image_uniforms);
  if (l->uniform_components > 0 && u.uniform_components > l->uniform_components)
    return tfl_fail(diag, TFL_ERR_UNSUPPORTED, "%s: %d uniform components, over GL_MAX_COMPUTE_UNIFORM_COMPONENTS' %d", what,
                    u.uniform_components, l->uniform_components);
  if (groups && gl_limits_needs_split(l, groups) && u.uses_group_id)
    return tfl_fail(diag, TFL_ERR_UNSUPPORTED,
                    "%s: %d x %d x %d workgroups, over GL_MAX_COMPUTE_WORK_GROUP_COUNT (%d, %d, %d), and its shader reads "
                    "gl_WorkGroupID so it cannot be split", what, groups[0], groups[1], groups[2], l->wg_count[0],
                    l->wg_count[1], l->wg_count[2]);
  return TFL_OK;
}
