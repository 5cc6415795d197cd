#!/usr/bin/env python3
"""test_eval_tools.py classification|detection --tools DIR --models DIRS --pictures DIR
                      --data DIR --work DIR [--delegates cpu,gl]

Runs tflite-eval-classification or tflite-eval-detection on the small labelled sets of
tests/data/eval (skimage pictures, labels and boxes written by hand) with every delegate
in one run, and checks each number against an independent recomputation:

- classification: for each picture and delegate, tflite-run (its own resize code, the
  oracle's) gives the model's scores; the truth label's rank among them (ties: lower
  class first, as the decoder) gives the expected Top-1..Top-10 accuracies, the
  difference block and the Top-1 agreement. The image,label CSV must give the same
  numbers as the ILSVRC-format file.
- detection: the tool's COCO results file is evaluated by pycocotools (the 12 numbers
  must match the tool's to 1e-6), and the detections themselves must equal those
  recomputed from tflite-run's TFLite_Detection_PostProcess outputs (class k -> COCO id
  k+1, boxes scaled to the picture and clamped).

Needs numpy and pycocotools (run through tests/eval/venv.sh). Models are looked up in
DIRS (colon-separated); a missing model is a failure."""
import argparse
import json
import os
import subprocess
import sys

import numpy as np
from pycocotools.coco import COCO
from pycocotools.cocoeval import COCOeval

CLS_MODELS = ['mobilenet_v1_0.25_224', 'mobilenet_v2_1.0_224_quant']
DET_MODEL = 'coco_ssd_mobilenet_v1_1.0_quant_2018_06_29'
# the ILSVRC-format file labels these, in sorted order
CLS_PICTURES = ['camera.png', 'chelsea.png', 'coffee.png', 'rocket.jpg']

failures = []


def check(cond, msg):
    if not cond:
        failures.append(msg)
        print('FAIL: ' + msg)


def find_file(dirs, name):
    """A model or label file from TFL_SHARED_MODELS or the colon-separated dirs."""
    for d in ([os.environ['TFL_SHARED_MODELS']] if os.environ.get('TFL_SHARED_MODELS') else []) + dirs.split(':'):
        p = os.path.join(d, name)
        if os.path.exists(p):
            return p
    sys.exit('missing %s in %s' % (name, dirs))


def find_model(dirs, name):
    return find_file(dirs, name + '.tflite')


def run(cmd):
    print('$ ' + ' '.join(cmd), flush=True)
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        sys.exit('exit %d: %s\n%s' % (p.returncode, ' '.join(cmd), p.stderr))
    return p.stdout


def blocks(text):
    """'== name ==' blocks: {name: [lines]}."""
    out, cur = {}, None
    for line in text.splitlines():
        if line.startswith('== ') and line.endswith(' =='):
            cur = line[3:-3]
            out[cur] = []
        elif cur is not None:
            out[cur].append(line)
    return out


def delegate_name(d):
    return 'gl (fp16)' if d == 'gl' else d


def tflite_run_outputs(args, model, picture, delegate, norm, tag):
    out = os.path.join(args.work, tag)
    run([os.path.join(args.tools, 'tflite-run'), model, '--image', picture, '--norm', norm,
         '--delegate', delegate, '--out', out])
    meta = json.load(open(os.path.join(out, 'outputs.json')))
    res = []
    for o in meta['outputs']:
        a = np.fromfile(os.path.join(out, o['file']), dtype=np.dtype(o['dtype']))
        res.append(a.reshape(o['shape']) if o['shape'] else a)
    return res


# ---- classification ------------------------------------------------------------


def rank_of(scores, truth):
    """The decoder's order: higher score first, ties by lower class index."""
    best = None
    for t in truth:
        r = int(np.count_nonzero(scores > scores[t]) + np.count_nonzero(scores[:t] == scores[t]))
        best = r if best is None else min(best, r)
    return best


def argmax_low(scores):
    return int(np.flatnonzero(scores == scores.max())[0])


def accuracies(lines, top):
    acc = {}
    for line in lines:
        if line.startswith('Top-') and ' Accuracy: ' in line:
            k, v = line.split(' Accuracy: ')
            acc[int(k[4:])] = float(v.split()[0])
    check(sorted(acc) == list(range(1, top + 1)), 'Top-1..Top-%d lines: %s' % (top, sorted(acc)))
    return acc


