/* onednn_conv.c - convolutions on oneDNN (see onednn_conv.h).
 *
 * Plan: the output rows of each batch are cut into chunks of `chunk_rows`. A chunk reads
 * only the input rows its window needs, so its own top/bottom padding is what is left
 * of the conv's; chunks with the same (output rows, input rows, paddings) share one
 * "class": one primitive, created once (in practice: the first chunk, the middle ones,
 * the last). Input pointers move to the chunk's first input row; oneDNN sees a plain
 * NHWC tensor with the full row stride (the width is clipped the same way).
 * Run: one task per thread slot pulls chunks from an atomic counter; each slot has its
 * own stream, memory objects (data handles set per chunk), scratchpad, and for bf16 the
 * converted input rows, for 8-bit the int32 sums that requant_rows turns into the output.
 * 8-bit 1x1 convs whose few rows split unevenly over the threads run as H * W one-pixel
 * rows (flat_for), cut into chunks of equal size, each slot its own contiguous run of them.
 */
#include "onednn_conv.h"
#include "onednn_fit.h"

#include <oneapi/dnnl/dnnl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_util.h"
#include "kernels/bf16.h"
#include "kernels/requant_rows.h"
#include "kernels/window_sums.h"

/* libgomp's (linked through libdnnl; omp.h is compiler specific). oneDNN sizes its
 * OpenMP team by the calling thread's setting: 1 keeps each chunk on its pool thread. */
void omp_set_num_threads(int n);
int omp_get_max_threads(void);

enum { INPUT = ONEDNN_INPUT, FILTER = ONEDNN_FILTER, BIAS = ONEDNN_BIAS };
enum { MAX_CLASSES = 6, POOL_MAX_CHANNELS = 1024 };
/* Scratch (int32 sums, bf16 rows) per chunk is kept under this many bytes, so it stays in
 * the core's L2 cache between oneDNN writing it and us reading it. */
#define SCRATCH_TARGET (512u * 1024u)

typedef struct {
  int rows_out, rows_in, pad_top, pad_bot;
  dnnl_primitive_t prim;
  dnnl_memory_desc_t src_md, dst_md, z_md;
  dnnl_memory_t weights;  /* reordered for prim */
  bool owns_weights;      /* else shared with an earlier class (same layout) */
  size_t scratch_bytes;
} chunk_class;

typedef struct {
  int cls, batch, row0, in_row0;
} chunk;

typedef struct {
  dnnl_stream_t stream;
  dnnl_memory_t src[MAX_CLASSES], dst[MAX_CLASSES], scratch[MAX_CLASSES], z[MAX_CLASSES];
  dnnl_memory_t zp;       /* 8-bit with an input zero point */
  void *scratch_buf;
  int32_t *acc;           /* 8-bit */
  int32_t *corr, *rowsum; /* 8-bit, shifted weights: window sums, channel sums per pixel */
  uint16_t *cvt;          /* bf16 */
} slot;


struct onednn_conv {
  const tfl_graph *g;
  int node;
  int x_tensor;           /* what the conv reads: its input, or a fused PAD's input */
  int y_tensor;           /* what it writes: its output, or a fused ADD's */
  int z_tensor;           /* a fused ADD's other input (binary post-op), else -1 */
  int z_channels;         /* > 0: z_tensor is a fused channel PAD's input with this many
                             channels: each chunk's output rows are filled with it (zeros
                             past them) and a sum post-op adds the conv to them */
  int binary_index;       /* that post-op's position */
  int add_node;           /* the fused ADD, else -1 */
  int act_node;           /* the fused activation node, else -1 */
  bool src_bf16, dst_bf16;/* bf16: the input already holds bf16 / write the output as bf16 */
  bool z_bf16;            /* bf16: the fused ADD's addend holds bf16 */
  bool z_pooled;          /* z_tensor is a fused MAX_POOL 2x2/2's input (fp32, 2x the rows
                             and columns): the fill takes the maximum of each window */
  tfl_diag *diag;         /* errors of create / run (borrowed for the call, NULL: dropped) */
  onednn_kind kind;
  cpu_features isa;
  onednn_geom s;
  int chunk_rows, n_classes, n_chunks, n_slots;
  bool static_slots;      /* slot i runs chunks [i, i + 1) * n_chunks / n_slots (flat_for) */
  chunk_class cls[MAX_CLASSES];
  chunk *chunks;
  slot *slots;
  dnnl_engine_t eng;
  dnnl_memory_t bias;     /* float kinds with a bias */
  size_t acc_elems, cvt_elems;
  /* 8-bit */
  cpu_requant_rows rq;
  int32_t *rq_bias;
  float *rq_scale;
  int32_t src_zp;
  int32_t *corr_k;        /* shifted weights: 128 - w_zp[oc] */
  cpu_window_geom wg;
  size_t corr_elems, rowsum_elems;
};

/* ---- plan: chunks and their classes ------------------------------------------ */

/* Input rows of output rows [r0, r1), clipped to the tensor: first row, count, and the
 * padding rows left above and below. */
static void chunk_rows_in(const onednn_geom *s, int r0, int r1, int *first, int *count, int *top, int *bot)
{
  const int i0 = r0 * s->sh - s->pad_t;
  const int i1 = (r1 - 1) * s->sh - s->pad_t + (s->KH - 1) * s->dh + 1;
  const int a = i0 < 0 ? 0 : i0, b = i1 > s->H ? s->H : i1;
  *first = a;
  *count = b - a;
  *top = a - i0;
  *bot = i1 - b;
}

static int chunk_rows_for(const onednn_geom *s, onednn_kind kind, int threads)
{
  int rows = (s->OH + threads - 1) / threads;
  size_t per_row = 0;
  if (kind == K_Q8) /* the int32 sums */
    per_row = (size_t)s->OW * (size_t)s->OC * sizeof(int32_t);
  if (kind == K_BF16) /* the converted input rows (none when the input is bf16 already) */
    per_row = (size_t)s->sh * (size_t)s->W * (size_t)s->C * sizeof(uint16_t);
  if (per_row) {
    const size_t cap = SCRATCH_TARGET / per_row;
    if ((size_t)rows > cap) rows = cap < 1 ? 1 : (int)cap;
  }
  return rows < 1 ? 1 : rows;
}

