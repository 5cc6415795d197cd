#!/usr/bin/env python3
"""coco_reference.py INSTANCES.json RESULTS.json [IMAGE_IDS_JSON]

pycocotools' 12 bounding-box numbers (COCOeval.stats) for a results file, printed as one
JSON list on stdout; pycocotools' own report goes to stderr. IMAGE_IDS_JSON (a JSON list)
restricts the images evaluated, as COCOeval.params.imgIds does. The reference the tests
hold evaluation/coco_metric.c and tflite-eval-detection to."""
import contextlib
import json
import sys

from pycocotools.coco import COCO
from pycocotools.cocoeval import COCOeval


def main():
    with contextlib.redirect_stdout(sys.stderr):
        gt = COCO(sys.argv[1])
        dt = gt.loadRes(sys.argv[2])
        ev = COCOeval(gt, dt, 'bbox')
        if len(sys.argv) > 3:
            ev.params.imgIds = json.loads(sys.argv[3])
        ev.evaluate()
        ev.accumulate()
        ev.summarize()
    print(json.dumps([float(x) for x in ev.stats]))


if __name__ == '__main__':
    main()
