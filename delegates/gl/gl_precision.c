/* gl_precision.c - fp16 mode: which activations stay 32-bit ("wide").
 *
 * Measured on the real models against the CPU (tests/gl/test_gl_models.c, worst element
 * over each output's range; docs/gl-performance.md): the segmentation and landmark
 * models amplify activation rounding about a hundredfold. Rounding only the input of
 * selfie_segmentation to halves moves its mask by 0.016; rounding any one of a dozen
 * of its intermediate tensors moves it by 0.005-0.03 each, all of them by 0.05-0.16.
 * With every activation 32-bit the worst element is 2.5e-4 (the halves of the output
 * itself). So by default every activation is wide, partition outputs too (large graph
 * outputs travel to the host as halves, those other partitions read as floats:
 * gl_part.h dense_float; the mask export reads either). fp16 mode keeps its 16-bit
 * weights (gl_consts.h), most of the bytes a dispatch reads.
 * With `half_activations` (for measuring what accuracy costs) activations are halves
 * (partition outputs always) except the partition inputs, vectors of one pixel (pooled means, squeeze-excite
 * scales: one rounding reaches a whole feature map), logits (inputs and outputs of
 * sigmoid, softmax, tanh) and, with `wide_residuals`, residual sums. */
#include "gl_plan_int.h"

static bool residual_sum(const planner *p, int ni)
{
  const tfl_node *n = &p->g->nodes[ni];
  return (n->op == TFL_OP_ADD || n->op == TFL_OP_SUB) && n->n_in >= 2 && n->in[0] >= 0 && n->in[1] >= 0 &&
         !p->g->tensors[n->in[0]].is_const && !p->g->tensors[n->in[1]].is_const;
}

static bool squashes(tfl_op op)
{
  return op == TFL_OP_LOGISTIC || op == TFL_OP_SOFTMAX || op == TFL_OP_TANH;
}

static bool squash_act(const tfl_node *n)
{
  tfl_activation a = TFL_ACT_NONE;
  if (n->op == TFL_OP_CONV_2D || n->op == TFL_OP_DEPTHWISE_CONV_2D || n->op == TFL_OP_TRANSPOSE_CONV) a = n->p.conv.act;
  else if (n->op == TFL_OP_FULLY_CONNECTED) a = n->p.fc.act;
  return a == TFL_ACT_SIGMOID || a == TFL_ACT_TANH;
}

/* The group applies a squashing function or feeds one: its values are logits. */
static bool makes_logits(const planner *p, const group *G)
{
  const tfl_graph *g = p->g;
  if (squashes(g->nodes[G->node].op) || squash_act(&g->nodes[G->node])) return true;
  for (int e = 0; e < G->n_epi; e++)
    if (squashes(g->nodes[G->epi[e]].op)) return true;
  for (int i = 0; i < g->n_nodes; i++) {
    const tfl_node *n = &g->nodes[i];
    if (n->dead || !squashes(n->op) || n->n_in < 1 || n->in[0] < 0) continue;
    if (gl_plan_root(p, n->in[0]) == gl_plan_root(p, G->out)) return true;
  }
  return false;
}

static bool is_boundary_out(const planner *p, int r)
{
  for (int i = 0; i < p->part->n_outputs; i++)
    if (gl_plan_root(p, p->part->outputs[i]) == r) return true;
  for (int i = 0; i < p->n_wb; i++)
    if (gl_plan_root(p, p->wb_src[i]) == r) return true;
  return false;
}

static void set_wide(planner *p, gl_plan *plan, int r)
{
  if (p->wide[r] || (p->o.tune.half_activations && is_boundary_out(p, r))) return;
  p->wide[r] = true;
  plan->n_wide++;
}

void gl_precision_mark(planner *p, gl_plan *plan)
{
  if (!p->o.fp16) return;
  bool half = p->o.tune.half_activations;
  for (int i = 0; i < p->part->n_inputs; i++) {
    const tfl_tensor *t = &p->g->tensors[p->part->inputs[i]];
    if (!t->is_const) set_wide(p, plan, gl_plan_root(p, p->part->inputs[i]));
  }
  for (int gi = 0; gi < p->n_groups; gi++) {
    const group *G = &p->groups[gi];
    if (!gl_group_dispatched(G)) continue; /* never stored */
    int r = gl_plan_root(p, G->dest >= 0 ? G->dest : G->out);
    if (G->sib >= 0) { /* the paired convolution's output */
      const group *B = &p->groups[G->sib];
      set_wide(p, plan, gl_plan_root(p, B->dest >= 0 ? B->dest : B->out));
    }
    bool wide = !half || makes_logits(p, G) || (p->o.tune.wide_residuals && residual_sum(p, G->node));
    for (int k = 0; k < G->n_epi; k++) wide = wide || (p->o.tune.wide_residuals && residual_sum(p, G->epi[k]));
    gl_shape sh;
    gl_shape_of(&p->g->tensors[G->out], &sh);
    /* SSD_CLASS_NMS's selections hold anchor numbers: exact only in 32 bits */
    if (wide || sh.h * sh.w == 1 || p->g->nodes[G->node].op == TFL_OP_SSD_CLASS_NMS) set_wide(p, plan, r);
    for (int e = 0; e < G->n_epi && !half; e++) /* values stored mid-chain */
      if (G->keep[e] >= 0) set_wide(p, plan, G->keep[e]);
    const tfl_node *n = &p->g->nodes[G->node];
    for (int k = 1; k < n->n_out && !half; k++) /* extra outputs of multi-output nodes */
      if (n->out[k] >= 0) set_wide(p, plan, gl_plan_root(p, n->out[k]));
  }
}
