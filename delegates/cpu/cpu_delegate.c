/* cpu_delegate.c - the CPU delegate: runs a partition node by node on the reference
 * kernels, or (fast mode) hands runs of consecutive float nodes XNNPACK accepts to one
 * XNNPACK subgraph each and the rest to the kernels, all on one thread pool.
 *
 * A partition becomes a list of steps, each either one kernel node (its prepared
 * state) or one XNNPACK subgraph; invoke walks the list. Nothing is allocated per run.
 */
#include "cpu_delegate.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cpu_kernel.h"
#include "cpu_features.h"
#include "kernels/conv_narrow.h"
#include "kernels/conv_sparse1x1.h"
#include "kernels/conv_q8_neon.h"
#include "kernels/conv_q8_stem.h"
#include "kernels/quantize_lut.h"
#include "kernels/dwconv_q8.h"
#include "kernels/dwconv_q8_neon.h"
#include "kernels/conv_hybrid.h"
#include "kernels/dw_hybrid.h"
#include "kernels/tconv_hybrid.h"
#include "kernels/bmm_hybrid.h"
#include "kernels/fc_hybrid.h"
#include "kernels/fc_q8.h"
#include "kernels/tconv_q8.h"
#include "cpu_export.h"
#include "onednn_conv.h"
#include "xnn_partition.h"

typedef struct {
  cpu_delegate_options opt;
  cpu_features isa;      /* what this CPU has, read once */
  cpu_ctx *ctx;          /* threads shared by every partition of this delegate */
} cpu_delegate_ctx;

typedef struct {
  int node;              /* first node of the step */
  int span;              /* nodes in the step */
  const cpu_kernel *k;   /* kernel step; NULL for the others */
  void *state;
  xnn_partition *xnn;    /* XNNPACK step */
  onednn_conv *dnn;      /* oneDNN convolution step */
} cpu_step;

typedef struct {
  const tfl_graph *g;
  tfl_diag *diag;        /* the interpreter's (tfl_partition.diag) */
  int n_steps;
  cpu_step *steps;
} cpu_part;

cpu_delegate_options cpu_delegate_defaults(void)
{
  return (cpu_delegate_options){.threads = 1, .precision = CPU_PRECISION_FP32, .reference = false,
                                .use_xnnpack = true, .use_onednn = true, .xnn_one_node = false,
                                .profile = NULL};
}

static const cpu_kernel *kernel_of(tfl_op op)
{
  const cpu_kernel *k = cpu_reference_kernel(op);
  return (k && k->prepare && k->eval) ? k : NULL;
}

static bool cpu_supports(void *vctx, const tfl_graph *g, int node)
{
  (void)vctx;
  if (node < 0 || node >= g->n_nodes) return false;
  return kernel_of(g->nodes[node].op) != NULL;
}

static void cpu_release(void *vctx, void *vstate)
{
  (void)vctx;
  cpu_part *p = vstate;
  if (!p) return;
  for (int i = 0; i < p->n_steps; i++) {
    cpu_step *s = &p->steps[i];
    if (s->xnn) xnn_partition_free(s->xnn);
    if (s->dnn) onednn_conv_free(s->dnn);
    if (s->k && s->k->release) s->k->release(s->state);
  }
  free(p->steps);
  free(p);
}

/* The fast path's own kernel for node n, where one beats XNNPACK (and oneDNN): sparse 1x1
 * convs, convs with one or two output channels, 8-bit depthwise convs and 8-bit convs with
 * at most 4 input channels (1x1: 64) on VNNI, 8-bit convs and depthwise convs with per-tensor
 * weights on arm64 (NEON; XNNPACK rounds those differently there), 8-bit -> 8-bit QUANTIZEs on VBMI, hybrid
 * (dynamic-range) CONV_2D, DEPTHWISE_CONV_2D, TRANSPOSE_CONV, FULLY_CONNECTED and BATCH_MATMUL.
 * NULL: none. */
