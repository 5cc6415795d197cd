#!/usr/bin/env python3
"""Makes the EfficientDet-Lite and MoveNet test data in this folder (no downloads).

  /work/venv-zoo/bin/python tests/data/families/make_families.py

No real EfficientDet-Lite or MoveNet .tflite can be fetched here (TF Hub / Kaggle are not
reachable), so this builds look-alikes with the official converter (tensorflow 2.21): tiny
random-weight graphs with the real models' input and output signatures.

- movenet_lightning.tflite, movenet_thunder.tflite: uint8 [1,192,192,3] / [1,256,256,3]
  ("serving_default_input:0", raw 0..255 values: the model casts them itself), one output
  float32 [1,1,17,3] ("StatefulPartitionedCall:0"): 17 COCO keypoints as (y, x, score),
  y and x normalized to the (padded) input.
- movenet_multipose.tflite: uint8 [1,256,256,3], one output float32 [1,6,56]: six persons,
  17 x (y, x, score) then ymin, xmin, ymax, xmax, score.
- movenet_multipose_open.tflite: the same layout with the input's height and width left
  open as TF Hub's MultiPose .tflite has them ([1,1,1,3] in the file, shape_signature
  [1,-1,-1,3]); LiteRT runs it resized to [1,256,256,3] (resize_tensor_input, as TF Hub's
  tutorial does), the family gives it 256.
- efficientdet_lite0.tflite: as TFLite Model Maker exports EfficientDet-Lite0 with
  int8 quantization: uint8 [1,320,320,3] ("serving_default_images:0") quantized with
  scale 1/128 and zero point 127 (the normalization), the network quantized, its end
  TFLite_Detection_PostProcess (the converter's fused op, from a function that
  `implements` it, as EfficientDet's exporter does) with class scores without a
  background column; the graph outputs in the order Model Maker 0.4 / TF >= 2.6
  gives them (tensorflow/tensorflow#58764): scores [1,25] "StatefulPartitionedCall:1",
  boxes [1,25,4] ":3", count [1] ":0", classes [1,25] ":2"; its TFLite metadata as
  Model Maker writes it (name "efficientdet-lite0", normalization mean 127 std 128, the
  output tensor metadata "location", "category", "score", "number of detections" - in
  that order, which is not the graph's) and labelmap.txt (TENSOR_VALUE_LABELS, no
  background line: class k of the op is line k; a gap in the label map is "???"), in a
  zip appended to the file.

Reference (expected files): each model run by LiteRT (ai-edge-litert) on a real picture
(skimage's astronaut from tests/data/pictures, its middle 512x384 scaled to 320x240)
fitted as the family expects - MoveNet: the picture scaled to the input's width and padded top and bottom with black (what
tf.image.resize_with_pad does; 240 rows -> 144 or 192 rows, 24 or 32 black rows each
side), EfficientDet: stretched to 320x320 - and decoded here from LiteRT's raw outputs,
mapped back to picture pixels:
- *.input: the uint8 input tensor fed to LiteRT (the C test feeds the same bytes);
- movenet_*.expected: one line per pose kept: score, box x y w h (single pose: the
  keypoints' bounds; multipose: the model's box), then x y score per keypoint;
- efficientdet_lite0.expected: one line per box: class label score x y w h (clamped to
  the picture), the boxes over a threshold picked in the widest gap between scores;
- cases.txt: model input-size threshold count input (the *.input it runs on);
- picture.rgb: the picture itself (320x240 raw RGB), for the element test.
"""
import io
import os
import zipfile
from pathlib import Path

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import tensorflow as tf  # noqa: E402

HERE = Path(__file__).resolve().parent
W, H = 320, 240
LABEL_MAP = {1: "person", 3: "car"}   # Model Maker's label_map; 2 is a gap
# the element's default 0.5 for MoveNet; EfficientDet's is picked from its scores
THRESHOLD = {"movenet_lightning": 0.5, "movenet_thunder": 0.5, "movenet_multipose": 0.5, "movenet_multipose_open": 0.5,
             "efficientdet_lite0": None}


# ---- the picture ------------------------------------------------------------------

