/* golden.h - golden data from the real TensorFlow Lite (../shared/oracle) and the
 * inputs that reproduce it, for tests/test_models.c and tests/test_opmodels.c.
 *
 * A golden file (tests/data/golden/<model>.<case>.txt, written by tests/data/make_golden.py)
 * holds, per output tensor: type, shape, quantization, count, sum/min/max/argmax over the
 * whole tensor, and the values at every `stride`-th element (at most 4096 of them).
 * Small outputs (opmodels) have stride 1: every value.
 *
 * Inputs are rebuilt here bit for bit as the oracle made them:
 *  - gauss: mulberry32 + Box-Muller N(0,1) values (oracle.mjs `gaussian`), quantized for
 *    integer inputs;
 *  - picture: PNG decoded to RGB, bilinear resize with half-pixel centers in double
 *    (oracle image.mjs), stored as float32, then lo + v/255*(hi-lo) for float inputs or
 *    round(v) for uint8 (round(v) - 128 for int8).
 * The golden file records an FNV-1a hash of each input's bytes so a test knows it fed
 * exactly what the oracle fed.
 */
#ifndef GOLDEN_H
#define GOLDEN_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

/* Element types, TFLite's TensorType numbers (as tfl_type). A complex64 output is compared
 * as its float pairs: its golden's count and samples run over 2 floats per element. */
enum { GOLDEN_F32 = 0, GOLDEN_I32 = 2, GOLDEN_U8 = 3, GOLDEN_I64 = 4, GOLDEN_BOOL = 6, GOLDEN_I16 = 7, GOLDEN_C64 = 8,
       GOLDEN_I8 = 9 };

size_t golden_type_size(int type);
int golden_type_from_name(const char *name);   /* "float32" ... ; -1 when unknown */
const char *golden_type_name(int type);

/* ---- inputs ---- */

typedef struct {
  uint32_t state;
} golden_rng;

void golden_rng_seed(golden_rng *r, uint32_t seed);
double golden_rng_uniform(golden_rng *r);   /* [0, 1), mulberry32 */
double golden_rng_normal(golden_rng *r);    /* N(0, 1), Box-Muller (one value per two draws) */

/* Fills `n` elements of `type` as the oracle's `gauss --dist normal`: float32 takes N(0,1),
 * integer types round(z / scale + zero_point) clamped (scale 0: round(z)); bool takes z > 0
 * (our own rule: the oracle cannot feed bool inputs).
 * Consecutive inputs continue with the same rng. Returns false for an unknown type. */
bool golden_fill_gauss(golden_rng *r, int type, float scale, int32_t zero_point, void *out, size_t n);

typedef struct {
  int width, height;
  uint8_t *rgb;     /* packed RGB, malloc'd */
} golden_picture;

/* Reads an 8-bit RGB(A) PNG (alpha dropped). Returns false with a message on stderr. */
bool golden_picture_load(const char *path, golden_picture *pic);
void golden_picture_free(golden_picture *pic);

/* Resizes to w x h x 3 and converts to `type` (float32: lo..hi; uint8/int8: rounded). */
bool golden_fill_picture(const golden_picture *pic, int w, int h, int type, double lo, double hi,
                         void *out);

uint64_t golden_fnv1a(const void *data, size_t n);

/* ---- golden files ---- */

typedef struct {
  char *name;
  int type;
  int ndim;
  int dims[8];
  size_t count;
  float scale;              /* 0 when not quantized */
  int32_t zero_point;
  double sum, min, max;     /* raw values (quantized outputs: integers) */
  size_t argmax;
  double spread;            /* oracle compat vs relaxed build: TFLite's own FMA variation */
  double lsb;               /* float outputs of quantized chains: tolerance floor (real units) */
  size_t stride;            /* sample i is element i * stride */
  size_t n_samples;
  double *samples;
} golden_output;

typedef struct {
  char *model;              /* file name of the model */
  char *sha256;             /* of the model the oracle ran (for cut models: the cut copy) */
  char *runtime;
  char *cut;                /* "last-op" when the model was cut before its last op, else NULL */
  /* input: "gauss" with seed, or "picture" with file and lo,hi */
  char *input_kind;
  uint32_t seed;
  char *picture;
  double lo, hi;
  int n_inputs;
  uint64_t input_hash[8];
  int n_outputs;
  golden_output *outputs;
} golden_case;

/* Parses a golden file. Returns false with a message on stderr. */
bool golden_read(const char *path, golden_case *gc);
void golden_free(golden_case *gc);

/* Comparison of one output against its golden record. */
typedef struct {
  double max_err;           /* largest |ours - golden| over samples, argmax and mean */
  double tol;               /* what it was compared with */
  size_t worst_index;
  size_t n_bad;
  bool ok;
} golden_result;

/* Float: tol = abs_tol * max(1, golden max - min); quantized (scale != 0) and integer
 * outputs: tol = lsb (in raw units). With `allow_spread`, a float tolerance is at least
 * the real TFLite's own disagreement between its FMA and non-FMA builds (g->spread): a
 * kernel that fuses multiply-adds (XNNPACK, the fast path) cannot be held closer to the
 * non-FMA golden than TFLite holds itself. Checks every sample, the value at the golden
 * argmax against the golden max, and the mean. `data` is the whole output tensor. */
golden_result golden_compare(const golden_output *g, const void *data, double abs_tol, double lsb,
                             bool allow_spread);

/* ---- models cut before their last op ---- */

/* Makes a copy of a .tflite model without its last operator, whose non-constant inputs
 * become the model's outputs (for models ending in a custom op the oracle cannot run).
 * Returns a malloc'd buffer (size in *out_size), or NULL with a message on stderr. */
uint8_t *golden_cut_last_op(const uint8_t *model, size_t size, size_t *out_size);

/* Reads a whole file (malloc'd). NULL with a message on stderr. */
uint8_t *golden_read_file(const char *path, size_t *size);

#endif
