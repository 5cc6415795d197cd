/* test_objects.c - objects end to end through tflitefilter (issue 14): decoder choice
 * that says what it guessed, label files that do not fit, single-class detectors'
 * names, and the GstVideoRegionOfInterestMeta every buffer carries.
 * Env (meson): GST_PLUGIN_PATH, TFL_MODEL_DIRS, TFL_PICTURES, TFL_OPMODELS.
 */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/video/video.h>
#include <math.h>
#include <stdio.h>

#include <gst/tflitemeta/gsttflitemeta.h>
#include "pipe_util.h"

static gchar *picture_pipeline(const gchar *pic, const gchar *filter_props)
{
  gchar *p = pipe_picture(pic);
  gchar *d = g_strdup_printf("filesrc location=\"%s\" ! pngdec ! videoconvert ! video/x-raw,format=RGBA ! "
                             "tflitefilter name=f %s ! appsink name=sink",
                             p, filter_props);
  g_free(p);
  return d;
}

/* A 91-line COCO label file on a 1001-class ImageNet model: a warning saying both counts;
 * classes past the file show no label (the overlay prints their id). */
GST_START_TEST(test_label_count_warning)
{
  gchar *model = pipe_model("mobilenet_v1_0.25_224.tflite"), *labels = pipe_model("coco_labelmap_91.txt");
  gchar *props = g_strdup_printf("model=\"%s\" labels=\"%s\"", model, labels);
  gchar *desc = picture_pipeline("chelsea.png", props);
  pipe_run r;
  pipe_run_launch(desc, 60, &r);
  fail_unless(r.error == NULL, "%s", r.error);
  fail_unless_equals_int(pipe_run_count_warnings(&r, "has 91 labels but the model gives 1001 classes"), 1);
  fail_unless_equals_int(r.buffers->len, 1);
  GstTfliteMeta *m = gst_buffer_get_tflite_meta(g_ptr_array_index(r.buffers, 0));
  const GstTfliteObject *o = gst_tflite_meta_get_object(m, 0);
  /* chelsea: tabby/Egyptian cat, ids 282..286, past the 91 labels */
  fail_unless(o && o->kind == GST_TFLITE_OBJECT_CLASSIFICATION && o->class_id > 90);
  fail_unless(gst_tflite_object_label(o, o->class_id) == NULL);
  pipe_run_clear(&r);
  g_free(desc);
  g_free(props);
  g_free(model);
  g_free(labels);
}
GST_END_TEST;

/* The matching label file: no warning. */
GST_START_TEST(test_label_count_fits)
{
  gchar *model = pipe_model("mobilenet_v1_0.25_224.tflite"), *labels = pipe_model("imagenet_labels_1001.txt");
  gchar *props = g_strdup_printf("model=\"%s\" labels=\"%s\"", model, labels);
  gchar *desc = picture_pipeline("chelsea.png", props);
  pipe_run r;
  pipe_run_launch(desc, 60, &r);
  fail_unless(r.error == NULL, "%s", r.error);
  fail_unless_equals_int(pipe_run_count_warnings(&r, "labels"), 0);
  pipe_run_clear(&r);
  g_free(desc);
  g_free(props);
  g_free(model);
  g_free(labels);
}
GST_END_TEST;

/* decoder=auto on a model no row knows: a warning naming what it saw. */
GST_START_TEST(test_no_decoder_warning)
{
  gchar *model = g_build_filename(g_getenv("TFL_OPMODELS"), "conv_3x3_s1_same_relu.tflite", NULL);
  fail_unless(g_file_test(model, G_FILE_TEST_IS_REGULAR), "%s missing", model);
  gchar *props = g_strdup_printf("model=\"%s\"", model);
  gchar *desc = picture_pipeline("chelsea.png", props);
  pipe_run r;
  pipe_run_launch(desc, 60, &r);
  fail_unless(r.error == NULL, "%s", r.error);
  fail_unless_equals_int(pipe_run_count_warnings(&r, "decoder=auto found no decoder"), 1);
  fail_unless_equals_int(pipe_run_count_warnings(&r, "[1,6,7,4]"), 1);
  pipe_run_clear(&r);
  g_free(desc);
  g_free(props);
  g_free(model);
}
GST_END_TEST;

/* A known model: no warning; a single-class detector names its class. */
GST_START_TEST(test_known_family_named_class)
{
  gchar *model = pipe_model("face_detection_short_range.tflite");
  gchar *props = g_strdup_printf("model=\"%s\"", model);
  gchar *desc = picture_pipeline("astronaut.png", props);
  pipe_run r;
  pipe_run_launch(desc, 60, &r);
  fail_unless(r.error == NULL, "%s", r.error);
  fail_unless_equals_int(pipe_run_count_warnings(&r, "decoder"), 0);
  GstTfliteMeta *m = gst_buffer_get_tflite_meta(g_ptr_array_index(r.buffers, 0));
  const GstTfliteObject *o = gst_tflite_meta_get_object(m, 0);
  fail_unless(o && o->kind == GST_TFLITE_OBJECT_DETECTION);
  fail_unless_equals_string(gst_tflite_object_label(o, o->class_id), "face");
  pipe_run_clear(&r);
  g_free(desc);
  g_free(props);
  g_free(model);
}
GST_END_TEST;

