"""The YOLO classifier on a detector's boxes, as LiteRT gives it, for tests/gst/test_objects.c.

    /work/venv-yolo/bin/python tests/data/yolo/make_region_cls.py model  # yolo11_cls_regions.tflite
    /work/venv-zoo/bin/python tests/data/yolo/make_region_cls.py         # yolo11_cls_regions.expected

The model: make_yolo.py's tiny random YOLO11 classifier (3 classes, 160 x 160), its
BatchNorm statistics taken from 32 uniform noise pictures (one training-mode pass, a
cumulative average) and its head shaken then scaled down, so that its probabilities
depend on the picture and are not saturated (yolo11_cls_random.tflite gives the same
probabilities for every input), exported by Ultralytics' own LiteRT exporter.

Boxes: Ultralytics' predict of yolov8_shapes.tflite on picture.rgb at conf 0.05
(yolov8_shapes-0.05.predict: what the first tflitefilter finds, within 0.01 px). Each box
is cut out of the picture as Ultralytics' classify_transforms sees a crop: the shorter
side scaled to the input (160) and the centre cut out, i.e. the box's centred square
resampled to 160 x 160, here bilinearly at pixel centres (x = (u + 0.5) * scale + left,
sampled at x - 0.5, edges clamped), 0..1, NCHW; then the real TFLite (ai-edge-litert) runs
yolo11_cls_random.tflite on it. A line per box: x1 y1 x2 y2, the 3 class probabilities on
the centre crop, then those on the whole box stretched to 160 x 160 (what a fit that
ignores the classifier's crop would give: the test checks they differ)."""
import os

import numpy as np
from ai_edge_litert.interpreter import Interpreter

D = os.path.dirname(os.path.abspath(__file__))
W, H, S = 320, 240, 160


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


def make_model():
    import shutil
    import sys
    import tempfile
    from pathlib import Path

    import torch
    from ultralytics import YOLO

    sys.path.insert(0, D)
    import make_yolo

    tmp = Path(tempfile.mkdtemp())
    torch.manual_seed(5)
    m = YOLO(str(make_yolo.tiny_yaml("yolo11", tmp, "-cls")))
    # BatchNorm statistics from noise: wide variances, so that a hundredth of a pixel
    # moves the probabilities by about as much (statistics from the picture's flat
    # background made a 0.02 px shift of a box move them by 0.13)
    g = torch.Generator().manual_seed(3)
    batch = torch.rand((32, 3, S, S), generator=g)
    net = m.model
    for mod in net.modules():
        if isinstance(mod, torch.nn.BatchNorm2d):
            mod.reset_running_stats()
            mod.momentum = None
    net.train()
    with torch.no_grad():
        net(batch)
    net.eval()
    g = torch.Generator().manual_seed(7)
    with torch.no_grad():
        for p in net.model[-1].parameters():
            p.add_(torch.randn(p.shape, generator=g) * 0.5)
        net.model[-1].linear.weight.mul_(0.005)
    os.chdir(tmp)  # the exporter writes beside the working directory
    f = Path(m.export(format="litert", imgsz=S))
    shutil.copyfile(f, os.path.join(D, 'yolo11_cls_regions.tflite'))


def main():
    pic = np.fromfile(os.path.join(D, 'picture.rgb'), np.uint8).reshape(H, W, 3).astype(np.float64)
    it = Interpreter(os.path.join(D, 'yolo11_cls_regions.tflite'))
    it.allocate_tensors()
    i, o = it.get_input_details()[0]['index'], it.get_output_details()[0]['index']

    def probs(x):
        it.set_tensor(i, x)
        it.invoke()
        return it.get_tensor(o)[0]

    lines = []
    for line in open(os.path.join(D, 'yolov8_shapes-0.05.predict')):
        x1, y1, x2, y2 = map(float, line.split()[2:6])
        w, h = x2 - x1, y2 - y1
        side = min(w, h)
        centre = probs(crop(pic, x1 + (w - side) / 2, y1 + (h - side) / 2, side, side))
        whole = probs(crop(pic, x1, y1, w, h))
        lines.append(' '.join('%.7g' % v for v in [x1, y1, x2, y2, *centre, *whole]))
    with open(os.path.join(D, 'yolo11_cls_regions.expected'), 'w') as f:
        f.write('\n'.join(lines) + '\n')
    print('\n'.join(lines))


if __name__ == '__main__':
    import sys
    make_model() if sys.argv[1:] == ['model'] else main()
