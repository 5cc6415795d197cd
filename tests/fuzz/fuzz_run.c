/* fuzz_run.c - libFuzzer target: load, prepare and run on the CPU reference and fast
 * paths, then the decoders on the outputs (fuzz_model.h). */
#include "fuzz_model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  (void)fuzz_run(data, size, NULL, 0);
  return 0;
}
