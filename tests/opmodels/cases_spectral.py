"""cases_spectral.py - single-op models of the complex-number ops (RFFT2D, REAL, IMAG,
COMPLEX_ABS), BUCKETIZE and BITCAST (make_opmodels.py loads this module).

Two kinds of cases, every golden from the native TensorFlow Lite (litert_run.py):
- converted: a tf.function through the official converter (tf.lite.TFLiteConverter), as a
  user's model would come; make_opmodels.py runs this file with LITERT_PYTHON (a Python
  with tensorflow) as `cases_spectral.py NAME OUT.tflite` to write the model;
- built: Model/flatc cases for what the converter does not write on its own (RFFT2D
  cropping its input: the converter pads or slices the input itself).
"""
import sys

import os

HERE = os.path.dirname(os.path.abspath(__file__))

# name -> (input signature [(shape, dtype name)], function of tf and the inputs -> outputs)
CONVERTED = {
    # tf.signal.rfft2d with fft_length past the input: the converter pads (PAD + RFFT2D)
    'rfft2d_tf_pad': ([([2, 5, 12], 'float32')], lambda tf, x: tf.signal.rfft2d(x, fft_length=[8, 16])),
    # same size: RFFT2D alone, over a 4-D input
    'rfft2d_tf_4d': ([([1, 2, 8, 4], 'float32')], lambda tf, x: tf.signal.rfft2d(x)),
    # a 1-D rfft: RESHAPE (complex64 output moved too), RFFT2D with fft_length [1, 32], RESHAPE
    'rfft_tf_1d': ([([3, 32], 'float32')], lambda tf, x: tf.signal.rfft(x)),
    'complex_abs_real_imag_tf': ([([3, 16], 'float32')],
                                 lambda tf, x: (tf.abs(tf.signal.rfft(x)), tf.math.real(tf.signal.rfft(x)),
                                                tf.math.imag(tf.signal.rfft(x)))),
    # an audio front end: frames (SLICE, GATHER), Hann window (MUL), rfft, magnitude
    'stft_abs_tf': ([([1, 400], 'float32')],
                    lambda tf, x: tf.abs(tf.signal.stft(x, frame_length=64, frame_step=32, fft_length=64))),
    'bucketize_f32_tf': ([([3, 7], 'float32')],
                         lambda tf, x: tf.raw_ops.Bucketize(input=x, boundaries=[-1.0, -0.5, 0.0, 0.0, 0.25, 1.5])),
    'bucketize_i32_tf': ([([4, 5], 'int32')],
                         lambda tf, x: tf.raw_ops.Bucketize(input=x, boundaries=[-1.0, 0.0, 0.5, 2.0])),
    'bucketize_i64_tf': ([([9], 'int64')], lambda tf, x: tf.raw_ops.Bucketize(input=x, boundaries=[-2.0, 1.0])),
    'bucketize_empty_tf': ([([5], 'float32')], lambda tf, x: tf.raw_ops.Bucketize(input=x, boundaries=[])),
    'bitcast_f32_i32_tf': ([([3, 4], 'float32')], lambda tf, x: tf.bitcast(x, tf.int32)),
    'bitcast_f32_i16_tf': ([([3, 4], 'float32')], lambda tf, x: tf.bitcast(x, tf.int16)),
    'bitcast_f32_u8_tf': ([([2, 3], 'float32')], lambda tf, x: tf.bitcast(x, tf.uint8)),
    'bitcast_i32_i64_tf': ([([3, 4, 2], 'int32')], lambda tf, x: tf.bitcast(x, tf.int64)),
    'bitcast_i16_i32_tf': ([([5, 2], 'int16')], lambda tf, x: tf.bitcast(x, tf.int32)),
    'bitcast_u8_i16_tf': ([([3, 2], 'uint8')], lambda tf, x: tf.bitcast(x, tf.int16)),
}


def convert(table, name, out):
    """Writes table[name]'s tf.function, converted, to `out` (run with tensorflow)."""
    import tensorflow as tf
    sig, fn = table[name]

    @tf.function(input_signature=[tf.TensorSpec(s, getattr(tf, t)) for s, t in sig])
    def f(*xs):
        return fn(tf, *xs)
    conv = tf.lite.TFLiteConverter.from_concrete_functions([f.get_concrete_function()], f)
    with open(out, 'wb') as fo:
        fo.write(conv.convert())


def register_converted(mk, table, path):
    """Cases whose model make_opmodels.py gets by running `path NAME OUT` with tensorflow."""
    for name in table:
        mk.CASES[name] = (lambda m: None, {'litert': True, 'convert': os.path.abspath(path)})


def register(mk):
    register_converted(mk, CONVERTED, __file__)

    def rfft2d(name, in_shape, fft):
        @mk.litert_case(name)
        def _(m):
            x = m.input(in_shape)
            n = m.const([2], fft, 'int32')
            y = m.tensor(list(in_shape[:-2]) + [fft[0], fft[1] // 2 + 1], 'complex64')
            m.op('RFFT2D', [x, n], [y])
            m.output(y)

    rfft2d('rfft2d_crop', [2, 5, 12], [4, 8])               # both dims cropped
    rfft2d('rfft2d_pad_h_crop_w', [1, 3, 6], [8, 4])       # height zero-padded, width cropped
    rfft2d('rfft2d_2d_32x16', [32, 16], [32, 16])          # rank 2, several butterfly stages
    rfft2d('rfft2d_len1', [3, 4, 8], [1, 2])               # length-1 and length-2 transforms
    # (fft_length [h, 1] has no case: LiteRT 2.3.0's Ooura kernel returns values unlike the
    # DFT there, e.g. a non-zero imaginary part at frequency 0; ours computes the DFT)
    rfft2d('rfft2d_audio_512', [1, 6, 400], [1, 512])      # audio frames zero-padded to 512


if __name__ == '__main__':
    convert(CONVERTED, sys.argv[1], sys.argv[2])
