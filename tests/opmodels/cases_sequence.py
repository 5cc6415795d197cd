"""cases_sequence.py - single-op models of the sequence ops (make_opmodels.py loads this module).

register(mk) adds cases through mk.litert_case (golden from the native TensorFlow Lite,
every tensor type fed and read directly) or mk.case (the wasm oracle).

The state tensors are variables (zero at the start, as LiteRT feeds them); several time
steps per case carry the state through the recurrence. Hybrid cases: int8 weights with one
scale and zero point 0, float input, state and bias.
"""

W_Q = 0.5 / 127      # hybrid weights: int8 over about -0.5..0.5


def register(mk):
    def wt(m, shape, hybrid):
        """Weights: float uniform -0.5..0.5, or int8 with scale W_Q."""
        if not hybrid:
            return m.weights(shape)
        n = 1
        for d in shape:
            n *= d
        if hybrid == 'u8':
            # legacy hybrid models: int8 bytes in a uint8 tensor (TFLite reads them as int8,
            # whatever the zero point says)
            return m.const(shape, [m.rng.randint(0, 255) for _ in range(n)], 'uint8', q=(W_Q, 128))
        return m.const(shape, [m.rng.randint(-127, 127) for _ in range(n)], 'int8', q=(W_Q, 0))

    def lstm_cell(m, n_in, n_cell, n_out, hybrid=False, cifg=False, peephole=False, proj=False,
                  proj_bias=False, aux=0):
        """LSTM's inputs 1..17 of one cell (+ 4 aux weights when aux > 0)."""
        ins = [-1 if cifg else wt(m, [n_cell, n_in], hybrid)]
        ins += [wt(m, [n_cell, n_in], hybrid) for _ in range(3)]
        ins += [-1 if cifg else wt(m, [n_cell, n_out], hybrid)]
        ins += [wt(m, [n_cell, n_out], hybrid) for _ in range(3)]
        ins += [wt(m, [n_cell], hybrid) if peephole and not cifg else -1]
        ins += [wt(m, [n_cell], hybrid) if peephole else -1 for _ in range(2)]
        ins += [-1 if cifg else m.weights([n_cell])]
        ins += [m.weights([n_cell]) for _ in range(3)]
        ins += [wt(m, [n_out, n_cell], hybrid) if proj else -1]
        ins += [m.weights([n_out]) if proj and proj_bias else -1]
        auxw = [wt(m, [n_cell, aux], hybrid) if not (cifg and g == 0) else -1 for g in range(4)] if aux else []
        return ins, auxw

    def uni_lstm(time_major=False, hybrid=False, asym=False, cifg=False, peephole=False, proj=False,
                 proj_bias=False, ln=False, n_inputs=24, cell_clip=0.0, proj_clip=0.0, act='TANH',
                 batch=2, steps=3, version=1, diagonal=False):
        def build(m):
            n_in, n_cell = 3, 4
            n_out = 3 if proj else n_cell
            shape = [steps, batch, n_in] if time_major else [batch, steps, n_in]
            x = m.input(shape)
            ins, _ = lstm_cell(m, n_in, n_cell, n_out, hybrid, cifg, peephole, proj, proj_bias)
            if diagonal:   # recurrent weights as [n_cell] diagonals
                ins[4:8] = [-1 if r == -1 else wt(m, [n_cell], hybrid) for r in ins[4:8]]
            ins = [x] + ins
            ins += [m.tensor([batch, n_out], variable=True, name='output_state'),
                    m.tensor([batch, n_cell], variable=True, name='cell_state')]
            if n_inputs == 24:
                ins += [m.weights([n_cell]) if ln and not (cifg and g == 0) else -1 for g in range(4)]
            y = m.tensor(shape[:2] + [n_out])
            m.op('UNIDIRECTIONAL_SEQUENCE_LSTM', ins, [y], 'UnidirectionalSequenceLSTMOptions',
                 {'fused_activation_function': act, 'cell_clip': cell_clip, 'proj_clip': proj_clip,
                  'time_major': time_major, 'asymmetric_quantize_inputs': asym,
                  'diagonal_recurrent_tensors': diagonal}, version=version)
            m.output(y)
        return build

    L = 'unidirectional_sequence_lstm_'
    mk.CASES[L + 'f32'] = (uni_lstm(), {'litert': True})
    mk.CASES[L + 'f32_time_major'] = (uni_lstm(time_major=True), {'litert': True})
    mk.CASES[L + 'f32_20_inputs'] = (uni_lstm(n_inputs=20), {'litert': True})
    mk.CASES[L + 'f32_batch1_steps5'] = (uni_lstm(batch=1, steps=5), {'litert': True})
    mk.CASES[L + 'f32_cifg_peephole_projection_clip'] = (
        uni_lstm(cifg=True, peephole=True, proj=True, proj_bias=True, cell_clip=0.3, proj_clip=0.2),
        {'litert': True})
    mk.CASES[L + 'f32_peephole_projection_time_major'] = (
        uni_lstm(time_major=True, peephole=True, proj=True), {'litert': True})
    mk.CASES[L + 'f32_layer_norm'] = (uni_lstm(ln=True, peephole=True), {'litert': True})
    mk.CASES[L + 'f32_layer_norm_cifg_projection'] = (uni_lstm(ln=True, cifg=True, proj=True), {'litert': True})
    mk.CASES[L + 'f32_diagonal_recurrent'] = (uni_lstm(diagonal=True, peephole=True), {'litert': True})
    mk.CASES[L + 'f32_relu'] = (uni_lstm(act='RELU'), {'litert': True})
    mk.CASES[L + 'hybrid'] = (uni_lstm(hybrid=True, version=2), {'litert': True})
    mk.CASES[L + 'hybrid_asym'] = (uni_lstm(hybrid=True, asym=True, version=3), {'litert': True})
    mk.CASES[L + 'hybrid_time_major'] = (uni_lstm(hybrid=True, time_major=True, version=2), {'litert': True})
    mk.CASES[L + 'hybrid_peephole_projection_asym'] = (
        uni_lstm(hybrid=True, asym=True, peephole=True, proj=True, proj_bias=True, version=3), {'litert': True})
    mk.CASES[L + 'hybrid_u8_weights'] = (uni_lstm(hybrid='u8', peephole=True, proj=True), {'litert': True})
    mk.CASES[L + 'hybrid_cifg_layer_norm'] = (uni_lstm(hybrid=True, cifg=True, ln=True, version=2),
                                              {'litert': True})

    def bi_lstm(time_major=True, merge=False, hybrid=False, asym=False, aux=None, peephole=False, proj=False,
                cell_clip=0.0, version=1):
        def build(m):
            n_in, n_cell, batch, steps = 3, 4, 2, 3
            n_out = 3 if proj else n_cell
            n_aux = n_in if aux == 'nonstacking' else 2   # TFLite checks the backward weights by the input
            shape = [steps, batch, n_in] if time_major else [batch, steps, n_in]
            x = m.input(shape)
            use_aux = aux == 'stacking'
            fw, fw_aux = lstm_cell(m, n_in, n_cell, n_out, hybrid, False, peephole, proj, False,
                                   n_aux if use_aux else 0)
            # non-stacking: the backward cell reads the aux input (its own input size)
            bw_in = n_aux if aux == 'nonstacking' else n_in
            bw, bw_aux = lstm_cell(m, bw_in, n_cell, n_out, hybrid, False, peephole, proj, False,
                                   n_aux if use_aux else 0)
            states = [m.tensor([batch, n_out], variable=True, name='fw_output_state'),
                      m.tensor([batch, n_cell], variable=True, name='fw_cell_state'),
                      m.tensor([batch, n_out], variable=True, name='bw_output_state'),
                      m.tensor([batch, n_cell], variable=True, name='bw_cell_state')]
            a = -1
            if aux:
                a = m.input(shape[:2] + [n_aux])
            ins = [x] + fw + bw + states + [a] + (fw_aux or [-1] * 4) + (bw_aux or [-1] * 4)
            outs = [m.tensor(shape[:2] + [2 * n_out if merge else n_out])]
            if not merge:
                outs.append(m.tensor(shape[:2] + [n_out]))
            m.op('BIDIRECTIONAL_SEQUENCE_LSTM', ins, outs, 'BidirectionalSequenceLSTMOptions',
                 {'fused_activation_function': 'TANH', 'cell_clip': cell_clip, 'merge_outputs': merge,
                  'time_major': time_major, 'asymmetric_quantize_inputs': asym}, version=version)
            for o in outs:
                m.output(o)
        return build

    B = 'bidirectional_sequence_lstm_'
    mk.CASES[B + 'f32'] = (bi_lstm(), {'litert': True})
    mk.CASES[B + 'f32_merged'] = (bi_lstm(merge=True), {'litert': True})
    mk.CASES[B + 'f32_batch_major_merged'] = (bi_lstm(time_major=False, merge=True), {'litert': True})
    mk.CASES[B + 'f32_peephole_projection_clip'] = (bi_lstm(peephole=True, proj=True, cell_clip=0.4),
                                                    {'litert': True})
    mk.CASES[B + 'f32_aux_stacking'] = (bi_lstm(aux='stacking'), {'litert': True})
    mk.CASES[B + 'f32_aux_nonstacking'] = (bi_lstm(aux='nonstacking'), {'litert': True})
    mk.CASES[B + 'f32_aux_nonstacking_batch_major'] = (bi_lstm(aux='nonstacking', time_major=False), {'litert': True})
    mk.CASES[B + 'hybrid_aux_stacking_asym'] = (bi_lstm(aux='stacking', hybrid=True, asym=True, version=3),
                                                {'litert': True})
    mk.CASES[B + 'hybrid'] = (bi_lstm(hybrid=True, version=2), {'litert': True})
    mk.CASES[B + 'hybrid_asym_batch_major'] = (bi_lstm(hybrid=True, asym=True, time_major=False, merge=True,
                                                       version=3), {'litert': True})

    def rnn_cell(m, n_in, units, hybrid):
        return [wt(m, [units, n_in], hybrid), wt(m, [units, units], hybrid), m.weights([units])]

    def uni_rnn(time_major=False, hybrid=False, asym=False, act='TANH', version=1):
        def build(m):
            n_in, units, batch, steps = 3, 4, 2, 3
            shape = [steps, batch, n_in] if time_major else [batch, steps, n_in]
            x = m.input(shape)
            h = m.tensor([batch, units], variable=True, name='hidden_state')
            y = m.tensor(shape[:2] + [units])
            m.op('UNIDIRECTIONAL_SEQUENCE_RNN', [x] + rnn_cell(m, n_in, units, hybrid) + [h], [y],
                 'SequenceRNNOptions', {'time_major': time_major, 'fused_activation_function': act,
                                        'asymmetric_quantize_inputs': asym}, version=version)
            m.output(y)
        return build

    U = 'unidirectional_sequence_rnn_'
    mk.CASES[U + 'f32'] = (uni_rnn(), {'litert': True})
    mk.CASES[U + 'f32_time_major_relu'] = (uni_rnn(time_major=True, act='RELU'), {'litert': True})
    mk.CASES[U + 'hybrid'] = (uni_rnn(hybrid=True, version=2), {'litert': True})
    mk.CASES[U + 'hybrid_asym_time_major'] = (uni_rnn(hybrid=True, asym=True, time_major=True, version=3),
                                              {'litert': True})

    def bi_rnn(time_major=False, merge=False, hybrid=False, asym=False, aux=None, version=1):
        def build(m):
            n_in, units, batch, steps, n_aux = 3, 4, 2, 3, 2
            if aux in ('nonstacking', 'stacking_same'):
                n_aux = n_in     # TFLite checks the backward weights against the input's size
            shape = [steps, batch, n_in] if time_major else [batch, steps, n_in]
            x = m.input(shape)
            fw = rnn_cell(m, n_in, units, hybrid)
            bw = rnn_cell(m, n_in, units, hybrid)
            hf = m.tensor([batch, units], variable=True, name='fw_hidden_state')
            hb = m.tensor([batch, units], variable=True, name='bw_hidden_state')
            a = m.input(shape[:2] + [n_aux]) if aux else -1
            aw = [wt(m, [units, n_aux], hybrid), wt(m, [units, n_aux], hybrid)] if aux in ('stacking', 'stacking_same') else [-1, -1]
            outs = [m.tensor(shape[:2] + [2 * units if merge else units])]
            if not merge:
                outs.append(m.tensor(shape[:2] + [units]))
            m.op('BIDIRECTIONAL_SEQUENCE_RNN', [x] + fw + [hf] + bw + [hb, a] + aw, outs,
                 'BidirectionalSequenceRNNOptions',
                 {'time_major': time_major, 'fused_activation_function': 'TANH', 'merge_outputs': merge,
                  'asymmetric_quantize_inputs': asym}, version=version)
            for o in outs:
                m.output(o)
        return build

    R = 'bidirectional_sequence_rnn_'
    mk.CASES[R + 'f32'] = (bi_rnn(), {'litert': True})
    mk.CASES[R + 'f32_merged'] = (bi_rnn(merge=True), {'litert': True})
    mk.CASES[R + 'f32_time_major'] = (bi_rnn(time_major=True), {'litert': True})
    mk.CASES[R + 'f32_aux_stacking'] = (bi_rnn(aux='stacking'), {'litert': True})
    mk.CASES[R + 'f32_aux_nonstacking_merged'] = (bi_rnn(aux='nonstacking', merge=True), {'litert': True})
    mk.CASES[R + 'f32_aux_nonstacking_time_major'] = (bi_rnn(aux='nonstacking', time_major=True),
                                                      {'litert': True})
    mk.CASES[R + 'f32_aux_stacking_time_major_same_size'] = (bi_rnn(aux='stacking_same', time_major=True),
                                                             {'litert': True})
    mk.CASES[R + 'hybrid'] = (bi_rnn(hybrid=True, version=2), {'litert': True})
    mk.CASES[R + 'hybrid_time_major'] = (bi_rnn(hybrid=True, time_major=True, version=2), {'litert': True})
    mk.CASES[R + 'hybrid_asym_merged'] = (bi_rnn(hybrid=True, asym=True, merge=True, version=3), {'litert': True})

    def rnn(hybrid=False, asym=False, act='TANH', version=1):
        def build(m):
            n_in, units, batch = 3, 4, 2
            x = m.input([batch, n_in])
            h = m.tensor([batch, units], variable=True, name='hidden_state')
            y = m.tensor([batch, units])
            m.op('RNN', [x] + rnn_cell(m, n_in, units, hybrid) + [h], [y], 'RNNOptions',
                 {'fused_activation_function': act, 'asymmetric_quantize_inputs': asym}, version=version)
            m.output(y)
        return build

    mk.CASES['rnn_f32'] = (rnn(), {'litert': True})
    mk.CASES['rnn_f32_relu6'] = (rnn(act='RELU6'), {'litert': True})
    mk.CASES['rnn_hybrid'] = (rnn(hybrid=True, version=2), {'litert': True})
    mk.CASES['rnn_hybrid_u8_weights'] = (rnn(hybrid='u8'), {'litert': True})
    mk.CASES['rnn_hybrid_asym'] = (rnn(hybrid=True, asym=True, version=3), {'litert': True})

    def svdf(rank=1, bias=True, hybrid=False, asym=False, act='NONE', batch=2, memory=4, version=1):
        def build(m):
            n_in, units = 3, 4
            filters = units * rank
            x = m.input([batch, n_in])
            ins = [x, wt(m, [filters, n_in], hybrid), wt(m, [filters, memory], hybrid),
                   m.weights([units]) if bias else -1,
                   m.tensor([batch, filters * memory], variable=True, name='state')]
            y = m.tensor([batch, units])
            m.op('SVDF', ins, [y], 'SVDFOptions', {'rank': rank, 'fused_activation_function': act,
                                                   'asymmetric_quantize_inputs': asym}, version=version)
            m.output(y)
        return build

    mk.CASES['svdf_f32_rank1'] = (svdf(), {'litert': True})
    mk.CASES['svdf_f32_rank2_relu_no_bias'] = (svdf(rank=2, bias=False, act='RELU'), {'litert': True})
    mk.CASES['svdf_f32_batch1_memory1'] = (svdf(batch=1, memory=1), {'litert': True})
    mk.CASES['svdf_hybrid'] = (svdf(hybrid=True, rank=2, version=2), {'litert': True})
    mk.CASES['svdf_hybrid_u8_weights'] = (svdf(hybrid='u8', rank=2), {'litert': True})
    mk.CASES['svdf_hybrid_asym'] = (svdf(hybrid=True, asym=True, version=4), {'litert': True})

    def svdf_int8(rank=1, bias=True, batch=2, memory=4, act='RELU', x_zp=-3, y_zp=5):
        """Full integer SVDF: int8 input / weights_feature / output, int16 weights_time and
        state (zero point 0), int32 bias at state scale x weights_time scale."""
        def build(m):
            n_in, units = 3, 4
            filters = units * rank
            s_wf, s_wt, s_state = 0.004, 3e-5, 1e-4
            x = m.input([batch, n_in], 'int8', q=(0.03, x_zp))
            wf = m.const([filters, n_in], [m.rng.randint(-127, 127) for _ in range(filters * n_in)], 'int8',
                         q=(s_wf, 0))
            wt = m.const([filters, memory], [m.rng.randint(-16000, 16000) for _ in range(filters * memory)],
                         'int16', q=(s_wt, 0))
            b = m.const([units], [m.rng.randint(-300000, 300000) for _ in range(units)], 'int32',
                        q=(s_state * s_wt, 0)) if bias else -1
            st = m.tensor([batch, filters * memory], 'int16', q=(s_state, 0), variable=True, name='state')
            y = m.tensor([batch, units], 'int8', q=(0.02, y_zp))
            m.op('SVDF', [x, wf, wt, b, st], [y], 'SVDFOptions', {'rank': rank, 'fused_activation_function': act},
                 version=3)
            m.output(y)
        return build

    mk.CASES['svdf_int8_rank1'] = (svdf_int8(), {'litert': True})
    mk.CASES['svdf_int8_rank2_no_bias_memory1'] = (svdf_int8(rank=2, bias=False, memory=1, batch=3),
                                                   {'litert': True})

    def lstm_step(hybrid=True, asym=False, peephole=False, proj=False, version=2):
        """The single-step LSTM op (full kernel) with hybrid weights."""
        def build(m):
            n_batch, n_in, n_cell = 2, 3, 4
            n_out = 3 if proj else n_cell
            x = m.input([n_batch, n_in])
            ins, _ = lstm_cell(m, n_in, n_cell, n_out, hybrid, False, peephole, proj, proj)
            ins = [x] + ins + [m.tensor([n_batch, n_out], variable=True, name='output_state'),
                               m.tensor([n_batch, n_cell], variable=True, name='cell_state')]
            y = m.tensor([n_batch, n_out])
            m.op('LSTM', ins, [y], 'LSTMOptions', {'fused_activation_function': 'TANH', 'kernel_type': 'FULL',
                                                   'asymmetric_quantize_inputs': asym}, version=version)
            m.output(y)
        return build

    mk.CASES['lstm_hybrid'] = (lstm_step(), {'litert': True})
    mk.CASES['lstm_hybrid_asym_peephole_projection'] = (lstm_step(asym=True, peephole=True, proj=True, version=4),
                                                        {'litert': True})
