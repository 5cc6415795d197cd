/* tfl_loader.c - .tflite bytes -> tfl_graph (see tfl_loader.h).
 *
 * Walks Model -> subgraphs -> tensors, inputs, outputs, operators with the
 * bounds-checked reader (flatbuf.h), checking what the kernels will rely on: tensor
 * and buffer indices, shapes (rank <= TFL_MAX_DIMS, no negative dims, element count
 * < 2^31), constant byte sizes against shape and type, quantization array sizes,
 * sparse index structures, one producer per tensor, and no node reading a tensor not yet
 * written in file order (its own output, a later node's, one nothing writes). Weights are not copied: tensor
 * data points into the mapped file unless it is misaligned for its type. Subgraph 0 is
 * the graph; the others (control flow: WHILE, IF, CALL_ONCE run them) become graphs of
 * their own in g->subgraphs, checked the same way, and every control node's subgraph
 * indices, counts and types are checked against them (no recursion either).
 *
 * Field ids (TFLite schema): Model{version 0, operator_codes 1, subgraphs 2,
 * description 3, buffers 4, metadata 6}; SubGraph{tensors 0, inputs 1, outputs 2,
 * operators 3}; Tensor{shape 0, type 1, buffer 2, name 3, quantization 4,
 * is_variable 5, sparsity 6, shape_signature 7}; QuantizationParameters{scale 2, zero_point 3,
 * details_type 4, quantized_dimension 6}; Buffer{data 0, offset 1, size 2};
 * OperatorCode{deprecated_builtin_code 0, custom_code 1, version 2, builtin_code 3};
 * Operator{opcode_index 0, inputs 1, outputs 2, options 3..6, 9, 10}.
 */
#include "tfl_loader.h"

#include "tfl_file.h"
#include "tfl_fused_act.h"
#include "tfl_loader_priv.h"
#include "tfl_validate.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_TENSORS 1000000
#define MAX_NODES 1000000
#define MAX_NODE_IO 100000
#define MAX_SUBGRAPHS 1000   /* checked depth first, one stack frame per nesting level */
#define MAX_ELEMENTS 0x7fffffffull
#define BUILTIN_CUSTOM 32

typedef struct {
  bool known;
  tfl_op op;
  int32_t code;          /* builtin code, 32 for custom */
  const char *custom;    /* custom op name (points into the file) */
  int version;
} op_code;

typedef struct {
  fb_reader r;
  fb_table model;
  tfl_graph *g;
  int n_codes;
  op_code *codes;
  tfl_diag *diag;        /* the caller's; NULL drops messages */
} loader;

#define FB_CHECK(L, ...)                                                  \
  do {                                                                    \
    if (!fb_ok(&(L)->r)) {                                                \
      char ctx_[160];                                                     \
      snprintf(ctx_, sizeof ctx_, __VA_ARGS__);                           \
      return tfl_fail((L)->diag, TFL_ERR_FORMAT, "%s: %s", ctx_, (L)->r.msg);     \
    }                                                                     \
  } while (0)

#define TRY(x) do { tfl_status s_ = (x); if (s_ != TFL_OK) return s_; } while (0)

tfl_status tfl_buffer_bytes(fb_reader *r, const fb_table *model, const tfl_graph *g,
                            uint32_t index, const uint8_t **data, size_t *size, tfl_diag *diag)
{
  *data = NULL;
  *size = 0;
  fb_vec bufs;
  fb_vec_field(model, 4, 4, &bufs);
  if (!fb_ok(r)) return tfl_fail(diag, TFL_ERR_FORMAT, "model buffers: %s", r->msg);
  if (index >= bufs.n)
    return tfl_fail(diag, TFL_ERR_FORMAT, "buffer %u out of range (model has %u buffers)", index,
                     bufs.n);
  fb_table b;
  fb_vec_table(r, &bufs, index, &b);
  fb_vec v;
  if (fb_vec_field(&b, 0, 1, &v) && v.n > 0) {
    *data = fb_vec_bytes(r, &v);
    *size = v.n;
  } else {
    /* >2 GB models: data outside the flatbuffer, offset from the file start */
    uint64_t off = fb_u64(&b, 1, 0), sz = fb_u64(&b, 2, 0);
    if (fb_ok(r) && off > 1) {
      if (off > g->model_size || sz > g->model_size - off)
        return tfl_fail(diag, TFL_ERR_FORMAT,
                         "buffer %u: data at offset %llu size %llu lies outside the file "
                         "(%zu bytes)",
                         index, (unsigned long long)off, (unsigned long long)sz, g->model_size);
      *data = g->model_bytes + off;
      *size = (size_t)sz;
    }
  }
  if (!fb_ok(r)) return tfl_fail(diag, TFL_ERR_FORMAT, "buffer %u: %s", index, r->msg);
  return TFL_OK;
}

static tfl_status read_op_codes(loader *L)
{
  fb_vec v;
  fb_vec_field(&L->model, 1, 4, &v);
  FB_CHECK(L, "operator_codes");
  L->n_codes = (int)v.n;
  L->codes = calloc(v.n ? v.n : 1, sizeof *L->codes);
  if (!L->codes) return tfl_fail(L->diag, TFL_ERR_NOMEM, "operator_codes: %u entries", v.n);
  for (uint32_t i = 0; i < v.n; i++) {
    fb_table t;
    fb_vec_table(&L->r, &v, i, &t);
    op_code *c = &L->codes[i];
    int32_t dep = fb_i8(&t, 0, 0), code = fb_i32(&t, 3, 0);
    c->code = dep > code ? dep : code; /* as TFLite: the larger of the two fields */
    c->version = fb_i32(&t, 2, 1);
    if (c->code == BUILTIN_CUSTOM) c->custom = fb_string_field(&t, 1, NULL);
    FB_CHECK(L, "operator code %u", i);
    if (c->code < 0) return tfl_fail(L->diag, TFL_ERR_FORMAT, "operator code %u: builtin code %d", i,
                                      c->code);
    if (c->code == BUILTIN_CUSTOM) {
      if (!c->custom)
        return tfl_fail(L->diag, TFL_ERR_FORMAT, "operator code %u: custom op without a name", i);
      c->known = tfl_op_from_custom(c->custom, &c->op);
    } else {
      c->known = tfl_op_from_builtin(c->code, &c->op);
    }
  }
  return TFL_OK;
}