/* ---- models on regions ---- */

static const GstTfliteObject *nth_kind(GstTfliteMeta *m, GstTfliteObjectKind kind, const gchar *source, guint nth)
{
  for (guint i = 0; i < gst_tflite_meta_n_objects(m); i++) {
    const GstTfliteObject *o = gst_tflite_meta_get_object(m, i);
    if (o->kind == kind && (!source || o->source == g_quark_from_string(source)) && nth-- == 0) return o;
  }
  return NULL;
}

/* face detector -> face mesh on its region, system memory or GL: the mesh is a child of
 * the face, lies on it, and the region metadata says so. Returns the mesh's points. */
static tfl_keypoint *face_chain(gboolean gl, guint *n_points)
{
  gchar *det = pipe_model("face_detection_short_range.tflite"), *lm = pipe_model("face_landmark.tflite");
  gchar *pic = pipe_picture("astronaut.png");
  gchar *desc = g_strdup_printf("filesrc location=\"%s\" ! pngdec ! videoconvert ! %s tflitefilter name=det "
                                "model=\"%s\" %s ! tflitefilter name=mesh model=\"%s\" %s regions-from=det ! %s appsink name=sink",
                                pic, gl ? "glupload !" : "video/x-raw,format=RGBA !", det, gl ? "delegate=gl" : "", lm,
                                gl ? "delegate=gl" : "", gl ? "gldownload !" : "");
  pipe_run r;
  pipe_run_launch(desc, 120, &r);
  fail_unless(r.error == NULL, "%s", r.error);
  GstBuffer *b = g_ptr_array_index(r.buffers, 0);
  GstTfliteMeta *m = gst_buffer_get_tflite_meta(b);
  const GstTfliteObject *face = nth_kind(m, GST_TFLITE_OBJECT_DETECTION, "det", 0);
  const GstTfliteObject *mesh = nth_kind(m, GST_TFLITE_OBJECT_LANDMARKS, "mesh", 0);
  fail_unless(face && mesh && mesh->parent_id == face->id && mesh->n_keypoints == 468);
  /* the mesh covers the face: most points inside the face box grown by a quarter */
  guint inside = 0;
  for (guint k = 0; k < mesh->n_keypoints; k++) {
    const tfl_keypoint *p = &mesh->keypoints[k];
    inside += p->x > face->x - face->w / 4 && p->x < face->x + face->w * 1.25f && p->y > face->y - face->h / 4 &&
              p->y < face->y + face->h * 1.25f;
  }
  fail_unless(inside > 460, "%u of 468 mesh points on the face", inside);
  /* the region metadata: the face's region holds the mesh as "landmarks" */
  GstVideoRegionOfInterestMeta *roi = gst_buffer_get_video_region_of_interest_meta_id(b, face->roi_id);
  fail_unless(roi && mesh->roi_id == face->roi_id);
  fail_unless_equals_string(g_quark_to_string(roi->roi_type), "face");
  gint found = 0;
  for (GList *l = roi->params; l; l = l->next) {
    const GstStructure *s = l->data;
    if (gst_structure_has_name(s, "landmarks") && !g_strcmp0(gst_structure_get_string(s, "source"), "mesh"))
      found = gst_value_array_get_size(gst_structure_get_value(s, "points"));
  }
  fail_unless_equals_int(found, 2 * 468);
  *n_points = mesh->n_keypoints;
  tfl_keypoint *pts = g_memdup2(mesh->keypoints, sizeof *pts * mesh->n_keypoints);
  pipe_run_clear(&r);
  g_free(desc);
  g_free(pic);
  g_free(det);
  g_free(lm);
  return pts;
}

/* The same region on both paths: the GL texture shader's crop and the CPU's give the
 * same mesh (fp16 GL arithmetic: within a pixel or two on a ~140 px region). */
GST_START_TEST(test_face_mesh_on_region_both_paths)
{
  guint n_cpu, n_gl;
  tfl_keypoint *cpu = face_chain(FALSE, &n_cpu), *gl = face_chain(TRUE, &n_gl);
  fail_unless_equals_int(n_cpu, n_gl);
  gfloat worst = 0;
  for (guint k = 0; k < n_cpu; k++) worst = MAX(worst, hypotf(cpu[k].x - gl[k].x, cpu[k].y - gl[k].y));
  fail_unless(worst < 2.0f, "GL mesh off the CPU mesh by %.2f px", worst);
  g_print("face mesh on the detector's region: GL within %.2f px of the CPU\n", worst);
  g_free(cpu);
  g_free(gl);
}
GST_END_TEST;

