#!/usr/bin/env python3
"""test_gir.py - the meta library called from Python through its introspection data
(GstTflite-1.0.typelib): tflitefilter finds the astronaut's face, and Python reads the
object, its box, keypoints and source through GstTflite alone.

usage: test_gir.py PICTURE MODEL   (GI_TYPELIB_PATH, LD_LIBRARY_PATH and GST_PLUGIN_PATH
set by meson to the build tree)
"""
import sys

import gi

gi.require_version('Gst', '1.0')
gi.require_version('GstTflite', '1.0')
from gi.repository import Gst, GstTflite  # noqa: E402

failures = 0


def check(cond, what):
    global failures
    print(('ok   ' if cond else 'FAIL ') + what)
    failures += not cond


def main():
    picture, model = sys.argv[1], sys.argv[2]
    Gst.init(None)
    pipe = Gst.parse_launch(
        f'filesrc location="{picture}" ! pngdec ! videoconvert ! video/x-raw,format=RGBA ! '
        f'tflitefilter name=faces model="{model}" ! appsink name=sink')
    sink = pipe.get_by_name('sink')
    pipe.set_state(Gst.State.PLAYING)
    sample = sink.emit('pull-sample')
    check(sample is not None, 'a frame came through')
    meta = GstTflite.buffer_get_meta(sample.get_buffer())
    check(meta is not None and meta.frame_width == 512 and meta.frame_height == 512,
          'the buffer has a GstTfliteMeta for the 512x512 frame')
    n = meta.n_objects()
    check(n == 1, f'one object ({n})')
    o = meta.get_object(0)
    check(o.kind == GstTflite.ObjectKind.DETECTION and o.id > 0 and o.parent_id == 0,
          f'a detection with an id ({o.id}) and no parent')
    # the face box the detector finds (tests/test_decoders_detection.c has it too)
    check(abs(o.x - 179) < 4 and abs(o.y - 81) < 4 and abs(o.w - 93) < 4 and abs(o.h - 93) < 4,
          f'box ({o.x:.1f}, {o.y:.1f}) {o.w:.1f}x{o.h:.1f} on the face')
    check(0.8 < o.score <= 1.0, f'score {o.score:.3f}')
    check(o.get_source() == 'faces', f'made by "{o.get_source()}"')
    # eyes, nose, mouth and ears: around the box (an ear may stick out a little)
    inside = 0
    for k in range(o.n_keypoints):
        ok, x, y, _ = o.get_keypoint(k)
        inside += ok and o.x - o.w / 4 <= x <= o.x + o.w * 5 / 4 and o.y - o.h / 4 <= y <= o.y + o.h * 5 / 4
    check(o.n_keypoints == 6 and inside == 6, f'{inside} of {o.n_keypoints} keypoints on the face')
    check(not o.get_keypoint(6)[0], 'keypoint 6 is out of range')
    check(meta.find_object(o.id).id == o.id, 'found by id')
    check(meta.next_object(-1, 0, 0) == 0 and meta.next_object(0, 0, 0) == -1,
          'next_object walks the frame\'s objects')
    pipe.set_state(Gst.State.NULL)
    print(f'{failures} failure(s)')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
