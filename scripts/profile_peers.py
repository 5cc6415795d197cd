#!/usr/bin/env python3
"""profile_peers.py - where the time goes, per layer type: ours (tflite-benchmark
--profile) against OpenVINO's per-layer performance counters (f32 hint and its default
precision), same model and thread count. For the "what bounds it" notes of
docs/cpu-performance.md. (LiteRT's Python package exposes no per-op profile of its XNNPACK
delegate: the whole delegated graph is one op there.)

Run it with the peers' virtual environment (scripts/bench_peers.sh --setup-only makes it):
  build-peers/venv/bin/python scripts/profile_peers.py MODEL [--threads T] [--runs N]
      [--build build-rel] [--precision bf16] [--top 15]
Prints per engine: total per run, then per layer type (ms, share) and the slowest layers.
"""
import argparse
import collections
import os
import re
import subprocess
import sys

import numpy as np


def ours(args):
    cmd = [os.path.join(args.build, 'tools', 'tflite-benchmark'), args.model, '--threads', str(args.threads),
           '--runs', str(args.runs), '--profile']
    if args.precision:
        cmd += ['--precision', args.precision]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    by_type = collections.Counter()
    rows = []
    for line in out.splitlines():
        m = re.match(r'\s+(\d+) (\S+(?: subgraph\))?)\s+(\d+)\s+([0-9.]+)\s+([0-9.]+)%\s+([0-9.]+)\s+([0-9.]+)\s+(.*)', line)
        if m:
            kind = m.group(2)
            by_type[kind] += float(m.group(4)) / 1e3
            rows.append((float(m.group(4)) / 1e3, kind, m.group(1), m.group(8), float(m.group(7))))
    median = float(re.search(r'median: ([0-9.]+) ms', out).group(1))
    return median, by_type, rows


def openvino(args, precision):
    import openvino as ov
    core = ov.Core()
    cfg = {'INFERENCE_NUM_THREADS': args.threads, 'PERF_COUNT': True}
    if precision:
        cfg['INFERENCE_PRECISION_HINT'] = precision
    cm = core.compile_model(core.read_model(args.model), 'CPU', cfg)
    req = cm.create_infer_request()
    for i, port in enumerate(cm.inputs):
        shape = list(port.get_partial_shape().to_shape())
        dtype = port.get_element_type().to_dtype()
        req.set_input_tensor(i, ov.Tensor(np.random.default_rng(1).standard_normal(shape).astype(dtype)))
    for _ in range(3):
        req.infer()
    total = collections.Counter()
    per_layer = collections.Counter()
    info = {}
    for _ in range(args.runs):
        req.infer()
        for p in req.profiling_info:
            if p.status != p.Status.EXECUTED:
                continue
            ms = p.real_time.total_seconds() * 1e3
            total[p.node_type] += ms / args.runs
            per_layer[p.node_name] += ms / args.runs
            info[p.node_name] = (p.node_type, p.exec_type)
    rows = [(ms, info[n][0], n, info[n][1], 0.0) for n, ms in per_layer.items()]
    return sum(total.values()), total, rows


def show(name, total, by_type, rows, top):
    print('%s: %.3f ms per run' % (name, total))
    s = sum(by_type.values()) or 1
    for kind, ms in by_type.most_common():
        print('  %-28s %8.3f ms %5.1f%%' % (kind, ms, 100 * ms / s))
    print('  slowest:')
    for ms, kind, node, detail, gf in sorted(rows, reverse=True)[:top]:
        print('    %8.3f ms  %-20s %-12s %s%s' % (ms, kind, node[:40], detail[:60], ' %.0f GFLOP/s' % gf if gf else ''))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('model')
    ap.add_argument('--threads', type=int, default=1)
    ap.add_argument('--runs', type=int, default=20)
    ap.add_argument('--build', default=os.path.join(os.path.dirname(__file__), '..', 'build-rel'))
    ap.add_argument('--precision', help='ours: --precision (bf16)')
    ap.add_argument('--top', type=int, default=15)
    args = ap.parse_args()
    median, by_type, rows = ours(args)
    show('ours%s (median run %.3f ms; steps summed)' % (' ' + args.precision if args.precision else '', median),
         sum(by_type.values()), by_type, rows, args.top)
    for prec in ('f32', None):
        try:
            total, by_type, rows = openvino(args, prec)
            show('OpenVINO %s' % (prec or 'default'), total, by_type, rows, args.top)
        except Exception as e:  # noqa: BLE001 - a model OpenVINO cannot read
            print('OpenVINO %s: fails: %s' % (prec or 'default', str(e).strip().splitlines()[-1]))


if __name__ == '__main__':
    sys.exit(main())
