#!/usr/bin/env python3
"""make_golden.py - golden outputs of every real model from the real TensorFlow Lite.

Runs ../shared/oracle (LiteRT.js, default `compat` build, one thread) on each model twice:
on a picture (resized and normalized by the oracle) and on `gauss --seed 1`. Writes
tests/data/golden/<model>.<picture|gauss>.txt in the format tests/golden.c reads: per
output tensor its type, shape, quantization, count, sum/min/max/argmax and the values of
every stride-th element (stride chosen so there are at most 4096 samples), floats to
1e-7 of the output's range. `spread` is the largest difference between the oracle's
compat build (the golden) and its relaxed-SIMD build (FMA), a measure of TFLite's own
variation from floating-point contraction alone.

Before writing, it checks that tests/golden_tool (the C code the tests use) rebuilds the
oracle's input_0.bin byte for byte, so the tests feed exactly what the oracle fed.
Models ending in a custom op the oracle cannot run (cut=True) are cut before that op
(golden_tool cut); their goldens are the tensors feeding the op.

Usage: tests/data/make_golden.py [MODEL_STEM ...]      (default: all)
Needs: models/fetch.sh and tests/fetch_pictures.sh done, gcc, libpng, node (the oracle).
"""
import array
import hashlib
import json
import math
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, '..', '..'))
ORACLE = os.environ.get('ORACLE', os.path.join(ROOT, '..', 'shared', 'oracle', 'oracle'))
NPM_DIR = os.path.join(ROOT, 'models', 'cache')
SHARED_DIR = os.environ.get('TFL_SHARED_MODELS', os.path.join(ROOT, '..', 'shared', 'models'))
PICTURES = os.path.join(ROOT, 'tests', 'data', 'pictures')
OUT_DIR = os.path.join(HERE, 'golden')
MAX_SAMPLES = 4096

# stem, folder, picture, norm (lo, hi; ignored for uint8 inputs), cut before the last op
MODELS = [
    ('selfie_segmentation', NPM_DIR, 'astronaut.png', (0, 1), False),
    ('selfie_segmentation_landscape', NPM_DIR, 'astronaut.png', (0, 1), False),
    ('face_detection_short_range', NPM_DIR, 'astronaut.png', (-1, 1), False),
    ('face_detection_full_range', NPM_DIR, 'astronaut.png', (-1, 1), False),
    ('face_detection_full_range_sparse', NPM_DIR, 'astronaut.png', (-1, 1), False),
    ('hand_landmark_lite', NPM_DIR, 'astronaut.png', (0, 1), False),
    ('hand_landmark_full', NPM_DIR, 'astronaut.png', (0, 1), False),
    ('pose_landmark_lite', NPM_DIR, 'astronaut.png', (0, 1), False),
    ('pose_landmark_full', NPM_DIR, 'astronaut.png', (0, 1), False),
    ('pose_landmark_heavy', NPM_DIR, 'astronaut.png', (0, 1), False),
    ('deeplabv3_257_mv_gpu', SHARED_DIR, 'astronaut.png', (-1, 1), False),
    ('coco_ssd_mobilenet_v1_1.0_quant_2018_06_29', SHARED_DIR, 'astronaut.png', (-1, 1), True),
    ('face_landmark', SHARED_DIR, 'astronaut.png', (0, 1), False),
    ('mobilenet_v1_0.25_224', SHARED_DIR, 'chelsea.png', (-1, 1), False),
    ('mobilenet_v2_1.0_224_quant', SHARED_DIR, 'chelsea.png', (-1, 1), False),
    ('object_detection_ssd_mobilenetv2_oidv4_fp16', SHARED_DIR, 'astronaut.png', (-1, 1), False),
    ('palm_detection_lite', SHARED_DIR, 'astronaut.png', (0, 1), False),
    ('pose_detection', SHARED_DIR, 'astronaut.png', (-1, 1), False),
    ('posenet_mobilenet_v1_075_353_481_16_quant_decoder', SHARED_DIR, 'astronaut.png', (-1, 1), True),
]

