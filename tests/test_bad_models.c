/* test_bad_models.c - hostile and broken model files give an error, never a crash.
 *
 * 1. Hand-built minimal models (a tiny forward FlatBuffers writer below, TFLite field
 *    ids) with one defect each: unknown op codes, absurd shapes, buffer index out of
 *    range, constant size mismatch, operator tensor index out of range, large-model
 *    buffer offsets outside the file, a node reading its own output or a tensor not
 *    yet written. Each must fail with the named status and a message naming the bad
 *    value.
 * 2. Real models: truncated every 4 KiB and at every byte of the first 2 KiB; seeded
 *    random byte flips and 4-byte words overwritten with hostile values (huge
 *    lengths, offsets past the end) outside the weight data. Each load must return
 *    an error or a graph that passes basic invariants (indices in range, every node
 *    input written before it is read). Run under ASan+UBSan, an
 *    out-of-bounds read is a failure.
 *
 * Usage: test_bad_models SHARED_MODELS_DIR NPM_MODELS_DIR (as test_loader; a missing model
 * is a failure). Env TFL_BAD_ITER scales the random trials (default 1).
 */
#include "check.h"
#include "model_path.h"
#include "runtime/tfl_loader.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- a forward FlatBuffers writer: children always follow their parents --------- */

typedef struct { uint8_t b[4096]; uint32_t n; } fbb;

/* Where every load reports (one thread); warnings are only counted. */
static tfl_diag diag;
static long warnings;
static void quiet(tfl_log_level level, const char *msg, void *user) { warnings++; }

static void w32(fbb *B, uint32_t at, uint32_t v) { memcpy(B->b + at, &v, 4); }
static uint32_t put32(fbb *B, uint32_t v) { w32(B, B->n, v); B->n += 4; return B->n - 4; }
static void align4(fbb *B) { while (B->n % 4) B->b[B->n++] = 0; }

/* A table of k 4-byte slots; bit i of `present` marks field i present. Returns the
 * table position; slot i lives at pos + 4 + 4i. The vtable sits just before it. */
static uint32_t table(fbb *B, int k, uint32_t present, const uint32_t *vals)
{
  align4(B);
  uint32_t vt = B->n;
  int entries = k + (k % 2); /* keep the vtable a multiple of 4 bytes */
  uint16_t h[2] = {(uint16_t)(4 + 2 * entries), (uint16_t)(4 + 4 * k)};
  memcpy(B->b + B->n, h, 4);
  B->n += 4;
  for (int i = 0; i < entries; i++) {
    uint16_t off = (i < k && (present >> i) & 1) ? (uint16_t)(4 + 4 * i) : 0;
    memcpy(B->b + B->n, &off, 2);
    B->n += 2;
  }
  uint32_t pos = B->n;
  put32(B, pos - vt); /* soffset: vtable = pos - soffset */
  for (int i = 0; i < k; i++) put32(B, vals ? vals[i] : 0);
  return pos;
}
static uint32_t slot(uint32_t table_pos, int i) { return table_pos + 4 + 4 * (uint32_t)i; }
static void ref(fbb *B, uint32_t at, uint32_t target) { w32(B, at, target - at); }
static uint32_t ivec(fbb *B, int n, const int32_t *v)
{
  align4(B);
  uint32_t p = put32(B, (uint32_t)n);
  for (int i = 0; i < n; i++) put32(B, (uint32_t)v[i]);
  return p;
}
static uint32_t refvec(fbb *B, int n) /* element i at p + 4 + 4i, patched with ref() */
{
  align4(B);
  uint32_t p = put32(B, (uint32_t)n);
  for (int i = 0; i < n; i++) put32(B, 0);
  return p;
}
static uint32_t str(fbb *B, const char *s)
{
  align4(B);
  uint32_t p = put32(B, (uint32_t)strlen(s));
  memcpy(B->b + B->n, s, strlen(s) + 1);
  B->n += (uint32_t)strlen(s) + 1;
  return p;
}

