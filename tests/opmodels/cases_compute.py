"""cases_compute.py - single-op models of the compute ops (make_opmodels.py loads this module).

register(mk) adds cases through mk.litert_case (golden from the native TensorFlow Lite,
every tensor type fed and read directly) or mk.case (the wasm oracle).

Hybrid cases: float32 input and output, int8 constant weights with zero point 0 and
per-tensor or per-channel scales, as the converter writes them with
optimizations=[DEFAULT] and no representative dataset.
"""
import math


def register(mk):
    def qweights(m, shape, scales, axis):
        """int8 constant weights in [-127, 127] with the given scale(s) along axis."""
        vals = [m.rng.randint(-127, 127) for _ in range(math.prod(shape))]
        if len(scales) == 1:
            return m.const(shape, vals, 'int8', q=(scales[0], 0))
        return m.const(shape, vals, 'int8', q=(scales, [0] * len(scales), axis))

    def chan_scales(m, n, base=0.004):
        return [base * m.rng.uniform(0.5, 1.5) for _ in range(n)]

    # ---------------------------------------------------------------- hybrid CONV_2D

    def conv_hybrid(shape, cout, k, s, pad, per_channel, act=None, d=(1, 1), equal_scales=False):
        def build(m):
            x = m.input(shape)
            if per_channel:
                sc = [0.003] * cout if equal_scales else chan_scales(m, cout)
            else:
                sc = [0.003]
            w = qweights(m, [cout, k[0], k[1], shape[3]], sc, 0)
            b = m.weights([cout])
            oh = mk.out_size(shape[1], k[0], s[0], d[0], pad)
            ow = mk.out_size(shape[2], k[1], s[1], d[1], pad)
            y = m.tensor([shape[0], oh, ow, cout])
            m.op('CONV_2D', [x, w, b], [y], 'Conv2DOptions', {
                'padding': pad, 'stride_h': s[0], 'stride_w': s[1], 'dilation_h_factor': d[0],
                'dilation_w_factor': d[1], 'fused_activation_function': mk.ACT.get(act, act)}, version=2)
            m.output(y)
        return build

    mk.CASES['conv_2d_hybrid_per_channel_same'] = (conv_hybrid([1, 7, 6, 5], 6, (3, 3), (1, 1), 'SAME', True), {'litert': True})
    mk.CASES['conv_2d_hybrid_per_channel_s2_relu_b2'] = (conv_hybrid([2, 9, 8, 4], 5, (3, 3), (2, 2), 'SAME', True, act='relu'), {'litert': True})
    mk.CASES['conv_2d_hybrid_per_tensor_valid'] = (conv_hybrid([1, 8, 7, 3], 4, (3, 2), (1, 1), 'VALID', False), {'litert': True})
    mk.CASES['conv_2d_hybrid_per_tensor_dil2_relu6_b2'] = (conv_hybrid([2, 9, 9, 3], 4, (3, 3), (1, 1), 'SAME', False, act='relu6', d=(2, 2)), {'litert': True})
    # per-channel scales that are all equal: TFLite takes the per-tensor (symmetric) path
    mk.CASES['conv_2d_hybrid_equal_scales_1x1'] = (conv_hybrid([1, 5, 5, 8], 6, (1, 1), (1, 1), 'VALID', True, equal_scales=True), {'litert': True})

    # ---------------------------------------------------------------- hybrid DEPTHWISE_CONV_2D

    def dwconv_hybrid(shape, mult, k, s, pad, act=None, d=(1, 1), per_tensor=False):
        def build(m):
            x = m.input(shape)
            cout = shape[3] * mult
            sc = [0.005] if per_tensor else chan_scales(m, cout, 0.006)
            w = qweights(m, [1, k[0], k[1], cout], sc, 3)
            b = m.weights([cout])
            oh = mk.out_size(shape[1], k[0], s[0], d[0], pad)
            ow = mk.out_size(shape[2], k[1], s[1], d[1], pad)
            y = m.tensor([shape[0], oh, ow, cout])
            m.op('DEPTHWISE_CONV_2D', [x, w, b], [y], 'DepthwiseConv2DOptions', {
                'padding': pad, 'stride_h': s[0], 'stride_w': s[1], 'depth_multiplier': mult,
                'dilation_h_factor': d[0], 'dilation_w_factor': d[1],
                'fused_activation_function': mk.ACT.get(act, act)}, version=2)
            m.output(y)
        return build

    mk.CASES['depthwise_conv_2d_hybrid_same'] = (dwconv_hybrid([1, 8, 7, 6], 1, (3, 3), (1, 1), 'SAME'), {'litert': True})
    mk.CASES['depthwise_conv_2d_hybrid_m2_s2_relu_b2'] = (dwconv_hybrid([2, 9, 8, 3], 2, (3, 3), (2, 2), 'SAME', act='relu'), {'litert': True})
    # (a per-tensor filter: LiteRT reads past its one scale and outputs garbage; we refuse it)
    mk.CASES['depthwise_conv_2d_hybrid_valid_dil2'] = (dwconv_hybrid([1, 10, 9, 4], 1, (3, 3), (1, 1), 'VALID', d=(2, 2)), {'litert': True})

    # ---------------------------------------------------------------- hybrid FULLY_CONNECTED

    def fc_hybrid(in_shape, units, per_channel, asym, act=None, keep=False, bias=True):
        def build(m):
            x = m.input(in_shape)
            depth = in_shape[-1]
            sc = chan_scales(m, units, 0.01) if per_channel else [0.008]
            w = qweights(m, [units, depth], sc, 0)
            b = m.weights([units]) if bias else -1
            shape = list(in_shape[:-1]) + [units] if keep else [math.prod(in_shape) // depth, units]
            y = m.tensor(shape)
            m.op('FULLY_CONNECTED', [x, w, b], [y], 'FullyConnectedOptions',
                 {'fused_activation_function': mk.ACT[act] if act in mk.ACT else act, 'keep_num_dims': keep,
                  'asymmetric_quantize_inputs': asym}, version=9 if asym or per_channel else 3)
            m.output(y)
        return build

    mk.CASES['fully_connected_hybrid_per_tensor_sym'] = (fc_hybrid([3, 20], 7, False, False), {'litert': True})
    mk.CASES['fully_connected_hybrid_per_tensor_asym'] = (fc_hybrid([3, 20], 7, False, True), {'litert': True})
    mk.CASES['fully_connected_hybrid_per_channel_sym'] = (fc_hybrid([4, 37], 9, True, False, act='relu'), {'litert': True})
    mk.CASES['fully_connected_hybrid_per_channel_asym'] = (fc_hybrid([4, 37], 9, True, True), {'litert': True})
    mk.CASES['fully_connected_hybrid_keep_dims_asym_no_bias'] = (fc_hybrid([2, 3, 16], 5, True, True, keep=True, bias=False), {'litert': True})
    mk.CASES['fully_connected_hybrid_tanh'] = (fc_hybrid([2, 24], 6, False, False, act='TANH'), {'litert': True})
    # TANH is no clamp: XNNPACK declines the node and TFLite's own kernel quantizes
    # symmetrically (per-tensor scales) or asymmetrically (differing per-channel scales)
    mk.CASES['conv_2d_hybrid_per_tensor_tanh'] = (conv_hybrid([1, 6, 6, 3], 4, (3, 3), (1, 1), 'SAME', False, act='TANH'), {'litert': True})
    mk.CASES['conv_2d_hybrid_per_channel_tanh_1x1'] = (conv_hybrid([1, 4, 5, 6], 3, (1, 1), (1, 1), 'VALID', True, act='TANH'), {'litert': True})
    # XNNPACK runs a 1x1 stride-1 conv as a fully connected layer: one quantization per pixel
    mk.CASES['conv_2d_hybrid_per_channel_1x1'] = (conv_hybrid([1, 5, 5, 8], 6, (1, 1), (1, 1), 'VALID', True), {'litert': True})
    mk.CASES['conv_2d_hybrid_equal_scales_3x3'] = (conv_hybrid([1, 5, 5, 8], 6, (3, 3), (1, 1), 'VALID', True, equal_scales=True), {'litert': True})
    mk.CASES['conv_2d_hybrid_per_tensor_1x1'] = (conv_hybrid([1, 5, 5, 8], 6, (1, 1), (1, 1), 'VALID', False), {'litert': True})
