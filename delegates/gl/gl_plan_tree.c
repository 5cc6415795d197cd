/* gl_plan_tree.c - a dispatch and the producers inlined into it (gl_fuse.c), as a tree
 * of builds: the arena objects they read (for barriers and lifetimes), their constants
 * in the dispatch's range, and the emitter's input. */
#include <stdlib.h>
#include <string.h>

#include "gl_plan_int.h"

int gl_tree_sub(const planner *p, const group_build *b, int k)
{
  return b->obj_sub[k] >= 0 ? p->group_of[b->obj_sub[k]] : -1;
}

/* Appends (as hidden) the arena objects of the producers inlined under `from`. */
static tfl_status hide(const planner *p, group_build *builds, group_build *to, const group_build *from, int depth)
{
  for (int k = 0; k < from->n_objs; k++) {
    int sg = gl_tree_sub(p, from, k);
    if (sg < 0) continue;
    const group_build *s = &builds[sg];
    for (int j = 0; j < s->n_objs; j++) {
      if (s->obj_tensor[j] < 0 || s->objs[j].hidden) continue;
      if (to->n_objs >= MAX_OBJS) return tfl_fail(p->diag, TFL_ERR_UNSUPPORTED, "GL: more than %d objects in one shader", MAX_OBJS);
      int n = to->n_objs++;
      to->objs[n] = s->objs[j];
      to->objs[n].hidden = true;
      to->obj_tensor[n] = s->obj_tensor[j];
      to->obj_const[n] = NULL;
      to->obj_write[n] = false;
      to->obj_sub[n] = -1;
    }
    if (depth < 8) {
      tfl_status st = hide(p, builds, to, s, depth + 1);
      if (st) return st;
    }
  }
  return TFL_OK;
}

tfl_status gl_tree_hide(const planner *p, group_build *builds)
{
  for (int gi = 0; gi < p->n_groups; gi++) {
    if (!gl_group_dispatched(&p->groups[gi])) continue;
    tfl_status st = hide(p, builds, &builds[gi], &builds[gi], 0);
    if (st) return st;
  }
  return TFL_OK;
}

static size_t units(const planner *p, group_build *builds, group_build *b, bool half_buf, size_t at)
{
  for (int k = 0, ci = 0; k < b->n_objs; k++) {
    gl_emit_obj *ob = &b->objs[k];
    if (!ob->is_const || ob->hidden) continue;
    const gl_gen_const *c = b->obj_const[k] ? NULL : &b->gen.consts[ci++];
    int grp = c ? c->group : 0;
    ob->cfmt = grp > 0 && half_buf && !c->wide ? gl_const_choose(c->data, c->n_vec4, grp, c->step) : GL_CONST_FLOAT;
    ob->off = at;
    at += gl_const_units(ob->cfmt, ob->n_vec4, grp, half_buf);
  }
  for (int k = 0; k < b->n_objs; k++) {
    int sg = gl_tree_sub(p, b, k);
    if (sg >= 0) at = units(p, builds, &builds[sg], half_buf, at);
  }
  return at;
}

size_t gl_tree_units(const planner *p, group_build *builds, int gi, bool half_buf)
{
  return units(p, builds, &builds[gi], half_buf, 0);
}

static void encode(const planner *p, const group_build *builds, const group_build *b, bool half_buf, size_t unit,
                   char *dst)
{
  for (int k = 0, ci = 0; k < b->n_objs; k++) {
    const gl_emit_obj *ob = &b->objs[k];
    if (!ob->is_const || ob->hidden) continue;
    const gl_gen_const *c = b->obj_const[k] ? NULL : &b->gen.consts[ci++];
    gl_const_encode(ob->cfmt, c ? c->data : b->obj_const[k], ob->n_vec4, c ? c->group : 0, c ? c->step : NULL, half_buf,
                    dst + ob->off * unit);
  }
  for (int k = 0; k < b->n_objs; k++) {
    int sg = gl_tree_sub(p, b, k);
    if (sg >= 0) encode(p, builds, &builds[sg], half_buf, unit, dst);
  }
}

void gl_tree_encode(const planner *p, const group_build *builds, int gi, bool half_buf, size_t unit, void *dst)
{
  encode(p, builds, &builds[gi], half_buf, unit, dst);
}

void gl_tree_free_emit(gl_emit_in *e)
{
  if (!e) return;
  for (int k = 0; k < e->n_objs; k++) gl_tree_free_emit((gl_emit_in *)e->objs[k].virt);
  free((gl_emit_obj *)e->objs);
  free(e);
}

gl_emit_in *gl_tree_emit(const planner *p, group_build *builds, int gi, const gl_emit_in *top, const size_t *off_of)
{
  group_build *b = &builds[gi];
  const group *G = &p->groups[gi];
  const tfl_graph *g = p->g;
  gl_emit_in *e = malloc(sizeof *e);
  gl_emit_obj *objs = calloc((size_t)b->n_objs + 1, sizeof *objs);
  if (!e || !objs) {
    free(e);
    free(objs);
    return NULL;
  }
  *e = *top;
  memcpy(objs, b->objs, sizeof *objs * (size_t)b->n_objs);
  e->objs = objs;
  e->n_objs = b->n_objs;
  e->gen = &b->gen;
  e->epilogue = b->epi.p;
  e->fn = G->inlined;
  gl_shape_of(&g->tensors[g->nodes[G->node].out[0]], &e->out);
  bool ok = true;
  for (int k = 0; k < b->n_objs; k++) {
    objs[k].virt = NULL;
    if (b->obj_tensor[k] >= 0) {
      objs[k].off = off_of[b->obj_tensor[k]];
      objs[k].wide = p->wide[b->obj_tensor[k]];
    }
    int sg = gl_tree_sub(p, b, k);
    if (sg >= 0 && !(objs[k].virt = gl_tree_emit(p, builds, sg, top, off_of))) ok = false;
  }
  if (!ok) {
    gl_tree_free_emit(e);
    return NULL;
  }
  return e;
}