def resize(rgb: np.ndarray, w: int, h: int) -> np.ndarray:
    t = tf.image.resize(rgb[None].astype(np.float32), (h, w), method="bilinear")
    return np.clip(np.round(t.numpy()[0]), 0, 255).astype(np.uint8)


def picture() -> np.ndarray:
    """skimage's astronaut (tests/fetch_pictures.sh), its middle 512x384 at 320x240."""
    src = HERE.parent / "pictures" / "astronaut.png"
    rgb = tf.io.decode_png(src.read_bytes(), channels=3).numpy()    # 512x512
    return resize(rgb[64:448], W, H)


def letterbox_black(rgb: np.ndarray, size: int) -> tuple[np.ndarray, float, float]:
    """tf.image.resize_with_pad (as TF Hub's MoveNet tutorial feeds it): scaled to fit,
    centred, black bars. Returns the input and the content's top-left offset in input
    pixels (the picture is picked so that the fit is exact)."""
    s = min(size / rgb.shape[1], size / rgb.shape[0])
    cw, ch = round(rgb.shape[1] * s), round(rgb.shape[0] * s)
    assert abs(cw - rgb.shape[1] * s) < 1e-6 and abs(ch - rgb.shape[0] * s) < 1e-6, "pick an exact fit"
    t = tf.image.resize_with_pad(rgb[None].astype(np.float32), size, size)
    out = np.clip(np.round(t.numpy()[0]), 0, 255).astype(np.uint8)
    return out, (size - cw) // 2, (size - ch) // 2


# ---- models -------------------------------------------------------------------------

class Net:
    """Random-weight convolutions and a dense head as plain tensors (constants after
    conversion: no variables to freeze)."""

    def __init__(self, rng, layers):
        self.w = [tf.constant(rng.normal(0, sd, shape).astype(np.float32)) for shape, sd in layers]

    def conv(self, x, i, stride):
        return tf.nn.relu(tf.nn.conv2d(x, self.w[i], stride, "SAME"))