static const cpu_kernel *fast_kernel(const cpu_features *isa, const tfl_graph *g, const tfl_node *n)
{
  if (cpu_dwconv_q8_applies(g, n, isa)) return &cpu_k_dwconv_q8;
  if (cpu_conv_q8_stem_applies(g, n, isa)) return &cpu_k_conv_q8_stem;
  if (cpu_dwconv_q8_neon_applies(g, n)) return &cpu_k_dwconv_q8_neon;
  if (cpu_conv_q8_neon_applies(g, n)) return &cpu_k_conv_q8_neon;
  if (cpu_quantize_lut_applies(g, n, isa)) return &cpu_k_quantize_lut;
  if (cpu_conv_sparse1x1_applies(g, n)) return &cpu_k_conv_sparse1x1;
  if (cpu_conv_narrow_applies(g, n)) return &cpu_k_conv_narrow;
  if (cpu_fc_q8_applies(g, n, isa)) return &cpu_k_fc_q8;
  if (cpu_tconv_q8_applies(g, n, isa)) return &cpu_k_tconv_q8;
  if (cpu_conv_hybrid_applies(g, n, isa)) return &cpu_k_conv_hybrid;
  if (cpu_fc_hybrid_applies(g, n, isa)) return &cpu_k_fc_hybrid;
  if (cpu_dw_hybrid_applies(g, n, isa)) return &cpu_k_dw_hybrid;
  if (cpu_tconv_hybrid_applies(g, n, isa)) return &cpu_k_tconv_hybrid;
  if (cpu_bmm_hybrid_applies(g, n, isa)) return &cpu_k_bmm_hybrid;
  return NULL;
}

/* The fast kernels' names, for the profile (cpu_profile.kernel). */
static const struct {
  const cpu_kernel *k;
  const char *name;
} fast_names[] = {
  {&cpu_k_dwconv_q8, "dwconv_q8"},         {&cpu_k_conv_q8_stem, "conv_q8_stem"},
  {&cpu_k_dwconv_q8_neon, "dwconv_q8_neon"}, {&cpu_k_conv_q8_neon, "conv_q8_neon"},
  {&cpu_k_quantize_lut, "quantize_lut"},   {&cpu_k_conv_sparse1x1, "conv_sparse1x1"},
  {&cpu_k_conv_narrow, "conv_narrow"},     {&cpu_k_fc_q8, "fc_q8"},
  {&cpu_k_tconv_q8, "tconv_q8"},           {&cpu_k_conv_hybrid, "conv_hybrid"},
  {&cpu_k_fc_hybrid, "fc_hybrid"},         {&cpu_k_dw_hybrid, "dw_hybrid"},
  {&cpu_k_tconv_hybrid, "tconv_hybrid"},   {&cpu_k_bmm_hybrid, "bmm_hybrid"},
};

/* What runs step s: XNNPACK, oneDNN, a fast kernel, or the op's reference kernel. */
static const char *step_kernel_name(const cpu_step *s)
{
  if (s->xnn) return "xnnpack";
  if (s->dnn) return "onednn";
  for (size_t i = 0; i < sizeof fast_names / sizeof fast_names[0]; i++)
    if (s->k == fast_names[i].k) return fast_names[i].name;
  return "reference";
}

/* fast_isa: the CPU's instruction sets in fast mode, NULL in reference mode. */
static tfl_status prepare_kernel(tfl_graph *g, int node, cpu_step *s, const cpu_features *fast_isa, tfl_diag *diag)
{
  const tfl_node *n = &g->nodes[node];
  const cpu_kernel *own = fast_isa ? fast_kernel(fast_isa, g, n) : NULL;
  s->node = node;
  s->span = 1;
  s->k = own ? own : kernel_of(n->op);
  if (!s->k)
    return tfl_fail(diag, TFL_ERR_UNSUPPORTED, "node %d (%s): the CPU delegate has no kernel for this op", node,
                     tfl_op_name(n->op));
  s->state = NULL;
  /* the reference kernel's declared types gate every kernel of the op */
  const cpu_kernel *ref = cpu_reference_kernel(n->op);
  if (ref->types && !(ref->types & CPU_TYPES_ANY) && ref->data_input < n->n_in && n->in[ref->data_input] >= 0) {
    const tfl_tensor *t = &g->tensors[n->in[ref->data_input]];
    if ((unsigned)t->type >= 31 || !(ref->types & CPU_TYPE(t->type))) {
      char list[160];
      cpu_types_str(ref->types, list, sizeof list);
      s->k = NULL;
      return tfl_fail(diag, TFL_ERR_UNSUPPORTED, "node %d (%s): input %d is %s; the CPU kernel takes %s", node,
                      tfl_op_name(n->op), ref->data_input, tfl_type_name(t->type), list);
    }
  }
  tfl_status st = s->k->prepare(g, n, &s->state, diag);
  if (st != TFL_OK) {
    /* a prepare that fails after allocating leaves its state behind: free it here, once,
     * for every kernel (release takes a partly filled state) */
    if (s->state && s->k->release) s->k->release(s->state);
    s->state = NULL;
    s->k = NULL;
    return st;
  }
  return TFL_OK;
}

