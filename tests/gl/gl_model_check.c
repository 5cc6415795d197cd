/* gl_model_check.c - see gl_model_check.h */
#include "gl_model_check.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "delegates/gl/gl_layout.h"

const char *glm_find_model(const char *arg, const char *dirs, char *buf, size_t n)
{
  if (strchr(arg, '/') || strstr(arg, ".tflite")) return access(arg, R_OK) == 0 ? arg : NULL;
  for (const char *d = dirs; d && *d;) {
    const char *e = strchr(d, ':');
    size_t len = e ? (size_t)(e - d) : strlen(d);
    snprintf(buf, n, "%.*s/%s.tflite", (int)len, d, arg);
    if (access(buf, R_OK) == 0) return buf;
    d = e ? e + 1 : d + len;
  }
  return NULL;
}

bool glm_read_case(const char *golden_dir, const char *stem, const char *kind, golden_case *gc)
{
  char path[4096];
  snprintf(path, sizeof path, "%s/%s.%s.txt", golden_dir, stem, kind);
  if (golden_read(path, gc)) return true;
  printf("FAIL %s: no golden case %s\n", stem, path);
  return false;
}

bool glm_fill(const golden_case *gc, const char *picture_dir, const char *stem, tfl_interpreter *a, tfl_interpreter *b)
{
  golden_picture pic = {0};
  bool is_pic = strcmp(gc->input_kind, "picture") == 0, ok = true;
  if (is_pic) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", picture_dir, gc->picture);
    if (!golden_picture_load(path, &pic)) {
      printf("FAIL %s: picture %s (run tests/fetch_pictures.sh)\n", stem, path);
      return false;
    }
  }
  golden_rng rng;
  golden_rng_seed(&rng, gc->seed);
  for (int i = 0; ok && i < tfl_interpreter_input_count(a); i++) {
    tfl_tensor *t = tfl_interpreter_input(a, i), *u = b ? tfl_interpreter_input(b, i) : NULL;
    if (is_pic)
      ok = t->ndim == 4 && t->dims[3] == 3 &&
           golden_fill_picture(&pic, t->dims[2], t->dims[1], (int)t->type, gc->lo, gc->hi, t->data);
    else
      ok = golden_fill_gauss(&rng, (int)t->type, t->q.n ? t->q.scale[0] : 0, t->q.n ? t->q.zero_point[0] : 0, t->data,
                             tfl_tensor_count(t));
    ok = ok && (i >= gc->n_inputs || golden_fnv1a(t->data, t->bytes) == gc->input_hash[i]) && (!u || u->bytes == t->bytes);
    if (!ok) printf("FAIL %s %s: input %d differs from the golden case's\n", stem, gc->input_kind, i);
    else if (u) memcpy(u->data, t->data, t->bytes);
  }
  golden_picture_free(&pic);
  return ok;
}

bool glm_fill_case(const char *golden_dir, const char *picture_dir, const char *stem, const char *kind,
                   tfl_interpreter *a, tfl_interpreter *b)
{
  golden_case gc;
  if (!glm_read_case(golden_dir, stem, kind, &gc)) return false;
  bool ok = glm_fill(&gc, picture_dir, stem, a, b);
  golden_free(&gc);
  return ok;
}

static bool made_by_gl(tfl_interpreter *it, const tfl_graph *g, int t)
{
  int p = g->tensors[t].producer;
  const char *dn = p >= 0 ? tfl_interpreter_node_delegate(it, p) : NULL;
  return dn && strcmp(dn, "gl") == 0;
}

/* Post-processing (boxes kept or not, poses): a tiny difference of its inputs can
 * change its outputs wholesale, so its inputs are compared instead. The inputs of
 * other CPU nodes are not: the CPU run need not write them (XNNPACK keeps a chain's
 * intermediates to itself) and the graph outputs they lead to are compared. */
static bool decodes(tfl_op op)
{
  return op == TFL_OP_DETECTION_POSTPROCESS || op == TFL_OP_POSENET_DECODER || op >= TFL_OP_ANCHOR_DETECTION;
}

bool glm_intact(const tfl_graph *g, int t)
{
  for (int k = 0; k < g->n_outputs; k++)
    if (g->outputs[k] == t) return true;
  int last = -1; /* its last reader */
  for (int i = 0; i < g->n_nodes; i++)
    for (int k = 0; !g->nodes[i].dead && k < g->nodes[i].n_in; k++)
      if (g->nodes[i].in[k] == t) last = i;
  const tfl_tensor *a = &g->tensors[t];
  const char *a0 = a->data, *a1 = a0 + a->bytes;
  for (int i = last + 1; i < g->n_nodes; i++)
    for (int k = 0; !g->nodes[i].dead && k < g->nodes[i].n_out; k++) {
      const int u = g->nodes[i].out[k];
      if (u < 0 || u == t || g->tensors[u].is_const || !g->tensors[u].data) continue;
      const char *b0 = g->tensors[u].data, *b1 = b0 + g->tensors[u].bytes;
      if (b0 < a1 && a0 < b1) return false;
    }
  return true;
}

int glm_compared(tfl_interpreter *gl, int *cmp, int max, bool graph_outputs_only)
{
  const tfl_graph *g = tfl_interpreter_graph(gl);
  int n = 0;
  for (int i = 0; !graph_outputs_only && i < g->n_nodes; i++) {
    const char *dn = tfl_interpreter_node_delegate(gl, i);
    if (!dn || strcmp(dn, "cpu") != 0) continue;
    for (int k = 0; k < g->nodes[i].n_in && n < max; k++) {
      int t = g->nodes[i].in[k];
      if (t >= 0 && decodes(g->nodes[i].op) && made_by_gl(gl, g, t) && glm_intact(g, t)) cmp[n++] = t;
    }
  }
  for (int k = 0; k < g->n_outputs && n < max; k++) {
    int t = g->outputs[k], p = g->tensors[t].producer;
    if (p >= 0 && (graph_outputs_only || made_by_gl(gl, g, t) || !decodes(g->nodes[p].op))) cmp[n++] = t;
  }
  return n;
}

glm_err glm_compare(const tfl_tensor *ref, const tfl_tensor *got)
{
  glm_err r = {0, 1, 0, 0};
  size_t n = tfl_tensor_count(ref);
  double sum = 0, lo = INFINITY, hi = -INFINITY;
  for (size_t i = 0; i < n; i++) {
    double x = gl_tensor_real(ref, ref->data, i), y = gl_tensor_real(got, got->data, i);
    lo = fmin(lo, x);
    hi = fmax(hi, x);
    double e = fabs(x - y);
    sum += e;
    if (!(e <= r.worst)) r.worst = isnan(e) ? INFINITY : e, r.at = i;
  }
  r.range = hi - lo > 0 ? hi - lo : 1.0;
  r.mean = n ? sum / (double)n : 0;
  return r;
}
