/* op_support.c - see op_support.h. */
#include "op_support.h"

#include "delegates/cpu/cpu_delegate.h"
#include "delegates/gl/gl_delegate.h"
#include "runtime/tfl_loader.h"

static void cpu_cell(tfl_op op, char *buf, size_t len)
{
  int data_input = 0;
  uint32_t types = cpu_delegate_op_types(op, &data_input);
  if (!types) {
    snprintf(buf, len, "-");
    return;
  }
  if (types & (1u << 31)) {
    snprintf(buf, len, "yes");
    return;
  }
  size_t k = 0;
  if (data_input) k += (size_t)snprintf(buf, len, "input %d: ", data_input);
  const size_t start = k;
  for (int t = 0; t < TFL_TYPE_COUNT && k < len; t++)
    if (types & (1u << t))
      k += (size_t)snprintf(buf + k, len - k, "%s%s", k > start ? ", " : "", tfl_type_name((tfl_type)t));
}

void op_support_print(FILE *out, bool markdown)
{
  const int32_t n = tfl_builtin_code_count();
  int on_cpu = 0, on_gl = 0, left = 0;
  if (markdown)
    fprintf(out, "| code | operator | CPU delegate (types of the data input) | GL delegate | note |\n"
                 "|---:|---|---|---|---|\n");
  for (int32_t code = 0; code < n; code++) {
    const char *name = tfl_builtin_code_name(code);
    /* CUSTOM: by name, below; 127 only marks where 8-bit codes end */
    if (!name || code == 32 || code == 127) continue;
    tfl_op op;
    const bool known = tfl_op_from_builtin(code, &op);
    char cpu[200] = "-";
    const char *gl = "-", *why = tfl_builtin_left_out(code);
    if (known) {
      cpu_cell(op, cpu, sizeof cpu);
      gl = gl_delegate_has_op(op) ? "yes" : "-";
      on_cpu += cpu[0] != '-';
      on_gl += gl[0] == 'y';
    }
    left += why != NULL;
    const char *note = why ? why : known ? "" : "not yet";
    if (markdown)
      fprintf(out, "| %d | %s | %s | %s | %s%s |\n", code, name, cpu, gl, why ? "left out: " : "", note);
    else
      fprintf(out, "  %3d %-30s cpu: %-44s gl: %-3s %s%s\n", code, name, cpu, gl, why ? "left out: " : "", note);
  }
  /* custom and internal ops */
  for (int i = 0; i < TFL_OP_COUNT; i++) {
    if (tfl_op_builtin_code((tfl_op)i) >= 0) continue;
    char cpu[200];
    cpu_cell((tfl_op)i, cpu, sizeof cpu);
    const char *gl = gl_delegate_has_op((tfl_op)i) ? "yes" : "-";
    if (markdown)
      fprintf(out, "| custom | %s | %s | %s | |\n", tfl_op_name((tfl_op)i), cpu, gl);
    else
      fprintf(out, "  cst %-30s cpu: %-44s gl: %s\n", tfl_op_name((tfl_op)i), cpu, gl);
  }
  fprintf(out, "%s%d of TensorFlow Lite's %d builtin operators (codes 0-%d without CUSTOM and the placeholder "
               "127) run on the CPU delegate, %d on the GL delegate; %d are left out on purpose (note).\n",
          markdown ? "\n" : "", on_cpu, n - 2, n - 1, on_gl, left);
}