static bool type_of(int v, tfl_type *t)
{
  switch (v) {
  case TFL_TYPE_FLOAT32: case TFL_TYPE_FLOAT16: case TFL_TYPE_INT32: case TFL_TYPE_UINT8:
  case TFL_TYPE_INT64: case TFL_TYPE_BOOL: case TFL_TYPE_INT16: case TFL_TYPE_INT8: case TFL_TYPE_COMPLEX64:
    *t = (tfl_type)v;
    return true;
  }
  return false; /* STRING, FLOAT64, COMPLEX128 and newer types: not held by this runtime */
}

static const char *tname(const tfl_tensor *t) { return t->name ? t->name : ""; }

static tfl_status read_quant(loader *L, int ti, const fb_table *qt, tfl_tensor *t)
{
  fb_vec sc, zp;
  fb_vec_field(qt, 2, 4, &sc);
  fb_vec_field(qt, 3, 8, &zp);
  uint8_t details = fb_u8(qt, 4, 0);
  int32_t axis = fb_i32(qt, 6, 0);
  FB_CHECK(L, "tensor %d (%s): quantization", ti, tname(t));
  if (details != 0)
    return tfl_fail(L->diag, TFL_ERR_UNSUPPORTED, "tensor %d (%s): custom quantization is not supported",
                     ti, tname(t));
  if (sc.n == 0) return TFL_OK; /* not quantized */
  if (zp.n != sc.n)
    return tfl_fail(L->diag, TFL_ERR_FORMAT, "tensor %d (%s): %u quantization scales but %u zero points",
                     ti, tname(t), sc.n, zp.n);
  if (sc.n > 1) {
    if (axis < 0 || axis >= t->ndim)
      return tfl_fail(L->diag, TFL_ERR_FORMAT, "tensor %d (%s): quantized_dimension %d out of range "
                       "(tensor has %d dims)", ti, tname(t), axis, t->ndim);
    if ((uint32_t)t->dims[axis] != sc.n)
      return tfl_fail(L->diag, TFL_ERR_FORMAT, "tensor %d (%s): %u scales for dimension %d of size %d",
                       ti, tname(t), sc.n, axis, t->dims[axis]);
  }
  t->q.n = (int)sc.n;
  t->q.axis = sc.n > 1 ? axis : 0;
  t->q.scale = tfl_graph_alloc(L->g, sc.n * sizeof(float));
  t->q.zero_point = tfl_graph_alloc(L->g, sc.n * sizeof(int32_t));
  if (!t->q.scale || !t->q.zero_point)
    return tfl_fail(L->diag, TFL_ERR_NOMEM, "tensor %d: quantization arrays", ti);
  for (uint32_t i = 0; i < sc.n; i++) {
    t->q.scale[i] = fb_vec_f32(&L->r, &sc, i);
    int64_t z = fb_vec_i64(&L->r, &zp, i);
    if (z < INT32_MIN || z > INT32_MAX)
      return tfl_fail(L->diag, TFL_ERR_FORMAT, "tensor %d (%s): zero point %lld out of int32 range", ti,
                       tname(t), (long long)z);
    t->q.zero_point[i] = (int32_t)z;
  }
  return TFL_OK;
}

/* A SparseIndexVector union (type at field `type_id`, table at type_id+1) widened
 * to a graph-owned int32 array. */
static tfl_status read_index_vec(loader *L, int ti, int level, const fb_table *dm, int type_id,
                                 const char *what, const int32_t **out, int *n_out)
{
  uint8_t type = fb_u8(dm, type_id, 0);
  fb_table vt;
  bool has = fb_table_field(dm, type_id + 1, &vt);
  FB_CHECK(L, "tensor %d: sparsity level %d %s", ti, level, what);
  if (!has || type < 1 || type > 3)
    return tfl_fail(L->diag, TFL_ERR_FORMAT, "tensor %d: sparsity level %d: %s missing or of unknown "
                     "type %u", ti, level, what, type);
  static const size_t elem[4] = {0, 4, 2, 1}; /* Int32Vector, Uint16Vector, Uint8Vector */
  fb_vec v;
  fb_vec_field(&vt, 0, elem[type], &v);
  FB_CHECK(L, "tensor %d: sparsity level %d %s", ti, level, what);
  if (v.n > MAX_ELEMENTS / 4)
    return tfl_fail(L->diag, TFL_ERR_FORMAT, "tensor %d: sparsity level %d: %s has %u entries", ti,
                     level, what, v.n);
  int32_t *a = tfl_graph_alloc(L->g, (size_t)v.n * 4);
  if (!a) return tfl_fail(L->diag, TFL_ERR_NOMEM, "tensor %d: sparse indices", ti);
  for (uint32_t i = 0; i < v.n; i++) {
    if (type == 1) a[i] = fb_vec_i32(&L->r, &v, i);
    else if (type == 2) a[i] = fb_vec_u16(&L->r, &v, i);
    else a[i] = fb_vec_u8(&L->r, &v, i);
  }
  *out = a;
  *n_out = (int)v.n;
  return TFL_OK;
}

/* Reads SparsityParameters and checks the whole index structure against the shape
 * and the stored value count, so DENSIFY can trust it. */
