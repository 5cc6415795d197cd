#!/usr/bin/env python3
"""tensors-numpy.py - a model's raw output tensors in Python, post-processed with numpy.

`tflitefilter decoder=tensors` attaches every output tensor of each inference to the
buffer (GstTfliteMeta: name, dtype, shape, quantization, bytes). An appsink hands the
buffers to Python; GstTflite (the meta library's typelib) reads the tensors and numpy
takes their bytes without a copy (the tensor's GstBuffer mapped: a memoryview). Here the
custom post-processing is a classifier's top 5 (dequantized, softmax when the outputs
are logits), and the shape and value range of every other tensor:

    GST_PLUGIN_PATH=build/gst GI_TYPELIB_PATH=build/gst-libs/gst/tflitemeta LD_LIBRARY_PATH=build/gst-libs/gst/tflitemeta \\
      /usr/bin/python3 pipelines/examples/tensors-numpy.py \\
        ../shared/models/mobilenet_v2_1.0_224_quant.tflite tests/data/pictures/astronaut.png \\
        --labels ../shared/models/imagenet_labels_1001.txt

    frame 0: 1 tensor(s)
      MobilenetV2/Predictions/Softmax uint8 [1, 1001] scale 0.00390625 zero point 0
        top 5: 0.42 ... (class names from --labels)

Needs python3-gi, python3-gst-1.0 (Gst.Buffer.map as a context) and python3-numpy.
"""
import argparse
import contextlib
import sys

import gi
import numpy as np

gi.require_version('Gst', '1.0')
gi.require_version('GstTflite', '1.0')
from gi.repository import Gst, GstTflite  # noqa: E402


def tensor_array(tensor, stack):
    """The tensor's bytes as a numpy array of its dtype and shape, sharing the memory of
    the tensor's GstBuffer (read-only): valid until `stack` (a contextlib.ExitStack)
    closes, which unmaps the buffer."""
    info = stack.enter_context(tensor.get_buffer().map(Gst.MapFlags.READ))
    return np.frombuffer(info.data, dtype=tensor.get_dtype()).reshape(tensor.get_dims())


def real_values(tensor, a):
    """Dequantized (real = scale * (q - zero_point)) float32 values of a tensor array."""
    quantized, scale, zero_point = tensor.get_quantization()
    if quantized:
        return scale * (a.astype(np.float32) - zero_point)
    return a.astype(np.float32)


def top_k(values, k=5):
    """Best k (class, probability) of a [1, N] output: softmax unless it already holds
    probabilities (0..1, summing to about 1: an 8-bit softmax's small values round to 0)."""
    v = values.reshape(-1)
    if v.min() < 0 or v.max() > 1 or not 0.5 <= float(v.sum()) <= 1.5:
        e = np.exp(v - v.max())
        v = e / e.sum()
    best = np.argsort(-v)[:k]
    return [(int(i), float(v[i])) for i in best]


def run(model, on_frame, picture=None, size=None, props='', source=None, frames=1, launch=None):
    """Runs `model` with decoder=tensors and calls on_frame(index, frame, tensors) for each
    of the first `frames` frames: frame the pixels (an HxWx3 uint8 RGB copy), tensors a list
    of (GstTflite.Tensor, numpy array sharing the tensor's memory; valid during the call).
    `source`: a launch-line fragment giving RGB frames, else `picture` decoded (scaled to
    `size` = (w, h) when given); `launch`: a whole launch line instead, ending in RGB frames
    into "appsink name=sink". Returns the number of frames seen."""
    if source is None:
        scale = f'videoscale ! video/x-raw,width={size[0]},height={size[1]} ! ' if size else ''
        source = f'filesrc location="{picture}" ! decodebin ! videoconvert ! {scale}videoconvert'
    pipe = Gst.parse_launch(launch or f'{source} ! video/x-raw,format=RGB ! tflitefilter name=net model="{model}" '
                            f'decoder=tensors {props} ! appsink name=sink sync=false')
    sink = pipe.get_by_name('sink')
    pipe.set_state(Gst.State.PLAYING)
    n = 0
    try:
        while n < frames:
            sample = sink.emit('pull-sample')
            if sample is None:
                break
            buf = sample.get_buffer()
            caps = sample.get_caps().get_structure(0)
            w, h = caps.get_value('width'), caps.get_value('height')
            with contextlib.ExitStack() as stack:
                info = stack.enter_context(buf.map(Gst.MapFlags.READ))
                stride = (w * 3 + 3) // 4 * 4  # RGB rows are padded to 4 bytes
                frame = np.frombuffer(info.data, np.uint8).reshape(h, stride)[:, :w * 3].reshape(h, w, 3).copy()
                meta = GstTflite.buffer_get_meta(buf)
                tensors = [(t, tensor_array(t, stack))
                           for t in (meta.get_tensor(i) for i in range(meta.n_tensors() if meta else 0))]
                on_frame(n, frame, tensors)
            n += 1
    finally:
        msg = pipe.get_bus().pop_filtered(Gst.MessageType.ERROR)
        pipe.set_state(Gst.State.NULL)
    if msg:
        err, dbg = msg.parse_error()
        raise RuntimeError(f'{err.message} ({dbg})')
    return n


def describe(labels):
    """The example's post-processing: a classifier's top 5, else each tensor's range."""
    def on_frame(n, frame, tensors):
        print(f'frame {n}: {len(tensors)} tensor(s)')
        for t, a in tensors:
            quantized, scale, zp = t.get_quantization()
            q = f' scale {scale:g} zero point {zp}' if quantized else ''
            print(f'  {t.get_name()} {t.get_dtype()} {list(a.shape)}{q}')
            v = real_values(t, a)
            if a.ndim == 2 and a.shape[0] == 1 and a.shape[1] > 1:
                print('    top 5: ' + ', '.join(
                    f'{labels[c] if c < len(labels) else "#%d" % c} {p:.2f}' for c, p in top_k(v)))
            else:
                print(f'    values {float(v.min()):.4g} .. {float(v.max()):.4g}, mean {float(v.mean()):.4g}')
    return on_frame


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('model')
    ap.add_argument('picture')
    ap.add_argument('--labels', help='one class name per line')
    ap.add_argument('--props', default='', help='more tflitefilter properties, e.g. "delegate=cpu"')
    args = ap.parse_args(argv[1:])
    Gst.init(None)
    labels = open(args.labels).read().splitlines() if args.labels else []
    return 0 if run(args.model, describe(labels), args.picture, props=args.props) == 1 else 1


if __name__ == '__main__':
    sys.exit(main(sys.argv))