def movenet_values(size, n_out: int, seed: int):
    """uint8 picture -> n_out values in 0..1 (input dependent); keypoint scores biased up
    and, for MultiPose, person scores falling from the first person to the last (as the
    real model sorts them), so that the default threshold 0.5 keeps some."""
    net = Net(np.random.default_rng(seed), [((3, 3, 3, 8), 0.3), ((3, 3, 8, 8), 0.3), ((4 * 4 * 8, n_out), 0.08)])
    bias = np.zeros(n_out, np.float32)
    rows = bias.reshape(-1, 56) if n_out % 56 == 0 else bias.reshape(1, -1)
    rows[:, 2:51:3] = 0.8
    if n_out % 56 == 0:
        rows[:, 55] = np.linspace(2.0, -2.0, rows.shape[0])

    def fn(x):
        x = tf.cast(x, tf.float32) / 127.5 - 1.0       # MoveNet takes 0..255 and scales itself
        x = net.conv(net.conv(x, 0, 4), 1, 4)
        if size:
            x = tf.nn.avg_pool2d(x, size // 64, size // 64, "VALID")    # 4x4x8
        else:   # any input size: resized to 4x4
            x = tf.image.resize(x, (4, 4), method="bilinear")
        return tf.sigmoid(tf.matmul(tf.reshape(x, [1, -1]), net.w[2]) + bias)

    return fn


def convert(fn, spec, quant=None) -> bytes:
    """Through a SavedModel, as the real exporters go (a function that implements a
    fused op survives only that way)."""
    import tempfile
    module = tf.Module()
    module.fn = fn
    with tempfile.TemporaryDirectory() as tmp:
        tf.saved_model.save(module, tmp, signatures=fn.get_concrete_function(spec))
        c = tf.lite.TFLiteConverter.from_saved_model(tmp)
        if quant:
            quant(c)
        return c.convert()


def movenet(size: int, multi: bool, seed: int, open_size: bool = False) -> bytes:
    """open_size: the input's height and width left open ([1,1,1,3] in the file, signature
    [1,-1,-1,3]) as TF Hub's MultiPose .tflite has them."""
    values = movenet_values(None if open_size else size, 6 * 56 if multi else 51, seed)

    @tf.function
    def fn(x):
        return tf.reshape(values(x), [1, 6, 56] if multi else [1, 1, 17, 3])

    flat = convert(fn, tf.TensorSpec([1, None, None, 3] if open_size else [1, size, size, 3], tf.uint8, name="input"))
    from tensorflow.lite.tools import flatbuffer_utils as fu
    m = fu.convert_bytearray_to_object(bytearray(flat))
    sg = m.subgraphs[0]
    sg.tensors[int(sg.outputs[0])].name = b"StatefulPartitionedCall:0"   # TF Hub's (its graph has variables)
    m.signatureDefs = []
    return bytes(fu.convert_object_to_bytearray(m))


N_ANCHORS, MAX_DET = 64, 25


def efficientdet(seed: int) -> bytes:
    size = 320
    n_classes = max(2, max(LABEL_MAP))
    rng = np.random.default_rng(seed)
    net = Net(rng, [((3, 3, 3, 8), 0.3), ((3, 3, 8, 8), 0.3), ((1, 1, 8, 4), 0.1), ((1, 1, 8, n_classes), 0.4)])
    # anchors (y centre, x centre, h, w), normalized: an 8x8 grid of varied sizes
    g = (np.arange(8) + 0.5) / 8
    yc, xc = np.meshgrid(g, g, indexing="ij")
    hw = rng.uniform(0.1, 0.4, (N_ANCHORS, 2))
    anchors = np.stack([yc.ravel(), xc.ravel(), hw[:, 0], hw[:, 1]], 1).astype(np.float32)
    # a per-anchor, per-class offset of the logits spreads the scores (random features
    # alone give every anchor nearly the same score: ties everywhere)
    spread = rng.normal(-1.0, 2.0, (1, N_ANCHORS, n_classes)).astype(np.float32)

    # The converter fuses a function that says it implements the op (EfficientDet's own
    # exporter does the same); its body is a placeholder.
    attrs = " ".join([
        'name: "TFLite_Detection_PostProcess"',
        'attr { key: "max_detections" value { i: %d } }' % MAX_DET,
        'attr { key: "max_classes_per_detection" value { i: 1 } }',
        'attr { key: "use_regular_nms" value { b: false } }',
        'attr { key: "nms_score_threshold" value { f: 0.000000 } }',
        'attr { key: "nms_iou_threshold" value { f: 0.500000 } }',
        'attr { key: "y_scale" value { f: 1.000000 } }',
        'attr { key: "x_scale" value { f: 1.000000 } }',
        'attr { key: "h_scale" value { f: 1.000000 } }',
        'attr { key: "w_scale" value { f: 1.000000 } }',
        'attr { key: "num_classes" value { i: %d } }' % n_classes,
    ])

    @tf.function(experimental_implements=attrs)
    def postprocess(box_encodings, class_predictions, anchor_boxes):
        del box_encodings, class_predictions, anchor_boxes
        return (tf.constant(0.0, name="boxes"), tf.constant(0.0, name="classes"),
                tf.constant(0.0, name="scores"), tf.constant(0.0, name="num_detections"))

    @tf.function
    def fn(images):
        x = net.conv(net.conv(images, 0, 8), 1, 5)      # 8x8x8
        b = tf.nn.conv2d(x, net.w[2], 1, "SAME")
        c = tf.nn.conv2d(x, net.w[3], 1, "SAME")
        b = tf.reshape(b, [1, N_ANCHORS, 4])
        c = tf.sigmoid(tf.reshape(c, [1, N_ANCHORS, n_classes]) + spread)
        return postprocess(b, c, tf.constant(anchors))

    def quant(c):
        # Model Maker's graph takes the picture normalized, (pixel - 127) / 128: calibrated on
        # 0..255 so, its uint8 input gets scale 1/128, zero point 127 (the normalization)
        pics = [(rng.integers(0, 256, (1, size, size, 3)).astype(np.float32) - 127.0) / 128.0 for _ in range(4)]
        pics[0][0, 0, 0] = [-127.0 / 128.0, 1.0, 0.0]
        c.optimizations = [tf.lite.Optimize.DEFAULT]
        c.representative_dataset = lambda: ([p] for p in pics)
        c.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8, tf.lite.OpsSet.TFLITE_BUILTINS]
        c.inference_input_type = tf.uint8

    flat = convert(fn, tf.TensorSpec([1, size, size, 3], tf.float32, name="images"), quant)
    flat = model_maker_outputs(flat)
    from ai_edge_litert.interpreter import Interpreter
    q = Interpreter(model_content=flat).get_input_details()[0]["quantization"]
    assert abs(q[0] - 1 / 128) < 1e-6 and q[1] == 127, f"input quantization {q}"
    return add_metadata(flat, labels_text())


