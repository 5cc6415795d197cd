/* cpu_kernel.h - the contract of one CPU kernel (one op).
 *
 * prepare: checks types and shapes, precomputes everything eval needs (padding,
 *   output size, quantization multipliers, activation range, packed weights,
 *   scratch) into a private state it allocates; may not touch activation data.
 * eval: only computes. Threaded kernels split their outer loop with cpu_parallel.
 * release: frees the state (NULL state is fine).
 * The reference kernel and a fast kernel of an op share prepare; only eval differs.
 * diag: the interpreter's diagnostics context; failures say why there (CPU_NODE_ERR).
 */
#ifndef CPU_KERNEL_H
#define CPU_KERNEL_H

#include "../../runtime/tfl_graph.h"

typedef struct cpu_ctx cpu_ctx;

typedef struct {
  tfl_status (*prepare)(tfl_graph *g, const tfl_node *n, void **state, tfl_diag *diag);
  tfl_status (*eval)(const tfl_graph *g, const tfl_node *n, void *state, cpu_ctx *ctx, tfl_diag *diag);
  void (*release)(void *state);
  /* The element types of input `data_input` the reference kernel takes (CPU_TYPES of
   * tfl_type values; CPU_TYPES_ANY: the op moves no typed data itself, e.g. WHILE). The
   * delegate refuses any other type before prepare, and tflite-inspect --ops lists them:
   * one declaration, so the docs cannot drift from the code. Fast kernels leave it 0. */
  uint32_t types;
  int data_input;
} cpu_kernel;

#define CPU_TYPE(t) (1u << (t))
#define CPU_TYPES_ANY (1u << 31)
#define CPU_F32 CPU_TYPE(TFL_TYPE_FLOAT32)
#define CPU_Q8 (CPU_TYPE(TFL_TYPE_UINT8) | CPU_TYPE(TFL_TYPE_INT8))
#define CPU_I16 CPU_TYPE(TFL_TYPE_INT16)
#define CPU_I32 CPU_TYPE(TFL_TYPE_INT32)
#define CPU_I64 CPU_TYPE(TFL_TYPE_INT64)
#define CPU_BOOL CPU_TYPE(TFL_TYPE_BOOL)
#define CPU_F16 CPU_TYPE(TFL_TYPE_FLOAT16)
#define CPU_C64 CPU_TYPE(TFL_TYPE_COMPLEX64)
/* every type a tensor here can hold (byte-moving ops) */
#define CPU_ALL_TYPES (CPU_F32 | CPU_F16 | CPU_Q8 | CPU_I16 | CPU_I32 | CPU_I64 | CPU_BOOL | CPU_C64)

/* The reference kernel of `op` (kernel_table.c); NULL only for an out-of-range op. */
const cpu_kernel *cpu_reference_kernel(tfl_op op);
/* "float32, int8, uint8" for a types mask (kernel_table.c). */
void cpu_types_str(uint32_t types, char *buf, size_t len);

/* Runs fn(arg, i) for i in [0, n), spread over the delegate's threads (serially in
 * reference mode). Each call gets a distinct i; no locks are needed for disjoint rows. */
typedef void (*cpu_task)(void *arg, size_t i);
void cpu_parallel(cpu_ctx *ctx, cpu_task fn, void *arg, size_t n);
int cpu_thread_count(const cpu_ctx *ctx);

/* The execution context (thread pool) - defined in cpu_threads.c, NOT elsewhere.
 * threads <= 1: no pool, cpu_parallel runs serially. NULL on OOM. */
cpu_ctx *cpu_ctx_create(int threads);
void cpu_ctx_free(cpu_ctx *ctx);
/* The pthreadpool behind ctx (NULL when single-threaded), for XNNPACK runtimes: the
 * context's own pool (cpu_pool.h) where this process routes pthreadpool's calls to it
 * (cpu_pthreadpool.c), else a real pthreadpool. */
struct pthreadpool *cpu_ctx_pool(cpu_ctx *ctx);
bool cpu_ctx_xnnpack_on_own_pool(const cpu_ctx *ctx);

/* Shorthands for kernels. */
static inline tfl_tensor *cpu_in(const tfl_graph *g, const tfl_node *n, int i)
{
  return (i < n->n_in && n->in[i] >= 0) ? &g->tensors[n->in[i]] : NULL;
}
static inline tfl_tensor *cpu_out(const tfl_graph *g, const tfl_node *n, int i)
{
  return (i < n->n_out && n->out[i] >= 0) ? &g->tensors[n->out[i]] : NULL;
}

#endif
