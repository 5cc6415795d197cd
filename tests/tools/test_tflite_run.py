#!/usr/bin/env python3
"""test_tflite_run.py - tflite-run's files: the inputs as fed, and --out made with its parents.

For a float and a quantized model: `tflite-run M --gauss 1 --out W/a/b` (a and b do not
exist yet) must write input_0.bin byte-identical to the input the real TensorFlow Lite's
oracle was fed (the FNV-1a hash in the model's golden file, tests/data/golden), and
`tflite-run M --input W/a/b/input_0.bin --out W/c` must write the same input and outputs
byte for byte (the README's compare-with-TensorFlow-Lite workflow). outputs.json must
describe those files. An --out under a regular file must fail with an error naming it.
A tensor of no elements (input and output of zero_sized_io.tflite here) is written as an
empty file.

Usage: test_tflite_run.py TFLITE_RUN --models DIR[:DIR...] --golden DIR --work DIR
A model missing from every folder is a failure.
"""
import argparse
import json
import os
import shutil
import struct
import subprocess
import sys

MODELS = ['mobilenet_v1_0.25_224', 'mobilenet_v2_1.0_224_quant']
failures = 0


def check(ok, what):
    global failures
    if not ok:
        failures += 1
        print('FAIL: ' + what)
    return ok


def fnv1a(data):
    h = 0xcbf29ce484222325
    for b in data:
        h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h


def find_model(dirs, name):
    for d in dirs.split(':'):
        p = os.path.join(d, name + '.tflite')
        if os.path.isfile(p):
            return p
    return None


def golden_input_hash(golden_dir, name):
    with open(os.path.join(golden_dir, name + '.gauss.txt')) as f:
        for line in f:
            w = line.split()
            if w[:2] == ['input_hash', '0']:
                return int(w[2], 16)
    return None


def run(args):
    return subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def read(path):
    with open(path, 'rb') as f:
        return f.read()


def check_json(out_dir, name):
    """outputs.json names every .bin written, with its dtype and the values' mean."""
    with open(os.path.join(out_dir, 'outputs.json')) as f:
        js = json.load(f)
    for kind in ('inputs', 'outputs'):
        check(len(js[kind]) >= 1, '%s: outputs.json lists no %s' % (name, kind))
        for e in js[kind]:
            data = read(os.path.join(out_dir, e['file']))
            fmt = {'float32': 'f', 'uint8': 'B', 'int8': 'b', 'int32': 'i'}[e['dtype']]
            vals = struct.unpack('<%d%s' % (len(data) // struct.calcsize(fmt), fmt), data)
            mean = sum(vals) / len(vals)
            check(abs(mean - e['mean']) <= 1e-6 * max(1.0, abs(mean)),
                  '%s: %s %s mean %g, outputs.json says %g' % (name, kind, e['file'], mean, e['mean']))


def zero_sized(args):
    """A model whose input 1 has no elements and is also its output 1 (zero_sized_io.json,
    `flatc -b tests/opmodels/tflite_schema.fbs`): both files are written empty (tflite-run
    once handed fwrite a NULL buffer for them, a UBSan report under the sanitizer run) and
    output 0 is RELU of input 0, as the real TensorFlow Lite computes it."""
    model = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'zero_sized_io.tflite')
    out = os.path.join(args.work, 'zero_sized')
    r = run([args.tflite_run, model, '--gauss', '1', '--out', out])
    if not check(r.returncode == 0, 'zero_sized_io --gauss 1: exit %d: %s' % (r.returncode, r.stderr)):
        return
    for f in ('input_1.bin', 'output_1.bin'):
        p = os.path.join(out, f)
        check(os.path.isfile(p) and os.path.getsize(p) == 0, 'zero_sized_io: %s missing or not empty' % f)
    x = struct.unpack('<4f', read(os.path.join(out, 'input_0.bin')))
    y = struct.unpack('<4f', read(os.path.join(out, 'output_0.bin')))
    check(y == tuple(max(v, 0.0) for v in x), 'zero_sized_io: output_0 %r is not RELU of input_0 %r' % (y, x))
    with open(os.path.join(out, 'outputs.json')) as f:
        js = json.load(f)
    for kind in ('inputs', 'outputs'):
        e = js[kind][1]
        check(e['shape'] == [0] and e['mean'] is None, 'zero_sized_io: outputs.json %s[1] is %r' % (kind, e))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('tflite_run')
    ap.add_argument('--models', required=True)
    ap.add_argument('--golden', required=True)
    ap.add_argument('--work', required=True)
    args = ap.parse_args()
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)

    for name in MODELS:
        model = find_model(args.models, name)
        if not check(model is not None, '%s.tflite in none of %s' % (name, args.models)):
            continue
        before = failures
        a = os.path.join(args.work, name, 'a', 'b')   # neither a nor b exists
        c = os.path.join(args.work, name, 'c')
        r = run([args.tflite_run, model, '--gauss', '1', '--out', a])
        if not check(r.returncode == 0, '%s --gauss 1 --out %s: exit %d: %s' % (name, a, r.returncode, r.stderr)):
            continue
        fed = read(os.path.join(a, 'input_0.bin'))
        want = golden_input_hash(args.golden, name)
        check(fnv1a(fed) == want, '%s: input_0.bin hash %016x, the oracle fed %016x' % (name, fnv1a(fed), want or 0))
        r = run([args.tflite_run, model, '--input', os.path.join(a, 'input_0.bin'), '--out', c])
        if not check(r.returncode == 0, '%s --input: exit %d: %s' % (name, r.returncode, r.stderr)):
            continue
        files = sorted(f for f in os.listdir(a) if f.endswith('.bin'))
        check(files == sorted(f for f in os.listdir(c) if f.endswith('.bin')), '%s: different files' % name)
        for f in files:
            check(read(os.path.join(a, f)) == read(os.path.join(c, f)),
                  '%s: %s differs between --gauss 1 and --input of its input_0.bin' % (name, f))
        check_json(a, name)
        check_json(c, name)
        # an existing --out is reused
        r = run([args.tflite_run, model, '--gauss', '1', '--out', c])
        check(r.returncode == 0 and read(os.path.join(c, 'input_0.bin')) == fed,
              '%s: rerun into the existing %s: exit %d' % (name, c, r.returncode))
        if failures == before:
            print('%s: %d files identical, input as the oracle fed it' % (name, len(files)))

    # --out below a regular file: exit 1, and the message names what could not be made
    model = find_model(args.models, MODELS[0])
    if model:
        plain = os.path.join(args.work, 'plain')
        open(plain, 'w').close()
        r = run([args.tflite_run, model, '--gauss', '1', '--out', os.path.join(plain, 'x')])
        check(r.returncode == 1 and plain in r.stderr and 'Not a directory' in r.stderr,
              '--out under a file: exit %d, stderr %r' % (r.returncode, r.stderr))
    zero_sized(args)
    print('%d failures' % failures)
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