/* The YOLO detector's boxes, then a YOLO classifier on each (regions-from, fit=auto: the
 * classifier's centre crop within each box, as Ultralytics' classify_transforms cuts a
 * crop), system memory or GL: each box's class probabilities are what the real TFLite
 * gives on that box's centre crop (tests/data/yolo/yolo11_cls_regions.expected, made by
 * make_region_cls.py from Ultralytics' predict boxes, which ours match within 0.02 px),
 * and they are not what the whole box stretched gives (the file's last 3 columns: 0.26
 * apart on the smaller box), so a fit left out fails. A child of its box. */
static void yolo_cls_regions(gboolean gl)
{
  const gchar *dir = g_getenv("TFL_YOLO");
  fail_unless(dir != NULL, "TFL_YOLO not set");
  gchar *desc = g_strdup_printf("filesrc location=\"%s/picture.rgb\" ! rawvideoparse width=320 height=240 format=rgb "
                                "framerate=1/1 ! videoconvert ! video/x-raw,format=RGBA ! %s tflitefilter name=det "
                                "model=\"%s/yolov8_shapes.tflite\" %s threshold=0.05 iou-threshold=0.7 ! tflitefilter "
                                "name=cls model=\"%s/yolo11_cls_regions.tflite\" %s regions-from=det max-regions=2 threshold=0 ! %s "
                                "appsink name=sink", dir, gl ? "glupload !" : "", dir, gl ? "delegate=gl" : "", dir,
                                gl ? "delegate=gl" : "", gl ? "gldownload !" : "");
  gchar *path = g_build_filename(dir, "yolo11_cls_regions.expected", NULL), *text = NULL;
  fail_unless(g_file_get_contents(path, &text, NULL, NULL), "cannot read %s", path);
  gchar **lines = g_strsplit(text, "\n", -1);
  pipe_run r;
  pipe_run_launch(desc, 120, &r);
  fail_unless(r.error == NULL, "%s", r.error);
  fail_unless(r.buffers->len >= 1);
  GstTfliteMeta *m = gst_buffer_get_tflite_meta(g_ptr_array_index(r.buffers, 0));
  guint n = 0, n_cls = 0;
  gfloat worst = 0, apart = 0;
  for (const GstTfliteObject *box; (box = nth_kind(m, GST_TFLITE_OBJECT_DETECTION, "det", n)); n++) {
    /* its line: the nearest box */
    gdouble want[10] = { 0 }, best = G_MAXDOUBLE;
    for (guint l = 0; lines[l] && lines[l][0]; l++) {
      gdouble v[10];
      fail_unless(sscanf(lines[l], "%lf %lf %lf %lf %lf %lf %lf %lf %lf %lf", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
                         &v[6], &v[7], &v[8], &v[9]) == 10, "bad line %s", lines[l]);
      const gdouble d = fabs(v[0] - box->x) + fabs(v[1] - box->y) + fabs(v[2] - box->x - box->w) +
                        fabs(v[3] - box->y - box->h);
      if (d < best) best = d, memcpy(want, v, sizeof want);
    }
    fail_unless(best < 0.1, "box %u (%.2f %.2f %.2f %.2f) is not one of Ultralytics' (off by %.3f px)", n, box->x,
                box->y, box->w, box->h, best);
    /* a box overlapping a better one is the same object (one region): no classification */
    const GstTfliteObject *cls = NULL;
    for (guint i = 0; (cls = nth_kind(m, GST_TFLITE_OBJECT_CLASSIFICATION, "cls", i)); i++)
      if (cls->parent_id == box->id) break;
    if (!cls) continue;
    n_cls++;
    fail_unless(cls->n_classes == 3, "box %u: %u classes", n, cls->n_classes);
    gfloat diff = 0;
    for (guint k = 0; k < 3; k++) {
      gint id;
      gfloat score;
      fail_unless(gst_tflite_object_get_class(cls, k, &id, &score) && id >= 0 && id < 3);
      worst = MAX(worst, fabsf(score - (gfloat)want[4 + id]));
      diff = MAX(diff, fabsf((gfloat)(want[4 + id] - want[7 + id])));
    }
    apart = MAX(apart, diff);
  }
  /* Ultralytics' 5 boxes, 2 apart (IoU < 0.3: regions), the other 3 on the first */
  fail_unless_equals_int(n_cls, 2);
  fail_unless_equals_int(n, 5);
  /* our boxes are predict's within 0.02 px, which moves this model's probabilities by
   * 0.005; GL: the texture shader's sampling in fp16 */
  fail_unless(worst < (gl ? 0.02f : 0.01f), "class probabilities off LiteRT's by %.4f (gl %d)", worst, gl);
  fail_unless(apart > 0.1f, "the centre crops and the stretched boxes give the same probabilities: no check");
  g_print("YOLO classifier on the detector's boxes (%s): probabilities within %.2e of LiteRT on the centre crops\n",
          gl ? "GL" : "CPU", worst);
  pipe_run_clear(&r);
  g_strfreev(lines);
  g_free(text);
  g_free(path);
  g_free(desc);
}