static tfl_status read_sparsity(loader *L, int ti, const fb_table *st, tfl_tensor *t,
                                size_t data_bytes)
{
  tfl_sparsity *s = tfl_graph_alloc(L->g, sizeof *s);
  if (!s) return tfl_fail(L->diag, TFL_ERR_NOMEM, "tensor %d: sparsity", ti);
  fb_vec trav, bmap, dims;
  fb_vec_field(st, 0, 4, &trav);
  fb_vec_field(st, 1, 4, &bmap);
  fb_vec_field(st, 2, 4, &dims);
  FB_CHECK(L, "tensor %d (%s): sparsity", ti, tname(t));
  int nd = t->ndim;
  if (bmap.n > TFL_MAX_DIMS || trav.n != (uint32_t)nd + bmap.n || dims.n != trav.n)
    return tfl_fail(L->diag, TFL_ERR_FORMAT, "tensor %d (%s): sparsity has %u traversal dims, %u block "
                     "dims and %u dim_metadata for a %d-dim tensor", ti, tname(t), trav.n,
                     bmap.n, dims.n, nd);
  s->n_traversal = (int)trav.n;
  s->n_block = (int)bmap.n;
  bool seen[2 * TFL_MAX_DIMS] = {0};
  for (int k = 0; k < s->n_traversal; k++) {
    int32_t o = fb_vec_i32(&L->r, &trav, (uint32_t)k);
    if (o < 0 || o >= s->n_traversal || seen[o])
      return tfl_fail(L->diag, TFL_ERR_FORMAT, "tensor %d (%s): traversal_order is not a permutation "
                       "(entry %d is %d)", ti, tname(t), k, o);
    seen[o] = true;
    s->traversal_order[k] = o;
  }
  for (int b = 0; b < s->n_block; b++) {
    int32_t d = fb_vec_i32(&L->r, &bmap, (uint32_t)b);
    if (d < 0 || d >= nd)
      return tfl_fail(L->diag, TFL_ERR_FORMAT, "tensor %d (%s): block_map[%d] = %d out of range", ti,
                       tname(t), b, d);
    s->block_map[b] = d;
  }
  /* level formats and dense sizes first: block sizes are needed for level sizes */
  fb_table dm[2 * TFL_MAX_DIMS];
  for (int k = 0; k < s->n_traversal; k++) {
    fb_vec_table(&L->r, &dims, (uint32_t)k, &dm[k]);
    int f = fb_i8(&dm[k], 0, 0);
    s->dim[k].dense_size = fb_i32(&dm[k], 1, 0);
    FB_CHECK(L, "tensor %d (%s): sparsity level %d", ti, tname(t), k);
    if (f != TFL_DIM_DENSE && f != TFL_DIM_SPARSE_CSR)
      return tfl_fail(L->diag, TFL_ERR_FORMAT, "tensor %d: sparsity level %d format %d unknown", ti, k, f);
    s->dim[k].format = (tfl_dim_format)f;
  }
  /* size of each original (and block) dimension as traversed */
  int64_t block_size[TFL_MAX_DIMS];
  for (int b = 0; b < s->n_block; b++) {
    block_size[b] = -1;
    for (int k = 0; k < s->n_traversal; k++)
      if (s->traversal_order[k] == nd + b) {
        if (s->dim[k].format != TFL_DIM_DENSE || s->dim[k].dense_size < 1)
          return tfl_fail(L->diag, TFL_ERR_UNSUPPORTED, "tensor %d: block dimension %d must be dense "
                           "with a positive size", ti, b);
        block_size[b] = s->dim[k].dense_size;
      }
  }
  int64_t count = 1; /* elements addressed at the current level */
  for (int k = 0; k < s->n_traversal; k++) {
    int o = s->traversal_order[k];
    int64_t size;
    if (o < nd) {
      int64_t bs = 1;
      for (int b = 0; b < s->n_block; b++)
        if (s->block_map[b] == o) bs *= block_size[b];
      if (bs < 1 || t->dims[o] % bs)
        return tfl_fail(L->diag, TFL_ERR_FORMAT, "tensor %d: dimension %d (%d) not divisible by its "
                         "block size %lld", ti, o, t->dims[o], (long long)bs);
      size = t->dims[o] / bs;
    } else {
      size = block_size[o - nd];
    }
    tfl_dim_meta *m = &s->dim[k];
    if (m->format == TFL_DIM_DENSE) {
      if (m->dense_size != size)
        return tfl_fail(L->diag, TFL_ERR_FORMAT, "tensor %d: sparsity level %d dense_size %d, expected "
                         "%lld", ti, k, m->dense_size, (long long)size);
      count *= size;
    } else {
      TRY(read_index_vec(L, ti, k, &dm[k], 2, "array_segments", &m->segments, &m->n_segments));
      TRY(read_index_vec(L, ti, k, &dm[k], 4, "array_indices", &m->indices, &m->n_indices));
      if (m->n_segments != count + 1)
        return tfl_fail(L->diag, TFL_ERR_FORMAT, "tensor %d: sparsity level %d has %d segments, "
                         "expected %lld", ti, k, m->n_segments, (long long)(count + 1));
      if (m->segments[0] != 0 || m->segments[m->n_segments - 1] != m->n_indices)
        return tfl_fail(L->diag, TFL_ERR_FORMAT, "tensor %d: sparsity level %d segments run from %d to "
                         "%d, expected 0 to %d", ti, k, m->segments[0],
                         m->segments[m->n_segments - 1], m->n_indices);
      for (int i = 1; i < m->n_segments; i++)
        if (m->segments[i] < m->segments[i - 1])
          return tfl_fail(L->diag, TFL_ERR_FORMAT, "tensor %d: sparsity level %d segments decrease at %d",
                           ti, k, i);
      for (int i = 0; i < m->n_indices; i++)
        if (m->indices[i] < 0 || m->indices[i] >= size)
          return tfl_fail(L->diag, TFL_ERR_FORMAT, "tensor %d: sparsity level %d index %d = %d out of "
                           "range 0..%lld", ti, k, i, m->indices[i], (long long)size - 1);
      count = m->n_indices;
    }
    if (count > (int64_t)MAX_ELEMENTS)
      return tfl_fail(L->diag, TFL_ERR_FORMAT, "tensor %d: sparse structure addresses too many values",
                       ti);
  }
  if ((uint64_t)count * tfl_type_size(t->type) != data_bytes)
    return tfl_fail(L->diag, TFL_ERR_FORMAT, "tensor %d (%s): sparse buffer has %zu bytes, the index "
                     "structure stores %lld values of %zu bytes", ti, tname(t), data_bytes,
                     (long long)count, tfl_type_size(t->type));
  t->sparsity = s;
  return TFL_OK;
}

