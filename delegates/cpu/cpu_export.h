/* cpu_export.h - the CPU delegate's exports (tfl_delegate.h, tfl_buffer.h): an output
 * slot copied, or converted to class bytes, into a host buffer. The CPU makes no device
 * buffers: its outputs are in host memory already, so an export is a copy. */
#ifndef CPU_EXPORT_H
#define CPU_EXPORT_H

#include "../../runtime/tfl_delegate.h"

/* g: the partition's graph; diag: where refusals are reported. */
tfl_status cpu_output_bytes(const tfl_graph *g, tfl_diag *diag, int tensor, const tfl_export *e, size_t *need);
tfl_status cpu_export_output(const tfl_graph *g, tfl_diag *diag, int tensor, const tfl_export *e, tfl_buffer *dst);

#endif
