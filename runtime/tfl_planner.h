/* tfl_planner.h - gives every activation tensor an offset in one arena.
 *
 *   tfl_plan_item it[n];      // size and first/last step each tensor is alive
 *   size_t off[n];  size_t arena = tfl_plan_offsets(it, n, 64, off, diag);
 *
 * Algorithm (greedy by size, as TFLite Micro's greedy planner): items are placed from
 * the largest down. Each goes at the lowest 64-byte aligned offset where it overlaps
 * no already placed item whose lifetime [first, last] intersects its own; placed
 * items are kept sorted by offset, so one forward scan finds the first gap that fits.
 * Tensors alive at disjoint times thus share bytes; the arena is the highest end.
 * O(n^2) for n tensors, a few hundred in real models.
 *
 * tfl_plan_graph derives lifetimes from a graph: steps are node indices + 1; graph
 * inputs live from step 0 (a subgraph's, which control nodes write, to the end as well),
 * graph outputs to the end, variable tensors the whole run.
 * Constants and tensors no live node touches are not planned.
 */
#ifndef TFL_PLANNER_H
#define TFL_PLANNER_H

#include "tfl_delegate.h"

#define TFL_ARENA_ALIGN 64
/* Slack after the arena's last byte: vectorized kernels (XNNPACK's XNN_EXTRA_BYTES is 16)
 * may read a little past the end of an input tensor. Inside the arena that only reads
 * a neighbour's bytes; at its end it needs this tail. */
#define TFL_ARENA_TAIL 64

typedef struct {
  size_t size;      /* bytes; 0: not planned (offset 0, takes no space) */
  int first, last;  /* inclusive range of steps during which the bytes must be kept */
} tfl_plan_item;

/* Fills offsets[0..n) (each a multiple of align, a power of two) and returns the
 * arena size (0 when nothing is planned). SIZE_MAX on OOM (last error set). */
size_t tfl_plan_offsets(const tfl_plan_item *items, int n, size_t align, size_t *offsets, tfl_diag *diag);

/* Plans g: sets tensor->arena_offset and planned[t] (array of n_tensors, caller's)
 * for every activation tensor; *arena_bytes gets the arena size.
 * Tensors RESHAPE/SQUEEZE only re-label may share their input's bytes (alias): then
 * planned[t] is true and arena_offset equals the input's.
 * extra[0..n_extra): delegates' fused reads and writes (tfl_delegate.extra_uses): each
 * widens its tensor's lifetime to its node's step; NULL/0: none. */
tfl_status tfl_plan_graph(tfl_graph *g, const tfl_extra_use *extra, int n_extra, bool *planned,
                          size_t *arena_bytes, tfl_diag *diag);

#endif
