#!/usr/bin/env python3
"""make_opmodels.py - tiny single-op .tflite models and their goldens.

Each case below describes a model (tensors, constant data from a seeded generator, one op or
a short chain) as JSON for our own schema (tflite_schema.fbs); `flatc -b` turns it into
models/<case>.tflite. The real TensorFlow Lite (../shared/oracle, `gauss --seed 1`) runs
it and its full outputs become golden/<case>.gauss.txt (tests/golden.c's format, stride 1).
Cases the oracle cannot run get a golden computed here by hand (`hand=`), or none (listed
in NOTES.md with the oracle's reason).

Some cases are models the official converter writes (`convert=` a cases_*.py that, run
with LITERT_PYTHON as `MODULE NAME OUT`, converts a tf.function: cases_spectral.py,
cases_dynamic.py); their goldens come from the native TensorFlow Lite like litert cases.

Quantized ops with int8 tensors sit between QUANTIZE and DEQUANTIZE (the oracle's JS API
maps only float32, int32 and uint8 inputs and outputs); their float outputs are compared
within one LSB of the int8 output scale (`lsb` in the golden).

Usage: tests/opmodels/make_opmodels.py [CASE_PREFIX ...]    (default: all)
"""
import json
import math
import os
import random
import struct
import subprocess
import sys
import tempfile
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, '..', '..'))
sys.path.insert(0, os.path.join(ROOT, 'tests', 'data'))
import make_golden  # noqa: E402  (golden writer, oracle wrapper)

SCHEMA = os.path.join(HERE, 'tflite_schema.fbs')
MODEL_DIR = os.path.join(HERE, 'models')
GOLDEN_DIR = os.path.join(HERE, 'golden')

TYPE_NUM = {'float32': 0, 'float16': 1, 'int32': 2, 'uint8': 3, 'int64': 4, 'bool': 6, 'int16': 7, 'int8': 9}
PACK = {'float32': 'f', 'float16': 'e', 'int32': 'i', 'uint8': 'B', 'int64': 'q', 'bool': '?', 'int16': 'h', 'int8': 'b'}


class Model:
    """A one-subgraph model under construction."""

    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.tensors, self.buffers, self.codes, self.ops = [], [{}], [], []
        self.inputs, self.outputs = [], []
        self.lsb = {}            # output position -> tolerance in real units

    def tensor(self, shape, type='float32', data=None, q=None, name=None, sparsity=None,
               variable=False):
        t = {'shape': list(shape), 'type': type.upper(), 'name': name or 't%d' % len(self.tensors)}
        if data is not None:
            raw = struct.pack('<%d%s' % (len(data), PACK[type]), *data)
            t['buffer'] = len(self.buffers)
            self.buffers.append({'data': list(raw)})
        if q:
            scale, zp = q[0], q[1]
            scale = scale if isinstance(scale, list) else [scale]
            zp = zp if isinstance(zp, list) else [zp] * len(scale)
            t['quantization'] = {'scale': scale, 'zero_point': zp, 'quantized_dimension': q[2] if len(q) > 2 else 0}
        if sparsity:
            t['sparsity'] = sparsity
        if variable:
            t['is_variable'] = True
        self.tensors.append(t)
        return len(self.tensors) - 1

    def input(self, shape, type='float32', q=None):
        i = self.tensor(shape, type, q=q, name='input%d' % len(self.inputs))
        self.inputs.append(i)
        return i

    def const(self, shape, data, type='float32', q=None):
        return self.tensor(shape, type, data=data, q=q)

    def weights(self, shape, lo=-0.5, hi=0.5):
        return self.const(shape, [self.rng.uniform(lo, hi) for _ in range(math.prod(shape))])

    def op(self, code, ins, outs, opt_type=None, opt=None, version=1, custom=None, custom_options=None):
        key = (code, custom, version)
        if key not in self.codes:
            self.codes.append(key)
        o = {'opcode_index': self.codes.index(key), 'inputs': ins, 'outputs': outs}
        if opt_type:
            o['builtin_options_type'] = opt_type
            o['builtin_options'] = opt or {}
        if custom_options is not None:
            o['custom_options'] = list(custom_options)
        self.ops.append(o)
        return outs[0] if outs else None

    def output(self, t, lsb=None):
        if lsb:
            self.lsb[len(self.outputs)] = lsb
        self.outputs.append(t)
        self.tensors[t]['name'] = 'output%d' % (len(self.outputs) - 1)

    def json(self):
        codes = []
        for code, custom, version in self.codes:
            num = BUILTIN[code]
            c = {'deprecated_builtin_code': min(num, 127), 'builtin_code': code, 'version': version}
            if custom:
                c['custom_code'] = custom
            codes.append(c)
        return {'version': 3, 'operator_codes': codes, 'description': 'gst-tflite single-op test model',
                'subgraphs': [{'tensors': self.tensors, 'inputs': self.inputs, 'outputs': self.outputs,
                               'operators': self.ops, 'name': 'main'}],
                'buffers': self.buffers}


BUILTIN = {  # TFLite BuiltinOperator codes (schema.fbs)
    'ADD': 0, 'AVERAGE_POOL_2D': 1, 'CONCATENATION': 2, 'CONV_2D': 3, 'DEPTHWISE_CONV_2D': 4,
    'DEPTH_TO_SPACE': 5, 'DEQUANTIZE': 6, 'EMBEDDING_LOOKUP': 7, 'FLOOR': 8, 'FULLY_CONNECTED': 9,
    'HASHTABLE_LOOKUP': 10, 'L2_NORMALIZATION': 11, 'L2_POOL_2D': 12,
    'LOCAL_RESPONSE_NORMALIZATION': 13, 'LOGISTIC': 14, 'LSH_PROJECTION': 15, 'LSTM': 16,
    'MAX_POOL_2D': 17, 'MUL': 18, 'RELU': 19, 'RELU_N1_TO_1': 20, 'RELU6': 21, 'RESHAPE': 22,
    'RESIZE_BILINEAR': 23, 'RNN': 24, 'SOFTMAX': 25, 'SPACE_TO_DEPTH': 26, 'SVDF': 27, 'TANH': 28,
    'CONCAT_EMBEDDINGS': 29, 'SKIP_GRAM': 30, 'CALL': 31, 'CUSTOM': 32,
    'EMBEDDING_LOOKUP_SPARSE': 33, 'PAD': 34, 'UNIDIRECTIONAL_SEQUENCE_RNN': 35, 'GATHER': 36,
    'BATCH_TO_SPACE_ND': 37, 'SPACE_TO_BATCH_ND': 38, 'TRANSPOSE': 39, 'MEAN': 40, 'SUB': 41,
    'DIV': 42, 'SQUEEZE': 43, 'UNIDIRECTIONAL_SEQUENCE_LSTM': 44, 'STRIDED_SLICE': 45,
    'BIDIRECTIONAL_SEQUENCE_RNN': 46, 'EXP': 47, 'TOPK_V2': 48, 'SPLIT': 49, 'LOG_SOFTMAX': 50,
    'DELEGATE': 51, 'BIDIRECTIONAL_SEQUENCE_LSTM': 52, 'CAST': 53, 'PRELU': 54, 'MAXIMUM': 55,
    'ARG_MAX': 56, 'MINIMUM': 57, 'LESS': 58, 'NEG': 59, 'PADV2': 60, 'GREATER': 61,
    'GREATER_EQUAL': 62, 'LESS_EQUAL': 63, 'SELECT': 64, 'SLICE': 65, 'SIN': 66,
    'TRANSPOSE_CONV': 67, 'SPARSE_TO_DENSE': 68, 'TILE': 69, 'EXPAND_DIMS': 70, 'EQUAL': 71,
    'NOT_EQUAL': 72, 'LOG': 73, 'SUM': 74, 'SQRT': 75, 'RSQRT': 76, 'SHAPE': 77, 'POW': 78,
    'ARG_MIN': 79, 'FAKE_QUANT': 80, 'REDUCE_PROD': 81, 'REDUCE_MAX': 82, 'PACK': 83,
    'LOGICAL_OR': 84, 'ONE_HOT': 85, 'LOGICAL_AND': 86, 'LOGICAL_NOT': 87, 'UNPACK': 88,
    'REDUCE_MIN': 89, 'FLOOR_DIV': 90, 'REDUCE_ANY': 91, 'SQUARE': 92, 'ZEROS_LIKE': 93,
    'FILL': 94, 'FLOOR_MOD': 95, 'RANGE': 96, 'RESIZE_NEAREST_NEIGHBOR': 97, 'LEAKY_RELU': 98,
    'SQUARED_DIFFERENCE': 99, 'MIRROR_PAD': 100, 'ABS': 101, 'SPLIT_V': 102, 'UNIQUE': 103,
    'CEIL': 104, 'REVERSE_V2': 105, 'ADD_N': 106, 'GATHER_ND': 107, 'COS': 108, 'WHERE': 109,
    'RANK': 110, 'ELU': 111, 'REVERSE_SEQUENCE': 112, 'MATRIX_DIAG': 113, 'QUANTIZE': 114,
    'MATRIX_SET_DIAG': 115, 'ROUND': 116, 'HARD_SWISH': 117, 'IF': 118, 'WHILE': 119,
    'NON_MAX_SUPPRESSION_V4': 120, 'NON_MAX_SUPPRESSION_V5': 121, 'SCATTER_ND': 122,
    'SELECT_V2': 123, 'DENSIFY': 124, 'SEGMENT_SUM': 125, 'BATCH_MATMUL': 126,
    'PLACEHOLDER_FOR_GREATER_OP_CODES': 127, 'CUMSUM': 128, 'CALL_ONCE': 129, 'BROADCAST_TO': 130,
    'RFFT2D': 131, 'CONV_3D': 132, 'IMAG': 133, 'REAL': 134, 'COMPLEX_ABS': 135, 'HASHTABLE': 136,
    'HASHTABLE_FIND': 137, 'HASHTABLE_IMPORT': 138, 'HASHTABLE_SIZE': 139, 'REDUCE_ALL': 140,
    'CONV_3D_TRANSPOSE': 141, 'VAR_HANDLE': 142, 'READ_VARIABLE': 143, 'ASSIGN_VARIABLE': 144,
    'BROADCAST_ARGS': 145, 'RANDOM_STANDARD_NORMAL': 146, 'BUCKETIZE': 147, 'RANDOM_UNIFORM': 148,
    'MULTINOMIAL': 149, 'GELU': 150, 'DYNAMIC_UPDATE_SLICE': 151, 'RELU_0_TO_1': 152,
    'UNSORTED_SEGMENT_PROD': 153, 'UNSORTED_SEGMENT_MAX': 154, 'UNSORTED_SEGMENT_SUM': 155,
    'ATAN2': 156, 'UNSORTED_SEGMENT_MIN': 157, 'SIGN': 158, 'BITCAST': 159, 'BITWISE_XOR': 160,
    'RIGHT_SHIFT': 161,
}