def classification(args, delegates):
    labels_path = find_file(args.models, 'imagenet_labels_1001.txt')
    labels = open(labels_path).read().split('\n')
    truth_names = open(os.path.join(args.data, 'classification.txt')).read().split()
    folder = os.path.join(args.work, 'ilsvrc')
    os.makedirs(folder, exist_ok=True)
    for f in CLS_PICTURES:
        dst = os.path.join(folder, f)
        if not os.path.exists(dst):
            os.symlink(os.path.join(args.pictures, f), dst)
    tool = os.path.join(args.tools, 'tflite-eval-classification')
    for name in CLS_MODELS:
        model = find_model(args.models, name)
        out = run([tool, model, '--images', folder, '--labels', os.path.join(args.data, 'classification.txt'),
                   '--model-labels', labels_path, '--delegate', ','.join(delegates), '--verbose'])
        print(out)
        got = blocks(out)
        ranks, best = {}, {}
        for d in delegates:
            ranks[d], best[d] = [], []
            for f, t in zip(CLS_PICTURES, truth_names):
                scores = tflite_run_outputs(args, model, os.path.join(args.pictures, f), d, '-1,1',
                                            'run-%s-%s-%s' % (name, d, f))[0].reshape(-1)
                ranks[d].append(rank_of(scores, [i for i, l in enumerate(labels) if l == t]))
                best[d].append(argmax_low(scores))
            check(delegate_name(d) in got, '%s: no block for %s' % (name, d))
            acc = accuracies(got.get(delegate_name(d), []), 10)
            for k in range(1, 11):
                want = sum(r < k for r in ranks[d]) / len(ranks[d])
                check(abs(acc.get(k, -1) - want) < 1e-6,
                      '%s %s Top-%d: tool %s, tflite-run ranks %s give %g' % (name, d, k, acc.get(k), ranks[d], want))
            runs = [l for l in got.get(delegate_name(d), []) if l.startswith('Num evaluation runs: ')]
            check(runs == ['Num evaluation runs: 4'], '%s %s: %s' % (name, d, runs))
            check(any(l.startswith('Images per second: ') for l in got.get(delegate_name(d), [])),
                  '%s %s: no images per second' % (name, d))
        for d in delegates[1:]:
            key = '%s - %s' % (delegate_name(d), delegate_name(delegates[0]))
            lines = got.get(key, [])
            check(lines, '%s: no difference block %s' % (name, key))
            for k in range(1, 11):
                want = (sum(r < k for r in ranks[d]) - sum(r < k for r in ranks[delegates[0]])) / 4
                line = [l for l in lines if l.startswith('Top-%d Accuracy: ' % k)]
                check(line and abs(float(line[0].split()[2]) - want) < 1e-6,
                      '%s difference Top-%d: %s, want %+g' % (name, k, line, want))
            same = sum(a == b for a, b in zip(best[d], best[delegates[0]]))
            check(any(l.startswith('Top-1 agreement: ') and '(%d of 4 ' % same in l for l in lines),
                  '%s: Top-1 agreement, want %d of 4: %s' % (name, same, lines[-1:]))
        # the CSV (class indices, its own order) on the first delegate: the same numbers
        csv = run([tool, model, '--images', args.pictures, '--labels', os.path.join(args.data, 'classification.csv'),
                   '--delegate', delegates[0]])
        a, b = accuracies(blocks(csv)[delegate_name(delegates[0])], 10), accuracies(got[delegate_name(delegates[0])], 10)
        check(a == b, '%s: the CSV gives %s, the ILSVRC file %s' % (name, a, b))


# ---- detection -------------------------------------------------------------------


def expected_detections(args, model, ds, delegate, threshold):
    """Detections recomputed from tflite-run's post-processed outputs."""
    dets = []
    for im in ds['images']:
        boxes, classes, scores, count = tflite_run_outputs(
            args, model, os.path.join(args.pictures, im['file_name']), delegate, '-1,1',
            'det-%s-%s' % (delegate, im['file_name']))
        W, H = im['width'], im['height']
        for i in range(int(count.reshape(-1)[0])):
            s = float(scores.reshape(-1)[i])
            if not s >= threshold:
                continue
            y0, x0, y1, x1 = (float(v) for v in boxes.reshape(-1, 4)[i])
            fx0, fx1 = sorted((x0 * W, x1 * W))
            fy0, fy1 = sorted((y0 * H, y1 * H))
            cx0, cy0, cx1, cy1 = max(fx0, 0), max(fy0, 0), min(fx1, W), min(fy1, H)
            dets.append({'image_id': im['id'], 'category_id': int(classes.reshape(-1)[i]) + 1,
                         'bbox': [cx0, cy0, max(cx1 - cx0, 0), max(cy1 - cy0, 0)], 'score': s})
    return dets