/* Who runs node part->nodes[i] in fast mode, decided once per partition (the same way
 * for extra_uses and prepare). BY_FUSED: a PAD a oneDNN conv pads for; it does not run. */
typedef enum { BY_KERNEL, BY_XNNPACK, BY_ONEDNN, BY_FUSED } runner;

typedef struct {
  runner *who;   /* [n_nodes of the partition] */
  int32_t *pad;  /* [n_nodes]: BY_ONEDNN: the fused PAD node, else -1 */
  int32_t *add;  /* [n_nodes]: BY_ONEDNN: the fused ADD node, else -1 */
  int32_t *act;  /* [n_nodes]: BY_ONEDNN: the fused activation node, else -1 */
  uint8_t *bf16; /* [n_nodes]: BY_ONEDNN in bf16: BF16_SRC, BF16_DST, BF16_Z (onednn_conv_options) */
  bool *pooled;  /* [n_nodes]: BY_ONEDNN: its fused ADD's addend comes through a MAX_POOL it
                    fuses too (onednn_conv_addend_pool) */
} part_plan;

enum { BF16_SRC = 1, BF16_DST = 2, BF16_Z = 4 };

static onednn_conv_options onednn_options(const cpu_delegate_ctx *c, int pad_node, int add_node, int act_node,
                                          int bf16_links, bool pooled)
{
  return (onednn_conv_options){c->opt.threads, c->opt.precision == CPU_PRECISION_BF16, c->isa, pad_node,
                               (bf16_links & BF16_SRC) != 0, (bf16_links & BF16_DST) != 0, add_node, act_node,
                               (bf16_links & BF16_Z) != 0, pooled};
}

/* Same-shape float ADD/SUB/MUL this XNNPACK would run on one thread (it merges them into
 * one dimension): from 2 threads and 64 KiB our threaded kernel is faster (2.6x on 1.5 MB
 * at 2 threads, docs/cpu-performance.md "Per-op choices"; about even at 1 thread). */
static bool threaded_eltwise(const cpu_delegate_ctx *c, const tfl_graph *g, const tfl_node *n)
{
  if (c->opt.threads < 2 || (n->op != TFL_OP_ADD && n->op != TFL_OP_SUB && n->op != TFL_OP_MUL)) return false;
  if (n->n_in != 2 || n->n_out != 1 || n->in[0] < 0 || n->in[1] < 0 || n->out[0] < 0) return false;
  const tfl_tensor *a = &g->tensors[n->in[0]], *b = &g->tensors[n->in[1]], *y = &g->tensors[n->out[0]];
  if (a->type != TFL_TYPE_FLOAT32 || b->type != TFL_TYPE_FLOAT32 || y->type != TFL_TYPE_FLOAT32) return false;
  if (a->ndim != b->ndim || a->ndim != y->ndim) return false;
  for (int d = 0; d < a->ndim; d++)
    if (a->dims[d] != b->dims[d] || a->dims[d] != y->dims[d]) return false;
  return y->bytes >= 64 * 1024;
}

static runner pick_runner(const cpu_delegate_ctx *c, const tfl_graph *g, int node)
{
  const tfl_node *n = &g->nodes[node];
  const onednn_conv_options o = onednn_options(c, -1, -1, -1, 0, false);
  /* bf16: dense bf16 dot products (2x the fp32 rate) beat the fp32 sparse kernel (1.35x a
   * dense fp32 conv at 75% zeros); the narrow kernel stays first (oneDNN blocks channels) */
  if (c->opt.precision == CPU_PRECISION_BF16 && c->opt.use_onednn && !cpu_conv_narrow_applies(g, n) &&
      !cpu_dwconv_q8_applies(g, n, &c->isa) && onednn_conv_preferred(g, node, &o))
    return BY_ONEDNN;
  if (fast_kernel(&c->isa, g, n) || threaded_eltwise(c, g, n)) return BY_KERNEL;
  if (c->opt.use_onednn && onednn_conv_preferred(g, node, &o)) return BY_ONEDNN;
  return c->opt.use_xnnpack && xnn_partition_supports(g, node) ? BY_XNNPACK : BY_KERNEL;
}