static tfl_status read_tensor(loader *L, int ti, const fb_table *tt, tfl_tensor *t)
{
  uint32_t name_len = 0;
  const char *name = fb_string_field(tt, 3, &name_len);
  fb_vec shape;
  bool has_shape = fb_vec_field(tt, 0, 4, &shape);
  int type = fb_i8(tt, 1, 0);
  uint32_t buffer = fb_u32(tt, 2, 0);
  t->is_variable = fb_bool(tt, 5, false);
  FB_CHECK(L, "tensor %d", ti);
  t->name = tfl_graph_strndup(L->g, name ? name : "", name ? name_len : 0);
  if (!t->name) return tfl_fail(L->diag, TFL_ERR_NOMEM, "tensor %d: name", ti);
  t->producer = -1;

  if (!type_of(type, &t->type))
    return tfl_fail(L->diag, TFL_ERR_UNSUPPORTED, "tensor %d (%s): type %d%s is not supported", ti,
                     t->name, type, type == TFL_TYPE_STRING ? " (STRING)" : "");
  if (has_shape && shape.n > TFL_MAX_DIMS)
    return tfl_fail(L->diag, TFL_ERR_UNSUPPORTED, "tensor %d (%s): %u dims, at most %d supported", ti,
                     t->name, shape.n, TFL_MAX_DIMS);
  t->ndim = (int)shape.n;
  uint64_t count = 1;
  for (int d = 0; d < t->ndim; d++) {
    int32_t v = fb_vec_i32(&L->r, &shape, (uint32_t)d);
    if (v < 0)
      return tfl_fail(L->diag, TFL_ERR_FORMAT, "tensor %d (%s): dimension %d is %d", ti, t->name, d, v);
    t->dims[d] = v;
    count *= (uint64_t)v;
    if (count > MAX_ELEMENTS)
      return tfl_fail(L->diag, TFL_ERR_FORMAT, "tensor %d (%s): shape has more than 2^31-1 elements",
                       ti, t->name);
  }
  tfl_tensor_update_bytes(t);
  /* shape_signature: which dims the converter could not know (-1); shape inference may
   * replace the shape's guess there (tfl_shapes.c) */
  fb_vec sig;
  bool has_sig = fb_vec_field(tt, 7, 4, &sig);
  FB_CHECK(L, "tensor %d (%s): shape_signature", ti, t->name);
  if (has_sig && sig.n == shape.n)
    for (int d = 0; d < t->ndim; d++)
      if (fb_vec_i32(&L->r, &sig, (uint32_t)d) == -1) t->dyn_dims |= (uint8_t)(1u << d);

  fb_table qt, st;
  bool has_q = fb_table_field(tt, 4, &qt);
  FB_CHECK(L, "tensor %d (%s): quantization", ti, t->name);
  if (has_q) TRY(read_quant(L, ti, &qt, t));

  const uint8_t *data;
  size_t size;
  tfl_status s = tfl_buffer_bytes(&L->r, &L->model, L->g, buffer, &data, &size, L->diag);
  if (s != TFL_OK) return tfl_fail_prefix(L->diag, s, "tensor %d (%s)", ti, t->name);
  bool has_sparse = fb_table_field(tt, 6, &st);
  FB_CHECK(L, "tensor %d (%s): sparsity", ti, t->name);
  if (has_sparse) {
    if (!size)
      return tfl_fail(L->diag, TFL_ERR_FORMAT, "tensor %d (%s): sparsity given but no data", ti, t->name);
    TRY(read_sparsity(L, ti, &st, t, size));
  } else if (size && size != t->bytes) {
    return tfl_fail(L->diag, TFL_ERR_FORMAT, "tensor %d (%s): buffer %u has %zu bytes, shape and type "
                     "%s need %zu", ti, t->name, buffer, size, tfl_type_name(t->type), t->bytes);
  }
  if (size) {
    size_t align = tfl_type_size(t->type);
    if ((uintptr_t)data % align) {
      /* kernels read typed pointers: give them an aligned copy */
      void *copy = tfl_graph_alloc(L->g, size);
      if (!copy) return tfl_fail(L->diag, TFL_ERR_NOMEM, "tensor %d: %zu bytes", ti, size);
      memcpy(copy, data, size);
      data = copy;
    }
    t->data = (void *)data; /* read-only mapping: constants are never written */
    t->is_const = !t->is_variable;
  }
  return TFL_OK;
}

static tfl_status read_index_list(loader *L, const fb_table *sg, int id, const char *what,
                                  int32_t **out, int *n_out)
{
  fb_vec v;
  fb_vec_field(sg, id, 4, &v);
  FB_CHECK(L, "subgraph %s", what);
  *out = malloc((v.n ? v.n : 1) * sizeof(int32_t));
  if (!*out) return tfl_fail(L->diag, TFL_ERR_NOMEM, "subgraph %s", what);
  *n_out = (int)v.n;
  for (uint32_t i = 0; i < v.n; i++) {
    int32_t x = fb_vec_i32(&L->r, &v, i);
    if (x < 0 || x >= L->g->n_tensors)
      return tfl_fail(L->diag, TFL_ERR_FORMAT, "subgraph %s %u: tensor %d out of range (%d tensors)",
                       what, i, x, L->g->n_tensors);
    (*out)[i] = x;
  }
  return TFL_OK;
}

