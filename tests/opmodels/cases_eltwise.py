"""cases_eltwise.py - single-op models of the eltwise ops (make_opmodels.py loads this module).

register(mk) adds cases through mk.litert_case (golden from the native TensorFlow Lite,
every tensor type fed and read directly) or mk.case (the wasm oracle).

Graph inputs are Gaussian (integers: rounded z / scale + zero point). Ops with a domain
(SQRT, LOG, POW) get a non-negative input through an ABS in front, or a quantized input
whose zero point is the type's minimum (every code is >= 0 then).
"""
import math
import struct


def register(mk):
    Q8 = {'int8': (0.03, -5), 'uint8': (0.03, 128)}

    def unary(name, code, shape=None, type='float32', q=None, qo=None, opt_type=None, opt=None,
              scale=None, pre=None):
        """One unary op; `scale` widens a float input (MUL by a constant), `pre` puts an op
        (e.g. 'ABS') in front of it. Quantized cases take 512 values (most codes of a table)."""
        if shape is None:
            shape = (4, 8, 16) if q else (2, 3, 4)

        @mk.litert_case(name)
        def _(m):
            x = m.input(list(shape), type, q=q)
            if scale is not None:
                c = m.const([1], [scale])
                y = m.tensor(list(shape))
                m.op('MUL', [x, c], [y], 'MulOptions', {})
                x = y
            if pre:
                y = m.tensor(list(shape), type, q=q)
                m.op(pre, [x], [y])
                x = y
            out = m.tensor(list(shape), type, q=qo if qo is not None else q)
            m.op(code, [x], [out], opt_type, opt)
            m.output(out)

    def binary(name, code, a_shape, b_shape, type='float32', qa=None, qb=None, qo=None, b_const=None,
               out_type=None, pre_a=None, b_type=None):
        @mk.litert_case(name)
        def _(m):
            a = m.input(list(a_shape), type, q=qa)
            if pre_a:
                y = m.tensor(list(a_shape), type, q=qa)
                m.op(pre_a, [a], [y])
                a = y
            if b_const is not None:
                b = m.const(list(b_shape), b_const, b_type or type, q=qb)
            else:
                b = m.input(list(b_shape), b_type or type, q=qb)
            nd = max(len(a_shape), len(b_shape))
            pa = [1] * (nd - len(a_shape)) + list(a_shape)
            pb = [1] * (nd - len(b_shape)) + list(b_shape)
            shape = [max(x, y) if 0 not in (x, y) else 0 for x, y in zip(pa, pb)]
            out = m.tensor(shape, out_type or type, q=qo)
            m.op(code, [a, b], [out])
            m.output(out)

    # ---- NEG
    unary('neg_f32', 'NEG')
    unary('neg_i32', 'NEG', type='int32')
    unary('neg_i64', 'NEG', type='int64')
    # TFLite negates the stored integer whatever the quantization (-128 wraps to -128)
    unary('neg_i8', 'NEG', type='int8', q=(0.01, -100), qo=(0.05, -7))
    unary('neg_i16', 'NEG', type='int16')

    # ---- SQUARED_DIFFERENCE
    binary('squared_difference_f32', 'SQUARED_DIFFERENCE', [2, 3, 4], [2, 3, 4])
    binary('squared_difference_f32_bcast', 'SQUARED_DIFFERENCE', [2, 1, 3, 4], [5, 1, 1])
    binary('squared_difference_i32', 'SQUARED_DIFFERENCE', [3, 4], [4], type='int32')
    binary('squared_difference_i8', 'SQUARED_DIFFERENCE', [4, 8, 16], [4, 8, 16], type='int8',
           qa=(0.02, 3), qb=(0.03, -4), qo=(0.02, -128))
    binary('squared_difference_i8_bcast', 'SQUARED_DIFFERENCE', [1, 3, 4, 5], [5], type='int8',
           qa=(0.05, 0), qb=(0.01, 10), qo=(0.06, -100))

    # ---- RSQRT / SQRT (float inputs made non-negative by an ABS)
    unary('rsqrt_f32', 'RSQRT', pre='ABS')
    unary('rsqrt_i8', 'RSQRT', type='int8', q=(0.02, -128), qo=(0.05, -128))
    unary('rsqrt_i8_wide', 'RSQRT', type='int8', q=(0.004, -128), qo=(0.2, -128))
    unary('rsqrt_i8_zero_point', 'RSQRT', type='int8', q=(0.1, -60), qo=(0.01, -120), pre='RELU')
    unary('sqrt_f32', 'SQRT', pre='ABS')
    unary('sqrt_i8', 'SQRT', type='int8', q=(0.03, -128), qo=(0.015, -128))
    unary('rsqrt_i16', 'RSQRT', type='int16', q=(0.0002, 0), qo=(0.0005, 0), pre='ABS')
    unary('sqrt_i16', 'SQRT', type='int16', q=(0.0002, 0), qo=(0.0001, 0), pre='ABS')

    # ---- GELU
    unary('gelu_f32', 'GELU', shape=(2, 5, 6), opt_type='GeluOptions', opt={'approximate': False}, scale=2.0)
    unary('gelu_f32_approximate', 'GELU', shape=(2, 5, 6), opt_type='GeluOptions', opt={'approximate': True},
          scale=2.0)
    unary('gelu_i8', 'GELU', type='int8', q=(0.03, -5), qo=(0.02, -100), opt_type='GeluOptions',
          opt={'approximate': False})
    unary('gelu_i8_approximate', 'GELU', type='int8', q=(0.03, -5), qo=(0.02, -100), opt_type='GeluOptions',
          opt={'approximate': True})
    unary('gelu_i16', 'GELU', type='int16', q=(0.0001, 0), qo=(0.0001, 0), opt_type='GeluOptions',
          opt={'approximate': False})
    unary('gelu_i16_approximate', 'GELU', type='int16', q=(0.0002, 0), qo=(0.0001, 0), opt_type='GeluOptions',
          opt={'approximate': True})
    unary('gelu_i8_wide', 'GELU', type='int8', q=(0.08, 20), qo=(0.05, -60), opt_type='GeluOptions',
          opt={'approximate': True})
    unary('gelu_u8', 'GELU', type='uint8', q=(0.03, 128), qo=(0.02, 20), opt_type='GeluOptions',
          opt={'approximate': False})

    # ---- POW
    binary('pow_f32', 'POW', [2, 3, 4], [4], b_const=[0.5, 2.0, -1.0, 3.0], pre_a='ABS')
    binary('pow_f32_both_inputs', 'POW', [2, 3, 4], [2, 3, 4], pre_a='ABS')
    binary('pow_f32_negative_base', 'POW', [2, 3, 4], [4], b_const=[2.0, 3.0, -1.0, 0.0])
    binary('pow_i32', 'POW', [3, 5], [5], type='int32', b_const=[0, 1, 2, 3, 7])

    # ---- ABS
    unary('abs_f32', 'ABS')
    unary('abs_i32', 'ABS', type='int32')
    unary('abs_i8', 'ABS', type='int8', q=(0.03, -5))
    unary('abs_i8_rescale', 'ABS', type='int8', q=(0.03, -5), qo=(0.02, -128))
    unary('abs_i16', 'ABS', type='int16', q=(0.0005, 0), qo=(0.0003, 0))
    unary('abs_i16_plain', 'ABS', type='int16')

    # ---- SQUARE, LOG, SIN, COS, FLOOR, CEIL, ROUND, SIGN
    unary('square_f32', 'SQUARE', scale=3.0)
    unary('log_f32', 'LOG', pre='ABS')
    unary('log_i16', 'LOG', type='int16', q=(0.0002, 0), qo=(0.0003, 0))
    unary('log_i8', 'LOG', type='int8', q=(0.05, -128), qo=(0.04, 40))
    unary('sin_f32', 'SIN', scale=4.0)
    unary('cos_f32', 'COS', scale=4.0)
    unary('floor_f32', 'FLOOR', scale=3.0)
    unary('ceil_f32', 'CEIL', scale=3.0)
    unary('round_f32', 'ROUND', scale=3.0)

    @mk.litert_case('round_f32_halves')
    def _(m):
        halves = [-3.5, -2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.5, -0.49, 0.51, 2.4999, 1e7 + 0.5]
        x = m.input([12])
        z = m.const([1], [0.0])
        y = m.tensor([12])
        m.op('MUL', [x, z], [y], 'MulOptions', {})
        c = m.const([12], halves)
        s = m.tensor([12])
        m.op('ADD', [y, c], [s], 'AddOptions', {})
        out = m.tensor([12])
        m.op('ROUND', [s], [out])
        m.output(out)

    unary('sign_f32', 'SIGN')
    unary('sign_i32', 'SIGN', type='int32')

    # ---- ELU, LEAKY_RELU, RELU_N1_TO_1, RELU_0_TO_1
    unary('elu_f32', 'ELU', scale=2.0)
    unary('elu_i8_wide', 'ELU', type='int8', q=(0.1, 60), qo=(0.07, 0))
    unary('log_i8_wide', 'LOG', type='int8', q=(0.5, -128), qo=(0.02, -128))
    unary('elu_i8', 'ELU', type='int8', q=(0.04, 10), qo=(0.03, -90))
    lr = {'alpha': 0.2}
    unary('leaky_relu_f32', 'LEAKY_RELU', opt_type='LeakyReluOptions', opt=lr)
    unary('leaky_relu_f32_alpha_neg', 'LEAKY_RELU', opt_type='LeakyReluOptions', opt={'alpha': -1.5})
    unary('leaky_relu_i8', 'LEAKY_RELU', type='int8', q=(0.03, -5), qo=(0.02, -30), opt_type='LeakyReluOptions',
          opt=lr)
    unary('leaky_relu_u8', 'LEAKY_RELU', type='uint8', q=(0.03, 128), qo=(0.025, 100), opt_type='LeakyReluOptions',
          opt=lr)
    # alpha * scale ratio below 2^-8: outside XNNPACK's range, TFLite's own kernel runs
    unary('leaky_relu_i8_small_alpha', 'LEAKY_RELU', type='int8', q=(0.03, -5), qo=(0.03, -5),
          opt_type='LeakyReluOptions', opt={'alpha': 0.002})
    unary('leaky_relu_i16', 'LEAKY_RELU', type='int16', q=(0.0004, 0), qo=(0.0003, 0), opt_type='LeakyReluOptions',
          opt=lr)
    for code, lc in (('RELU_N1_TO_1', 'relu_n1_to_1'), ('RELU_0_TO_1', 'relu_0_to_1')):
        unary(lc + '_f32', code, scale=2.0)
        unary(lc + '_i8', code, type='int8', q=(0.03, -5), qo=(0.01, -10))
        unary(lc + '_u8', code, type='uint8', q=(0.03, 128), qo=(0.02, 120))

    # ---- HARD_SWISH int8/uint8 over every input code: a Gaussian input CONCATENATEd (same
    # quantization, a plain copy) with a constant holding all 256 codes. The first case's
    # quantization is MobileNetV3-small's (tests/zoo), where exact rounding of the real value
    # is 1 LSB off TFLite's fixed-point arithmetic at a near-tie. Quantized outputs
    # are compared within 1 LSB, so a DEQUANTIZE of the result is a second, float output:
    # compared within 1e-5 of its range, it must match code for code.
    def hard_swish_codes(name, type, q, qo):
        @mk.litert_case(name)
        def _(m):
            x = m.input([64], type, q=q)
            codes = list(range(-128, 128)) if type == 'int8' else list(range(256))
            c = m.const([256], codes, type, q=q)
            cat = m.tensor([320], type, q=q)
            m.op('CONCATENATION', [x, c], [cat], 'ConcatenationOptions', {'axis': 0})
            out = m.tensor([320], type, q=qo)
            m.op('HARD_SWISH', [cat], [out])
            m.output(out)
            real = m.tensor([320])
            m.op('DEQUANTIZE', [out], [real])
            m.output(real)

    hard_swish_codes('hard_swish_i8_codes', 'int8', (0.03719327598810196, 2), (0.019719835370779037, -109))
    hard_swish_codes('hard_swish_i8_codes_wide', 'int8', (0.1, -20), (0.07, -100))
    hard_swish_codes('hard_swish_i8_codes_fine', 'int8', (0.01, 5), (0.004, -90))

    # ---- QUANTIZE float -> 8 bits at exact halves: inputs whose float32 quotient x / scale
    # is k + 0.5 (every k of the type's range that has one), after a Gaussian input. The
    # first quantization is a YOLOv8-obb int8 export's input (Ultralytics 8.4), where one
    # such pixel put our QUANTIZE one code off LiteRT and the head's boxes up to 5 steps.
    # A DEQUANTIZE of the codes is a second, float output, matched code for code.
    def f32(v):
        return struct.unpack('<f', struct.pack('<f', v))[0]

    def halves(scale, zp, lo, hi):
        """float32 x with fl32(x / scale) == k + 0.5 for each k with a code k + zp in lo..hi."""
        scale, out = f32(scale), []
        for k in range(lo - zp, hi - zp):
            x0 = f32((k + 0.5) * scale)
            bits = struct.unpack('<I', struct.pack('<f', abs(x0)))[0]
            for d in (0, -1, 1, -2, 2, -3, 3):
                x = math.copysign(struct.unpack('<f', struct.pack('<I', bits + d))[0], x0)
                if f32(x / scale) == k + 0.5:
                    out.append(x)
                    break
        return out

    def quantize_halves(name, type, q):
        lo, hi = (-128, 127) if type == 'int8' else (0, 255)
        ties = halves(q[0], q[1], lo, hi)

        @mk.litert_case(name)
        def _(m):
            x = m.input([64])
            c = m.const([len(ties)], ties)
            cat = m.tensor([64 + len(ties)])
            m.op('CONCATENATION', [x, c], [cat], 'ConcatenationOptions', {'axis': 0})
            out = m.tensor([64 + len(ties)], type, q=q)
            m.op('QUANTIZE', [cat], [out])
            m.output(out)
            real = m.tensor([64 + len(ties)])
            m.op('DEQUANTIZE', [out], [real])
            m.output(real)

    quantize_halves('quantize_f32_i8_halves', 'int8', (0.0035119173116981983, -128))
    quantize_halves('quantize_f32_i8_halves_signed', 'int8', (0.02, 3))
    quantize_halves('quantize_f32_u8_halves', 'uint8', (0.03, 128))
    hard_swish_codes('hard_swish_u8_codes', 'uint8', (0.05, 128), (0.03, 20))

    # ---- LOGICAL_NOT, LOGICAL_OR
    unary('logical_not', 'LOGICAL_NOT', type='bool')
    binary('logical_or', 'LOGICAL_OR', [2, 3, 4], [2, 3, 4], type='bool')
    binary('logical_or_bcast', 'LOGICAL_OR', [2, 1, 4], [3, 1], type='bool')

    # ---- comparisons
    for code in ('LESS', 'LESS_EQUAL', 'GREATER', 'GREATER_EQUAL', 'EQUAL', 'NOT_EQUAL'):
        lc = code.lower()
        binary(lc + '_f32', code, [2, 3, 4], [4], b_const=[-0.5, 0.0, 0.25, 1.0], out_type='bool')
        binary(lc + '_i32', code, [3, 4], [3, 4], type='int32', out_type='bool')
        binary(lc + '_u8', code, [4, 8, 16], [4, 8, 16], type='uint8', qa=(0.02, 128), qb=(0.03, 120),
               out_type='bool')
    binary('less_f32_bcast_6d', 'LESS', [2, 1, 3, 1, 2, 2], [2, 1, 4, 1, 2], out_type='bool')
    binary('less_i64', 'LESS', [2, 5], [5], type='int64', b_const=[-2, -1, 0, 1, 2], out_type='bool')
    binary('less_i16', 'LESS', [3, 4], [3, 4], type='int16', out_type='bool')
    binary('less_i16_quantized', 'LESS', [3, 4], [3, 4], type='int16', qa=(0.001, 0), qb=(0.002, 0),
           out_type='bool')
    binary('less_i8', 'LESS', [2, 3, 4], [4], type='int8', qa=(0.01, -3), qb=(0.04, 5), out_type='bool')
    binary('greater_i8', 'GREATER', [2, 3, 4], [2, 3, 4], type='int8', qa=(0.01, -3), qb=(0.04, 5),
           out_type='bool')
    binary('equal_i8_same_scale', 'EQUAL', [2, 3, 4], [2, 3, 4], type='int8', qa=(0.25, 0), qb=(0.25, 0),
           out_type='bool')
    binary('equal_bool', 'EQUAL', [2, 3, 4], [4], type='bool', out_type='bool')
    binary('not_equal_bool', 'NOT_EQUAL', [2, 3, 4], [2, 3, 4], type='bool', out_type='bool')
    binary('equal_i64', 'EQUAL', [2, 5], [2, 5], type='int64', out_type='bool')
    binary('greater_equal_f32_scalar', 'GREATER_EQUAL', [2, 3, 4], [], b_const=[0.1], out_type='bool')

    # ---- FLOOR_DIV, FLOOR_MOD
    binary('floor_div_f32', 'FLOOR_DIV', [2, 3, 4], [4], b_const=[0.7, -0.3, 2.0, -1.5])
    binary('floor_div_i8', 'FLOOR_DIV', [3, 4], [4], type='int8', b_const=[1, -1, 3, -128])
    binary('floor_div_i16', 'FLOOR_DIV', [2, 3, 4], [4], type='int16', qa=(0.001, 0), qb=(0.001, 0),
           qo=(0.001, 0), b_const=[7, -5, 300, -2])
    binary('floor_div_i32', 'FLOOR_DIV', [3, 6], [6], type='int32', b_const=[1, -1, 2, -2, 3, -4])
    binary('floor_mod_f32', 'FLOOR_MOD', [2, 3, 4], [4], b_const=[0.7, -0.3, 2.0, -1.5])
    binary('floor_mod_i32', 'FLOOR_MOD', [3, 6], [6], type='int32', b_const=[1, -1, 2, -2, 3, -4])
    binary('floor_mod_i8', 'FLOOR_MOD', [3, 4], [4], type='int8', b_const=[1, -1, 2, -3])
    binary('floor_mod_i16', 'FLOOR_MOD', [2, 3, 4], [4], type='int16', qa=(0.001, 0), qb=(0.001, 0),
           qo=(0.001, 0), b_const=[7, -5, 300, -2])
    binary('floor_mod_i64', 'FLOOR_MOD', [3, 6], [6], type='int64', b_const=[5, -1, 2, -2, 3, -4])

    # ---- ADD_N
    @mk.litert_case('add_n_f32')
    def _(m):
        xs = [m.input([2, 3, 4]) for _ in range(3)]
        out = m.tensor([2, 3, 4])
        m.op('ADD_N', xs, [out])
        m.output(out)

    @mk.litert_case('add_n_i32')
    def _(m):
        xs = [m.input([3, 5], 'int32') for _ in range(4)]
        out = m.tensor([3, 5], 'int32')
        m.op('ADD_N', xs, [out])
        m.output(out)

    # ---- ATAN2
    binary('atan2_f32', 'ATAN2', [2, 3, 4], [2, 3, 4])

    # ---- FAKE_QUANT
    unary('fake_quant_8bit', 'FAKE_QUANT', opt_type='FakeQuantOptions',
          opt={'min': -1.0, 'max': 1.0, 'num_bits': 8, 'narrow_range': False}, scale=1.5)
    unary('fake_quant_16bit', 'FAKE_QUANT', opt_type='FakeQuantOptions',
          opt={'min': -3.0, 'max': 2.0, 'num_bits': 16, 'narrow_range': False}, scale=1.5)
    unary('fake_quant_positive_range', 'FAKE_QUANT', opt_type='FakeQuantOptions',
          opt={'min': 0.5, 'max': 2.0, 'num_bits': 8, 'narrow_range': False}, scale=1.5)
    unary('fake_quant_4bit_nudged', 'FAKE_QUANT', opt_type='FakeQuantOptions',
          opt={'min': -0.3, 'max': 1.7, 'num_bits': 4, 'narrow_range': False}, scale=1.5)

    # ---- BITWISE_XOR, RIGHT_SHIFT (plain integers; the input's quantization only widens the
    # Gaussian values, TFLite ignores it). Shifts outside [0, bits) clamp into it.
    wide = {'int8': (0.02, 0), 'uint8': (0.01, 128), 'int16': (0.0002, 0), 'int32': (1e-6, 0)}
    for t, ty in (('i8', 'int8'), ('u8', 'uint8'), ('i16', 'int16'), ('i32', 'int32')):
        binary('bitwise_xor_' + t, 'BITWISE_XOR', [4, 8], [8], type=ty, qa=wide[ty], qo=wide[ty],
               b_const=[5, 3, 0, 1, 255, 128, 77, 200] if t == 'u8' else [5, -3, 0, 127, -128, -1, 64, 99])
    binary('bitwise_xor_i32_both_inputs', 'BITWISE_XOR', [3, 4], [2, 3, 1], type='int32', qa=wide['int32'],
           qb=wide['int32'], qo=wide['int32'])
    binary('right_shift_i32', 'RIGHT_SHIFT', [4, 8], [8], type='int32', qa=wide['int32'], qo=wide['int32'],
           b_const=[0, 1, 2, 5, 31, 32, 40, -1])
    binary('right_shift_i8', 'RIGHT_SHIFT', [4, 8], [8], type='int8', qa=wide['int8'], qo=wide['int8'],
           b_const=[0, 1, 3, 7, 8, 100, -1, -128])
    binary('right_shift_u8', 'RIGHT_SHIFT', [4, 8], [8], type='uint8', qa=wide['uint8'], qo=wide['uint8'],
           b_const=[0, 1, 3, 7, 8, 100, 255, 2])
    binary('right_shift_i16', 'RIGHT_SHIFT', [4, 8], [8], type='int16', qa=wide['int16'], qo=wide['int16'],
           b_const=[0, 1, 3, 15, 16, 100, -1, 9])

    # ---- ADD, SUB, MUL, DIV, MAXIMUM, MINIMUM (kernels/elementwise.c): the integer types
    opts = {'ADD': 'AddOptions', 'SUB': 'SubOptions', 'MUL': 'MulOptions', 'DIV': 'DivOptions'}

    def arith(name, code, a_shape, b_shape, type, qa=None, qb=None, qo=None, act=None, b_const=None):
        @mk.litert_case(name)
        def _(m):
            a = m.input(list(a_shape), type, q=qa)
            if b_const is not None:
                b = m.const(list(b_shape), b_const, type, q=qb)
            else:
                b = m.input(list(b_shape), type, q=qb)
            nd = max(len(a_shape), len(b_shape))
            pa = [1] * (nd - len(a_shape)) + list(a_shape)
            pb = [1] * (nd - len(b_shape)) + list(b_shape)
            out = m.tensor([max(x, y) for x, y in zip(pa, pb)], type, q=qo)
            if code in opts:
                m.op(code, [a, b], [out], opts[code], {'fused_activation_function': mk.ACT[act]})
            else:
                m.op(code, [a, b], [out], 'MaximumMinimumOptions', {})
            m.output(out)

    # int64 inputs of a few 10^9 (past int32); sums stay below 2^53, where the golden's
    # double statistics are exact
    big = (1e-9, 0)
    for code in ('ADD', 'SUB', 'MUL', 'MAXIMUM', 'MINIMUM'):
        lc = code.lower()
        arith(lc + '_i64', code, [2, 3, 4], [4], 'int64', qa=big,
              b_const=[5, -7, 3, -(1 << 20)] if code == 'MUL' else [5, -7, 1 << 40, -(1 << 41)])
        arith(lc + '_i64_bcast', code, [2, 1, 4], [3, 1], 'int64')
    arith('add_i64_relu6', 'ADD', [3, 5], [3, 5], 'int64', act='relu6')
    arith('mul_i64_relu1', 'MUL', [3, 5], [5], 'int64', act='relu1')
    arith('sub_i64_relu', 'SUB', [3, 5], [3, 5], 'int64', act='relu')
    # int16 quantized (symmetric); scales that are not all powers of two take TFLite's
    # general path
    q16 = dict(qa=(0.0003, 0), qb=(0.0005, 0), qo=(0.0007, 0))
    for code in ('ADD', 'SUB', 'MUL'):
        lc = code.lower()
        arith(lc + '_i16', code, [4, 8, 16], [4, 8, 16], 'int16', **q16)
        arith(lc + '_i16_bcast_relu', code, [2, 3, 4, 5], [5], 'int16', act='relu', **q16)
    arith('add_i16_relu1_same_scale', 'ADD', [4, 8], [4, 8], 'int16', qa=(0.0001, 0), qb=(0.0001, 0),
          qo=(0.0001, 0), act='relu1')
    arith('mul_i16_large_scale', 'MUL', [4, 8], [8], 'int16', qa=(0.01, 0), qb=(0.02, 0), qo=(0.0002, 0))
    arith('maximum_i16', 'MAXIMUM', [4, 8], [8], 'int16', qa=(0.0003, 0), qb=(0.0003, 0), qo=(0.0003, 0))
    arith('minimum_i16', 'MINIMUM', [2, 3, 4], [2, 1, 4], 'int16', qa=(0.0003, 0), qb=(0.0003, 0), qo=(0.0003, 0))
    for code in ('ADD', 'SUB', 'MUL', 'DIV', 'MAXIMUM', 'MINIMUM'):
        lc = code.lower()
        arith(lc + '_i32_wide', code, [3, 8], [8], 'int32', qa=(1e-5, 0),
              b_const=[3, -3, 1, -1, 7, 100000, -65536, 2] if code == 'DIV' else [3, -3, 0, 1 << 30, -(1 << 31), 5, 7, -1])

    # ---- rank 0 (empty tensors: the interpreter refuses a 0 dim before any kernel)
    unary('abs_f32_scalar', 'ABS', shape=())
    unary('rsqrt_i8_scalar', 'RSQRT', shape=(), type='int8', q=(0.02, -128), qo=(0.05, -128))
    binary('squared_difference_f32_scalar_bcast', 'SQUARED_DIFFERENCE', [], [2, 3])
    binary('less_f32_scalars', 'LESS', [], [], out_type='bool')
    binary('floor_mod_i32_scalar_divisor', 'FLOOR_MOD', [2, 5], [], type='int32', b_const=[-3])
    # quantized DIV and MAXIMUM/MINIMUM with differing quantization
    arith('div_i8', 'DIV', [4, 8, 16], [16], 'int8', qa=(0.02, 3), qb=(0.01, -10), qo=(0.05, 5),
          b_const=[(-1) ** k * (20 + 7 * k) for k in range(16)])
    arith('div_u8', 'DIV', [4, 8, 16], [16], 'uint8', qa=(0.02, 128), qb=(0.01, 100), qo=(0.05, 120),
          b_const=[130 + 7 * k if k % 2 else 90 - 5 * k for k in range(16)])
    arith('div_i16', 'DIV', [4, 8, 16], [16], 'int16', qa=(0.0003, 0), qb=(0.0002, 0), qo=(0.0006, 0),
          b_const=[(-1) ** k * (2000 + 700 * k) for k in range(16)])
    arith('maximum_i8_requantize', 'MAXIMUM', [4, 8, 16], [16], 'int8', qa=(0.02, 3), qb=(0.03, -10), qo=(0.025, 5))
    arith('minimum_u8_requantize', 'MINIMUM', [4, 8, 16], [4, 8, 16], 'uint8', qa=(0.02, 128), qb=(0.03, 100),
          qo=(0.025, 120))

    # ---- large enough (40960 elements) for the fast mode's threads to split the work
    binary('squared_difference_f32_large', 'SQUARED_DIFFERENCE', [2, 128, 160], [160])
    binary('less_u8_large', 'LESS', [2, 128, 160], [128, 1], type='uint8', qa=(0.02, 128), qb=(0.03, 120),
           out_type='bool')
    unary('gelu_i8_large', 'GELU', shape=(2, 128, 160), type='int8', q=(0.03, -5), qo=(0.02, -100),
          opt_type='GeluOptions', opt={'approximate': False})
    binary('floor_mod_i32_large', 'FLOOR_MOD', [2, 128, 160], [160], type='int32', qa=(0.01, 0),
           b_const=[(k % 7) + 1 if k % 2 else -((k % 5) + 1) for k in range(160)])
