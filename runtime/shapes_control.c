/* shapes_control.c - output shapes of the control ops (tfl_shapes_priv.h).
 *
 * PENDING: rules are being written; until then each op keeps the shape its file declares.
 */
#include "tfl_shapes_priv.h"

tfl_status tfl_shape_control(const tfl_graph *g, const tfl_node *n, int ni, int o, tfl_shape *out,
                        tfl_inf_kind *kind, tfl_diag *diag)
{
  (void)g;
  (void)n;
  (void)ni;
  (void)o;
  (void)out;
  (void)diag;
  *kind = TFL_INF_KEEP;
  return TFL_OK;
}
