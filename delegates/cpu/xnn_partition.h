/* xnn_partition.h - one XNNPACK subgraph for a run of consecutive float or 8-bit nodes.
 *
 *   if (xnn_partition_supports(g, i)) ... collect a run of such nodes ...
 *   xnn_partition *p;  xnn_partition_create(g, nodes, n, cpu_ctx_pool(ctx), &p);
 *   xnn_partition_run(p);   // per inference, no allocation
 *   xnn_partition_free(p);
 *
 * Tensors read from outside the run, graph outputs and tensors read by later nodes
 * are bound to tensor->data at create time: activation data pointers must be fixed
 * (planned) before create and stay put while p lives. Constants are read in place
 * (weights are packed by XNNPACK at create). The graph and the pool must outlive p.
 */
#ifndef XNN_PARTITION_H
#define XNN_PARTITION_H

#include <pthreadpool.h>
#include <stdbool.h>
#include <stdint.h>

#include "../../runtime/tfl_delegate.h"

typedef struct xnn_partition xnn_partition;

/* Can node `node` of g run inside an XNNPACK subgraph? float32 nodes, and 8-bit ones
 * (uint8 per tensor as quint8; int8 per tensor as qint8, with int8 per-channel weights as
 * qcint8) where XNNPACK's mapping agrees with TFLite's within 1 LSB. */
bool xnn_partition_supports(const tfl_graph *g, int node);
/* Builds, plans and sets up the subgraph of nodes[0..n_nodes) (execution order).
 * pool may be NULL (single thread). Failures say why in diag (may be NULL). */
tfl_status xnn_partition_create(tfl_graph *g, const int32_t *nodes, int n_nodes, pthreadpool_t pool,
                                xnn_partition **out, tfl_diag *diag);
tfl_status xnn_partition_run(xnn_partition *p, tfl_diag *diag);
/* The reads and writes XNNPACK may move when it fuses nodes of the run nodes[0..n_nodes)
 * (a clamp into the node before it, a PAD into the conv after it), as (node, tensor)
 * pairs for the arena planner (tfl_delegate.extra_uses): at most max into uses; returns
 * how many there are. */
int xnn_partition_extra_uses(const tfl_graph *g, const int32_t *nodes, int n_nodes, tfl_extra_use *uses, int max);
void xnn_partition_free(xnn_partition *p);

#endif