/* 8-bit 1x1 convs (stride 1, no padding) whose rows split unevenly over the threads (one
 * thread 1/32 or more above an even share) with 256 pixels or more per thread: posenet's
 * 23x31 convs. Their rows went 12 / 11 in chunks of 11, 11 and 1 (the int32 sums' cap);
 * as one-pixel rows the threads get equal shares (357 / 356 pixels in 4 chunks of <= 179),
 * each a contiguous run, so each thread keeps reading about the pixels it wrote the step
 * before (cutting by output channels instead made every thread read the other's half of
 * the input: 3% faster where the two cores share an L3, 13% slower where a cache line took
 * 310 ns between them, as this VM's two vCPUs do at times). */
static bool flat_for(const onednn_geom *s, onednn_kind kind, int threads)
{
  if (kind != K_Q8 || s->depthwise || threads < 2 || s->KH != 1 || s->KW != 1 || s->sh != 1 || s->sw != 1 ||
      s->pad_t || s->pad_l || s->pad_r || s->w_used != s->W || s->OH != s->H || s->OW != s->W)
    return false;
  const int share = (s->OH + threads - 1) / threads;
  return 32 * (share * threads - s->OH) >= s->OH && (long)s->OH * s->OW >= 256L * threads;
}

/* Fills c->chunks and the class keys (flat_for: the geometry too). False when a chunk
 * would read no input row or the chunks need more than MAX_CLASSES shapes. */
static bool plan(onednn_conv *c, int threads)
{
  onednn_geom *s = &c->s;
  c->static_slots = flat_for(s, c->kind, threads);
  if (c->static_slots) { /* H * W rows of one pixel, a multiple of `threads` equal chunks */
    s->H = s->OH = s->H * s->W;
    s->W = s->OW = s->w_used = 1;
    const int cap = chunk_rows_for(s, c->kind, 1);
    const int n = ((s->OH + cap - 1) / cap + threads - 1) / threads * threads;
    c->chunk_rows = (s->OH + n - 1) / n;
  } else {
    c->chunk_rows = chunk_rows_for(s, c->kind, threads);
  }
  const int per_batch = (s->OH + c->chunk_rows - 1) / c->chunk_rows;
  c->n_chunks = per_batch * s->N;
  c->chunks = calloc((size_t)c->n_chunks, sizeof *c->chunks);
  if (!c->chunks) return false;
  for (int k = 0; k < per_batch; k++) {
    const int r0 = k * c->chunk_rows, r1 = r0 + c->chunk_rows < s->OH ? r0 + c->chunk_rows : s->OH;
    int first, count, top, bot;
    chunk_rows_in(s, r0, r1, &first, &count, &top, &bot);
    if (count < 1) return false;
    int cl = 0;
    while (cl < c->n_classes && !(c->cls[cl].rows_out == r1 - r0 && c->cls[cl].rows_in == count &&
                                  c->cls[cl].pad_top == top && c->cls[cl].pad_bot == bot))
      cl++;
    if (cl == c->n_classes) {
      if (cl == MAX_CLASSES) return false;
      c->cls[cl] = (chunk_class){.rows_out = r1 - r0, .rows_in = count, .pad_top = top, .pad_bot = bot};
      c->n_classes++;
    }
    for (int bi = 0; bi < s->N; bi++)
      c->chunks[bi * per_batch + k] = (chunk){cl, bi, r0, first};
  }
  return true;
}

/* ---- oneDNN objects -------------------------------------------------------------- */

static dnnl_data_type_t src_type(const onednn_conv *c, const tfl_tensor *x)
{
  if (c->kind == K_BF16) return dnnl_bf16;
  if (c->kind == K_Q8) return x->type == TFL_TYPE_UINT8 ? dnnl_u8 : dnnl_s8;
  return dnnl_f32;
}

static tfl_status dn(dnnl_status_t st, const onednn_conv *c, const char *what)
{
  if (st == dnnl_success) return TFL_OK;
  return tfl_fail(c->diag, TFL_ERR_BACKEND, "node %d (%s): oneDNN %s failed (status %d)", c->node,
                   tfl_op_name(c->g->nodes[c->node].op), what, (int)st);
}

static void weights_dims(const onednn_geom *s, int *nd, dnnl_dims_t d)
{
  if (s->depthwise) {
    *nd = 5;
    d[0] = s->groups;
    d[1] = s->OC / s->groups;
    d[2] = 1;
    d[3] = s->KH;
    d[4] = s->KW;
  } else {
    *nd = 4;
    d[0] = s->OC;
    d[1] = s->C;
    d[2] = s->KH;
    d[3] = s->KW;
  }
}

/* A clamp activation as an eltwise post-op (NONE: nothing). */
static tfl_status append_activation(onednn_conv *c, dnnl_post_ops_t po, tfl_activation act)
{
  if (act == TFL_ACT_NONE) return TFL_OK;
  float lo, hi;
  cpu_activation_range_f(act, &lo, &hi);
  return dn(act == TFL_ACT_RELU ? dnnl_post_ops_append_eltwise(po, 1.0f, dnnl_eltwise_relu, 0.0f, 0.0f)
                                : dnnl_post_ops_append_eltwise(po, 1.0f, dnnl_eltwise_clip, lo, hi),
            c, "activation post-op");
}

/* An activation node (RELU, RELU6, HARD_SWISH, LOGISTIC) as a post-op. */
static tfl_status append_act_node(onednn_conv *c, dnnl_post_ops_t po, tfl_op op)
{
  if (op == TFL_OP_RELU) return append_activation(c, po, TFL_ACT_RELU);
  if (op == TFL_OP_RELU6) return append_activation(c, po, TFL_ACT_RELU6);
  return dn(dnnl_post_ops_append_eltwise(po, 1.0f, op == TFL_OP_HARD_SWISH ? dnnl_eltwise_hardswish
                                                                           : dnnl_eltwise_logistic, 0.0f, 0.0f),
            c, "activation node post-op");
}