static tfl_status read_node_io(loader *L, int ni, const fb_table *ot, int id, bool optional_ok,
                               int32_t **out, int *n_out)
{
  tfl_graph *g = L->g;
  const char *what = id == 1 ? "input" : "output";
  fb_vec v;
  fb_vec_field(ot, id, 4, &v);
  FB_CHECK(L, "node %d %ss", ni, what);
  if (v.n > MAX_NODE_IO)
    return tfl_fail(L->diag, TFL_ERR_FORMAT, "node %d: %u %ss", ni, v.n, what);
  *out = tfl_graph_alloc(g, (v.n ? v.n : 1) * sizeof(int32_t));
  if (!*out) return tfl_fail(L->diag, TFL_ERR_NOMEM, "node %d", ni);
  *n_out = (int)v.n;
  for (uint32_t i = 0; i < v.n; i++) {
    int32_t x = fb_vec_i32(&L->r, &v, i);
    if (x < (optional_ok ? -1 : 0) || x >= g->n_tensors)
      return tfl_fail(L->diag, TFL_ERR_FORMAT, "node %d (%s): %s %u is tensor %d, out of range "
                       "(%d tensors)", ni, tfl_op_name(g->nodes[ni].op), what, i, x,
                       g->n_tensors);
    (*out)[i] = x;
  }
  return TFL_OK;
}

static tfl_status read_node(loader *L, int ni, const fb_table *ot, tfl_node *n)
{
  tfl_graph *g = L->g;
  uint32_t oc = fb_u32(ot, 0, 0);
  FB_CHECK(L, "node %d", ni);
  if (oc >= (uint32_t)L->n_codes)
    return tfl_fail(L->diag, TFL_ERR_FORMAT, "node %d: opcode_index %u out of range (%d operator codes)",
                     ni, oc, L->n_codes);
  const op_code *c = &L->codes[oc];
  if (!c->known) {
    if (c->code == BUILTIN_CUSTOM)
      return tfl_fail(L->diag, TFL_ERR_UNSUPPORTED, "node %d: custom op '%s' is not supported", ni,
                       c->custom);
    const char *nm = tfl_builtin_code_name(c->code), *why = tfl_builtin_left_out(c->code);
    return tfl_fail(L->diag, TFL_ERR_UNSUPPORTED, "node %d: op code #%d (%s) is not supported%s%s", ni,
                     c->code, nm ? nm : "unknown", why ? ": left out, " : "", why ? why : "");
  }
  n->op = c->op;
  n->version = c->version;
  n->builtin_code = c->code;
  TRY(read_node_io(L, ni, ot, 1, true, &n->in, &n->n_in));
  TRY(read_node_io(L, ni, ot, 2, false, &n->out, &n->n_out));
  for (int i = 0; i < n->n_out; i++) {
    tfl_tensor *t = &g->tensors[n->out[i]];
    if (t->producer >= 0)
      return tfl_fail(L->diag, TFL_ERR_FORMAT, "node %d (%s): output tensor %d (%s) is already written "
                       "by node %d", ni, tfl_op_name(n->op), n->out[i], t->name, t->producer);
    if (t->is_const)
      return tfl_fail(L->diag, TFL_ERR_FORMAT, "node %d (%s): output tensor %d (%s) is a constant", ni,
                       tfl_op_name(n->op), n->out[i], t->name);
    t->producer = ni;
  }
  return tfl_parse_op_options(&L->r, ot, n, ni, g->model_bytes, g->model_size, L->diag);
}

/* Nodes run in file order (ours and TFLite's): every tensor a node reads must be a graph
 * input (a subgraph's are written by its WHILE/IF/CALL_ONCE caller), a constant, a variable
 * (state kept between runs), an earlier node's output, or hold no values; anything else
 * (a node reading its own output, a later node's output, a tensor nothing writes) would
 * read whatever the arena held. is_input: n_tensors bytes of scratch. Subgraphs get their
 * "subgraph K" prefix from the caller. */
static tfl_status check_reads(loader *L, uint8_t *is_input)
{
  const tfl_graph *g = L->g;
  memset(is_input, 0, (size_t)g->n_tensors);
  for (int i = 0; i < g->n_inputs; i++) is_input[g->inputs[i]] = 1;
  for (int ni = 0; ni < g->n_nodes; ni++) {
    const tfl_node *n = &g->nodes[ni];
    for (int i = 0; i < n->n_in; i++) {
      int x = n->in[i];
      if (x < 0) continue; /* optional input left out */
      const tfl_tensor *t = &g->tensors[x];
      if (is_input[x] || t->is_const || t->is_variable || (t->producer >= 0 && t->producer < ni) ||
          tfl_tensor_count(t) == 0)
        continue;
      if (t->producer == ni)
        return tfl_fail(L->diag, TFL_ERR_FORMAT, "node %d (%s): input %d is tensor %d (%s), its own output",
                        ni, tfl_op_name(n->op), i, x, t->name);
      if (t->producer > ni)
        return tfl_fail(L->diag, TFL_ERR_FORMAT, "node %d (%s): input %d is tensor %d (%s), written only "
                        "later by node %d (%s)", ni, tfl_op_name(n->op), i, x, t->name, t->producer,
                        tfl_op_name(g->nodes[t->producer].op));
      return tfl_fail(L->diag, TFL_ERR_FORMAT, "node %d (%s): input %d is tensor %d (%s), which no node "
                      "writes and is neither a graph input, a constant nor a variable", ni,
                      tfl_op_name(n->op), i, x, t->name);
    }
  }
  return TFL_OK;
}

