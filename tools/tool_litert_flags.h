/* tool_litert_flags.h - LiteRT's command-line flag names (benchmark_model, the
 * evaluation tools: --graph=M --num_threads=2 --use_gpu=true ...) accepted next to ours:
 * the arguments are rewritten into our flags before a tool parses them, and every
 * "--flag=value" (LiteRT's form, ours too) becomes "--flag value".
 */
#ifndef TOOL_LITERT_FLAGS_H
#define TOOL_LITERT_FLAGS_H

#include <stdio.h>

/* What a LiteRT flag becomes. */
typedef enum {
  TOOL_ALIAS_RENAME,      /* our flag `to`, the same value */
  TOOL_ALIAS_MODEL,       /* the value is the model path (our positional argument) */
  TOOL_ALIAS_USE_GPU,     /* true: --delegate gl; false: --delegate cpu */
  TOOL_ALIAS_PRECISION,   /* gpu_precision_loss_allowed false: --precision fp32; true: the default */
  TOOL_ALIAS_DELEGATE,    /* --delegate gpu|xnnpack|none|cpu|gl -> gl or cpu */
  TOOL_ALIAS_SWITCH,      /* true: our switch `to` (no value); false: nothing */
  TOOL_ALIAS_IGNORE_BOOL, /* a boolean with nothing to change here (use_xnnpack: the CPU path is ours) */
} tool_alias_kind;

typedef struct {
  const char *litert;     /* "--num_threads" */
  tool_alias_kind kind;
  const char *to;         /* our flag, for RENAME and SWITCH */
} tool_alias;

/* The flags every model tool shares (--graph, --model_file, --num_threads,
 * --num_interpreter_threads, --use_gpu, --gpu_precision_loss_allowed, --delegate,
 * --use_xnnpack); `extra` (NULL-ended, may be NULL) adds the tool's own, and wins. */
/* Rewrites argv; on success *argv points at a new array (freed at exit) and *argc is its
 * length. Returns 0, or 2 after printing an error (a LiteRT boolean with a value that is
 * neither true nor false, a flag with an empty value). */
int tool_litert_args(int *argc, char ***argv, const tool_alias *extra);
/* One help line listing the LiteRT names this tool takes. */
void tool_litert_help(FILE *out, const tool_alias *extra);

#endif