def gauss_stream(seed):
    """N(0, 1) values as tests/golden.c's golden_rng_normal draws them (mulberry32 + Box-Muller,
    one value per two draws): returns the next-value function."""
    state = [seed & 0xFFFFFFFF]

    def uniform():
        state[0] = (state[0] + 0x6D2B79F5) & 0xFFFFFFFF
        t = state[0]
        t = ((t ^ (t >> 15)) * (t | 1)) & 0xFFFFFFFF
        t ^= (t + ((t ^ (t >> 7)) * (t | 61) & 0xFFFFFFFF)) & 0xFFFFFFFF
        return ((t ^ (t >> 14)) & 0xFFFFFFFF) / 4294967296

    def normal():
        u1 = uniform() or 1e-12
        u2 = uniform()
        return math.sqrt(-2 * math.log(u1)) * math.cos(2 * math.pi * u2)
    return normal


# complex64: its (real, imaginary) float pairs, 2 values per element
TYPECODE = {'float32': 'f', 'complex64': 'f', 'int32': 'i', 'uint8': 'B', 'int8': 'b', 'bool': 'B', 'int64': 'q', 'int16': 'h'}


def fnv1a(data):
    h = 0xcbf29ce484222325
    for b in data:
        h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h


def build_tool(tmp):
    tool = os.path.join(tmp, 'golden_tool')
    src = os.path.join(ROOT, 'tests')
    subprocess.run(['gcc', '-O2', '-ffp-contract=off', '-o', tool, os.path.join(src, 'golden_tool.c'),
                    os.path.join(src, 'golden.c'), '-lpng', '-lm'], check=True)
    return tool


def oracle(*args):
    subprocess.run([ORACLE, *args], check=True, stdout=subprocess.DEVNULL)


def fmt(v, dtype, res=0.0):
    """Integers exactly; floats with the fewest significant digits (at most 9, exact for
    float32) that keep the absolute error below `res`."""
    if dtype not in ('float32', 'complex64'):
        return str(int(v))
    if abs(v) < res or v == 0:
        return '0'
    digits = 9 if res == 0 else min(9, max(1, math.ceil(math.log10(abs(v) / res)) + 1))
    return '%.*g' % (digits, v)


def spec(t):
    q = t.get('quantization')
    s = '%s:%s' % (t['dtype'], 'x'.join(str(d) for d in t['shape']))
    if q and q['scale']:
        s += ':%.9g:%d' % (q['scale'][0], q['zero_point'][0])
    return s


def values(path, dtype):
    a = array.array(TYPECODE[dtype])
    with open(path, 'rb') as f:
        a.frombytes(f.read())
    return a


def same_input(ours, theirs, dtype):
    """Byte-equal, or for float32 within 1e-6."""
    with open(ours, 'rb') as f1, open(theirs, 'rb') as f2:
        if f1.read() == f2.read():
            return 0.0
    a, b = values(ours, dtype), values(theirs, dtype)
    if len(a) != len(b):
        return math.inf
    return max(abs(x - y) for x, y in zip(a, b))


