/* cpu_interp.h - the tests' plain CPU run of a graph: a default CPU delegate as the
 * interpreter's fallback, errors in *d. */
#ifndef TESTS_CPU_INTERP_H
#define TESTS_CPU_INTERP_H

#include "delegates/cpu/cpu_delegate.h"
#include "runtime/tfl_interpreter.h"

/* *cpu (destroy it after the interpreter) and *it (NULL on failure). */
static inline tfl_status test_cpu_interpreter(tfl_graph *g, tfl_diag *d, tfl_delegate **cpu, tfl_interpreter **it)
{
  cpu_delegate_options co = cpu_delegate_defaults();
  co.diag = d;
  *cpu = cpu_delegate_create(&co);
  *it = NULL;
  if (!*cpu) return TFL_ERR_NOMEM;
  tfl_interp_options io = tfl_interp_defaults();
  io.fallback = *cpu;
  io.diag = d;
  return tfl_interpreter_create(g, &io, it);
}

#endif
