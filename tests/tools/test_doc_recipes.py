#!/usr/bin/env python3
"""test_doc_recipes.py - the evaluation recipes of docs/evaluation.md run as written (issue
28): each `build/tools/tflite-eval-*` line of the page is taken from the page itself and run
from the source root with only the data swapped for the small labelled set (ILSVRC's `val`
and `val_labels.txt` -> tests/data/eval's pictures and classification.txt; COCO's val2017
and its instances file -> the pictures and instances.json; the results file into WORK;
--delegate cpu,gl -> cpu),
for every model the page's line fits: both ImageNet classifiers we ship, the COCO SSD.

usage: test_doc_recipes.py SOURCE_ROOT TOOLS_DIR PICTURES EVAL_DATA WORK
"""
import os
import re
import shlex
import shutil
import subprocess
import sys

failures = 0
CLASSIFIERS = ('mobilenet_v2_1.0_224_quant.tflite', 'mobilenet_v1_0.25_224.tflite')


def check(cond, what):
    global failures
    print(('ok   ' if cond else 'FAIL ') + what, flush=True)
    failures += not cond


def recipes(page):
    """The page's indented command lines starting with build/tools/tflite-eval-, joined."""
    lines, found, cur = open(page).read().splitlines(), [], None
    for line in lines:
        s = line.strip()
        if cur is not None:
            cur += ' ' + s.rstrip('\\').strip()
            if not s.endswith('\\'):
                found.append(cur)
                cur = None
        elif s.startswith('build/tools/tflite-eval-') and line.startswith('       '):
            cur = s.rstrip('\\').strip()
            if not s.endswith('\\'):
                found.append(cur)
                cur = None
    return found


def swap(argv, flag, value):
    i = argv.index(flag)
    argv[i + 1] = value


def main():
    root, tools, pictures, data, work = sys.argv[1:6]
    shutil.rmtree(work, ignore_errors=True)
    images = os.path.join(work, 'images')
    os.makedirs(images)
    for name in ('camera.png', 'chelsea.png', 'coffee.png', 'rocket.jpg'):
        os.symlink(os.path.join(pictures, name), os.path.join(images, name))
    found = recipes(os.path.join(root, 'docs', 'evaluation.md'))
    kinds = [shlex.split(c)[0] for c in found]
    check('build/tools/tflite-eval-classification' in kinds and 'build/tools/tflite-eval-detection' in kinds,
          f'the page\'s recipes: {kinds}')
    for cmd in found:
        argv = shlex.split(cmd)
        argv[0] = os.path.join(tools, os.path.basename(argv[0]))
        # GL on this machine's software renderer costs minutes; the eval suite runs the
        # same tools on GL (tests/eval), so the recipes run on the CPU here
        if '--delegate' in argv:
            swap(argv, '--delegate', 'cpu')
        if argv[0].endswith('classification'):
            swap(argv, '--images', images)
            swap(argv, '--labels', os.path.join(data, 'classification.txt'))
            runs = [[m if a.endswith(CLASSIFIERS[0]) else a for a in argv]
                    for m in (argv[1], argv[1].replace(CLASSIFIERS[0], CLASSIFIERS[1]))]
        else:
            swap(argv, '--images', pictures)
            swap(argv, '--annotations', os.path.join(data, 'instances.json'))
            if '--results' in argv:
                swap(argv, '--results', os.path.join(work, 'results.json'))
            runs = [argv]
        for a in runs:
            r = subprocess.run(a, cwd=root, capture_output=True, text=True, timeout=600)
            name = os.path.basename(a[1])
            ok = r.returncode == 0 and ('Top-1 Accuracy' in r.stdout or 'Average Precision' in r.stdout)
            check(ok, f'{os.path.basename(a[0])} {name} as written (exit {r.returncode}) {r.stderr.strip()[:300]}')
            if ok and 'Top-5 Accuracy' in r.stdout:
                # tripod, tabby, espresso, missile: each classifier finds at least three in its top 5
                top5 = [float(v) for v in re.findall(r'^Top-5 Accuracy: ([\d.]+)$', r.stdout, re.M)]
                check(top5 and min(top5) >= 0.75, f'{name}: Top-5 {top5}')
    print(f'{failures} failure(s)')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
