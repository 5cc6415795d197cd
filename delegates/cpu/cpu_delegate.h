/* cpu_delegate.h - the CPU delegate: plain C reference kernels for every op, and a
 * fast path (XNNPACK subgraphs plus our threaded kernels) for float graphs.
 * Interpreters take it as their fallback (tfl_interp_options.fallback); it must
 * outlive them. Each delegate owns its thread pool; delegates are independent, so
 * interpreters on several threads each use their own. No GStreamer, no GL. */
#ifndef CPU_DELEGATE_H
#define CPU_DELEGATE_H

#include "../../runtime/tfl_delegate.h"

/* Per-step timing, for profilers (tflite-benchmark --profile). The caller owns the arrays
 * (n_nodes = the graph's node count, zeroed) and keeps them alive while the delegate runs;
 * each invoke adds the wall time of every step to ms[first node of the step] and sets
 * span[that node] to the step's node count (an XNNPACK subgraph spans several nodes;
 * span 0: not the first node of a step). Only the invoking thread writes them. */
typedef struct {
  int n_nodes;
  double *ms;
  double *cpu_ms;     /* optional [n_nodes]: the invoking thread's CPU time per step (at 1
                         thread the step's whole cost, which other processes do not stretch) */
  int32_t *span;
  const char **kernel; /* optional [n_nodes]: what ran the step: "xnnpack", "onednn",
                          "reference" or the fast path's kernel ("conv_q8_neon", ...) */
} cpu_profile;

typedef enum {
  CPU_PRECISION_FP32 = 0, /* float graphs in fp32 (default) */
  /* float convolutions and fully connected layers take bf16 inputs and weights and
   * accumulate in fp32 (AVX-512 BF16 where the CPU has it; elsewhere the same rounding
   * in portable code, slower). Everything else stays fp32. */
  CPU_PRECISION_BF16 = 1,
} cpu_precision;

typedef struct cpu_delegate_options {
  int threads;        /* >= 1 */
  cpu_precision precision;
  bool reference;     /* only the single-threaded reference kernels */
  bool use_xnnpack;   /* default true; ignored when reference */
  bool use_onednn;    /* default true: convolutions on oneDNN where it has JIT code (fast mode) */
  /* Profiling only: one XNNPACK subgraph per node, so each node is timed alone (the
   * fusions across nodes are lost, so the sum is slower than a normal run). */
  bool xnn_one_node;
  cpu_profile *profile; /* borrowed, NULL: no timing */
  tfl_diag *diag;     /* errors of create (borrowed, may be NULL); partitions report to
                         their interpreter's context (tfl_partition.diag) */
} cpu_delegate_options;

cpu_delegate_options cpu_delegate_defaults(void);
/* Creates the delegate; free it with d->destroy(d). NULL on OOM (opt->diag says so). */
tfl_delegate *cpu_delegate_create(const cpu_delegate_options *opt);

/* What the CPU delegate declares for op: the element types (1 << tfl_type bits; bit 31:
 * any) of its input *data_input that its kernel takes; 0 when it has no kernel. For
 * tflite-inspect --ops and the docs (kernel_table.c). */
uint32_t cpu_delegate_op_types(tfl_op op, int *data_input);

#endif
