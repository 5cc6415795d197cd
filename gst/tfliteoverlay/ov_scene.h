/* ov_scene.h - what tfliteoverlay draws, worked out once per frame for both paths.
 *
 * ov_scene_build() turns a GstTfliteMeta into a flat list of shapes (thick segments with
 * square caps, filled disks; a filled rectangle is a segment), text items, at most one
 * frame mask and the boxes' own masks, in frame pixels of the frame actually drawn on. The cairo path and the GL path
 * draw the same list, which is why their outputs agree. Every count and coordinate of the
 * meta is checked here: the renderers trust the scene.
 */
#ifndef OV_SCENE_H
#define OV_SCENE_H

#include <gst/gst.h>

#include <gst/tflitemeta/gsttflitemeta.h>
#include "ov_font.h"

G_BEGIN_DECLS

typedef enum {
  OV_PALETTE_PASCAL_VOC,
  OV_PALETTE_CITYSCAPES,
  OV_PALETTE_RAINBOW,
} OvPalette;

typedef struct {
  gdouble mask_alpha;          /* 0..1 */
  gdouble line_width;          /* pixels */
  gdouble keypoint_threshold;  /* keypoints scored below are not drawn */
  OvPalette palette;
  gboolean show_labels, show_scores, draw_keypoints;
  gchar **classes;             /* class names or ids to draw; NULL: all (owned by caller) */
} OvSettings;

typedef enum {
  OV_SHAPE_SEGMENT = 0, /* (x0,y0)-(x1,y1), half_width across, cap beyond each end */
  OV_SHAPE_DISK = 1,    /* centre (x0,y0), radius half_width */
} OvShapeKind;

/* Laid out as the GL path's per-instance vertex data. */
typedef struct {
  gfloat x0, y0, x1, y1;
  gfloat half_width, cap, kind, pad;
  guint8 rgba[4];
} OvShape;

typedef struct {
  gfloat x, y;        /* top-left of the line box, whole pixels */
  gchar *text;        /* owned */
  guint8 rgba[4];
} OvText;

typedef struct {
  gboolean on;
  tfl_mask_kind kind;
  gint width, height;          /* mask resolution */
  const guint8 *classes;       /* borrowed from the meta (may be NULL on the GL path) */
  const gfloat *prob;
  guint texture;               /* the meta's GL mask texture, or 0 */
  gpointer gl_context;         /* its GstGLContext */
  GstBuffer *gl_buffer;        /* the mask's GL buffer (borrowed): wait on its sync meta */
  gfloat x, y, w, h;           /* where the mask lies, frame pixels */
  gfloat alpha;                /* blend weight of a drawn class / of probability 1 */
  guint8 colors[256][4];       /* per class: rgb, and 255 when drawn, 0 when not;
                                  probability masks use colors[1] */
  gboolean clipped;            /* a box's own mask: only pixels whose centre lies in the clip */
  gfloat clip_x0, clip_y0, clip_x1, clip_y1; /* rectangle (the box, frame pixels) are drawn */
} OvMask;

typedef struct {
  gint width, height;          /* frame size */
  GArray *shapes;              /* OvShape, in drawing order */
  GArray *texts;               /* OvText, drawn after every shape */
  gint line_height;            /* pixels, of the texts */
  OvMask mask;                 /* drawn before everything else */
  GArray *instances;           /* OvMask: the boxes' own masks (instance segmentation), each
                                  in its box's colour, drawn after `mask` */
} OvScene;

void ov_scene_init(OvScene *scene);
void ov_scene_clear(OvScene *scene);

/* Builds the scene of meta on a width x height frame; FALSE when there is nothing to draw.
 * The scene borrows the meta's mask pixels: keep the meta alive while drawing. */
gboolean ov_scene_build(OvScene *scene, const GstTfliteMeta *meta, gint width, gint height,
                        const OvSettings *settings, OvFont *font);

/* The palette's colour of class id (any int), rgb. */
void ov_palette_color(OvPalette palette, gint class_id, guint8 rgb[3]);

/* Whether settings->classes selects class id with the given label (may be NULL). */
gboolean ov_class_selected(const OvSettings *settings, gint class_id, const gchar *label);

G_END_DECLS

#endif
