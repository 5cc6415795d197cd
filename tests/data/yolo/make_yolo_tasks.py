#!/usr/bin/env python3
"""Trained tiny YOLO models for segmentation, pose and oriented boxes, and what
Ultralytics 8.4 predicts with them (no downloads).

  /work/venv-yolo/bin/python tests/data/yolo/make_yolo_tasks.py train seg|pose|obb [EPOCHS]   # minutes each
  /work/venv-yolo/bin/python tests/data/yolo/make_yolo_tasks.py refs [TASK...]      # a minute
  /work/venv-yolo/bin/python tests/data/yolo/make_yolo_tasks.py obb-e2e             # a minute

`train TASK` draws a synthetic data set (seeded; kept in DATA, default /tmp/yolo-tasks-data):
  - seg: red squares, green discs, blue triangles on noise, their outlines as polygons;
  - pose: stick figures (one class) with the 17 COCO keypoints at their joints;
  - obb: long red, green and blue rectangles rotated by any angle, their four corners;
trains the 'n' architecture of YOLOv8 at width 1/8 and one box bin (reg_max 1, as YOLO26;
Ultralytics' own yaml otherwise) at imgsz 160 on the CPU (committed: seg 12 epochs, pose 25,
obb 15; 2-4 minutes each on 2 cores), and exports it with Ultralytics' exporter to LiteRT:
yolov8_TASK.tflite (fp32) and yolov8_TASK_int8.tflite (quantize=8, the data set's
pictures as calibration).

`refs` writes, for each model here, Ultralytics' own predict on a held-out picture of its
task (tasks_TASK.rgb, raw RGB, 160x120: letterboxed without scaling) at a threshold in a
wide gap between scores: NAME-CONF.predict, one detection a line,
  class score x1 y1 x2 y2 [17 x (x y visibility) (pose) | cx cy w h angle (obb, radians)]
in frame pixels, and for segmentation NAME-CONF.masks: each detection's mask as predict
makes it (process_mask: upsampled logits > 0, cropped to the box at the input's resolution,
then scale_masks to the frame, > 0.5), one bit a pixel, rows packed (np.packbits);
tasks.txt lists the runs with their tolerances (tests/test_yolo_tasks.c,
tests/gst/test_tflitefilter.c). Then eval_seg/, eval_pose/ and eval_obb/: 12 more held-out
pictures (PNG), their truth as a COCO instances file (oriented boxes also as "rbox", from
Ultralytics' xyxyxyxy2xywhr of the label corners), and Ultralytics' val box mAP of each model
on them (val.txt; tests/test_yolo_map.sh).
"""
import json
import math
import os
import shutil
import sys
from pathlib import Path

os.environ.setdefault("YOLO_OFFLINE", "1")
import numpy as np  # noqa: E402
import torch  # noqa: E402

HERE = Path(__file__).resolve().parent
DATA = Path(os.environ.get("DATA", "/tmp/yolo-tasks-data"))
IMGSZ = 160
SHAPES = ["square", "disc", "triangle"]
BARS = ["red", "green", "blue"]
COLOURS = [(230, 30, 30), (30, 210, 30), (40, 40, 230)]
# COCO's keypoints: nose, eyes, ears, shoulders, elbows, wrists, hips, knees, ankles (left, right)
FLIP = [0, 2, 1, 4, 3, 6, 5, 8, 7, 10, 9, 12, 11, 14, 13, 16, 15]
SKELETON = [(15, 13), (13, 11), (16, 14), (14, 12), (11, 12), (5, 11), (6, 12), (5, 6), (5, 7), (6, 8), (7, 9),
            (8, 10), (1, 2), (0, 1), (0, 2), (1, 3), (2, 4), (3, 5), (4, 6)]
# the held-out picture: 4:3, letterboxed without scaling (int8 heads step by ~2 px: a
# resize rounds differently in cv2 and in ours, and one step is 2 px)
PICTURE = (160, 120, 101)


def noise(rng, w, h):
    return (rng.integers(0, 256, (h, w, 3)) * 0.5 + 64).astype(np.uint8)


def free_spot(rng, taken, w, h, s):
    """A square of side s inside w x h apart from the ones taken (x, y, s), or None."""
    for _ in range(50):
        x, y = int(rng.integers(0, w - s)), int(rng.integers(0, h - s))
        if all(x + s + 2 < tx or tx + ts + 2 < x or y + s + 2 < ty or ty + ts + 2 < y for tx, ty, ts in taken):
            taken.append((x, y, s))
            return x, y
    return None