/* What to break in the minimal model: input tensor 0 -> op -> tensor 1, plus a
 * constant tensor 2 reading buffer 1; with extra_tensor a tensor 3 (no data), with
 * second_op a second RELU second_in -> second_out after the first. */
typedef struct {
  int deprecated_code, builtin_code;  /* -1: field absent */
  const char *custom;
  int ndim;
  int32_t dims[8];
  uint32_t const_buffer;              /* buffer index of tensor 2 */
  int const_bytes;                    /* bytes in buffer 1 */
  int op_input;                       /* tensor index of the op's input */
  uint64_t big_offset, big_size;      /* Buffer.offset/size of buffer 2, 0: absent */
  uint32_t version;
  bool extra_tensor, second_op;
  int second_in, second_out;
} spec;

static spec base_spec(void)
{
  spec s = {.deprecated_code = 19, .builtin_code = 19, .ndim = 2, .dims = {1, 4},
            .const_buffer = 1, .const_bytes = 16, .op_input = 0, .version = 3};
  return s;
}

static uint32_t build(fbb *B, const spec *s)
{
  memset(B, 0, sizeof *B);
  put32(B, 0);                           /* root offset, patched below */
  memcpy(B->b + 4, "TFL3", 4);
  B->n = 8;
  uint32_t model = table(B, 5, 0x17, (uint32_t[]){s->version, 0, 0, 0, 0});
  ref(B, 0, model);
  /* operator_codes */
  uint32_t codes = refvec(B, 1);
  ref(B, slot(model, 1), codes);
  uint32_t present = 0x4 | (s->deprecated_code >= 0) | (s->custom ? 2 : 0) |
                     (s->builtin_code >= 0 ? 8 : 0);
  uint32_t oc = table(B, 4, present, (uint32_t[]){(uint32_t)(s->deprecated_code & 0xff), 0, 1,
                                                  (uint32_t)s->builtin_code});
  ref(B, codes + 4, oc);
  if (s->custom) ref(B, slot(oc, 1), str(B, s->custom));
  /* subgraphs[0] */
  uint32_t sgs = refvec(B, 1);
  ref(B, slot(model, 2), sgs);
  uint32_t sg = table(B, 4, 0xf, NULL);
  ref(B, sgs + 4, sg);
  const int n_tensors = s->extra_tensor ? 4 : 3;
  uint32_t tens = refvec(B, n_tensors);
  ref(B, slot(sg, 0), tens);
  for (int t = 0; t < n_tensors; t++) {
    uint32_t tt = table(B, 4, 0xf, (uint32_t[]){0, 0, t == 2 ? s->const_buffer : 0, 0});
    ref(B, tens + 4 + 4 * (uint32_t)t, tt);
    ref(B, slot(tt, 0), ivec(B, s->ndim, s->dims));
    char nm[16];
    snprintf(nm, sizeof nm, "t%d", t);
    ref(B, slot(tt, 3), str(B, nm));
  }
  ref(B, slot(sg, 1), ivec(B, 1, (int32_t[]){0}));
  ref(B, slot(sg, 2), ivec(B, 1, (int32_t[]){1}));
  uint32_t ops = refvec(B, s->second_op ? 2 : 1);
  ref(B, slot(sg, 3), ops);
  for (int k = 0; k < (s->second_op ? 2 : 1); k++) {
    uint32_t op = table(B, 3, 0x7, NULL);
    ref(B, ops + 4 + 4 * (uint32_t)k, op);
    ref(B, slot(op, 1), ivec(B, 1, (int32_t[]){k ? s->second_in : s->op_input}));
    ref(B, slot(op, 2), ivec(B, 1, (int32_t[]){k ? s->second_out : 1}));
  }
  /* buffers: [0] empty sentinel, [1] const data, [2] offset/size (large models) */
  uint32_t bufs = refvec(B, 3);
  ref(B, slot(model, 4), bufs);
  ref(B, bufs + 4, table(B, 1, 0, NULL));
  uint32_t b1 = table(B, 1, 1, NULL);
  ref(B, bufs + 8, b1);
  align4(B);
  uint32_t data = put32(B, (uint32_t)s->const_bytes);
  for (int i = 0; i < s->const_bytes; i++) B->b[B->n++] = (uint8_t)i;
  ref(B, slot(b1, 0), data);
  /* Buffer{offset 1, size 2}: two 8-byte fields at table offsets 8 and 16 */
  align4(B);
  uint32_t vt = B->n;
  uint16_t v[6] = {12, 24, 0, s->big_offset ? 8 : 0, s->big_offset ? 16 : 0, 0};
  memcpy(B->b + vt, v, 12);
  B->n += 12;
  uint32_t b2 = put32(B, 12);
  put32(B, 0);
  memcpy(B->b + B->n, &s->big_offset, 8);
  memcpy(B->b + B->n + 8, &s->big_size, 8);
  B->n += 16;
  ref(B, bufs + 12, b2);
  return B->n;
}