static void plan_free(part_plan *pp)
{
  free(pp->who);
  free(pp->pad);
  free(pp->add);
  free(pp->act);
  free(pp->bf16);
  free(pp->pooled);
}

/* The tensor oneDNN step i reads: its input, or its fused PAD's input. */
static int step_input(const tfl_graph *g, const part_plan *pp, const tfl_partition *part, int i)
{
  const int node = part->nodes[i];
  return pp->pad[i] >= 0 ? g->nodes[pp->pad[i]].in[0] : g->nodes[node].in[0];
}

/* The tensor oneDNN step k adds through its fused ADD (onednn_conv_addend), else -1. */
static int step_addend(const tfl_graph *g, const part_plan *pp, const tfl_partition *part, int k)
{
  int channels;
  return pp->add[k] >= 0 ? onednn_conv_addend(g, part->nodes[k], pp->add[k], &channels) : -1;
}

/* Does fused node r (BY_FUSED) read tensor t through a oneDNN step of this partition: a PAD
 * it pads for (t its input), or an ADD / channel PAD whose addend t it reads itself? */
static bool fused_reader_is_onednn(const tfl_graph *g, const part_plan *pp, const tfl_partition *part, int r, int t)
{
  for (int k = 0; k < part->n_nodes; k++) {
    if (pp->who[k] != BY_ONEDNN) continue;
    if (pp->pad[k] == r && step_input(g, pp, part, k) == t) return true;
    if (pp->add[k] < 0 || step_addend(g, pp, part, k) != t) continue;
    if (pp->add[k] == r) return true;
    const tfl_node *a = &g->nodes[pp->add[k]]; /* or the channel PAD feeding that ADD */
    const int z = a->in[0] == g->nodes[part->nodes[k]].out[0] ? a->in[1] : a->in[0];
    if (g->tensors[z].producer == r) return true;
  }
  return false;
}

/* bf16: a float tensor written by a oneDNN step and read only by oneDNN steps (as their
 * input, or as the addend of their fused ADD) stays bf16 in between: no conversion, half
 * the bytes moved. index: graph node -> partition position (-1 outside). */
static void plan_bf16_links(const tfl_graph *g, const tfl_partition *part, part_plan *pp, const int32_t *index)
{
  for (int i = 0; i < part->n_nodes; i++) {
    if (pp->who[i] != BY_ONEDNN) continue;
    const tfl_node *n = &g->nodes[part->nodes[i]];
    const int y = pp->add[i] >= 0 ? g->nodes[pp->add[i]].out[0] : (n->n_out == 1 ? n->out[0] : -1);
    const int t = pp->act[i] >= 0 ? g->nodes[pp->act[i]].out[0] : y;
    if (t < 0 || g->tensors[t].type != TFL_TYPE_FLOAT32) continue;
    bool ok = true;
    for (int k = 0; k < g->n_outputs && ok; k++) ok = g->outputs[k] != t;
    int readers = 0;
    for (int r = 0; r < g->n_nodes && ok; r++) {
      const tfl_node *rn = &g->nodes[r];
      for (int j = 0; !rn->dead && j < rn->n_in && ok; j++) {
        if (rn->in[j] != t) continue;
        readers++;
        const int ri = index[r];
        ok = ri >= 0 && ((pp->who[ri] == BY_ONEDNN && j == 0) ||
                         (pp->who[ri] == BY_FUSED && fused_reader_is_onednn(g, pp, part, r, t)));
      }
    }
    if (!ok || !readers) continue;
    pp->bf16[i] |= BF16_DST;
    for (int k = 0; k < part->n_nodes; k++) {
      if (pp->who[k] != BY_ONEDNN) continue;
      if (step_input(g, pp, part, k) == t) pp->bf16[k] |= BF16_SRC;
      if (step_addend(g, pp, part, k) == t) pp->bf16[k] |= BF16_Z;
    }
  }
}

/* The channel PAD between a fused ADD and its other addend (onednn_conv_channel_pad), else -1. */
static int add_channel_pad(const tfl_graph *g, int conv, int add)
{
  const tfl_node *a = &g->nodes[add];
  return onednn_conv_channel_pad(g, a->in[0] == g->nodes[conv].out[0] ? a->in[1] : a->in[0]);
}