def draw_seg(rng, w, h, n):
    """Shapes apart from each other; [(class, polygon [(x, y)...])] in pixels."""
    from PIL import Image, ImageDraw

    im = Image.fromarray(noise(rng, w, h))
    dr = ImageDraw.Draw(im)
    objs, taken = [], []
    for _ in range(n):
        c = int(rng.integers(0, 3))
        s = int(rng.integers(min(w, h) // 7, min(w, h) // 3))
        p = free_spot(rng, taken, w, h, s)
        if p is None:
            continue
        x, y = p
        if c == 0:
            poly = [(x, y), (x + s, y), (x + s, y + s), (x, y + s)]
        elif c == 1:
            r = s / 2
            poly = [(x + r + r * math.cos(a), y + r + r * math.sin(a)) for a in np.linspace(0, 2 * math.pi, 48, False)]
        else:
            poly = [(x + s / 2, y), (x + s, y + s), (x, y + s)]
        dr.polygon(poly, fill=COLOURS[c])
        objs.append((c, poly))
    return np.asarray(im), objs


def draw_pose(rng, w, h, n):
    """Stick figures; [(0, box (x1, y1, x2, y2), keypoints [(x, y)] * 17)]."""
    from PIL import Image, ImageDraw

    im = Image.fromarray(noise(rng, w, h))
    dr = ImageDraw.Draw(im)
    objs, taken = [], []
    for _ in range(n):
        s = int(rng.integers(min(w, h) // 3, min(w, h) * 2 // 3))
        p = free_spot(rng, taken, w, h, s)
        if p is None:
            continue
        x, y = p
        u = s / 10.0  # body unit; the figure is ~9 units tall, ~6 wide at most
        cx = x + s / 2 + rng.uniform(-0.5, 0.5) * u
        top = y + 0.6 * u
        j = lambda dx, dy: (cx + (dx + rng.uniform(-0.25, 0.25)) * u, top + (dy + rng.uniform(-0.25, 0.25)) * u)  # noqa
        nose = j(0, 0.6)
        leye, reye, lear, rear = j(0.35, 0.3), j(-0.35, 0.3), j(0.7, 0.5), j(-0.7, 0.5)
        lsh, rsh = j(1.4, 1.8), j(-1.4, 1.8)
        arm = rng.uniform(-1.2, 1.2, 4)
        lel, rel = j(2.0 + arm[0], 3.4), j(-2.0 - arm[1], 3.4)
        lwr, rwr = j(2.4 + 2 * arm[0], 5.0 - abs(arm[2])), j(-2.4 - 2 * arm[1], 5.0 - abs(arm[3]))
        lhip, rhip = j(0.9, 5.2), j(-0.9, 5.2)
        leg = rng.uniform(-0.8, 0.8, 2)
        lkn, rkn = j(1.1 + leg[0], 7.0), j(-1.1 - leg[1], 7.0)
        lan, ran = j(1.3 + 1.5 * leg[0], 8.8), j(-1.3 - 1.5 * leg[1], 8.8)
        k = [nose, leye, reye, lear, rear, lsh, rsh, lel, rel, lwr, rwr, lhip, rhip, lkn, rkn, lan, ran]
        k = [(min(max(a, 0.0), w - 1.0), min(max(b, 0.0), h - 1.0)) for a, b in k]
        col = tuple(int(v) for v in rng.integers(180, 256, 3))
        dr.ellipse([nose[0] - 1.1 * u, nose[1] - 1.1 * u, nose[0] + 1.1 * u, nose[1] + 1.1 * u], outline=col,
                   width=max(1, int(u / 3)))
        for a, b in SKELETON[:12]:
            dr.line([k[a], k[b]], fill=col, width=max(2, int(u / 2)))
        for i, (a, b) in enumerate(k):  # joints in their own colours: left, right, face
            jc = (255, 60, 60) if i in (5, 7, 9, 11, 13, 15) else (60, 60, 255) if i > 4 else (255, 255, 0)
            r = max(1.0, u / 3)
            dr.ellipse([a - r, b - r, a + r, b + r], fill=jc)
        xs, ys = [a for a, _ in k], [b for _, b in k]
        pad = 0.6 * u
        box = (max(min(xs) - pad, 0), max(min(ys) - 1.2 * u, 0), min(max(xs) + pad, w), min(max(ys) + pad, h))
        objs.append((0, box, k))
    return np.asarray(im), objs


def draw_obb(rng, w, h, n):
    """Long rotated rectangles; [(class, corners [(x, y)] * 4)]."""
    from PIL import Image, ImageDraw

    im = Image.fromarray(noise(rng, w, h))
    dr = ImageDraw.Draw(im)
    objs, taken = [], []
    for _ in range(n):
        c = int(rng.integers(0, 3))
        s = int(rng.integers(min(w, h) // 5, min(w, h) // 2))
        p = free_spot(rng, taken, w, h, s)
        if p is None:
            continue
        x, y = p
        a = rng.uniform(0, math.pi)
        L, W = s * 0.95, s * rng.uniform(0.25, 0.45)
        cx, cy = x + s / 2, y + s / 2
        ca, sa = math.cos(a), math.sin(a)
        corners = [(cx + dx * ca - dy * sa, cy + dx * sa + dy * ca)
                   for dx, dy in ((-L / 2, -W / 2), (L / 2, -W / 2), (L / 2, W / 2), (-L / 2, W / 2))]
        dr.polygon(corners, fill=COLOURS[c])
        objs.append((c, corners))
    return np.asarray(im), objs


DRAW = {"seg": draw_seg, "pose": draw_pose, "obb": draw_obb}


def label_line(task, obj, w, h):
    if task == "seg":
        c, poly = obj
        return f"{c} " + " ".join(f"{x / w:.6f} {y / h:.6f}" for x, y in poly)
    if task == "obb":
        c, poly = obj
        return f"{c} " + " ".join(f"{min(max(x / w, 0), 1):.6f} {min(max(y / h, 0), 1):.6f}" for x, y in poly)
    c, (x1, y1, x2, y2), k = obj
    return (f"{c} {(x1 + x2) / 2 / w:.6f} {(y1 + y2) / 2 / h:.6f} {(x2 - x1) / w:.6f} {(y2 - y1) / h:.6f} " +
            " ".join(f"{x / w:.6f} {y / h:.6f} 2" for x, y in k))


def make_dataset(task):
    """DATA/TASK: 400 training and 40 validation pictures (half square, half of other
    sizes) with their labels in Ultralytics' format; returns the data yaml."""
    from PIL import Image

    root = DATA / task
    if (root / "data.yaml").exists():
        return root / "data.yaml"
    rng = np.random.default_rng({"seg": 21, "pose": 22, "obb": 23}[task])
    for split, n in (("train", 400), ("val", 40)):
        (root / "images" / split).mkdir(parents=True, exist_ok=True)
        (root / "labels" / split).mkdir(parents=True, exist_ok=True)
        for i in range(n):
            w, h = (IMGSZ, IMGSZ) if i % 2 else (int(rng.integers(120, 240)), int(rng.integers(100, 200)))
            img, objs = DRAW[task](rng, w, h, int(rng.integers(1, 4)) if task != "pose" else int(rng.integers(1, 3)))
            Image.fromarray(img).save(root / "images" / split / f"{i}.png")
            (root / "labels" / split / f"{i}.txt").write_text("".join(label_line(task, o, w, h) + "\n" for o in objs))
    d = {"path": str(root), "train": "images/train", "val": "images/val",
         "names": dict(enumerate({"seg": SHAPES, "pose": ["figure"], "obb": BARS}[task]))}
    if task == "pose":
        d["kpt_shape"] = [17, 3]
        d["flip_idx"] = FLIP
    (root / "data.yaml").write_text(json.dumps(d))
    return root / "data.yaml"


def tiny_yaml(task, tmp: Path) -> Path:
    """Ultralytics' yolov8n-TASK.yaml at width 1/8 (a file named like the 'n' scale)."""
    from ultralytics.nn.tasks import yaml_model_load
    from ultralytics.utils import YAML

    suffix = {"seg": "-seg", "pose": "-pose", "obb": "-obb"}[task]
    d = yaml_model_load(f"yolov8n{suffix}.yaml")
    d["nc"] = 1 if task == "pose" else 3
    d["scales"] = {"n": [0.33, 0.125, 256]}
    d["reg_max"] = 1  # one box bin, as YOLO26: the head's box branch shrinks from 64 channels to 16 (small files)
    d.pop("scale", None)
    d.pop("yaml_file", None)
    out = tmp / f"yolov8n{suffix}.yaml"
    YAML.save(out, d)
    return out


def train(task, epochs):
    from ultralytics import YOLO

    torch.set_num_threads(2)
    data = make_dataset(task)
    tmp = DATA / f"run-{task}"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    os.chdir(tmp)
    torch.manual_seed(0)
    m = YOLO(str(tiny_yaml(task, tmp)))
    m.train(data=str(data), imgsz=IMGSZ, epochs=epochs, batch=16, workers=0, device="cpu",
            plots=False, project=str(tmp), name="t", seed=0, deterministic=True, amp=False, verbose=False,
            val=False)
    best = tmp / "t" / "weights" / "last.pt"
    for tag, kw in (("", {}), ("_int8", {"quantize": 8, "data": str(data), "fraction": 0.25})):
        f = Path(YOLO(str(best)).export(format="litert", imgsz=IMGSZ, **kw))
        shutil.copyfile(f, HERE / f"yolov8_{task}{tag}.tflite")
        print(task, tag or "fp32", (HERE / f"yolov8_{task}{tag}.tflite").stat().st_size, "bytes")


# ---- what Ultralytics predicts -----------------------------------------------------------

def pick_conf(scores):
    """A threshold in the widest relative gap among the best scores (at least one box
    above it, at most 12), so that our scores' tiny differences from LiteRT's cannot put
    a box on the other side."""
    s = np.sort(np.asarray(scores))[::-1]
    s = s[s > 0.01]
    if len(s) == 0:
        return 0.25
    if len(s) == 1:
        return float(s[0] / 2)
    top = s[:13]
    k = int(np.argmax(top[:-1] / top[1:]))
    return float(np.sqrt(top[k] * top[k + 1]))


def head_step(model: Path) -> float:
    """The step of an int8 head's values (normalized coordinates, scores), 0 for float."""
    from ai_edge_litert.interpreter import Interpreter

    it = Interpreter(str(model))
    out = it.get_output_details()[0]["name"]
    for t in it.get_tensor_details():
        if out.endswith("_dequant") and t["name"] == out[: -len("_dequant")] and t["quantization"][0] > 0:
            return float(t["quantization"][0])
    return 0.0


def make_refs(only=()):
    """Ultralytics' predict with each model here on a held-out picture of its task (tasks
    in `only`; the others' lines of tasks.txt are kept)."""
    from ultralytics import YOLO
    from ultralytics.utils import ops

    runs = []
    old = (HERE / "tasks.txt").read_text().splitlines()[1:] if (HERE / "tasks.txt").exists() else []
    for task, utask in (("seg", "segment"), ("pose", "pose"), ("obb", "obb")):
        if only and task not in only:
            runs += [x for x in old if x.split()[0].startswith(f"yolov8_{task}")]
            continue
        for stale in list(HERE.glob(f"yolov8_{task}*.predict")) + list(HERE.glob(f"yolov8_{task}*.masks")):
            stale.unlink()
        w, h, seed = PICTURE
        img, objs = DRAW[task](np.random.default_rng(seed + {"seg": 0, "pose": 10, "obb": 20}[task]), w, h, 3)
        pic = f"tasks_{task}.rgb"
        img.tofile(HERE / pic)
        for tag in ("", "_int8"):
            name = f"yolov8_{task}{tag}"
            if not (HERE / f"{name}.tflite").exists():
                continue
            m = YOLO(str(HERE / f"{name}.tflite"), task=utask)

            def predict(c):
                return m.predict(img[:, :, ::-1].copy(), imgsz=IMGSZ, conf=c, iou=0.7, max_det=300, verbose=False)[0]

            r0 = predict(0.01)
            conf = pick_conf((r0.obb if task == "obb" else r0.boxes).conf.numpy())
            r = predict(conf)
            lines = []
            if task == "obb":
                o = r.obb
                for xyxy, xywhr, c, k in zip(o.xyxy.numpy(), o.xywhr.numpy(), o.conf.numpy(), o.cls.numpy()):
                    lines.append(f"{int(k)} {c:.7g} " + " ".join(f"{v:.7g}" for v in (*xyxy, *xywhr)))
            else:
                b = r.boxes
                for i, (xyxy, c, k) in enumerate(zip(b.xyxy.numpy(), b.conf.numpy(), b.cls.numpy())):
                    extra = ""
                    if task == "pose":
                        extra = " " + " ".join(f"{v:.7g}" for v in r.keypoints.data[i].numpy().reshape(-1))
                    lines.append(f"{int(k)} {c:.7g} " + " ".join(f"{v:.7g}" for v in xyxy) + extra)
            tag_file = f"{name}-{conf:.4g}"
            (HERE / f"{tag_file}.predict").write_text("".join(x + "\n" for x in lines))
            if task == "seg":
                # predict's masks (input resolution, letterboxed) scaled to the frame as
                # Results does for drawing: bilinear, > 0.5; one bit a pixel, rows packed
                mk = r.masks.data[None].float() if len(lines) else torch.zeros((1, 0, h, w))
                fm = ops.scale_masks(mk, (h, w))[0] > 0.5 if len(lines) else mk[0] > 0.5
                np.packbits(fm.numpy().astype(np.uint8), axis=-1).tofile(HERE / f"{tag_file}.masks")
            # tolerances: 2 px and 0.02, or two steps of an int8 head (ours and LiteRT's
            # int8 kernels may round a value differently)
            step = head_step(HERE / f"{name}.tflite")
            runs.append(f"{name}.tflite {utask} {pic} {w} {h} {conf:.9g} 0.7 {tag_file} {len(lines)} "
                        f"{max(2.0, 2 * step * IMGSZ):.4g} {max(0.02, 2 * step):.4g}")
            print(name, len(lines), "at conf", f"{conf:.4g}", "truth", len(objs))
    (HERE / "tasks.txt").write_text(
        "# model task picture width height conf iou expected n box_tolerance_px score_tolerance (Ultralytics' predict in EXPECTED.predict:"
        " class score x1 y1 x2 y2, then pose: 17 x (x y visibility), obb: cx cy w h angle; segment:"
        " EXPECTED.masks, each detection's frame mask, bit-packed rows)\n" + "\n".join(runs) + "\n")


# ---- YOLO26's end-to-end oriented-box head ------------------------------------------------

def make_obb_e2e():
    """yolo26_obb_e2e.tflite: YOLO26n-obb (Ultralytics' yaml, width 1/8, at most 128 channels,
    3 classes) with random weights (seeded; BatchNorm statistics from 32 pictures of
    draw_obb; noise on the head as make_yolo.py's random models, else every score ties),
    exported to LiteRT with nms=False: its end-to-end head,
    [1, 300, 7] rows of cx cy w h (input pixels), score, class, angle (OBB26: the raw angle).
    Then Ultralytics' predict with it on tasks_obb.rgb, written as make_refs does and listed
    in tasks_e2e.txt (tests/test_yolo_tasks.c)."""
    from ultralytics import YOLO
    from ultralytics.nn.tasks import yaml_model_load
    from ultralytics.utils import YAML

    torch.set_num_threads(2)
    tmp = DATA / "run-obb-e2e"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    d = yaml_model_load("yolo26n-obb.yaml")
    d["nc"] = 3
    d["scales"] = {"n": [0.33, 0.125, 128]}  # 128 channels at most: under 700 KB
    d.pop("scale", None)
    d.pop("yaml_file", None)
    YAML.save(tmp / "yolo26n-obb.yaml", d)
    torch.manual_seed(62)
    m = YOLO(str(tmp / "yolo26n-obb.yaml"))
    # BatchNorm statistics from pictures of the task (random weights alone leave the deep
    # features nearly constant: a few huge boxes of tied scores)
    net = m.model
    for mod in net.modules():
        if isinstance(mod, torch.nn.BatchNorm2d):
            mod.reset_running_stats()
            mod.momentum = None  # a plain average over the batches
    net.train()
    rng = np.random.default_rng(63)
    with torch.no_grad():
        for _ in range(4):
            x = np.stack([draw_obb(rng, IMGSZ, IMGSZ, 3)[0] for _ in range(8)])
            net(torch.from_numpy(x).permute(0, 3, 1, 2).float() / 255)
    net.eval()
    g = torch.Generator().manual_seed(62)
    with torch.no_grad():
        for p in m.model.model[-1].parameters():
            p.add_(torch.randn(p.shape, generator=g) * 0.1)  # 0.5 saturates every score at 1 here
    os.chdir(tmp)
    f = Path(m.export(format="litert", imgsz=IMGSZ, nms=False))
    name = "yolo26_obb_e2e"
    shutil.copyfile(f, HERE / f"{name}.tflite")
    print(name, (HERE / f"{name}.tflite").stat().st_size, "bytes")
    w, h, _ = PICTURE
    img = np.fromfile(HERE / "tasks_obb.rgb", dtype=np.uint8).reshape(h, w, 3)
    m = YOLO(str(HERE / f"{name}.tflite"), task="obb")

    def predict(c):
        return m.predict(img[:, :, ::-1].copy(), imgsz=IMGSZ, conf=c, iou=0.7, max_det=300, verbose=False)[0]

    # as make_yolo.py's random models: the widest relative gap among ranks 6..16, so that
    # ~10 rows pass (random sides may be negative: Ultralytics keeps the sign, we give the
    # same rectangle with positive sides; the test compares their magnitudes)
    s = np.sort(predict(1e-9).obb.conf.numpy())[::-1]
    k = 6 + int(np.argmax(s[6:16] / s[7:17]))
    conf = float(np.sqrt(s[k] * s[k + 1]))
    o = predict(conf).obb
    lines = [f"{int(k)} {c:.7g} " + " ".join(f"{v:.7g}" for v in (*xyxy, *xywhr))
             for xyxy, xywhr, c, k in zip(o.xyxy.numpy(), o.xywhr.numpy(), o.conf.numpy(), o.cls.numpy())]
    for stale in HERE.glob(f"{name}-*.predict"):
        stale.unlink()
    tag = f"{name}-{conf:.4g}"
    (HERE / f"{tag}.predict").write_text("".join(x + "\n" for x in lines))
    # its own list: tasks.txt's models also run through the element on GL (fp16), where a
    # random head's scores this close to the threshold would not stay on their side
    (HERE / "tasks_e2e.txt").write_text(
        "# as tasks.txt: model task picture width height conf iou expected n box_tolerance_px score_tolerance\n"
        f"{name}.tflite obb tasks_obb.rgb {w} {h} {conf:.9g} 0.7 {tag} {len(lines)} 2 0.02\n")
    print(name, len(lines), "at conf", f"{conf:.4g}")


# ---- a raw rotated head against Ultralytics' rotated NMS ---------------------------------

def make_obb_raw():
    """obb_raw.bin: a random oriented-box head [1, 4 + 3 + 1, 525] (normalized cx cy w h,
    3 class probabilities, the angle in [-pi/4, 3pi/4) as the OBB head makes it) in
    clusters of overlapping boxes, and obb_raw.expected: Ultralytics' non_max_suppression
    (rotated=True: batch_probiou, fast NMS) on it in input pixels, as predict calls it
    (conf 0.25, iou 0.7; then class-agnostic in obb_raw_agnostic.expected): class score
    cx cy w h angle per line."""
    from ultralytics.utils.nms import non_max_suppression

    rng = np.random.default_rng(41)
    n, nc = sum((IMGSZ // s) ** 2 for s in (8, 16, 32)), 3
    centres = rng.uniform(0.15, 0.85, (10, 2))
    k = rng.integers(0, 10, n)
    xy = centres[k] + rng.normal(0, 0.015, (n, 2))
    wh = np.stack([rng.uniform(0.15, 0.4, n), rng.uniform(0.04, 0.12, n)], 1)
    angle = ((rng.integers(0, 6, 10) * 0.5)[k] + rng.normal(0, 0.15, n)) % math.pi - math.pi / 4
    scores = 1 / (1 + np.exp(-rng.normal(-2.5, 2.0, (n, nc))))
    head = np.concatenate([xy, wh, scores, angle[:, None]], 1).T.astype(np.float32)  # [8, n]
    head[None].tofile(HERE / "obb_raw.bin")
    pix = head.copy()
    pix[[0, 2]] *= IMGSZ
    pix[[1, 3]] *= IMGSZ
    for name, agnostic in (("obb_raw", False), ("obb_raw_agnostic", True)):
        d = non_max_suppression(torch.from_numpy(pix[None]), 0.25, 0.7, agnostic=agnostic, max_det=300, nc=nc,
                                rotated=True)[0].numpy()  # x y w h conf cls angle
        (HERE / f"{name}.expected").write_text("".join(
            f"{int(r[5])} {r[4]:.7g} {r[0]:.7g} {r[1]:.7g} {r[2]:.7g} {r[3]:.7g} {r[6]:.7g}\n" for r in d))
        print(name, len(d), "boxes")


def make_multilabel_raw():
    """ml_raw.bin: a random anchor-free head [1, 4 + 3, 525] (normalized boxes in clusters,
    class probabilities often high for two classes at once) and ml_raw.expected:
    Ultralytics' non_max_suppression with multi_label=True (as its val runs it; conf 0.4,
    iou 0.6) in input pixels: class score x1 y1 x2 y2 per line."""
    from ultralytics.utils.nms import non_max_suppression

    rng = np.random.default_rng(43)
    n, nc = sum((IMGSZ // s) ** 2 for s in (8, 16, 32)), 3
    centres = rng.uniform(0.15, 0.85, (12, 2))
    k = rng.integers(0, 12, n)
    xy = centres[k] + rng.normal(0, 0.02, (n, 2))
    wh = rng.uniform(0.08, 0.3, (n, 2))
    scores = 1 / (1 + np.exp(-rng.normal(-1.5, 2.0, (n, nc))))
    head = np.concatenate([xy, wh, scores], 1).T.astype(np.float32)
    head[None].tofile(HERE / "ml_raw.bin")
    pix = head.copy()
    pix[[0, 2]] *= IMGSZ
    pix[[1, 3]] *= IMGSZ
    d = non_max_suppression(torch.from_numpy(pix[None]), 0.4, 0.6, multi_label=True, max_det=300, nc=nc)[0].numpy()
    (HERE / "ml_raw.expected").write_text("".join(
        f"{int(r[5])} {r[4]:.7g} {r[0]:.7g} {r[1]:.7g} {r[2]:.7g} {r[3]:.7g}\n" for r in d))
    print("ml_raw", len(d), "detections,", len({(round(float(r[0]), 3), round(float(r[1]), 3)) for r in d}), "boxes")


# ---- mAP: Ultralytics' val on a held-out set ------------------------------------------

EVAL_W, EVAL_H, EVAL_N = 160, 120, 12


def make_eval(task, utask, names):
    """eval_TASK/: EVAL_N pictures (PNG, 160x120: letterboxed without scaling, so that
    val's scaleup=False changes nothing) with their truth as a COCO instances file, and
    Ultralytics' val on them (box mAP50-95, in eval_TASK/val.txt) for each model."""
    from PIL import Image
    from ultralytics import YOLO

    out = HERE / f"eval_{task}"
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir()
    root = DATA / f"eval_{task}"
    shutil.rmtree(root, ignore_errors=True)
    (root / "images" / "val").mkdir(parents=True)
    (root / "labels" / "val").mkdir(parents=True)
    rng = np.random.default_rng({"seg": 31, "pose": 32, "obb": 33}[task])
    images, anns = [], []
    for i in range(EVAL_N):
        img, objs = DRAW[task](rng, EVAL_W, EVAL_H, int(rng.integers(1, 4)) if task != "pose" else int(rng.integers(1, 3)))
        name = f"{i:02d}.png"
        Image.fromarray(img).save(out / name, optimize=True)
        shutil.copyfile(out / name, root / "images" / "val" / name)
        lines = [label_line(task, o, EVAL_W, EVAL_H) for o in objs]
        (root / "labels" / "val" / f"{i:02d}.txt").write_text("".join(x + "\n" for x in lines))
        images.append({"id": i + 1, "file_name": name, "width": EVAL_W, "height": EVAL_H})
        for line in lines:
            # the box Ultralytics reads from the label line as written (6 decimals): a
            # pose's centre and size, a polygon's bounds (a hundredth of a pixel matters:
            # a box at IoU 0.9 exactly flips)
            v = [float(x) for x in line.split()]
            if task == "pose":
                cx, cy, bw, bh = v[1:5]
                x1, y1, x2, y2 = cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2
            else:
                x1, y1, x2, y2 = min(v[1::2]), min(v[2::2]), max(v[1::2]), max(v[2::2])
            x1, x2, y1, y2 = x1 * EVAL_W, x2 * EVAL_W, y1 * EVAL_H, y2 * EVAL_H
            anns.append({"id": len(anns) + 1, "image_id": i + 1, "category_id": int(v[0]) + 1, "iscrowd": 0,
                         "bbox": [x1, y1, x2 - x1, y2 - y1], "area": (x2 - x1) * (y2 - y1)})
            if task == "obb":
                # the rotated box as Ultralytics' dataset makes it from the corners
                # (xyxyxyxy2xywhr: cv2.minAreaRect), tflite-eval-detection's "rbox"
                from ultralytics.utils.ops import xyxyxyxy2xywhr
                xy = np.array(v[1:9], dtype=np.float64).reshape(4, 2) * [EVAL_W, EVAL_H]
                anns[-1]["rbox"] = [float(x) for x in xyxyxyxy2xywhr(xy.reshape(1, 8))[0]]
    cats = [{"id": k + 1, "name": n} for k, n in enumerate(names)]
    (out / "instances.json").write_text(json.dumps({"images": images, "annotations": anns, "categories": cats}))
    d = {"path": str(root), "train": "images/val", "val": "images/val", "names": dict(enumerate(names))}
    if task == "pose":
        d["kpt_shape"] = [17, 3]
        d["flip_idx"] = FLIP
    (root / "data.yaml").write_text(json.dumps(d))
    lines = []
    for tag in ("", "_int8"):
        f = HERE / f"yolov8_{task}{tag}.tflite"
        if not f.exists():
            continue
        m = YOLO(str(f), task=utask)
        r = m.val(data=str(root / "data.yaml"), imgsz=IMGSZ, batch=1, conf=0.001, iou=0.7, plots=False,
                  verbose=False, workers=0, project=str(root / "runs"), name=tag or "fp32")
        pm, pm50 = predict_map(m, out, images, anns, utask)
        lines.append(f"{f.name} {r.box.map:.6f} {r.box.map50:.6f} {pm:.6f} {pm50:.6f}")
        print(f.name, "val box mAP50-95", r.box.map, "mAP50", r.box.map50, "| on predict's boxes", pm, pm50)
    (out / "val.txt").write_text(
        "# model, Ultralytics val's box mAP50-95 and mAP50 (conf 0.001, iou 0.7), then its metric functions"
        " (match_predictions, ap_per_class) on predict's boxes of the same pictures\n" +
        "".join(x + "\n" for x in lines))


def predict_map(model, folder, images, anns, utask="detect"):
    """Ultralytics' own val metric (DetectionValidator.match_predictions, ap_per_class) on
    the boxes of Ultralytics' predict (conf 0.001, iou 0.7, max_det 300: val's settings,
    but one class a box, as predict and our decoder keep it) against the truth above."""
    from PIL import Image
    from ultralytics.models.yolo.detect.val import DetectionValidator
    from ultralytics.utils.metrics import ap_per_class, batch_probiou, box_iou

    v = DetectionValidator()
    v.iouv = torch.linspace(0.5, 0.95, 10)
    tps, confs, pcls, tcls = [], [], [], []
    for im in images:
        img = np.asarray(Image.open(folder / im["file_name"]).convert("RGB"))
        res = model.predict(img[:, :, ::-1].copy(), imgsz=IMGSZ, conf=0.001, iou=0.7, max_det=300, verbose=False)[0]
        b = res.boxes
        g = [a for a in anns if a["image_id"] == im["id"]]
        gb = torch.tensor([[a["bbox"][0], a["bbox"][1], a["bbox"][0] + a["bbox"][2], a["bbox"][1] + a["bbox"][3]]
                           for a in g], dtype=torch.float32).reshape(-1, 4)
        gc = torch.tensor([a["category_id"] - 1 for a in g])
        if utask == "obb":
            # the OBB val's matching: probabilistic IoU of the rotated boxes
            b = res.obb
            gr = torch.tensor([a["rbox"] for a in g], dtype=torch.float32).reshape(-1, 5)
            iou = batch_probiou(gr, b.xywhr.float())
        else:
            iou = box_iou(gb, b.xyxy)
        tps.append(v.match_predictions(b.cls, gc, iou).numpy())
        confs.append(b.conf.numpy())
        pcls.append(b.cls.numpy())
        tcls.append(gc.numpy())
    ap = ap_per_class(np.concatenate(tps), np.concatenate(confs), np.concatenate(pcls), np.concatenate(tcls))[5]
    return float(ap.mean()), float(ap[:, 0].mean())


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == "train":
        train(sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 25)
    elif len(sys.argv) >= 2 and sys.argv[1] == "obb-e2e":
        make_obb_e2e()
    elif len(sys.argv) >= 2 and sys.argv[1] == "refs":
        only = sys.argv[2:]
        make_refs(only)
        if not only or "obb" in only:
            make_obb_raw()
        if not only:
            make_multilabel_raw()
        if not only or "seg" in only:
            make_eval("seg", "segment", SHAPES)
        if not only or "pose" in only:
            make_eval("pose", "pose", ["figure"])
        if not only or "obb" in only:
            make_eval("obb", "obb", BARS)
    else:
        print(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
