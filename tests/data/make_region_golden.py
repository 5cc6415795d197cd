#!/usr/bin/env python3
"""make_region_golden.py - landmarks of the real TensorFlow Lite on each landmark chain's
region, for tests/test_region.c.

build/tests/test_region --dump writes each chain's crop as the tests' own code makes it
(tests/crop_ref.c: the region's corners from the detection by vectors, bilinear sampling,
0..1 floats) and the corners; ../shared/oracle (LiteRT.js) runs the landmark model on that
crop; this script maps its landmarks from crop pixels to frame pixels through the corners
(p = tl + u/W (tr - tl) + v/H (bl - tl)) and writes tests/data/golden/regions/<model>.txt:
the corners, the count, one "x y" per landmark.

Needs: a build (BUILD_DIR, default build/), node (the oracle), models/fetch.sh and
tests/fetch_pictures.sh done.
"""
import json
import os
import struct
import subprocess
import sys
import tempfile

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..'))
BUILD = os.environ.get('BUILD_DIR', os.path.join(ROOT, 'build'))
ORACLE = os.environ.get('ORACLE', os.path.join(ROOT, '..', 'shared', 'oracle', 'oracle'))
MODELS = [os.path.join(ROOT, 'models', 'cache'), os.path.join(ROOT, '..', 'shared', 'models')]
OUT = os.path.join(ROOT, 'tests', 'data', 'golden', 'regions')
# values per landmark and how many the decoder reports (pose: 33 of 39, x y z vis pres)
LAYOUT = {'pose_landmark_lite': (5, 33), 'face_landmark': (3, 468), 'hand_landmark_lite': (3, 21)}


def model_path(stem):
    for d in MODELS:
        p = os.path.join(d, stem + '.tflite')
        if os.path.isfile(p):
            return p
    raise SystemExit(f'{stem}.tflite not found in {MODELS}')


def main():
    os.makedirs(OUT, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([os.path.join(BUILD, 'tests', 'test_region'), os.path.join(ROOT, 'tests', 'data', 'pictures'),
                        ':'.join(MODELS), OUT, '--dump', tmp], check=True, stdout=subprocess.DEVNULL)
        for stem, (stride, count) in LAYOUT.items():
            with open(os.path.join(tmp, stem + '.geom')) as f:
                W, H, tlx, tly, trx, try_, blx, bly = (float(v) for v in f.read().split())
            out = os.path.join(tmp, stem)
            subprocess.run([ORACLE, 'run', model_path(stem), '--input', os.path.join(tmp, stem + '.bin'), '--out', out],
                           check=True, stdout=subprocess.DEVNULL)
            with open(os.path.join(out, 'outputs.json')) as f:
                o0 = json.load(f)['outputs'][0]
            with open(os.path.join(out, o0['file']), 'rb') as f:
                raw = f.read()
            vals = struct.unpack('<%df' % (len(raw) // 4), raw)
            lines = [f'{tlx:.6f} {tly:.6f} {trx:.6f} {try_:.6f} {blx:.6f} {bly:.6f}', str(count)]
            for i in range(count):
                a, b = vals[i * stride] / W, vals[i * stride + 1] / H
                lines.append('%.4f %.4f' % (tlx + a * (trx - tlx) + b * (blx - tlx), tly + a * (try_ - tly) + b * (bly - tly)))
            with open(os.path.join(OUT, stem + '.txt'), 'w') as f:
                f.write('\n'.join(lines) + '\n')
            print(f'{stem}: {count} landmarks from {o0["name"]} ({json.load(open(os.path.join(out, "outputs.json")))["runtime"]})')


if __name__ == '__main__':
    sys.exit(main())