GST_START_TEST(test_yolo_cls_on_regions)
{
  yolo_cls_regions(FALSE);
  yolo_cls_regions(TRUE);
}
GST_END_TEST;

/* YOLO-pose on another detector's boxes (regions-from, fit=auto: the letterbox keeps the
 * aspect by widening each box to the model's square about its centre), system memory or
 * GL: the trained pose model finds the figures in tasks_pose.rgb, then runs again on each
 * figure's region; the best figure there (max-results=1) is a child of its box with 17
 * keypoints in frame pixels, within 0.25 px (CPU) / 2 px (GL) of the real TFLite on the
 * square crop make_region_pose.py builds (yolov8_pose_regions.expected, from Ultralytics'
 * predict boxes and its own non_max_suppression), and not where the box stretched to the
 * input puts them (the file's last line: 2.4 px apart at the least on the first box), so a
 * fit left out fails. */
static void yolo_pose_regions(gboolean gl)
{
  const gchar *dir = g_getenv("TFL_YOLO");
  fail_unless(dir != NULL, "TFL_YOLO not set");
  gchar *desc = g_strdup_printf("filesrc location=\"%s/tasks_pose.rgb\" ! rawvideoparse width=160 height=120 format=rgb "
                                "framerate=1/1 ! videoconvert ! video/x-raw,format=RGBA ! %s tflitefilter name=det "
                                "model=\"%s/yolov8_pose.tflite\" threshold=0.2218 iou-threshold=0.7 %s ! tflitefilter "
                                "name=kp model=\"%s/yolov8_pose.tflite\" regions-from=det threshold=0.25 iou-threshold=0.7 "
                                "max-results=1 %s ! %s appsink name=sink", dir, gl ? "glupload !" : "", dir,
                                gl ? "delegate=gl" : "", dir, gl ? "delegate=gl" : "", gl ? "gldownload !" : "");
  gchar *path = g_build_filename(dir, "yolov8_pose_regions.expected", NULL), *text = NULL;
  fail_unless(g_file_get_contents(path, &text, NULL, NULL), "cannot read %s", path);
  gchar **lines = g_strsplit(text, "\n", -1);
  /* the boxes' lines, then "stretched" */
  gdouble want[2][4 + 51], stretched[51];
  guint n_want = 0;
  for (guint l = 0; lines[l] && lines[l][0]; l++) {
    gchar **f = g_strsplit(lines[l], " ", -1);
    const gboolean st = !g_strcmp0(f[0], "stretched");
    const guint nv = st ? 51 : 55;
    fail_unless(g_strv_length(f) == nv + st && (st || n_want < 2), "bad line %s", lines[l]);
    for (guint k = 0; k < nv; k++) (st ? stretched : want[n_want])[k] = g_ascii_strtod(f[k + st], NULL);
    n_want += !st;
    g_strfreev(f);
  }
  fail_unless_equals_int(n_want, 2);
  pipe_run r;
  pipe_run_launch(desc, 120, &r);
  fail_unless(r.error == NULL, "%s", r.error);
  fail_unless(r.buffers->len >= 1);
  GstTfliteMeta *m = gst_buffer_get_tflite_meta(g_ptr_array_index(r.buffers, 0));
  guint n = 0;
  gfloat worst = 0, apart = G_MAXFLOAT;
  for (const GstTfliteObject *box; (box = nth_kind(m, GST_TFLITE_OBJECT_DETECTION, "det", n)); n++) {
    const gdouble *w = NULL;
    gdouble best = G_MAXDOUBLE;
    for (guint l = 0; l < n_want; l++) {
      const gdouble d = fabs(want[l][0] - box->x) + fabs(want[l][1] - box->y) + fabs(want[l][2] - box->x - box->w) +
                        fabs(want[l][3] - box->y - box->h);
      if (d < best) best = d, w = want[l];
    }
    fail_unless(best < 0.1, "box %u (%.2f %.2f %.2f %.2f) is not one of Ultralytics' (off by %.3f px)", n, box->x,
                box->y, box->w, box->h, best);
    const GstTfliteObject *fig = NULL;
    for (guint i = 0; (fig = nth_kind(m, GST_TFLITE_OBJECT_DETECTION, "kp", i)); i++)
      if (fig->parent_id == box->id) break;
    fail_unless(fig != NULL, "box %u: no figure found on its region", n);
    fail_unless_equals_int(fig->n_keypoints, 17);
    gfloat off_stretched = 0;
    for (guint k = 0; k < 17; k++) {
      const tfl_keypoint *p = &fig->keypoints[k];
      worst = MAX(worst, hypotf(p->x - (gfloat)w[4 + 3 * k], p->y - (gfloat)w[5 + 3 * k]));
      worst = MAX(worst, fabsf(p->score - (gfloat)w[6 + 3 * k]) * 100.0f); /* visibility: within 0.0025 (CPU) */
      if (w == want[0])
        off_stretched = MAX(off_stretched, hypotf(p->x - (gfloat)stretched[3 * k], p->y - (gfloat)stretched[3 * k + 1]));
    }
    if (w == want[0]) apart = off_stretched;
  }
  fail_unless_equals_int(n, 2);
  fail_unless(worst < (gl ? 2.0f : 0.25f), "keypoints off LiteRT's on the region by %.3f px (gl %d)", worst, gl);
  fail_unless(apart > 1.0f && apart < G_MAXFLOAT, "the region's keypoints are where the stretched box puts them");
  g_print("YOLO-pose on the detector's boxes (%s): keypoints (and visibility x 100) within %.4f px of LiteRT on the square regions "
          "(the stretched box: %.1f px away)\n", gl ? "GL" : "CPU", worst, apart);
  pipe_run_clear(&r);
  g_strfreev(lines);
  g_free(text);
  g_free(path);
  g_free(desc);
}

