#!/usr/bin/env python3
"""litert_bench.py - the native TensorFlow Lite GPU accelerator (PyPI ai-edge-litert, its
WebGPU accelerator on Vulkan) on the models gl_bench measured, for the table in
docs/gl-performance.md. Run on the GPU machine by tests/gl/bench_device.sh.

  litert_bench.py --dump DIR [--runs N] [--queued N] MODEL.tflite...

Per model and precision (fp16: the accelerator's default; fp32: enforce_f32):
  create:  CompiledModel.from_file with the GPU accelerator (CPU fallback for the ops
           it does not take), ms;
  first:   the first run, ms (first result = create + first);
  sync:    median ms of write inputs + run + read every output;
  queued:  --queued runs back to back, outputs read once at the end, ms per run;
  error:   the worst element of each output against OUR CPU delegate's output on the
           same inputs (gl_bench --dump: DIR/<model>.<case>.txt and .bin files), as a
           fraction of the CPU output's range, the largest over outputs, per case.
Last line per model and precision:
  LITERT name prec create_ms first_ms first_result_ms median_ms queued_ms err_picture
         err_gauss accelerated
(err -1: no dump for that case; accelerated: is_fully_accelerated()).
"""
import argparse
import os
import sys
import time

import numpy as np

from ai_edge_litert.compiled_model import CompiledModel
from ai_edge_litert.hardware_accelerator import HardwareAccelerator
from ai_edge_litert.options import Options

DTYPES = {'FLOAT32': np.float32, 'UINT8': np.uint8, 'INT8': np.int8, 'INT32': np.int32, 'BOOL': np.bool_}


def now_ms():
    return time.perf_counter() * 1e3


def read_case(dump, stem, case):
    """Inputs and our CPU outputs of one golden case, or None."""
    path = os.path.join(dump, '%s.%s.txt' % (stem, case))
    if not os.path.exists(path):
        return None
    ins, outs = [], []
    for line in open(path):
        f = line.split()
        kind, idx, dtype, name, dims = f[0], int(f[1]), f[2], f[3], [int(d) for d in f[4:]]
        data = np.fromfile(os.path.join(dump, '%s.%s.%s%d.bin' % (stem, case, kind, idx)),
                           dtype=DTYPES.get(dtype.upper(), np.float32)).reshape(dims)
        (ins if kind == 'in' else outs).append((name, data))
    return ins, outs


def worst(ref, got):
    ref = ref.astype(np.float64).ravel()
    got = got.astype(np.float64).ravel()
    rng = ref.max() - ref.min() if ref.size else 1.0
    rng = rng if rng > 0 else 1.0
    if got.size != ref.size:
        return float('inf')
    err = np.abs(ref - got)
    return float(np.nanmax(np.where(np.isnan(err), np.inf, err)) / rng)


class Runner:
    def __init__(self, path, fp32, accel):
        hw = HardwareAccelerator.CPU if accel == 'cpu' else HardwareAccelerator.GPU | HardwareAccelerator.CPU
        opts = Options(hardware_accelerators=hw)
        opts.gpu_options.enforce_f32 = fp32
        t0 = now_ms()
        self.model = CompiledModel.from_file(path, options=opts)
        self.ins = self.model.create_input_buffers(0)
        self.outs = self.model.create_output_buffers(0)
        self.create_ms = now_ms() - t0
        sig = self.model.get_signature_by_index(0)
        self.in_names = list(sig.get('inputs', []))
        self.out_names = list(sig.get('outputs', []))
        key = sig.get('key', sig.get('signature_key', ''))
        det = self.model.get_output_tensor_details(key) if key is not None else {}
        self.out_shapes = []
        for k, n in enumerate(self.out_names):
            d = det.get(n, {}) if isinstance(det, dict) else {}
            self.out_shapes.append(tuple(d.get('shape', ())))

    def write(self, arrays):
        for buf, a in zip(self.ins, arrays):
            buf.write(np.ascontiguousarray(a))

    def run(self):
        self.model.run_by_index(0, self.ins, self.outs)

    def read(self, like):
        """Outputs as float32, sized like our CPU outputs (matched by name, else order)."""
        got = []
        for k, (name, ref) in enumerate(like):
            j = self.out_names.index(name) if name in self.out_names else k
            got.append(np.array(self.outs[j].read(ref.size, np.float32)).reshape(ref.shape))
        return got


def bench(path, dump, fp32, runs, queued, accel):
    stem = os.path.basename(path)
    stem = stem[:-7] if stem.endswith('.tflite') else stem
    prec = ('fp32' if fp32 else 'fp16') + ('-cpu' if accel == 'cpu' else '')
    try:
        r = Runner(path, fp32, accel)
    except Exception as e:  # the accelerator refuses some models: say so, go on
        print('LITERT-FAIL %s %s: %s' % (stem, prec, e))
        return
    cases = {c: read_case(dump, stem, c) for c in ('picture', 'gauss')}
    first_case = next((v for v in cases.values() if v), None)
    if first_case:
        inputs = [a for _, a in first_case[0]]
    else:
        inputs = [np.zeros(b.get_tensor_details()['shape'] if hasattr(b, 'get_tensor_details') else (1,), np.float32)
                  for b in r.ins]
    like = first_case[1] if first_case else [('?', np.zeros(1, np.float32))]
    r.write(inputs)
    t0 = now_ms()
    r.run()
    r.read(like)
    first = now_ms() - t0
    for _ in range(10):
        r.run()
    ms = []
    for _ in range(runs):
        t0 = now_ms()
        r.write(inputs)
        r.run()
        r.read(like)
        ms.append(now_ms() - t0)
    ms.sort()
    t0 = now_ms()
    for _ in range(queued):
        r.run()
    r.read(like)
    q = (now_ms() - t0) / max(queued, 1)
    errs = {}
    for c, v in cases.items():
        if not v:
            errs[c] = -1
            continue
        r.write([a for _, a in v[0]])
        r.run()
        got = r.read(v[1])
        errs[c] = max(worst(ref, g) for (_, ref), g in zip(v[1], got))
    acc = r.model.is_fully_accelerated()
    print('litert %s (%s): create %.1f ms, first %.1f ms, sync median %.3f ms (min %.3f), queued %.3f ms, '
          'worst picture %.3g gauss %.3g, fully accelerated %s' %
          (stem, prec, r.create_ms, first, ms[len(ms) // 2], ms[0], q, errs['picture'], errs['gauss'], acc))
    print('LITERT %s %s %.1f %.1f %.1f %.3f %.3f %.3g %.3g %d' %
          (stem, prec, r.create_ms, first, r.create_ms + first, ms[len(ms) // 2], q, errs['picture'], errs['gauss'],
           int(bool(acc))))
    sys.stdout.flush()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--dump', required=True, help='gl_bench --dump directory (inputs, our CPU outputs)')
    ap.add_argument('--runs', type=int, default=100)
    ap.add_argument('--queued', type=int, default=100)
    ap.add_argument('--fp32', action='store_true', help='also fp32 (enforce_f32)')
    ap.add_argument('--accel', choices=['gpu', 'cpu'], default='gpu',
                    help='cpu: the CPU accelerator (checks this script where there is no GPU)')
    ap.add_argument('models', nargs='+')
    a = ap.parse_args()
    for m in a.models:
        for fp32 in ([False, True] if a.fp32 else [False]):
            bench(m, a.dump, fp32, a.runs, a.queued, a.accel)


if __name__ == '__main__':
    main()
