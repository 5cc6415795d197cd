#!/usr/bin/env python3
"""bench_peers.py - our CPU delegate against native TensorFlow Lite (ai-edge-litert) and
OpenVINO on the same models, inputs and thread counts, interleaved in one run.

Run through scripts/bench_peers.sh, which makes the virtual environment, measures the fp32
peak and passes it here. Per model and thread count T:
  1. Outputs: `tflite-run MODEL --gauss 1 --threads T --out DIR` writes our outputs and
     the Gaussian input (input_<i>.bin); every peer runs on the same .bin files and its
     outputs are compared with the reference (LiteRT where it runs, else ours). An engine
     whose outputs differ beyond its tolerance is not timed: its cell says so.
  2. Timing: ROUNDS rounds; in each, every engine in turn runs WARMUP untimed then RUNS
     timed inferences (ours: `tflite-benchmark MODEL --threads T --runs RUNS`, a fresh
     process; the peers stay loaded in this process between rounds). The engines take
     turns inside each round so a busy moment of the shared machine hits all of them.
     Cells: median of the round medians, minimum over all runs.
Engines: ours (fp32), ours with --precision bf16 (when tflite-benchmark has it), LiteRT
(XNNPACK, num_threads=T), OpenVINO with INFERENCE_PRECISION_HINT f32, and OpenVINO's
default precision (bf16 on CPUs with AVX-512 BF16 or AMX).
The table goes to stdout, progress to stderr, raw numbers to LOG/results.json.
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time

import numpy as np

SECOND = 'min'  # the second number of a cell (main sets it)
SETTLE_S = 0.2     # pause between engines: spinning pool threads of the last one go idle
WARMUP = 3

# Outputs must agree with the reference within this share of the reference's range
# (max - min) on every element: fp32 engines tightly (else they are not timed); bf16 ones
# (8 mantissa bits through every layer, on Gaussian noise that no layer was trained for)
# are timed all the same, their error is in the table and noted above TOL_BF16. 8-bit outputs: within this share of 255 steps (the engines requantize with
# different rounding, a step here and there grows through the layers).
TOL_F32 = 2e-3
TOL_BF16 = 0.25
TOL_LSB_F32 = 5
TOL_LSB_BF16 = 15


def log(msg):
    print('bench_peers: ' + msg, file=sys.stderr, flush=True)


def load_avg():
    with open('/proc/loadavg') as f:
        return float(f.read().split()[0])


class Ours:
    """tflite-benchmark / tflite-run in a child process."""

    def __init__(self, tools, model, threads, precision):
        self.tools, self.model, self.threads, self.precision = tools, model, threads, precision
        self.macs = None

    def flags(self):
        f = ['--threads', str(self.threads)]
        if self.precision != 'fp32':
            f += ['--precision', self.precision]
        return f

    def outputs(self, out_dir, inputs=None):
        """Runs once on Gaussian inputs (or on the given input files) into out_dir."""
        cmd = [os.path.join(self.tools, 'tflite-run'), self.model, '--out', out_dir]
        cmd += ['--gauss', '1'] if not inputs else sum([['--input', f] for f in inputs], [])
        r = subprocess.run(cmd + self.flags(), capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError(r.stderr.strip().splitlines()[-1] if r.stderr.strip() else 'failed')
        meta = json.load(open(os.path.join(out_dir, 'outputs.json')))
        return [read_tensor(out_dir, t) for t in meta['outputs']]

    def time(self, runs):
        cmd = [os.path.join(self.tools, 'tflite-benchmark'), self.model, '--runs', str(runs),
               '--warmup', str(WARMUP)] + self.flags()
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError(r.stderr.strip())
        m = re.search(r'^runs: \d+\s+min: ([0-9.]+) ms\s+median: ([0-9.]+) ms\s+p90: ([0-9.]+) ms', r.stdout, re.M)
        macs = re.search(r'^multiply-adds: ([0-9.e+]+)', r.stdout, re.M)
        cpu = re.search(r'^cpu time: ([0-9.]+) ms', r.stdout, re.M)
        if macs:
            self.macs = float(macs.group(1))
        return float(m.group(2)), float(m.group(1)), float(cpu.group(1)) if cpu else None, float(m.group(3))


class LiteRT:
    def __init__(self, model, threads):
        from ai_edge_litert.interpreter import Interpreter
        self.it = Interpreter(model_path=model, num_threads=threads)
        self.it.allocate_tensors()

    def set_inputs(self, arrays):
        for d, a in zip(self.it.get_input_details(), arrays):
            self.it.set_tensor(d['index'], a.reshape(d['shape']).astype(d['dtype'], copy=False))

    def run(self):
        self.it.invoke()

    def outputs(self):
        return [self.it.get_tensor(d['index']) for d in self.it.get_output_details()]


class OpenVINO:
    def __init__(self, model, threads, precision):
        import openvino as ov
        core = ov.Core()
        cfg = {'INFERENCE_NUM_THREADS': threads}
        if precision:
            cfg['INFERENCE_PRECISION_HINT'] = precision
        self.compiled = core.compile_model(core.read_model(model), 'CPU', cfg)
        hint = str(self.compiled.get_property('INFERENCE_PRECISION_HINT'))  # "<Type: 'bfloat16'>"
        m = re.search(r"'([a-z0-9]+)'", hint)
        self.precision = m.group(1) if m else hint
        self.req = self.compiled.create_infer_request()
        self.ov = ov

    def set_inputs(self, arrays):
        for i, (port, a) in enumerate(zip(self.compiled.inputs, arrays)):
            shape = list(port.get_partial_shape().to_shape())
            self.req.set_input_tensor(i, self.ov.Tensor(np.ascontiguousarray(a.reshape(shape))))

    def run(self):
        self.req.infer()

    def outputs(self, names):
        """Outputs in the model's order: matched by tensor name, else by position."""
        by_name = {}
        for i, port in enumerate(self.compiled.outputs):
            for n in port.get_names():
                by_name[n] = i
        res = []
        for k, name in enumerate(names):
            i = by_name.get(name, k if not by_name else None)
            # None: an output OpenVINO folded away (a constant, e.g. a cut model's anchors)
            res.append(None if i is None else np.array(self.req.get_output_tensor(i).data))
        return res


