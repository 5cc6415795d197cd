/* fuzz_loader.c - libFuzzer target: the loader alone (fuzz_model.h). */
#include "fuzz_model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  (void)fuzz_load(data, size, NULL, 0);
  return 0;
}
