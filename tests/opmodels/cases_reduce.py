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

    # REDUCE_ANY / REDUCE_ALL
    for op in ('REDUCE_ANY', 'REDUCE_ALL'):
        p = op.lower()
        add(p + '_channels_bool', _reducer(op, [2, 3, 4], [-1], False, 'bool'))
        add(p + '_outer_keep_bool', _reducer(op, [3, 2, 2], [0], True, 'bool'))
        add(p + '_all_bool', _reducer(op, [2, 3], [0, 1], False, 'bool'))