DTYPES = {'float32': np.float32, 'uint8': np.uint8, 'int8': np.int8, 'int32': np.int32,
          'int64': np.int64, 'int16': np.int16, 'bool': np.bool_, 'float16': np.float16}


def read_tensor(d, t):
    return np.fromfile(os.path.join(d, t['file']), dtype=DTYPES[t['dtype']]).reshape(t['shape'])


def compare(ref, got):
    """Worst disagreement over all outputs: {'rel': share of the float range, 'lsb': 8-bit
    steps}, or {'bad': why} when the outputs do not even line up."""
    w = {'rel': None, 'lsb': None}
    if len(ref) != len(got):
        return {'bad': '%d outputs against %d' % (len(got), len(ref))}
    for a, b in zip(ref, got):
        if b is None:
            w['missing'] = w.get('missing', 0) + 1
            continue
        if a.size != b.size:
            return {'bad': 'output of %d values against %d' % (b.size, a.size)}
        if not a.size:
            continue
        a, b = a.reshape(-1), b.reshape(-1)
        if a.dtype.kind in 'iu' and b.dtype.kind in 'iu':
            d = int(np.max(np.abs(a.astype(np.int64) - b.astype(np.int64))))
            w['lsb'] = max(w['lsb'] or 0, d)
        else:
            a, b = a.astype(np.float64), b.astype(np.float64)
            rng = float(a.max() - a.min())
            err = float(np.max(np.abs(a - b))) / (rng if rng > 0 else 1.0)
            if not np.all(np.isfinite(b)):
                err = float('inf')
            w['rel'] = max(w['rel'] or 0.0, err)
    return w


def within(w, low):
    if 'bad' in w:
        return False
    if w['rel'] is not None and w['rel'] > (TOL_BF16 if low else TOL_F32):
        return False
    return w['lsb'] is None or w['lsb'] <= (TOL_LSB_BF16 if low else TOL_LSB_F32)