GST_START_TEST(test_yolo_pose_on_regions)
{
  yolo_pose_regions(FALSE);
  yolo_pose_regions(TRUE);
}
GST_END_TEST;

/* Runs "HEAD ! pose detector ! pose landmarks on its regions ! appsink TAIL", where PIC in
 * HEAD and TAIL stands for astronaut.png; fails the test on an error. */
static void pose_chain(const gchar *head, const gchar *det_props, const gchar *lm_props, const gchar *tail, pipe_run *r)
{
  gchar *det = pipe_model("pose_detection.tflite"), *lm = pipe_model("pose_landmark_lite.tflite");
  gchar *pic = pipe_picture("astronaut.png");
  gchar *raw = g_strdup_printf("%s ! tflitefilter name=det model=\"%s\" %s ! tflitefilter name=pose model=\"%s\" "
                               "regions-from=det %s ! appsink name=sink sync=false %s",
                               head, det, det_props, lm, lm_props, tail);
  gchar **parts = g_strsplit(raw, "PIC", -1);
  gchar *desc = g_strjoinv(pic, parts);
  pipe_run_launch(desc, 120, r);
  fail_unless(r->error == NULL, "%s", r->error);
  g_strfreev(parts);
  g_free(raw);
  g_free(desc);
  g_free(pic);
  g_free(det);
  g_free(lm);
}

/* Two astronauts side by side: the pose detector (letterboxed, as MediaPipe feeds it)
 * finds both, the landmark model runs on each region (one batch of two), each skeleton on
 * its person. */
GST_START_TEST(test_pose_two_people)
{
  pipe_run r;
  pose_chain("compositor name=c sink_1::xpos=512 ! video/x-raw,width=1024,height=512 ! videoconvert ! "
             "video/x-raw,format=RGBA", "fit=letterbox", "max-regions=4",
             "filesrc location=\"PIC\" ! pngdec ! videoconvert ! imagefreeze num-buffers=1 ! c.sink_0 "
             "filesrc location=\"PIC\" ! pngdec ! videoconvert ! imagefreeze num-buffers=1 ! c.sink_1",
             &r);
  fail_unless(r.buffers->len >= 1);
  GstTfliteMeta *m = gst_buffer_get_tflite_meta(g_ptr_array_index(r.buffers, 0));
  const GstTfliteObject *a = nth_kind(m, GST_TFLITE_OBJECT_LANDMARKS, "pose", 0);
  const GstTfliteObject *b = nth_kind(m, GST_TFLITE_OBJECT_LANDMARKS, "pose", 1);
  fail_unless(a && b && !nth_kind(m, GST_TFLITE_OBJECT_LANDMARKS, "pose", 2), "two skeletons");
  if (a->keypoints[0].x > b->keypoints[0].x) {
    const GstTfliteObject *t = a;
    a = b, b = t;
  }
  /* the nose and both shoulders (0, 11, 12) of each on its own half, the noses on the faces */
  const int parts[3] = { 0, 11, 12 };
  for (int i = 0; i < 3; i++) {
    fail_unless(a->keypoints[parts[i]].x < 512 && b->keypoints[parts[i]].x > 512, "keypoint %d: %.0f and %.0f",
                parts[i], a->keypoints[parts[i]].x, b->keypoints[parts[i]].x);
  }
  fail_unless(fabsf(a->keypoints[0].x - 226) < 25 && fabsf(a->keypoints[0].y - 130) < 25, "left nose (%.0f, %.0f)",
              a->keypoints[0].x, a->keypoints[0].y);
  fail_unless(fabsf(b->keypoints[0].x - (512 + 226)) < 25 && fabsf(b->keypoints[0].y - 130) < 25,
              "right nose (%.0f, %.0f)", b->keypoints[0].x, b->keypoints[0].y);
  fail_unless(a->parent_id != b->parent_id && gst_tflite_meta_find_object(m, a->parent_id));
  g_print("two people: noses at (%.0f, %.0f) and (%.0f, %.0f)\n", a->keypoints[0].x, a->keypoints[0].y,
          b->keypoints[0].x, b->keypoints[0].y);
  pipe_run_clear(&r);
}
GST_END_TEST;

