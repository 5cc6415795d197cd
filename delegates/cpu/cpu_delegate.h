/* cpu_delegate.h - the CPU delegate: plain C reference kernels for every op, and a
 * fast path (XNNPACK subgraphs plus our threaded kernels) for float graphs.
 * No GStreamer, no GL. */
#ifndef CPU_DELEGATE_H
#define CPU_DELEGATE_H

#include "../../runtime/tfl_delegate.h"

typedef struct {
  int threads;        /* >= 1 */
  bool reference;     /* only the single-threaded reference kernels */
  bool use_xnnpack;   /* default true; ignored when reference */
  tfl_diag *diag;     /* errors of create (borrowed, may be NULL); partitions report to
                         their interpreter's context (tfl_partition.diag) */
} cpu_delegate_options;

cpu_delegate_options cpu_delegate_defaults(void);
/* Creates the delegate; free it with d->destroy(d). NULL on OOM (opt->diag says so). */
tfl_delegate *cpu_delegate_create(const cpu_delegate_options *opt);

#endif