def fmt_err(w):
    if 'bad' in w:
        return w['bad']
    parts = []
    if w['rel'] is not None:
        parts.append('%.1e' % w['rel'])
    if w['lsb'] is not None:
        parts.append('%d LSB' % w['lsb'])
    if w.get('missing'):
        parts.append('(%d constant output%s not produced)' % (w['missing'], 's' if w['missing'] > 1 else ''))
    return ' '.join(parts) or '0'


def core_trip(pingpong):
    """The round trip of a cache line between cores 0 and 1 in ns (None without the tool)."""
    if not pingpong:
        return None
    r = subprocess.run([pingpong, '0', '1'], capture_output=True, text=True)
    m = re.search(r': ([0-9]+) ns', r.stdout)
    return int(m.group(1)) if m else None


def fmt_trip(row):
    trips = [x for x in row.get('core_ns', []) if x is not None]
    return '/'.join(str(x) for x in trips) if trips else '—'


def fmt_ms(v):
    return 'n/a' if v is None else ('%.2f' % v if v < 10 else '%.1f' % v)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--tools', required=True, help='folder with tflite-benchmark and tflite-run')
    ap.add_argument('--runs', type=int, default=30)
    ap.add_argument('--rounds', type=int, default=3)
    ap.add_argument('--threads', default='1 2')
    ap.add_argument('--log', required=True)
    ap.add_argument('--peak1', type=float, default=0, help='fp32 GFLOP/s, one core')
    ap.add_argument('--peakn', type=float, default=0, help='fp32 GFLOP/s, all cores')
    ap.add_argument('--bf16', action='store_true', help='also time ours with --precision bf16')
    ap.add_argument('--baseline', help='tools folder of an earlier build of ours, timed as "ours before"')
    ap.add_argument('--busy-cpu', type=int, help='keep this CPU busy (a spinning process pinned to it) '
                    'while engines are timed: a shared box; cells then show median / 90th percentile')
    ap.add_argument('--load', type=int, default=0, help='this many spinning processes, not pinned, while '
                    'engines are timed: a loaded box; cells then show median / 90th percentile')
    ap.add_argument('--pingpong', help='scripts/core_pingpong built: the round trip between cores 0 '
                    'and 1 is measured around each row of 2+ threads (this VM moves its cores '
                    'near and far apart, which moves every 2-thread figure)')
    ap.add_argument('models', nargs='+', help='NAME=PATH: the label and the model to run')
    a = ap.parse_args()
    global SECOND
    stressed = a.busy_cpu is not None or a.load > 0
    SECOND = 'p90' if stressed else 'min'
    threads = [int(t) for t in a.threads.split()]
    results = []
    engines = (['base'] if a.baseline else []) + ['ours'] + (['ours-bf16'] if a.bf16 else []) + \
        ['litert', 'ov-f32', 'ov-default']

    for spec in a.models:
        label, path = spec.split('=', 1)
        for t in threads:
            row = {'model': label, 'threads': t, 'cells': {}, 'errors': {}, 'notes': {}}
            d = os.path.join(a.log, '%s.t%d' % (re.sub(r'[^A-Za-z0-9_.-]', '_', label), t))
            os.makedirs(d, exist_ok=True)
            log('%s T=%d (load %.2f)' % (label, t, load_avg()))
            # engines that load, and their outputs
            run = {}
            outs = {}
            ours = Ours(a.tools, path, t, 'fp32')
            try:
                outs['ours'] = ours.outputs(os.path.join(d, 'ours'))
                run['ours'] = ours
            except Exception as e:  # noqa: BLE001 - any failure is reported in the table
                row['notes']['ours'] = 'fails: %s' % str(e)[:80]
            meta = json.load(open(os.path.join(d, 'ours', 'outputs.json'))) if 'ours' in run else None
            inputs = [read_tensor(os.path.join(d, 'ours'), x) for x in meta['inputs']] if meta else []
            names = [x['name'] for x in meta['outputs']] if meta else []
            # 8-bit models: their multiply-adds are integer, no fp32 peak to compare with
            row['int8'] = bool(meta) and meta['inputs'][0]['dtype'] in ('uint8', 'int8')
            if a.baseline and inputs:
                ob = Ours(a.baseline, path, t, 'fp32')
                try:
                    files = [os.path.join(d, 'ours', x['file']) for x in meta['inputs']]
                    outs['base'] = ob.outputs(os.path.join(d, 'base'), files)
                    run['base'] = ob
                except Exception as e:  # noqa: BLE001
                    row['notes']['base'] = 'fails: %s' % str(e)[:80]
            if a.bf16:
                ob = Ours(a.tools, path, t, 'bf16')
                try:
                    outs['ours-bf16'] = ob.outputs(os.path.join(d, 'ours-bf16'))
                    run['ours-bf16'] = ob
                except Exception as e:  # noqa: BLE001
                    row['notes']['ours-bf16'] = 'fails: %s' % str(e)[:80]
            peers = [('litert', lambda: LiteRT(path, t)),
                     ('ov-f32', lambda: OpenVINO(path, t, 'f32')),
                     ('ov-default', lambda: OpenVINO(path, t, None))]
            for name, make in peers:
                if not inputs:
                    break
                try:
                    e = make()
                    e.set_inputs(inputs)
                    e.run()
                    outs[name] = e.outputs(names) if name.startswith('ov') else e.outputs()
                    run[name] = e
                    if name == 'ov-default':
                        row['notes'][name] = 'runs ' + e.precision
                except Exception as ex:  # noqa: BLE001
                    msg = [m for m in str(ex).strip().splitlines() if m.strip()]
                    row['notes'][name] = 'fails: %s' % (msg[-1][:80] if msg else type(ex).__name__)
            ref = 'litert' if 'litert' in outs else ('ours' if 'ours' in outs else None)
            row['reference'] = ref
            for name in list(run):
                if name == ref:
                    continue
                low = name in ('ours-bf16', 'ov-default')
                w = compare(outs[ref], outs[name])
                row['errors'][name] = fmt_err(w)
                if not within(w, low):
                    if low:  # timed all the same: reduced precision is what this engine offers
                        row['notes'][name] = (row['notes'].get(name, '') +
                                              ', outputs differ by %s of the range' % fmt_err(w)).lstrip(', ')
                    else:
                        row['notes'][name] = 'outputs differ (%s), not timed' % fmt_err(w)
                        del run[name]
            # interleaved timing
            samples = {n: [] for n in run}
            trips = [core_trip(a.pingpong)] if t > 1 else []
            spin = ['sh', '-c', 'while :; do :; done']
            busy = [subprocess.Popen(['taskset', '-c', str(a.busy_cpu)] + spin)] if a.busy_cpu is not None else []
            busy += [subprocess.Popen(spin) for _ in range(a.load)]
            for r in range(a.rounds):
                for name in engines:
                    if name not in run:
                        continue
                    time.sleep(SETTLE_S)
                    e = run[name]
                    if isinstance(e, Ours):
                        samples[name].append(e.time(a.runs))
                        continue
                    for _ in range(WARMUP):
                        e.run()
                    ts = []
                    c0 = time.process_time()
                    for _ in range(a.runs):
                        t0 = time.perf_counter()
                        e.run()
                        ts.append((time.perf_counter() - t0) * 1e3)
                    cpu = (time.process_time() - c0) * 1e3 / a.runs
                    ts.sort()
                    samples[name].append((statistics.median(ts), ts[0], cpu, ts[int(0.9 * (len(ts) - 1))]))
            for b in busy:
                b.kill()
                b.wait()
            if trips:
                trips.append(core_trip(a.pingpong))
                row['core_ns'] = trips
            for name, s in samples.items():
                cpus = [x[2] for x in s if x[2] is not None]
                # second number: the fastest run, or with --busy-cpu/--load the 90th percentile
                # (what a busy core costs shows in the tail)
                second = statistics.median(x[3] for x in s) if stressed else min(x[1] for x in s)
                row['cells'][name] = (statistics.median(x[0] for x in s), second)
                row.setdefault('cpu', {})[name] = min(cpus) if cpus else None
            row['macs'] = ours.macs
            row['load'] = load_avg()
            results.append(row)
            for e in list(run.values()):
                del e
            run.clear()
            json.dump(results, open(os.path.join(a.log, 'results.json'), 'w'), indent=1)

    print_table(results, engines, a.peak1, a.peakn)
    print_cpu_table(results, engines)


