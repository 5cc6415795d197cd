/* tfl_densify.h - expands a sparse constant (TFLite's SparsityParameters) to dense.
 *
 * The stored format walks "levels": the tensor's n dims plus one per block dim, in
 * sparsity->traversal_order. A DENSE level enumerates all its positions; a
 * SPARSE_CSR level lists, per position of the levels above, the present indices
 * (segments[p]..segments[p+1] into indices[]). The value index of a leaf is the
 * running position (dense: pos * size + i; sparse: k), so values sit in traversal
 * order. Block dim b adds its coordinate to dimension block_map[b], whose own level
 * then counts whole blocks (dims[d] / block size).
 */
#ifndef TFL_DENSIFY_H
#define TFL_DENSIFY_H

#include "tfl_graph.h"

/* Writes the dense form of `t` (t->sparsity set, t->data the stored values) into
 * `dense` (t->bytes, row-major over t->dims); absent entries are zero bytes.
 * `stored_values` is how many values t->data holds: every leaf index is checked
 * against it, and the index structure against the shape. */
tfl_status tfl_densify(const tfl_tensor *t, size_t stored_values, void *dense, tfl_diag *diag);

/* Values the index structure of `t` addresses (what t->data must hold); -1 if the
 * structure is inconsistent (last error set). */
int64_t tfl_sparse_value_count(const tfl_tensor *t, tfl_diag *diag);

#endif
