#!/usr/bin/env python3
"""test_litert_flags.py - LiteRT's flag names (benchmark_model's, the evaluation tools')
give the same run as ours, in every tool that takes them (issue 28): what each tool prints
or writes with LiteRT's names is compared with the same run under our names.

usage: test_litert_flags.py TOOLS_DIR MODEL_DIRS PICTURES EVAL_DATA WORK
"""
import filecmp
import os
import re
import shutil
import subprocess
import sys

failures = 0


def check(cond, what):
    global failures
    print(('ok   ' if cond else 'FAIL ') + what, flush=True)
    failures += not cond


def model(dirs, name):
    for d in dirs.split(':'):
        p = os.path.join(d, name)
        if os.path.isfile(p):
            return p
    raise SystemExit(f'FAIL model {name} not found in {dirs}')


def run(tools, tool, args):
    r = subprocess.run([os.path.join(tools, tool)] + args, capture_output=True, text=True, timeout=300)
    return r.returncode, r.stdout, r.stderr


def field(out, pattern):
    m = re.search(pattern, out)
    return m.group(1) if m else None


def main():
    tools, dirs, pictures, data, work = sys.argv[1:6]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    mv1 = model(dirs, 'mobilenet_v1_0.25_224.tflite')
    labels = model(dirs, 'imagenet_labels_1001.txt')

    # benchmark_model's own example line, and its profiling switch
    rc, out, err = run(tools, 'tflite-benchmark', [f'--graph={mv1}', '--num_threads=2', '--num_runs=3',
                                                   '--warmup_runs=1'])
    check(rc == 0 and field(out, r'threads: (\d+)') == '2' and field(out, r'runs: (\d+)') == '3',
          f'tflite-benchmark --graph= --num_threads=2 --num_runs=3 ({rc} {err.strip()[:200]})')
    rc, out, _ = run(tools, 'tflite-benchmark', ['--graph', mv1, '--num_runs', '2', '--enable_op_profiling=true'])
    check(rc == 0 and 'profile per op' in out, 'tflite-benchmark --enable_op_profiling=true profiles')
    rc, out, _ = run(tools, 'tflite-benchmark', [f'--graph={mv1}', '--num_runs=2', '--use_gpu=true',
                                                 '--gpu_precision_loss_allowed=false'])
    check(rc == 0 and field(out, r'delegate: (\w+)') == 'gl', 'tflite-benchmark --use_gpu=true runs GL')
    rc, _, err = run(tools, 'tflite-benchmark', [f'--graph={mv1}', '--use_gpu=maybe'])
    check(rc == 2 and "--use_gpu is true or false, not 'maybe'" in err, f'a bad boolean is refused ({err.strip()})')
    rc, out, _ = run(tools, 'tflite-benchmark', [mv1, '--threads=2', '--runs=2'])
    check(rc == 0 and field(out, r'threads: (\d+)') == '2', 'our flags in the = form')

    # tflite-run: the same outputs, byte for byte, under either name set (GL, fp32)
    ours, theirs = os.path.join(work, 'run-ours'), os.path.join(work, 'run-litert')
    rc1, _, e1 = run(tools, 'tflite-run', [mv1, '--gauss', '1', '--threads', '2', '--delegate', 'gl',
                                           '--precision', 'fp32', '--out', ours])
    rc2, _, e2 = run(tools, 'tflite-run', [f'--model_file={mv1}', '--gauss=1', '--num_threads=2', '--use_gpu=true',
                                           '--gpu_precision_loss_allowed=false', f'--out={theirs}'])
    same = rc1 == 0 and rc2 == 0 and filecmp.cmp(os.path.join(ours, 'output_0.bin'),
                                                 os.path.join(theirs, 'output_0.bin'), shallow=False)
    check(same, f'tflite-run: the same output_0.bin ({rc1} {rc2} {e1.strip()[:100]} {e2.strip()[:100]})')

    # tflite-inference-diff: the same report
    rc1, out1, _ = run(tools, 'tflite-inference-diff', [mv1, '--runs', '2', '--threads', '2'])
    rc2, out2, _ = run(tools, 'tflite-inference-diff', [f'--model_file={mv1}', '--num_runs=2',
                                                        '--num_interpreter_threads=2'])
    strip = lambda s: [l for l in s.splitlines() if not re.search(r'latency|per second', l)]  # noqa: E731 - timings
    check(rc1 == 0 and rc2 == 0 and strip(out1) == strip(out2), 'tflite-inference-diff: the same report')

    # the ILSVRC evaluation under LiteRT's names
    images = os.path.join(work, 'images')
    os.makedirs(images)
    for name in ('camera.png', 'chelsea.png', 'coffee.png', 'rocket.jpg'):
        os.symlink(os.path.join(pictures, name), os.path.join(images, name))
    truth = os.path.join(data, 'classification.txt')
    rc1, out1, _ = run(tools, 'tflite-eval-classification', [mv1, '--images', images, '--labels', truth,
                                                             '--model-labels', labels, '--limit', '3'])
    rc2, out2, e2 = run(tools, 'tflite-eval-classification', [
        f'--model_file={mv1}', f'--ground_truth_images_path={images}', f'--ground_truth_labels={truth}',
        f'--model_output_labels={labels}', '--num_images=3', '--delegate=xnnpack'])
    check(rc1 == 0 and rc2 == 0 and 'Top-1 Accuracy' in out1 and strip(out1) == strip(out2),
          f'tflite-eval-classification: the same accuracies ({rc2} {e2.strip()[:200]})')
    print(f'{failures} failure(s)')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
