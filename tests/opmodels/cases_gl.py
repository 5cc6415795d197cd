"""cases_gl.py - single-op models (and the short chains users' models have: LayerNorm,
attention, a GELU MLP) for the GL delegate's generators (make_opmodels.py loads this module).

Float32 only; goldens from the native TensorFlow Lite (mk.litert_case). Names start with the
op under test in lower case; shapes are the ones the GL generators special-case: channels
that are not a multiple of 4, the last axis of 2-D/3-D tensors, transposes of 3 and 4 dims,
SPLIT_V with unequal outputs (a YOLOv8 head), BATCH_MATMUL with adj_y (attention).
"""


def register(mk):
    def t(m, shape):
        return m.tensor(list(shape))

    # ---- LayerNorm over the last axis of a 3-D tensor (ConvNeXt, transformers):
    # MEAN, SQUARED_DIFFERENCE, MEAN, ADD eps, RSQRT, SUB, MUL, MUL gamma, ADD beta
    def layernorm(name, shape):
        @mk.litert_case(name)
        def _(m):
            x = m.input(list(shape))
            ax = m.const([1], [len(shape) - 1], 'int32')
            red = list(shape[:-1]) + [1]
            mu, var = t(m, red), t(m, red)
            m.op('MEAN', [x, ax], [mu], 'ReducerOptions', {'keep_dims': True})
            sq = t(m, shape)
            m.op('SQUARED_DIFFERENCE', [x, mu], [sq], 'SquaredDifferenceOptions')
            m.op('MEAN', [sq, ax], [var], 'ReducerOptions', {'keep_dims': True})
            eps, ve, rs = m.const([1], [1e-5]), t(m, red), t(m, red)
            m.op('ADD', [var, eps], [ve], 'AddOptions', {})
            m.op('RSQRT', [ve], [rs])
            xc, xn = t(m, shape), t(m, shape)
            m.op('SUB', [x, mu], [xc], 'SubOptions', {})
            m.op('MUL', [xc, rs], [xn], 'MulOptions', {})
            gamma = m.weights([shape[-1]], 0.5, 1.5)
            beta = m.weights([shape[-1]])
            xg, out = t(m, shape), t(m, shape)
            m.op('MUL', [xn, gamma], [xg], 'MulOptions', {})
            m.op('ADD', [xg, beta], [out], 'AddOptions', {})
            m.output(out)
    layernorm('mean_layernorm_3d_f32', (2, 7, 13))
    layernorm('mean_layernorm_2d_f32', (6, 24))

    # ---- reductions the LayerNorm / pooling heads use, on odd shapes
    def reducer(name, op, shape, axes, keep):
        @mk.litert_case(name)
        def _(m):
            x = m.input(list(shape))
            a = m.const([len(axes)], axes, 'int32')
            red = {v + len(shape) if v < 0 else v for v in axes}
            oshape = [1 if i in red else d for i, d in enumerate(shape)] if keep else \
                [d for i, d in enumerate(shape) if i not in red]
            y = t(m, oshape)
            m.op(op, [x, a], [y], 'ReducerOptions', {'keep_dims': keep})
            m.output(y)
    reducer('sum_last_axis_3d_f32', 'SUM', (3, 5, 7), [-1], False)
    reducer('sum_batch_f32', 'SUM', (4, 3, 2, 5), [0], True)
    reducer('reduce_max_last_axis_2d_f32', 'REDUCE_MAX', (5, 11), [1], True)
    reducer('reduce_min_channels_w_f32', 'REDUCE_MIN', (2, 3, 6, 5), [2, 3], False)
    reducer('mean_h_c_f32', 'MEAN', (2, 4, 3, 6), [1, 3], True)

    # ---- SOFTMAX / LOG_SOFTMAX on the last axis of 3-D tensors (attention scores)
    @mk.litert_case('softmax_3d_last_axis_f32')
    def _(m):
        x = m.input([2, 7, 13])
        y = t(m, [2, 7, 13])
        m.op('SOFTMAX', [x], [y], 'SoftmaxOptions', {'beta': 1.0})
        m.output(y)

    @mk.litert_case('log_softmax_3d_f32')
    def _(m):
        x = m.input([3, 4, 9])
        y = t(m, [3, 4, 9])
        m.op('LOG_SOFTMAX', [x], [y], 'LogSoftmaxOptions')
        m.output(y)

    # ---- attention: softmax(q k^T * scale) v, then a transpose of the heads
    @mk.litert_case('batch_matmul_attention_block_f32')
    def _(m):
        q, k, v = m.input([2, 6, 8]), m.input([2, 6, 8]), m.input([2, 6, 8])
        s, ss, p, o = t(m, [2, 6, 6]), t(m, [2, 6, 6]), t(m, [2, 6, 6]), t(m, [2, 6, 8])
        m.op('BATCH_MATMUL', [q, k], [s], 'BatchMatMulOptions', {'adj_x': False, 'adj_y': True})
        m.op('MUL', [s, m.const([1], [0.35355339])], [ss], 'MulOptions', {})
        m.op('SOFTMAX', [ss], [p], 'SoftmaxOptions', {'beta': 1.0})
        m.op('BATCH_MATMUL', [p, v], [o], 'BatchMatMulOptions', {'adj_x': False, 'adj_y': False})
        m.output(o)

    @mk.litert_case('batch_matmul_4d_const_rhs_f32')
    def _(m):
        a = m.input([2, 3, 5, 7])
        b = m.weights([7, 6])
        y = t(m, [2, 3, 5, 6])
        m.op('BATCH_MATMUL', [a, b], [y], 'BatchMatMulOptions', {'adj_x': False, 'adj_y': False})
        m.output(y)

    # ---- GELU in a transformer MLP (both forms)
    for approx in (False, True):
        @mk.litert_case('gelu_mlp_%s_f32' % ('tanh' if approx else 'erf'))
        def _(m, approx=approx):
            x = m.input([1, 5, 12])
            w1, b1 = m.weights([20, 12]), m.weights([20])
            h, g = t(m, [1, 5, 20]), t(m, [1, 5, 20])
            m.op('FULLY_CONNECTED', [x, w1, b1], [h], 'FullyConnectedOptions', {'keep_num_dims': True})
            m.op('GELU', [h], [g], 'GeluOptions', {'approximate': approx})
            m.output(g)

    # ---- layout
    def transpose(name, shape, perm):
        @mk.litert_case(name)
        def _(m):
            x = m.input(list(shape))
            p = m.const([len(perm)], perm, 'int32')
            y = t(m, [shape[i] for i in perm])
            m.op('TRANSPOSE', [x, p], [y], 'TransposeOptions')
            m.output(y)
    transpose('transpose_4d_3102_f32', (2, 3, 4, 5), [3, 1, 0, 2])
    transpose('transpose_3d_201_f32', (3, 5, 6), [2, 0, 1])
    transpose('transpose_heads_0213_f32', (1, 6, 3, 8), [0, 2, 1, 3])

    @mk.litert_case('split_v_yolo_head_f32')
    def _(m):
        x = m.input([1, 14, 20])
        s = m.const([2], [5, -1], 'int32')
        a = m.const([], [1], 'int32')
        y0, y1 = t(m, [1, 5, 20]), t(m, [1, 9, 20])
        m.op('SPLIT_V', [x, s, a], [y0, y1], 'SplitVOptions', {'num_splits': 2})
        m.output(y0)
        m.output(y1)

    @mk.litert_case('split_channels_f32')
    def _(m):
        a = m.const([], [3], 'int32')
        x = m.input([1, 3, 4, 18])
        ys = [t(m, [1, 3, 4, 6]) for _ in range(3)]
        m.op('SPLIT', [a, x], ys, 'SplitOptions', {'num_splits': 3})
        for y in ys:
            m.output(y)

    @mk.litert_case('slice_3d_f32')
    def _(m):
        x = m.input([3, 6, 9])
        b = m.const([3], [1, 2, 3], 'int32')
        s = m.const([3], [2, 3, 5], 'int32')
        y = t(m, [2, 3, 5])
        m.op('SLICE', [x, b, s], [y], 'SliceOptions')
        m.output(y)

    @mk.litert_case('pack_axis1_3_f32')
    def _(m):
        xs = [m.input([2, 5]) for _ in range(3)]
        y = t(m, [2, 3, 5])
        m.op('PACK', xs, [y], 'PackOptions', {'values_count': 3, 'axis': 1})
        m.output(y)

    @mk.litert_case('unpack_axis2_4_f32')
    def _(m):
        x = m.input([2, 3, 4])
        ys = [t(m, [2, 3]) for _ in range(4)]
        m.op('UNPACK', [x], ys, 'UnpackOptions', {'num': 4, 'axis': 2})
        for y in ys:
            m.output(y)

    @mk.litert_case('concatenation_w_f32')
    def _(m):
        a, b = m.input([1, 3, 5, 6]), m.input([1, 3, 2, 6])
        y = t(m, [1, 3, 7, 6])
        m.op('CONCATENATION', [a, b], [y], 'ConcatenationOptions', {'axis': 2})
        m.output(y)

    # ---- element-wise ops fused into a convolution's store (YOLOv3/v5-style LEAKY_RELU,
    # ELU, and a LayerNorm's SQUARED_DIFFERENCE / SQRT / DIV on a conv's output)
    def conv_then(name, ops):
        @mk.litert_case(name)
        def _(m):
            x = m.input([1, 6, 7, 5])
            w, b = m.weights([6, 3, 3, 5]), m.weights([6])
            y = t(m, [1, 6, 7, 6])
            m.op('CONV_2D', [x, w, b], [y], 'Conv2DOptions', {
                'padding': 'SAME', 'stride_h': 1, 'stride_w': 1, 'dilation_h_factor': 1,
                'dilation_w_factor': 1, 'fused_activation_function': 'NONE'})
            for op, opt_type, opt, other in ops:
                z = t(m, [1, 6, 7, 6])
                m.op(op, [y] + ([m.const([6], other)] if other else []), [z], opt_type, opt)
                y = z
            m.output(y)
    conv_then('leaky_relu_after_conv_f32', [('LEAKY_RELU', 'LeakyReluOptions', {'alpha': 0.1}, None)])
    conv_then('elu_after_conv_f32', [('ELU', None, None, None)])
    conv_then('squared_difference_sqrt_div_after_conv_f32', [
        ('SQUARED_DIFFERENCE', 'SquaredDifferenceOptions', {}, [0.1, -0.2, 0.3, 0.0, 0.5, -0.6]),
        ('ADD', 'AddOptions', {}, [1e-3] * 6),
        ('SQRT', None, None, None),
        ('DIV', 'DivOptions', {}, [2.0, 0.5, 1.5, 3.0, 0.7, 1.1])])

    # ---- gathers with wrapped, broadcast and reversed coordinates
    @mk.litert_case('tile_3d_wrap_f32')
    def _(m):
        x = m.input([2, 3, 5])
        mult = m.const([3], [2, 1, 3], 'int32')
        y = t(m, [4, 3, 15])
        m.op('TILE', [x, mult], [y], 'TileOptions')
        m.output(y)

    @mk.litert_case('broadcast_to_4d_f32')
    def _(m):
        x = m.input([3, 1, 5])
        shape = m.const([4], [2, 3, 4, 5], 'int32')
        y = t(m, [2, 3, 4, 5])
        m.op('BROADCAST_TO', [x, shape], [y], 'BroadcastToOptions', version=2)
        m.output(y)

    @mk.litert_case('reverse_v2_rows_f32')
    def _(m):
        x = m.input([4, 3, 6])
        a = m.const([1], [0], 'int32')
        y = t(m, [4, 3, 6])
        m.op('REVERSE_V2', [x, a], [y], 'ReverseV2Options')
        m.output(y)

    @mk.litert_case('expand_dims_attention_f32')
    def _(m):
        x = m.input([2, 6, 8])
        a = m.const([], [1], 'int32')
        y, z = t(m, [2, 1, 6, 8]), t(m, [2, 1, 6, 8])
        m.op('EXPAND_DIMS', [x, a], [y], 'ExpandDimsOptions')
        m.op('MUL', [y, m.const([1], [0.5])], [z], 'MulOptions', {})
        m.output(z)
