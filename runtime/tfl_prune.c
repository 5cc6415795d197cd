/* tfl_prune.c - drops nodes whose results nothing reads (tfl_passes.h).
 *
 * Nodes are in execution order, so one backward walk settles it: by the time a node is
 * reached, every node that could read its outputs has been decided.
 */
#include <stdlib.h>

#include "tfl_passes.h"

int tfl_pass_prune(tfl_graph *g)
{
  int nt = g->n_tensors, pruned = 0;
  uint8_t *read = calloc((size_t)(nt ? nt : 1), 1);
  if (!read) return 0; /* nothing pruned: correct, only slower */
  for (int i = 0; i < g->n_outputs; i++)
    if (g->outputs[i] >= 0 && g->outputs[i] < nt) read[g->outputs[i]] = 1;
  for (int ni = g->n_nodes - 1; ni >= 0; ni--) {
    tfl_node *n = &g->nodes[ni];
    if (n->dead) continue;
    bool needed = false;
    for (int k = 0; k < n->n_out && !needed; k++) needed = n->out[k] >= 0 && n->out[k] < nt && read[n->out[k]];
    for (int k = 0; k < n->n_in && !needed; k++)
      needed = n->in[k] >= 0 && n->in[k] < nt && g->tensors[n->in[k]].is_variable;
    /* CALL_ONCE has no outputs: its init subgraph's effects are state, as TFLite runs it */
    needed = needed || n->op == TFL_OP_CALL_ONCE;
    if (!needed) {
      n->dead = true;
      pruned++;
      continue;
    }
    for (int k = 0; k < n->n_in; k++)
      if (n->in[k] >= 0 && n->in[k] < nt) read[n->in[k]] = 1;
  }
  free(read);
  return pruned;
}