/* Runners, then the PADs oneDNN convs take over: the PAD must be in this partition. */
static tfl_status plan_partition(const cpu_delegate_ctx *c, const tfl_graph *g, const tfl_partition *part,
                                 part_plan *pp, tfl_diag *diag)
{
  const size_t n = (size_t)(part->n_nodes ? part->n_nodes : 1);
  pp->who = calloc(n, sizeof *pp->who);
  pp->pad = malloc(n * sizeof *pp->pad);
  pp->add = malloc(n * sizeof *pp->add);
  pp->act = malloc(n * sizeof *pp->act);
  pp->bf16 = calloc(n, sizeof *pp->bf16);
  pp->pooled = calloc(n, sizeof *pp->pooled);
  int32_t *index = malloc(sizeof(int32_t) * (size_t)(g->n_nodes ? g->n_nodes : 1));
  if (!pp->who || !pp->pad || !pp->add || !pp->act || !pp->bf16 || !pp->pooled || !index) {
    free(index);
    plan_free(pp);
    return tfl_fail(diag, TFL_ERR_NOMEM, "cpu delegate: plan of %d nodes", part->n_nodes);
  }
  for (int i = 0; i < g->n_nodes; i++) index[i] = -1;
  const bool fast = !c->opt.reference;
  for (int i = 0; i < part->n_nodes; i++) {
    index[part->nodes[i]] = i;
    pp->who[i] = fast ? pick_runner(c, g, part->nodes[i]) : BY_KERNEL;
    pp->pad[i] = pp->add[i] = pp->act[i] = -1;
  }
  for (int i = 0; i < part->n_nodes; i++) {
    if (pp->who[i] != BY_ONEDNN) continue;
    const int p = onednn_conv_fusable_pad(g, part->nodes[i]);
    const int pi = p >= 0 ? index[p] : -1;
    if (pi < 0 || pp->who[pi] == BY_ONEDNN || pp->who[pi] == BY_FUSED) continue;
    const onednn_conv_options o = onednn_options(c, p, -1, -1, 0, false);
    if (!onednn_conv_applies(g, part->nodes[i], &o)) continue;
    pp->who[pi] = BY_FUSED;
    pp->pad[i] = p;
  }
  /* so does our 8-bit stem conv (a 3-channel PAD alone took 2.6 ms on posenet's input) */
  for (int i = 0; fast && i < part->n_nodes; i++) {
    if (pp->who[i] != BY_KERNEL || !cpu_conv_q8_stem_applies(g, &g->nodes[part->nodes[i]], &c->isa)) continue;
    const int p = onednn_conv_fusable_pad(g, part->nodes[i]);
    const int pi = p >= 0 ? index[p] : -1;
    if (pi < 0 || pp->who[pi] == BY_ONEDNN || pp->who[pi] == BY_FUSED) continue;
    pp->who[pi] = BY_FUSED;
    pp->pad[i] = p;
  }
  /* a conv whose output only an ADD reads writes the sum itself (oneDNN binary post-op),
   * also a 1x1 conv XNNPACK would otherwise run: it saves the ADD's pass */
  for (int i = 0; fast && c->opt.use_onednn && i < part->n_nodes; i++) {
    const int node = part->nodes[i];
    if (pp->who[i] != BY_ONEDNN && pp->who[i] != BY_XNNPACK) continue;
    const int a = onednn_conv_fusable_add(g, node);
    const int ai = a >= 0 ? index[a] : -1;
    if (ai < 0 || (pp->who[ai] != BY_XNNPACK && pp->who[ai] != BY_KERNEL)) continue;
    /* a channel PAD on the other addend is absorbed too: it must be ours to skip */
    const int cp = add_channel_pad(g, node, a);
    const int cpi = cp >= 0 ? index[cp] : -1;
    if (cp >= 0 && (cpi < 0 || (pp->who[cpi] != BY_XNNPACK && pp->who[cpi] != BY_KERNEL))) continue;
    /* and a MAX_POOL 2x2/2 before that PAD (stride-2 blocks), where it is ours to skip */
    const int mp = cp >= 0 ? onednn_conv_addend_pool(g, cp) : -1;
    const int mpi = mp >= 0 ? index[mp] : -1;
    const bool pooled = mpi >= 0 && (pp->who[mpi] == BY_XNNPACK || pp->who[mpi] == BY_KERNEL);
    const onednn_conv_options o = onednn_options(c, pp->pad[i], a, -1, 0, pooled);
    if (!onednn_conv_applies(g, node, &o)) continue;
    pp->who[i] = BY_ONEDNN;
    pp->who[ai] = BY_FUSED;
    if (cpi >= 0) pp->who[cpi] = BY_FUSED;
    if (pooled) pp->who[mpi] = BY_FUSED;
    pp->pooled[i] = pooled;
    pp->add[i] = a;
  }
  /* then the activation node after it (or after its ADD): a post-op */
  for (int i = 0; fast && i < part->n_nodes; i++) {
    if (pp->who[i] != BY_ONEDNN) continue;
    const int node = part->nodes[i];
    const int t = pp->add[i] >= 0 ? g->nodes[pp->add[i]].out[0] : g->nodes[node].out[0];
    const int a = onednn_conv_fusable_act(g, t);
    const int ai = a >= 0 ? index[a] : -1;
    if (ai < 0 || (pp->who[ai] != BY_XNNPACK && pp->who[ai] != BY_KERNEL)) continue;
    const onednn_conv_options o = onednn_options(c, pp->pad[i], pp->add[i], a, 0, pp->pooled[i]);
    if (!onednn_conv_applies(g, node, &o)) continue;
    pp->who[ai] = BY_FUSED;
    pp->act[i] = a;
  }
  if (c->opt.precision == CPU_PRECISION_BF16) plan_bf16_links(g, part, pp, index);
  free(index);
  return TFL_OK;
}