def print_table(results, engines, peak1, peakn):
    heads = {'base': 'ours before', 'ours': 'ours', 'ours-bf16': 'ours bf16', 'litert': 'LiteRT', 'ov-f32': 'OpenVINO f32',
             'ov-default': 'OpenVINO default'}
    cols = ['model', 'T'] + ['%s median / %s ms' % (heads[e], SECOND) for e in engines]
    if 'base' in engines:
        cols += ['before / ours']
    cols += ['LiteRT / ours', 'OV f32 / ours']
    if 'ours-bf16' in engines:
        cols += ['OV default / ours bf16']
    cols += ['ours GFLOP/s (% of peak)', 'core trip ns (before/after)', 'max error vs reference', 'notes']
    print('| ' + ' | '.join(cols) + ' |')
    print('|' + '---|' * len(cols))
    for row in results:
        c = row['cells']

        def cell(e):
            if e in c:
                return '%s / %s' % (fmt_ms(c[e][0]), fmt_ms(c[e][1]))
            return '—'

        def ratio(num, den):
            if num in c and den in c and c[den][0] > 0:
                return '%.2f×' % (c[num][0] / c[den][0])
            return '—'
        line = [row['model'], str(row['threads'])] + [cell(e) for e in engines]
        if 'base' in engines:
            line += [ratio('base', 'ours')]
        line += [ratio('litert', 'ours'), ratio('ov-f32', 'ours')]
        if 'ours-bf16' in engines:
            line += [ratio('ov-default', 'ours-bf16')]
        peak = peak1 * row['threads'] if row['threads'] == 1 or not peakn else peakn
        if row.get('macs') and 'ours' in c:
            gf = 2 * row['macs'] / (c['ours'][0] * 1e6)
            if row.get('int8'):
                line.append('%.0f (8-bit)' % gf)
            else:
                line.append('%.0f (%.0f%%)' % (gf, 100 * gf / peak) if peak else '%.0f' % gf)
        else:
            line.append('—')
        line.append(fmt_trip(row))
        ref = row.get('reference')
        errs = ', '.join('%s %s' % (heads[k], v) for k, v in row['errors'].items())
        line.append(('vs %s: %s' % (heads[ref], errs)) if ref and errs else '—')
        notes = '; '.join('%s: %s' % (heads[k], v) for k, v in row['notes'].items())
        line.append(notes or '')
        print('| ' + ' | '.join(line) + ' |')