/* The primitive descriptor of class k (caller destroys it). */
static tfl_status class_pd(onednn_conv *c, int k, dnnl_primitive_desc_t *pd)
{
  const onednn_geom *s = &c->s;
  chunk_class *cl = &c->cls[k];
  const tfl_node *n = &c->g->nodes[c->node];
  const tfl_tensor *x = onednn_in(c->g, n, INPUT), *b = onednn_in(c->g, n, BIAS);
  /* NHWC with the full input row stride (the width may be clipped) */
  dnnl_dims_t sd = {1, s->C, cl->rows_in, s->w_used};
  dnnl_dims_t ss = {(dnnl_dim_t)cl->rows_in * s->W * s->C, 1, (dnnl_dim_t)s->W * s->C, s->C};
  dnnl_dims_t dd = {1, s->OC, cl->rows_out, s->OW};
  dnnl_dims_t wd, bd = {s->OC};
  int wnd;
  weights_dims(s, &wnd, wd);
  dnnl_memory_desc_t wmd, bmd;
  tfl_status st;
  if ((st = dn(dnnl_memory_desc_init_by_strides(&cl->src_md, 4, sd, src_type(c, x), ss), c, "source desc")) ||
      (st = dn(dnnl_memory_desc_init_by_tag(&cl->dst_md, 4, dd,
                                            c->kind == K_Q8 ? dnnl_s32 : (c->dst_bf16 ? dnnl_bf16 : dnnl_f32),
                                            dnnl_nhwc),
               c, "destination desc")) ||
      (st = dn(dnnl_memory_desc_init_by_tag(&wmd, wnd, wd,
                                            c->kind == K_Q8 ? dnnl_s8 : (c->kind == K_BF16 ? dnnl_bf16 : dnnl_f32),
                                            dnnl_format_tag_any),
               c, "weights desc")) ||
      (st = dn(dnnl_memory_desc_init_by_tag(&bmd, 1, bd, dnnl_f32, dnnl_a), c, "bias desc")))
    return st;
  const bool with_bias = b && c->kind != K_Q8;
  dnnl_dims_t strides = {s->sh, s->sw}, dil = {s->dh - 1, s->dw - 1};
  dnnl_dims_t pl = {cl->pad_top, s->pad_l}, pr = {cl->pad_bot, s->pad_r};
  dnnl_convolution_desc_t cd;
  if ((st = dn(dnnl_dilated_convolution_forward_desc_init(&cd, dnnl_forward_inference, dnnl_convolution_direct,
                                                          &cl->src_md, &wmd, with_bias ? &bmd : NULL,
                                                          &cl->dst_md, strides, dil, pl, pr),
               c, "convolution desc")))
    return st;
  dnnl_primitive_attr_t attr = NULL;
  dnnl_post_ops_t po = NULL;
  st = dn(dnnl_primitive_attr_create(&attr), c, "attributes");
  if (!st) st = dn(dnnl_primitive_attr_set_scratchpad_mode(attr, dnnl_scratchpad_mode_user), c, "scratchpad mode");
  if (!st && c->kind == K_Q8 && c->src_zp != 0) {
    const int32_t rt = DNNL_RUNTIME_S32_VAL;
    st = dn(dnnl_primitive_attr_set_zero_points(attr, DNNL_ARG_SRC, 1, 0, &rt), c, "zero point");
  }
  const tfl_activation add_act = c->z_tensor >= 0 ? c->g->nodes[c->add_node].p.eltwise.act : TFL_ACT_NONE;
  if (!st && c->kind != K_Q8 && (n->p.conv.act != TFL_ACT_NONE || c->z_tensor >= 0 || c->act_node >= 0)) {
    st = dn(dnnl_post_ops_create(&po), c, "post-ops");
    if (!st) st = append_activation(c, po, n->p.conv.act);
    if (!st && c->z_tensor >= 0 && c->z_channels) { /* + the addend already in dst */
      st = dn(dnnl_post_ops_append_sum(po, 1.0f), c, "sum post-op");
      if (!st) st = append_activation(c, po, add_act);
    } else if (!st && c->z_tensor >= 0) { /* a fused ADD: + z, then its activation */
      dnnl_dims_t zd = {1, s->OC, cl->rows_out, s->OW};
      st = dn(dnnl_memory_desc_init_by_tag(&cl->z_md, 4, zd, c->z_bf16 ? dnnl_bf16 : dnnl_f32, dnnl_nhwc), c,
              "addend desc");
      c->binary_index = dnnl_post_ops_len(po);
      if (!st) st = dn(dnnl_post_ops_append_binary(po, dnnl_binary_add, &cl->z_md), c, "add post-op");
      if (!st) st = append_activation(c, po, add_act);
    }
    if (!st && c->act_node >= 0) /* a fused activation node */
      st = append_act_node(c, po, c->g->nodes[c->act_node].op);
    if (!st) st = dn(dnnl_primitive_attr_set_post_ops(attr, po), c, "post-ops");
  }
  if (!st) st = dn(dnnl_primitive_desc_create(pd, &cd, attr, c->eng, NULL), c, "primitive desc");
  if (po) dnnl_post_ops_destroy(po);
  if (attr) dnnl_primitive_attr_destroy(attr);
  return st;
}

/* oneDNN's reference implementations are far slower than XNNPACK: only JIT code counts. */
static bool pd_is_jit(dnnl_primitive_desc_t pd)
{
  const char *impl = NULL;
  if (dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl) != dnnl_success || !impl) return false;
  return strstr(impl, "ref") == NULL;
}

/* Weights as TFLite stores them (OC,KH,KW,IC / 1,KH,KW,OC), reordered into `md`. 8-bit
 * weights minus their zero points are first written as int8. */
