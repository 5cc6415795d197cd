/* model_path.h - where tests find a real model file by name. */
#ifndef TEST_MODEL_PATH_H
#define TEST_MODEL_PATH_H

#include <stdbool.h>
#include <stddef.h>

/* Writes DIR/NAME, DIR/x/NAME or DIR/x/package/NAME (npm packages unpacked one folder
 * each) to out, whichever is a regular file first; false when none is. */
bool test_find_model(const char *dir, const char *name, char *out, size_t n);

/* The model folders a test gets from meson as its first two arguments: SHARED_DIR
 * (../shared/models; env TFL_SHARED_MODELS wins, as for every test) and NPM_DIR
 * (models/cache). False, with a usage line naming `prog`, when they are not given:
 * tests have no built-in machine paths. */
bool test_model_dirs(int argc, char **argv, const char **shared, const char **npm);

#endif
