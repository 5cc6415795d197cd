/* gl_cache_dir.h - where the program cache lives when the caller names no directory. */
#ifndef GL_CACHE_DIR_H
#define GL_CACHE_DIR_H

#include <stdbool.h>

#include "runtime/tfl_status.h"

/* $XDG_CACHE_HOME/gst-tflite (else $HOME/.cache/gst-tflite), created if missing;
 * malloc'd, NULL when there is no home or it cannot be created (warned in diag). */
char *gl_cache_default_dir(tfl_diag *diag);

#endif