/* Subgraph k of the model (the Model's subgraphs vector `sgs`) into L->g. */
static tfl_status read_subgraph(loader *L, const fb_vec *sgs, int k)
{
  tfl_graph *g = L->g;
  fb_table sg;
  fb_vec_table(&L->r, sgs, (uint32_t)k, &sg);
  FB_CHECK(L, "subgraph %d", k);

  fb_vec tv, ov;
  fb_vec_field(&sg, 0, 4, &tv);
  fb_vec_field(&sg, 3, 4, &ov);
  FB_CHECK(L, "subgraph %d", k);
  if (tv.n > MAX_TENSORS || ov.n > MAX_NODES)
    return tfl_fail(L->diag, TFL_ERR_FORMAT, "subgraph %d has %u tensors and %u operators (limits %d, %d)",
                     k, tv.n, ov.n, MAX_TENSORS, MAX_NODES);
  g->tensors = calloc(tv.n ? tv.n : 1, sizeof *g->tensors);
  g->nodes = calloc(ov.n ? ov.n : 1, sizeof *g->nodes);
  if (!g->tensors || !g->nodes) return tfl_fail(L->diag, TFL_ERR_NOMEM, "%u tensors", tv.n);
  g->n_tensors = (int)tv.n;
  g->n_nodes = (int)ov.n;
  for (int i = 0; i < g->n_tensors; i++) g->tensors[i].producer = -1;
  for (int i = 0; i < g->n_tensors; i++) {
    fb_table tt;
    fb_vec_table(&L->r, &tv, (uint32_t)i, &tt);
    FB_CHECK(L, "tensor %d", i);
    TRY(read_tensor(L, i, &tt, &g->tensors[i]));
  }
  TRY(read_index_list(L, &sg, 1, "inputs", &g->inputs, &g->n_inputs));
  TRY(read_index_list(L, &sg, 2, "outputs", &g->outputs, &g->n_outputs));
  for (int i = 0; i < g->n_nodes; i++) {
    fb_table ot;
    fb_vec_table(&L->r, &ov, (uint32_t)i, &ot);
    FB_CHECK(L, "node %d", i);
    TRY(read_node(L, i, &ot, &g->nodes[i]));
  }
  for (int i = 0; i < g->n_inputs; i++) {
    int x = g->inputs[i];
    if (g->tensors[x].producer >= 0)
      return tfl_fail(L->diag, TFL_ERR_FORMAT, "graph input %d (tensor %d) is written by node %d", i, x,
                       g->tensors[x].producer);
  }
  uint8_t *is_input = malloc(g->n_tensors ? (size_t)g->n_tensors : 1);
  if (!is_input) return tfl_fail(L->diag, TFL_ERR_NOMEM, "%d tensors", g->n_tensors);
  tfl_status s = check_reads(L, is_input);
  free(is_input);
  return s;
}

static tfl_status parse(loader *L)
{
  tfl_graph *g = L->g;
  if (!fb_init(&L->r, g->model_bytes, g->model_size))
    return tfl_fail(L->diag, TFL_ERR_FORMAT, "%s", L->r.msg);
  if (!fb_has_identifier(&L->r, "TFL3")) {
    const uint8_t *b = g->model_bytes;
    return tfl_fail(L->diag, TFL_ERR_FORMAT, "file identifier is %02x %02x %02x %02x, expected \"TFL3\" "
                     "(not a .tflite model?)", b[4], b[5], b[6], b[7]);
  }
  fb_root(&L->r, &L->model);
  FB_CHECK(L, "model root");
  uint32_t version = fb_u32(&L->model, 0, 0);
  FB_CHECK(L, "model version");
  if (version != 3)
    return tfl_fail(L->diag, TFL_ERR_UNSUPPORTED, "schema version %u, expected 3", version);
  TRY(read_op_codes(L));

  fb_vec sgs;
  fb_vec_field(&L->model, 2, 4, &sgs);
  FB_CHECK(L, "subgraphs");
  if (sgs.n < 1) return tfl_fail(L->diag, TFL_ERR_FORMAT, "model has no subgraph");
  if (sgs.n > MAX_SUBGRAPHS)
    return tfl_fail(L->diag, TFL_ERR_FORMAT, "model has %u subgraphs (limit %d)", sgs.n, MAX_SUBGRAPHS);
  TRY(read_subgraph(L, &sgs, 0));
  if (sgs.n > 1) {
    /* the others, each into a graph of its own that borrows the model bytes */
    g->subgraphs = calloc(sgs.n, sizeof *g->subgraphs);
    if (!g->subgraphs) return tfl_fail(L->diag, TFL_ERR_NOMEM, "%u subgraphs", sgs.n);
    g->n_subgraphs = (int)sgs.n;
    for (int k = 1; k < g->n_subgraphs; k++) {
      tfl_graph *sub = calloc(1, sizeof *sub);
      if (!sub) return tfl_fail(L->diag, TFL_ERR_NOMEM, "subgraph %d", k);
      g->subgraphs[k] = sub;
      sub->batch = 1;
      sub->model_bytes = g->model_bytes;
      sub->model_size = g->model_size;
      sub->root = g;
      sub->index = k;
      L->g = sub;
      tfl_status st = read_subgraph(L, &sgs, k);
      L->g = g;
      if (st != TFL_OK) return tfl_fail_prefix(L->diag, st, "subgraph %d", k);
    }
  } else {
    g->n_subgraphs = 1;
  }

  uint32_t dlen = 0;
  const char *desc = fb_string_field(&L->model, 3, &dlen);
  FB_CHECK(L, "model description");
  if (desc) {
    g->description = malloc((size_t)dlen + 1);
    if (!g->description) return tfl_fail(L->diag, TFL_ERR_NOMEM, "description");
    memcpy(g->description, desc, dlen);
    g->description[dlen] = 0;
  }
  tfl_read_metadata(g, &L->r, &L->model, L->diag);
  tfl_read_ultralytics(g, L->diag);
  return TFL_OK;
}

