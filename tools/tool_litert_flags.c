/* tool_litert_flags.c - see tool_litert_flags.h */
#include "tool_litert_flags.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static const tool_alias common[] = {
  { "--graph", TOOL_ALIAS_MODEL, NULL },
  { "--model_file", TOOL_ALIAS_MODEL, NULL },
  { "--num_threads", TOOL_ALIAS_RENAME, "--threads" },
  { "--num_interpreter_threads", TOOL_ALIAS_RENAME, "--threads" },
  { "--use_gpu", TOOL_ALIAS_USE_GPU, NULL },
  { "--gpu_precision_loss_allowed", TOOL_ALIAS_PRECISION, NULL },
  { "--delegate", TOOL_ALIAS_DELEGATE, NULL },
  { "--use_xnnpack", TOOL_ALIAS_IGNORE_BOOL, NULL },
  { NULL, TOOL_ALIAS_RENAME, NULL },
};

/* the array handed back, freed at exit (the tools return from main in many places) */
static char **rewritten;

static void free_rewritten(void)
{
  free(rewritten);
}

static const tool_alias *find(const tool_alias *table, const char *name, size_t len)
{
  for (const tool_alias *a = table; a && a->litert; a++)
    if (strlen(a->litert) == len && !strncmp(a->litert, name, len)) return a;
  return NULL;
}

static bool is_value_kind(tool_alias_kind k)
{
  return k == TOOL_ALIAS_RENAME || k == TOOL_ALIAS_MODEL || k == TOOL_ALIAS_DELEGATE;
}

/* A LiteRT boolean's value: 1 true, 0 false, -1 neither (message printed). */
static int parse_bool(const char *flag, const char *v)
{
  if (!strcmp(v, "true") || !strcmp(v, "1")) return 1;
  if (!strcmp(v, "false") || !strcmp(v, "0")) return 0;
  fprintf(stderr, "error: %s is true or false, not '%s'\n", flag, v);
  return -1;
}

static const char *delegate_name(const char *v)
{
  /* LiteRT's evaluation tools name delegates gpu, xnnpack, nnapi, hexagon or none */
  if (!strcmp(v, "gpu")) return "gl";
  if (!strcmp(v, "xnnpack") || !strcmp(v, "none") || !v[0]) return "cpu";
  return v; /* ours (cpu, gl, "cpu,gl"); the tool says what is wrong with anything else */
}

int tool_litert_args(int *argc, char ***argv, const tool_alias *extra)
{
  const int n = *argc;
  char **in = *argv;
  char **out = malloc(sizeof(char *) * ((size_t)n * 2 + 1));
  if (!out) {
    fprintf(stderr, "error: out of memory\n");
    return 2;
  }
  int k = 0;
  out[k++] = in[0];
  for (int i = 1; i < n; i++) {
    char *a = in[i];
    if (strncmp(a, "--", 2) != 0) {
      out[k++] = a;
      continue;
    }
    char *eq = strchr(a, '=');
    size_t len = eq ? (size_t)(eq - a) : strlen(a);
    const tool_alias *al = find(extra, a, len);
    if (!al) al = find(common, a, len);
    /* the value: after '=', or the next argument for the flags that take one */
    char *v = eq ? eq + 1 : NULL;
    if (!al) {
      if (!eq) {
        out[k++] = a;
        continue;
      }
      /* our own flag in the '=' form: split it (the name is cut in place) */
      *eq = '\0';
      out[k++] = a;
      out[k++] = v;
      continue;
    }
    if (!v && is_value_kind(al->kind)) {
      if (i + 1 >= n) {
        fprintf(stderr, "error: %.*s needs a value\n", (int)len, a);
        free(out);
        return 2;
      }
      v = in[++i];
    }
    int b = 1; /* a boolean given bare is true */
    if (!is_value_kind(al->kind) && v && (b = parse_bool(al->litert, v)) < 0) {
      free(out);
      return 2;
    }
    switch (al->kind) {
    case TOOL_ALIAS_RENAME: out[k++] = (char *)al->to; out[k++] = v; break;
    case TOOL_ALIAS_MODEL: out[k++] = v; break;
    case TOOL_ALIAS_DELEGATE: out[k++] = "--delegate"; out[k++] = (char *)delegate_name(v); break;
    case TOOL_ALIAS_USE_GPU: out[k++] = "--delegate"; out[k++] = b ? "gl" : "cpu"; break;
    case TOOL_ALIAS_PRECISION:
      if (!b) out[k++] = "--precision", out[k++] = "fp32";
      break;
    case TOOL_ALIAS_SWITCH:
      if (b) out[k++] = (char *)al->to;
      break;
    case TOOL_ALIAS_IGNORE_BOOL: break;
    }
  }
  out[k] = NULL;
  if (!rewritten) atexit(free_rewritten);
  free(rewritten);
  rewritten = out;
  *argc = k;
  *argv = out;
  return 0;
}

void tool_litert_help(FILE *out, const tool_alias *extra)
{
  fprintf(out, "  LiteRT's names work too (also as --flag=value):");
  int col = 49;
  for (int t = 0; t < 2; t++)
    for (const tool_alias *a = t ? common : extra; a && a->litert; a++) {
      if (t && find(extra, a->litert, strlen(a->litert))) continue;
      int w = (int)strlen(a->litert) + 1;
      if (col + w > 90) {
        fprintf(out, "\n   ");
        col = 3;
      }
      fprintf(out, " %s", a->litert);
      col += w;
    }
  fprintf(out, "\n");
}