def print_cpu_table(results, engines):
    """1 thread: process CPU time per run (lowest round), which a busy machine does not
    stretch the way it stretches wall time (cache sharing aside)."""
    heads = {'base': 'ours before', 'ours': 'ours', 'ours-bf16': 'ours bf16', 'litert': 'LiteRT',
             'ov-f32': 'OpenVINO f32', 'ov-default': 'OpenVINO default'}
    rows = [r for r in results if r['threads'] == 1 and r.get('cpu')]
    if not rows:
        return
    print()
    print('1 thread, CPU time per run (ms; process CPU time, lowest of the rounds):')
    print()
    cols = ['model'] + [heads[e] for e in engines] + ['LiteRT / ours', 'OV f32 / ours']
    if 'ours-bf16' in engines:
        cols += ['OV default / ours bf16']
    print('| ' + ' | '.join(cols) + ' |')
    print('|' + '---|' * len(cols))
    for row in rows:
        c = row['cpu']

        def ratio(num, den):
            return '%.2f×' % (c[num] / c[den]) if c.get(num) and c.get(den) else '—'
        line = [row['model']] + [fmt_ms(c.get(e)) if c.get(e) else '—' for e in engines]
        line += [ratio('litert', 'ours'), ratio('ov-f32', 'ours')]
        if 'ours-bf16' in engines:
            line += [ratio('ov-default', 'ours-bf16')]
        print('| ' + ' | '.join(line) + ' |')


if __name__ == '__main__':
    main()