static tfl_status reorder_weights(onednn_conv *c, const dnnl_memory_desc_t *md, dnnl_memory_t *out)
{
  const onednn_geom *s = &c->s;
  const tfl_node *n = &c->g->nodes[c->node];
  const tfl_tensor *w = onednn_in(c->g, n, FILTER);
  dnnl_dims_t wd, ws;
  int wnd;
  weights_dims(s, &wnd, wd);
  if (s->depthwise) { /* [KH][KW][G*M]: g stride M, m stride 1 */
    const dnnl_dim_t M = s->OC / s->groups;
    ws[0] = M;
    ws[1] = 1;
    ws[2] = 1;
    ws[3] = (dnnl_dim_t)s->KW * s->OC;
    ws[4] = s->OC;
  } else { /* [OC][KH][KW][IC] */
    ws[0] = (dnnl_dim_t)s->KH * s->KW * s->C;
    ws[1] = 1;
    ws[2] = (dnnl_dim_t)s->KW * s->C;
    ws[3] = s->C;
  }
  void *data = w->data, *converted = NULL;
  if (c->kind == K_Q8) {
    const size_t count = tfl_tensor_count(w), per_oc = s->depthwise ? 1 : count / (size_t)s->OC;
    int8_t *q = malloc(count ? count : 1);
    if (!q) return tfl_fail(c->diag, TFL_ERR_NOMEM, "node %d: int8 weights", c->node);
    for (size_t i = 0; i < count; i++) {
      const int oc = s->depthwise ? (int)(i % (size_t)s->OC) : (int)(i / per_oc);
      const int32_t zero = s->shifted ? 128 : cpu_zero_point(w, oc);
      q[i] = (int8_t)((w->type == TFL_TYPE_UINT8 ? ((const uint8_t *)w->data)[i] : ((const int8_t *)w->data)[i]) -
                      zero);
    }
    data = converted = q;
  }
  dnnl_memory_desc_t umd;
  dnnl_memory_t user = NULL;
  dnnl_primitive_desc_t rpd = NULL;
  dnnl_primitive_t rp = NULL;
  dnnl_stream_t stream = NULL;
  tfl_status st = dn(dnnl_memory_desc_init_by_strides(&umd, wnd, wd, c->kind == K_Q8 ? dnnl_s8 : dnnl_f32, ws), c,
                     "user weights desc");
  if (!st) st = dn(dnnl_memory_create(&user, &umd, c->eng, data), c, "user weights");
  if (!st) st = dn(dnnl_memory_create(out, md, c->eng, DNNL_MEMORY_ALLOCATE), c, "weights");
  if (!st) st = dn(dnnl_reorder_primitive_desc_create(&rpd, &umd, c->eng, md, c->eng, NULL), c, "weights reorder desc");
  if (!st) st = dn(dnnl_primitive_create(&rp, rpd), c, "weights reorder");
  if (!st) st = dn(dnnl_stream_create(&stream, c->eng, dnnl_stream_default_flags), c, "stream");
  if (!st) {
    dnnl_exec_arg_t args[2] = {{DNNL_ARG_FROM, user}, {DNNL_ARG_TO, *out}};
    st = dn(dnnl_primitive_execute(rp, stream, 2, args), c, "weights reorder");
    if (!st) st = dn(dnnl_stream_wait(stream), c, "weights reorder");
  }
  if (stream) dnnl_stream_destroy(stream);
  if (rp) dnnl_primitive_destroy(rp);
  if (rpd) dnnl_primitive_desc_destroy(rpd);
  if (user) dnnl_memory_destroy(user);
  free(converted);
  return st;
}

static tfl_status make_class(onednn_conv *c, int k)
{
  chunk_class *cl = &c->cls[k];
  dnnl_primitive_desc_t pd = NULL;
  tfl_status st = class_pd(c, k, &pd);
  if (!st && !pd_is_jit(pd))
    st = tfl_fail(c->diag, TFL_ERR_UNSUPPORTED, "node %d: oneDNN has no JIT convolution for it here", c->node);
  if (!st) st = dn(dnnl_primitive_create(&cl->prim, pd), c, "primitive");
  if (!st) {
    const dnnl_memory_desc_t *wmd = dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
    const dnnl_memory_desc_t *smd = dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0);
    cl->scratch_bytes = smd ? dnnl_memory_desc_get_size(smd) : 0;
    for (int j = 0; j < k && !cl->weights; j++) { /* same layout as an earlier class: share */
      const dnnl_memory_desc_t *other;
      if (dnnl_memory_get_memory_desc(c->cls[j].weights, &other) == dnnl_success &&
          dnnl_memory_desc_equal(other, wmd))
        cl->weights = c->cls[j].weights;
    }
    if (!cl->weights) {
      st = reorder_weights(c, wmd, &cl->weights);
      cl->owns_weights = st == TFL_OK;
    }
  }
  if (pd) dnnl_primitive_desc_destroy(pd);
  return st;
}

