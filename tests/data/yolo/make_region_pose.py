"""YOLO-pose on another detector's boxes, as LiteRT gives it, for tests/gst/test_objects.c.

    /work/venv-yolo/bin/python tests/data/yolo/make_region_pose.py   # yolov8_pose_regions.expected

Boxes: Ultralytics' predict of yolov8_pose.tflite on tasks_pose.rgb (160 x 120) at conf
0.2218 (yolov8_pose-0.2218.predict: the first tflitefilter's boxes, within 0.02 px). Each box
is widened to the model's aspect (square) about its centre, as a letterboxed model's region
is (the frame around the box instead of bars; both regions lie inside the picture), and
resampled to 160 x 160 bilinearly at pixel centres (x = (u + 0.5) * side / 160 + left,
sampled at x - 0.5, edges clamped), 0..1, NCHW; the real TFLite (ai-edge-litert) runs
yolov8_pose.tflite on it and Ultralytics' own non_max_suppression (conf 0.25, iou 0.7)
keeps the best figure, whose 17 keypoints go back to the frame (x * side / 160 + left).
A line per box: x1 y1 x2 y2, then 17 x (x y visibility) in frame pixels; a last line
"stretched" with the first box's keypoints from the box stretched to 160 x 160 instead (what
a fit that ignores the letterbox gives: the test checks they differ)."""
import os

import numpy as np
import torch
from ai_edge_litert.interpreter import Interpreter
from ultralytics.utils.nms import non_max_suppression

D = os.path.dirname(os.path.abspath(__file__))
W, H, S = 160, 120, 160


def axis(start, size, n, length):
    """Source index pairs and weights of n samples over [start, start + size)."""
    x = (np.arange(n) + 0.5) * (size / n) + start - 0.5
    x = np.clip(x, 0.0, length - 1)
    i0 = np.floor(x).astype(int)
    i1 = np.minimum(i0 + 1, length - 1)
    return i0, i1, x - i0


def crop(pic, x, y, w, h):
    c0, c1, wx = axis(x, w, S, W)
    r0, r1, wy = axis(y, h, S, H)
    top = pic[r0][:, c0] * (1 - wx)[None, :, None] + pic[r0][:, c1] * wx[None, :, None]
    bot = pic[r1][:, c0] * (1 - wx)[None, :, None] + pic[r1][:, c1] * wx[None, :, None]
    img = top * (1 - wy)[:, None, None] + bot * wy[:, None, None]
    return (img / 255.0).astype(np.float32).transpose(2, 0, 1)[None]


def main():
    pic = np.fromfile(os.path.join(D, 'tasks_pose.rgb'), np.uint8).reshape(H, W, 3).astype(np.float64)
    it = Interpreter(os.path.join(D, 'yolov8_pose.tflite'))
    it.allocate_tensors()
    i, o = it.get_input_details()[0]['index'], it.get_output_details()[0]['index']

    def pose(x, left, top, sx, sy):
        it.set_tensor(i, x)
        it.invoke()
        head = torch.from_numpy(it.get_tensor(o).copy())
        head[:, [0, 2]] *= S  # normalized -> input pixels, as Ultralytics' LiteRT backend
        head[:, [1, 3]] *= S
        head[:, 5::3] *= S
        head[:, 6::3] *= S
        d = non_max_suppression(head, 0.25, 0.7, nc=1)[0]
        assert len(d), 'no figure in the region'
        k = d[0, 6:].reshape(17, 3).numpy().astype(np.float64)
        k[:, 0] = k[:, 0] * sx + left
        k[:, 1] = k[:, 1] * sy + top
        return k

    lines, first = [], None
    for line in open(os.path.join(D, 'yolov8_pose-0.2218.predict')):
        x1, y1, x2, y2 = map(float, line.split()[2:6])
        w, h = x2 - x1, y2 - y1
        side = max(w, h)
        left, top = (x1 + x2) / 2 - side / 2, (y1 + y2) / 2 - side / 2
        assert left >= 0 and top >= 0 and left + side <= W and top + side <= H, 'region outside the picture'
        k = pose(crop(pic, left, top, side, side), left, top, side / S, side / S)
        lines.append(' '.join('%.7g' % v for v in [x1, y1, x2, y2, *k.ravel()]))
        if first is None:
            first = pose(crop(pic, x1, y1, w, h), x1, y1, w / S, h / S)
    lines.append('stretched ' + ' '.join('%.7g' % v for v in first.ravel()))
    with open(os.path.join(D, 'yolov8_pose_regions.expected'), 'w') as f:
        f.write('\n'.join(lines) + '\n')
    print('\n'.join(lines))


if __name__ == '__main__':
    main()