/* Length of the run of XNNPACK nodes starting at index i (0: none). */
static int xnn_run_length(const runner *who, int n_nodes, int i, bool one_node)
{
  int k = i;
  while (k < n_nodes && who[k] == BY_XNNPACK) k++;
  if (one_node && k > i) return 1;
  return k - i;
}

/* tfl_delegate.extra_uses: fused PADs' inputs read when their oneDNN conv runs; the moves
 * of XNNPACK's own fusions inside each run. */
static int cpu_extra_uses(void *vctx, const tfl_graph *g, const tfl_partition *part, tfl_extra_use *uses, int max)
{
  cpu_delegate_ctx *c = vctx;
  part_plan pp;
  if (c->opt.reference || plan_partition(c, g, part, &pp, NULL) != TFL_OK) return 0;
  int n = 0;
  for (int i = 0; i < part->n_nodes;) {
    if (pp.pad[i] >= 0) {
      if (n < max) uses[n] = (tfl_extra_use){part->nodes[i], g->nodes[pp.pad[i]].in[0]};
      n++;
    }
    if (pp.add[i] >= 0) { /* the ADD's output is written when the conv runs */
      if (n < max) uses[n] = (tfl_extra_use){part->nodes[i], g->nodes[pp.add[i]].out[0]};
      n++;
      const int cp = add_channel_pad(g, part->nodes[i], pp.add[i]);
      if (cp >= 0) { /* and a channel PAD's input read (the PAD may come before the conv) */
        const int t = pp.pooled[i] ? g->nodes[onednn_conv_addend_pool(g, cp)].in[0] : g->nodes[cp].in[0];
        if (n < max) uses[n] = (tfl_extra_use){part->nodes[i], t}; /* or its MAX_POOL's */
        n++;
      }
    }
    if (pp.act[i] >= 0) { /* and the activation's */
      if (n < max) uses[n] = (tfl_extra_use){part->nodes[i], g->nodes[pp.act[i]].out[0]};
      n++;
    }
    const int run = xnn_run_length(pp.who, part->n_nodes, i, c->opt.xnn_one_node);
    if (run > 0) {
      n += xnn_partition_extra_uses(g, part->nodes + i, run, n < max ? uses + n : NULL, n < max ? max - n : 0);
      i += run;
    } else {
      i++;
    }
  }
  plan_free(&pp);
  return n;
}

