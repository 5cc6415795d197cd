/* onednn_absent.c - the oneDNN convolution step where the build has no oneDNN 2.x (Debian
 * 13 ships oneDNN 3, whose C API differs): it takes no node, so every convolution stays on
 * XNNPACK or our kernels. Same interface as onednn_conv.c (onednn_conv.h); meson builds one
 * of the two. */
#include "onednn_conv.h"

bool onednn_conv_applies(const tfl_graph *g, int node, const onednn_conv_options *o)
{
  (void)g, (void)node, (void)o;
  return false;
}

bool onednn_conv_preferred(const tfl_graph *g, int node, const onednn_conv_options *o)
{
  (void)g, (void)node, (void)o;
  return false;
}

tfl_status onednn_conv_create(const tfl_graph *g, int node, const onednn_conv_options *o, onednn_conv **out,
                              tfl_diag *diag)
{
  (void)g, (void)o;
  *out = NULL;
  return tfl_fail(diag, TFL_ERR_UNSUPPORTED, "node %d: this build has no oneDNN 2.x convolutions", node);
}

tfl_status onednn_conv_run(onednn_conv *c, cpu_ctx *ctx, tfl_diag *diag)
{
  (void)c, (void)ctx;
  return tfl_fail(diag, TFL_ERR_UNSUPPORTED, "this build has no oneDNN 2.x convolutions");
}

void onednn_conv_free(onednn_conv *c)
{
  (void)c;
}
