/* test_decoders_pose.c - the pose decoder.
 *
 * Raw PoseNet heads: the real TensorFlow Lite's outputs (../shared/oracle) of the
 * PoseNet model cut before its PosenetDecoderOp, on astronaut.png (input 481x353,
 * uint8 as the model gives them; tests/data/decoders/README.md). Expected keypoints
 * were checked by drawing them on the picture and looking. PosenetDecoderOp's four
 * outputs: literal values, worked by hand.
 *
 * usage: test_decoders_pose DATA_DIR
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "decoders/tfl_decoder.h"

typedef struct {
  tfl_graph g;
  tfl_tensor t[6];
  int32_t inputs[1], outputs[5], node_out[4];
  tfl_node node;
  float scale[3];
  int32_t zp[3];
} fake_graph;

static void fake_init(fake_graph *f, int in_w, int in_h)
{
  memset(f, 0, sizeof *f);
  f->t[0] = (tfl_tensor){ .name = "input", .type = TFL_TYPE_UINT8, .ndim = 4,
                          .dims = { 1, in_h, in_w, 3 }, .producer = -1 };
  f->g.tensors = f->t;
  f->g.inputs = f->inputs;
  f->g.n_inputs = 1;
  f->g.outputs = f->outputs;
  f->g.n_tensors = 1;
}

static tfl_tensor *fake_output(fake_graph *f, tfl_type type, int ndim, const int32_t *dims, void *data)
{
  tfl_tensor *t = &f->t[f->g.n_tensors];
  *t = (tfl_tensor){ .name = "out", .type = type, .ndim = ndim, .producer = -1, .data = data };
  memcpy(t->dims, dims, sizeof(int32_t) * (size_t)ndim);
  tfl_tensor_update_bytes(t);
  f->outputs[f->g.n_outputs++] = f->g.n_tensors++;
  return t;
}

static void test_raw(const char *dir)
{
  tfl_diag diag;
  tfl_diag_init(&diag);
  char path[1024];
  snprintf(path, sizeof path, "%s/posenet_astronaut.u8", dir);
  enum { H = 23, W = 31, NH = H * W * 17, NS = H * W * 34, NM = H * W * 64 };
  static uint8_t buf[NH + NS + NM];
  FILE *fp = fopen(path, "rb");
  if (!fp || fread(buf, 1, sizeof buf, fp) != sizeof buf) {
    fprintf(stderr, "cannot read %s\n", path);
    exit(2);
  }
  fclose(fp);
  fake_graph f;
  fake_init(&f, 481, 353);
  /* the model's quantization of its three heads */
  const float scale[3] = { 0.08941768854856491f, 0.7224140167236328f, 1.4816304445266724f };
  const int32_t zp[3] = { 180, 134, 118 };
  /* graph order: heat, mid, short; the decoder finds each head by its channels */
  tfl_tensor *heat = fake_output(&f, TFL_TYPE_UINT8, 4, (int32_t[]){ 1, H, W, 17 }, buf);
  tfl_tensor *mid = fake_output(&f, TFL_TYPE_UINT8, 4, (int32_t[]){ 1, H, W, 64 }, buf + NH + NS);
  tfl_tensor *shrt = fake_output(&f, TFL_TYPE_UINT8, 4, (int32_t[]){ 1, H, W, 34 }, buf + NH);
  tfl_tensor *ts[3] = { heat, shrt, mid };
  for (int i = 0; i < 3; i++) {
    f.scale[i] = scale[i];
    f.zp[i] = zp[i];
    ts[i]->q = (tfl_quant){ 1, &f.scale[i], &f.zp[i], 0 };
  }
  const tfl_tensor *outs[3] = { heat, mid, shrt };
  char why[256];
  CHECK(tfl_decoder_pick(&f.g, why, sizeof why) == TFL_DECODER_POSE, "pick: %s", why);

  tfl_decoder_options o = tfl_decoder_defaults();
  o.threshold = 0.2f;
  tfl_decoder *d;
  CHECK(tfl_decoder_create(TFL_DECODER_POSE, &f.g, &o, &d, &diag) == TFL_OK, "%s", diag.error);
  /* the oracle stretched the 512x512 picture over the 481x353 input */
  tfl_transform tr = { 481, 353, 512, 512, 512.0f / 481, 512.0f / 353, 0, 0 };
  tfl_results r = { 0 };
  CHECK(tfl_decoder_run(d, outs, 3, &tr, &r, &diag) == TFL_OK, "%s", diag.error);
  CHECK(r.n_poses >= 1, "no pose");
  if (r.n_poses >= 1) {
    const tfl_pose *p = &r.poses[0];
    CHECK(NEAR(p->score, 0.466, 0.02), "pose score %.3f", p->score);
    CHECK(p->n_keypoints == 17 && p->class_id == -1 && p->n_edges == 12, "pose layout");
    for (int i = 1; i < r.n_poses; i++) CHECK(r.poses[i].score <= p->score, "order");
    /* nose, eyes, ears on her face; shoulders at the edges of the suit's collar */
    static const struct { int k; float x, y; } want[] = {
      { 0, 221, 120 }, { 1, 243, 96 }, { 2, 203, 99 }, { 3, 268, 115 }, { 4, 176, 111 },
      { 5, 316, 278 }, { 6, 91, 282 },
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
      const tfl_keypoint *k = &p->keypoints[want[i].k];
      CHECK(NEAR(k->x, want[i].x, 8) && NEAR(k->y, want[i].y, 8) && k->score > 0.8f,
            "keypoint %d at %.1f %.1f (%.2f), expected %.0f %.0f", want[i].k, k->x, k->y, k->score,
            want[i].x, want[i].y);
    }
  }
  tfl_results_clear(&r);
  tfl_decoder_free(d);

  /* at the default threshold 0.5 she scores too low */
  o.threshold = 0.5f;
  tfl_decoder_create(TFL_DECODER_POSE, &f.g, &o, &d, &diag);
  CHECK(tfl_decoder_run(d, outs, 3, &tr, &r, &diag) == TFL_OK && r.n_poses == 0, "%d poses at 0.5", r.n_poses);
  tfl_results_clear(&r);
  CHECK(tfl_decoder_run(d, outs, 2, &tr, &r, &diag) == TFL_ERR_SHAPE, "missing output accepted");
  tfl_decoder_free(d);
  /* grids that disagree */
  shrt->dims[1] = 22;
  CHECK(tfl_decoder_create(TFL_DECODER_POSE, &f.g, &o, &d, &diag) == TFL_ERR_SHAPE, "grids differ");
}

