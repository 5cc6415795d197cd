/* gsttflitemeta.h - the objects tflitefilter (and other tflite elements) attach to a buffer.
 *
 * Every result is an object: a detected box, the classes of a box or of the whole frame,
 * landmarks, a segmentation mask. Each has an id unique in the process (so in its stream),
 * the name of the element that made it and an optional parent (the landmarks of a
 * detected person, the class of a detected box). Several elements on one buffer add to
 * the same GstTfliteMeta.
 *
 *   GstTfliteMeta *m = gst_buffer_get_tflite_meta (buf);
 *   for (guint i = 0; m && i < gst_tflite_meta_n_objects (m); i++) {
 *     const GstTfliteObject *o = gst_tflite_meta_get_object (m, i);
 *     ... o->kind, o->x/y/w/h (frame pixels), gst_tflite_object_label (o, o->class_id) ...
 *   }
 *
 * Ownership: the meta owns its objects and everything they point to; masks are
 * reference-counted (GstTfliteMask) so a mask stays valid, wherever the buffer travels
 * (queues, tees, other threads), until the last buffer holding it is freed. Labels are a
 * shared, reference-counted array of strings (index = class id) held by each object.
 *
 * Threads: a meta is read by whoever holds the buffer; it is written only through a
 * writable buffer (gst_buffer_make_writable copies the meta, not the pixels).
 */
#ifndef GST_TFLITE_META_H
#define GST_TFLITE_META_H

#include <gst/gst.h>

#include "decoders/tfl_results.h"

G_BEGIN_DECLS

/* ---- masks ---------------------------------------------------------------------- */

/* A segmentation mask: pixels on the CPU, a GL texture, or both. Immutable once made.
 * CPU pixels: `classes` (class index per pixel) or `prob` (0..1), width*height, row-major.
 * GL: `gl_buffer` holds one GstGLMemory of format GRAY8 (R8 texture: the class index, or
 * the probability * 255), a GstVideoMeta (GRAY8; tflitefilter's masks always have one) and
 * a GstGLSyncMeta set after the GPU work that wrote it: readers wait on that sync meta
 * (gst_gl_sync_meta_wait) before sampling. */
typedef struct _GstTfliteMask {
  gint refcount;
  guint kind;               /* a tfl_mask_kind: TFL_MASK_CLASSES (1) or TFL_MASK_PROB (2);
                               a plain integer so that introspection knows its size */
  gint width, height;       /* mask resolution */
  gint n_classes;
  guint8 *classes;          /* owned, or NULL */
  gfloat *prob;             /* owned, or NULL */
  GstBuffer *gl_buffer;     /* owned ref, or NULL */
} GstTfliteMask;

/* Takes the CPU pixels of `m` (m->classes / m->prob are set to NULL). */
GstTfliteMask *gst_tflite_mask_new(tfl_mask *m, GstBuffer *gl_buffer);
GstTfliteMask *gst_tflite_mask_ref(GstTfliteMask *mask);
void gst_tflite_mask_unref(GstTfliteMask *mask);
/* The GL texture name of the mask (0 when it has none) and its GstGLContext (borrowed). */
guint gst_tflite_mask_texture(const GstTfliteMask *mask, gpointer *gl_context);
/* For language bindings: the CPU pixels (width*height; NULL when the mask has only a
 * texture): class indices, or probabilities 0..1. */
const guint8 *gst_tflite_mask_get_classes(const GstTfliteMask *mask, gsize *n);
const gfloat *gst_tflite_mask_get_prob(const GstTfliteMask *mask, gsize *n);

/* ---- objects -------------------------------------------------------------------- */

typedef enum {
  GST_TFLITE_OBJECT_DETECTION,      /* a box (a detector's result, or a region) */
  GST_TFLITE_OBJECT_CLASSIFICATION, /* top-k classes of its parent, or of the frame */
  GST_TFLITE_OBJECT_LANDMARKS,      /* keypoints (and skeleton edges) */
  GST_TFLITE_OBJECT_SEGMENTATION,   /* a mask over its parent's box, or the frame */
} GstTfliteObjectKind;

