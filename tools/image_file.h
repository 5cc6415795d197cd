/* image_file.h - a PNG or JPEG file decoded to packed 8-bit RGB, for the tools.
 *
 * The format is told by the file's first bytes, not its name. PNG through libpng
 * (gray, palette, 16-bit and alpha converted; alpha dropped, not blended); JPEG through
 * libjpeg (gray expanded, CMYK/YCCK converted as Adobe writes them). A damaged file gives a
 * message naming it, never a crash or an exit. The file is read whole through tfl_file (a
 * regular file of at most IMAGE_FILE_MAX_BYTES; a FIFO is refused, never waited on). Pictures above IMAGE_FILE_MAX_PIXELS are
 * refused. No global state; any thread may call.
 */
#ifndef IMAGE_FILE_H
#define IMAGE_FILE_H

#include <stddef.h>
#include <stdint.h>

#define IMAGE_FILE_MAX_PIXELS (256u << 20)
/* a compressed picture file larger than this is refused before it is read */
#define IMAGE_FILE_MAX_BYTES ((size_t)1 << 30)

/* Returns malloc'd width*height*3 bytes (free them), or NULL with a message in err. */
uint8_t *image_file_load_rgb(const char *path, int *width, int *height, char *err, size_t err_size);

#endif
