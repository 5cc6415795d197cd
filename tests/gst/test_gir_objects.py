#!/usr/bin/env python3
"""test_gir_objects.py - every kind of object read from Python through the GstTflite
typelib, on the CPU path (system memory, delegate=cpu) and the GL path (glupload,
delegate=gl): a segmentation mask's geometry and pixels (deeplab), a classification's
classes and labels (MobileNet), a detection's keypoints and its landmarks child (face
detector, face mesh on its region). Each Python read is compared with what GStreamer's own
GstVideoRegionOfInterestMeta parameters say (written by the C side, read with GstVideo) and
with what the picture shows.

usage: test_gir_objects.py PICTURES_DIR MODEL_DIR[:MODEL_DIR...]   (GI_TYPELIB_PATH,
LD_LIBRARY_PATH, GST_PLUGIN_PATH, GST_GL_WINDOW set by meson)
"""
import os
import sys

import gi

gi.require_version('Gst', '1.0')
gi.require_version('GstVideo', '1.0')
gi.require_version('GstTflite', '1.0')
from gi.repository import Gst, GstTflite, GstVideo  # noqa: E402

failures = 0
VOC_CAT = 8  # pascal_voc_labels_21.txt: background, aeroplane, ..., cat (8)


def check(cond, what):
    global failures
    print(('ok   ' if cond else 'FAIL ') + what, flush=True)
    failures += not cond


def model(dirs, name):
    for d in dirs.split(':'):
        p = os.path.join(d, name)
        if os.path.isfile(p):
            return p
    raise SystemExit(f'FAIL model {name} not found in {dirs}')


def one_frame(picture, chain, path):
    """The one buffer of `chain` on the picture, by `path` ('cpu' or 'gl')."""
    if path == 'gl':
        head = 'glupload ! glcolorconvert ! video/x-raw(memory:GLMemory),format=RGBA ! '
        chain = chain.replace('tflitefilter ', 'tflitefilter delegate=gl gl-readback=true ')
    else:
        head = 'video/x-raw,format=RGBA ! '
        chain = chain.replace('tflitefilter ', 'tflitefilter delegate=cpu ')
    pipe = Gst.parse_launch(f'filesrc location="{picture}" ! pngdec ! videoconvert ! {head}{chain} ! '
                            'appsink name=sink')
    pipe.set_state(Gst.State.PLAYING)
    sample = pipe.get_by_name('sink').emit('pull-sample')
    msg = pipe.get_bus().pop_filtered(Gst.MessageType.ERROR)
    pipe.set_state(Gst.State.NULL)
    if msg:
        print('error:', msg.parse_error()[0].message)
    return sample.get_buffer() if sample else None


def roi_param(buf, roi_id, name):
    roi = GstVideo.buffer_get_video_region_of_interest_meta_id(buf, roi_id)
    return roi.get_param(name) if roi else None


def segmentation(pictures, dirs, path):
    buf = one_frame(os.path.join(pictures, 'chelsea.png'),
                    f'tflitefilter model="{model(dirs, "deeplabv3_257_mv_gpu.tflite")}"', path)
    meta = GstTflite.buffer_get_meta(buf)
    o = meta.get_object(0)
    check(o.kind == GstTflite.ObjectKind.SEGMENTATION, f'{path}: a segmentation')
    mask = o.mask
    seg = roi_param(buf, o.roi_id, 'segmentation')
    check(seg is not None, f'{path}: its region parameters')
    check((mask.width, mask.height, mask.n_classes) == (257, 257, 21) and
          (seg.get_int('mask_width')[1], seg.get_int('mask_height')[1], seg.get_int('classes')[1]) == (257, 257, 21),
          f'{path}: mask {mask.width}x{mask.height}, {mask.n_classes} classes (region: 257x257, 21)')
    check(mask.kind == 1 and not mask.get_prob(), f'{path}: a class mask (kind {mask.kind})')
    pixels = mask.get_classes()
    check(pixels is not None and len(pixels) == 257 * 257 and max(pixels) < 21,
          f'{path}: {len(pixels or b"")} class indices below 21')
    counts = [0] * 21
    for p in pixels or b'':
        counts[p] += 1
    # chelsea.png is a cat filling most of the picture
    check(counts[VOC_CAT] > 257 * 257 // 3 and counts[VOC_CAT] == max(counts[1:]),
          f'{path}: the cat is the largest class ({counts[VOC_CAT]} pixels)')


