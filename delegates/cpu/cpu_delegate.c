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

#include "cpu_kernel.h"
#include "kernels/conv_sparse1x1.h"
#include "xnn_partition.h"

typedef struct {
  cpu_delegate_options opt;
  cpu_ctx *ctx;          /* threads shared by every partition of this delegate */
} cpu_delegate_ctx;

typedef struct {
  int node;              /* first node of the step */
  const cpu_kernel *k;   /* kernel step; NULL for an XNNPACK step */
  void *state;
  xnn_partition *xnn;
} cpu_step;

typedef struct {
  const tfl_graph *g;
  tfl_diag *diag;        /* the interpreter's (tfl_partition.diag) */
  int n_steps;
  cpu_step *steps;
} cpu_part;

cpu_delegate_options cpu_delegate_defaults(void)
{
  return (cpu_delegate_options){.threads = 1, .reference = false, .use_xnnpack = true};
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
    if (s->k && s->k->release) s->k->release(s->state);
  }
  free(p->steps);
  free(p);
}

/* fast: sparse 1x1 convs get their own kernel (XNNPACK leaves them to it). */
static tfl_status prepare_kernel(tfl_graph *g, int node, cpu_step *s, bool fast, tfl_diag *diag)
{
  const tfl_node *n = &g->nodes[node];
  s->node = node;
  s->k = fast && cpu_conv_sparse1x1_applies(g, n) ? &cpu_k_conv_sparse1x1 : kernel_of(n->op);
  if (!s->k)
    return tfl_fail(diag, TFL_ERR_UNSUPPORTED, "node %d (%s): the CPU delegate has no kernel for this op", node,
                     tfl_op_name(n->op));
  tfl_status st = s->k->prepare(g, n, &s->state, diag);
  if (st != TFL_OK) {
    s->k = NULL; /* nothing to release */
    return st;
  }
  return TFL_OK;
}

/* Length of the run of XNNPACK nodes starting at part->nodes[i] (0: none). */
static int xnn_run_length(const tfl_graph *g, const tfl_partition *part, int i)
{
  int k = i;
  while (k < part->n_nodes && xnn_partition_supports(g, part->nodes[k])) k++;
  return k - i;
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
  bool fast = !c->opt.reference && c->opt.use_xnnpack;
  tfl_status st = TFL_OK;
  for (int i = 0; i < part->n_nodes && st == TFL_OK;) {
    int run = fast ? xnn_run_length(g, part, i) : 0;
    if (run > 0) {
      cpu_step *s = &p->steps[p->n_steps];
      s->node = part->nodes[i];
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
    st = prepare_kernel(g, part->nodes[i], &p->steps[p->n_steps], fast, p->diag);
    if (st == TFL_OK) p->n_steps++;
    i++;
  }
  if (st != TFL_OK) {
    cpu_release(c, p);
    return st;
  }
  *state = p;
  return TFL_OK;
}

static tfl_status cpu_invoke(void *vctx, void *vstate)
{
  cpu_delegate_ctx *c = vctx;
  cpu_part *p = vstate;
  for (int i = 0; i < p->n_steps; i++) {
    cpu_step *s = &p->steps[i];
    tfl_status st;
    if (s->xnn) {
      st = xnn_partition_run(s->xnn, p->diag);
    } else {
      const tfl_node *n = &p->g->nodes[s->node];
      st = s->k->eval(p->g, n, s->state, c->ctx, p->diag);
    }
    if (st != TFL_OK) return tfl_fail_prefix(p->diag, st, "node %d (%s)", s->node, tfl_op_name(p->g->nodes[s->node].op));
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

tfl_delegate *cpu_delegate_create(const cpu_delegate_options *opt)
{
  cpu_delegate_options o = opt ? *opt : cpu_delegate_defaults();
  if (o.threads < 1) o.threads = 1;
  if (o.reference) o.threads = 1;
  tfl_delegate *d = calloc(1, sizeof *d);
  cpu_delegate_ctx *c = calloc(1, sizeof *c);
  if (c) {
    c->opt = o;
    c->ctx = cpu_ctx_create(o.threads);
  }
  if (!d || !c || !c->ctx) {
    if (c) cpu_ctx_free(c->ctx);
    free(c);
    free(d);
    tfl_fail(o.diag, TFL_ERR_NOMEM, "cpu delegate: context for %d threads", o.threads);
    return NULL;
  }
  d->name = "cpu";
  d->ctx = c;
  d->supports = cpu_supports;
  d->prepare = cpu_prepare;
  d->invoke = cpu_invoke;
  d->release = cpu_release;
  d->destroy = cpu_destroy;
  return d;
}
