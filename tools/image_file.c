/* image_file.c - see image_file.h */
#include "image_file.h"

#include <errno.h>
#include <png.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
/* after stdio.h: jpeglib.h uses FILE */
#include <jpeglib.h>
#include <jerror.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/tfl_file.h"

static void set_err(char *err, size_t n, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  if (err && n) vsnprintf(err, n, fmt, ap);
  va_end(ap);
}

static bool size_ok(const char *path, unsigned long w, unsigned long h, char *err, size_t n)
{
  if (w == 0 || h == 0 || w > IMAGE_FILE_MAX_PIXELS / h) {
    set_err(err, n, "%s: %lux%lu pixels: empty or larger than %u megapixels", path, w, h,
            IMAGE_FILE_MAX_PIXELS >> 20);
    return false;
  }
  return true;
}

static uint8_t *load_png(const char *path, const uint8_t *bytes, size_t len, int *w, int *h, char *err, size_t n)
{
  png_image img;
  memset(&img, 0, sizeof img);
  img.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_memory(&img, bytes, len)) {
    set_err(err, n, "%s: %s", path, img.message);
    return NULL;
  }
  if (!size_ok(path, img.width, img.height, err, n)) {
    png_image_free(&img);
    return NULL;
  }
  img.format = PNG_FORMAT_RGBA;  /* RGBA, not RGB: libpng would blend alpha away */
  uint8_t *rgba = malloc(PNG_IMAGE_SIZE(img));
  uint8_t *rgb = malloc((size_t)img.width * img.height * 3);
  if (!rgba || !rgb || !png_image_finish_read(&img, NULL, rgba, 0, NULL)) {
    set_err(err, n, "%s: %s", path, rgba && rgb ? img.message : "out of memory");
    png_image_free(&img);
    free(rgba);
    free(rgb);
    return NULL;
  }
  for (size_t i = 0; i < (size_t)img.width * img.height; i++) memcpy(rgb + 3 * i, rgba + 4 * i, 3);
  free(rgba);
  *w = (int)img.width;
  *h = (int)img.height;
  return rgb;
}

/* libjpeg reports errors through error_exit, which must not return: jump back instead
 * of its default exit(). */
typedef struct {
  struct jpeg_error_mgr base;
  jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
} jpeg_err;

static void jpeg_error_exit(j_common_ptr cinfo)
{
  jpeg_err *e = (jpeg_err *)cinfo->err;
  e->base.format_message(cinfo, e->message);
  longjmp(e->jump, 1);
}

/* Warnings (extraneous bytes, ...) pass, except a file that ends early: libjpeg would
 * fill the missing rows with gray and a wrong picture would be evaluated. */
static void jpeg_warning(j_common_ptr cinfo, int level)
{
  if (level < 0 && cinfo->err->msg_code == JWRN_JPEG_EOF) jpeg_error_exit(cinfo);
}

/* CMYK as Adobe writes it (inverted) when the Adobe marker is there, plain otherwise. */
static void cmyk_to_rgb(const uint8_t *cmyk, uint8_t *rgb, int w, bool inverted)
{
  for (int x = 0; x < w; x++) {
    int c = cmyk[4 * x], m = cmyk[4 * x + 1], y = cmyk[4 * x + 2], k = cmyk[4 * x + 3];
    if (!inverted) c = 255 - c, m = 255 - m, y = 255 - y, k = 255 - k;
    rgb[3 * x] = (uint8_t)((c * k + 127) / 255);
    rgb[3 * x + 1] = (uint8_t)((m * k + 127) / 255);
    rgb[3 * x + 2] = (uint8_t)((y * k + 127) / 255);
  }
}

static uint8_t *load_jpeg(const char *path, const uint8_t *bytes, size_t len, int *w, int *h, char *err, size_t n)
{
  struct jpeg_decompress_struct cinfo;
  jpeg_err jerr;
  /* volatile: assigned after setjmp and read after longjmp */
  uint8_t *volatile rgb = NULL;
  uint8_t *volatile row = NULL;
  cinfo.err = jpeg_std_error(&jerr.base);
  jerr.base.error_exit = jpeg_error_exit;
  jerr.base.emit_message = jpeg_warning;
  if (setjmp(jerr.jump)) {
    set_err(err, n, "%s: not a readable JPEG: %s", path, jerr.message);
    jpeg_destroy_decompress(&cinfo);
    free(rgb);
    free(row);
    return NULL;
  }
  jpeg_create_decompress(&cinfo);
  jpeg_mem_src(&cinfo, bytes, (unsigned long)len);
  jpeg_read_header(&cinfo, TRUE);
  bool cmyk = cinfo.jpeg_color_space == JCS_CMYK || cinfo.jpeg_color_space == JCS_YCCK;
  cinfo.out_color_space = cmyk ? JCS_CMYK : JCS_RGB;
  if (!size_ok(path, cinfo.image_width, cinfo.image_height, err, n)) {
    jpeg_destroy_decompress(&cinfo);
    return NULL;
  }
  jpeg_start_decompress(&cinfo);
  const size_t W = cinfo.output_width, H = cinfo.output_height;
  rgb = malloc(W * H * 3);
  row = malloc(W * (size_t)cinfo.output_components);
  if (!rgb || !row) {
    set_err(err, n, "%s: out of memory", path);
    jpeg_destroy_decompress(&cinfo);
    free(rgb);
    free(row);
    return NULL;
  }
  while (cinfo.output_scanline < H) {
    const size_t y = cinfo.output_scanline;
    JSAMPROW rows[1] = { cmyk ? row : rgb + y * W * 3 };
    jpeg_read_scanlines(&cinfo, rows, 1);
    if (cmyk) cmyk_to_rgb(row, rgb + y * W * 3, (int)W, cinfo.saw_Adobe_marker);
  }
  jpeg_finish_decompress(&cinfo);
  jpeg_destroy_decompress(&cinfo);
  free(row);
  *w = (int)W;
  *h = (int)H;
  return rgb;
}

uint8_t *image_file_load_rgb(const char *path, int *width, int *height, char *err, size_t err_size)
{
  /* tfl_file: a regular file only (a FIFO would block), read whole and bounded */
  char *bytes = NULL;
  size_t len = 0;
  tfl_diag d;
  tfl_diag_init(&d);
  if (tfl_file_read(path, "picture", IMAGE_FILE_MAX_BYTES, &bytes, &len, &d) != TFL_OK) {
    set_err(err, err_size, "%s", d.error);
    return NULL;
  }
  const uint8_t *b = (const uint8_t *)bytes;
  uint8_t *px = NULL;
  if (len >= 3 && b[0] == 0xff && b[1] == 0xd8 && b[2] == 0xff)
    px = load_jpeg(path, b, len, width, height, err, err_size);
  else if (len >= 8 && !png_sig_cmp(b, 0, 8))
    px = load_png(path, b, len, width, height, err, err_size);
  else
    set_err(err, err_size, "%s: neither a PNG nor a JPEG file", path);
  free(bytes);
  return px;
}
