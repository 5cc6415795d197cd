#!/usr/bin/env python3
"""roi-probe.py - reading tflitefilter's results from Python with GStreamer's own bindings.

Every object tflitefilter (and tflitetracker) attaches is also a GstVideoRegionOfInterestMeta
with parameter structures (docs/objects.md). A pad probe reads them with python3-gi and the
GstVideo typelib only (no gst-tflite typelib, no python3-gst-1.0 overrides needed):

    GST_PLUGIN_PATH=build/gst /usr/bin/python3 pipelines/examples/roi-probe.py \\
        tests/data/pictures/astronaut.png models/cache/face_detection_short_range.tflite \\
        ../shared/models/face_landmark.tflite

prints, per frame and region:

    frame 0: 1 region(s)
      region 1 "face" (179,81 93x93) parent 0
        detection: face (label_id 0) confidence 0.92 box 0.35,0.16-0.53,0.34
        landmarks: 6 points from det, first (0.40, 0.20) score -1.00
        landmarks: 468 points from mesh, first (0.44, 0.28) score 1.00
        tracking: id 1

--pipeline 'DESC' runs any launch line instead (it must end in "fakesink name=sink").
"""
import ctypes
import sys
import warnings

import gi

gi.require_version('Gst', '1.0')
gi.require_version('GstVideo', '1.0')
from gi.repository import GLib, Gst, GstVideo  # noqa: E402


def doubles(structure, field):
    """A GstValueArray of doubles as a Python list (Gst.Structure.get_array is meant for
    bindings; GValueArray is deprecated in GLib, hence the warning filter)."""
    ok, array = structure.get_array(field)
    if not ok:
        return []
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', DeprecationWarning)
        return [array.get_nth(i) for i in range(array.n_values)]


def params(roi, name):
    """The region's parameter structure `name` (the first of that name), or None."""
    return roi.get_param(name)


_gst = None


def all_params(roi, name):
    """Every parameter structure `name` of the region, in order (get_param finds only the
    first). PyGObject gives the items of roi.params (a GList of gpointer) as bare addresses,
    so each is written out by gst_structure_to_string (ctypes) and parsed back."""
    global _gst
    if _gst is None:
        _gst = ctypes.CDLL('libgstreamer-1.0.so.0')
        _gst.gst_structure_to_string.restype = ctypes.c_void_p
        _gst.gst_structure_to_string.argtypes = [ctypes.c_void_p]
        _gst.gst_structure_has_name.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
        _gst.g_free.argtypes = [ctypes.c_void_p]
    found = []
    for address in roi.params or []:
        if not _gst.gst_structure_has_name(address, name.encode()):
            continue
        text = _gst.gst_structure_to_string(address)
        found.append(Gst.Structure.from_string(ctypes.string_at(text).decode())[0])
        _gst.g_free(text)
    return found


def describe(roi, out):
    kind = GLib.quark_to_string(roi.roi_type)
    out.append(f'  region {roi.id} "{kind}" ({roi.x},{roi.y} {roi.w}x{roi.h}) parent {roi.parent_id}')
    det = params(roi, 'detection')
    if det:
        out.append('    detection: %s (label_id %d) confidence %.2f box %.2f,%.2f-%.2f,%.2f' % (
            det.get_string('label'), det.get_int('label_id')[1], det.get_double('confidence')[1],
            det.get_double('x_min')[1], det.get_double('y_min')[1], det.get_double('x_max')[1],
            det.get_double('y_max')[1]))
    cls = params(roi, 'classification')
    if cls:
        out.append('    classification: %s (label_id %d) confidence %.2f from %s' % (
            cls.get_string('label'), cls.get_int('label_id')[1], cls.get_double('confidence')[1],
            cls.get_string('source')))
    # a region may hold several landmark sets (the detector's keypoints, a landmark model's
    # points): each one, the source says whose it is
    for lm in all_params(roi, 'landmarks'):
        pts, scores = doubles(lm, 'points'), doubles(lm, 'scores')
        first = f'({pts[0]:.2f}, {pts[1]:.2f}) score {scores[0]:.2f}' if len(pts) >= 2 else '-'
        out.append(f'    landmarks: {len(pts) // 2} points from {lm.get_string("source")}, first {first}')
    seg = params(roi, 'segmentation')
    if seg:
        out.append('    segmentation: %dx%d mask, %d classes' % (
            seg.get_int('mask_width')[1], seg.get_int('mask_height')[1], seg.get_int('classes')[1]))
    trk = params(roi, 'tracking')
    if trk:
        out.append(f'    tracking: id {trk.get_uint64("id")[1]}')


def on_buffer(pad, info, state):
    buf = info.get_buffer()
    api = GstVideo.VideoRegionOfInterestMeta.get_info().api
    n = buf.get_n_meta(api)
    out = [f'frame {state["frame"]}: {n} region(s)']
    # regions are looked up by id (Python cannot walk a buffer's metas): ids count from 1
    # in each buffer, so the first n ids that exist are all of them
    found, rid = 0, 1
    while found < n and rid < n + 1000:
        roi = GstVideo.buffer_get_video_region_of_interest_meta_id(buf, rid)
        if roi:
            describe(roi, out)
            found += 1
        rid += 1
    print('\n'.join(out), flush=True)
    state['frame'] += 1
    return Gst.PadProbeReturn.OK


def main(argv):
    if len(argv) >= 3 and argv[1] == '--pipeline':
        desc = argv[2]
    elif len(argv) >= 3:
        picture, detector = argv[1], argv[2]
        second = f' ! tflitefilter name=mesh model="{argv[3]}" regions-from=det' if len(argv) > 3 else ''
        desc = (f'filesrc location="{picture}" ! decodebin ! videoconvert ! video/x-raw,format=RGBA ! '
                f'tflitefilter name=det model="{detector}"{second} ! tflitetracker min-hits=1 ! '
                'fakesink name=sink')
    else:
        print(__doc__)
        return 2
    Gst.init(None)
    pipe = Gst.parse_launch(desc)
    state = {'frame': 0}
    pipe.get_by_name('sink').get_static_pad('sink').add_probe(Gst.PadProbeType.BUFFER, on_buffer, state)
    pipe.set_state(Gst.State.PLAYING)
    msg = pipe.get_bus().timed_pop_filtered(Gst.CLOCK_TIME_NONE, Gst.MessageType.EOS | Gst.MessageType.ERROR)
    pipe.set_state(Gst.State.NULL)
    if msg.type == Gst.MessageType.ERROR:
        err, dbg = msg.parse_error()
        print(f'error: {err.message} ({dbg})', file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
