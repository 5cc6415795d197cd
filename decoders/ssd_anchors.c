/* ssd_anchors.c - see ssd_anchors.h. Preset options are those of the models' own
 * pipelines (TF Object Detection's ssd_mobilenet configs, MediaPipe's graphs). */
#include "ssd_anchors.h"

#include <math.h>
#include <stddef.h>

static const ssd_anchor_options preset_ssd = {
  .num_layers = 6, .min_scale = 0.2f, .max_scale = 0.95f, .in_w = 300, .in_h = 300,
  .offset_x = 0.5f, .offset_y = 0.5f, .strides = { 16, 32, 64, 128, 256, 512 },
  .n_ratios = 5, .ratios = { 1.0f, 2.0f, 0.5f, 3.0f, 0.3333f },
  .reduce_lowest = true, .interp_ratio = 1.0f, .fixed_size = false,
};
static const ssd_anchor_options preset_face_short = {
  .num_layers = 4, .min_scale = 0.1484375f, .max_scale = 0.75f, .in_w = 128, .in_h = 128,
  .offset_x = 0.5f, .offset_y = 0.5f, .strides = { 8, 16, 16, 16 },
  .n_ratios = 1, .ratios = { 1.0f }, .interp_ratio = 1.0f, .fixed_size = true,
};
static const ssd_anchor_options preset_face_full = {
  .num_layers = 1, .min_scale = 0.1484375f, .max_scale = 0.75f, .in_w = 192, .in_h = 192,
  .offset_x = 0.5f, .offset_y = 0.5f, .strides = { 4 },
  .n_ratios = 1, .ratios = { 1.0f }, .interp_ratio = 0.0f, .fixed_size = true,
};
static const ssd_anchor_options preset_pose = {
  .num_layers = 5, .min_scale = 0.1484375f, .max_scale = 0.75f, .in_w = 224, .in_h = 224,
  .offset_x = 0.5f, .offset_y = 0.5f, .strides = { 8, 16, 32, 32, 32 },
  .n_ratios = 1, .ratios = { 1.0f }, .interp_ratio = 1.0f, .fixed_size = true,
};
static const ssd_anchor_options preset_palm = {
  .num_layers = 4, .min_scale = 0.1484375f, .max_scale = 0.75f, .in_w = 192, .in_h = 192,
  .offset_x = 0.5f, .offset_y = 0.5f, .strides = { 8, 16, 16, 16 },
  .n_ratios = 1, .ratios = { 1.0f }, .interp_ratio = 1.0f, .fixed_size = true,
};

const ssd_anchor_options *ssd_anchor_preset(tfl_anchor_kind kind)
{
  switch (kind) {
  case TFL_ANCHORS_SSD_MOBILENET: return &preset_ssd;
  case TFL_ANCHORS_FACE_SHORT: return &preset_face_short;
  case TFL_ANCHORS_FACE_FULL: return &preset_face_full;
  case TFL_ANCHORS_POSE_DETECTION: return &preset_pose;
  case TFL_ANCHORS_PALM: return &preset_palm;
  case TFL_ANCHORS_AUTO: return NULL;
  }
  return NULL;
}

/* Scale of layer i of n, linear from min to max (the middle when n is 1). */
static float layer_scale(const ssd_anchor_options *o, int i)
{
  if (o->num_layers == 1) return 0.5f * (o->min_scale + o->max_scale);
  return o->min_scale + (o->max_scale - o->min_scale) * (float)i / (float)(o->num_layers - 1);
}

static bool valid(const ssd_anchor_options *o)
{
  if (!o || o->num_layers < 1 || o->num_layers > SSD_MAX_LAYERS || o->in_w < 1 || o->in_h < 1 ||
      o->n_ratios < 0 || o->n_ratios > SSD_MAX_RATIOS)
    return false;
  for (int i = 0; i < o->num_layers; i++)
    if (o->strides[i] < 1) return false;
  for (int i = 0; i < o->n_ratios; i++)
    if (!(o->ratios[i] > 0)) return false;
  return true;
}

/* Scales and ratios of the anchors of one cell for layers [first, last). */
static int cell_specs(const ssd_anchor_options *o, int first, int last, float *scales, float *ratios)
{
  int n = 0;
  for (int l = first; l < last; l++) {
    const float s = layer_scale(o, l);
    if (l == 0 && o->reduce_lowest) {
      const float sc[3] = { 0.1f, s, s }, ar[3] = { 1.0f, 2.0f, 0.5f };
      for (int k = 0; k < 3; k++, n++) {
        scales[n] = sc[k];
        ratios[n] = ar[k];
      }
      continue;
    }
    for (int k = 0; k < o->n_ratios; k++, n++) {
      scales[n] = s;
      ratios[n] = o->ratios[k];
    }
    if (o->interp_ratio > 0) {
      const float next = l == o->num_layers - 1 ? 1.0f : layer_scale(o, l + 1);
      scales[n] = sqrtf(s * next);
      ratios[n++] = o->interp_ratio;
    }
  }
  return n;
}

/* Walks the layers; writes anchors when out is not NULL. Returns the count. */
static int walk(const ssd_anchor_options *o, ssd_anchor *out, int max)
{
  enum { MAX_SPECS = SSD_MAX_LAYERS * (SSD_MAX_RATIOS + 3) };
  float scales[MAX_SPECS], ratios[MAX_SPECS];
  int total = 0;
  for (int first = 0; first < o->num_layers;) {
    int last = first;
    while (last < o->num_layers && o->strides[last] == o->strides[first]) last++;
    const int n = cell_specs(o, first, last, scales, ratios);
    const int stride = o->strides[first];
    const int fh = (o->in_h + stride - 1) / stride, fw = (o->in_w + stride - 1) / stride;
    for (int y = 0; y < fh; y++)
      for (int x = 0; x < fw; x++)
        for (int k = 0; k < n; k++, total++) {
          if (!out) continue;
          if (total >= max) return -1;
          const float r = sqrtf(ratios[k]);
          out[total] = (ssd_anchor){
            .yc = ((float)y + o->offset_y) / (float)fh,
            .xc = ((float)x + o->offset_x) / (float)fw,
            .h = o->fixed_size ? 1.0f : scales[k] / r,
            .w = o->fixed_size ? 1.0f : scales[k] * r,
          };
        }
    first = last;
  }
  return total;
}

int ssd_anchor_count(const ssd_anchor_options *o)
{
  return valid(o) ? walk(o, NULL, 0) : -1;
}

int ssd_anchors_generate(const ssd_anchor_options *o, ssd_anchor *out, int max)
{
  return valid(o) ? walk(o, out, max) : -1;
}