static void expect(const char *what, const spec *s, tfl_status want, const char *msg_part)
{
  fbb B;
  uint32_t n = build(&B, s);
  tfl_graph *g = NULL;
  tfl_status st = tfl_load_memory(B.b, n, &g, &diag);
  CHECK(st == want, "%s: status %s (%s), expected %s", what, tfl_status_name(st),
        diag.error, tfl_status_name(want));
  if (st != TFL_OK && msg_part)
    CHECK(strstr(diag.error, msg_part) != NULL, "%s: message '%s' lacks '%s'", what,
          diag.error, msg_part);
  if (st == TFL_OK) CHECK(g != NULL, "%s: no graph", what);
  tfl_graph_free(g);
}

static void hand_built(void)
{
  spec s = base_spec();
  expect("valid RELU model", &s, TFL_OK, NULL);
  {
    fbb B;
    uint32_t n = build(&B, &s);
    tfl_graph *g = NULL;
    if (tfl_load_memory(B.b, n, &g, &diag) == TFL_OK) {
      CHECK(g->n_nodes == 1 && g->nodes[0].op == TFL_OP_RELU && g->n_tensors == 3 &&
            g->tensors[2].is_const && g->tensors[2].bytes == 16 &&
            ((const uint8_t *)g->tensors[2].data)[5] == 5 && g->tensors[1].producer == 0 &&
            strcmp(g->tensors[1].name, "t1") == 0,
            "valid model read back wrong");
      /* a big-model buffer range inside the file is accepted */
      tfl_graph_free(g);
    }
  }
  s = base_spec(); s.builtin_code = -1;                  /* old files: byte field only */
  expect("deprecated_builtin_code only", &s, TFL_OK, NULL);
  s = base_spec(); s.deprecated_code = -1;               /* new files: int32 field only */
  expect("builtin_code only", &s, TFL_OK, NULL);
  s = base_spec(); s.deprecated_code = s.builtin_code = 15;
  expect("LSH_PROJECTION", &s, TFL_ERR_UNSUPPORTED, "op code #15 (LSH_PROJECTION) is not supported");
  s = base_spec(); s.deprecated_code = 127; s.builtin_code = 148;
  expect("RANDOM_UNIFORM via builtin_code", &s, TFL_ERR_UNSUPPORTED, "op code #148 (RANDOM_UNIFORM)");
  s = base_spec(); s.deprecated_code = 127; s.builtin_code = 100000;
  expect("op code beyond the schema", &s, TFL_ERR_UNSUPPORTED, "op code #100000");
  s = base_spec(); s.deprecated_code = 32; s.builtin_code = 32; s.custom = "MyFancyOp";
  expect("unknown custom op", &s, TFL_ERR_UNSUPPORTED, "custom op 'MyFancyOp'");
  s = base_spec(); s.deprecated_code = 32; s.builtin_code = 32;
  expect("custom op without name", &s, TFL_ERR_FORMAT, "without a name");
  s = base_spec(); s.dims[0] = -1;
  expect("negative dim", &s, TFL_ERR_FORMAT, "dimension 0 is -1");
  s = base_spec(); s.ndim = 3; s.dims[0] = 65536; s.dims[1] = 65536; s.dims[2] = 2;
  expect("element count overflow", &s, TFL_ERR_FORMAT, "more than 2^31-1 elements");
  s = base_spec(); s.ndim = 8;
  for (int i = 0; i < 8; i++) s.dims[i] = 1;
  s.dims[7] = 4;
  expect("8 dims", &s, TFL_ERR_UNSUPPORTED, "8 dims");
  s = base_spec(); s.const_buffer = 40;
  expect("buffer out of range", &s, TFL_ERR_FORMAT, "buffer 40 out of range (model has 3 buffers)");
  s = base_spec(); s.const_bytes = 12;
  expect("constant size mismatch", &s, TFL_ERR_FORMAT, "has 12 bytes");
  s = base_spec(); s.op_input = 7;
  expect("op input out of range", &s, TFL_ERR_FORMAT, "tensor 7, out of range");
  s = base_spec(); s.op_input = -2;
  expect("op input -2", &s, TFL_ERR_FORMAT, "tensor -2");
  s = base_spec(); s.op_input = -1;                      /* RELU's input is not optional */
  expect("omitted required input", &s, TFL_ERR_FORMAT, "node 0 (RELU): input 0 is missing");
  /* nodes run in file order: an input nothing has written yet is refused (issue 30) */
  s = base_spec(); s.op_input = 1;
  expect("node reads its own output", &s, TFL_ERR_FORMAT,
         "node 0 (RELU): input 0 is tensor 1 (t1), its own output");
  s = base_spec(); s.extra_tensor = s.second_op = true; s.op_input = 3; s.second_in = 0; s.second_out = 3;
  expect("read before write", &s, TFL_ERR_FORMAT,
         "node 0 (RELU): input 0 is tensor 3 (t3), written only later by node 1 (RELU)");
  s = base_spec(); s.extra_tensor = true; s.op_input = 3;
  expect("read of a tensor nothing writes", &s, TFL_ERR_FORMAT,
         "node 0 (RELU): input 0 is tensor 3 (t3), which no node writes");
  s = base_spec(); s.extra_tensor = s.second_op = true; s.second_in = 1; s.second_out = 3;
  expect("two nodes in order", &s, TFL_OK, NULL);
  s = base_spec(); s.version = 2;
  expect("schema version 2", &s, TFL_ERR_UNSUPPORTED, "schema version 2");
  s = base_spec(); s.const_buffer = 2; s.const_bytes = 16; s.big_offset = 8; s.big_size = 16;
  expect("large-model buffer inside the file", &s, TFL_OK, NULL);
  s = base_spec(); s.const_buffer = 2; s.big_offset = 100000; s.big_size = 16;
  expect("large-model buffer past the end", &s, TFL_ERR_FORMAT, "lies outside the file");
  s = base_spec(); s.const_buffer = 2; s.big_offset = 16; s.big_size = UINT64_MAX - 8;
  expect("large-model buffer size wraps", &s, TFL_ERR_FORMAT, "lies outside the file");

  /* not a flatbuffer at all */
  static const uint8_t junk[16] = "0123456789abcdef";
  tfl_graph *g = NULL;
  CHECK(tfl_load_memory(junk, sizeof junk, &g, &diag) == TFL_ERR_FORMAT && !g, "junk accepted");
  CHECK(tfl_load_memory(junk, 3, &g, &diag) == TFL_ERR_FORMAT && !g, "3 bytes accepted");
}