/* ---- control flow: the subgraphs a node runs ---------------------------------------------- */

/* "subgraph 3: " for a graph other than the main one, "" for it. */
static const char *where_sg(const tfl_graph *g, char *buf, size_t size)
{
  if (!g->root) return "";
  snprintf(buf, size, "subgraph %d: ", g->index);
  return buf;
}

/* Subgraph `index` that node ni of g runs as its `role`, or NULL with the error in diag. */
static const tfl_graph *ref_subgraph(const tfl_graph *g, int ni, int index, const char *role, tfl_diag *diag)
{
  const tfl_graph *root = g->root ? g->root : g;
  const tfl_graph *sub = tfl_graph_subgraph(g, index);
  char w[32];
  if (!sub)
    tfl_fail(diag, TFL_ERR_FORMAT, "%snode %d (%s): %s subgraph %d out of range (the model has %d subgraph%s; "
             "0, the main one, cannot be run by a node)", where_sg(g, w, sizeof w), ni, tfl_op_name(g->nodes[ni].op),
             role, index, root->n_subgraphs > 1 ? root->n_subgraphs : 1, root->n_subgraphs > 1 ? "s" : "");
  return sub;
}

/* Tensors a[0..n) of graph ga and b[0..n) of gb have the same types. */
static tfl_status same_types(const tfl_graph *g, int ni, const tfl_graph *ga, const int32_t *a, const char *what_a,
                             const tfl_graph *gb, const int32_t *b, const char *what_b, int n, tfl_diag *diag)
{
  char w[32];
  for (int i = 0; i < n; i++) {
    tfl_type ta = ga->tensors[a[i]].type, tb = gb->tensors[b[i]].type;
    if (ta != tb)
      return tfl_fail(diag, TFL_ERR_FORMAT, "%snode %d (%s): %s %d is %s, %s %d is %s", where_sg(g, w, sizeof w), ni,
                      tfl_op_name(g->nodes[ni].op), what_a, i, tfl_type_name(ta), what_b, i, tfl_type_name(tb));
  }
  return TFL_OK;
}

/* Node ni of g (WHILE, IF, CALL_ONCE): its subgraph indices name subgraphs of the model whose
 * inputs and outputs match the node's in count and type, as TFLite's Prepare requires. */
static tfl_status check_control_node(const tfl_graph *g, int ni, tfl_diag *diag)
{
  const tfl_node *n = &g->nodes[ni];
  const char *op = tfl_op_name(n->op);
  char w[32];
  for (int i = 0; i < n->n_in; i++)
    if (n->in[i] < 0)
      return tfl_fail(diag, TFL_ERR_FORMAT, "%snode %d (%s): input %d is missing", where_sg(g, w, sizeof w), ni, op, i);
  if (n->op == TFL_OP_CALL_ONCE) {
    const tfl_graph *init = ref_subgraph(g, ni, n->p.subgraph.a, "init", diag);
    if (!init) return TFL_ERR_FORMAT;
    if (init->n_inputs || init->n_outputs)
      return tfl_fail(diag, TFL_ERR_FORMAT, "%snode %d (%s): init subgraph %d has %d inputs and %d outputs, "
                      "expected none", where_sg(g, w, sizeof w), ni, op, init->index, init->n_inputs, init->n_outputs);
    return TFL_OK;
  }
  bool is_while = n->op == TFL_OP_WHILE;
  const char *ra = is_while ? "cond" : "then", *rb = is_while ? "body" : "else";
  const tfl_graph *a = ref_subgraph(g, ni, n->p.subgraph.a, ra, diag);
  const tfl_graph *b = a ? ref_subgraph(g, ni, n->p.subgraph.b, rb, diag) : NULL;
  if (!b) return TFL_ERR_FORMAT;
  /* IF's input 0 is the predicate; the branches take the rest */
  int skip = is_while ? 0 : 1, n_args = n->n_in - skip;
  if (is_while && a == b)
    return tfl_fail(diag, TFL_ERR_FORMAT, "%snode %d (WHILE): cond and body are both subgraph %d",
                    where_sg(g, w, sizeof w), ni, a->index);
  if (is_while && n->n_out != n->n_in)
    return tfl_fail(diag, TFL_ERR_FORMAT, "%snode %d (WHILE): %d inputs but %d outputs (the loop state is both)",
                    where_sg(g, w, sizeof w), ni, n->n_in, n->n_out);
  const tfl_graph *sg[2] = {a, b};
  const char *role[2] = {ra, rb};
  for (int k = 0; k < 2; k++) {
    int want_out = is_while && k == 0 ? 1 : n->n_out;
    if (sg[k]->n_inputs != n_args || sg[k]->n_outputs != want_out)
      return tfl_fail(diag, TFL_ERR_FORMAT, "%snode %d (%s): %s subgraph %d has %d inputs and %d outputs, expected "
                      "%d and %d", where_sg(g, w, sizeof w), ni, op, role[k], sg[k]->index, sg[k]->n_inputs,
                      sg[k]->n_outputs, n_args, want_out);
    tfl_status s = same_types(g, ni, g, n->in + skip, "input", sg[k], sg[k]->inputs, "its subgraph's input", n_args,
                              diag);
    if (s == TFL_OK && !(is_while && k == 0))
      s = same_types(g, ni, g, n->out, "output", sg[k], sg[k]->outputs, "its subgraph's output", n->n_out, diag);
    if (s != TFL_OK) return tfl_fail_prefix(diag, s, "%s subgraph %d", role[k], sg[k]->index);
  }
  if (is_while && a->tensors[a->outputs[0]].type != TFL_TYPE_BOOL)
    return tfl_fail(diag, TFL_ERR_FORMAT, "%snode %d (WHILE): cond subgraph %d outputs %s, expected BOOL",
                    where_sg(g, w, sizeof w), ni, a->index, tfl_type_name(a->tensors[a->outputs[0]].type));
  if (!is_while && g->tensors[n->in[0]].type != TFL_TYPE_BOOL)
    return tfl_fail(diag, TFL_ERR_FORMAT, "%snode %d (IF): the predicate (input 0) is %s, expected BOOL",
                    where_sg(g, w, sizeof w), ni, tfl_type_name(g->tensors[n->in[0]].type));
  return TFL_OK;
}