def pycocotools_stats(ann, res):
    import contextlib
    with contextlib.redirect_stdout(sys.stderr):
        gt = COCO(ann)
        ev = COCOeval(gt, gt.loadRes(res), 'bbox')
        ev.evaluate()
        ev.accumulate()
        ev.summarize()
    return [float(x) for x in ev.stats]


def detection(args, delegates):
    model = find_model(args.models, DET_MODEL)
    ann = os.path.join(args.data, 'instances.json')
    ds = json.load(open(ann))
    results = os.path.join(args.work, 'detections.json')
    out = run([os.path.join(args.tools, 'tflite-eval-detection'), model, '--images', args.pictures,
               '--annotations', ann, '--delegate', ','.join(delegates), '--results', results, '--verbose'])
    print(out)
    got = blocks(out)
    names = ['AP', 'AP50', 'AP75', 'AP_small', 'AP_medium', 'AP_large', 'AR1', 'AR10', 'AR100',
             'AR_small', 'AR_medium', 'AR_large']
    stats = {}
    for d in delegates:
        path = results if len(delegates) == 1 else results.replace('.json', '.%s.json' % d)
        check(os.path.exists(path), 'no results file %s' % path)
        mine = json.load(open(path))
        want = expected_detections(args, model, ds, d, 0.01)
        check(len(mine) == len(want), '%s: %d detections, tflite-run gives %d' % (d, len(mine), len(want)))
        worst = 0.0
        for a, b in zip(mine, want):
            same = a['image_id'] == b['image_id'] and a['category_id'] == b['category_id'] and a['score'] == b['score']
            check(same, '%s: detection %s, tflite-run %s' % (d, a, b))
            worst = max([worst] + [abs(x - y) for x, y in zip(a['bbox'], b['bbox'])])
        check(worst < 0.01, '%s: boxes differ from tflite-run by up to %g pixels' % (d, worst))
        print('%s: %d detections equal to tflite-run\'s (boxes within %.2g px)' % (d, len(mine), worst))
        stats[d] = pycocotools_stats(ann, path)
        lines = got.get(delegate_name(d), [])
        printed = [float(l.rsplit('= ', 1)[1]) for l in lines if l.startswith(' Average ')]
        check(len(printed) == 12 and all(abs(p - r) <= 5e-4 + 1e-9 for p, r in zip(printed, stats[d])),
              '%s: tool %s, pycocotools %s' % (d, printed, stats[d]))
        print('%s: pycocotools %s' % (d, ' '.join('%.4f' % x for x in stats[d])))
        check(stats[d][1] > 0.3, '%s: AP50 %.3f: the small set should be mostly found' % (d, stats[d][1]))
    for d in delegates[1:]:
        key = '%s - %s' % (delegate_name(d), delegate_name(delegates[0]))
        lines = {l.split()[0]: l for l in got.get(key, [])}
        for i, n in enumerate(names):
            want = stats[d][i] - stats[delegates[0]][i]
            check(n in lines and abs(float(lines[n].split()[1]) - want) < 2e-6,
                  '%s %s: %s, pycocotools difference %+.6f' % (key, n, lines.get(n), want))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('task', choices=['classification', 'detection'])
    for a in ['--tools', '--models', '--pictures', '--data', '--work']:
        ap.add_argument(a, required=True)
    ap.add_argument('--delegates', default='cpu,gl')
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    delegates = args.delegates.split(',')
    (classification if args.task == 'classification' else detection)(args, delegates)
    for f in failures:  # again at the end, where a log cut to its last lines still has them
        print('FAIL: ' + f)
    print('%d failure(s)' % len(failures))
    sys.exit(1 if failures else 0)


if __name__ == '__main__':
    main()
