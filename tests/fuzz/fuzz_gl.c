/* fuzz_gl.c - libFuzzer target: the same model on the CPU reference and on the GL delegate
 * (plan, fuse, generate, run), outputs compared (fuzz_gl_model.h). A disagreement aborts,
 * which libFuzzer reports as a crash with the input saved.
 *
 * The delegate is made once per process; its program cache lives in $TFL_FUZZ_GL_CACHE
 * (run_fuzzer.sh's callers set it; else a new folder under $TMPDIR or /tmp). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_gl_model.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static fuzz_gl *the_gl; /* the test program's own, not library state */

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
  (void)argc;
  (void)argv;
  const char *cache = getenv("TFL_FUZZ_GL_CACHE");
  char tmp[4096];
  if (!cache || !*cache) {
    const char *base = getenv("TMPDIR");
    snprintf(tmp, sizeof tmp, "%s/fuzz_gl-XXXXXX", base && *base ? base : "/tmp");
    if (!mkdtemp(tmp)) {
      perror("fuzz_gl: mkdtemp");
      exit(1);
    }
    cache = tmp;
  }
  char why[512];
  if (!(the_gl = fuzz_gl_open(cache, why, sizeof why))) {
    fprintf(stderr, "fuzz_gl: %s\n", why);
    exit(1);
  }
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  bool differ = false;
  char msg[1024];
  (void)fuzz_gl_run(the_gl, data, size, &differ, msg, sizeof msg);
  if (differ) {
    fprintf(stderr, "fuzz_gl: GL disagrees with the CPU reference: %s\n", msg);
    abort();
  }
  return 0;
}