/* ---- mutations of real models --------------------------------------------------- */

static uint64_t rng_state;
static uint32_t rnd(void) /* xorshift64*: seeded, so failures reproduce */
{
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return (uint32_t)((rng_state * 2685821657736338717ull) >> 32);
}

/* Basic invariants of any graph the loader accepts. */
static void sane(const tfl_graph *g, const char *what)
{
  for (int i = 0; i < g->n_nodes; i++) {
    const tfl_node *n = &g->nodes[i];
    for (int k = 0; k < n->n_in; k++)
      if (n->in[k] < -1 || n->in[k] >= g->n_tensors) CHECK(0, "%s: node %d input", what, i);
    for (int k = 0; k < n->n_out; k++)
      if (n->out[k] < 0 || n->out[k] >= g->n_tensors) CHECK(0, "%s: node %d output", what, i);
  }
  /* an accepted graph reads, at each node, only tensors already written in file order */
  for (int i = 0; i < g->n_nodes; i++) {
    const tfl_node *n = &g->nodes[i];
    for (int k = 0; k < n->n_in; k++) {
      int x = n->in[k];
      if (x < 0 || x >= g->n_tensors) continue;
      const tfl_tensor *t = &g->tensors[x];
      bool ok = t->is_const || t->is_variable || (t->producer >= 0 && t->producer < i) || tfl_tensor_count(t) == 0;
      for (int j = 0; !ok && j < g->n_inputs; j++) ok = g->inputs[j] == x;
      if (!ok) CHECK(0, "%s: node %d input %d reads tensor %d before it is written", what, i, k, x);
    }
  }
  volatile uint8_t sink = 0;
  for (int i = 0; i < g->n_tensors; i++) {
    const tfl_tensor *t = &g->tensors[i];
    if (t->ndim < 0 || t->ndim > TFL_MAX_DIMS) CHECK(0, "%s: tensor %d rank", what, i);
    /* touch the ends of constant data: ASan flags a range outside the model */
    if (t->data && t->bytes && !t->sparsity) {
      sink ^= ((const uint8_t *)t->data)[0];
      sink ^= ((const uint8_t *)t->data)[t->bytes - 1];
    }
    if (t->name) sink ^= (uint8_t)strlen(t->name);
  }
  if (g->meta.labels) sink ^= (uint8_t)strlen(g->meta.labels);
  (void)sink;
}

