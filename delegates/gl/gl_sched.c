/* gl_sched.c - when and where dispatches run: order by dependency level, barriers only
 * between dispatches whose arena ranges conflict, arena offsets by lifetime. */
#include <stdlib.h>
#include <string.h>

#include "gl_plan_int.h"

/* ---- order: dispatches by dependency level, so that independent ones (a detector's
 * heads) sit side by side and share one barrier ---- */

tfl_status gl_sched_order(planner *p, group_build *builds)
{
  int n = p->n_groups, nt = p->g->n_tensors;
  int *level = calloc((size_t)n + 1, sizeof(int)), *writer = malloc(sizeof(int) * (size_t)nt);
  int *idx = malloc(sizeof(int) * ((size_t)n + 1));
  group *gs = malloc(sizeof(group) * ((size_t)n + 1));
  group_build *bs = malloc(sizeof(group_build) * ((size_t)n + 1));
  if (!level || !writer || !idx || !gs || !bs) {
    free(level), free(writer), free(idx), free(gs), free(bs);
    return tfl_fail(p->diag, TFL_ERR_NOMEM, "GL dispatch order");
  }
  for (int t = 0; t < nt; t++) writer[t] = -1;
  for (int gi = 0; gi < n; gi++) {
    for (int k = 0; k < builds[gi].n_objs; k++) {
      int t = builds[gi].obj_tensor[k];
      if (t >= 0 && writer[t] >= 0 && level[writer[t]] + 1 > level[gi]) level[gi] = level[writer[t]] + 1;
    }
    writer[gl_plan_root(p, p->groups[gi].out)] = gi;
    for (int k = 0; k < builds[gi].n_objs; k++) /* extra outputs of multi-output nodes */
      if (builds[gi].obj_write[k]) writer[builds[gi].obj_tensor[k]] = gi;
  }
  int m = 0; /* stable counting by level */
  for (int lv = 0; m < n; lv++)
    for (int gi = 0; gi < n; gi++)
      if (level[gi] == lv) idx[m++] = gi;
  for (int i = 0; i < n; i++) gs[i] = p->groups[idx[i]], bs[i] = builds[idx[i]];
  memcpy(p->groups, gs, sizeof(group) * (size_t)n);
  memcpy(builds, bs, sizeof(group_build) * (size_t)n);
  for (int i = 0; i < n; i++) {
    p->group_of[p->groups[i].out] = i;
    const tfl_node *nd = &p->g->nodes[p->groups[i].node];
    for (int k = 1; k < nd->n_out; k++)
      if (nd->out[k] >= 0) p->group_of[nd->out[k]] = i;
  }
  free(level), free(writer), free(idx), free(gs), free(bs);
  return TFL_OK;
}

/* ---- barriers: only between dispatches whose arena ranges conflict ---- */

static bool spans_conflict(const gl_span_set *set, gl_span x)
{
  for (int i = 0; i < set->n; i++)
    if ((set->s[i].write || x.write) && x.lo < set->s[i].hi && set->s[i].lo < x.hi) return true;
  return false;
}

static bool spans_add(gl_span_set *set, gl_span x)
{
  if (set->n == set->cap) {
    int cap = set->cap ? set->cap * 2 : 32;
    gl_span *n = realloc(set->s, sizeof *n * (size_t)cap);
    if (!n) return false;
    set->s = n;
    set->cap = cap;
  }
  set->s[set->n++] = x;
  return true;
}

/* Marks d->barrier for dispatch gi from its objects' and output's arena ranges. Before
 * the first dispatch the delegate's input stage has already put a barrier. */
bool gl_sched_barrier(gl_span_set *pending, gl_plan_dispatch *d, const group_build *b, size_t out_off, size_t out_n)
{
  gl_span mine[MAX_OBJS + 1];
  int n = 0;
  for (int k = 0; k < b->n_objs; k++)
    if (b->obj_tensor[k] >= 0) {
      size_t len = gl_shape_vec4s(b->objs[k].sh) * (b->objs[k].wide ? 2 : 1);
      mine[n++] = (gl_span){b->objs[k].off, b->objs[k].off + len, b->obj_write[k]};
    }
  mine[n++] = (gl_span){out_off, out_off + out_n, true};
  d->barrier = false;
  for (int i = 0; i < n && !d->barrier; i++) d->barrier = spans_conflict(pending, mine[i]);
  if (d->barrier) pending->n = 0;
  for (int i = 0; i < n; i++)
    if (!spans_add(pending, mine[i])) return false;
  return true;
}

/* ---- placement: arena offsets by lifetime ---- */

typedef struct {
  int t;
  size_t size;
  int first, last;
  size_t off;
} live;

static int by_size_desc(const void *a, const void *b)
{
  const live *x = a, *y = b;
  if (x->size != y->size) return x->size < y->size ? 1 : -1;
  return x->t - y->t;
}

tfl_status gl_sched_place(planner *p, group_build *builds, size_t *arena_n, size_t *off_of)
{
  const tfl_graph *g = p->g;
  int nt = g->n_tensors;
  int *first = malloc(sizeof(int) * (size_t)nt), *last = malloc(sizeof(int) * (size_t)nt);
  live *l = malloc(sizeof(live) * (size_t)nt);
  if (!first || !last || !l) {
    free(first);
    free(last);
    free(l);
    return tfl_fail(p->diag, TFL_ERR_NOMEM, "GL placement");
  }
  for (int t = 0; t < nt; t++) first[t] = last[t] = -2;
#define TOUCH(t, i) do { int r_ = (t); if (first[r_] == -2) first[r_] = (i); if ((i) > last[r_]) last[r_] = (i); if (first[r_] > (i)) first[r_] = (i); } while (0)
  for (int i = 0; i < p->part->n_inputs; i++) TOUCH(gl_plan_root(p, p->part->inputs[i]), -1);
  for (int gi = 0; gi < p->n_groups; gi++) {
    for (int o = 0; o < builds[gi].n_objs; o++)
      if (builds[gi].obj_tensor[o] >= 0) TOUCH(builds[gi].obj_tensor[o], gi);
    TOUCH(gl_plan_root(p, p->groups[gi].out), gi);
  }
  for (int i = 0; i < p->part->n_outputs; i++) TOUCH(gl_plan_root(p, p->part->outputs[i]), p->n_groups);
  for (int i = 0; i < p->n_wb; i++) TOUCH(gl_plan_root(p, p->wb_src[i]), p->n_groups);
#undef TOUCH
  int n = 0;
  for (int t = 0; t < nt; t++) {
    off_of[t] = 0;
    if (first[t] == -2) continue;
    gl_shape sh;
    gl_shape_of(&g->tensors[t], &sh);
    l[n++] = (live){t, gl_shape_vec4s(sh) * (p->wide[t] ? 2 : 1), first[t], last[t], 0};
  }
  qsort(l, (size_t)n, sizeof *l, by_size_desc);
  size_t top = 0;
  for (int i = 0; i < n; i++) {
    size_t off = 0;
    bool moved = true;
    while (moved) { /* lowest offset clear of every placed, overlapping-in-time tensor */
      moved = false;
      for (int j = 0; j < i; j++) {
        if (l[j].last < l[i].first || l[i].last < l[j].first) continue;
        if (off < l[j].off + l[j].size && l[j].off < off + l[i].size) {
          off = l[j].off + l[j].size;
          moved = true;
        }
      }
    }
    l[i].off = off;
    off_of[l[i].t] = off;
    if (off + l[i].size > top) top = off + l[i].size;
  }
  *arena_n = top ? top : 1;
  free(first);
  free(last);
  free(l);
  return TFL_OK;
}