typedef struct {
  guint64 id;               /* > 0, unique in the process */
  guint64 parent_id;        /* 0: the object belongs to the frame */
  GQuark source;            /* name of the element that made it */
  GstTfliteObjectKind kind;
  /* DETECTION: the box. Others: the area the result covers (the parent's box or the
   * whole frame; a mask: where the mask lies). Frame pixels. */
  gfloat x, y, w, h;
  gint class_id;            /* DETECTION: its class; CLASSIFICATION: the best; else -1 */
  gfloat score;             /* of class_id (or the landmarks' presence); < 0: none */
  guint n_classes;          /* CLASSIFICATION: top-k, best first */
  tfl_class *classes;       /* owned */
  guint n_keypoints;        /* LANDMARKS, and keypoints of a DETECTION (face, palm) */
  tfl_keypoint *keypoints;  /* owned, frame pixels */
  guint n_edges;
  const gint32 *edges;      /* pairs of keypoint indices (static tables) */
  GstTfliteMask *mask;      /* SEGMENTATION: ref held */
  guint64 track_id;         /* set by a tracker; 0: not tracked */
  guint age;                /* frames since the model computed it: 0 fresh; n: repeated from
                               n frames ago (inference-interval, QoS) or predicted by a tracker */
  gint roi_id;              /* id of the GstVideoRegionOfInterestMeta mirroring it (its own,
                               or the one it added parameters to); <= 0: not mirrored yet */
  GPtrArray *labels;        /* ref held, may be NULL: class id -> label */
  guint analytics_id;       /* GStreamer >= 1.24: id + 1 of the GstAnalyticsRelationMeta mtd
                               mirroring it (or it was taken from); 0: none */
  guint64 analytics_track;  /* the track id mirrored as a tracking mtd; 0: none */
  /* DETECTION of an oriented-box model: the rotated box (centre, size along its own
   * axes, angle in radians clockwise on screen, frame pixels, not clamped); x/y/w/h are
   * its bounds */
  gboolean oriented;
  tfl_rbox rbox;
} GstTfliteObject;

/* The label of class_id from the object's label list; NULL when it has none. */
const gchar *gst_tflite_object_label(const GstTfliteObject *obj, gint class_id);
/* Whether the object's class is one of `wanted` (labels, case-insensitive, or "#<class
 * id>"); NULL `wanted`: every class. For elements' label filters. */
gboolean gst_tflite_object_class_in(const GstTfliteObject *obj, gchar **wanted);
/* For language bindings (the arrays above are plain C): keypoint / class result `index`;
 * FALSE when out of range. The name of the element that made the object. */
gboolean gst_tflite_object_get_keypoint(const GstTfliteObject *obj, guint index, gfloat *x, gfloat *y,
                                        gfloat *score);
gboolean gst_tflite_object_get_class(const GstTfliteObject *obj, guint index, gint *class_id, gfloat *score);
const gchar *gst_tflite_object_get_source(const GstTfliteObject *obj);
/* For language bindings too: skeleton edge `index` (keypoint indices), the label list
 * (NULL when none), the oriented box (FALSE when the object has none). */
gboolean gst_tflite_object_get_edge(const GstTfliteObject *obj, guint index, gint *from, gint *to);
GPtrArray *gst_tflite_object_get_labels(const GstTfliteObject *obj);
gboolean gst_tflite_object_get_rbox(const GstTfliteObject *obj, gfloat *cx, gfloat *cy, gfloat *w, gfloat *h,
                                    gfloat *angle);
/* A fresh object id (atomic, process-wide, never 0). */
guint64 gst_tflite_object_new_id(void);

/* ---- the meta ------------------------------------------------------------------- */

#define GST_TFLITE_META_API_TYPE (gst_tflite_meta_api_get_type())
#define GST_TFLITE_META_INFO (gst_tflite_meta_get_info())

typedef struct _GstTfliteMeta {
  GstMeta meta;
  gint frame_width, frame_height;  /* frame the coordinates refer to */
  GArray *objects;                 /* GstTfliteObject, owned; read with the calls below */
  gint frame_roi_id;               /* the region covering the frame (whole-frame results), 0: none */
  GArray *tensors;                 /* GstTfliteTensor, owned: raw outputs (section below) */
} GstTfliteMeta;

GType gst_tflite_meta_api_get_type(void);
const GstMetaInfo *gst_tflite_meta_get_info(void);

#define gst_buffer_get_tflite_meta(b) ((GstTfliteMeta *)gst_buffer_get_meta((b), GST_TFLITE_META_API_TYPE))
/* The same as a function, for language bindings; NULL when the buffer has none. */
GstTfliteMeta *gst_tflite_buffer_get_meta(GstBuffer *buffer);
/* The buffer's meta, added (empty) if it has none. The buffer must be writable. */
GstTfliteMeta *gst_buffer_add_tflite_meta(GstBuffer *buffer, gint frame_width, gint frame_height);