static long loads, accepted;

static void try_load(const uint8_t *buf, size_t n, const char *what)
{
  tfl_graph *g = NULL;
  diag.error[0] = '\0'; /* a failure must leave a message of its own */
  tfl_status s = tfl_load_memory(buf, n, &g, &diag);
  loads++;
  if (s == TFL_OK) {
    accepted++;
    sane(g, what);
    tfl_graph_free(g);
  } else {
    CHECK(!g && diag.error[0], "%s: error %s without message", what, tfl_status_name(s));
  }
}

/* Marks the bytes of constant data (weights), where flips are harmless and rarely
 * interesting, so mutations aim at the structure instead. */
static uint8_t *weight_map(const uint8_t *buf, size_t n)
{
  uint8_t *w = calloc(n, 1);
  tfl_graph *g = NULL;
  if (!w || tfl_load_memory(buf, n, &g, &diag) != TFL_OK) return w;
  for (int i = 0; i < g->n_tensors; i++) {
    const tfl_tensor *t = &g->tensors[i];
    const uint8_t *d = t->data;
    if (!d || d < g->model_bytes || d >= g->model_bytes + g->model_size) continue;
    size_t off = (size_t)(d - g->model_bytes), len = t->sparsity ? 0 : t->bytes;
    if (off + len <= n) memset(w + off, 1, len);
  }
  tfl_graph_free(g);
  return w;
}

static size_t structural_pos(const uint8_t *w, size_t n)
{
  for (int tries = 0; tries < 64; tries++) {
    size_t p = ((size_t)rnd() << 16 ^ rnd()) % n;
    if (!w[p]) return p;
  }
  return rnd() % n;
}