/* PosenetDecoderOp outputs, D = 3 poses */
static void test_decoder_op(void)
{
  tfl_diag diag;
  tfl_diag_init(&diag);
  enum { D = 3, K = 17 };
  static float kps[D * K * 2], ks[D * K], ps[D], count[1];
  for (int d = 0; d < D; d++)
    for (int k = 0; k < K; k++) {
      kps[(d * K + k) * 2] = 10.0f * (float)d + (float)k;        /* y */
      kps[(d * K + k) * 2 + 1] = 100.0f + (float)k;              /* x */
      ks[d * K + k] = 0.5f + 0.01f * (float)k;
    }
  ps[0] = 0.9f;
  ps[1] = 0.3f;  /* below the threshold */
  ps[2] = 0.7f;
  count[0] = 3;
  fake_graph f;
  fake_init(&f, 481, 353);
  tfl_tensor *a = fake_output(&f, TFL_TYPE_FLOAT32, 4, (int32_t[]){ 1, D, K, 2 }, kps);
  tfl_tensor *b = fake_output(&f, TFL_TYPE_FLOAT32, 3, (int32_t[]){ 1, D, K }, ks);
  tfl_tensor *c = fake_output(&f, TFL_TYPE_FLOAT32, 2, (int32_t[]){ 1, D }, ps);
  tfl_tensor *n = fake_output(&f, TFL_TYPE_FLOAT32, 1, (int32_t[]){ 1 }, count);
  for (int i = 0; i < 4; i++) f.node_out[i] = f.outputs[i];
  f.node = (tfl_node){ .op = TFL_OP_POSENET_DECODER, .n_out = 4, .out = f.node_out };
  f.g.nodes = &f.node;
  f.g.n_nodes = 1;
  char why[256];
  CHECK(tfl_decoder_pick(&f.g, why, sizeof why) == TFL_DECODER_POSE, "pick: %s", why);
  tfl_decoder_options o = tfl_decoder_defaults();  /* threshold 0.5 */
  tfl_decoder *d;
  CHECK(tfl_decoder_create(TFL_DECODER_POSE, &f.g, &o, &d, &diag) == TFL_OK, "%s", diag.error);
  const tfl_tensor *outs[4] = { a, b, c, n };
  /* input pixel (u, v) -> frame (2u + 10, 3v + 20) */
  tfl_transform tr = { 481, 353, 2000, 2000, 2.0f, 3.0f, 10.0f, 20.0f };
  tfl_results r = { 0 };
  CHECK(tfl_decoder_run(d, outs, 4, &tr, &r, &diag) == TFL_OK, "%s", diag.error);
  CHECK(r.n_poses == 2, "%d poses", r.n_poses);
  if (r.n_poses == 2) {
    CHECK(r.poses[0].score == 0.9f && r.poses[1].score == 0.7f, "scores");
    /* pose 2, keypoint 5: y = 25, x = 105 -> frame (220, 95) */
    const tfl_keypoint *k = &r.poses[1].keypoints[5];
    CHECK(NEAR(k->x, 220, 1e-4) && NEAR(k->y, 95, 1e-4) && NEAR(k->score, 0.55, 1e-6),
          "keypoint %.3f %.3f %.3f", k->x, k->y, k->score);
    CHECK(r.poses[0].n_edges == 12 && r.poses[0].class_id == -1, "skeleton");
  }
  tfl_results_clear(&r);
  /* count past D is clamped; 1 pose allowed; NaN means none */
  count[0] = 40;
  CHECK(tfl_decoder_run(d, outs, 4, &tr, &r, &diag) == TFL_OK && r.n_poses == 2, "clamped: %d", r.n_poses);
  tfl_results_clear(&r);
  count[0] = NAN;
  CHECK(tfl_decoder_run(d, outs, 4, &tr, &r, &diag) == TFL_OK && r.n_poses == 0, "NaN count: %d", r.n_poses);
  tfl_results_clear(&r);
  tfl_decoder_free(d);
  o.max_results = 1;
  count[0] = 3;
  tfl_decoder_create(TFL_DECODER_POSE, &f.g, &o, &d, &diag);
  CHECK(tfl_decoder_run(d, outs, 4, &tr, &r, &diag) == TFL_OK && r.n_poses == 1, "max_results: %d", r.n_poses);
  tfl_results_clear(&r);
  tfl_decoder_free(d);
}

int main(int argc, char **argv)
{
  test_raw(argc > 1 ? argv[1] : "tests/data/decoders");
  test_decoder_op();
  if (failures) {
    fprintf(stderr, "%d failure(s)\n", failures);
    return 1;
  }
  printf("pose decoders: all passed\n");
  return 0;
}
