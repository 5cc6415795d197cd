"""cases_reduce.py - single-op models of the reduce ops (make_opmodels.py loads this module).

register(mk) adds cases through mk.litert_case (golden from the native TensorFlow Lite,
every tensor type fed and read directly) or mk.case (the wasm oracle).
"""


def _out_shape(shape, axes, keep):
    red = {a + len(shape) if a < 0 else a for a in axes}
    if keep:
        return [1 if i in red else d for i, d in enumerate(shape)]
    return [d for i, d in enumerate(shape) if i not in red]


def _reducer(op, shape, axes, keep, type='float32', q=None, qo=None, axes_shape=None):
    """op over constant int32 axes; q / qo: input / output quantization (qo defaults to q)."""
    def build(m):
        x = m.input(shape, type, q=q)
        a = m.const([len(axes)] if axes_shape is None else axes_shape, axes, 'int32')
        y = m.tensor(_out_shape(shape, axes, keep), type, q=qo or q)
        m.op(op, [x, a], [y], 'ReducerOptions', {'keep_dims': keep})
        m.output(y)
    return build


def register(mk):
    def add(name, build):
        mk.litert_case(name)(build)

    # SUM
    add('sum_hw_keep_f32', _reducer('SUM', [2, 5, 6, 3], [1, 2], True))
    add('sum_neg_dup_axes_f32', _reducer('SUM', [2, 3, 4, 5], [-1, 3, 1], False))
    add('sum_all_to_scalar_f32', _reducer('SUM', [2, 3, 4], [0, 1, 2], False))
    add('sum_all_keep_f32', _reducer('SUM', [2, 3, 4], [2, 0, 1], True))
    add('sum_scalar_axis_f32', _reducer('SUM', [3, 4, 5], [1], False, axes_shape=[]))
    add('sum_no_axes_f32', _reducer('SUM', [3, 4], [], False))
    add('sum_size1_dims_f32', _reducer('SUM', [1, 4, 1, 6], [0, 2, 3], True))
    add('sum_channels_i32', _reducer('SUM', [2, 3, 4, 5], [3], False, 'int32'))
    add('sum_outer_i64', _reducer('SUM', [4, 3, 5], [0], True, 'int64'))
    add('sum_rescale_i8', _reducer('SUM', [2, 4, 5, 3], [1, 2], False, 'int8', q=(0.1, 3), qo=(0.5, -2)))
    add('sum_rescale_channels_i8', _reducer('SUM', [2, 3, 6], [-1], True, 'int8', q=(0.05, -7), qo=(0.2, 10)))
    add('sum_rescale_u8', _reducer('SUM', [3, 4, 6], [0, 2], False, 'uint8', q=(0.05, 128), qo=(0.4, 120)))
    add('sum_same_scale_i8', _reducer('SUM', [2, 3, 4], [1], False, 'int8', q=(0.1, 0)))
    add('sum_same_scale_wraps_i8', _reducer('SUM', [3, 6], [1], False, 'int8', q=(0.01, 0)))
    add('sum_same_scale_zp_u8', _reducer('SUM', [2, 3, 4], [1], False, 'uint8', q=(0.1, 100)))
    add('sum_same_scale_wraps_i16', _reducer('SUM', [3, 16], [1], False, 'int16', q=(0.00002, 0)))
    add('sum_rescale_i16', _reducer('SUM', [2, 3, 5], [-1, 0], True, 'int16', q=(0.001, 0), qo=(0.004, 0)))
    # int32 values near 1e9 (quantization only shapes the fill): the int32 sum wraps
    add('sum_wraps_i32', _reducer('SUM', [3, 5], [1], False, 'int32', q=(1e-9, 0)))
    add('sum_scalar_input_f32', _reducer('SUM', [], [0], False))
    add('sum_rank1_keep_i32', _reducer('SUM', [7], [-1], True, 'int32'))
    add('sum_same_scale_i16', _reducer('SUM', [2, 3, 4], [2], False, 'int16', q=(0.01, 0)))

    # REDUCE_MAX / REDUCE_MIN
    for op in ('REDUCE_MAX', 'REDUCE_MIN'):
        p = op.lower()
        add(p + '_hw_keep_f32', _reducer(op, [2, 5, 6, 3], [1, 2], True))
        add(p + '_channels_f32', _reducer(op, [2, 3, 4, 7], [-1], False))
        add(p + '_all_f32', _reducer(op, [3, 4, 5], [0, 1, 2], False))
        add(p + '_dup_axes_f32', _reducer(op, [3, 4, 5], [0, -3, 2], True))
        add(p + '_outer_i8', _reducer(op, [4, 3, 5], [0], False, 'int8', q=(0.05, -3)))
        add(p + '_hw_u8', _reducer(op, [1, 4, 5, 3], [1, 2], True, 'uint8', q=(0.02, 128)))
        add(p + '_i16', _reducer(op, [3, 4, 5], [1], False, 'int16', q=(0.001, 0)))
        add(p + '_i32', _reducer(op, [3, 4, 5], [2, 0], False, 'int32'))
        add(p + '_i64', _reducer(op, [3, 4, 5], [1], True, 'int64'))

    # REDUCE_PROD
    add('reduce_prod_channels_f32', _reducer('REDUCE_PROD', [2, 3, 5], [2], False))
    add('reduce_prod_all_f32', _reducer('REDUCE_PROD', [2, 3], [0, 1], False))
    add('reduce_prod_neg_keep_f32', _reducer('REDUCE_PROD', [2, 4, 3], [-2], True))
    add('reduce_prod_i32', _reducer('REDUCE_PROD', [3, 4, 3], [1], False, 'int32'))
    add('reduce_prod_i64', _reducer('REDUCE_PROD', [3, 4, 3], [0, 2], False, 'int64'))
    add('reduce_prod_quant_i8', _reducer('REDUCE_PROD', [2, 3, 4], [1], False, 'int8', q=(0.02, 0), qo=(0.02, 0)))
    add('reduce_prod_quant_zp_i8', _reducer('REDUCE_PROD', [4, 2, 3], [2], True, 'int8', q=(0.03, 5), qo=(0.05, -4)))

    add('reduce_prod_quant_i16', _reducer('REDUCE_PROD', [3, 2, 4], [-1], False, 'int16', q=(0.002, 0), qo=(0.001, 0)))

    # REDUCE_ANY / REDUCE_ALL
    for op in ('REDUCE_ANY', 'REDUCE_ALL'):
        p = op.lower()
        add(p + '_channels_bool', _reducer(op, [2, 3, 4], [-1], False, 'bool'))
        add(p + '_outer_keep_bool', _reducer(op, [3, 2, 2], [0], True, 'bool'))
        add(p + '_all_bool', _reducer(op, [2, 3], [0, 1], False, 'bool'))

    # MEAN over any axes, channels included (LayerNorm's mean over the last axis)
    add('mean_last_axis_f32', _reducer('MEAN', [2, 5, 16], [-1], True))
    add('mean_all_f32', _reducer('MEAN', [2, 3, 4], [0, 1, 2], False))
    add('mean_neg_dup_f32', _reducer('MEAN', [2, 3, 4, 5], [-3, 1, 3], False))
    add('mean_channels_i8', _reducer('MEAN', [1, 4, 5, 6], [3], True, 'int8', q=(0.05, -3), qo=(0.02, 4)))
    add('mean_hw_keep_i8', _reducer('MEAN', [1, 4, 5, 6], [1, 2], True, 'int8', q=(0.05, -3), qo=(0.01, 2)))
    add('mean_last_axis_u8', _reducer('MEAN', [3, 2, 10], [-1], False, 'uint8', q=(0.04, 128), qo=(0.01, 130)))
    add('mean_outer_same_q_u8', _reducer('MEAN', [4, 3, 5], [0], False, 'uint8', q=(0.03, 120)))
    add('mean_channels_i16', _reducer('MEAN', [2, 3, 8], [2], False, 'int16', q=(0.001, 0), qo=(0.0005, 0)))
    add('mean_hw_keep_i16', _reducer('MEAN', [1, 4, 4, 3], [1, 2], True, 'int16', q=(0.001, 0), qo=(0.0002, 0)))
    add('mean_threaded_columns_f32', _reducer('MEAN', [4, 8, 160], [1], False))
    add('mean_threaded_columns_i8', _reducer('MEAN', [2, 9, 192], [0, 1], True, 'int8', q=(0.05, 1), qo=(0.02, -1)))
    add('mean_i32', _reducer('MEAN', [3, 4, 5], [1], False, 'int32'))
    add('mean_i64', _reducer('MEAN', [3, 4, 5], [0, 2], True, 'int64'))

    # ARG_MIN
    def arg_min(shape, axis, type='float32', out='int32', axis_type='int32', q=None):
        def build(m):
            x = m.input(shape, type, q=q)
            a = m.const([1], [axis], axis_type)
            d = axis + len(shape) if axis < 0 else axis
            y = m.tensor([s for i, s in enumerate(shape) if i != d], out)
            m.op('ARG_MIN', [x, a], [y], 'ArgMinOptions', {'output_type': out.upper()})
            m.output(y)
        return build

    add('arg_min_channels_f32', arg_min([1, 4, 5, 7], 3))
    add('arg_min_axis1_i64_out_f32', arg_min([2, 9, 3], 1, out='int64'))
    add('arg_min_neg_axis_i64_axis_f32', arg_min([2, 3, 6], -3, axis_type='int64'))
    add('arg_min_u8', arg_min([3, 8], 1, 'uint8', q=(0.05, 128)))
    add('arg_min_i8', arg_min([4, 6], 0, 'int8', out='int64', q=(0.05, 0)))
    add('arg_min_i32', arg_min([3, 4, 5], 2, 'int32'))

    # LOG_SOFTMAX
    def log_softmax(shape, type='float32', q=None, qo=None):
        def build(m):
            x = m.input(shape, type, q=q)
            y = m.tensor(shape, type, q=qo)
            m.op('LOG_SOFTMAX', [x], [y], 'LogSoftmaxOptions', {})
            m.output(y)
        return build

    add('log_softmax_f32', log_softmax([2, 3, 10]))
    add('log_softmax_1d_f32', log_softmax([7]))
    add('log_softmax_u8', log_softmax([2, 16], 'uint8', q=(0.05, 128), qo=(16 / 256, 255)))
    add('log_softmax_i8', log_softmax([3, 2, 9], 'int8', q=(0.1, -5), qo=(16 / 256, 127)))

    # L2_NORMALIZATION
    def l2norm(shape, type='float32', q=None, qo=None):
        def build(m):
            x = m.input(shape, type, q=q)
            y = m.tensor(shape, type, q=qo)
            m.op('L2_NORMALIZATION', [x], [y], 'L2NormOptions', {'fused_activation_function': 'NONE'})
            m.output(y)
        return build

    add('l2_normalization_4d_f32', l2norm([1, 2, 3, 8]))
    add('l2_normalization_1d_f32', l2norm([6]))
    add('l2_normalization_u8', l2norm([2, 3, 5], 'uint8', q=(0.05, 120), qo=(1 / 128, 128)))
    add('l2_normalization_i8', l2norm([1, 4, 7], 'int8', q=(0.04, -3), qo=(1 / 128, 0)))

    # LOCAL_RESPONSE_NORMALIZATION
    def lrn(shape, radius, bias, alpha, beta):
        def build(m):
            x = m.input(shape)
            y = m.tensor(shape)
            m.op('LOCAL_RESPONSE_NORMALIZATION', [x], [y], 'LocalResponseNormalizationOptions',
                 {'radius': radius, 'bias': bias, 'alpha': alpha, 'beta': beta})
            m.output(y)
        return build

    add('local_response_normalization_r2', lrn([1, 3, 4, 9], 2, 1.0, 0.3, 0.75))
    add('local_response_normalization_r0', lrn([2, 2, 2, 5], 0, 2.0, 0.5, 0.5))
    add('local_response_normalization_wide', lrn([1, 2, 3, 6], 10, 0.5, 0.2, 1.0))

    # L2_POOL_2D
    def l2pool(shape, k, s, pad, act='NONE'):
        def build(m):
            def osz(n, kk, ss):
                return (n + ss - 1) // ss if pad == 'SAME' else (n - kk + ss) // ss
            x = m.input(shape)
            y = m.tensor([shape[0], osz(shape[1], k[0], s[0]), osz(shape[2], k[1], s[1]), shape[3]])
            m.op('L2_POOL_2D', [x], [y], 'Pool2DOptions', {'padding': pad, 'stride_h': s[0], 'stride_w': s[1],
                                                           'filter_height': k[0], 'filter_width': k[1],
                                                           'fused_activation_function': act})
            m.output(y)
        return build

    add('l2_pool_2d_2x2_s2_valid', l2pool([1, 6, 8, 3], (2, 2), (2, 2), 'VALID'))
    add('l2_pool_2d_3x3_s2_same', l2pool([2, 7, 9, 4], (3, 3), (2, 2), 'SAME'))
    add('l2_pool_2d_3x2_s1_same_relu6', l2pool([1, 5, 4, 2], (3, 2), (1, 1), 'SAME', 'RELU6'))