static tfl_status make_slots(onednn_conv *c, int threads)
{
  c->n_slots = threads < c->n_chunks ? threads : c->n_chunks;
  c->slots = calloc((size_t)c->n_slots, sizeof *c->slots);
  if (!c->slots) return tfl_fail(c->diag, TFL_ERR_NOMEM, "node %d: oneDNN slots", c->node);
  size_t scratch = 0;
  for (int k = 0; k < c->n_classes; k++) {
    if (c->cls[k].scratch_bytes > scratch) scratch = c->cls[k].scratch_bytes;
    const size_t acc = (size_t)c->cls[k].rows_out * c->s.OW * c->s.OC;
    const size_t cvt = (size_t)c->cls[k].rows_in * c->s.W * c->s.C;
    if (c->kind == K_Q8 && acc > c->acc_elems) c->acc_elems = acc;
    if (c->s.shifted) {
      const size_t corr = (size_t)c->cls[k].rows_out * c->s.OW;
      const size_t rs = (size_t)c->cls[k].rows_in * c->s.W;
      if (corr > c->corr_elems) c->corr_elems = corr;
      if (rs > c->rowsum_elems) c->rowsum_elems = rs;
    }
    if (c->kind == K_BF16 && !c->src_bf16 && cvt > c->cvt_elems) c->cvt_elems = cvt;
  }
  tfl_status st = TFL_OK;
  for (int i = 0; i < c->n_slots && !st; i++) {
    slot *sl = &c->slots[i];
    st = dn(dnnl_stream_create(&sl->stream, c->eng, dnnl_stream_default_flags), c, "stream");
    if (!st && scratch && !(sl->scratch_buf = aligned_alloc(64, (scratch + 63) / 64 * 64)))
      st = tfl_fail(c->diag, TFL_ERR_NOMEM, "node %d: oneDNN scratchpad", c->node);
    if (!st && c->acc_elems && !(sl->acc = aligned_alloc(64, (c->acc_elems * 4 + 63) / 64 * 64)))
      st = tfl_fail(c->diag, TFL_ERR_NOMEM, "node %d: int32 sums", c->node);
    if (!st && c->corr_elems && !(sl->corr = malloc(c->corr_elems * sizeof(int32_t))))
      st = tfl_fail(c->diag, TFL_ERR_NOMEM, "node %d: window sums", c->node);
    if (!st && c->rowsum_elems && !(sl->rowsum = malloc(c->rowsum_elems * sizeof(int32_t))))
      st = tfl_fail(c->diag, TFL_ERR_NOMEM, "node %d: channel sums", c->node);
    if (!st && c->cvt_elems && !(sl->cvt = aligned_alloc(64, (c->cvt_elems * 2 + 63) / 64 * 64)))
      st = tfl_fail(c->diag, TFL_ERR_NOMEM, "node %d: bf16 rows", c->node);
    for (int k = 0; k < c->n_classes && !st; k++) {
      chunk_class *cl = &c->cls[k];
      st = dn(dnnl_memory_create(&sl->src[k], &cl->src_md, c->eng, DNNL_MEMORY_NONE), c, "source memory");
      if (!st) st = dn(dnnl_memory_create(&sl->dst[k], &cl->dst_md, c->eng, DNNL_MEMORY_NONE), c, "output memory");
      if (!st && c->z_tensor >= 0 && !c->z_channels)
        st = dn(dnnl_memory_create(&sl->z[k], &cl->z_md, c->eng, DNNL_MEMORY_NONE), c, "addend memory");
      if (!st && cl->scratch_bytes) {
        dnnl_primitive_desc_t pd = NULL;
        const dnnl_memory_desc_t *smd;
        st = dn(dnnl_primitive_get_primitive_desc(cl->prim, (const_dnnl_primitive_desc_t *)&pd), c, "query");
        smd = st ? NULL : dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0);
        if (!st) st = dn(dnnl_memory_create(&sl->scratch[k], smd, c->eng, sl->scratch_buf), c, "scratchpad memory");
      }
    }
    if (!st && c->kind == K_Q8 && c->src_zp != 0) {
      dnnl_memory_desc_t zmd;
      dnnl_dims_t one = {1};
      st = dn(dnnl_memory_desc_init_by_tag(&zmd, 1, one, dnnl_s32, dnnl_a), c, "zero point desc");
      if (!st) st = dn(dnnl_memory_create(&sl->zp, &zmd, c->eng, &c->src_zp), c, "zero point memory");
    }
  }
  return st;
}

/* 8-bit: the reference's requantization tables (conv_common.h: cpu_requant_prepare). */
static tfl_status make_requant(onednn_conv *c)
{
  const tfl_node *n = &c->g->nodes[c->node];
  const tfl_tensor *x = onednn_in(c->g, n, INPUT), *w = onednn_in(c->g, n, FILTER), *b = onednn_in(c->g, n, BIAS);
  const tfl_tensor *y = onednn_out(c->g, n);
  const int OC = c->s.OC;
  c->rq_scale = malloc(sizeof(float) * (size_t)OC);
  if (!c->rq_scale) return tfl_fail(c->diag, TFL_ERR_NOMEM, "node %d: requant tables", c->node);
  for (int oc = 0; oc < OC; oc++) {
    c->rq_scale[oc] = cpu_requant_scale(cpu_scale(x, 0), cpu_scale(w, oc), cpu_scale(y, 0));
    if (!(c->rq_scale[oc] > 0.0f && c->rq_scale[oc] < 1e6f))
      return tfl_fail(c->diag, TFL_ERR_FORMAT, "node %d: channel %d: scales give multiplier %g", c->node, oc,
                       (double)c->rq_scale[oc]);
  }
  c->src_zp = cpu_zero_point(x, 0);
  c->rq = (cpu_requant_rows){.channels = OC, .bias = b ? (const int32_t *)b->data : NULL, .scale = c->rq_scale,
                             .zero_point = cpu_zero_point(y, 0), .is_u8 = y->type == TFL_TYPE_UINT8};
  cpu_activation_range_q(n->p.conv.act, cpu_scale(y, 0), c->rq.zero_point, y->type, &c->rq.lo, &c->rq.hi);
  if (c->s.shifted) {
    const onednn_geom *s = &c->s;
    c->corr_k = malloc(sizeof(int32_t) * (size_t)OC);
    if (!c->corr_k) return tfl_fail(c->diag, TFL_ERR_NOMEM, "node %d: correction factors", c->node);
    for (int oc = 0; oc < OC; oc++) c->corr_k[oc] = 128 - cpu_zero_point(w, oc);
    c->rq.corr_k = c->corr_k; /* dense convs: one window sum per pixel */
    c->wg = (cpu_window_geom){.W = s->W, .C = s->C, .OW = s->OW, .KH = s->KH, .KW = s->KW, .sh = s->sh,
                              .sw = s->sw, .dh = s->dh, .dw = s->dw, .pad_l = s->pad_l, .zero_point = c->src_zp,
                              .is_u8 = x->type == TFL_TYPE_UINT8};
  }
  return TFL_OK;
}

static tfl_status make_bias(onednn_conv *c)
{
  const tfl_tensor *b = onednn_in(c->g, &c->g->nodes[c->node], BIAS);
  if (!b || c->kind == K_Q8) return TFL_OK;
  dnnl_memory_desc_t bmd;
  dnnl_dims_t bd = {c->s.OC};
  tfl_status st = dn(dnnl_memory_desc_init_by_tag(&bmd, 1, bd, dnnl_f32, dnnl_a), c, "bias desc");
  if (!st) st = dn(dnnl_memory_create(&c->bias, &bmd, c->eng, b->data), c, "bias memory");
  return st;
}

