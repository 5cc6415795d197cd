"""cases_index.py - single-op models of the index ops (make_opmodels.py loads this module).

register(mk) adds cases through mk.litert_case (golden from the native TensorFlow Lite,
every tensor type fed and read directly) or mk.case (the wasm oracle).
"""
import math

Q8 = {'int8': (0.05, 3), 'uint8': (0.05, 128), 'int16': (0.002, 0)}


def register(mk):
    def single(name, code, opt_type, build_inputs, out_shape, out_type='float32', opt=None, out_q=None, extra_outs=()):
        @mk.litert_case(name)
        def _(m):
            ins = build_inputs(m)
            y = m.tensor(out_shape, out_type, q=out_q)
            outs = [y] + [m.tensor(s, t) for s, t in extra_outs]
            m.op(code, ins, outs, opt_type, opt or {})
            for o in outs:
                m.output(o)

    # ---- GATHER
    def gather(name, p_shape, p_type, idx_shape, idx_vals, idx_type, axis, bd, out_shape):
        q = Q8.get(p_type)
        single(name, 'GATHER', 'GatherOptions',
               lambda m: [m.input(p_shape, p_type, q=q), m.const(idx_shape, idx_vals, idx_type)],
               out_shape, p_type, {'axis': axis, 'batch_dims': bd}, out_q=q)

    gather('gather_axis0_f32', [5, 3], 'float32', [4], [4, 0, 2, 2], 'int32', 0, 0, [4, 3])
    gather('gather_axis1_i8', [2, 6, 3], 'int8', [2, 2], [5, 0, 1, 1], 'int32', 1, 0, [2, 2, 2, 3])
    gather('gather_neg_axis_u8', [3, 5], 'uint8', [3], [4, 0, 3], 'int64', -1, 0, [3, 3])
    gather('gather_axis2_i16', [2, 3, 4], 'int16', [2], [3, 1], 'int32', 2, 0, [2, 3, 2])
    gather('gather_i32_idx64', [4, 2], 'int32', [2, 3], [0, 3, 3, 1, 2, 0], 'int64', 0, 0, [2, 3, 2])
    gather('gather_i64', [6], 'int64', [4], [5, 4, 0, 1], 'int32', 0, 0, [4])
    gather('gather_bool', [3, 4], 'bool', [2], [3, 0], 'int32', 1, 0, [3, 2])
    gather('gather_scalar_index', [4, 3], 'float32', [], [2], 'int32', 0, 0, [3])
    gather('gather_batch_dims1', [2, 5, 3], 'float32', [2, 4], [0, 4, 4, 1, 3, 2, 0, 0], 'int32', 1, 1, [2, 4, 3])
    gather('gather_batch_dims_neg', [2, 3, 4], 'float32', [2, 2], [1, 0, 2, 2], 'int32', 1, -1, [2, 2, 4])
    gather('gather_batch_dims2_axis2', [2, 2, 5, 2], 'int8', [2, 2, 3], [0, 1, 4, 4, 3, 2, 1, 1, 0, 2, 3, 4], 'int32', 2, 2,
           [2, 2, 3, 2])
    gather('gather_idx_i16', [5, 2], 'float32', [3], [4, 1, 0], 'int16', 0, 0, [3, 2])

    # ---- GATHER_ND
    def gather_nd(name, p_shape, p_type, idx_shape, idx_vals, idx_type, out_shape):
        q = Q8.get(p_type)
        single(name, 'GATHER_ND', 'GatherNdOptions',
               lambda m: [m.input(p_shape, p_type, q=q), m.const(idx_shape, idx_vals, idx_type)], out_shape, p_type,
               out_q=q)

    gather_nd('gather_nd_f32', [3, 4, 2], 'float32', [2, 2], [2, 3, 0, 1], 'int32', [2, 2])
    gather_nd('gather_nd_full_depth', [3, 4], 'float32', [3, 2], [2, 3, 0, 0, 1, 2], 'int32', [3])
    gather_nd('gather_nd_depth1_i8', [4, 3], 'int8', [2, 2, 1], [3, 0, 1, 1], 'int32', [2, 2, 3])
    gather_nd('gather_nd_i64_idx', [2, 3, 4], 'int32', [2, 2], [1, 2, 0, 1], 'int64', [2, 4])
    gather_nd('gather_nd_u8', [3, 3], 'uint8', [1, 2], [2, 1], 'int32', [1])
    gather_nd('gather_nd_bool', [2, 3], 'bool', [2, 1], [1, 0], 'int32', [2, 3])
    gather_nd('gather_nd_i64', [4, 2], 'int64', [3, 1], [3, 0, 2], 'int32', [3, 2])
    gather_nd('gather_nd_idx_i16', [4, 2], 'float32', [2, 2], [3, 1, 0, 0], 'int16', [2])

    # ---- SCATTER_ND
    def scatter_nd(name, idx_shape, idx_vals, up_shape, up_type, shape, idx_type='int32'):
        q = Q8.get(up_type)
        single(name, 'SCATTER_ND', 'ScatterNdOptions',
               lambda m: [m.const(idx_shape, idx_vals, idx_type), m.input(up_shape, up_type, q=q),
                          m.const([len(shape)], shape, idx_type)], shape, up_type, out_q=q)

    scatter_nd('scatter_nd_f32', [4, 1], [4, 3, 1, 7], [4], 'float32', [8])
    scatter_nd('scatter_nd_slices', [2, 1], [0, 2], [2, 4, 4], 'float32', [4, 4, 4])
    scatter_nd('scatter_nd_2d_dup_i32', [4, 2], [0, 1, 2, 2, 0, 1, 1, 0], [4], 'int32', [3, 3])
    scatter_nd('scatter_nd_i8', [3, 1], [1, 0, 3], [3, 2], 'int8', [5, 2])
    scatter_nd('scatter_nd_u8', [2, 2], [1, 1, 0, 2], [2], 'uint8', [2, 3])
    scatter_nd('scatter_nd_i64', [2, 1], [2, 0], [2, 3], 'int64', [3, 3])
    scatter_nd('scatter_nd_bool', [3, 1], [2, 0, 2], [3], 'bool', [4])

    # ---- SHAPE, RANK
    single('shape_i32', 'SHAPE', 'ShapeOptions', lambda m: [m.input([2, 3, 4])], [3], 'int32', {'out_type': 'INT32'})
    single('shape_i64_i8', 'SHAPE', 'ShapeOptions', lambda m: [m.input([1, 5, 2, 7], 'int8', q=Q8['int8'])], [4], 'int64',
           {'out_type': 'INT64'})
    single('rank_4d', 'RANK', 'RankOptions', lambda m: [m.input([2, 1, 3, 2])], [], 'int32')
    single('rank_scalar_i32', 'RANK', 'RankOptions', lambda m: [m.input([], 'int32')], [], 'int32')

    # ---- FILL
    def fill(name, dims, dims_type, v_type, v_const=None):
        q = Q8.get(v_type)

        def ins(m):
            d = m.const([len(dims)], dims, dims_type)
            v = m.const([], [v_const], v_type, q=q) if v_const is not None else m.input([], v_type, q=q)
            return [d, v]
        single(name, 'FILL', 'FillOptions', ins, dims, v_type, out_q=q)

    fill('fill_f32_input_value', [2, 3], 'int32', 'float32')
    fill('fill_i32', [4, 1, 2], 'int32', 'int32', 7)
    fill('fill_i64_dims_i64', [3, 2], 'int64', 'int64', -5)
    fill('fill_bool', [5], 'int32', 'bool', True)
    fill('fill_i8', [2, 2], 'int32', 'int8', -7)
    fill('fill_i16', [3], 'int64', 'int16', 300)
    fill('fill_scalar_out', [], 'int32', 'float32')

    # ---- ZEROS_LIKE
    for t in ('float32', 'int32', 'int64'):
        single('zeros_like_' + t, 'ZEROS_LIKE', 'ZerosLikeOptions', lambda m, t=t: [m.input([2, 3, 2], t)], [2, 3, 2], t)

    # ---- RANGE
    def rng(name, t, s, l, d):
        if t == 'float32':
            n = int(math.ceil(abs((l - s) / d)))
        else:
            n = (abs(l - s) + abs(d) - 1) // abs(d)
        single(name, 'RANGE', 'RangeOptions', lambda m: [m.const([], [s], t), m.const([], [l], t), m.const([], [d], t)],
               [n], t)

    rng('range_i32', 'int32', 2, 17, 3)
    rng('range_i32_neg_delta', 'int32', 10, -3, -4)
    rng('range_i64', 'int64', -5, 6, 2)
    rng('range_f32', 'float32', 0.5, 3.7, 0.3)
    rng('range_f32_neg', 'float32', 1.0, -2.0, -0.25)

    # ---- ONE_HOT
    def one_hot(name, idx_shape, idx_type, depth, axis, t, on, off, idx_vals=None):
        q = Q8.get(t)

        def ins(m):
            idx = m.const(idx_shape, idx_vals, idx_type) if idx_vals else m.input(idx_shape, idx_type)
            return [idx, m.const([], [depth], 'int32'), m.const([], [on], t, q=q), m.const([], [off], t, q=q)]
        a = len(idx_shape) if axis == -1 else axis
        out = list(idx_shape[:a]) + [depth] + list(idx_shape[a:])
        single(name, 'ONE_HOT', 'OneHotOptions', ins, out, t, {'axis': axis}, out_q=q)

    one_hot('one_hot_f32', [5], 'int32', 4, -1, 'float32', 1.0, 0.0, [0, 2, -1, 5, 3])
    one_hot('one_hot_axis0_input_idx', [2, 3], 'int32', 3, 0, 'float32', 2.5, -1.0)
    one_hot('one_hot_axis1_i64_idx', [2, 3], 'int64', 4, 1, 'int32', 9, -2, [0, 1, 2, 3, 3, 0])
    one_hot('one_hot_i64', [4], 'int32', 3, -1, 'int64', 1, 0, [2, 2, 0, 1])
    one_hot('one_hot_bool', [3], 'int32', 2, -1, 'bool', True, False, [1, 0, 7])
    one_hot('one_hot_i8', [3], 'int32', 3, -1, 'int8', 20, -20, [0, 2, 1])
    one_hot('one_hot_u8', [2, 2], 'int32', 2, -1, 'uint8', 200, 10, [1, 0, 0, 1])

    # ---- CAST
    cast_q = {'int8': (0.02, 0), 'uint8': (0.02, 100), 'int16': (0.001, 0), 'int32': (0.0005, 0), 'int64': (0.0005, 0)}
    pairs = [('float32', t) for t in ('int32', 'int64', 'int16', 'uint8', 'int8', 'bool')]
    pairs += [(t, 'float32') for t in ('int32', 'int64', 'int16', 'uint8', 'int8', 'bool')]
    pairs += [('int32', 'int64'), ('int64', 'int32'), ('int32', 'uint8'), ('int32', 'int8'), ('int32', 'int16'),
              ('int32', 'bool'), ('bool', 'int32'), ('uint8', 'int8'), ('int8', 'uint8'), ('int16', 'int32'),
              ('uint8', 'int32'), ('int8', 'int64'), ('int64', 'bool'), ('bool', 'uint8'), ('int16', 'int8')]
    every = ('float32', 'int8', 'uint8', 'int16', 'int32', 'int64', 'bool')
    pairs += [(a, b) for a in every for b in every if a != b and (a, b) not in pairs]
    short = {'float32': 'f32', 'int32': 'i32', 'int64': 'i64', 'int16': 'i16', 'uint8': 'u8', 'int8': 'i8', 'bool': 'bool'}
    for a, b in pairs:
        # integer inputs quantized only so that the Gaussian feed spans a wide range
        single('cast_%s_%s' % (short[a], short[b]), 'CAST', 'CastOptions',
               lambda m, a=a: [m.input([3, 7], a, q=cast_q.get(a))], [3, 7], b,
               {'in_data_type': a.upper(), 'out_data_type': b.upper()})

    @mk.litert_case('cast_f32_i32_scaled')
    def _(m):
        x = m.input([4, 8])
        k = m.const([], [40.0])
        xs = m.tensor([4, 8])
        m.op('MUL', [x, k], [xs], 'MulOptions', {})
        y = m.tensor([4, 8], 'int32')
        m.op('CAST', [xs], [y], 'CastOptions', {})
        m.output(y)

    # ---- SELECT, SELECT_V2
    def select(name, code, c_shape, x_shape, y_shape, t, out_shape):
        q = Q8.get(t)
        opt = 'SelectOptions' if code == 'SELECT' else 'SelectV2Options'
        single(name, code, opt,
               lambda m: [m.input(c_shape, 'bool'), m.input(x_shape, t, q=q), m.input(y_shape, t, q=q)], out_shape, t,
               out_q=q)

    select('select_f32', 'SELECT', [2, 3, 4], [2, 3, 4], [2, 3, 4], 'float32', [2, 3, 4])
    select('select_rank1_cond', 'SELECT', [3], [3, 2, 2], [3, 2, 2], 'float32', [3, 2, 2])
    select('select_i8', 'SELECT', [4, 5], [4, 5], [4, 5], 'int8', [4, 5])
    select('select_i32', 'SELECT', [6], [6], [6], 'int32', [6])
    select('select_v2_same_u8', 'SELECT_V2', [3, 4], [3, 4], [3, 4], 'uint8', [3, 4])
    select('select_v2_bcast', 'SELECT_V2', [1, 4], [3, 1], [3, 4], 'float32', [3, 4])
    select('select_v2_bcast_4d', 'SELECT_V2', [2, 1, 3, 1], [1, 4, 1, 2], [3, 2], 'float32', [2, 4, 3, 2])
    select('select_v2_scalar_cond_i64', 'SELECT_V2', [], [2, 3], [2, 3], 'int64', [2, 3])
    select('select_v2_bool', 'SELECT_V2', [2, 2], [2], [2, 1], 'bool', [2, 2])
    select('select_v2_i16', 'SELECT_V2', [5], [2, 5], [1], 'int16', [2, 5])

    # ---- WHERE (constant condition only: its output shape depends on the values)
    single('where_const_bool', 'WHERE', 'WhereOptions',
           lambda m: [m.const([3, 4], [True, False, False, True, False, True, True, False, False, False, False, True], 'bool')],
           [5, 2], 'int64')
    single('where_const_f32', 'WHERE', 'WhereOptions',
           lambda m: [m.const([2, 2, 2], [0.0, 1.5, 0.0, 0.0, -2.0, 0.0, 3.0, 0.0], 'float32')], [3, 3], 'int64')

    # ---- TOPK_V2
    def topk(name, shape, t, k, idx_type='int32'):
        q = Q8.get(t)
        single(name, 'TOPK_V2', 'TopKV2Options', lambda m: [m.input(shape, t, q=q), m.const([], [k], 'int32')],
               shape[:-1] + [k], t, out_q=q, extra_outs=[(shape[:-1] + [k], idx_type)])

    topk('topk_v2_f32', [3, 10], 'float32', 3)
    topk('topk_v2_i32_ties', [4, 12], 'int32', 5)
    topk('topk_v2_u8', [2, 3, 8], 'uint8', 4)
    topk('topk_v2_i8_ties', [16], 'int8', 16)
    topk('topk_v2_i64', [2, 6], 'int64', 1)
    topk('topk_v2_i16', [3, 5], 'int16', 2)

    # ---- CUMSUM
    def cumsum(name, shape, t, axis, excl, rev):
        single(name, 'CUMSUM', 'CumsumOptions', lambda m: [m.input(shape, t), m.const([], [axis], 'int32')], shape, t,
               {'exclusive': excl, 'reverse': rev})

    cumsum('cumsum_f32_axis1', [2, 5, 3], 'float32', 1, False, False)
    cumsum('cumsum_exclusive', [3, 4], 'float32', 1, True, False)
    cumsum('cumsum_reverse', [4, 3], 'float32', 0, False, True)
    cumsum('cumsum_excl_rev_neg_axis', [2, 3, 4], 'float32', -1, True, True)
    cumsum('cumsum_i32', [3, 6], 'int32', -2, False, False)
    cumsum('cumsum_i64_excl', [7], 'int64', 0, True, False)

    # ---- NON_MAX_SUPPRESSION_V4 / V5
    def nms(name, nboxes, max_out, iou, score_t, sigma=None):
        code = 'NON_MAX_SUPPRESSION_V4' if sigma is None else 'NON_MAX_SUPPRESSION_V5'

        @mk.litert_case(name)
        def _(m):
            raw = m.input([nboxes, 4])
            # boxes spread over [-1, 2] with sides of 0.25..1.25: plenty of overlaps
            off = m.const([4], [0.0, 0.0, 0.75, 0.75])
            sizes = m.const([nboxes, 4], [m.rng.uniform(0, 0.5) if k >= 2 else 0.0
                                          for _ in range(nboxes) for k in range(4)])
            b1 = m.tensor([nboxes, 4])
            m.op('ADD', [raw, off], [b1], 'AddOptions', {})
            boxes = m.tensor([nboxes, 4])
            m.op('ADD', [b1, sizes], [boxes], 'AddOptions', {})
            scores = m.input([nboxes])
            ins = [boxes, scores, m.const([], [max_out], 'int32'), m.const([], [iou]), m.const([], [score_t])]
            outs = [m.tensor([max_out], 'int32')]
            if sigma is not None:
                ins.append(m.const([], [sigma]))
                outs.append(m.tensor([max_out]))
            outs.append(m.tensor([], 'int32'))
            m.op(code, ins, outs, 'NonMaxSuppressionV%dOptions' % (4 if sigma is None else 5), {})
            for o in outs:
                m.output(o)

    nms('non_max_suppression_v4_basic', 20, 8, 0.4, -0.5)
    nms('non_max_suppression_v4_padded', 12, 10, 0.3, 0.8)
    nms('non_max_suppression_v5_soft', 20, 8, 0.6, -0.2, 0.5)
    nms('non_max_suppression_v5_hard', 16, 6, 0.4, 0.0, 0.0)

    # ---- EMBEDDING_LOOKUP
    single('embedding_lookup_f32', 'EMBEDDING_LOOKUP', None,
           lambda m: [m.const([3], [1, 4, 1], 'int32'), m.input([5, 2, 3])], [3, 2, 3])

    @mk.litert_case('embedding_lookup_hybrid_i8')
    def _(m):
        look = m.const([4], [2, 0, 2, 1], 'int32')
        val = m.const([3, 4], [m.rng.randint(-128, 127) for _ in range(12)], 'int8', q=(0.03, 0))
        y = m.tensor([4, 4])
        m.op('EMBEDDING_LOOKUP', [look, val], [y])
        m.output(y)

    @mk.litert_case('embedding_lookup_hybrid_per_row')
    def _(m):
        look = m.const([3], [3, 0, 1], 'int32')
        val = m.const([4, 2], [m.rng.randint(-128, 127) for _ in range(8)], 'int8', q=([0.01, 0.02, 0.5, 0.04], [0] * 4, 0))
        y = m.tensor([3, 2])
        m.op('EMBEDDING_LOOKUP', [look, val], [y])
        m.output(y)

    single('embedding_lookup_i8', 'EMBEDDING_LOOKUP', None,
           lambda m: [m.const([2], [0, 3], 'int32'), m.input([4, 3], 'int8', q=Q8['int8'])], [2, 3], 'int8',
           out_q=Q8['int8'])

    # ---- SEGMENT_SUM, UNSORTED_SEGMENT_*
    def seg(name, code, opt, data_shape, t, ids_shape, ids, num=None):
        nseg = num if num is not None else max(ids) + 1
        out = [nseg] + data_shape[len(ids_shape):]

        def ins(m):
            r = [m.input(data_shape, t), m.const(ids_shape, ids, 'int32')]
            if num is not None:
                r.append(m.const([], [num], 'int32'))
            return r
        single(name, code, opt, ins, out, t)

    seg('segment_sum_f32', 'SEGMENT_SUM', 'SegmentSumOptions', [6, 3], 'float32', [6], [0, 0, 1, 2, 2, 2])
    seg('segment_sum_i32', 'SEGMENT_SUM', 'SegmentSumOptions', [4, 2, 2], 'int32', [4], [0, 1, 1, 2])
    for code, opt in (('UNSORTED_SEGMENT_SUM', 'UnsortedSegmentSumOptions'),
                      ('UNSORTED_SEGMENT_PROD', 'UnsortedSegmentProdOptions'),
                      ('UNSORTED_SEGMENT_MAX', 'UnsortedSegmentMaxOptions'),
                      ('UNSORTED_SEGMENT_MIN', 'UnsortedSegmentMinOptions')):
        lc = code.lower()
        seg(lc + '_f32', code, opt, [6, 2], 'float32', [6], [2, 0, 3, 2, 1, 0], 4)
        seg(lc + '_i32_empty_seg', code, opt, [5, 3], 'int32', [5], [1, 1, 0, 3, 0], 5)
        seg(lc + '_2d_ids', code, opt, [2, 3, 2], 'float32', [2, 3], [0, 1, 0, 2, 2, 1], 3)
        seg(lc + '_neg_id', code, opt, [4], 'float32', [4], [0, -1, 1, 0], 2)

    # ---- BROADCAST_ARGS
    single('broadcast_args_i32', 'BROADCAST_ARGS', None,
           lambda m: [m.const([3], [2, 1, 3], 'int32'), m.const([2], [4, 1], 'int32')], [3], 'int32')
    single('broadcast_args_i64', 'BROADCAST_ARGS', None,
           lambda m: [m.const([1], [5], 'int64'), m.const([4], [2, 1, 3, 1], 'int64')], [4], 'int64')

    # ---- SPARSE_TO_DENSE
    def s2d(name, idx_shape, idx, idx_type, shape, t, scalar_val=False, default=0):
        q = Q8.get(t)

        def ins(m):
            nv = 1 if len(idx_shape) == 0 else idx_shape[0]
            vals = m.input([] if scalar_val else [nv], t, q=q)
            return [m.const(idx_shape, idx, idx_type), m.const([len(shape)], shape, idx_type), vals,
                    m.const([], [default], t, q=q)]
        single(name, 'SPARSE_TO_DENSE', 'SparseToDenseOptions', ins, shape, t, {'validate_indices': False}, out_q=q)

    s2d('sparse_to_dense_f32', [3, 2], [0, 1, 2, 3, 1, 0], 'int32', [3, 4], 'float32', default=0.5)
    s2d('sparse_to_dense_1d', [3], [5, 0, 2], 'int32', [6], 'float32')
    s2d('sparse_to_dense_scalar_value', [2, 3], [0, 1, 1, 1, 0, 2], 'int64', [2, 2, 3], 'float32', scalar_val=True,
        default=-1.0)
    s2d('sparse_to_dense_i32', [2, 1], [3, 1], 'int32', [4], 'int32', default=9)
    s2d('sparse_to_dense_i64', [2, 2], [1, 1, 0, 0], 'int64', [2, 2], 'int64', default=-3)
    s2d('sparse_to_dense_i8', [2, 1], [1, 2], 'int32', [3], 'int8', default=5)
    s2d('sparse_to_dense_u8', [1, 2], [0, 1], 'int32', [2, 2], 'uint8', default=7)
    s2d('sparse_to_dense_scalar_index', [], [3], 'int32', [5], 'float32', default=2.0)

    # ---- values computed in the graph (not constants): the file's shape is kept and the
    # kernels check the values against it at eval. SHAPE and RANK feed the value inputs.
    def shape_of(m, x, n, t='int32'):
        s = m.tensor([n], t)
        m.op('SHAPE', [x], [s], 'ShapeOptions', {'out_type': t.upper()})
        return s

    def rank_of(m, x):
        r = m.tensor([], 'int32')
        m.op('RANK', [x], [r], 'RankOptions', {})
        return r

    @mk.litert_case('fill_dims_from_shape')
    def _(m):
        x = m.input([2, 3])
        v = m.input([])
        y = m.tensor([2, 3])
        m.op('FILL', [shape_of(m, x, 2), v], [y], 'FillOptions', {})
        m.output(y)

    @mk.litert_case('range_limit_from_rank')
    def _(m):
        x = m.input([1, 2, 1, 3])
        y = m.tensor([4], 'int32')
        m.op('RANGE', [m.const([], [0], 'int32'), rank_of(m, x), m.const([], [1], 'int32')], [y], 'RangeOptions', {})
        m.output(y)

    @mk.litert_case('one_hot_depth_from_rank')
    def _(m):
        x = m.input([3, 1, 2])
        idx = m.const([4], [0, 2, 1, 3], 'int32')
        y = m.tensor([4, 3])
        m.op('ONE_HOT', [idx, rank_of(m, x), m.const([], [1.0]), m.const([], [0.0])], [y], 'OneHotOptions', {'axis': -1})
        m.output(y)

    @mk.litert_case('topk_v2_k_from_rank')
    def _(m):
        x = m.input([2, 7])
        y = m.tensor([2, 2])
        yi = m.tensor([2, 2], 'int32')
        m.op('TOPK_V2', [x, rank_of(m, x)], [y, yi], 'TopKV2Options', {})
        m.output(y)
        m.output(yi)

    @mk.litert_case('scatter_nd_shape_from_shape')
    def _(m):
        x = m.input([4, 3])
        up = m.input([2, 3])
        y = m.tensor([4, 3])
        m.op('SCATTER_ND', [m.const([2, 1], [3, 1], 'int32'), up, shape_of(m, x, 2)], [y], 'ScatterNdOptions', {})
        m.output(y)

    @mk.litert_case('sparse_to_dense_shape_from_shape')
    def _(m):
        x = m.input([3, 2])
        vals = m.input([2])
        y = m.tensor([3, 2])
        m.op('SPARSE_TO_DENSE', [m.const([2, 2], [2, 1, 0, 0], 'int32'), shape_of(m, x, 2), vals, m.const([], [0.25])],
             [y], 'SparseToDenseOptions', {})
        m.output(y)

    @mk.litert_case('broadcast_args_from_shapes')
    def _(m):
        a = m.input([3, 1, 4])
        b = m.input([2, 1])
        y = m.tensor([3], 'int64')
        m.op('BROADCAST_ARGS', [shape_of(m, a, 3, 'int64'), shape_of(m, b, 2, 'int64')], [y])
        m.output(y)

    @mk.litert_case('unsorted_segment_max_num_from_rank')
    def _(m):
        x = m.input([5, 2])
        z = m.input([1, 1, 1])
        y = m.tensor([3, 2])
        m.op('UNSORTED_SEGMENT_MAX', [x, m.const([5], [2, 0, 0, 1, 2], 'int32'), rank_of(m, z)], [y],
             'UnsortedSegmentMaxOptions', {})
        m.output(y)

    @mk.litert_case('non_max_suppression_v4_max_from_rank')
    def _(m):
        boxes = m.const([4, 4], [0, 0, 1, 1, 0, 0, 1, 1.1, 2, 2, 3, 3, 0.5, 0.5, 1.5, 1.5])
        scores = m.input([4])
        z = m.input([1, 1, 1])
        sel = m.tensor([3], 'int32')
        cnt = m.tensor([], 'int32')
        m.op('NON_MAX_SUPPRESSION_V4', [boxes, scores, rank_of(m, z), m.const([], [0.5]), m.const([], [-10.0])],
             [sel, cnt], 'NonMaxSuppressionV4Options', {})
        m.output(sel)
        m.output(cnt)

    @mk.litert_case('cumsum_axis_from_rank')
    def _(m):
        x = m.input([3, 2])
        z = m.input([1])
        y = m.tensor([3, 2])
        m.op('CUMSUM', [x, rank_of(m, z)], [y], 'CumsumOptions', {'exclusive': False, 'reverse': True})
        m.output(y)

    @mk.litert_case('gather_computed_indices')
    def _(m):
        x = m.input([4, 3])
        z = m.input([5, 1, 1])
        # SHAPE of z is [5, 1, 1]: its trailing [1, 1] index axis 1
        s = shape_of(m, z, 3)
        idx = m.tensor([2], 'int32')
        m.op('STRIDED_SLICE', [s, m.const([1], [1], 'int32'), m.const([1], [3], 'int32'), m.const([1], [1], 'int32')], [idx],
             'StridedSliceOptions', {})
        y = m.tensor([4, 2])
        m.op('GATHER', [x, idx], [y], 'GatherOptions', {'axis': 1, 'batch_dims': 0})
        m.output(y)

    @mk.litert_case('non_max_suppression_v5_ties')
    def _(m):
        # equal scores everywhere: the pick order is the heap's, as std::priority_queue's
        n = 9
        boxes = m.const([n, 4], [v for i in range(n) for v in (i % 3 * 0.6, i // 3 * 0.6, i % 3 * 0.6 + 1, i // 3 * 0.6 + 1)])
        scores = m.const([n], [0.5] * 4 + [0.7] * 5)
        ins = [boxes, scores, m.const([], [6], 'int32'), m.const([], [0.3]), m.const([], [0.1]), m.const([], [0.4])]
        outs = [m.tensor([6], 'int32'), m.tensor([6]), m.tensor([], 'int32')]
        m.op('NON_MAX_SUPPRESSION_V5', ins, outs, 'NonMaxSuppressionV5Options', {})
        for o in outs:
            m.output(o)

    # ---- types found by asking LiteRT 2.3.0 what it runs
    fill('fill_u8', [2, 3], 'int32', 'uint8', 200)
    for t in ('int32', 'int64', 'bool', 'int16', 'uint8'):
        single('embedding_lookup_copy_' + t, 'EMBEDDING_LOOKUP', None,
               lambda m, t=t: [m.const([3], [1, 0, 1], 'int32'), m.input([2, 2, 2], t, q=Q8.get(t))], [3, 2, 2], t,
               out_q=Q8.get(t))

    @mk.litert_case('embedding_lookup_hybrid_u8')
    def _(m):
        # uint8 codes read as int8 by TFLite's hybrid path (200 -> -56), zero point 0
        look = m.const([3], [1, 0, 1], 'int32')
        val = m.const([2, 3], [200, 3, 128, 255, 0, 127], 'uint8', q=(0.1, 0))
        y = m.tensor([3, 3])
        m.op('EMBEDDING_LOOKUP', [look, val], [y])
        m.output(y)

    @mk.litert_case('gather_output_scale_differs')
    def _(m):
        # TFLite copies the codes: the output's own scale and zero point reinterpret them
        x = m.input([4, 2], 'int8', q=(0.1, 0))
        y = m.tensor([2, 2], 'int8', q=(0.2, 3))
        m.op('GATHER', [x, m.const([2], [3, 1], 'int32')], [y], 'GatherOptions', {'axis': 0})
        m.output(y)

    @mk.litert_case('fill_dims_computed_keep')
    def _(m):
        # dims through a CAST: not known before the run, the file's shape is kept and checked
        x = m.input([3, 2, 1])
        d = m.tensor([3], 'int64')
        m.op('CAST', [shape_of(m, x, 3)], [d], 'CastOptions', {})
        y = m.tensor([3, 2, 1], 'int32')
        m.op('FILL', [d, m.const([], [4], 'int32')], [y], 'FillOptions', {})
        m.output(y)

    @mk.litert_case('fill_dims_from_shape_undeclared')
    def _(m):
        # the file declares no output shape: SHAPE's values are known at load, so is FILL's
        x = m.input([2, 1, 3])
        y = m.tensor([])
        m.op('FILL', [shape_of(m, x, 3), m.const([], [1.5])], [y], 'FillOptions', {})
        m.output(y)

    @mk.litert_case('range_from_rank_undeclared')
    def _(m):
        x = m.input([1, 2, 1, 3, 1])
        y = m.tensor([], 'int32')
        m.op('RANGE', [rank_of(m, x), m.const([], [-1], 'int32'), m.const([], [-2], 'int32')], [y], 'RangeOptions', {})
        m.output(y)

    # ---- edge shapes
    select('select_scalar_cond', 'SELECT', [], [2, 3], [2, 3], 'float32', [2, 3])
    select('select_v2_all_scalars', 'SELECT_V2', [], [], [], 'float32', [])
    gather('gather_size1_dims', [1, 4, 1], 'float32', [3, 1], [0, 0, 0], 'int32', 0, 0, [3, 1, 4, 1])
    gather_nd('gather_nd_size1', [1, 1, 3], 'float32', [2, 3], [0, 0, 2, 0, 0, 0], 'int64', [2])
    topk('topk_v2_len1', [5, 1], 'float32', 1)
    cumsum('cumsum_len1_axis', [3, 1, 2], 'float32', 1, True, False)

    # float -> integer outside the target's range (values up to about +-3e10)
    for t in ('int32', 'int16', 'uint8', 'int8', 'int64', 'bool'):
        @mk.litert_case('cast_f32_%s_out_of_range' % short[t])
        def _(m, t=t):
            x = m.input([4, 8])
            xs = m.tensor([4, 8])
            m.op('MUL', [x, m.const([], [1e10])], [xs], 'MulOptions', {})
            y = m.tensor([4, 8], t)
            m.op('CAST', [xs], [y], 'CastOptions', {})
            m.output(y)

    s2d('sparse_to_dense_duplicates', [3, 1], [2, 0, 2], 'int32', [4], 'float32', default=-0.5)

    @mk.litert_case('topk_v2_int16_k_and_indices')
    def _(m):
        x = m.input([3, 9])
        v = m.tensor([3, 4])
        i = m.tensor([3, 4], 'int16')
        m.op('TOPK_V2', [x, m.const([], [4], 'int16')], [v, i], 'TopKV2Options', {})
        m.output(v)
        m.output(i)

    @mk.litert_case('sparse_to_dense_mixed_index_types')
    def _(m):
        y = m.tensor([2, 3])
        m.op('SPARSE_TO_DENSE', [m.const([2, 2], [1, 2, 0, 0], 'int64'), m.const([2], [2, 3], 'int32'), m.input([2]),
                                 m.const([], [0.0])], [y], 'SparseToDenseOptions', {})
        m.output(y)
