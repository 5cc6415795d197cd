#!/usr/bin/env python3
"""test_roi_probe.py - pipelines/examples/roi-probe.py reads the regions with GStreamer's
own bindings only: it runs with python3-gi's GStreamer overrides blocked (so nothing of
python3-gst-1.0 is used, and no gst-tflite typelib), on two chains:
  face detector -> face mesh on its region -> tracker (astronaut.png)
  SSD -> ImageNet classifier on each box (chelsea.png)
and its output must show the detection, landmarks, tracking and classification parameters.

usage: test_roi_probe.py EXAMPLE PICTURES_DIR MODEL_DIR[:MODEL_DIR...]
"""
import os
import re
import subprocess
import sys

BLOCK = ("import sys, runpy\n"
         "for m in ('gi.overrides.Gst', 'gi.overrides.GstVideo'): sys.modules[m] = None\n"
         "sys.argv = sys.argv[1:]\n"
         "runpy.run_path(sys.argv[0], run_name='__main__')\n")

failures = 0


def check(cond, what):
    global failures
    print(('ok   ' if cond else 'FAIL ') + what)
    failures += not cond


def model(dirs, name):
    for d in dirs.split(':'):
        p = os.path.join(d, name)
        if os.path.isfile(p):
            return p
    raise SystemExit(f'FAIL model {name} not found in {dirs}')


def run(example, args):
    r = subprocess.run([sys.executable, '-c', BLOCK, example] + args, capture_output=True, text=True,
                       timeout=300)
    print(r.stdout + r.stderr)
    check(r.returncode == 0, f'the example ran (exit {r.returncode})')
    return r.stdout


def main():
    example, pictures, dirs = sys.argv[1:4]
    out = run(example, [os.path.join(pictures, 'astronaut.png'), model(dirs, 'face_detection_short_range.tflite'),
                        model(dirs, 'face_landmark.tflite')])
    check(re.search(r'region 1 "face" \(17\d,8\d 9\dx9\d\) parent 0', out) is not None, 'the face region')
    m = re.search(r'detection: face \(label_id 0\) confidence (\d\.\d+)', out)
    check(m is not None and float(m.group(1)) > 0.8, 'its detection parameters')
    check(re.search(r'landmarks: 6 points from det', out) is not None, 'the detector\'s 6 keypoints as landmarks')
    # the second landmark set of the same region (Python's get_param finds only the first)
    m = re.search(r'landmarks: 468 points from mesh, first \((\d\.\d+), (\d\.\d+)\)', out)
    check(m is not None and 0.35 < float(m.group(1)) < 0.53 and 0.16 < float(m.group(2)) < 0.34,
          'the face mesh\'s 468 points, inside the face box')
    check(re.search(r'tracking: id \d+', out) is not None, 'the tracker\'s id')
    out = run(example, ['--pipeline',
                        f'filesrc location="{os.path.join(pictures, "chelsea.png")}" ! pngdec ! videoconvert ! '
                        f'video/x-raw,format=RGBA ! tflitefilter name=ssd model="{model(dirs, "coco_ssd_mobilenet_v1_1.0_quant_2018_06_29.tflite")}" '
                        f'labels="{model(dirs, "coco_labelmap_91.txt")}" ! tflitefilter name=cls '
                        f'model="{model(dirs, "mobilenet_v1_0.25_224.tflite")}" '
                        f'labels="{model(dirs, "imagenet_labels_1001.txt")}" regions-from=ssd ! fakesink name=sink'])
    check(re.search(r'region 1 "cat"', out) is not None, 'the SSD\'s cat region')
    check(re.search(r'classification: (Egyptian cat|tabby|tiger cat) \(label_id 28\d\) confidence', out) is not None,
          'the classifier\'s label for the cat\'s box')
    print(f'{failures} failure(s)')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