ACT = {None: 'NONE', 'relu': 'RELU', 'relu1': 'RELU_N1_TO_1', 'relu6': 'RELU6', 'tanh': 'TANH', 'sign_bit': 'SIGN_BIT'}


def out_size(n, k, s, d, pad):
    ek = (k - 1) * d + 1
    return (n + s - 1) // s if pad == 'SAME' else (n - ek + s) // s


# ---------------------------------------------------------------- float cases

CASES = {}


def case(name, **kw):
    def reg(fn):
        CASES[name] = (fn, kw)
        return fn
    return reg


def litert_case(name, **kw):
    """A case whose golden comes from the native TensorFlow Lite (litert_run.py), which
    feeds and reads every type: no QUANTIZE/DEQUANTIZE wrapping needed."""
    return case(name, litert=True, **kw)


def binary(code, opt_type, a_shape, b_shape, b_const=False, act=None, version=1):
    def build(m):
        a = m.input(a_shape)
        if b_const:
            n = math.prod(b_shape)
            vals = [m.rng.uniform(0.5, 2.0) * m.rng.choice((-1, 1)) for _ in range(n)]
            b = m.const(b_shape, vals)
        else:
            b = m.input(b_shape)
        shape = [max(x, y) for x, y in zip([1] * (len(b_shape) - len(a_shape)) + list(a_shape),
                                           [1] * (len(a_shape) - len(b_shape)) + list(b_shape))]
        out = m.tensor(shape)
        opt = {'fused_activation_function': ACT[act]} if opt_type != 'MaximumMinimumOptions' else {}
        m.op(code, [a, b], [out], opt_type, opt, version)
        m.output(out)
    return build


for code, opt in (('ADD', 'AddOptions'), ('SUB', 'SubOptions'), ('MUL', 'MulOptions'),
                  ('DIV', 'DivOptions'), ('MAXIMUM', 'MaximumMinimumOptions'),
                  ('MINIMUM', 'MaximumMinimumOptions')):
    lc = code.lower()
    const_b = code == 'DIV'   # a Gaussian divisor near 0 makes a useless reference
    CASES[lc + '_same'] = (binary(code, opt, [1, 4, 5, 3], [1, 4, 5, 3], b_const=const_b), {})
    CASES[lc + '_bcast_channel'] = (binary(code, opt, [1, 4, 5, 3], [3], b_const=True), {})
    if not const_b:
        CASES[lc + '_bcast_4d'] = (binary(code, opt, [1, 4, 1, 3], [2, 1, 5, 1], version=2 if code in ('ADD', 'MUL', 'SUB') else 1), {})
        CASES[lc + '_bcast_scalar'] = (binary(code, opt, [2, 7], [1]), {})
    if opt != 'MaximumMinimumOptions':
        for act in ('relu', 'relu6', 'relu1'):
            CASES['%s_%s' % (lc, act)] = (binary(code, opt, [1, 3, 4, 5], [1, 3, 4, 5], b_const=const_b, act=act), {})


def pool(code, shape, k, s, pad, act=None):
    def build(m):
        x = m.input(shape)
        out = m.tensor([shape[0], out_size(shape[1], k[0], s[0], 1, pad), out_size(shape[2], k[1], s[1], 1, pad), shape[3]])
        m.op(code, [x], [out], 'Pool2DOptions', {'padding': pad, 'stride_h': s[0], 'stride_w': s[1],
                                                 'filter_height': k[0], 'filter_width': k[1],
                                                 'fused_activation_function': ACT[act]})
        m.output(out)
    return build


for code in ('AVERAGE_POOL_2D', 'MAX_POOL_2D'):
    p = 'avgpool' if code.startswith('AVERAGE') else 'maxpool'
    CASES[p + '_2x2_s2_valid'] = (pool(code, [1, 6, 8, 3], (2, 2), (2, 2), 'VALID'), {})
    CASES[p + '_3x3_s2_same'] = (pool(code, [1, 7, 9, 4], (3, 3), (2, 2), 'SAME'), {})
    CASES[p + '_3x3_s1_same'] = (pool(code, [1, 5, 5, 2], (3, 3), (1, 1), 'SAME'), {})
    CASES[p + '_3x2_s2x1_valid_relu6'] = (pool(code, [2, 7, 6, 3], (3, 2), (2, 1), 'VALID', 'relu6'), {})


def concat(shapes, axis, act=None):
    def build(m):
        xs = [m.input(s) for s in shapes]
        ax = axis % len(shapes[0])
        shape = list(shapes[0])
        shape[ax] = sum(s[ax] for s in shapes)
        out = m.tensor(shape)
        m.op('CONCATENATION', xs, [out], 'ConcatenationOptions', {'axis': axis, 'fused_activation_function': ACT[act]})
        m.output(out)
    return build


CASES['concat_axis3'] = (concat([[1, 3, 4, 2], [1, 3, 4, 5], [1, 3, 4, 1]], 3), {})
CASES['concat_axis1'] = (concat([[1, 2, 4, 3], [1, 5, 4, 3]], 1), {})
CASES['concat_axis_neg1_relu'] = (concat([[2, 6], [2, 3]], -1, 'relu'), {})
CASES['concat_axis0'] = (concat([[1, 2, 3], [2, 2, 3]], 0), {})
# fused activations TFLite's kernels ignore (TANH, SIGN_BIT on arithmetic, pools and
# convolutions: no clamp) or refuse (FULLY_CONNECTED's TANH on float weights: refused.txt)
CASES['mul_tanh_ignored'] = (binary('MUL', 'MulOptions', [1, 3, 4, 5], [1, 3, 4, 5], act='tanh'), {'litert': True})
CASES['add_sign_bit_ignored'] = (binary('ADD', 'AddOptions', [1, 3, 4, 5], [1, 3, 4, 5], act='sign_bit'),
                                 {'litert': True})


