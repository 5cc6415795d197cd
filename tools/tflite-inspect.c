/* tflite-inspect - what a model holds and how the runtime runs it: inputs and
 * outputs (name, shape, type, quantization), the op histogram, which delegate takes
 * each node (with --delegate gl: why each node left to the CPU is), the partition count
 * and the arena size. */
#include <stdlib.h>
#include <string.h>

#include "delegates/gl/gl_delegate.h"
#include "op_support.h"
#include "tool_common.h"

static void usage(FILE *out)
{
  fprintf(out, "usage: tflite-inspect MODEL [--delegate cpu|gl] [--threads N] [--nodes]\n"
               "       tflite-inspect --ops [--markdown]\n"
               "  --nodes            list every node with its delegate (default: a summary; with\n"
               "                     --delegate gl the nodes left to the CPU are listed with the reason)\n"
               "  --ops              every TensorFlow Lite builtin operator: the types the CPU\n"
               "                     delegate takes, whether the GL delegate has it, or why it is\n"
               "                     left out (no model needed; --markdown: docs/operators.md)\n");
  tool_run_flags_help(out);
  fprintf(out, "  --help             this text\n");
}

static void print_tensor(const char *what, int i, const tfl_tensor *t)
{
  printf("  %s %d: %s %s [", what, i, t->name ? t->name : "", tool_type_name(t->type));
  for (int d = 0; d < t->ndim; d++) printf("%s%d", d ? "," : "", (int)t->dims[d]);
  printf("]");
  if (t->q.n == 1) printf(" scale %.9g zero_point %d", t->q.scale[0], (int)t->q.zero_point[0]);
  else if (t->q.n > 1) printf(" per-channel (%d scales, axis %d)", t->q.n, t->q.axis);
  printf("\n");
}

int main(int argc, char **argv)
{
  tool_run_flags flags;
  tool_run_flags_init(&flags);
  const char *model = NULL;
  bool nodes = false, ops = false, markdown = false;
  for (int i = 1; i < argc; i++) {
    int r = tool_run_flags_parse(&flags, argc, argv, &i);
    if (r < 0) return 2;
    if (r > 0) continue;
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      usage(stdout);
      return 0;
    } else if (strcmp(argv[i], "--nodes") == 0) {
      nodes = true;
    } else if (strcmp(argv[i], "--ops") == 0) {
      ops = true;
    } else if (strcmp(argv[i], "--markdown") == 0) {
      markdown = true;
    } else if (argv[i][0] == '-' || model) {
      fprintf(stderr, "error: unexpected argument '%s'\n", argv[i]);
      usage(stderr);
      return 2;
    } else {
      model = argv[i];
    }
  }
  if (ops) {
    op_support_print(stdout, markdown);
    return 0;
  }
  if (!model) {
    usage(stderr);
    return 2;
  }
  tool_model m;
  if (!tool_model_open(&m, model, &flags, false)) return 1;
  const tfl_graph *g = tfl_interpreter_graph(m.it);
  printf("model: %s\n", model);
  if (g->description) printf("description: %s\n", g->description);
  if (g->meta.name) printf("metadata name: %s\n", g->meta.name);
  if (g->meta.labels) {
    int n = 0;
    for (const char *p = g->meta.labels; *p; p++) n += *p == '\n';
    printf("labels: %d lines in the metadata\n", n);
  }
  if (g->meta.has_norm) {
    printf("input normalization:");
    for (int c = 0; c < g->meta.n_norm; c++)
      printf(" mean %g std %g%s", g->meta.norm_mean[c], g->meta.norm_std[c],
             c + 1 < g->meta.n_norm ? ";" : "");
    printf("\n");
  }
  printf("inputs:\n");
  for (int i = 0; i < tfl_interpreter_input_count(m.it); i++)
    print_tensor("input", i, tfl_interpreter_input(m.it, i));
  printf("outputs:\n");
  for (int i = 0; i < tfl_interpreter_output_count(m.it); i++)
    print_tensor("output", i, tfl_interpreter_output(m.it, i));

  /* histogram: op x delegate, in first-seen order */
  int counts[TFL_OP_COUNT] = {0}, order[TFL_OP_COUNT], n_ops = 0, folded = 0;
  const char *who[TFL_OP_COUNT] = {0};
  bool mixed[TFL_OP_COUNT] = {0};
  for (int i = 0; i < g->n_nodes; i++) {
    const tfl_node *n = &g->nodes[i];
    const char *d = tfl_interpreter_node_delegate(m.it, i);
    if (n->dead || !d) {
      folded++;
      continue;
    }
    if ((int)n->op < 0 || n->op >= TFL_OP_COUNT) continue;
    if (!counts[n->op]++) {
      order[n_ops++] = n->op;
      who[n->op] = d;
    } else if (strcmp(who[n->op], d) != 0) {
      mixed[n->op] = true;
    }
    if (nodes) printf("  node %d: %s (v%d) -> %s\n", i, tfl_op_name(n->op), n->version, d);
  }
  printf("ops (%d nodes run, %d folded away):\n", g->n_nodes - folded, folded);
  for (int k = 0; k < n_ops; k++)
    printf("  %-30s %4d  %s\n", tfl_op_name((tfl_op)order[k]), counts[order[k]],
           mixed[order[k]] ? "mixed" : who[order[k]]);
  /* the accelerator's reason for every node it left to the CPU */
  if (m.delegate && strcmp(flags.delegate, "gl") == 0) {
    int left = 0;
    for (int i = 0; i < g->n_nodes; i++) {
      const char *d = tfl_interpreter_node_delegate(m.it, i);
      if (g->nodes[i].dead || !d || strcmp(d, "cpu") != 0) continue;
      tfl_diag why;
      tfl_diag_init(&why);
      bool takes = gl_delegate_why(m.delegate, g, i, &why);
      if (!left++) printf("on the CPU, not GL:\n");
      if (takes) printf("  node %d (%s): GL takes it, the partitioner gave it to the CPU\n", i, tfl_op_name(g->nodes[i].op));
      else printf("  %s\n", why.error);
    }
  }
  printf("partitions: %d\n", tfl_interpreter_partition_count(m.it));
  printf("arena: %zu bytes\n", tfl_interpreter_arena_bytes(m.it));
  tool_model_close(&m);
  return 0;
}
