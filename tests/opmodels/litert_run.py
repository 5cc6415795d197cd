#!/usr/bin/env python3
"""litert_run.py - runs one model on the native TensorFlow Lite (ai-edge-litert) with the
tests' `gauss --seed N` inputs and writes what ../shared/oracle's `run` writes:
DIR/input_<i>.bin, DIR/output_<i>.bin (raw little-endian, the tensor's own type) and
DIR/outputs.json. Unlike the oracle (LiteRT.js), it feeds and reads every tensor type
(int8, int16, int64, bool), so quantized cases need no QUANTIZE/DEQUANTIZE wrapping.

Inputs follow tests/golden.c's golden_fill_gauss exactly: one N(0,1) value per element from
mulberry32 + Box-Muller, over the inputs in order; integer types take
round(z / scale + zero_point) (scale 0: round(z)) clamped to the type, bool z > 0.

Usage: litert_run.py MODEL --seed N --out DIR        (run with a Python that has
ai-edge-litert 2.3.0 and numpy: scripts/bench_peers.sh's venv)
"""
import argparse
import hashlib
import json
import math
import os

import sys

import numpy as np
from ai_edge_litert.interpreter import Interpreter
import ai_edge_litert

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'data'))
from make_golden import gauss_stream  # noqa: E402  (the tests' input stream)


RANGES = {np.uint8: (0, 255), np.int8: (-128, 127), np.int16: (-32768, 32767),
          np.int32: (-2147483648, 2147483647), np.int64: (-2**63, 2**63 - 1)}


def fill(normal, dtype, shape, scale, zp):
    n = int(np.prod(shape)) if len(shape) else 1
    z = [normal() for _ in range(n)]
    if dtype == np.float32:
        return np.array(z, dtype=np.float32).reshape(shape)
    if dtype == np.bool_:
        return np.array([v > 0 for v in z], dtype=np.bool_).reshape(shape)
    lo, hi = RANGES[dtype]
    q = [math.floor((v / scale if scale else v) + zp + 0.5) for v in z]
    return np.array([min(max(v, lo), hi) for v in q], dtype=dtype).reshape(shape)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('model')
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--out', required=True)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    it = Interpreter(model_path=a.model, num_threads=1)
    it.allocate_tensors()
    normal = gauss_stream(a.seed)
    doc = {'runtime': 'ai-edge-litert %s (native TensorFlow Lite, CPU)' % ai_edge_litert.__version__,
           'input': 'gauss %d' % a.seed, 'inputs': [], 'outputs': []}
    for i, d in enumerate(it.get_input_details()):
        scale, zp = d['quantization']
        x = fill(normal, d['dtype'], list(d['shape']), scale, zp)
        it.set_tensor(d['index'], x)
        f = 'input_%d.bin' % i
        x.tofile(os.path.join(a.out, f))
        doc['inputs'].append({'name': d['name'], 'dtype': np.dtype(d['dtype']).name, 'shape': list(map(int, d['shape'])),
                              'file': f})
    it.invoke()
    for i, d in enumerate(it.get_output_details()):
        y = it.get_tensor(d['index'])
        f = 'output_%d.bin' % i
        y.tofile(os.path.join(a.out, f))
        qp = d['quantization_parameters']
        q = None
        if len(qp['scales']):
            q = {'scale': [float(s) for s in qp['scales']], 'zero_point': [int(z) for z in qp['zero_points']],
                 'quantized_dimension': int(qp['quantized_dimension'])}
        doc['outputs'].append({'name': d['name'], 'dtype': np.dtype(y.dtype).name, 'shape': list(map(int, y.shape)),
                               'quantization': q, 'file': f})
    with open(a.model, 'rb') as fm:
        doc['model_sha256'] = hashlib.sha256(fm.read()).hexdigest()
    with open(os.path.join(a.out, 'outputs.json'), 'w') as fo:
        json.dump(doc, fo, indent=1)


if __name__ == '__main__':
    main()
