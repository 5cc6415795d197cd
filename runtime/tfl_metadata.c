/* tfl_metadata.c - TFLite Model Metadata: name, input normalization, label file.
 *
 * The model's `metadata` entry named "TFLITE_METADATA" names a buffer holding a
 * ModelMetadata flatbuffer (tflite-support metadata_schema.fbs, identifier "M001").
 * Label files are not in that buffer: they sit in a zip archive appended to the
 * model file (tfl_zip.h).
 *
 * Field ids: ModelMetadata{name 0, subgraph_metadata 3, associated_files 6};
 * SubGraphMetadata{input_tensor_metadata 2, output_tensor_metadata 3,
 * associated_files 4}; TensorMetadata{process_units 4, associated_files 6};
 * ProcessUnit{options_type 0, options 1}; NormalizationOptions (union type 1)
 * {mean 0, std 1}; AssociatedFile{name 0, type 2}.
 *
 * Everything here is optional: on malformed metadata we log a warning and keep
 * what was read so far; the model itself still loads.
 */
#include "tfl_loader_priv.h"
#include "tfl_zip.h"

#include <stdlib.h>
#include <string.h>

#define FILE_TENSOR_AXIS_LABELS 2
#define FILE_TENSOR_VALUE_LABELS 3
#define MAX_LABEL_BYTES (16u << 20)

/* ---- ModelMetadata ----------------------------------------------------------- */

/* First associated file of a label type in `files` (vector of AssociatedFile). */
static const char *label_file(fb_reader *r, const fb_vec *files, int type)
{
  for (uint32_t i = 0; i < files->n && fb_ok(r); i++) {
    fb_table f;
    if (!fb_vec_table(r, files, i, &f)) break;
    if (fb_i8(&f, 2, 0) == type) {
      const char *nm = fb_string_field(&f, 0, NULL);
      if (nm) return nm;
    }
  }
  return NULL;
}

/* Label file name: output tensors first (axis labels, then value labels), then the
 * subgraph's and model's own files. */
static const char *find_label_name(fb_reader *r, const fb_table *mm, const fb_table *sgm)
{
  static const int types[2] = {FILE_TENSOR_AXIS_LABELS, FILE_TENSOR_VALUE_LABELS};
  fb_vec outs, files;
  for (int k = 0; k < 2; k++) {
    if (sgm->pos && fb_vec_field(sgm, 3, 4, &outs)) {
      for (uint32_t i = 0; i < outs.n && fb_ok(r); i++) {
        fb_table tm;
        if (fb_vec_table(r, &outs, i, &tm) && fb_vec_field(&tm, 6, 4, &files)) {
          const char *nm = label_file(r, &files, types[k]);
          if (nm) return nm;
        }
      }
    }
    if (sgm->pos && fb_vec_field(sgm, 4, 4, &files)) {
      const char *nm = label_file(r, &files, types[k]);
      if (nm) return nm;
    }
    if (fb_vec_field(mm, 6, 4, &files)) {
      const char *nm = label_file(r, &files, types[k]);
      if (nm) return nm;
    }
  }
  return NULL;
}

static void read_norm(tfl_graph *g, fb_reader *r, const fb_table *sgm)
{
  fb_vec ins, units;
  fb_table tm;
  if (!fb_vec_field(sgm, 2, 4, &ins) || ins.n < 1 || !fb_vec_table(r, &ins, 0, &tm)) return;
  if (!fb_vec_field(&tm, 4, 4, &units)) return;
  for (uint32_t i = 0; i < units.n && fb_ok(r); i++) {
    fb_table pu, no;
    if (!fb_vec_table(r, &units, i, &pu)) return;
    if (fb_u8(&pu, 0, 0) != 1 || !fb_table_field(&pu, 1, &no)) continue;
    fb_vec mean, std;
    fb_vec_field(&no, 0, 4, &mean);
    fb_vec_field(&no, 1, 4, &std);
    if (!fb_ok(r) || mean.n < 1 || std.n < 1) return;
    int n = (int)(mean.n > std.n ? mean.n : std.n);
    if (n > 4) n = 4;
    for (int c = 0; c < n; c++) {
      /* a single value applies to every channel */
      g->meta.norm_mean[c] = fb_vec_f32(r, &mean, mean.n == 1 ? 0 : (uint32_t)(c < (int)mean.n ? c : 0));
      g->meta.norm_std[c] = fb_vec_f32(r, &std, std.n == 1 ? 0 : (uint32_t)(c < (int)std.n ? c : 0));
    }
    g->meta.n_norm = n;
    g->meta.has_norm = 1;
    return;
  }
}

static char *dup_str(const char *s, size_t n)
{
  char *d = malloc(n + 1);
  if (!d) return NULL;
  memcpy(d, s, n);
  d[n] = 0;
  return d;
}

void tfl_read_metadata(tfl_graph *g, fb_reader *r, const fb_table *model, tfl_diag *diag)
{
  fb_vec md;
  if (!fb_vec_field(model, 6, 4, &md)) goto done;
  const uint8_t *bytes = NULL;
  size_t size = 0;
  for (uint32_t i = 0; i < md.n && fb_ok(r); i++) {
    fb_table m;
    if (!fb_vec_table(r, &md, i, &m)) break;
    const char *nm = fb_string_field(&m, 0, NULL);
    if (nm && strcmp(nm, "TFLITE_METADATA") == 0) {
      uint32_t buf = fb_u32(&m, 1, 0);
      if (!fb_ok(r)) break;
      tfl_diag why; /* a metadata failure is only a warning: keep it out of diag's error */
      tfl_diag_init(&why);
      if (tfl_buffer_bytes(r, model, g, buf, &bytes, &size, &why) != TFL_OK) {
        tfl_logf(diag, TFL_LOG_WARNING, "model metadata ignored: %s", why.error);
        return;
      }
      break;
    }
  }
  if (!fb_ok(r) || !bytes || size < 8 || size >= ((size_t)1 << 31)) goto done;

  /* the metadata is a flatbuffer of its own, checked by its own reader */
  fb_reader mr;
  fb_table mm, sgm = {0};
  if (!fb_init(&mr, bytes, size) || !fb_root(&mr, &mm)) {
    tfl_logf(diag, TFL_LOG_WARNING, "model metadata ignored: %s", mr.msg);
    return;
  }
  uint32_t nlen = 0;
  const char *name = fb_string_field(&mm, 0, &nlen);
  if (name && !g->meta.name) g->meta.name = dup_str(name, nlen);
  fb_vec sgs;
  if (fb_vec_field(&mm, 3, 4, &sgs) && sgs.n > 0) fb_vec_table(&mr, &sgs, 0, &sgm);
  if (sgm.pos) read_norm(g, &mr, &sgm);
  const char *label = find_label_name(&mr, &mm, &sgm);
  if (!fb_ok(&mr)) {
    tfl_logf(diag, TFL_LOG_WARNING, "model metadata partly read: %s", mr.msg);
    return;
  }
  if (label) {
    char *data;
    size_t len;
    const char *why = "";
    if (!tfl_zip_read(g->model_bytes, g->model_size, label, MAX_LABEL_BYTES, &data, &len, &why))
      tfl_logf(diag, TFL_LOG_WARNING, "model metadata: label file '%s': %s", label, why);
    else
      g->meta.labels = data;
  }
  return;
done:
  if (!fb_ok(r)) {
    tfl_logf(diag, TFL_LOG_WARNING, "model metadata ignored: %s", r->msg);
    /* the model reader's error was about optional data: clear it */
    r->bad = false;
  }
}
