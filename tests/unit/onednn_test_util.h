/* onednn_test_util.h - runs node `node` of g through a oneDNN conv made with options o
 * at o->threads threads: create, two runs (the second reuses the scratch), free. Errors
 * in *diag. */
#ifndef ONEDNN_TEST_UTIL_H
#define ONEDNN_TEST_UTIL_H

#include "../../delegates/cpu/onednn_conv.h"

static inline tfl_status onednn_test_run(const tfl_graph *g, int node, const onednn_conv_options *o, tfl_diag *diag)
{
  cpu_ctx *ctx = cpu_ctx_create(o->threads);
  onednn_conv *c = NULL;
  tfl_diag_init(diag);
  tfl_status st = onednn_conv_create(g, node, o, &c, diag);
  for (int rep = 0; rep < 2 && st == TFL_OK; rep++) st = onednn_conv_run(c, ctx, diag);
  onednn_conv_free(c);
  cpu_ctx_free(ctx);
  return st;
}

#endif
