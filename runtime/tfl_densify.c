/* tfl_densify.c - see tfl_densify.h. The walk is recursive over at most 12 levels. */
#include "tfl_densify.h"

#include <string.h>

typedef struct {
  const tfl_tensor *t;
  const tfl_sparsity *s;
  int64_t level_size[2 * TFL_MAX_DIMS];
  int32_t block_of[TFL_MAX_DIMS];   /* block size of each original dim (1: not blocked) */
  int32_t coord[2 * TFL_MAX_DIMS];  /* coordinate at each level */
  size_t elem, stored;
  uint8_t *dense;
  bool bad;
  tfl_diag *diag;
} walk;

/* Level sizes as traversed: dims / block size, or a block dim's size. */
static tfl_status level_sizes(walk *w)
{
  tfl_diag *diag = w->diag;
  const tfl_tensor *t = w->t;
  const tfl_sparsity *s = w->s;
  int nd = t->ndim;
  if (s->n_block < 0 || s->n_block > TFL_MAX_DIMS || s->n_traversal != nd + s->n_block)
    return tfl_fail(diag, TFL_ERR_FORMAT, "tensor %s: %d traversal levels for %d dims and %d blocks",
                     t->name ? t->name : "", s->n_traversal, nd, s->n_block);
  for (int d = 0; d < nd; d++) w->block_of[d] = 1;
  for (int k = 0; k < s->n_traversal; k++) {
    int o = s->traversal_order[k];
    if (o < 0 || o >= s->n_traversal)
      return tfl_fail(diag, TFL_ERR_FORMAT, "tensor %s: traversal_order[%d] = %d out of range",
                       t->name ? t->name : "", k, o);
    if (o >= nd) {
      int b = o - nd, d = s->block_map[b];
      if (d < 0 || d >= nd || s->dim[k].format != TFL_DIM_DENSE || s->dim[k].dense_size < 1)
        return tfl_fail(diag, TFL_ERR_FORMAT, "tensor %s: block dim %d (maps to %d) must be dense and sized",
                         t->name ? t->name : "", b, d);
      w->block_of[d] *= s->dim[k].dense_size;
    }
  }
  for (int k = 0; k < s->n_traversal; k++) {
    int o = s->traversal_order[k];
    if (o < nd) {
      if (w->block_of[o] < 1 || t->dims[o] % w->block_of[o])
        return tfl_fail(diag, TFL_ERR_FORMAT, "tensor %s: dim %d (%d) not divisible by block size %d",
                         t->name ? t->name : "", o, t->dims[o], w->block_of[o]);
      w->level_size[k] = t->dims[o] / w->block_of[o];
    } else {
      w->level_size[k] = s->dim[k].dense_size;
    }
    if (s->dim[k].format == TFL_DIM_DENSE && s->dim[k].dense_size != w->level_size[k])
      return tfl_fail(diag, TFL_ERR_FORMAT, "tensor %s: level %d dense_size %d, expected %lld",
                       t->name ? t->name : "", k, s->dim[k].dense_size, (long long)w->level_size[k]);
  }
  return TFL_OK;
}

int64_t tfl_sparse_value_count(const tfl_tensor *t, tfl_diag *diag)
{
  walk w = {.t = t, .s = t->sparsity, .diag = diag};
  if (!w.s) return (int64_t)tfl_tensor_count(t);
  if (level_sizes(&w) != TFL_OK) return -1;
  int64_t count = 1;
  for (int k = 0; k < w.s->n_traversal; k++) {
    const tfl_dim_meta *m = &w.s->dim[k];
    if (m->format == TFL_DIM_DENSE) {
      count *= w.level_size[k];
      continue;
    }
    if (!m->segments || m->n_segments != count + 1 || m->n_indices < 0 ||
        m->segments[count] != m->n_indices || (m->n_indices && !m->indices)) {
      tfl_fail(diag, TFL_ERR_FORMAT, "tensor %s: level %d has %d segments ending at %d for %lld positions "
                "and %d indices", t->name ? t->name : "", k, m->n_segments,
                m->n_segments > 0 && m->segments ? m->segments[m->n_segments - 1] : -1,
                (long long)count, m->n_indices);
      return -1;
    }
    count = m->n_indices;
  }
  return count;
}