/* Runs f(c) with oneDNN's OpenMP team held at one thread on this thread. */
static tfl_status single_threaded(tfl_status (*f)(onednn_conv *, int), onednn_conv *c, int arg)
{
  const int prev = omp_get_max_threads();
  omp_set_num_threads(1);
  tfl_status st = f(c, arg);
  omp_set_num_threads(prev);
  return st;
}

static tfl_status build(onednn_conv *c, int threads)
{
  tfl_status st = dn(dnnl_engine_create(&c->eng, dnnl_cpu, 0), c, "engine");
  if (!st && !plan(c, threads))
    st = tfl_fail(c->diag, TFL_ERR_UNSUPPORTED, "node %d: cannot cut the output rows into chunks", c->node);
  if (!st && c->kind == K_Q8) st = make_requant(c); /* after plan: its geometry */
  for (int k = 0; k < c->n_classes && !st; k++) st = make_class(c, k);
  if (!st) st = make_bias(c);
  if (!st) st = make_slots(c, threads);
  return st;
}

/* ---- public ------------------------------------------------------------------------- */

void onednn_conv_free(onednn_conv *c)
{
  if (!c) return;
  for (int i = 0; c->slots && i < c->n_slots; i++) {
    slot *sl = &c->slots[i];
    for (int k = 0; k < MAX_CLASSES; k++) {
      if (sl->src[k]) dnnl_memory_destroy(sl->src[k]);
      if (sl->dst[k]) dnnl_memory_destroy(sl->dst[k]);
      if (sl->scratch[k]) dnnl_memory_destroy(sl->scratch[k]);
      if (sl->z[k]) dnnl_memory_destroy(sl->z[k]);
    }
    if (sl->zp) dnnl_memory_destroy(sl->zp);
    if (sl->stream) dnnl_stream_destroy(sl->stream);
    free(sl->scratch_buf);
    free(sl->acc);
    free(sl->corr);
    free(sl->rowsum);
    free(sl->cvt);
  }
  for (int k = 0; k < c->n_classes; k++) {
    if (c->cls[k].prim) dnnl_primitive_destroy(c->cls[k].prim);
    if (c->cls[k].owns_weights) dnnl_memory_destroy(c->cls[k].weights);
  }
  if (c->bias) dnnl_memory_destroy(c->bias);
  if (c->eng) dnnl_engine_destroy(c->eng);
  free(c->slots);
  free(c->chunks);
  free(c->rq_scale);
  free(c->corr_k);
  free(c);
}

static tfl_status probe(onednn_conv *c, int threads)
{
  tfl_status st = dn(dnnl_engine_create(&c->eng, dnnl_cpu, 0), c, "engine");
  if (!st && !plan(c, threads)) st = TFL_ERR_UNSUPPORTED;
  for (int k = 0; k < c->n_classes && !st; k++) {
    dnnl_primitive_desc_t pd = NULL;
    st = class_pd(c, k, &pd);
    if (!st && !pd_is_jit(pd)) st = TFL_ERR_UNSUPPORTED;
    if (pd) dnnl_primitive_desc_destroy(pd);
  }
  return st;
}

bool onednn_conv_preferred(const tfl_graph *g, int node, const onednn_conv_options *o)
{
  if (!g || !o || node < 0 || node >= g->n_nodes) return false;
  onednn_geom s;
  onednn_kind kind;
  return onednn_fit_node(g, &g->nodes[node], o->pad_node, &s, &kind, o->bf16) && onednn_fit_worth_it(&s, kind) &&
         onednn_conv_applies(g, node, o);
}

/* Whether oneDNN's 8-bit convolutions are exact here: with VNNI (vpdpbusd) they sum u8 x s8
 * products in int32. Below it (AVX2 only, valgrind's CPUID, ONEDNN_MAX_CPU_ISA=AVX2) they
 * pair them in int16 (vpmaddubsw) and halve s8 weights against saturation, so odd weights
 * lose a bit (8 steps off on opmodels conv_2d_int8_full_weights_3x3); u8 inputs are not
 * halved and can saturate. Asked of oneDNN itself, which sees both the CPU and the cap. */
static bool int8_exact(void)
{
  const unsigned isa = (unsigned)dnnl_get_effective_cpu_isa();
  const unsigned avx512_vnni = (unsigned)dnnl_cpu_isa_avx512_core_vnni, avx2_vnni = (unsigned)dnnl_cpu_isa_avx2_vnni;
  return (isa & avx512_vnni) == avx512_vnni || (isa & avx2_vnni) == avx2_vnni;
}

bool onednn_conv_applies(const tfl_graph *g, int node, const onednn_conv_options *o)
{
  if (!g || !o || node < 0 || node >= g->n_nodes) return false;
  /* oneDNN's arm64 convolutions are SVE code, which no CI machine checks (under qemu's
   * 512-bit SVE the selfie models came out up to 1.0 off): XNNPACK and ours keep them */
  if (o->isa.sve) return false;
  onednn_conv c = {.g = g, .node = node, .isa = o->isa, .add_node = o->add_node, .act_node = o->act_node,
                   .z_tensor = -1, .z_bf16 = o->bf16 && o->z_bf16 && o->add_node >= 0};
  if (!onednn_fit_node(g, &g->nodes[node], o->pad_node, &c.s, &c.kind, o->bf16)) return false;
  if (c.kind == K_Q8 && !int8_exact()) return false; /* left to XNNPACK or our kernels */
  if (c.kind == K_Q8) c.src_zp = cpu_zero_point(onednn_in(g, &g->nodes[node], INPUT), 0);
  if (o->add_node >= 0) {
    if (c.kind == K_Q8 || onednn_conv_fusable_add(g, node) != o->add_node) return false;
    c.z_tensor = onednn_conv_addend(g, node, o->add_node, &c.z_channels);
  }
  if (o->act_node >= 0) {
    const int t = o->add_node >= 0 ? g->nodes[o->add_node].out[0] : g->nodes[node].out[0];
    if (c.kind == K_Q8 || onednn_conv_fusable_act(g, t) != o->act_node) return false;
  }
  const tfl_status st = single_threaded(probe, &c, o->threads < 1 ? 1 : o->threads);
  free(c.chunks);
  if (c.eng) dnnl_engine_destroy(c.eng);
  return st == TFL_OK;
}

