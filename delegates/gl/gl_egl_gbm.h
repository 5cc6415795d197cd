/* gl_egl_gbm.h - an EGL display on GBM over a DRM render node.
 *
 * Vendor EGLs (Rockchip's libmali, others) have neither the EGL device nor Mesa's
 * surfaceless platform; a GBM device on /dev/dri/renderD128..191 is what they offer.
 * libgbm is linked only when meson found it (TFL_HAVE_GBM); without it the path fails
 * with an error saying so.
 */
#ifndef GL_EGL_GBM_H
#define GL_EGL_GBM_H

#include "runtime/tfl_status.h"

typedef struct gl_egl_gbm gl_egl_gbm;

/* Opens the first render node GBM accepts and gets its EGL display (not initialized).
 * *out is freed with gl_egl_gbm_free once no context uses the display. */
tfl_status gl_egl_gbm_open(gl_egl_gbm **out, void **egl_display, tfl_diag *diag);
/* Terminates the display (it is this GBM device's alone), destroys the device, closes the node. */
void gl_egl_gbm_free(gl_egl_gbm *g);

#endif