static bool is_control(tfl_op op)
{
  return op == TFL_OP_WHILE || op == TFL_OP_IF || op == TFL_OP_CALL_ONCE;
}

/* Depth-first from graph g: every control node checked, and no subgraph runs itself through
 * a chain of nodes (TFLite would recurse without end; our kernels prepare each subgraph's
 * interpreter inside the caller's). color: 0 not seen, 1 on the current path, 2 done. */
static tfl_status check_control(const tfl_graph *g, uint8_t *color, tfl_diag *diag)
{
  color[g->index] = 1;
  for (int ni = 0; ni < g->n_nodes; ni++) {
    const tfl_node *n = &g->nodes[ni];
    if (!is_control(n->op)) continue;
    tfl_status s = check_control_node(g, ni, diag);
    if (s != TFL_OK) return s;
    int refs[2] = {n->p.subgraph.a, n->op == TFL_OP_CALL_ONCE ? -1 : n->p.subgraph.b};
    for (int k = 0; k < 2; k++) {
      if (refs[k] < 0) continue;
      const tfl_graph *sub = tfl_graph_subgraph(g, refs[k]);
      char w[32];
      if (color[refs[k]] == 1)
        return tfl_fail(diag, TFL_ERR_UNSUPPORTED, "%snode %d (%s): subgraph %d runs itself (recursive control "
                        "flow)", where_sg(g, w, sizeof w), ni, tfl_op_name(n->op), refs[k]);
      if (color[refs[k]] == 0 && (s = check_control(sub, color, diag)) != TFL_OK) return s;
    }
  }
  color[g->index] = 2;
  return TFL_OK;
}

static tfl_status load(tfl_graph *g, tfl_graph **out, tfl_diag *diag)
{
  loader L;
  memset(&L, 0, sizeof L);
  L.g = g;
  L.diag = diag;
  tfl_status s = parse(&L);
  free(L.codes);
  /* fused activations TFLite's kernels ignore read NONE from here on (tfl_fused_act.h) */
  for (int k = 0; s == TFL_OK && k < (g->n_subgraphs > 1 ? g->n_subgraphs : 1); k++)
    tfl_fused_act_normalize(k ? g->subgraphs[k] : g);
  /* the values the kernels and delegates rely on (tfl_validate.h) */
  if (s == TFL_OK) s = tfl_validate(g, TFL_VALIDATE_LOAD, diag);
  for (int k = 1; s == TFL_OK && k < g->n_subgraphs; k++)
    if ((s = tfl_validate(g->subgraphs[k], TFL_VALIDATE_LOAD, diag)) != TFL_OK)
      tfl_fail_prefix(diag, s, "subgraph %d", k);
  if (s == TFL_OK) {
    uint8_t *color = calloc((size_t)(g->n_subgraphs > 1 ? g->n_subgraphs : 1), 1);
    s = color ? check_control(g, color, diag) : tfl_fail(diag, TFL_ERR_NOMEM, "%d subgraphs", g->n_subgraphs);
    free(color);
  }
  if (s != TFL_OK) {
    tfl_graph_free(g);
    return s;
  }
  *out = g;
  return TFL_OK;
}

tfl_status tfl_load_file(const char *path, tfl_graph **out, tfl_diag *diag)
{
  if (!path || !out) return tfl_fail(diag, TFL_ERR_ARG, "tfl_load_file: NULL argument");
  *out = NULL;
  /* a directory, FIFO or device is named as such, and never blocks the open */
  size_t size = 0;
  int fd = tfl_file_open_read(path, "model", &size, diag);
  if (fd < 0) return TFL_ERR_IO;
  if (size < 8) {
    close(fd);
    return tfl_fail(diag, TFL_ERR_FORMAT, "%s: file has %zu bytes, too short for a model", path, size);
  }
  void *map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
  int err = errno;
  close(fd);
  if (map == MAP_FAILED) return tfl_fail(diag, TFL_ERR_IO, "%s: mmap failed: %s", path, strerror(err));
  tfl_graph *g = calloc(1, sizeof *g);
  if (g) g->batch = 1;
  if (!g || !tfl_graph_set_backing_mmap(g, map, size)) {
    munmap(map, size);
    free(g);
    return tfl_fail(diag, TFL_ERR_NOMEM, "%s: graph", path);
  }
  g->model_bytes = map;
  g->model_size = size;
  tfl_status s = load(g, out, diag);
  if (s != TFL_OK) return tfl_fail_prefix(diag, s, "%s", path);
  return TFL_OK;
}

tfl_status tfl_load_memory(const void *data, size_t size, tfl_graph **out, tfl_diag *diag)
{
  if (!data || !out) return tfl_fail(diag, TFL_ERR_ARG, "tfl_load_memory: NULL argument");
  *out = NULL;
  if (size < 8)
    return tfl_fail(diag, TFL_ERR_FORMAT, "model has %zu bytes, too short for a flatbuffer", size);
  void *copy = NULL;
  if (posix_memalign(&copy, 64, size)) return tfl_fail(diag, TFL_ERR_NOMEM, "%zu-byte model copy", size);
  memcpy(copy, data, size);
  tfl_graph *g = calloc(1, sizeof *g);
  if (!g || !tfl_graph_set_backing_copy(g, copy)) {
    free(copy);
    free(g);
    return tfl_fail(diag, TFL_ERR_NOMEM, "graph");
  }
  g->model_bytes = copy;
  g->model_size = size;
  return load(g, out, diag);
}