tfl_status onednn_conv_create(const tfl_graph *g, int node, const onednn_conv_options *o, onednn_conv **out,
                              tfl_diag *diag)
{
  *out = NULL;
  if (!g || !o || node < 0 || node >= g->n_nodes) return tfl_fail(diag, TFL_ERR_ARG, "onednn conv: bad node %d", node);
  onednn_conv *c = calloc(1, sizeof *c);
  if (!c) return tfl_fail(diag, TFL_ERR_NOMEM, "onednn conv");
  c->g = g;
  c->node = node;
  c->diag = diag;
  c->isa = o->isa;
  c->x_tensor = o->pad_node >= 0 ? g->nodes[o->pad_node].in[0] : g->nodes[node].in[INPUT];
  c->src_bf16 = o->bf16 && o->src_bf16;
  c->dst_bf16 = o->bf16 && o->dst_bf16;
  c->z_bf16 = o->bf16 && o->z_bf16 && o->add_node >= 0;
  c->add_node = o->add_node;
  c->act_node = o->act_node;
  c->y_tensor = g->nodes[node].out[0];
  c->z_tensor = -1;
  if (o->add_node >= 0) {
    if (onednn_conv_fusable_add(g, node) != o->add_node) {
      free(c);
      return tfl_fail(diag, TFL_ERR_ARG, "node %d: node %d is not an ADD it can absorb", node, o->add_node);
    }
    c->y_tensor = g->nodes[o->add_node].out[0];
    c->z_tensor = onednn_conv_addend(g, node, o->add_node, &c->z_channels);
    if (o->pool_addend) {
      const tfl_node *a = &g->nodes[o->add_node];
      const int padded = a->in[0] == g->nodes[node].out[0] ? a->in[1] : a->in[0]; /* the PAD's output */
      const int pool = c->z_channels ? onednn_conv_addend_pool(g, g->tensors[padded].producer) : -1;
      if (pool < 0 || c->z_channels > POOL_MAX_CHANNELS || o->z_bf16) {
        free(c);
        return tfl_fail(diag, TFL_ERR_ARG, "node %d: no MAX_POOL 2x2/2 before its addend's channel PAD", node);
      }
      c->z_tensor = g->nodes[pool].in[0];
      c->z_pooled = true;
    }
  }
  if (o->act_node >= 0) {
    if (onednn_conv_fusable_act(g, c->y_tensor) != o->act_node || c->kind == K_Q8) {
      free(c);
      return tfl_fail(diag, TFL_ERR_ARG, "node %d: node %d is not an activation it can absorb", node, o->act_node);
    }
    c->y_tensor = g->nodes[o->act_node].out[0];
  }
  if (!onednn_fit_node(g, &g->nodes[node], o->pad_node, &c->s, &c->kind, o->bf16)) {
    free(c);
    return tfl_fail(diag, TFL_ERR_UNSUPPORTED, "node %d (%s): not a convolution oneDNN takes", node,
                    tfl_op_name(g->nodes[node].op));
  }
  tfl_status st = single_threaded(build, c, o->threads < 1 ? 1 : o->threads);
  c->diag = NULL;
  if (st) {
    onednn_conv_free(c);
    return st;
  }
  *out = c;
  return TFL_OK;
}

typedef struct {
  onednn_conv *c;
  const char *x;
  char *y;
  const char *z;          /* a fused ADD's other addend (binary post-op) */
  const char *zc;         /* or its fewer channels (z_channels), copied into dst first */
  atomic_int next;
  atomic_int failed;      /* a dnnl status, 0 when all went well */
} run_args;

/* y[p] = (max of the 2x2 window of z at p (zc channels), 0...) for the OW pixels of each
 * of `rows` output rows; z fp32 with 2x the rows and columns, y fp32 or bf16 */
static void fill_pooled_addend(const onednn_conv *c, void *y, const float *z, int rows)
{
  const size_t zc = (size_t)c->z_channels, oc = (size_t)c->s.OC, ow = (size_t)c->s.OW;
  const size_t ys = c->dst_bf16 ? 2 : 4, zrow = 2 * ow * zc;
  float m[POOL_MAX_CHANNELS];
  for (int r = 0; r < rows; r++)
    for (size_t x = 0; x < ow; x++) {
      const float *a = z + (size_t)r * 2 * zrow + 2 * x * zc, *b = a + zrow;
      for (size_t k = 0; k < zc; k++) {
        const float u = a[k] > a[zc + k] ? a[k] : a[zc + k], v = b[k] > b[zc + k] ? b[k] : b[zc + k];
        m[k] = u > v ? u : v;
      }
      char *yp = (char *)y + ((size_t)r * ow + x) * oc * ys;
      if (ys == 4)
        memcpy(yp, m, zc * 4);
      else
        cpu_bf16_convert(m, (uint16_t *)(void *)yp, zc, c->isa.avx512_bf16);
      memset(yp + zc * ys, 0, (oc - zc) * ys);
    }
}

/* y[p] = (z[p] (zc channels), 0...) for OC channels per pixel; either may hold bf16 */
static void fill_addend(const onednn_conv *c, void *y, const void *z, size_t pixels)
{
  const size_t zc = (size_t)c->z_channels, oc = (size_t)c->s.OC;
  const size_t ys = c->dst_bf16 ? 2 : 4, zs = c->z_bf16 ? 2 : 4;
  for (size_t p = 0; p < pixels; p++) {
    char *yp = (char *)y + p * oc * ys;
    const char *zp = (const char *)z + p * zc * zs;
    if (ys == zs) {
      memcpy(yp, zp, zc * zs);
    } else if (zs == 2) { /* bf16 -> fp32: the high half */
      for (size_t k = 0; k < zc; k++) ((uint32_t *)(void *)yp)[k] = (uint32_t)((const uint16_t *)(const void *)zp)[k] << 16;
    } else {
      cpu_bf16_convert((const float *)(const void *)zp, (uint16_t *)(void *)yp, zc, c->isa.avx512_bf16);
    }
    memset(yp + zc * ys, 0, (oc - zc) * ys);
  }
}

