#!/usr/bin/env python3
"""make_regress.py - hand-made hostile models, one per cause issue 12 lists, into regress/.

Each is a one-node (or two-node) model built with tests/opmodels/make_opmodels.py's Model and
`flatc -b` against our schema, named hand_<cause>.tflite. What the runtime must answer for
each (status and a part of the message) is in regress/expect.txt, beside the inputs the fuzzers
found. Re-running writes the same bytes (weights from a seeded generator).

Usage: tests/fuzz/make_regress.py
"""
import json
import os
import subprocess
import sys
import tempfile
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', 'opmodels'))
import make_opmodels as mo  # noqa: E402  (Model, schema)

OUT = os.path.join(HERE, 'regress')
CASES = {}


def case(name):
    def reg(fn):
        CASES[name] = fn
        return fn
    return reg


@case('unused_maxpool_output')
def _(m):
    # a MAX_POOL_2D nothing reads, the graph's output naming its input (the MediaPipe model
    # cut to 10 ops): XNNPACK dropped the unread value and asserted on the pooling node
    x = m.input([1, 4, 4, 2])
    y = m.tensor([1, 2, 2, 2])
    m.op('MAX_POOL_2D', [x], [y], 'Pool2DOptions', {'padding': 'VALID', 'stride_w': 2, 'stride_h': 2,
                                                    'filter_width': 2, 'filter_height': 2})
    m.outputs.append(x)


@case('no_graph_outputs')
def _(m):
    x = m.input([1, 4, 4, 2])
    y = m.tensor([1, 2, 2, 2])
    m.op('MAX_POOL_2D', [x], [y], 'Pool2DOptions', {'padding': 'VALID', 'stride_w': 2, 'stride_h': 2,
                                                    'filter_width': 2, 'filter_height': 2})


@case('q_conv_requant_below_xnnpack')
def _(m):
    # in_scale * w_scale / out_scale = 1e-12 < 2^-32: XNNPACK's requantization asserts
    x = m.input([1, 3, 3, 2], 'uint8', q=(1e-6, 128))
    w = m.const([2, 1, 1, 2], [1, 2, 3, 4], 'uint8', q=(1e-6, 0))
    b = m.const([2], [0, 0], 'int32', q=(1e-12, 0))
    y = m.tensor([1, 3, 3, 2], 'uint8', q=(1.0, 128))
    m.op('CONV_2D', [x, w, b], [y], 'Conv2DOptions', {'padding': 'VALID', 'stride_w': 1, 'stride_h': 1})
    m.output(y)


@case('q_add_zero_point_300')
def _(m):
    a = m.input([1, 4], 'uint8', q=(0.1, 300))
    b = m.input([1, 4], 'uint8', q=(0.1, 0))
    y = m.tensor([1, 4], 'uint8', q=(0.2, 0))
    m.op('ADD', [a, b], [y], 'AddOptions', {})
    m.output(y)


@case('q_concat_scale_inf')
def _(m):
    a = m.input([1, 4], 'uint8', q=(float('inf'), 0))
    b = m.input([1, 4], 'uint8', q=(0.1, 0))
    y = m.tensor([1, 8], 'uint8', q=(0.1, 0))
    m.op('CONCATENATION', [a, b], [y], 'ConcatenationOptions', {'axis': 1})
    m.output(y)


@case('q_concat_scale_zero')
def _(m):
    a = m.input([1, 4], 'uint8', q=(0.1, 0))
    b = m.input([1, 4], 'uint8', q=(0.1, 0))
    y = m.tensor([1, 8], 'uint8', q=(0.0, 0))
    m.op('CONCATENATION', [a, b], [y], 'ConcatenationOptions', {'axis': 1})
    m.output(y)


@case('tconv_stride_2097154')
def _(m):
    # input rows x stride = 2^31 + 2048: the kernel's output-size maths overflowed an int
    x = m.input([1, 1024, 1, 1])
    osh = m.const([4], [1, 4, 1, 1], 'int32')
    w = m.const([1, 3, 1, 1], [1.0, 2.0, 3.0])
    y = m.tensor([1, 4, 1, 1])
    m.op('TRANSPOSE_CONV', [osh, w, x], [y], 'TransposeConvOptions', {'padding': 'SAME', 'stride_h': 2097154,
                                                                      'stride_w': 1})
    m.output(y)


