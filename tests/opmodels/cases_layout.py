"""cases_layout.py - single-op models of the layout ops (make_opmodels.py loads this module).

register(mk) adds cases through mk.litert_case (golden from the native TensorFlow Lite,
every tensor type fed and read directly) or mk.case (the wasm oracle).

Quantized cases keep one (scale, zero point) on input and output, as TFLite requires for
ops that only move values; graph inputs are Gaussian (integers rounded, bool z > 0).
"""

Q8 = (0.05, 3)       # int8
QU8 = (0.05, 128)    # uint8
Q16 = (0.001, 0)     # int16 (symmetric)


def _q(t):
    return {'int8': Q8, 'uint8': QU8, 'int16': Q16}.get(t)


def register(mk):
    def layout_case(name, op, opt_type, in_shape, out_shape, params=(), t='float32', opt=None, version=1,
                    extra_inputs=()):
        """One op: a graph input of in_shape (type t), constant index inputs params
        [(shape, values, type)], more graph inputs extra_inputs [shape], one output."""
        @mk.litert_case(name)
        def _(m):
            x = m.input(in_shape, t, q=_q(t))
            ins = [x] + [m.input(s, t, q=_q(t)) for s in extra_inputs]
            ins += [m.const(s, v, pt) for s, v, pt in params]
            y = m.tensor(out_shape, t, q=_q(t))
            m.op(op, ins, [y], opt_type, opt, version=version)
            m.output(y)

    # ---- TRANSPOSE (perm int32, negative values allowed)
    @mk.litert_case('transpose_nchw_to_nhwc')
    def _(m):
        x = m.input([1, 3, 4, 5])
        perm = m.const([4], [0, 2, 3, 1], 'int32')
        y = m.tensor([1, 4, 5, 3])
        m.op('TRANSPOSE', [x, perm], [y], 'TransposeOptions')
        m.output(y)

    tr = lambda name, shape, perm, t='float32': layout_case(  # noqa: E731
        name, 'TRANSPOSE', 'TransposeOptions', shape, [shape[p if p >= 0 else p + len(shape)] for p in perm],
        [([len(perm)], perm, 'int32')], t)
    tr('transpose_nchw_to_nhwc_96', [1, 3, 96, 96], [0, 2, 3, 1])             # an image model's first op
    tr('transpose_nhwc_to_nchw_tiled', [1, 40, 48, 32], [0, 3, 1, 2])         # the tiled path
    tr('transpose_2d_tiled_u8', [70, 45], [1, 0], 'uint8')
    tr('transpose_5d_i8', [2, 3, 4, 2, 3], [4, 1, 0, 3, 2], 'int8')
    tr('transpose_6d', [2, 1, 3, 2, 2, 3], [5, 4, 3, 2, 1, 0])
    tr('transpose_2d_bool', [5, 7], [1, 0], 'bool')
    tr('transpose_3d_i64', [3, 4, 5], [2, 0, 1], 'int64')
    tr('transpose_3d_i32', [3, 4, 5], [1, 2, 0], 'int32')
    tr('transpose_4d_i16', [2, 3, 4, 5], [3, 2, 1, 0], 'int16')
    tr('transpose_neg_perm', [2, 3, 4], [-1, 0, -2])
    tr('transpose_1d', [7], [0])
    tr('transpose_unit_dims_i8', [1, 1, 5, 1], [3, 2, 0, 1], 'int8')

    # ---- SLICE (begin/size int32 or int64, size -1 = to the end)
    layout_case('slice_4d', 'SLICE', 'SliceOptions', [2, 5, 6, 4], [1, 3, 3, 4],
                [([4], [1, 1, 2, 0], 'int32'), ([4], [1, 3, 3, 4], 'int32')])
    layout_case('slice_minus1_i64', 'SLICE', 'SliceOptions', [3, 4, 5], [2, 4, 3],
                [([3], [1, 0, 2], 'int64'), ([3], [-1, -1, 3], 'int64')])
    layout_case('slice_2d_i8', 'SLICE', 'SliceOptions', [6, 7], [3, 4],
                [([2], [2, 3], 'int32'), ([2], [3, -1], 'int32')], 'int8')
    layout_case('slice_3d_i16', 'SLICE', 'SliceOptions', [3, 4, 5], [2, 1, 5],
                [([3], [0, 3, 0], 'int32'), ([3], [2, 1, -1], 'int32')], 'int16')
    layout_case('slice_bool', 'SLICE', 'SliceOptions', [4, 5], [2, 2],
                [([2], [1, 2], 'int32'), ([2], [2, 2], 'int32')], 'bool')
    layout_case('slice_5d_i32', 'SLICE', 'SliceOptions', [2, 3, 2, 4, 3], [1, 2, 2, 2, 1],
                [([5], [1, 0, 0, 1, 2], 'int32'), ([5], [1, 2, -1, 2, 1], 'int32')], 'int32')
    # begin + size past the end: TFLite (LiteRT 2.3) clamps the size to what is left
    layout_case('slice_size_clamped', 'SLICE', 'SliceOptions', [4, 5], [1, 4],
                [([2], [3, 1], 'int32'), ([2], [2, 4], 'int32')])

    # ---- SPLIT (axis: input 0, int32) and SPLIT_V (size_splits with one -1)
    def split_case(name, shape, axis, num, t='float32'):
        @mk.litert_case(name)
        def _(m):
            a = m.const([], [axis], 'int32')
            x = m.input(shape, t, q=_q(t))
            ax = axis if axis >= 0 else axis + len(shape)
            oshape = [d // num if i == ax else d for i, d in enumerate(shape)]
            ys = [m.tensor(oshape, t, q=_q(t)) for _ in range(num)]
            m.op('SPLIT', [a, x], ys, 'SplitOptions', {'num_splits': num})
            for y in ys:
                m.output(y)
    split_case('split_axis_neg1_3', [2, 3, 6], -1, 3)
    split_case('split_axis0_i8', [4, 3, 2], 0, 2, 'int8')
    split_case('split_axis1_i16', [2, 6, 3], 1, 3, 'int16')
    split_case('split_axis2_i32', [2, 2, 4, 3], 2, 4, 'int32')
    split_case('split_one_u8', [3, 5], 1, 1, 'uint8')
    split_case('split_axis0_i64', [4, 3], 0, 4, 'int64')

    def split_v_case(name, shape, sizes, axis, t='float32', st='int32'):
        @mk.litert_case(name)
        def _(m):
            x = m.input(shape, t, q=_q(t))
            s = m.const([len(sizes)], sizes, st)
            a = m.const([], [axis], 'int32')
            ax = axis if axis >= 0 else axis + len(shape)
            rest = shape[ax] - sum(v for v in sizes if v != -1)
            ys = [m.tensor([(v if v != -1 else rest) if i == ax else d for i, d in enumerate(shape)], t, q=_q(t))
                  for v in sizes]
            m.op('SPLIT_V', [x, s, a], ys, 'SplitVOptions', {'num_splits': len(sizes)})
            for y in ys:
                m.output(y)
    split_v_case('split_v_minus1', [2, 10], [3, -1, 2], 1)
    split_v_case('split_v_i64_sizes', [7, 3], [2, 5], 0, 'float32', 'int64')
    split_v_case('split_v_axis_neg_i8', [2, 3, 9], [4, 1, 4], -1, 'int8')
    split_v_case('split_v_i64', [6, 2], [1, 2, 3], 0, 'int64')

    # ---- PACK, UNPACK (axis negative allowed)
    def pack_case(name, shape, count, axis, t='float32'):
        @mk.litert_case(name)
        def _(m):
            xs = [m.input(shape, t, q=_q(t)) for _ in range(count)]
            r = len(shape) + 1
            ax = axis if axis >= 0 else axis + r
            y = m.tensor(shape[:ax] + [count] + shape[ax:], t, q=_q(t))
            m.op('PACK', xs, [y], 'PackOptions', {'values_count': count, 'axis': axis})
            m.output(y)
    pack_case('pack_axis0_i32', [3, 4], 2, 0, 'int32')
    pack_case('pack_axis_neg1', [2, 3], 3, -1)
    pack_case('pack_axis1_i8', [2, 3, 2], 4, 1, 'int8')
    pack_case('pack_axis2_i64', [2, 3], 2, 2, 'int64')
    pack_case('pack_axis1_i16', [4], 3, 1, 'int16')
    pack_case('pack_single', [2, 2], 1, 0)

    def unpack_case(name, shape, axis, t='float32'):
        @mk.litert_case(name)
        def _(m):
            x = m.input(shape, t, q=_q(t))
            ax = axis if axis >= 0 else axis + len(shape)
            ys = [m.tensor(shape[:ax] + shape[ax + 1:], t, q=_q(t)) for _ in range(shape[ax])]
            m.op('UNPACK', [x], ys, 'UnpackOptions', {'num': shape[ax], 'axis': axis})
            for y in ys:
                m.output(y)
    unpack_case('unpack_axis1', [2, 3, 4], 1)
    unpack_case('unpack_axis_neg1_i8', [3, 2, 4], -1, 'int8')
    unpack_case('unpack_axis0_bool', [3, 5], 0, 'bool')
    unpack_case('unpack_axis0_i32', [2, 3], 0, 'int32')
    unpack_case('unpack_num1_u8', [3, 1], 1, 'uint8')

    # ---- TILE (multiples int32 or int64)
    tile = lambda name, shape, mult, t='float32', mt='int32': layout_case(  # noqa: E731
        name, 'TILE', 'TileOptions', shape, [d * k for d, k in zip(shape, mult)], [([len(mult)], mult, mt)], t)
    tile('tile_3d', [2, 3, 2], [2, 1, 3])
    tile('tile_1d_i8', [5], [4], 'int8')
    tile('tile_2d_bool_i64mult', [2, 3], [3, 2], 'bool', 'int64')
    tile('tile_4d_i64', [1, 2, 1, 3], [2, 1, 3, 1], 'int64')
    tile('tile_2d_u8', [3, 4], [1, 1], 'uint8')
    tile('tile_3d_i16', [2, 1, 3], [1, 3, 2], 'int16')

    # ---- BROADCAST_TO (version 2 in TFLite's registration)
    bc = lambda name, shape, to, t='float32', st='int32': layout_case(  # noqa: E731
        name, 'BROADCAST_TO', 'BroadcastToOptions', shape, to, [([len(to)], to, st)], t, version=2)
    bc('broadcast_to_5d', [1, 3, 1, 2, 1], [2, 3, 4, 2, 3])
    bc('broadcast_to_rank_up_i8', [3], [2, 4, 3], 'int8')
    bc('broadcast_to_i64_shape_bool', [2, 1], [3, 2, 4], 'bool', 'int64')
    bc('broadcast_to_same_i32', [2, 3], [2, 3], 'int32')
    bc('broadcast_to_scalar', [], [2, 3])

    # ---- EXPAND_DIMS (axis int32 or int64, negative: counted from the end of the output)
    ed = lambda name, shape, axis, t='float32', at='int32': layout_case(  # noqa: E731
        name, 'EXPAND_DIMS', 'ExpandDimsOptions', shape,
        shape[:axis if axis >= 0 else axis + len(shape) + 1] + [1] + shape[axis if axis >= 0 else axis + len(shape) + 1:],
        [([1], [axis], at)], t)
    ed('expand_dims_neg', [2, 3], -1)
    ed('expand_dims_0_i64axis', [2, 3], 0, 'float32', 'int64')
    ed('expand_dims_mid_i8', [2, 3, 4], 2, 'int8')
    ed('expand_dims_neg3_bool', [4, 2], -3, 'bool')
    ed('expand_dims_scalar', [], 0)

    # ---- REVERSE_V2 (axes int32, several allowed)
    rv = lambda name, shape, axes, t='float32': layout_case(  # noqa: E731
        name, 'REVERSE_V2', 'ReverseV2Options', shape, shape, [([len(axes)], axes, 'int32')], t)
    rv('reverse_v2_axes', [2, 3, 4], [1, 2])
    rv('reverse_v2_axes_4d_i16', [2, 3, 2, 4], [2, 0, 1], 'int16')
    rv('reverse_v2_last_i8', [3, 5], [1], 'int8')
    rv('reverse_v2_first_i64', [4, 3], [0], 'int64')
    rv('reverse_v2_all_bool', [2, 3, 2], [0, 1, 2], 'bool')
    rv('reverse_v2_mid_u8', [2, 5, 3], [1], 'uint8')
    rv('reverse_v2_neg_axis_i32', [3, 4], [-1], 'int32')

    # ---- MIRROR_PAD (REFLECT / SYMMETRIC; paddings int32 or int64)
    def mp(name, shape, pads, mode, t='float32', pt='int32'):
        out = [d + a + b for d, (a, b) in zip(shape, pads)]
        flat = [v for p in pads for v in p]
        layout_case(name, 'MIRROR_PAD', 'MirrorPadOptions', shape, out, [([len(shape), 2], flat, pt)], t,
                    opt={'mode': mode})
    mp('mirror_pad_reflect', [1, 4, 5, 2], [(0, 0), (2, 3), (1, 4), (0, 0)], 'REFLECT')
    mp('mirror_pad_symmetric', [1, 4, 5, 2], [(0, 0), (4, 1), (5, 2), (0, 0)], 'SYMMETRIC')
    mp('mirror_pad_reflect_i8', [3, 4], [(1, 2), (3, 0)], 'REFLECT', 'int8')
    mp('mirror_pad_symmetric_i64pads', [2, 3, 3], [(1, 1), (0, 3), (2, 2)], 'SYMMETRIC', 'float32', 'int64')
    mp('mirror_pad_reflect_i32', [5], [(4, 4)], 'REFLECT', 'int32')
    mp('mirror_pad_symmetric_zero_u8', [2, 3], [(0, 0), (0, 2)], 'SYMMETRIC', 'uint8')
    mp('mirror_pad_symmetric_i16', [3, 2], [(3, 2), (1, 2)], 'SYMMETRIC', 'int16')
    mp('mirror_pad_reflect_bool', [4, 3], [(1, 1), (2, 0)], 'REFLECT', 'bool')

    # ---- SPACE_TO_DEPTH (NHWC)
    s2d = lambda name, shape, b, t='float32': layout_case(  # noqa: E731
        name, 'SPACE_TO_DEPTH', 'SpaceToDepthOptions', shape,
        [shape[0], shape[1] // b, shape[2] // b, shape[3] * b * b], t=t, opt={'block_size': b})
    s2d('space_to_depth_2', [1, 4, 6, 3], 2)
    s2d('space_to_depth_3_i8', [2, 6, 3, 2], 3, 'int8')
    s2d('space_to_depth_2_i64', [1, 2, 4, 1], 2, 'int64')
    s2d('space_to_depth_2_u8', [1, 4, 4, 5], 2, 'uint8')

    # ---- SPACE_TO_BATCH_ND, BATCH_TO_SPACE_ND (block_shape, paddings / crops)
    def s2b(name, shape, block, pads, t='float32'):
        out = [shape[0] * __import__('math').prod(block)]
        out += [(shape[1 + i] + a + b) // block[i] for i, (a, b) in enumerate(pads)]
        out += shape[1 + len(block):]
        flat = [v for p in pads for v in p]
        layout_case(name, 'SPACE_TO_BATCH_ND', 'SpaceToBatchNDOptions', shape, out,
                    [([len(block)], block, 'int32'), ([len(block), 2], flat, 'int32')], t)
    s2b('space_to_batch_nd', [1, 4, 4, 3], [2, 2], [(0, 0), (0, 0)])
    s2b('space_to_batch_nd_pad', [2, 3, 5, 2], [2, 3], [(1, 0), (2, 2)])
    s2b('space_to_batch_nd_pad_i8', [1, 5, 2, 3], [3, 2], [(2, 2), (1, 1)], 'int8')   # padding = zero point
    s2b('space_to_batch_nd_3d', [2, 6, 3], [3], [(1, 2)])
    s2b('space_to_batch_nd_pad_u8', [1, 2, 3, 1], [2, 2], [(1, 1), (0, 1)], 'uint8')
    s2b('space_to_batch_nd_pad_i16', [1, 3, 2, 2], [2, 2], [(0, 1), (1, 1)], 'int16')

    def b2s(name, shape, block, crops, t='float32'):
        import math
        out = [shape[0] // math.prod(block)]
        out += [shape[1 + i] * block[i] - a - b for i, (a, b) in enumerate(crops)]
        out += shape[1 + len(block):]
        flat = [v for p in crops for v in p]
        layout_case(name, 'BATCH_TO_SPACE_ND', 'BatchToSpaceNDOptions', shape, out,
                    [([len(block)], block, 'int32'), ([len(block), 2], flat, 'int32')], t)
    b2s('batch_to_space_nd', [4, 2, 3, 2], [2, 2], [(0, 0), (0, 0)])
    b2s('batch_to_space_nd_crops', [12, 2, 3, 2], [2, 3], [(1, 0), (2, 3)])
    b2s('batch_to_space_nd_crops_i8', [8, 3, 2, 3], [2, 2], [(1, 1), (0, 1)], 'int8')
    b2s('batch_to_space_nd_3d', [6, 3, 2], [3], [(2, 1)])
    b2s('batch_to_space_nd_i32', [4, 1, 2, 1], [2, 2], [(0, 1), (1, 0)], 'int32')
    b2s('batch_to_space_nd_i16', [4, 2, 2, 3], [2, 2], [(1, 0), (0, 0)], 'int16')
    b2s('batch_to_space_nd_bool', [2, 3, 2], [2], [(0, 1)], 'bool')

    # ---- REVERSE_SEQUENCE (seq_lengths int32 or int64)
    def rs(name, shape, lens, seq, batch, t='float32', lt='int32'):
        layout_case(name, 'REVERSE_SEQUENCE', 'ReverseSequenceOptions', shape, shape, [([len(lens)], lens, lt)], t,
                    opt={'seq_dim': seq, 'batch_dim': batch})
    rs('reverse_sequence_seq1_batch0', [3, 5, 2], [5, 2, 0], 1, 0)
    rs('reverse_sequence_seq0_batch2_i64len', [4, 2, 3], [1, 4, 3], 0, 2, 'float32', 'int64')
    rs('reverse_sequence_i16', [2, 4], [3, 4], 1, 0, 'int16')
    rs('reverse_sequence_u8', [2, 3, 4], [1, 4], 2, 0, 'uint8')
    rs('reverse_sequence_i32', [3, 4], [2, 3, 1, 0], 0, 1, 'int32')

    # ---- MATRIX_DIAG, MATRIX_SET_DIAG
    md = lambda name, shape, t='float32': layout_case(  # noqa: E731
        name, 'MATRIX_DIAG', 'MatrixDiagOptions', shape, shape + [shape[-1]], t=t)
    md('matrix_diag_2d', [2, 4])
    md('matrix_diag_3d_i8', [2, 2, 3], 'int8')
    md('matrix_diag_1d_i64', [5], 'int64')
    md('matrix_diag_i16', [2, 3], 'int16')

    msd = lambda name, shape, t='float32': layout_case(  # noqa: E731
        name, 'MATRIX_SET_DIAG', 'MatrixSetDiagOptions', shape, shape, t=t,
        extra_inputs=[shape[:-2] + [min(shape[-2:])]])
    msd('matrix_set_diag_3d', [2, 3, 4])
    msd('matrix_set_diag_tall_i32', [5, 2], 'int32')
    msd('matrix_set_diag_i8', [2, 3, 3], 'int8')
    msd('matrix_set_diag_u8', [1, 2, 4, 3], 'uint8')
    msd('matrix_set_diag_i64', [3, 2], 'int64')

    # ---- DYNAMIC_UPDATE_SLICE (start indices int32 or int64, clamped so the update fits)
    def dus(name, shape, ushape, start, t='float32', it='int32', start_input=False):
        @mk.litert_case(name)
        def _(m):
            x = m.input(shape, t, q=_q(t))
            u = m.input(ushape, t, q=_q(t))
            s = m.const([len(start)], start, it)
            y = m.tensor(shape, t, q=_q(t))
            m.op('DYNAMIC_UPDATE_SLICE', [x, u, s], [y], 'DynamicUpdateSliceOptions')
            m.output(y)
    dus('dynamic_update_slice_2d', [4, 5], [2, 3], [1, 2])
    dus('dynamic_update_slice_clamp', [4, 5, 3], [2, 3, 3], [3, -2, 7])
    dus('dynamic_update_slice_i8', [3, 4], [1, 4], [2, 0], 'int8')
    dus('dynamic_update_slice_i64idx_bool', [2, 3, 4], [1, 2, 2], [1, 1, 2], 'bool', 'int64')
    dus('dynamic_update_slice_full_i32', [2, 3], [2, 3], [5, 5], 'int32')
    dus('dynamic_update_slice_i16', [4, 4], [2, 1], [1, 3], 'int16')
    dus('dynamic_update_slice_4d_i64', [1, 3, 4, 2], [1, 2, 2, 2], [0, 1, 1, 0], 'int64')