static void run_chunk(run_args *a, slot *sl, const chunk *ch)
{
  onednn_conv *c = a->c;
  const onednn_geom *s = &c->s;
  chunk_class *cl = &c->cls[ch->cls];
  const size_t in_row = (size_t)s->W * s->C, out_row = (size_t)s->OW * s->OC;
  const size_t in_off = ((size_t)ch->batch * s->H + (size_t)ch->in_row0) * in_row;
  const size_t out_off = ((size_t)ch->batch * s->OH + (size_t)ch->row0) * out_row;
  const size_t in_size = c->kind == K_Q8 ? 1 : (c->src_bf16 ? sizeof(uint16_t) : sizeof(float));
  const size_t out_size = c->kind == K_Q8 ? 1 : (c->dst_bf16 ? sizeof(uint16_t) : sizeof(float));
  const void *src = a->x + in_off * in_size;
  if (c->kind == K_BF16 && !c->src_bf16) {
    cpu_bf16_convert(src, sl->cvt, (size_t)cl->rows_in * in_row, c->isa.avx512_bf16);
    src = sl->cvt;
  }
  void *dst = c->kind == K_Q8 ? (void *)sl->acc : (void *)(a->y + out_off * out_size);
  const size_t z_size = c->z_bf16 ? sizeof(uint16_t) : sizeof(float);
  if (a->zc && c->z_pooled) /* the addend, pooled here */
    fill_pooled_addend(c, dst,
                       (const float *)(const void *)a->zc +
                           ((size_t)ch->batch * s->OH + (size_t)ch->row0) * 4 * s->OW * (size_t)c->z_channels,
                       cl->rows_out);
  else if (a->zc) /* the addend, padded with zeros to OC channels: the sum post-op adds to it */
    fill_addend(c, dst, a->zc + ((size_t)ch->batch * s->OH + (size_t)ch->row0) * s->OW * (size_t)c->z_channels * z_size,
                (size_t)cl->rows_out * s->OW);
  dnnl_status_t st = dnnl_memory_set_data_handle(sl->src[ch->cls], (void *)src);
  if (st == dnnl_success) st = dnnl_memory_set_data_handle(sl->dst[ch->cls], dst);
  if (st == dnnl_success && a->z)
    st = dnnl_memory_set_data_handle(sl->z[ch->cls], (void *)(a->z + out_off * z_size));
  dnnl_exec_arg_t args[7];
  int na = 0;
  args[na++] = (dnnl_exec_arg_t){DNNL_ARG_SRC, sl->src[ch->cls]};
  args[na++] = (dnnl_exec_arg_t){DNNL_ARG_WEIGHTS, cl->weights};
  args[na++] = (dnnl_exec_arg_t){DNNL_ARG_DST, sl->dst[ch->cls]};
  if (c->bias) args[na++] = (dnnl_exec_arg_t){DNNL_ARG_BIAS, c->bias};
  if (sl->scratch[ch->cls]) args[na++] = (dnnl_exec_arg_t){DNNL_ARG_SCRATCHPAD, sl->scratch[ch->cls]};
  if (sl->zp) args[na++] = (dnnl_exec_arg_t){DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC, sl->zp};
  if (a->z)
    args[na++] = (dnnl_exec_arg_t){DNNL_ARG_ATTR_MULTIPLE_POST_OP(c->binary_index) | DNNL_ARG_SRC_1, sl->z[ch->cls]};
  if (st == dnnl_success) st = dnnl_primitive_execute(cl->prim, sl->stream, na, args);
  if (st == dnnl_success) st = dnnl_stream_wait(sl->stream);
  if (st != dnnl_success) {
    atomic_store(&a->failed, (int)st);
    return;
  }
  if (c->kind == K_Q8) {
    if (c->s.shifted)
      cpu_window_sums(&c->wg, src, cl->rows_in, cl->pad_top, cl->rows_out, sl->rowsum, sl->corr);
    cpu_requant_rows_run(&c->rq, sl->acc, sl->corr, a->y + out_off, (size_t)cl->rows_out * s->OW, c->isa.avx512);
  }
}

static void run_slot(void *arg, size_t i)
{
  run_args *a = arg;
  slot *sl = &a->c->slots[i];
  const int prev = omp_get_max_threads();
  omp_set_num_threads(1);
  if (a->c->static_slots) {
    const size_t n = (size_t)a->c->n_chunks, slots = (size_t)a->c->n_slots;
    for (size_t k = n * i / slots; k < n * (i + 1) / slots && !atomic_load(&a->failed); k++)
      run_chunk(a, sl, &a->c->chunks[k]);
  } else {
    for (;;) {
      const int k = atomic_fetch_add(&a->next, 1);
      if (k >= a->c->n_chunks || atomic_load(&a->failed)) break;
      run_chunk(a, sl, &a->c->chunks[k]);
    }
  }
  omp_set_num_threads(prev);
}

tfl_status onednn_conv_run(onednn_conv *c, cpu_ctx *ctx, tfl_diag *diag)
{
  const void *z = c->z_tensor >= 0 ? c->g->tensors[c->z_tensor].data : NULL;
  run_args a = {.c = c, .x = c->g->tensors[c->x_tensor].data, .y = c->g->tensors[c->y_tensor].data,
                .z = c->z_channels ? NULL : z, .zc = c->z_channels ? z : NULL};
  atomic_init(&a.next, 0);
  atomic_init(&a.failed, 0);
  cpu_parallel(ctx, run_slot, &a, (size_t)c->n_slots);
  const int failed = atomic_load(&a.failed);
  if (failed) {
    c->diag = diag;
    const tfl_status st = dn((dnnl_status_t)failed, c, "execute");
    c->diag = NULL;
    return st;
  }
  return TFL_OK;
}