def conv(shape, cout, k, s, pad, d=(1, 1), act=None, bias=True):
    def build(m):
        x = m.input(shape)
        w = m.weights([cout, k[0], k[1], shape[3]])
        # no bias: two inputs (TFLite's CONV_2D rejects a -1 third input)
        ins = [x, w, m.weights([cout])] if bias else [x, w]
        out = m.tensor([shape[0], out_size(shape[1], k[0], s[0], d[0], pad), out_size(shape[2], k[1], s[1], d[1], pad), cout])
        m.op('CONV_2D', ins, [out], 'Conv2DOptions', {
            'padding': pad, 'stride_h': s[0], 'stride_w': s[1], 'dilation_h_factor': d[0],
            'dilation_w_factor': d[1], 'fused_activation_function': ACT[act]}, version=2 if d != (1, 1) else 1)
        m.output(out)
    return build


CASES['conv_3x3_s1_same_relu'] = (conv([1, 6, 7, 3], 4, (3, 3), (1, 1), 'SAME', act='relu'), {})
CASES['conv_3x3_s2_valid'] = (conv([1, 9, 8, 2], 5, (3, 3), (2, 2), 'VALID'), {})
CASES['conv_3x3_s2_same_relu6'] = (conv([2, 8, 9, 3], 3, (3, 3), (2, 2), 'SAME', act='relu6'), {})
CASES['conv_1x1'] = (conv([1, 4, 5, 8], 6, (1, 1), (1, 1), 'VALID'), {})
CASES['conv_5x3_s2x1_same_relu1'] = (conv([1, 9, 6, 2], 3, (5, 3), (2, 1), 'SAME', act='relu1'), {})
CASES['conv_3x3_dilation2_same'] = (conv([1, 9, 9, 2], 3, (3, 3), (1, 1), 'SAME', d=(2, 2)), {})
CASES['conv_3x3_dilation2x3_valid'] = (conv([1, 10, 11, 3], 2, (3, 3), (1, 1), 'VALID', d=(2, 3)), {})


def dwconv(shape, mult, k, s, pad, d=(1, 1), act=None):
    def build(m):
        x = m.input(shape)
        cout = shape[3] * mult
        w = m.weights([1, k[0], k[1], cout])
        b = m.weights([cout])
        out = m.tensor([shape[0], out_size(shape[1], k[0], s[0], d[0], pad), out_size(shape[2], k[1], s[1], d[1], pad), cout])
        m.op('DEPTHWISE_CONV_2D', [x, w, b], [out], 'DepthwiseConv2DOptions', {
            'padding': pad, 'stride_h': s[0], 'stride_w': s[1], 'depth_multiplier': mult,
            'dilation_h_factor': d[0], 'dilation_w_factor': d[1], 'fused_activation_function': ACT[act]},
            version=2 if d != (1, 1) else 1)
        m.output(out)
    return build


# large enough for the CPU fast path to hand them to oneDNN (delegates/cpu/onednn_conv.c)
CASES['conv_3x3_s1_same_relu_large'] = (conv([1, 28, 24, 16], 24, (3, 3), (1, 1), 'SAME', act='relu'), {})
CASES['dwconv_5x5_m1_same_relu6_large'] = (dwconv([1, 32, 30, 24], 1, (5, 5), (1, 1), 'SAME', act='relu6'), {})


def pad_then(op_build, shape, pads):
    """A PAD (spatial, zeros) and a conv reading only it: the fast path pads in the conv."""
    def build(m):
        x = m.input(shape)
        p = m.const([4, 2], [0, 0, pads[0], pads[1], pads[2], pads[3], 0, 0], 'int32')
        padded = [shape[0], shape[1] + pads[0] + pads[1], shape[2] + pads[2] + pads[3], shape[3]]
        y = m.tensor(padded)
        m.op('PAD', [x, p], [y], 'PadOptions')
        op_build(m, y, padded)
    return build


def conv_on(cout, k, s, act=None):
    def build(m, x, shape):
        w = m.weights([cout, k, k, shape[3]])
        out = m.tensor([shape[0], out_size(shape[1], k, s, 1, 'VALID'), out_size(shape[2], k, s, 1, 'VALID'), cout])
        m.op('CONV_2D', [x, w, m.weights([cout])], [out], 'Conv2DOptions', {
            'padding': 'VALID', 'stride_h': s, 'stride_w': s, 'fused_activation_function': ACT[act]})
        m.output(out)
    return build


def dwconv_on(k, s, act=None):
    def build(m, x, shape):
        w = m.weights([1, k, k, shape[3]])
        out = m.tensor([shape[0], out_size(shape[1], k, s, 1, 'VALID'), out_size(shape[2], k, s, 1, 'VALID'), shape[3]])
        m.op('DEPTHWISE_CONV_2D', [x, w, m.weights([shape[3]])], [out], 'DepthwiseConv2DOptions', {
            'padding': 'VALID', 'stride_h': s, 'stride_w': s, 'depth_multiplier': 1,
            'fused_activation_function': ACT[act]})
        m.output(out)
    return build


def conv_then_add(dw, act=None, add_act=None):
    """A conv (or depthwise) whose output only an ADD with the conv's own input reads (a
    residual): the fast path has oneDNN write the sum (binary post-op)."""
    def build(m):
        shape = [1, 24, 22, 32]
        x = m.input(shape)
        y = m.tensor(shape)
        if dw:
            m.op('DEPTHWISE_CONV_2D', [x, m.weights([1, 3, 3, 32]), m.weights([32])], [y], 'DepthwiseConv2DOptions', {
                'padding': 'SAME', 'stride_h': 1, 'stride_w': 1, 'depth_multiplier': 1,
                'fused_activation_function': ACT[act]})
        else:
            m.op('CONV_2D', [x, m.weights([32, 1, 1, 32]), m.weights([32])], [y], 'Conv2DOptions', {
                'padding': 'SAME', 'stride_h': 1, 'stride_w': 1, 'fused_activation_function': ACT[act]})
        out = m.tensor(shape)
        m.op('ADD', [y, x], [out], 'AddOptions', {'fused_activation_function': ACT[add_act]})
        m.output(out)
    return build


CASES['conv_1x1_add_relu6'] = (conv_then_add(False, add_act='relu6'), {})
CASES['dwconv_3x3_relu_add'] = (conv_then_add(True, act='relu'), {})
def dwconv_then(ops, residual=False):
    """A depthwise conv (large enough for oneDNN) followed by an ADD of its input and/or
    activation nodes, which the fast path folds into the conv as post-ops."""
    def build(m):
        shape = [1, 32, 30, 24]
        x = m.input(shape)
        y = m.tensor(shape)
        m.op('DEPTHWISE_CONV_2D', [x, m.weights([1, 5, 5, 24]), m.weights([24])], [y], 'DepthwiseConv2DOptions', {
            'padding': 'SAME', 'stride_h': 1, 'stride_w': 1, 'depth_multiplier': 1})
        if residual:
            s = m.tensor(shape)
            m.op('ADD', [x, y], [s], 'AddOptions', {})
            y = s
        for op in ops:
            z = m.tensor(shape)
            m.op(op, [y], [z])
            y = z
        m.output(y)
    return build


CASES['dwconv_5x5_hard_swish'] = (dwconv_then(['HARD_SWISH']), {})
CASES['dwconv_5x5_add_relu'] = (dwconv_then(['RELU'], residual=True), {})
CASES['dwconv_5x5_logistic'] = (dwconv_then(['LOGISTIC']), {})
CASES['pad_conv_3x3_s2_valid'] = (pad_then(conv_on(32, 3, 2, act='relu6'), [1, 64, 62, 16], (1, 1, 1, 1)), {})
CASES['pad_dwconv_5x5_s2_valid_asym'] = (pad_then(dwconv_on(5, 2), [1, 64, 60, 16], (1, 2, 2, 1)), {})

CASES['dwconv_3x3_m1_same_relu6'] = (dwconv([1, 7, 6, 4], 1, (3, 3), (1, 1), 'SAME', act='relu6'), {})
CASES['dwconv_3x3_m2_s2_valid'] = (dwconv([1, 9, 8, 3], 2, (3, 3), (2, 2), 'VALID'), {})
CASES['dwconv_5x5_m1_s2_same'] = (dwconv([2, 9, 9, 5], 1, (5, 5), (2, 2), 'SAME'), {})
CASES['dwconv_3x3_m2_dilation2_same'] = (dwconv([1, 9, 10, 2], 2, (3, 3), (1, 1), 'SAME', d=(2, 2)), {})
CASES['dwconv_3x3_m1_dilation3_valid_relu'] = (dwconv([1, 11, 10, 3], 1, (3, 3), (1, 1), 'VALID', d=(3, 2), act='relu'), {})