def labels_text() -> str:
    n = max(2, max(LABEL_MAP))
    return "".join((LABEL_MAP.get(i + 1, "???")) + "\n" for i in range(n))


def model_maker_outputs(flat: bytes) -> bytes:
    """Reorders the graph outputs and names them as Model Maker's exports have them."""
    from tensorflow.lite.tools import flatbuffer_utils as fu
    m = fu.convert_bytearray_to_object(bytearray(flat))
    sg = m.subgraphs[0]
    pp = [op for op in sg.operators
          if m.operatorCodes[op.opcodeIndex].customCode in (b"TFLite_Detection_PostProcess",
                                                             "TFLite_Detection_PostProcess")]
    assert len(pp) == 1, "the converter did not fuse TFLite_Detection_PostProcess"
    boxes, classes, scores, count = [int(t) for t in pp[0].outputs]
    assert sorted(int(t) for t in sg.outputs) == sorted([boxes, classes, scores, count]), "outputs not the op's"
    names = {scores: "StatefulPartitionedCall:1", boxes: "StatefulPartitionedCall:3",
             count: "StatefulPartitionedCall:0", classes: "StatefulPartitionedCall:2"}
    shapes = {scores: [1, MAX_DET], boxes: [1, MAX_DET, 4], count: [1], classes: [1, MAX_DET]}
    for t, nm in names.items():
        sg.tensors[t].name = nm.encode()
        sg.tensors[t].shape = np.array(shapes[t], np.int32)   # the converter leaves them unknown
    sg.outputs = np.array([scores, boxes, count, classes], np.int32)
    sg.tensors[int(sg.inputs[0])].name = b"serving_default_images:0"
    m.signatureDefs = []   # its output list would name the old order
    return bytes(fu.convert_object_to_bytearray(m))


# ---- TFLite metadata (tflite-support's metadata_schema.fbs), written by hand ----------

def metadata_buffer(labels_name: str) -> bytes:
    import flatbuffers
    b = flatbuffers.Builder(1024)

    def table(fields):
        """fields: [(slot, kind, value)] kind: 'off', 'i8', 'u8'."""
        b.StartObject(max(s for s, _, _ in fields) + 1)
        for slot, kind, v in fields:
            if kind == "off":
                b.PrependUOffsetTRelativeSlot(slot, v, 0)
            elif kind == "i8":
                b.PrependInt8Slot(slot, v, -1)
            else:
                b.PrependUint8Slot(slot, v, 255)
        return b.EndObject()

    def vec_tables(offs):
        b.StartVector(4, len(offs), 4)
        for o in reversed(offs):
            b.PrependUOffsetTRelative(o)
        return b.EndVector()

    def vec_floats(vals):
        b.StartVector(4, len(vals), 4)
        for v in reversed(vals):
            b.PrependFloat32(v)
        return b.EndVector()

    # NormalizationOptions {mean 0, std 1}; ProcessUnit {options_type 0 (1: Normalization), options 1}
    mean, std = vec_floats([127.0]), vec_floats([128.0])
    norm = table([(0, "off", mean), (1, "off", std)])
    unit = table([(0, "u8", 1), (1, "off", norm)])
    units = vec_tables([unit])
    # AssociatedFile {name 0, description 1, type 2 (3: TENSOR_VALUE_LABELS)}
    fname, fdesc = b.CreateString(labels_name), b.CreateString("Label of objects that this model can recognize.")
    afile = table([(0, "off", fname), (1, "off", fdesc), (2, "i8", 3)])
    afiles = vec_tables([afile])
    # TensorMetadata {name 0, description 1, process_units 4, associated_files 6}
    in_name = b.CreateString("image")
    in_meta = table([(0, "off", in_name), (4, "off", units)])
    outs = []
    for nm in ("location", "category", "score", "number of detections"):
        s = b.CreateString(nm)
        outs.append(table([(0, "off", s), (6, "off", afiles)] if nm == "category" else [(0, "off", s)]))
    ins_v, outs_v = vec_tables([in_meta]), vec_tables(outs)
    # SubGraphMetadata {input_tensor_metadata 2, output_tensor_metadata 3}
    sgm = table([(2, "off", ins_v), (3, "off", outs_v)])
    sgms = vec_tables([sgm])
    # ModelMetadata {name 0, version 2, subgraph_metadata 3, author 4, min_parser_version 7}
    name, ver, author, minv = (b.CreateString(s) for s in ("efficientdet-lite0", "v1", "TensorFlow", "1.2.0"))
    mm = table([(0, "off", name), (2, "off", ver), (3, "off", sgms), (4, "off", author), (7, "off", minv)])
    b.Finish(mm, file_identifier=b"M001")
    return bytes(b.Output())