guint gst_tflite_meta_n_objects(const GstTfliteMeta *meta);
/* Valid until the next object is added to the meta. */
const GstTfliteObject *gst_tflite_meta_get_object(const GstTfliteMeta *meta, guint index);
/* The same, to change (track_id, age...): only on a meta of a writable buffer. */
GstTfliteObject *gst_tflite_meta_get_object_writable(GstTfliteMeta *meta, guint index);
/* By id; NULL when absent. */
const GstTfliteObject *gst_tflite_meta_find_object(const GstTfliteMeta *meta, guint64 id);
/* Index of the next object after `from` (start with -1) made by `source` (0: any) with
 * parent `parent_id` (G_MAXUINT64: any); -1 when there is none. */
gint gst_tflite_meta_next_object(const GstTfliteMeta *meta, gint from, GQuark source,
                                 guint64 parent_id);

/* Adds a copy of *obj, taking ownership of what it points to (classes, keypoints, mask
 * ref, labels ref); obj->id is set when 0. Returns the stored object (valid until the
 * next add). */
GstTfliteObject *gst_tflite_meta_add_object(GstTfliteMeta *meta, GstTfliteObject *obj);

/* Adds one object per result of `results` (taking its arrays; results is cleared):
 * boxes -> DETECTION (with their keypoints and skeleton edges, oriented box), a box's own
 * mask -> a SEGMENTATION child of its DETECTION (a probability mask over where the mask
 * lies; the box crops it), classes -> one CLASSIFICATION, poses -> LANDMARKS, the mask
 * (with `gl_mask`, may be NULL) -> SEGMENTATION. `area` is the region
 * the results belong to: parent_id's box, or the frame (x=y=0, w=h=frame size).
 * The number of objects added is returned. */
guint gst_tflite_meta_add_results(GstTfliteMeta *meta, tfl_results *results, GQuark source,
                                  guint64 parent_id, const gfloat area[4], GPtrArray *labels,
                                  GstBuffer *gl_mask);

/* ---- raw output tensors ----------------------------------------------------------
 *
 * decoder=tensors (or keep-tensors=true with any decoder): every output tensor of each
 * inference, as the model wrote it, on the frame's meta beside the objects. The bytes
 * are one read-only GstBuffer per tensor (no copy: C maps it or calls get_data; Python
 * maps it, and numpy.frombuffer on the map's memoryview shares the memory):
 *
 *   for (guint i = 0; i < gst_tflite_meta_n_tensors (m); i++) {
 *     const GstTfliteTensor *t = gst_tflite_meta_get_tensor (m, i);
 *     gsize size;  const float *v = gst_tflite_tensor_get_data (t, &size);   // dtype float32
 *   }
 *
 * Only frames that ran the model carry tensors (inference-interval's repeated frames do
 * not). With regions-from, one set per region (parent_id: the region's object). */
#define GST_TFLITE_TENSOR_MAX_DIMS 8
typedef struct {
  GQuark name;              /* the model's tensor name */
  guint index;              /* position among the model's outputs */
  GQuark source;            /* the element that ran the model */
  guint64 parent_id;        /* the object whose region the model ran on; 0: the frame */
  gint type;                /* TensorFlow Lite's TensorType value (0 float32, 1 float16, 2 int32,
                               3 uint8, 4 int64, 6 bool, 7 int16, 9 int8) */
  guint n_dims;
  gint dims[GST_TFLITE_TENSOR_MAX_DIMS];
  gfloat scale;             /* real = scale * (q - zero_point); 0: not quantized */
  gint zero_point;
  GstBuffer *buffer;        /* the bytes: one read-only memory (ref held) */
  gconstpointer data;       /* that memory's bytes (valid as long as the meta) */
  gsize size;
  GQuark id;                /* the tensor id a .modelinfo gives it (GStreamer's tensor id
                               registry's, e.g. "yolo-v8-out"); 0: none */
  gboolean mirrored;        /* in the buffer's GstTensorMeta already (GStreamer >= 1.26) */
} GstTfliteTensor;