static void mutate_model(const char *path, int iters)
{
  FILE *f = fopen(path, "rb");
  if (!f) return;
  fseek(f, 0, SEEK_END);
  size_t n = (size_t)ftell(f);
  rewind(f);
  uint8_t *orig = malloc(n), *buf = malloc(n);
  if (!orig || !buf || fread(orig, 1, n, f) != n) {
    CHECK(0, "%s: read failed", path);
    fclose(f);
    free(orig);
    free(buf);
    return;
  }
  fclose(f);
  const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
  long loads0 = loads, acc0 = accepted;

  /* truncation: every byte of the first 2 KiB, then every 4 KiB */
  for (size_t len = 0; len < 2048 && len < n; len++) try_load(orig, len, name);
  for (size_t len = 2048; len < n; len += 4096) try_load(orig, len, name);
  try_load(orig, n - 1, name);

  uint8_t *w = weight_map(orig, n);
  rng_state = 0x9e3779b97f4a7c15ull ^ n;
  static const uint32_t hostile[] = {0xffffffffu, 0x7fffffffu, 0x80000000u, 0x40000000u,
                                     0x00010000u, 0xfffffffcu, 0, 1, 4};
  for (int it = 0; it < iters; it++) {
    memcpy(buf, orig, n);
    int kind = (int)(rnd() % 3);
    if (kind == 0) {
      /* 1-4 random byte flips in the structure */
      int k = 1 + (int)(rnd() % 4);
      for (int j = 0; j < k; j++) buf[structural_pos(w, n)] ^= (uint8_t)(1 + rnd() % 255);
    } else if (kind == 1) {
      /* an aligned word set to a hostile value: huge lengths, offsets past the end */
      size_t p = structural_pos(w, n) & ~(size_t)3;
      uint32_t v = hostile[rnd() % (sizeof hostile / sizeof hostile[0])];
      if (rnd() % 3 == 0) v = (uint32_t)(n - p + (rnd() % 64)); /* just past the end */
      if (p + 4 <= n) memcpy(buf + p, &v, 4);
    } else {
      /* a small signed change of a word (vtable offsets, indices, dims) */
      size_t p = structural_pos(w, n) & ~(size_t)1;
      int16_t d = (int16_t)((int)(rnd() % 33) - 16);
      uint16_t v;
      if (p + 2 <= n) {
        memcpy(&v, buf + p, 2);
        v = (uint16_t)(v + d);
        memcpy(buf + p, &v, 2);
      }
    }
    try_load(buf, n, name);
  }
  printf("%-58s %7ld loads, %5ld accepted\n", name, loads - loads0, accepted - acc0);
  free(w);
  free(orig);
  free(buf);
}


int main(int argc, char **argv)
{
  tfl_diag_init(&diag);
  diag.sink = quiet; /* corrupt metadata only warns; thousands of lines */
  const char *shared, *npm;
  if (!test_model_dirs(argc, argv, &shared, &npm)) return 2;
  int scale = getenv("TFL_BAD_ITER") ? atoi(getenv("TFL_BAD_ITER")) : 1;
  if (scale < 1) scale = 1;

  hand_built();

  /* one model per feature: metadata+zip, detection flexbuffer, posenet flexbuffer,
   * sparse tensors, raw custom options */
  static const struct { int npm; const char *file; int iters; } real[] = {
    {0, "mobilenet_v2_1.0_224_quant.tflite", 1500},
    {0, "coco_ssd_mobilenet_v1_1.0_quant_2018_06_29.tflite", 1000},
    {0, "posenet_mobilenet_v1_075_353_481_16_quant_decoder.tflite", 1500},
    {1, "face_detection_full_range_sparse.tflite", 1500},
    {1, "selfie_segmentation.tflite", 1500},
  };
  for (size_t i = 0; i < sizeof real / sizeof real[0]; i++) {
    char path[4096];
    if (!test_find_model(real[i].npm ? npm : shared, real[i].file, path, sizeof path)) {
      CHECK(false, "%s: not found under %s (models/fetch.sh, ../shared/models)", real[i].file,
            real[i].npm ? npm : shared);
      continue;
    }
    mutate_model(path, real[i].iters * scale);
  }
  printf("%ld mutated loads, %ld accepted, %ld warnings, %d failures\n", loads, accepted,
         warnings, failures);
  return failures ? 1 : 0;
}
