"""Ultralytics' predict with agnostic_nms on the committed YOLOv8, for the element's
class-agnostic property (tests/gst/test_tflitefilter.c test_yolo_agnostic).

    /work/venv-yolo/bin/python tests/data/yolo/make_agnostic.py   # yolov8_shapes-0.05-iou0.3[-agnostic].predict

yolov8_shapes.tflite on picture.rgb at conf 0.05, IoU 0.3, per class and over all
classes: its five boxes at conf 0.05 are three squares and two triangles overlapping each
other, so the two differ."""
import os

import numpy as np
from ultralytics import YOLO

D = os.path.dirname(os.path.abspath(__file__))


def main():
    img = np.fromfile(os.path.join(D, 'picture.rgb'), np.uint8).reshape(240, 320, 3)
    m = YOLO(os.path.join(D, 'yolov8_shapes.tflite'), task='detect')
    for agnostic in (False, True):
        r = m.predict(img[:, :, ::-1].copy(), imgsz=160, conf=0.05, iou=0.3, max_det=300, agnostic_nms=agnostic,
                      verbose=False)[0]
        b = r.boxes
        name = 'yolov8_shapes-0.05-iou0.3%s.predict' % ('-agnostic' if agnostic else '')
        with open(os.path.join(D, name), 'w') as f:
            for xyxy, conf, cls in zip(b.xyxy.numpy(), b.conf.numpy(), b.cls.numpy()):
                f.write('%d %.7g %.7g %.7g %.7g %.7g\n' % (int(cls), conf, *xyxy))
        print(name)
        print(open(os.path.join(D, name)).read())


if __name__ == '__main__':
    main()