def unary(code, shape, opt_type=None, opt=None, version=1, scale=1.0):
    def build(m):
        x = m.input(shape)
        if scale != 1.0:   # widen the Gaussian input (e.g. so RELU6 and HARD_SWISH see > 6 or < -3)
            c = m.const([1], [scale])
            y = m.tensor(shape)
            m.op('MUL', [x, c], [y], 'MulOptions', {})
            x = y
        out = m.tensor(shape)
        m.op(code, [x], [out], opt_type, opt, version)
        m.output(out)
    return build


CASES['exp'] = (unary('EXP', [2, 3, 5], 'ExpOptions'), {})
CASES['logistic'] = (unary('LOGISTIC', [1, 4, 4, 3], scale=4.0), {})
CASES['tanh'] = (unary('TANH', [1, 4, 4, 3], scale=2.0), {})
CASES['relu'] = (unary('RELU', [1, 4, 5, 3]), {})
CASES['relu6'] = (unary('RELU6', [1, 4, 5, 3], scale=5.0), {})
CASES['hard_swish'] = (unary('HARD_SWISH', [1, 4, 5, 3], 'HardSwishOptions', scale=4.0), {})


def fully_connected(in_shape, units, keep=False, bias=True, act=None):
    def build(m):
        x = m.input(in_shape)
        depth = in_shape[-1]
        w = m.weights([units, depth])
        b = m.weights([units]) if bias else -1
        shape = list(in_shape[:-1]) + [units] if keep else [math.prod(in_shape) // depth, units]
        out = m.tensor(shape)
        m.op('FULLY_CONNECTED', [x, w, b], [out], 'FullyConnectedOptions',
             {'fused_activation_function': ACT[act], 'keep_num_dims': keep}, version=5 if keep else 1)
        m.output(out)
    return build


CASES['fc_2d_relu'] = (fully_connected([2, 8], 5, act='relu'), {})
CASES['fc_keep_num_dims'] = (fully_connected([1, 3, 8], 4, keep=True), {})
CASES['fc_flatten_no_bias'] = (fully_connected([1, 2, 3, 4], 6, bias=False), {})
CASES['fc_float_tanh_refused'] = (fully_connected([2, 8], 5, act='tanh'), {'litert': True})  # refused.txt


@case('pad_4d')
def _(m):
    x = m.input([1, 3, 4, 2])
    p = m.const([4, 2], [0, 0, 1, 2, 2, 1, 0, 1], 'int32')
    out = m.tensor([1, 6, 7, 3])
    m.op('PAD', [x, p], [out], 'PadOptions')
    m.output(out)


@case('pad_2d')
def _(m):
    x = m.input([3, 5])
    p = m.const([2, 2], [2, 0, 1, 3], 'int32')
    out = m.tensor([5, 9])
    m.op('PAD', [x, p], [out], 'PadOptions')
    m.output(out)


@case('prelu_channel')
def _(m):
    x = m.input([1, 4, 5, 3])
    a = m.weights([1, 1, 3], 0.0, 0.5)
    out = m.tensor([1, 4, 5, 3])
    m.op('PRELU', [x, a], [out])
    m.output(out)


@case('prelu_full')
def _(m):
    x = m.input([1, 2, 3, 4])
    a = m.weights([2, 3, 4], -0.3, 0.6)
    out = m.tensor([1, 2, 3, 4])
    m.op('PRELU', [x, a], [out])
    m.output(out)


@case('reshape_option')
def _(m):
    x = m.input([1, 4, 6, 2])
    out = m.tensor([1, 8, 6])
    m.op('RESHAPE', [x], [out], 'ReshapeOptions', {'new_shape': [1, 8, 6]})
    m.output(out)


@case('reshape_shape_tensor_minus1')
def _(m):
    x = m.input([2, 3, 4])
    s = m.const([2], [-1, 6], 'int32')
    out = m.tensor([4, 6])
    m.op('RESHAPE', [x, s], [out], 'ReshapeOptions', {'new_shape': [-1, 6]})
    m.output(out)


def resize(code, opt_type, shape, size, align=False, half=False, version=1):
    def build(m):
        x = m.input(shape)
        s = m.const([2], size, 'int32')
        out = m.tensor([shape[0], size[0], size[1], shape[3]])
        opt = {'align_corners': align, 'half_pixel_centers': half}
        m.op(code, [x, s], [out], opt_type, opt, version)
        m.output(out)
    return build


CASES['resize_bilinear_up'] = (resize('RESIZE_BILINEAR', 'ResizeBilinearOptions', [1, 4, 5, 3], [9, 7]), {})
CASES['resize_bilinear_down'] = (resize('RESIZE_BILINEAR', 'ResizeBilinearOptions', [1, 9, 8, 2], [4, 3]), {})
CASES['resize_bilinear_align_corners'] = (resize('RESIZE_BILINEAR', 'ResizeBilinearOptions', [1, 4, 5, 3], [9, 7], align=True, version=2), {})
CASES['resize_bilinear_half_pixel'] = (resize('RESIZE_BILINEAR', 'ResizeBilinearOptions', [1, 4, 5, 3], [9, 7], half=True, version=3), {})
CASES['resize_bilinear_half_pixel_down'] = (resize('RESIZE_BILINEAR', 'ResizeBilinearOptions', [2, 9, 8, 2], [4, 3], half=True, version=3), {})
CASES['resize_nearest_up'] = (resize('RESIZE_NEAREST_NEIGHBOR', 'ResizeNearestNeighborOptions', [1, 4, 5, 3], [9, 7]), {})
CASES['resize_nearest_align_corners'] = (resize('RESIZE_NEAREST_NEIGHBOR', 'ResizeNearestNeighborOptions', [1, 4, 5, 3], [9, 7], align=True, version=3), {})
CASES['resize_nearest_half_pixel'] = (resize('RESIZE_NEAREST_NEIGHBOR', 'ResizeNearestNeighborOptions', [1, 5, 4, 2], [3, 9], half=True, version=3), {})


def softmax(shape, beta):
    def build(m):
        x = m.input(shape)
        out = m.tensor(shape)
        m.op('SOFTMAX', [x], [out], 'SoftmaxOptions', {'beta': beta})
        m.output(out)
    return build


CASES['softmax_2d'] = (softmax([3, 10], 1.0), {})
CASES['softmax_4d_beta0.5'] = (softmax([1, 2, 3, 7], 0.5), {})
CASES['softmax_beta2'] = (softmax([2, 16], 2.0), {})


def strided_slice(shape, begin, end, strides, out_shape, **masks):
    def build(m):
        x = m.input(shape)
        n = len(begin)
        b = m.const([n], begin, 'int32')
        e = m.const([n], end, 'int32')
        s = m.const([n], strides, 'int32')
        out = m.tensor(out_shape)
        opt = {k: masks.get(k, 0) for k in ('begin_mask', 'end_mask', 'ellipsis_mask', 'new_axis_mask', 'shrink_axis_mask')}
        m.op('STRIDED_SLICE', [x, b, e, s], [out], 'StridedSliceOptions', opt)
        m.output(out)
    return build


CASES['strided_slice_basic'] = (strided_slice([1, 6, 7, 3], [0, 1, 2, 0], [1, 5, 7, 2], [1, 1, 2, 1], [1, 4, 3, 2]), {})
CASES['strided_slice_masks'] = (strided_slice([2, 6, 7, 4], [1, 2, 0, 1], [0, 0, 5, 3], [1, 2, 1, 1], [2, 2, 5, 2], begin_mask=1, end_mask=3), {})
CASES['strided_slice_negative'] = (strided_slice([1, 6, 5, 3], [0, -1, 4, 0], [1, -7, 0, 3], [1, -2, -1, 1], [1, 3, 4, 3]), {})
CASES['strided_slice_shrink'] = (strided_slice([1, 6, 7, 3], [0, 2, 0, 1], [1, 3, 7, 2], [1, 1, 1, 1], [7], shrink_axis_mask=11), {})


def transpose_conv(shape, cout, k, s, pad, bias=True, act=None):
    def build(m):
        x = m.input(shape)
        oh = shape[1] * s[0] if pad == 'SAME' else (shape[1] - 1) * s[0] + k[0]
        ow = shape[2] * s[1] if pad == 'SAME' else (shape[2] - 1) * s[1] + k[1]
        osh = m.const([4], [shape[0], oh, ow, cout], 'int32')
        w = m.weights([cout, k[0], k[1], shape[3]])
        ins = [osh, w, x]
        if bias:
            ins.append(m.weights([cout]))
        out = m.tensor([shape[0], oh, ow, cout])
        opt = {'padding': pad, 'stride_h': s[0], 'stride_w': s[1]}
        if act:
            opt['fused_activation_function'] = ACT[act]
        m.op('TRANSPOSE_CONV', ins, [out], 'TransposeConvOptions', opt, version=3 if bias else 1)
        m.output(out)
    return build


CASES['transpose_conv_3x3_s2_same'] = (transpose_conv([1, 4, 5, 3], 2, (3, 3), (2, 2), 'SAME', bias=False), {})
CASES['transpose_conv_4x4_s2_same_bias'] = (transpose_conv([1, 3, 4, 2], 3, (4, 4), (2, 2), 'SAME'), {})
CASES['transpose_conv_3x3_s2_valid_bias'] = (transpose_conv([1, 3, 3, 2], 2, (3, 3), (2, 2), 'VALID'), {})
CASES['transpose_conv_2x2_s1_valid'] = (transpose_conv([2, 3, 4, 3], 4, (2, 2), (1, 1), 'VALID', bias=False), {})


@case('dequantize_fp16')
def _(m):
    x = m.input([2, 3, 4])
    w = m.const([2, 3, 4], [m.rng.uniform(-2, 2) for _ in range(24)], 'float16')
    wf = m.tensor([2, 3, 4])
    m.op('DEQUANTIZE', [w], [wf], 'DequantizeOptions', version=3)
    out = m.tensor([2, 3, 4])
    m.op('ADD', [x, wf], [out], 'AddOptions', {})
    m.output(out)


@case('dequantize_int8_const')
def _(m):
    x = m.input([2, 10])
    w = m.const([2, 10], [m.rng.randint(-128, 127) for _ in range(20)], 'int8', q=(0.02, -5))
    wf = m.tensor([2, 10])
    m.op('DEQUANTIZE', [w], [wf], 'DequantizeOptions', version=2)
    out = m.tensor([2, 10])
    m.op('MUL', [x, wf], [out], 'MulOptions', {})
    m.output(out)


@case('dequantize_uint8_input')
def _(m):
    x = m.input([1, 3, 4, 5], 'uint8', q=(0.05, 120))
    out = m.tensor([1, 3, 4, 5])
    m.op('DEQUANTIZE', [x], [out], 'DequantizeOptions')
    m.output(out)


@case('quantize_uint8')
def _(m):
    x = m.input([1, 4, 5, 3])
    out = m.tensor([1, 4, 5, 3], 'uint8', q=(0.02, 128))
    m.op('QUANTIZE', [x], [out], 'QuantizeOptions')
    m.output(out)


@case('quantize_int8_roundtrip')
def _(m):
    x = m.input([1, 4, 5, 3])
    q = m.tensor([1, 4, 5, 3], 'int8', q=(0.03, -10))
    m.op('QUANTIZE', [x], [q], 'QuantizeOptions', version=2)
    out = m.tensor([1, 4, 5, 3])
    m.op('DEQUANTIZE', [q], [out], 'DequantizeOptions', version=2)
    m.output(out, lsb=0.03)


@litert_case('quantize_int8_saturate_roundtrip')
def _(m):
    """QUANTIZE -> DEQUANTIZE through an int8 range of +-0.64: most Gaussian inputs saturate
    (a fake quantization's clamp)"""
    x = m.input([1, 4, 5, 3])
    q = m.tensor([1, 4, 5, 3], 'int8', q=(0.005, 0))
    m.op('QUANTIZE', [x], [q], 'QuantizeOptions', version=2)
    out = m.tensor([1, 4, 5, 3])
    m.op('DEQUANTIZE', [q], [out], 'DequantizeOptions', version=2)
    m.output(out)


def mean(shape, axes, keep):
    def build(m):
        x = m.input(shape)
        a = m.const([len(axes)], axes, 'int32')
        out_shape = [1 if i in axes else d for i, d in enumerate(shape)] if keep else \
            [d for i, d in enumerate(shape) if i not in axes]
        out = m.tensor(out_shape)
        m.op('MEAN', [x, a], [out], 'ReducerOptions', {'keep_dims': keep})
        m.output(out)
    return build


CASES['mean_hw_keep_dims'] = (mean([1, 5, 6, 4], [1, 2], True), {})
CASES['mean_hw'] = (mean([2, 5, 6, 3], [1, 2], False), {})
CASES['mean_channels'] = (mean([1, 3, 4, 7], [3], True), {})


@case('squeeze_dims')
def _(m):
    x = m.input([1, 3, 1, 4])
    out = m.tensor([1, 3, 4])
    m.op('SQUEEZE', [x], [out], 'SqueezeOptions', {'squeeze_dims': [2]})
    m.output(out)


@case('squeeze_all')
def _(m):
    x = m.input([1, 1, 1, 6])
    out = m.tensor([6])
    m.op('SQUEEZE', [x], [out], 'SqueezeOptions', {})
    m.output(out)


@case('depth_to_space_2')
def _(m):
    x = m.input([1, 3, 4, 8])
    out = m.tensor([1, 6, 8, 2])
    m.op('DEPTH_TO_SPACE', [x], [out], 'DepthToSpaceOptions', {'block_size': 2})
    m.output(out)


@case('arg_max_channels')
def _(m):
    x = m.input([1, 4, 5, 7])
    a = m.const([1], [3], 'int32')
    out = m.tensor([1, 4, 5], 'int32')
    m.op('ARG_MAX', [x, a], [out], 'ArgMaxOptions', {'output_type': 'INT32'})
    m.output(out)


@case('arg_max_axis1')
def _(m):
    x = m.input([2, 9, 3])
    a = m.const([1], [1], 'int32')
    out = m.tensor([2, 3], 'int32')
    m.op('ARG_MAX', [x, a], [out], 'ArgMaxOptions', {'output_type': 'INT32'})
    m.output(out)


@case('densify_fc')
def _(m):
    # a [6, 8] weight matrix stored sparse (rows dense, columns CSR), densified, used by FC
    rows, cols = 6, 8
    dense = [[m.rng.uniform(-1, 1) if m.rng.random() < 0.4 else 0.0 for _ in range(cols)] for _ in range(rows)]
    segments, indices, values = [0], [], []
    for r in dense:
        for c, v in enumerate(r):
            if v != 0.0:
                indices.append(c)
                values.append(v)
        segments.append(len(indices))
    sparsity = {'traversal_order': [0, 1], 'dim_metadata': [
        {'format': 'DENSE', 'dense_size': rows},
        {'format': 'SPARSE_CSR', 'array_segments_type': 'Int32Vector', 'array_segments': {'values': segments},
         'array_indices_type': 'Int32Vector', 'array_indices': {'values': indices}}]}
    w_sparse = m.tensor([rows, cols], data=values, sparsity=sparsity)
    w = m.tensor([rows, cols])
    m.op('DENSIFY', [w_sparse], [w], 'DensifyOptions')
    x = m.input([2, cols])
    out = m.tensor([2, rows])
    m.op('FULLY_CONNECTED', [x, w, -1], [out], 'FullyConnectedOptions', {})
    m.output(out)


def logical_and_hand(m, z):
    a = [v > 0 for v in z[0:24]]
    b = [v > 0 for v in z[24:27]]
    return [('bool', [2, 3, 4], [a[i] and b[(i // 4) % 3] for i in range(24)])]


@case('logical_and', hand=logical_and_hand, why='golden computed here: the oracle cannot feed or read bool tensors')
def _(m):
    a = m.input([2, 3, 4], 'bool')
    b = m.input([3, 1], 'bool')
    out = m.tensor([2, 3, 4], 'bool')
    m.op('LOGICAL_AND', [a, b], [out], 'LogicalAndOptions', version=1)
    m.output(out)


@case('conv2d_transpose_bias')
def _(m):
    # MediaPipe's custom op: options are a raw struct of int32 padding, stride_w, stride_h
    x = m.input([1, 4, 5, 3])
    w = m.weights([2, 4, 4, 3])
    b = m.weights([2])
    out = m.tensor([1, 8, 10, 2])
    # TfLitePadding: 1 SAME, 2 VALID; strides w, h = 2
    m.op('CUSTOM', [x, w, b], [out], custom='Convolution2DTransposeBias', custom_options=struct.pack('<iii', 1, 2, 2))
    m.output(out)


def lstm_basic(m):
    # TFLite's basic LSTM cell: inputs x, prev_activation, weights [4N, I+N], biases [4N], prev_state
    n_batch, n_in, n_cell = 1, 3, 4
    x = m.input([n_batch, n_in])
    h = m.input([n_batch, n_cell])
    w = m.weights([4 * n_cell, n_in + n_cell])
    b = m.weights([4 * n_cell])
    c = m.input([n_batch, n_cell])
    act, state = m.tensor([n_batch, n_cell]), m.tensor([n_batch, n_cell])
    concat, temp = m.tensor([n_batch, n_in + n_cell]), m.tensor([n_batch, 4 * n_cell])
    m.op('LSTM', [x, h, w, b, c], [act, state, concat, temp], 'LSTMOptions',
         {'fused_activation_function': 'TANH', 'kernel_type': 'BASIC'}, version=2)
    m.output(act)
    m.output(state)


def lstm_basic_hand(m, z):
    # TFLite's basic LSTM cell as documented (lstm.cc / LstmCell): a = W [x, h] + b with gate
    # blocks input, candidate, forget, output
    def buf(t):
        b = bytes(m.buffers[m.tensors[t]['buffer']]['data'])
        return struct.unpack('<%df' % (len(b) // 4), b)
    x_t, h_t, w_t, b_t, c_t = m.ops[0]['inputs']
    w, b = buf(w_t), buf(b_t)
    x, h, c = z[0:3], z[3:7], z[7:11]
    xin, n = x + h, 4
    a = [sum(w[r * 7 + k] * xin[k] for k in range(7)) + b[r] for r in range(4 * n)]
    sig = lambda v: 1 / (1 + math.exp(-v))
    state = [sig(a[i]) * math.tanh(a[n + i]) + sig(a[2 * n + i]) * c[i] for i in range(n)]
    act = [sig(a[3 * n + i]) * math.tanh(state[i]) for i in range(n)]
    return [('float32', [1, 4], act), ('float32', [1, 4], state)]


def lstm_basic_check(m, model, tmp):
    # The oracle ignores the values fed to prev_activation / prev_state (TFLite's basic kernel
    # re-homes them in a persistent arena in Prepare, away from the buffers LiteRT.js fills,
    # so it reads zeros); with both zero it must agree with the hand cell.
    z = make_golden_rng(1)
    vals = [[z() for _ in range(3)], [0.0] * 4, [0.0] * 4]
    args = [make_golden.ORACLE, 'run', model, '--out', os.path.join(tmp, 'lstm_check')]
    for i, v in enumerate(vals):
        path = os.path.join(tmp, 'lstm_check_in%d.bin' % i)
        with open(path, 'wb') as f:
            f.write(struct.pack('<%df' % len(v), *v))
        args += ['--input', path]
    subprocess.run(args, check=True, capture_output=True, timeout=120)
    for i, (_, _, want) in enumerate(lstm_basic_hand(m, sum(vals, []))):
        with open(os.path.join(tmp, 'lstm_check', 'output_%d.bin' % i), 'rb') as f:
            got = struct.unpack('<4f', f.read())
        if max(abs(a - b) for a, b in zip(got, want)) > 1e-5:
            raise SystemExit('lstm_basic: oracle output %d %s != hand %s with zero state' % (i, got, want))


CASES['lstm_basic'] = (lstm_basic, {'hand': lstm_basic_hand, 'check': lstm_basic_check, 'why':
    'golden computed here from TFLite\'s basic LSTM cell (lstm.cc, LstmCell): the oracle ignores '
    'the values fed to the prev_activation / prev_state inputs (the kernel moves them to a '
    'persistent arena in Prepare, away from the buffers LiteRT.js fills) and computes the cell '
    'with both zero; make_opmodels.py checks the hand cell against it in that case'})


def lstm_full(peephole=False, projection=False, clip=0.0):
    def build(m):
        n_batch, n_in, n_cell = 2, 3, 4
        n_out = 3 if projection else n_cell
        x = m.input([n_batch, n_in])
        ins = [x]
        ins += [m.weights([n_cell, n_in]) for _ in range(4)]
        ins += [m.weights([n_cell, n_out]) for _ in range(4)]
        ins += [m.weights([n_cell]) if peephole else -1 for _ in range(3)]
        ins += [m.weights([n_cell]) for _ in range(4)]
        ins += [m.weights([n_out, n_cell]) if projection else -1, -1]
        # variable state tensors (zero at the start)
        ins += [m.tensor([n_batch, n_out], variable=True, name='output_state'),
                m.tensor([n_batch, n_cell], variable=True, name='cell_state')]
        out = m.tensor([n_batch, n_out])
        m.op('LSTM', ins, [out], 'LSTMOptions', {'fused_activation_function': 'TANH', 'cell_clip': clip,
                                                 'kernel_type': 'FULL'}, version=1)
        m.output(out)
    return build


CASES['lstm_full'] = (lstm_full(), {})
CASES['lstm_full_peephole_projection_clip'] = (lstm_full(True, True, 0.5), {})


# ---------------------------------------------------------------- quantized cases

IN_Q = (0.05, 128)       # uint8 input: real N(0,1) covers about -3..3


def q_conv_u8(shape, cout, k, s, pad, act=None):
    def build(m):
        x = m.input(shape, 'uint8', q=IN_Q)
        kk = k[0] * k[1] * shape[3]
        w_scale, w_zp = 0.004, 120
        w = m.const([cout, k[0], k[1], shape[3]], [m.rng.randint(0, 255) for _ in range(cout * kk)], 'uint8', q=(w_scale, w_zp))
        b_scale = IN_Q[0] * w_scale
        b = m.const([cout], [m.rng.randint(-2000, 2000) for _ in range(cout)], 'int32', q=(b_scale, 0))
        sigma = math.sqrt(kk) * 0.29 * 128 * w_scale
        out = m.tensor([shape[0], out_size(shape[1], k[0], s[0], 1, pad), out_size(shape[2], k[1], s[1], 1, pad), cout],
                       'uint8', q=(8 * sigma / 255, 128))
        m.op('CONV_2D', [x, w, b], [out], 'Conv2DOptions', {'padding': pad, 'stride_h': s[0], 'stride_w': s[1],
                                                            'fused_activation_function': ACT[act]})
        m.output(out)
    return build


CASES['q_conv_u8_3x3_same_relu'] = (q_conv_u8([1, 6, 7, 3], 4, (3, 3), (1, 1), 'SAME', 'relu'), {})
CASES['q_conv_u8_3x3_s2_valid'] = (q_conv_u8([1, 9, 8, 5], 3, (3, 3), (2, 2), 'VALID'), {})
CASES['q_conv_u8_1x1_relu6'] = (q_conv_u8([1, 4, 5, 8], 6, (1, 1), (1, 1), 'VALID', 'relu6'), {})


def q_dwconv_u8(shape, mult, k, s, pad, act=None):
    def build(m):
        x = m.input(shape, 'uint8', q=IN_Q)
        cout = shape[3] * mult
        w_scale = 0.01
        w = m.const([1, k[0], k[1], cout], [m.rng.randint(0, 255) for _ in range(k[0] * k[1] * cout)], 'uint8', q=(w_scale, 130))
        b = m.const([cout], [m.rng.randint(-500, 500) for _ in range(cout)], 'int32', q=(IN_Q[0] * w_scale, 0))
        sigma = math.sqrt(k[0] * k[1]) * 0.29 * 128 * w_scale
        out = m.tensor([shape[0], out_size(shape[1], k[0], s[0], 1, pad), out_size(shape[2], k[1], s[1], 1, pad), cout],
                       'uint8', q=(8 * sigma / 255, 128))
        m.op('DEPTHWISE_CONV_2D', [x, w, b], [out], 'DepthwiseConv2DOptions', {
            'padding': pad, 'stride_h': s[0], 'stride_w': s[1], 'depth_multiplier': mult,
            'fused_activation_function': ACT[act]})
        m.output(out)
    return build


CASES['q_dwconv_u8_3x3_m1_same_relu6'] = (q_dwconv_u8([1, 7, 6, 4], 1, (3, 3), (1, 1), 'SAME', 'relu6'), {})
CASES['q_dwconv_u8_3x3_m2_s2_valid'] = (q_dwconv_u8([1, 9, 8, 3], 2, (3, 3), (2, 2), 'VALID'), {})


@case('q_fc_u8')
def _(m):
    x = m.input([2, 16], 'uint8', q=IN_Q)
    w_scale = 0.004
    w = m.const([5, 16], [m.rng.randint(0, 255) for _ in range(80)], 'uint8', q=(w_scale, 127))
    b = m.const([5], [m.rng.randint(-2000, 2000) for _ in range(5)], 'int32', q=(IN_Q[0] * w_scale, 0))
    out = m.tensor([2, 5], 'uint8', q=(8 * 4 * 0.29 * 128 * w_scale / 255, 128))
    m.op('FULLY_CONNECTED', [x, w, b], [out], 'FullyConnectedOptions', {})
    m.output(out)


def q_binary_u8(code, opt_type, qa, qb, qo, act=None, b_shape=None):
    def build(m):
        a = m.input([1, 3, 4, 5], 'uint8', q=qa)
        b = m.input(b_shape or [1, 3, 4, 5], 'uint8', q=qb)
        out = m.tensor([1, 3, 4, 5], 'uint8', q=qo)
        m.op(code, [a, b], [out], opt_type, {'fused_activation_function': ACT[act]})
        m.output(out)
    return build


CASES['q_add_u8'] = (q_binary_u8('ADD', 'AddOptions', (0.05, 128), (0.04, 120), (0.08, 128)), {})
CASES['q_add_u8_relu_bcast'] = (q_binary_u8('ADD', 'AddOptions', (0.05, 128), (0.03, 100), (0.06, 90), 'relu', [1, 1, 1, 5]), {})
CASES['q_mul_u8'] = (q_binary_u8('MUL', 'MulOptions', (0.05, 128), (0.04, 120), (0.1, 128)), {})
CASES['q_mul_u8_relu6_bcast'] = (q_binary_u8('MUL', 'MulOptions', (0.05, 128), (0.03, 100), (0.04, 20), 'relu6', [1, 3, 1, 1]), {})


def q_pool_u8(code, k, s, pad):
    def build(m):
        x = m.input([1, 7, 8, 3], 'uint8', q=IN_Q)
        out = m.tensor([1, out_size(7, k[0], s[0], 1, pad), out_size(8, k[1], s[1], 1, pad), 3], 'uint8', q=IN_Q)
        m.op(code, [x], [out], 'Pool2DOptions', {'padding': pad, 'stride_h': s[0], 'stride_w': s[1],
                                                 'filter_height': k[0], 'filter_width': k[1]})
        m.output(out)
    return build


CASES['q_avgpool_u8_3x3_s2_same'] = (q_pool_u8('AVERAGE_POOL_2D', (3, 3), (2, 2), 'SAME'), {})
CASES['q_avgpool_u8_2x2_s2_valid'] = (q_pool_u8('AVERAGE_POOL_2D', (2, 2), (2, 2), 'VALID'), {})
CASES['q_maxpool_u8_3x3_s2_same'] = (q_pool_u8('MAX_POOL_2D', (3, 3), (2, 2), 'SAME'), {})


@case('q_concat_u8_same_quant')
def _(m):
    a = m.input([1, 3, 4, 2], 'uint8', q=IN_Q)
    b = m.input([1, 3, 4, 3], 'uint8', q=IN_Q)
    out = m.tensor([1, 3, 4, 5], 'uint8', q=IN_Q)
    m.op('CONCATENATION', [a, b], [out], 'ConcatenationOptions', {'axis': 3})
    m.output(out)


@case('q_concat_u8_requantize')
def _(m):
    a = m.input([1, 3, 4, 2], 'uint8', q=(0.05, 128))
    b = m.input([1, 2, 4, 2], 'uint8', q=(0.03, 110))
    out = m.tensor([1, 5, 4, 2], 'uint8', q=(0.04, 125))
    m.op('CONCATENATION', [a, b], [out], 'ConcatenationOptions', {'axis': 1})
    m.output(out)


@case('q_softmax_u8')
def _(m):
    x = m.input([2, 10], 'uint8', q=(0.1, 128))
    out = m.tensor([2, 10], 'uint8', q=(1 / 256, 0))
    m.op('SOFTMAX', [x], [out], 'SoftmaxOptions', {'beta': 1.0})
    m.output(out)


@case('q_logistic_u8')
def _(m):
    x = m.input([1, 4, 5, 3], 'uint8', q=(0.1, 128))
    out = m.tensor([1, 4, 5, 3], 'uint8', q=(1 / 256, 0))
    m.op('LOGISTIC', [x], [out])
    m.output(out)


@case('q_reshape_u8')
def _(m):
    x = m.input([1, 4, 6, 2], 'uint8', q=IN_Q)
    s = m.const([2], [8, 6], 'int32')
    out = m.tensor([8, 6], 'uint8', q=IN_Q)
    m.op('RESHAPE', [x, s], [out], 'ReshapeOptions', {'new_shape': [8, 6]})
    m.output(out)


def _q_resize(m, half):
    x = m.input([1, 4, 5, 3], 'uint8', q=IN_Q)
    s = m.const([2], [7, 9], 'int32')
    out = m.tensor([1, 7, 9, 3], 'uint8', q=IN_Q)
    m.op('RESIZE_BILINEAR', [x, s], [out], 'ResizeBilinearOptions', {'half_pixel_centers': half}, version=3 if half else 1)
    m.output(out)


CASES['q_resize_bilinear_u8'] = (lambda m: _q_resize(m, False), {})
CASES['q_resize_bilinear_u8_half_pixel'] = (lambda m: _q_resize(m, True), {})


# int8 ops, wrapped in QUANTIZE / DEQUANTIZE so the oracle can feed and read them
Q8_IN = (0.025, -3)


def wrap_int8(m, shape):
    x = m.input(shape)
    q = m.tensor(shape, 'int8', q=Q8_IN)
    m.op('QUANTIZE', [x], [q], 'QuantizeOptions', version=2)
    return q


def unwrap_int8(m, q, shape, scale):
    out = m.tensor(shape)
    m.op('DEQUANTIZE', [q], [out], 'DequantizeOptions', version=2)
    m.output(out, lsb=scale)


def q_conv_i8(per_channel, dw=False):
    def build(m):
        shape, cout, k = [1, 7, 6, 3], (6 if dw else 4), (3, 3)
        x = wrap_int8(m, shape)
        kk = k[0] * k[1] * (1 if dw else shape[3])
        scales = [m.rng.uniform(0.002, 0.008) for _ in range(cout)] if per_channel else [0.005]
        wshape = [1, k[0], k[1], cout] if dw else [cout, k[0], k[1], shape[3]]
        w = m.const(wshape, [m.rng.randint(-127, 127) for _ in range(math.prod(wshape))], 'int8',
                    q=(scales, [0] * len(scales), 3 if dw else 0))
        b = m.const([cout], [m.rng.randint(-3000, 3000) for _ in range(cout)], 'int32',
                    q=([Q8_IN[0] * s for s in scales], [0] * len(scales)))
        o_scale = 8 * math.sqrt(kk) * 0.58 * 127 * 0.005 * Q8_IN[0] * 40 / 255
        o_shape = [1, 7, 6, cout]
        y = m.tensor(o_shape, 'int8', q=(o_scale, 5))
        if dw:
            m.op('DEPTHWISE_CONV_2D', [x, w, b], [y], 'DepthwiseConv2DOptions', {
                'padding': 'SAME', 'stride_h': 1, 'stride_w': 1, 'depth_multiplier': 2, 'fused_activation_function': 'RELU6'}, version=3)
        else:
            m.op('CONV_2D', [x, w, b], [y], 'Conv2DOptions', {'padding': 'SAME', 'stride_h': 1, 'stride_w': 1,
                                                              'fused_activation_function': 'RELU'}, version=3)
        unwrap_int8(m, y, o_shape, o_scale)
    return build


@case('q_pad_conv_i8_per_channel')
def _(m):
    """int8 PAD (pads with the zero point) before a stride-2 VALID conv: oneDNN pads in the conv"""
    shape, cout = [1, 12, 11, 5], 7
    x = wrap_int8(m, shape)
    p = m.const([4, 2], [0, 0, 1, 2, 2, 1, 0, 0], 'int32')
    padded = [1, 15, 14, 5]
    xp = m.tensor(padded, 'int8', q=Q8_IN)
    m.op('PAD', [x, p], [xp], 'PadOptions')
    scales = [m.rng.uniform(0.002, 0.008) for _ in range(cout)]
    w = m.const([cout, 3, 3, 5], [m.rng.randint(-127, 127) for _ in range(cout * 45)], 'int8',
                q=(scales, [0] * cout, 0))
    b = m.const([cout], [m.rng.randint(-3000, 3000) for _ in range(cout)], 'int32',
                q=([Q8_IN[0] * s for s in scales], [0] * cout))
    o_scale = 8 * math.sqrt(45) * 0.58 * 127 * 0.005 * Q8_IN[0] * 40 / 255
    o_shape = [1, 7, 6, cout]
    y = m.tensor(o_shape, 'int8', q=(o_scale, 5))
    m.op('CONV_2D', [xp, w, b], [y], 'Conv2DOptions', {'padding': 'VALID', 'stride_h': 2, 'stride_w': 2,
                                                      'fused_activation_function': 'NONE'}, version=3)
    unwrap_int8(m, y, o_shape, o_scale)


CASES['q_conv_i8_per_tensor'] = (q_conv_i8(False), {})
CASES['q_conv_i8_per_channel'] = (q_conv_i8(True), {})
CASES['q_dwconv_i8_per_channel'] = (q_conv_i8(True, dw=True), {})


@case('q_fc_i8')
def _(m):
    x = wrap_int8(m, [2, 16])
    w = m.const([5, 16], [m.rng.randint(-127, 127) for _ in range(80)], 'int8', q=(0.006, 0))
    b = m.const([5], [m.rng.randint(-3000, 3000) for _ in range(5)], 'int32', q=(Q8_IN[0] * 0.006, 0))
    o_scale = 0.05
    y = m.tensor([2, 5], 'int8', q=(o_scale, -2))
    m.op('FULLY_CONNECTED', [x, w, b], [y], 'FullyConnectedOptions', {}, version=4)
    unwrap_int8(m, y, [2, 5], o_scale)


@litert_case('q_fc_i8_acc_wrap')
def _(m):
    """int8 FULLY_CONNECTED whose int32 sums pass INT32_MAX / INT32_MIN on some channels: TFLite
    wraps them (so a huge positive sum comes out as -128), a float sum would saturate"""
    x = wrap_int8(m, [2, 16])
    w = m.const([5, 16], [m.rng.randint(-127, 127) for _ in range(80)], 'int8', q=(0.006, 0))
    b = m.const([5], [2147483000, -2147483000, 1500, 2147400000, -2147400000], 'int32', q=(Q8_IN[0] * 0.006, 0))
    o_scale = 0.05
    y = m.tensor([2, 5], 'int8', q=(o_scale, -2))
    m.op('FULLY_CONNECTED', [x, w, b], [y], 'FullyConnectedOptions', {}, version=4)
    unwrap_int8(m, y, [2, 5], o_scale)


@case('q_add_i8')
def _(m):
    a = wrap_int8(m, [1, 3, 4, 5])
    b = m.const([5], [m.rng.randint(-128, 127) for _ in range(5)], 'int8', q=(0.02, 3))
    y = m.tensor([1, 3, 4, 5], 'int8', q=(0.04, -1))
    m.op('ADD', [a, b], [y], 'AddOptions', {}, version=2)
    unwrap_int8(m, y, [1, 3, 4, 5], 0.04)


@case('q_softmax_i8')
def _(m):
    x = wrap_int8(m, [2, 10])
    y = m.tensor([2, 10], 'int8', q=(1 / 256, -128))
    m.op('SOFTMAX', [x], [y], 'SoftmaxOptions', {'beta': 1.0}, version=2)
    unwrap_int8(m, y, [2, 10], 1 / 256)


@case('q_logistic_i8')
def _(m):
    x = wrap_int8(m, [1, 4, 5, 3])
    y = m.tensor([1, 4, 5, 3], 'int8', q=(1 / 256, -128))
    m.op('LOGISTIC', [x], [y], version=2)
    unwrap_int8(m, y, [1, 4, 5, 3], 1 / 256)


# ---------------------------------------------------------------- more cases

# cases_<group>.py beside this file: one module per op group, each with register(mk)
# taking this module (Model, case, litert_case, ACT, out_size, ...).
def load_case_modules():
    import glob
    import importlib
    sys.path.insert(0, HERE)
    me = sys.modules[__name__]
    for path in sorted(glob.glob(os.path.join(HERE, 'cases_*.py'))):
        importlib.import_module(os.path.basename(path)[:-3]).register(me)


load_case_modules()

# the Python with ai-edge-litert (scripts/bench_peers.sh makes it)
LITERT_PYTHON = os.environ.get('LITERT_PYTHON', os.path.join(ROOT, 'build-peers', 'venv', 'bin', 'python'))
LITERT_RUN = os.path.join(HERE, 'litert_run.py')


# ---------------------------------------------------------------- driver

def hand_golden(name, m, path, fn):
    """A golden worked out here (the oracle cannot run the case, or disagrees with TFLite's
    documented semantics: NOTES.md). Inputs are the Gaussian stream as tests/golden.c makes
    it (bool inputs: z > 0); fn(model, z) returns [(dtype, shape, values)] per output."""
    rng = make_golden_rng(1)
    n_in = sum(math.prod(m.tensors[t]['shape']) for t in m.inputs)
    outs = fn(m, [rng() for _ in range(n_in)])
    lines = ['golden 1', 'model %s.tflite' % name, 'runtime hand-computed by make_opmodels.py',
             'input gauss 1', 'outputs %d' % len(outs)]
    for i, (dtype, shape, vals) in enumerate(outs):
        vals = [float(v) for v in vals]
        kind = 'float32' if dtype == 'float32' else 'int32'
        fmt_v = (lambda v: '%.9g' % v) if kind == 'float32' else (lambda v: str(int(v)))
        mx = max(vals)
        lines += ['output %d' % i, 'name output%d' % i, 'type %s' % dtype,
                  'shape %d %s' % (len(shape), ' '.join(map(str, shape))), 'quant 0 0',
                  'count %d' % len(vals), 'stats %.17g %s %s %d' % (math.fsum(vals), fmt_v(min(vals)), fmt_v(mx), vals.index(mx)),
                  'samples 1 %d' % len(vals), ' '.join(fmt_v(v) for v in vals)]
    lines.append('end')
    with open(path, 'w') as f:
        f.write('\n'.join(lines) + '\n')


def make_golden_rng(seed):
    """The tests' Gaussian input stream (make_golden.gauss_stream, as tests/golden.c)."""
    return make_golden.gauss_stream(seed)


def main():
    want = sys.argv[1:]
    os.makedirs(MODEL_DIR, exist_ok=True)
    os.makedirs(GOLDEN_DIR, exist_ok=True)
    notes = []
    made = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, (build, kw) in sorted(CASES.items()):
            if want and not any(name.startswith(w) for w in want):
                continue
            m = Model(zlib.crc32(name.encode()))   # weights depend on the case's name only
            build(m)
            model = os.path.join(MODEL_DIR, name + '.tflite')
            if kw.get('convert'):
                # made by the official converter: the case's module run with tensorflow
                subprocess.run([LITERT_PYTHON, kw['convert'], name, model], check=True, capture_output=True)
            else:
                js = os.path.join(tmp, name + '.json')
                with open(js, 'w') as f:
                    json.dump(m.json(), f)
                subprocess.run(['flatc', '-b', '-o', MODEL_DIR, SCHEMA, js], check=True)
            golden = os.path.join(GOLDEN_DIR, name + '.gauss.txt')
            if kw.get('hand'):
                if kw.get('check'):
                    kw['check'](m, model, tmp)   # the hand formula against the oracle where it can
                hand_golden(name, m, golden, kw['hand'])
                notes.append((name, kw['why']))
                made.append(name)
                continue
            run_dir = os.path.join(tmp, name)
            if kw.get('litert'):
                cmd = [LITERT_PYTHON, LITERT_RUN, model, '--seed', '1', '--out', run_dir]
            else:
                cmd = [make_golden.ORACLE, 'gauss', model, '--seed', '1', '--out', run_dir]
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
            if r.returncode != 0:
                reason = r.stderr.strip().splitlines()
                notes.append((name, ' / '.join(reason[:3])))
                if os.path.exists(golden):
                    os.remove(golden)
                print('%-45s oracle cannot run it: %s' % (name, reason[:1]))
                made.append(name)
                continue
            with open(os.path.join(run_dir, 'outputs.json')) as f:
                doc = json.load(f)
            header = ['model %s.tflite' % name, 'runtime %s' % doc['runtime'], 'input gauss 1']
            make_golden.write_golden(golden, header, doc, run_dir, spread=False, lsb=m.lsb)
            made.append(name)
            print('%-45s ok' % name)
    # every case, with or without a golden (meson makes one test per line)
    with open(os.path.join(HERE, 'list.txt'), 'w') as f:
        f.write('\n'.join(sorted(CASES)) + '\n')
    if not want:
        with open(os.path.join(HERE, 'NOTES.md'), 'w') as f:
            f.write('# Single-op models without an oracle golden\n\n'
                    'Written by make_opmodels.py. A case with a hand-computed golden says so; a case\n'
                    'the oracle cannot run has no golden, and test_opmodels checks that its fast path\n'
                    'agrees with the reference kernels (and that nothing fails or crashes).\n\n')
            for name, reason in notes:
                f.write('- `%s`: %s\n' % (name, reason))


if __name__ == '__main__':
    main()