static tfl_status cpu_prepare(void *vctx, tfl_graph *g, const tfl_partition *part, void **state)
{
  cpu_delegate_ctx *c = vctx;
  *state = NULL;
  cpu_part *p = calloc(1, sizeof *p);
  if (p) p->steps = calloc((size_t)(part->n_nodes ? part->n_nodes : 1), sizeof *p->steps);
  if (!p || !p->steps) {
    free(p);
    return tfl_fail(part->diag, TFL_ERR_NOMEM, "cpu delegate: partition of %d nodes", part->n_nodes);
  }
  p->g = g;
  p->diag = part->diag;
  const cpu_features *fast = c->opt.reference ? NULL : &c->isa;
  part_plan pp;
  tfl_status pst = plan_partition(c, g, part, &pp, part->diag);
  if (pst != TFL_OK) {
    cpu_release(c, p);
    return pst;
  }
  const runner *who = pp.who;
  tfl_status st = TFL_OK;
  for (int i = 0; i < part->n_nodes && st == TFL_OK;) {
    if (who[i] == BY_FUSED) { /* a PAD its conv pads for (oneDNN or the stem kernel) */
      i++;
      continue;
    }
    if (who[i] == BY_ONEDNN) {
      cpu_step *s = &p->steps[p->n_steps];
      s->node = part->nodes[i];
      s->span = 1;
      const onednn_conv_options o = onednn_options(c, pp.pad[i], pp.add[i], pp.act[i], pp.bf16[i], pp.pooled[i]);
      tfl_diag why; /* a refusal is only a warning: keep it out of the interpreter's error */
      tfl_diag_init(&why);
      st = onednn_conv_create(g, part->nodes[i], &o, &s->dnn, &why);
      if (st == TFL_OK) {
        p->n_steps++;
        i++;
        continue;
      }
      if (pp.bf16[i]) { /* its neighbours pass bf16 through it: no float kernel can step in */
        st = tfl_fail(p->diag, st, "node %d: oneDNN refused it after planning bf16 tensors around it: %s",
                      part->nodes[i], why.error);
        break;
      }
      /* oneDNN refused it after all: the kernels take it (and the PAD it was to absorb,
       * whose input the planner kept alive until here) */
      tfl_logf(p->diag, TFL_LOG_WARNING, "oneDNN could not take node %d (%s); using the CPU kernel",
               part->nodes[i], why.error);
      st = TFL_OK; /* (the refusal is not this partition's error) */
      if (pp.pad[i] >= 0) {
        st = prepare_kernel(g, pp.pad[i], s, fast, p->diag);
        if (st == TFL_OK) s = &p->steps[++p->n_steps];
      }
      if (st == TFL_OK) st = prepare_kernel(g, part->nodes[i], s, fast, p->diag);
      const int cp = pp.add[i] >= 0 ? add_channel_pad(g, part->nodes[i], pp.add[i]) : -1;
      if (st == TFL_OK && pp.pooled[i]) { /* the MAX_POOL before that PAD */
        s = &p->steps[++p->n_steps];
        st = prepare_kernel(g, onednn_conv_addend_pool(g, cp), s, fast, p->diag);
      }
      if (st == TFL_OK && cp >= 0) { /* the channel PAD on its other addend */
        s = &p->steps[++p->n_steps];
        st = prepare_kernel(g, cp, s, fast, p->diag);
      }
      if (st == TFL_OK && pp.add[i] >= 0) { /* and the ADD, at the conv's turn (its inputs exist) */
        s = &p->steps[++p->n_steps];
        st = prepare_kernel(g, pp.add[i], s, fast, p->diag);
      }
      if (st == TFL_OK && pp.act[i] >= 0) { /* and the activation */
        s = &p->steps[++p->n_steps];
        st = prepare_kernel(g, pp.act[i], s, fast, p->diag);
      }
      if (st == TFL_OK) p->n_steps++;
      i++;
      continue;
    }
    int run = fast ? xnn_run_length(who, part->n_nodes, i, c->opt.xnn_one_node) : 0;
    if (run > 0) {
      cpu_step *s = &p->steps[p->n_steps];
      s->node = part->nodes[i];
      s->span = run;
      tfl_diag why; /* a refusal is only a warning: keep it out of the interpreter's error */
      tfl_diag_init(&why);
      st = xnn_partition_create(g, part->nodes + i, run, cpu_ctx_pool(c->ctx), &s->xnn, &why);
      if (st == TFL_OK) {
        p->n_steps++;
        i += run;
        continue;
      }
      /* XNNPACK refused the subgraph (an op variant it lacks): our kernels take the run */
      tfl_logf(p->diag, TFL_LOG_WARNING, "XNNPACK could not take nodes %d..%d (%s); using the CPU kernels",
               part->nodes[i], part->nodes[i + run - 1], why.error);
      s->xnn = NULL;
      st = TFL_OK;
      for (int k = 0; k < run && st == TFL_OK; k++) {
        st = prepare_kernel(g, part->nodes[i + k], &p->steps[p->n_steps], fast, p->diag);
        if (st == TFL_OK) p->n_steps++;
      }
      i += run;
      continue;
    }
    cpu_step *s = &p->steps[p->n_steps];
    st = prepare_kernel(g, part->nodes[i], s, fast, p->diag);
    if (st == TFL_OK && pp.pad[i] >= 0) st = cpu_conv_q8_stem_fuse_pad(s->state, g, pp.pad[i], p->diag);
    if (st == TFL_OK) p->n_steps++;
    i++;
  }
  plan_free(&pp);
  if (st != TFL_OK) {
    cpu_release(c, p);
    return st;
  }
  *state = p;
  return TFL_OK;
}