def add_metadata(flat: bytes, labels: str) -> bytes:
    from tensorflow.lite.python import schema_py_generated as s
    from tensorflow.lite.tools import flatbuffer_utils as fu
    m = fu.convert_bytearray_to_object(bytearray(flat))
    buf = s.BufferT()
    buf.data = np.frombuffer(metadata_buffer("labelmap.txt"), np.uint8)
    m.buffers.append(buf)
    md = s.MetadataT()
    md.name = b"TFLITE_METADATA"
    md.buffer = len(m.buffers) - 1
    m.metadata = (m.metadata or []) + [md]
    out = bytes(fu.convert_object_to_bytearray(m))
    z = io.BytesIO()
    with zipfile.ZipFile(z, "w", zipfile.ZIP_STORED) as zf:
        zf.writestr(zipfile.ZipInfo("labelmap.txt", date_time=(1980, 1, 1, 0, 0, 0)), labels)  # same bytes each run
    return out + z.getvalue()


# ---- the reference: LiteRT, decoded here --------------------------------------------

def litert(flat: bytes, x: np.ndarray) -> dict:
    from ai_edge_litert.interpreter import Interpreter
    it = Interpreter(model_content=flat)
    d = it.get_input_details()[0]
    if list(d["shape_signature"][1:3]) == [-1, -1]:   # sized by the caller (TF Hub's MultiPose usage)
        it.resize_tensor_input(d["index"], [1, *x.shape])
    it.allocate_tensors()
    d = it.get_input_details()[0]
    assert d["dtype"] == np.uint8 and tuple(d["shape"][1:3]) == x.shape[:2], d
    it.set_tensor(d["index"], x[None])
    it.invoke()
    return {o["name"]: it.get_tensor(o["index"]).copy() for o in it.get_output_details()}


def clamp(x, y, w, h, rgb):
    """A box cut to the picture: its corners clamped, an empty box keeps its left/top."""
    x0, y0 = max(x, 0.0), max(y, 0.0)
    x1, y1 = min(x + w, rgb.shape[1]), min(y + h, rgb.shape[0])
    return x0, y0, max(x1 - x0, 0.0), max(y1 - y0, 0.0)


def fmt(v: float) -> str:
    return "%.4f" % v


