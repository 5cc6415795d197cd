/* tp_mask.c - mask pixels (CPU or downloaded from GL) and their PNG encoding (libpng). */
#include "tp_mask.h"

#include <gst/gl/gl.h>
#include <math.h>
#include <png.h>
#include <string.h>

static guint8 *from_gl(const GstTfliteMask *m, const gchar **why)
{
  GstMemory *mem = gst_buffer_n_memory(m->gl_buffer) ? gst_buffer_peek_memory(m->gl_buffer, 0) : NULL;
  if (!mem || !gst_is_gl_memory(mem)) {
    *why = "the mask's buffer holds no GL memory";
    return NULL;
  }
  GstGLMemory *glmem = (GstGLMemory *)mem;
  GstGLSyncMeta *sync = gst_buffer_get_gl_sync_meta(m->gl_buffer);
  if (sync) gst_gl_sync_meta_wait_cpu(sync, glmem->mem.context); /* the GPU wrote it first */
  GstMapInfo map;
  if (!gst_memory_map(mem, &map, GST_MAP_READ)) {
    *why = "the mask texture could not be downloaded";
    return NULL;
  }
  gint stride = GST_VIDEO_INFO_PLANE_STRIDE(&glmem->info, 0);
  gsize need = (gsize)stride * (gsize)(m->height - 1) + (gsize)m->width;
  guint8 *out = NULL;
  if (stride >= m->width && map.size >= need) {
    out = g_malloc((gsize)m->width * (gsize)m->height);
    for (gint y = 0; y < m->height; y++)
      memcpy(out + (gsize)y * (gsize)m->width, map.data + (gsize)y * (gsize)stride, (gsize)m->width);
  } else {
    *why = "the mask texture's size does not match the mask";
  }
  gst_memory_unmap(mem, &map);
  return out;
}

guint8 *tp_mask_bytes(const GstTfliteMask *m, const gchar **why)
{
  gsize n = (gsize)m->width * (gsize)m->height;
  if (n == 0) {
    *why = "the mask is empty";
    return NULL;
  }
  if (m->kind == TFL_MASK_CLASSES && m->classes) return g_memdup2(m->classes, n);
  if (m->kind == TFL_MASK_PROB && m->prob) {
    guint8 *out = g_malloc(n);
    for (gsize i = 0; i < n; i++) {
      float p = m->prob[i];
      out[i] = (guint8)(p <= 0.f || isnan(p) ? 0 : p >= 1.f ? 255 : lrintf(p * 255.f));
    }
    return out;
  }
  if (m->gl_buffer) return from_gl(m, why);
  *why = "the mask has no pixels";
  return NULL;
}

typedef struct {
  GByteArray *bytes;
} png_sink;

static void png_write(png_structp png, png_bytep data, png_size_t len)
{
  png_sink *s = png_get_io_ptr(png);
  g_byte_array_append(s->bytes, data, (guint)len);
}

static void png_flush(png_structp png)
{
  (void)png;
}

guint8 *tp_png_gray8(const guint8 *pixels, gint width, gint height, gsize *len)
{
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
  png_infop info = png ? png_create_info_struct(png) : NULL;
  png_sink sink = { g_byte_array_new() };
  png_bytep *rows = g_new(png_bytep, (gsize)height);
  if (!info || setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, info ? &info : NULL);
    g_byte_array_free(sink.bytes, TRUE);
    g_free(rows);
    return NULL;
  }
  png_set_write_fn(png, &sink, png_write, png_flush);
  /* masks are small and sent often: fast compression */
  png_set_compression_level(png, 3);
  png_set_IHDR(png, info, (png_uint_32)width, (png_uint_32)height, 8, PNG_COLOR_TYPE_GRAY, PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  for (gint y = 0; y < height; y++) rows[y] = (png_bytep)(pixels + (gsize)y * (gsize)width);
  png_set_rows(png, info, rows);
  png_write_png(png, info, PNG_TRANSFORM_IDENTITY, NULL);
  png_destroy_write_struct(&png, &info);
  g_free(rows);
  *len = sink.bytes->len;
  return g_byte_array_free(sink.bytes, FALSE);
}