/* The astronaut shifted so her right side leaves the frame (220 px cut on the left): the
 * region reaches past the edge (zeros there), landmarks still come, the visible shoulder
 * lands where it is, and the region metadata stays inside the frame. */
GST_START_TEST(test_pose_partly_outside)
{
  pipe_run r;
  pose_chain("filesrc location=\"PIC\" ! pngdec ! videoconvert ! videocrop left=220 ! videoconvert ! "
             "video/x-raw,format=RGBA", "", "", "", &r);
  GstBuffer *buf = g_ptr_array_index(r.buffers, 0);
  GstTfliteMeta *m = gst_buffer_get_tflite_meta(buf);
  const GstTfliteObject *p = nth_kind(m, GST_TFLITE_OBJECT_LANDMARKS, "pose", 0);
  fail_unless(p != NULL, "no pose for a person partly outside the frame");
  /* her left shoulder (11, the image's right one: (303, 243) in the whole picture) */
  fail_unless(fabsf(p->keypoints[11].x - (303 - 220)) < 30 && fabsf(p->keypoints[11].y - 243) < 30,
              "visible shoulder at (%.0f, %.0f)", p->keypoints[11].x, p->keypoints[11].y);
  gpointer state = NULL;
  GstMeta *gm;
  while ((gm = gst_buffer_iterate_meta_filtered(buf, &state, GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
    GstVideoRegionOfInterestMeta *roi = (GstVideoRegionOfInterestMeta *)gm;
    fail_unless(roi->x + roi->w <= (guint)m->frame_width && roi->y + roi->h <= (guint)m->frame_height);
  }
  g_print("partly outside: left shoulder at (%.0f, %.0f), the cut-off right one at (%.0f, %.0f)\n",
          p->keypoints[11].x, p->keypoints[11].y, p->keypoints[12].x, p->keypoints[12].y);
  pipe_run_clear(&r);
}
GST_END_TEST;

/* track-regions on a still picture: after the first frame the landmarks carry the region
 * and the detector is paused; it posts results for the first frame only. */
GST_START_TEST(test_track_regions_pause_detector)
{
  pipe_run r;
  pose_chain("filesrc location=\"PIC\" ! pngdec ! videoconvert ! imagefreeze num-buffers=6 ! "
             "video/x-raw,format=RGBA,framerate=30/1", "", "max-regions=1 track-regions=true", "", &r);
  fail_unless_equals_int(r.buffers->len, 6);
  guint det_runs = 0, poses = 0;
  while (pipe_run_message(&r, "tflite-results", "det", det_runs)) det_runs++;
  for (guint i = 0; i < r.buffers->len; i++) {
    GstTfliteMeta *m = gst_buffer_get_tflite_meta(g_ptr_array_index(r.buffers, i));
    const GstTfliteObject *p = nth_kind(m, GST_TFLITE_OBJECT_LANDMARKS, "pose", 0);
    poses += p != NULL;
    /* a tracked frame: the parent is this element's own person box */
    if (i >= 2 && p) {
      const GstTfliteObject *parent = gst_tflite_meta_find_object(m, p->parent_id);
      fail_unless(parent && parent->source == g_quark_from_string("pose"));
      fail_unless_equals_string(gst_tflite_object_label(parent, parent->class_id), "person");
    }
  }
  fail_unless_equals_int(poses, 6);
  /* the pause travels upstream while the next frame may already be in the detector */
  fail_unless(det_runs >= 1 && det_runs <= 2, "the detector ran on %u of 6 frames", det_runs);
  pipe_run_clear(&r);
}
GST_END_TEST;

/* ---- tracking ---- */

/* The astronaut sliding right 4 px a frame on a wider canvas, the face detector on every
 * other frame: the tracker keeps one id on every frame, and on the frames the detector
 * skipped the face box is where the face is (halfway between its neighbours), not where
 * it was. */
GST_START_TEST(test_tracker_video)
{
  const gint W = 640, H = 512, FRAMES = 20, STEP = 4;
  gchar *pic = pipe_picture("astronaut.png"), *det = pipe_model("face_detection_short_range.tflite");
  gchar *dec = g_strdup_printf("filesrc location=\"%s\" ! pngdec ! videoconvert ! video/x-raw,format=RGBA ! "
                               "appsink name=sink", pic);
  pipe_run src;
  pipe_run_launch(dec, 60, &src);
  GstMapInfo pm;
  gst_buffer_map(g_ptr_array_index(src.buffers, 0), &pm, GST_MAP_READ);
  gchar *desc = g_strdup_printf("appsrc name=src format=time caps=video/x-raw,format=RGBA,width=%d,height=%d,"
                                "framerate=30/1 ! tflitefilter name=det model=\"%s\" inference-interval=2 qos=false ! "
                                "tflitetracker name=trk source=det min-hits=2 ! appsink name=sink sync=false",
                                W, H, det);
  GstElement *pipe = gst_parse_launch(desc, NULL);
  GstElement *appsrc = gst_bin_get_by_name(GST_BIN(pipe), "src"), *sink = gst_bin_get_by_name(GST_BIN(pipe), "sink");
  gst_element_set_state(pipe, GST_STATE_PLAYING);
  for (gint f = 0; f < FRAMES; f++) {
    GstBuffer *b = gst_buffer_new_and_alloc((gsize)W * H * 4);
    GstMapInfo m;
    gst_buffer_map(b, &m, GST_MAP_WRITE);
    memset(m.data, 128, m.size);
    for (gint y = 0; y < 512; y++) memcpy(m.data + ((gsize)y * W + (gsize)f * STEP) * 4, pm.data + (gsize)y * 512 * 4, 512 * 4);
    gst_buffer_unmap(b, &m);
    GST_BUFFER_PTS(b) = gst_util_uint64_scale(f, GST_SECOND, 30);
    GST_BUFFER_DURATION(b) = GST_SECOND / 30;
    gst_app_src_push_buffer(GST_APP_SRC(appsrc), b);
  }
  gst_app_src_end_of_stream(GST_APP_SRC(appsrc));
  gfloat x[20] = { 0 };
  guint64 id = 0;
  guint tracked = 0, enters = 0;
  for (gint f = 0; f < FRAMES; f++) {
    GstSample *smp = gst_app_sink_pull_sample(GST_APP_SINK(sink));
    fail_unless(smp != NULL, "frame %d missing", f);
    GstTfliteMeta *m = gst_buffer_get_tflite_meta(gst_sample_get_buffer(smp));
    const GstTfliteObject *face = nth_kind(m, GST_TFLITE_OBJECT_DETECTION, NULL, 0);
    fail_unless(face && !nth_kind(m, GST_TFLITE_OBJECT_DETECTION, NULL, 1), "frame %d: one face", f);
    fail_unless((face->age == 0) == (f % 2 == 0), "frame %d: age %u", f, face->age);
    x[f] = face->x;
    if (face->track_id) {
      fail_unless(!id || id == face->track_id, "frame %d: id %" G_GUINT64_FORMAT " after %" G_GUINT64_FORMAT, f,
                  face->track_id, id);
      id = face->track_id;
      tracked++;
    }
    gst_sample_unref(smp);
  }
  GstBus *bus = gst_element_get_bus(pipe);
  GstMessage *msg;
  while ((msg = gst_bus_pop_filtered(bus, GST_MESSAGE_ELEMENT))) {
    const GstStructure *st = gst_message_get_structure(msg);
    guint64 tid = 0;
    if (gst_structure_has_name(st, "tflite-track") && !g_strcmp0(gst_structure_get_string(st, "event"), "enter") &&
        gst_structure_get_uint64(st, "track-id", &tid) && tid == id)
      enters++;
    gst_message_unref(msg);
  }
  /* confirmed at the second fresh detection (frame 2), then on every frame */
  fail_unless(tracked >= FRAMES - 3 && enters == 1, "%u of %d frames tracked, %u enter message(s)", tracked, FRAMES,
              enters);
  /* the face's true path: a line fitted to the detector's own boxes (it jitters by a few
   * pixels); a skipped frame's box is judged against it, as is repeating the last box */
  gdouble sf = 0, sx = 0, sff = 0, sfx = 0, k = 0;
  for (gint f = 0; f < FRAMES; f += 2) sf += f, sx += x[f], sff += (gdouble)f * f, sfx += f * x[f], k++;
  gdouble slope = (k * sfx - sf * sx) / (k * sff - sf * sf), icpt = (sx - slope * sf) / k;
  gdouble pred = 0, stale = 0;
  for (gint f = 5; f < FRAMES; f += 2) {
    pred += fabs(x[f] - (icpt + slope * f));
    stale += fabs(x[f - 1] - (icpt + slope * f));
  }
  fail_unless(fabs(slope - STEP) < 1.0 && pred < 0.85 * stale,
              "skipped frames: boxes off the path by %.2f px on average; repeating the last box: %.2f px (path %.2f "
              "px/frame)", pred / 8, stale / 8, slope);
  g_print("tracker on a moving face, detector every 2nd frame: id %" G_GUINT64_FORMAT " on %u frames; skipped frames' "
          "boxes %.2f px off the path on average (repeated boxes: %.2f)\n", id, tracked, pred / 8, stale / 8);
  gst_object_unref(bus);
  gst_element_set_state(pipe, GST_STATE_NULL);
  gst_object_unref(appsrc);
  gst_object_unref(sink);
  gst_object_unref(pipe);
  gst_buffer_unmap(g_ptr_array_index(src.buffers, 0), &pm);
  pipe_run_clear(&src);
  g_free(desc);
  g_free(dec);
  g_free(det);
  g_free(pic);
}
GST_END_TEST;

/* ---- the overlay draws children inside their parent ---- */

static const gint32 one_edge[] = { 0, 1 };

/* A tracked box with a classification and a two-point skeleton as children, on a plain
 * frame: the box's class is drawn under the box in the box's colour (not in the frame's
 * class list at the top left), the skeleton in the box's colour too. */
GST_START_TEST(test_overlay_children_in_parent)
{
  const gint W = 200, H = 160;
  GstHarness *h = gst_harness_new("tfliteoverlay");
  gst_harness_set_src_caps_str(h, "video/x-raw,format=RGBA,width=200,height=160,framerate=30/1");
  GstBuffer *buf = gst_buffer_new_and_alloc((gsize)W * H * 4);
  gst_buffer_memset(buf, 0, 40, (gsize)W * H * 4);
  GstTfliteMeta *m = gst_buffer_add_tflite_meta(buf, W, H);
  GPtrArray *labels = g_ptr_array_new_with_free_func(g_free);
  g_ptr_array_add(labels, g_strdup("person"));
  g_ptr_array_add(labels, g_strdup("cat"));
  GstTfliteObject box = { .kind = GST_TFLITE_OBJECT_DETECTION, .x = 20, .y = 20, .w = 100, .h = 60, .class_id = 0,
                          .score = 0.9f, .track_id = 7, .roi_id = -1, .labels = g_ptr_array_ref(labels) };
  guint64 box_id = gst_tflite_meta_add_object(m, &box)->id;
  GstTfliteObject cls = { .kind = GST_TFLITE_OBJECT_CLASSIFICATION, .parent_id = box_id, .class_id = 1, .score = 0.8f,
                          .n_classes = 1, .roi_id = -1, .labels = g_ptr_array_ref(labels) };
  cls.classes = malloc(sizeof(tfl_class));
  cls.classes[0] = (tfl_class){ 1, 0.8f };
  gst_tflite_meta_add_object(m, &cls);
  GstTfliteObject lm = { .kind = GST_TFLITE_OBJECT_LANDMARKS, .parent_id = box_id, .class_id = -1, .score = 1,
                         .n_keypoints = 2, .n_edges = 1, .edges = one_edge, .roi_id = -1 };
  lm.keypoints = malloc(2 * sizeof(tfl_keypoint));
  lm.keypoints[0] = (tfl_keypoint){ 40, 50, 1 };
  lm.keypoints[1] = (tfl_keypoint){ 100, 50, 1 };
  gst_tflite_meta_add_object(m, &lm);
  g_ptr_array_unref(labels);
  GstBuffer *out = gst_harness_push_and_pull(h, buf);
  fail_unless(out != NULL);
  GstMapInfo map;
  gst_buffer_map(out, &map, GST_MAP_READ);
#define PX(x, y) (map.data + ((gsize)(y) * W + (x)) * 4)
  const guint8 *edge = PX(70, 80), *bg = PX(190, 150);
  fail_unless(memcmp(edge, bg, 3) != 0, "no box edge drawn");
  /* the skeleton's middle, in the box's colour */
  fail_unless(memcmp(PX(70, 50), edge, 3) == 0, "skeleton (%u,%u,%u), box (%u,%u,%u)", PX(70, 50)[0], PX(70, 50)[1],
              PX(70, 50)[2], edge[0], edge[1], edge[2]);
  /* under the box, a label in the box's colour: its background fills most of a row */
  guint same = 0;
  for (gint x = 20; x < 60; x++) same += memcmp(PX(x, 84), edge, 3) == 0;
  fail_unless(same > 20, "%u of 40 pixels under the box in its colour", same);
  /* and nothing in the frame's class list at the top left */
  fail_unless(memcmp(PX(6, 6), bg, 3) == 0, "a class label at the top left");
#undef PX
  gst_buffer_unmap(out, &map);
  gst_buffer_unref(out);
  gst_harness_teardown(h);
}
GST_END_TEST;

static Suite *objects_suite(void)
{
  Suite *s = suite_create("objects");
  TCase *tc = tcase_create("decoders");
  tcase_set_timeout(tc, 300);
  suite_add_tcase(s, tc);
  tcase_add_test(tc, test_label_count_warning);
  tcase_add_test(tc, test_label_count_fits);
  tcase_add_test(tc, test_no_decoder_warning);
  tcase_add_test(tc, test_known_family_named_class);
  TCase *tr = tcase_create("regions");
  tcase_set_timeout(tr, 600);
  suite_add_tcase(s, tr);
  tcase_add_test(tr, test_face_mesh_on_region_both_paths);
  tcase_add_test(tr, test_pose_two_people);
  tcase_add_test(tr, test_yolo_cls_on_regions);
  tcase_add_test(tr, test_yolo_pose_on_regions);
  tcase_add_test(tr, test_pose_partly_outside);
  tcase_add_test(tr, test_track_regions_pause_detector);
  tcase_add_test(tr, test_tracker_video);
  tcase_add_test(tc, test_overlay_children_in_parent);
  return s;
}

GST_CHECK_MAIN(objects);