def movenet_reference(name: str, flat: bytes, rgb: np.ndarray, size: int, multi: bool, input_name: str) -> int:
    x, ox, oy = letterbox_black(rgb, size)
    x.tofile(HERE / f"{input_name}.input")
    out = litert(flat, x)
    (raw,) = out.values()
    s = rgb.shape[1] / (size - 2 * ox)       # picture pixels per input pixel

    def to_pic(yn, xn):
        return (xn * size - ox) * s, (yn * size - oy) * s

    lines = []
    persons = raw.reshape(6, 56) if multi else raw.reshape(1, 51)
    for p in persons:
        kp = p[:51].reshape(17, 3)
        score = float(p[55]) if multi else float(kp[:, 2].mean())
        if score < THRESHOLD[name]:
            continue
        pts = [to_pic(float(k[0]), float(k[1])) + (float(k[2]),) for k in kp]
        if multi:
            x0, y0 = to_pic(float(p[51]), float(p[52]))
            x1, y1 = to_pic(float(p[53]), float(p[54]))
        else:
            xs, ys = [q[0] for q in pts], [q[1] for q in pts]
            x0, y0, x1, y1 = min(xs), min(ys), max(xs), max(ys)
        x, y, w, h = clamp(min(x0, x1), min(y0, y1), abs(x1 - x0), abs(y1 - y0), rgb)
        vals = [score, x, y, w, h] + [v for q in pts for v in q]
        lines.append(" ".join(fmt(v) for v in vals))
    (HERE / f"{name}.expected").write_text("".join(ln + "\n" for ln in lines))
    return len(lines)


def efficientdet_reference(flat: bytes, rgb: np.ndarray) -> int:
    x = resize(rgb, 320, 320)
    x.tofile(HERE / "efficientdet_lite0.input")
    out = litert(flat, x)
    boxes = out["StatefulPartitionedCall:3"][0]
    scores = out["StatefulPartitionedCall:1"][0]
    classes = out["StatefulPartitionedCall:2"][0]
    count = int(out["StatefulPartitionedCall:0"][0])
    labels = labels_text().splitlines()
    # the threshold in the widest gap between scores (8 boxes kept at least): an 8-bit
    # score a quantum or two off on another CPU's kernels keeps its side
    s = sorted((float(v) for v in scores[:count]), reverse=True)
    gap, i = max((s[i] - s[i + 1], i) for i in range(7, count - 1) if s[i + 1] >= 0.5)
    THRESHOLD["efficientdet_lite0"] = round((s[i] + s[i + 1]) / 2, 4)
    lines = []
    for i in range(count):
        if scores[i] < THRESHOLD["efficientdet_lite0"]:
            continue
        ymin, xmin, ymax, xmax = boxes[i]
        sx, sy = rgb.shape[1], rgb.shape[0]      # stretched: normalized to the picture too
        box = clamp(min(xmin, xmax) * sx, min(ymin, ymax) * sy, abs(xmax - xmin) * sx, abs(ymax - ymin) * sy, rgb)
        c = int(classes[i])    # Model Maker's label file has no background line: line c
        lines.append(f"{c} {labels[c]} " + " ".join(fmt(v) for v in (scores[i], *box)))
    (HERE / "efficientdet_lite0.expected").write_text("".join(ln + "\n" for ln in lines))
    return len(lines)


def main():
    rgb = picture()
    rgb.tofile(HERE / "picture.rgb")       # the element test's frame (rawvideoparse)
    cases = []
    # name, input size, multipose, seed, the input left open in the file (fed at 256)
    for name, size, multi, seed, open_size in (("movenet_lightning", 192, False, 1, False),
                                               ("movenet_thunder", 256, False, 2, False),
                                               ("movenet_multipose", 256, True, 3, False),
                                               ("movenet_multipose_open", 256, True, 5, True)):
        flat = movenet(size, multi, seed, open_size)
        (HERE / f"{name}.tflite").write_bytes(flat)
        input_name = "movenet_multipose" if open_size else name      # the same 256 input
        n = movenet_reference(name, flat, rgb, size, multi, input_name)
        cases.append(f"{name} {size} {THRESHOLD[name]} {n} {input_name}")
    flat = efficientdet(4)
    (HERE / "efficientdet_lite0.tflite").write_bytes(flat)
    n = efficientdet_reference(flat, rgb)     # sets its threshold
    cases.append(f"efficientdet_lite0 320 {THRESHOLD['efficientdet_lite0']} {n} efficientdet_lite0")
    (HERE / "cases.txt").write_text("# model input-size threshold results input (make_families.py)\n" +
                                    "".join(c + "\n" for c in cases))
    for c in cases:
        print(c)


if __name__ == "__main__":
    main()