@case('image_tconv_stride_huge')
def _(m):
    # takes an image, so an element loads it; the stride fails the shape rules at prepare
    x = m.input([1, 64, 1, 3])
    osh = m.const([4], [1, 4, 1, 1], 'int32')
    w = m.const([1, 3, 1, 3], [0.1] * 9)
    y = m.tensor([1, 4, 1, 1])
    m.op('TRANSPOSE_CONV', [osh, w, x], [y], 'TransposeConvOptions', {'padding': 'SAME', 'stride_h': 4194304,
                                                                      'stride_w': 1})
    m.output(y)


@case('image_conv_uint8_weights_float_input')
def _(m):
    # valid values, but no CPU kernel runs float input with uint8 weights (hybrid takes
    # int8 only): refused when the interpreter is made (an element: at caps negotiation,
    # before any frame)
    x = m.input([1, 4, 4, 3])
    w = m.const([2, 1, 1, 3], [129, 126, 131, 132, 133, 122], 'uint8', q=(0.05, 128))
    y = m.tensor([1, 4, 4, 2])
    m.op('CONV_2D', [x, w], [y], 'Conv2DOptions', {'padding': 'VALID', 'stride_w': 1, 'stride_h': 1})
    m.output(y)


@case('zero_sized_add')
def _(m):
    a = m.input([1, 0, 4])
    b = m.input([1, 0, 4])
    y = m.tensor([1, 0, 4])
    m.op('ADD', [a, b], [y], 'AddOptions', {})
    m.output(y)


@case('tconv_prepare_fails_after_alloc')
def _(m):
    # int8 input, float weights: the kernel's type check comes after its state is allocated
    x = m.input([1, 2, 2, 1], 'int8', q=(0.1, 0))
    osh = m.const([4], [1, 4, 4, 1], 'int32')
    w = m.const([1, 3, 3, 1], [0.5] * 9)
    y = m.tensor([1, 4, 4, 1], 'int8', q=(0.1, 0))
    m.op('TRANSPOSE_CONV', [osh, w, x], [y], 'TransposeConvOptions', {'padding': 'SAME', 'stride_h': 2,
                                                                      'stride_w': 2})
    m.output(y)


@case('conv_prepare_fails_after_alloc')
def _(m):
    x = m.input([1, 3, 3, 1], 'int8', q=(0.1, 0))
    w = m.const([1, 1, 1, 1], [0.5])
    y = m.tensor([1, 3, 3, 1], 'int8', q=(0.1, 0))
    m.op('CONV_2D', [x, w], [y], 'Conv2DOptions', {'padding': 'VALID', 'stride_w': 1, 'stride_h': 1})
    m.output(y)


@case('dwconv_prepare_fails_after_alloc')
def _(m):
    x = m.input([1, 3, 3, 1], 'int8', q=(0.1, 0))
    w = m.const([1, 1, 1, 1], [0.5])
    y = m.tensor([1, 3, 3, 1], 'int8', q=(0.1, 0))
    m.op('DEPTHWISE_CONV_2D', [x, w], [y], 'DepthwiseConv2DOptions', {'padding': 'VALID', 'stride_w': 1,
                                                                      'stride_h': 1, 'depth_multiplier': 1})
    m.output(y)


@case('fc_prepare_fails_after_alloc')
def _(m):
    x = m.input([1, 4], 'int8', q=(0.1, 0))
    w = m.const([2, 4], [0.5] * 8)
    y = m.tensor([1, 2], 'int8', q=(0.1, 0))
    m.op('FULLY_CONNECTED', [x, w], [y], 'FullyConnectedOptions', {})
    m.output(y)


@case('quantize_prepare_fails_after_alloc')
def _(m):
    # per-channel scales along an axis whose size differs: checked after the state exists
    x = m.input([2, 3])
    y = m.tensor([2, 3], 'int8', q=([0.1, 0.2], [0, 0], 1))
    m.op('QUANTIZE', [x], [y], 'QuantizeOptions')
    m.output(y)


@case('unsupported_custom_op')
def _(m):
    # a valid model with an operator we do not have: the loader names it (and tflitefilter
    # puts that name in its error message itself, tests/gst/test_tflitefilter.c)
    x = m.input([1, 4, 4, 3])
    y = m.tensor([1, 4, 4, 3])
    m.op('CUSTOM', [x], [y], custom='MyFancyOp', custom_options=b'')
    m.output(y)


def main():
    os.makedirs(OUT, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        for name, build in sorted(CASES.items()):
            m = mo.Model(zlib.crc32(name.encode()))
            build(m)
            js = os.path.join(tmp, 'hand_%s.json' % name)
            with open(js, 'w') as f:
                json.dump(m.json(), f)
            subprocess.run(['flatc', '-b', '-o', OUT, mo.SCHEMA, js], check=True)
            print('regress/hand_%s.tflite' % name)


if __name__ == '__main__':
    main()