guint gst_tflite_meta_n_tensors(const GstTfliteMeta *meta);
/* Valid as long as the meta (tensors are only added by the element that ran the model). */
const GstTfliteTensor *gst_tflite_meta_get_tensor(const GstTfliteMeta *meta, guint index);
/* The index of the first tensor called `name` made by `source` (NULL: any); -1 if none. */
gint gst_tflite_meta_find_tensor(const GstTfliteMeta *meta, const gchar *name, const gchar *source);
const gchar *gst_tflite_tensor_get_name(const GstTfliteTensor *tensor);
/* The .modelinfo's id of the tensor; "" when it has none. */
const gchar *gst_tflite_tensor_get_id(const GstTfliteTensor *tensor);
const gchar *gst_tflite_tensor_get_source(const GstTfliteTensor *tensor);
/* numpy's name of the element type: "float32", "float16", "int32", "uint8", "int64",
 * "bool", "int16", "int8". */
const gchar *gst_tflite_tensor_get_dtype(const GstTfliteTensor *tensor);
const gint *gst_tflite_tensor_get_dims(const GstTfliteTensor *tensor, guint *n_dims);
/* FALSE (scale 0, zero point 0) when the tensor is not quantized. */
gboolean gst_tflite_tensor_get_quantization(const GstTfliteTensor *tensor, gfloat *scale, gint *zero_point);
GstBuffer *gst_tflite_tensor_get_buffer(const GstTfliteTensor *tensor);
gconstpointer gst_tflite_tensor_get_data(const GstTfliteTensor *tensor, gsize *size);
/* Moves r's raw tensors (r->tensors, taken: r then has none) onto the meta without a
 * copy; returns how many. gst_tflite_meta_add_results calls it. */
guint gst_tflite_meta_add_tensors(GstTfliteMeta *meta, tfl_results *r, GQuark source, guint64 parent_id);
/* Where the build found GStreamer's analytics library >= 1.26 (else nothing, 0): the tensors
 * not mirrored yet also go into the buffer's GstTensorMeta (`buffer` holds `meta`; writable),
 * sharing their bytes: id the .modelinfo's id, else the tensor's name; row-major dims.
 * gst_tflite_meta_sync_rois calls it. Returns the number added. */
guint gst_tflite_meta_sync_tensors(GstTfliteMeta *meta, GstBuffer *buffer);

/* ---- GStreamer's standard region metadata -------------------------------------- */

/* Mirrors the objects not mirrored yet into GstVideoRegionOfInterestMeta on `buffer`
 * (the buffer holding `meta`; writable), so any application reads them with GstVideo
 * alone: each DETECTION (and each LANDMARKS without a parent) becomes a region (roi_type
 * its label, or "#<class id>"), CLASSIFICATION, LANDMARKS and SEGMENTATION objects add
 * parameter structures ("classification", "landmarks", "segmentation") to their parent's
 * region or to one region covering the frame; a set track_id adds or updates "tracking".
 * The same pass builds the analytics view (gst_tflite_meta_sync_analytics) and then the
 * tensors' (gst_tflite_meta_sync_tensors). Call after adding objects (each element that
 * adds objects does); calling again adds only what is new. Returns the number of regions
 * added. Field list: docs/objects.md. */
guint gst_tflite_meta_sync_rois(GstTfliteMeta *meta, GstBuffer *buffer);

/* Where the build found GStreamer >= 1.24 (else these do nothing and return 0): mirrors
 * the objects not mirrored yet into the buffer's GstAnalyticsRelationMeta (detections,
 * classifications, tracking, with their relations; docs/objects.md) and returns the
 * number of entries added (sync_rois builds this view too, in its one pass over the
 * objects). import_analytics takes analytics detections other
 * elements made into the buffer's meta (added, of the given frame size, when missing;
 * source "analytics", label from their type, track id from a related tracking mtd), for
 * tfliteoverlay, and returns the buffer's meta (NULL when it has none). Both need a
 * writable buffer. */
guint gst_tflite_meta_sync_analytics(GstTfliteMeta *meta, GstBuffer *buffer);
GstTfliteMeta *gst_tflite_meta_import_analytics(GstBuffer *buffer, gint frame_width, gint frame_height);

/* The objects of `source` (0: all) as a GstStructure "tflite-results" for bus messages
 * (docs/bus-messages.md lists the fields). Caller owns it. */
GstStructure *gst_tflite_meta_to_structure(const GstTfliteMeta *meta, GQuark source);

G_END_DECLS

#endif
