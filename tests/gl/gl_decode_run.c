/* gl_decode_run.c - see gl_decode_run.h */
#include "gl_decode_run.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "delegates/cpu/cpu_delegate.h"
#include "runtime/tfl_loader.h"

int gdr_open(const char *path, tfl_delegate *d, bool append, const tfl_decoder_options *opt, gdr_run *r)
{
  memset(r, 0, sizeof *r);
  tfl_diag_init(&r->diag);
  tfl_interp_options o = tfl_interp_defaults();
  const tfl_decoder_options dopt = opt ? *opt : tfl_decoder_defaults();
  char why[256];
  if (tfl_load_file(path, &r->g, &r->diag) ||
      !(r->cpu = cpu_delegate_create(&(cpu_delegate_options){.threads = 1, .use_xnnpack = true, .diag = &r->diag})))
    goto fail;
  o.delegate = d;
  o.fallback = r->cpu;
  o.diag = &r->diag;
  tfl_decoder_kind k = tfl_decoder_pick(r->g, why, sizeof why);
  bool appended = false;
  if (append && (tfl_decoder_append_postprocess(k, r->g, &dopt, &appended, &r->diag) || !appended)) {
    if (!r->diag.error[0]) snprintf(r->diag.error, sizeof r->diag.error, "no post-processing op appended");
    goto fail;
  }
  if (tfl_interpreter_create(r->g, &o, &r->it) || tfl_decoder_create(k, r->g, &dopt, &r->dec, &r->diag)) goto fail;
  return 0;
fail:
  printf("FAIL %s%s%s: %s\n", path, d ? " (gl)" : "", append ? " (appended)" : "", r->diag.error);
  return 1;
}

void gdr_close(gdr_run *r)
{
  tfl_decoder_free(r->dec);
  tfl_interpreter_free(r->it);
  tfl_graph_free(r->g);
  if (r->cpu) r->cpu->destroy(r->cpu);
  memset(r, 0, sizeof *r);
}

bool gdr_same_box(const tfl_box *a, const tfl_box *b)
{
  if (memcmp(&a->x, &b->x, sizeof(float)) || memcmp(&a->y, &b->y, sizeof(float)) || memcmp(&a->w, &b->w, sizeof(float)) ||
      memcmp(&a->h, &b->h, sizeof(float)) || memcmp(&a->score, &b->score, sizeof(float)) || a->class_id != b->class_id ||
      a->n_keypoints != b->n_keypoints)
    return false;
  for (int k = 0; k < a->n_keypoints; k++)
    if (memcmp(&a->keypoints[k].x, &b->keypoints[k].x, sizeof(float)) ||
        memcmp(&a->keypoints[k].y, &b->keypoints[k].y, sizeof(float)))
      return false;
  return true;
}

double gdr_now_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}