def write_golden(path, header, doc, run_dir, spread=True, lsb=None):
    """spread: also read the relaxed build's outputs (run_dir + '.relaxed'); lsb: output
    position -> a float tolerance floor in real units (float outputs of quantized chains)."""
    lines = ['golden 1'] + header
    for i, t in enumerate(doc['inputs']):
        with open(os.path.join(run_dir, t['file']), 'rb') as f:
            lines.append('input_hash %d %016x' % (i, fnv1a(f.read())))
    lines.append('outputs %d' % len(doc['outputs']))
    for i, t in enumerate(doc['outputs']):
        dtype = t['dtype']
        v = values(os.path.join(run_dir, t['file']), dtype)
        count = len(v)
        shape = t['shape']
        if math.prod(shape) * (2 if dtype == 'complex64' else 1) != count:
            raise SystemExit('%s: output %d has %d values, shape %s' % (path, i, count, shape))
        q = t.get('quantization')
        scale, zp = (q['scale'][0], q['zero_point'][0]) if q and q['scale'] and dtype != 'float32' else (0, 0)
        mx = max(v)
        stride = max(1, -(-count // MAX_SAMPLES))
        samples = v[::stride]
        extra = []
        if spread:
            other = values(os.path.join(run_dir + '.relaxed', t['file']), dtype)
            extra.append('spread %s' % fmt(max(abs(x - y) for x, y in zip(v, other)), dtype))
        if lsb and i in lsb:
            extra.append('lsb %.9g' % lsb[i])
        lines += ['output %d' % i, 'name %s' % t['name'], 'type %s' % dtype,
                  'shape %d %s' % (len(shape), ' '.join(map(str, shape))),
                  'quant %.9g %d' % (scale, zp), 'count %d' % count,
                  'stats %.17g %s %s %d' % (math.fsum(v), fmt(min(v), dtype), fmt(mx, dtype), v.index(mx)),
                  *extra, 'samples %d %d' % (stride, len(samples))]
        # samples are stored to 1e-7 of the output's range (at least 1e-7 absolute): far
        # finer than the tests' tolerance (1e-4 of the range), and much smaller files
        res = 1e-7 * max(1.0, mx - min(v))
        for j in range(0, len(samples), 16):
            lines.append(' '.join(fmt(x, dtype, res) for x in samples[j:j + 16]))
    lines.append('end')
    with open(path, 'w') as f:
        f.write('\n'.join(lines) + '\n')


def make(stem, folder, picture, norm, cut, tool, tmp):
    model = os.path.join(folder, stem + '.tflite')
    with open(model, 'rb') as f:
        sha = hashlib.sha256(f.read()).hexdigest()
    header = ['model %s.tflite' % stem, 'sha256 %s' % sha]
    run_model = model
    if cut:
        run_model = os.path.join(tmp, stem + '.cut.tflite')
        subprocess.run([tool, 'cut', model, run_model], check=True)
        with open(run_model, 'rb') as f:
            header.append('cut last-op %s' % hashlib.sha256(f.read()).hexdigest())
    for case in ('picture', 'gauss'):
        run_dir = os.path.join(tmp, stem + '.' + case)
        pic = os.path.join(PICTURES, picture)
        # the default (compat) build is the golden; the relaxed build (FMA) only measures how
        # far TFLite's own builds differ, recorded per output as `spread`
        for build, d in (('compat', run_dir), ('relaxed', run_dir + '.relaxed')):
            if case == 'picture':
                oracle('run', run_model, '--image', pic, '--norm', '%g,%g' % norm, '--out', d, '--build', build)
            else:
                oracle('gauss', run_model, '--seed', '1', '--out', d, '--build', build)
        with open(os.path.join(run_dir, 'outputs.json')) as f:
            doc = json.load(f)
        inputs = doc['inputs']
        if case == 'picture':
            ours = [os.path.join(tmp, 'ours_pic.bin')]
            subprocess.run([tool, 'picture', pic, str(norm[0]), str(norm[1]), spec(inputs[0]), ours[0]], check=True)
            source = 'input picture %s %g %g' % (picture, norm[0], norm[1])
        else:
            prefix = os.path.join(tmp, 'ours_gauss_')
            subprocess.run([tool, 'gauss', '1', prefix] + [spec(t) for t in inputs], check=True)
            ours = [prefix + '%d.bin' % i for i in range(len(inputs))]
            source = 'input gauss 1'
        for i, t in enumerate(inputs):
            d = same_input(ours[i], os.path.join(run_dir, t['file']), t['dtype'])
            if d > 1e-6:
                raise SystemExit('%s %s: input %d differs from the oracle\'s by %g' % (stem, case, i, d))
        out = os.path.join(OUT_DIR, '%s.%s.txt' % (stem, case))
        write_golden(out, header + ['runtime %s' % doc['runtime'], source], doc, run_dir)
        print('%-55s %7d bytes' % (os.path.relpath(out, ROOT), os.path.getsize(out)))


def main():
    want = set(sys.argv[1:])
    os.makedirs(OUT_DIR, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        tool = build_tool(tmp)
        for m in MODELS:
            if not want or m[0] in want:
                make(*m, tool, tmp)


if __name__ == '__main__':
    main()
