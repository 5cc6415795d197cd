/* model_path.h - where tests find a real model file by name. */
#ifndef TEST_MODEL_PATH_H
#define TEST_MODEL_PATH_H

#include <stdbool.h>
#include <stddef.h>

/* Writes DIR/NAME, DIR/x/NAME or DIR/x/package/NAME (npm packages unpacked one folder
 * each) to out, whichever is a regular file first; false when none is. */
bool test_find_model(const char *dir, const char *name, char *out, size_t n);

#endif