def classification(pictures, dirs, path):
    buf = one_frame(os.path.join(pictures, 'chelsea.png'),
                    f'tflitefilter model="{model(dirs, "mobilenet_v1_0.25_224.tflite")}" '
                    f'labels="{model(dirs, "imagenet_labels_1001.txt")}"', path)
    o = GstTflite.buffer_get_meta(buf).get_object(0)
    check(o.kind == GstTflite.ObjectKind.CLASSIFICATION and o.n_classes >= 1, f'{path}: a classification')
    labels = o.get_labels()
    with open(model(dirs, 'imagenet_labels_1001.txt')) as f:
        truth = [line.strip() for line in f if line.strip()]
    check(labels is not None and list(labels) == truth, f'{path}: the 1001 labels as in the file')
    ok, best, score = o.get_class(0)
    check(ok and best == o.class_id and abs(score - o.score) < 1e-6, f'{path}: class 0 is the best ({best})')
    check(labels[best] in ('tabby', 'tiger cat', 'Egyptian cat'), f'{path}: "{labels[best]}"')
    check(o.label(best) == labels[best], f'{path}: object_label agrees')
    cls = roi_param(buf, o.roi_id, 'classification')
    check(cls is not None and cls.get_string('label') == labels[best], f'{path}: the region says the same')
    ranks = [o.get_class(k) for k in range(o.n_classes)]
    check(all(r[0] for r in ranks) and all(a[2] >= b[2] for a, b in zip(ranks, ranks[1:])) and
          not o.get_class(o.n_classes)[0], f'{path}: {o.n_classes} classes, best first')


def landmarks(pictures, dirs, path):
    buf = one_frame(os.path.join(pictures, 'astronaut.png'),
                    f'tflitefilter name=det model="{model(dirs, "face_detection_short_range.tflite")}" ! '
                    f'tflitefilter name=mesh model="{model(dirs, "face_landmark.tflite")}" regions-from=det', path)
    meta = GstTflite.buffer_get_meta(buf)
    det = meta.get_object(meta.next_object(-1, 0, 0))
    check(det.kind == GstTflite.ObjectKind.DETECTION and det.get_source() == 'det' and det.n_keypoints == 6,
          f'{path}: the face with 6 keypoints')
    i = meta.next_object(-1, 0, det.id)
    child = meta.get_object(i) if i >= 0 else None
    check(child is not None and child.kind == GstTflite.ObjectKind.LANDMARKS and child.parent_id == det.id and
          child.get_source() == 'mesh' and child.n_keypoints == 468, f'{path}: its child, 468 mesh landmarks')
    if child is None:
        return
    # the same points as the region's "landmarks" structure of the mesh (frame-normalized)
    roi = GstVideo.buffer_get_video_region_of_interest_meta_id(buf, det.roi_id)
    inside = 0
    for k in range(child.n_keypoints):
        ok, x, y, _ = child.get_keypoint(k)
        inside += ok and det.x <= x <= det.x + det.w and det.y - det.h / 4 <= y <= det.y + det.h
    check(roi is not None and inside > 400, f'{path}: {inside} of 468 landmarks on the face')
    for e in range(child.n_edges):
        ok, a, b = child.get_edge(e)
        if not (ok and 0 <= a < 468 and 0 <= b < 468):
            check(False, f'{path}: edge {e} ({a}, {b})')
            break
    check(not child.get_edge(child.n_edges)[0], f'{path}: {child.n_edges} edges, the next out of range')
    check(not det.get_rbox()[0], f'{path}: no oriented box')


def main():
    pictures, dirs = sys.argv[1:3]
    Gst.init(None)
    for path in ('cpu', 'gl'):
        segmentation(pictures, dirs, path)
        classification(pictures, dirs, path)
        landmarks(pictures, dirs, path)
    print(f'{failures} failure(s)')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