/* Stores value `leaf` at the dense position of the current coordinates. */
static void emit(walk *w, size_t leaf)
{
  const tfl_tensor *t = w->t;
  const tfl_sparsity *s = w->s;
  int nd = t->ndim;
  int64_t orig[TFL_MAX_DIMS] = {0};
  /* a blocked dim's own level counts blocks; its block dims fill in inside the block */
  int64_t inner[TFL_MAX_DIMS];
  for (int d = 0; d < nd; d++) inner[d] = w->block_of[d];
  for (int k = 0; k < s->n_traversal; k++) {
    int o = s->traversal_order[k];
    if (o < nd) orig[o] += (int64_t)w->coord[k] * w->block_of[o];
  }
  /* several blocks on one dim nest in block_map order: outer block first */
  for (int b = 0; b < s->n_block; b++) {
    int d = s->block_map[b];
    for (int k = 0; k < s->n_traversal; k++)
      if (s->traversal_order[k] == nd + b) {
        inner[d] /= s->dim[k].dense_size;
        orig[d] += (int64_t)w->coord[k] * inner[d];
      }
  }
  size_t pos = 0;
  for (int d = 0; d < nd; d++) {
    if (orig[d] < 0 || orig[d] >= t->dims[d]) {
      w->bad = true;
      return;
    }
    pos = pos * (size_t)t->dims[d] + (size_t)orig[d];
  }
  if (leaf >= w->stored) {
    w->bad = true;
    return;
  }
  memcpy(w->dense + pos * w->elem, (const uint8_t *)t->data + leaf * w->elem, w->elem);
}

static void visit(walk *w, int level, size_t pos)
{
  if (w->bad) return;
  if (level == w->s->n_traversal) {
    emit(w, pos);
    return;
  }
  const tfl_dim_meta *m = &w->s->dim[level];
  if (m->format == TFL_DIM_DENSE) {
    for (int32_t i = 0; i < m->dense_size && !w->bad; i++) {
      w->coord[level] = i;
      visit(w, level + 1, pos * (size_t)m->dense_size + (size_t)i);
    }
    return;
  }
  if (pos + 1 >= (size_t)m->n_segments) {
    w->bad = true;
    return;
  }
  for (int32_t k = m->segments[pos]; k < m->segments[pos + 1] && !w->bad; k++) {
    if (k < 0 || k >= m->n_indices || m->indices[k] < 0 || m->indices[k] >= w->level_size[level]) {
      w->bad = true;
      return;
    }
    w->coord[level] = m->indices[k];
    visit(w, level + 1, (size_t)k);
  }
}

tfl_status tfl_densify(const tfl_tensor *t, size_t stored_values, void *dense, tfl_diag *diag)
{
  const char *name = t->name ? t->name : "";
  if (!t->sparsity) return tfl_fail(diag, TFL_ERR_ARG, "tensor %s: densify of a tensor that is not sparse", name);
  if (!t->data) return tfl_fail(diag, TFL_ERR_ARG, "tensor %s: sparse tensor has no data", name);
  walk w = {.t = t, .s = t->sparsity, .elem = tfl_type_size(t->type), .stored = stored_values,
            .dense = dense, .diag = diag};
  if (w.elem == 0) return tfl_fail(diag, TFL_ERR_UNSUPPORTED, "tensor %s: type %s cannot be densified", name,
                                    tfl_type_name(t->type));
  int64_t need = tfl_sparse_value_count(t, diag);
  if (need < 0) return TFL_ERR_FORMAT;
  tfl_status st = level_sizes(&w);
  if (st != TFL_OK) return st;
  if ((uint64_t)need != stored_values)
    return tfl_fail(diag, TFL_ERR_FORMAT, "tensor %s: index structure addresses %lld values, %zu stored", name,
                     (long long)need, stored_values);
  memset(dense, 0, tfl_tensor_count(t) * w.elem);
  visit(&w, 0, 0);
  if (w.bad) return tfl_fail(diag, TFL_ERR_FORMAT, "tensor %s: sparse index out of range while densifying", name);
  return TFL_OK;
}
