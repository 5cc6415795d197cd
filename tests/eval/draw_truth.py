#!/usr/bin/env python3
"""draw_truth.py INSTANCES.json PICTURES_DIR OUT_DIR [RESULTS.json]

Draws the ground-truth boxes of a COCO instances file (green, with the category name) and
optionally the detections of a results file (red, score >= 0.3) onto each picture and
writes OUT_DIR/<name>.png, to check hand-written boxes by looking. Needs Pillow
(not part of the tests: pip install pillow in any virtual environment)."""
import json
import os
import sys

from PIL import Image, ImageDraw


def main():
    ann = json.load(open(sys.argv[1]))
    src, out = sys.argv[2], sys.argv[3]
    dets = json.load(open(sys.argv[4])) if len(sys.argv) > 4 else []
    names = {c['id']: c['name'] for c in ann['categories']}
    os.makedirs(out, exist_ok=True)
    for im in ann['images']:
        pic = Image.open(os.path.join(src, im['file_name'])).convert('RGB')
        d = ImageDraw.Draw(pic)
        for a in ann['annotations']:
            if a['image_id'] != im['id']:
                continue
            x, y, w, h = a['bbox']
            d.rectangle([x, y, x + w - 1, y + h - 1], outline=(0, 255, 0), width=3)
            d.text((x + 4, y + 4), names[a['category_id']], fill=(0, 255, 0))
        for r in dets:
            if r['image_id'] != im['id'] or r['score'] < 0.3:
                continue
            x, y, w, h = r['bbox']
            d.rectangle([x, y, x + w - 1, y + h - 1], outline=(255, 0, 0), width=2)
            d.text((x + 4, y + h - 14), '%s %.2f' % (names.get(r['category_id'], '?'), r['score']),
                   fill=(255, 0, 0))
        pic.save(os.path.join(out, os.path.splitext(im['file_name'])[0] + '.png'))


if __name__ == '__main__':
    main()