static double clock_ms(clockid_t id)
{
  struct timespec ts;
  clock_gettime(id, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static tfl_status cpu_invoke(void *vctx, void *vstate)
{
  cpu_delegate_ctx *c = vctx;
  cpu_part *p = vstate;
  cpu_profile *prof = c->opt.profile;
  for (int i = 0; i < p->n_steps; i++) {
    cpu_step *s = &p->steps[i];
    const double t0 = prof ? clock_ms(CLOCK_MONOTONIC) : 0;
    const double c0 = prof && prof->cpu_ms ? clock_ms(CLOCK_THREAD_CPUTIME_ID) : 0;
    tfl_status st;
    if (s->xnn) {
      st = xnn_partition_run(s->xnn, p->diag);
    } else if (s->dnn) {
      st = onednn_conv_run(s->dnn, c->ctx, p->diag);
    } else {
      const tfl_node *n = &p->g->nodes[s->node];
      st = s->k->eval(p->g, n, s->state, c->ctx, p->diag);
    }
    if (st != TFL_OK) return tfl_fail_prefix(p->diag, st, "node %d (%s)", s->node, tfl_op_name(p->g->nodes[s->node].op));
    if (prof && s->node < prof->n_nodes) {
      prof->ms[s->node] += clock_ms(CLOCK_MONOTONIC) - t0;
      if (prof->cpu_ms) prof->cpu_ms[s->node] += clock_ms(CLOCK_THREAD_CPUTIME_ID) - c0;
      prof->span[s->node] = s->span;
      if (prof->kernel) prof->kernel[s->node] = step_kernel_name(s);
    }
  }
  return TFL_OK;
}

static void cpu_destroy(tfl_delegate *d)
{
  if (!d) return;
  cpu_delegate_ctx *c = d->ctx;
  if (c) cpu_ctx_free(c->ctx);
  free(c);
  free(d);
}

static tfl_status cpu_output_bytes_of(void *vctx, void *vstate, int tensor, const tfl_export *e, size_t *need)
{
  (void)vctx;
  const cpu_part *p = vstate;
  return cpu_output_bytes(p->g, p->diag, tensor, e, need);
}

static tfl_status cpu_export_output_of(void *vctx, void *vstate, int tensor, const tfl_export *e, tfl_buffer *dst)
{
  (void)vctx;
  const cpu_part *p = vstate;
  return cpu_export_output(p->g, p->diag, tensor, e, dst);
}

tfl_delegate *cpu_delegate_create(const cpu_delegate_options *opt)
{
  cpu_delegate_options o = opt ? *opt : cpu_delegate_defaults();
  if (o.threads < 1) o.threads = 1;
  if (o.reference) o.threads = 1;
  tfl_delegate *d = calloc(1, sizeof *d);
  cpu_delegate_ctx *c = calloc(1, sizeof *c);
  if (c) {
    c->opt = o;
    c->isa = cpu_features_detect();
    c->ctx = cpu_ctx_create(o.threads);
  }
  if (!d || !c || !c->ctx) {
    if (c) cpu_ctx_free(c->ctx);
    free(c);
    free(d);
    tfl_fail(o.diag, TFL_ERR_NOMEM, "cpu delegate: context for %d threads", o.threads);
    return NULL;
  }
  if (o.threads > 1)
    tfl_logf(o.diag, TFL_LOG_INFO, "cpu delegate: %d threads; XNNPACK runs on %s", o.threads,
             cpu_ctx_xnnpack_on_own_pool(c->ctx) ? "the delegate's pool"
                                                 : "a pthreadpool of its own (libpthreadpool comes first in this process)");
  d->name = "cpu";
  d->ctx = c;
  d->supports = cpu_supports;
  d->extra_uses = cpu_extra_uses;
  d->prepare = cpu_prepare;
  d->invoke = cpu_invoke;
  d->release = cpu_release;
  d->output_bytes = cpu_output_bytes_of;
  d->export_output = cpu_export_output_of;
  d->destroy = cpu_destroy;
  return d;
}
