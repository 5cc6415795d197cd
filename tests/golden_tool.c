/* golden_tool - the C side of tests/data/make_golden.py: writes inputs exactly as
 * tests/test_models.c builds them (so the generator can check they equal the oracle's
 * input_<i>.bin) and makes cut copies of models ending in a custom op.
 *
 *   golden_tool gauss SEED OUT_PREFIX TYPE:D1xD2x...[:SCALE:ZERO_POINT] ...
 *       writes OUT_PREFIX<i>.bin per tensor, one rng across them (as the oracle)
 *   golden_tool picture PIC.png LO HI TYPE:1xHxWx3 OUT.bin
 *   golden_tool cut MODEL.tflite OUT.tflite
 */
#include "golden.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  int type;
  size_t count;
  int h, w;           /* dims 1 and 2 of a 4-D shape */
  float scale;
  int zero_point;
} spec;

static int parse_spec(const char *s, spec *sp)
{
  char buf[256], *save = NULL;
  snprintf(buf, sizeof buf, "%s", s);
  char *type = strtok_r(buf, ":", &save), *dims = strtok_r(NULL, ":", &save);
  char *scale = strtok_r(NULL, ":", &save), *zp = strtok_r(NULL, ":", &save);
  if (!type || !dims || (sp->type = golden_type_from_name(type)) < 0) {
    fprintf(stderr, "golden_tool: bad tensor spec '%s' (TYPE:D1xD2x...[:SCALE:ZP])\n", s);
    return -1;
  }
  sp->count = 1;
  int d[8] = { 0 }, nd = 0;
  for (char *p = dims; *p && nd < 8; nd++) {
    d[nd] = (int)strtol(p, &p, 10);
    sp->count *= (size_t)d[nd];
    if (*p == 'x') p++;
  }
  sp->h = nd == 4 ? d[1] : 0;
  sp->w = nd == 4 ? d[2] : 0;
  sp->scale = scale ? strtof(scale, NULL) : 0;
  sp->zero_point = zp ? atoi(zp) : 0;
  return 0;
}

static int write_file(const char *path, const void *data, size_t n)
{
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(data, 1, n, f) != n || fclose(f) != 0) {
    fprintf(stderr, "golden_tool: cannot write %s\n", path);
    return -1;
  }
  return 0;
}

int main(int argc, char **argv)
{
  if (argc >= 5 && strcmp(argv[1], "gauss") == 0) {
    golden_rng rng;
    golden_rng_seed(&rng, (uint32_t)strtoul(argv[2], NULL, 10));
    for (int i = 4; i < argc; i++) {
      spec sp;
      if (parse_spec(argv[i], &sp)) return 2;
      void *buf = malloc(sp.count * golden_type_size(sp.type) + 1);
      if (!golden_fill_gauss(&rng, sp.type, sp.scale, sp.zero_point, buf, sp.count)) return 1;
      char path[4096];
      snprintf(path, sizeof path, "%s%d.bin", argv[3], i - 4);
      if (write_file(path, buf, sp.count * golden_type_size(sp.type))) return 1;
      free(buf);
    }
    return 0;
  }
  if (argc == 7 && strcmp(argv[1], "picture") == 0) {
    spec sp;
    golden_picture pic;
    if (parse_spec(argv[5], &sp) || sp.h <= 0) return 2;
    if (!golden_picture_load(argv[2], &pic)) return 1;
    void *buf = malloc(sp.count * golden_type_size(sp.type) + 1);
    if (!golden_fill_picture(&pic, sp.w, sp.h, sp.type, strtod(argv[3], NULL), strtod(argv[4], NULL), buf))
      return 1;
    int rc = write_file(argv[6], buf, sp.count * golden_type_size(sp.type)) ? 1 : 0;
    free(buf);
    golden_picture_free(&pic);
    return rc;
  }
  if (argc == 4 && strcmp(argv[1], "cut") == 0) {
    size_t n, cut_n;
    uint8_t *model = golden_read_file(argv[2], &n);
    if (!model) return 1;
    uint8_t *cut = golden_cut_last_op(model, n, &cut_n);
    if (!cut) return 1;
    int rc = write_file(argv[3], cut, cut_n) ? 1 : 0;
    free(cut);
    free(model);
    return rc;
  }
  fprintf(stderr, "usage: golden_tool gauss SEED OUT_PREFIX TYPE:DIMS[:SCALE:ZP] ...\n"
                  "       golden_tool picture PIC.png LO HI TYPE:1xHxWx3 OUT.bin\n"
                  "       golden_tool cut MODEL.tflite OUT.tflite\n");
  return 2;
}
