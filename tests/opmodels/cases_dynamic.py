"""cases_dynamic.py - single-op models of the ops whose output size depends on the data:
WHERE on a computed condition and UNIQUE (make_opmodels.py loads this module).

All are written by the official converter from tf.functions (cases_spectral.py's
`convert`, run by make_opmodels.py with LITERT_PYTHON as `cases_dynamic.py NAME OUT`);
goldens from the native TensorFlow Lite, whose outputs have each run's true size.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cases_spectral  # noqa: E402  (convert, register_converted)

CONVERTED = {
    # GREATER + WHERE: int64 coordinates of the true elements, [count, rank]
    'where_tf_greater_2d': ([([3, 4], 'float32')], lambda tf, x: tf.where(x > 0)),
    'where_tf_greater_3d': ([([2, 3, 4], 'float32')], lambda tf, x: tf.where(x > 0.5)),
    # ROUND + UNIQUE: float values in order of first appearance, int32 indices
    'unique_tf_f32': ([([12], 'float32')], lambda tf, x: tf.unique(tf.round(x))),
    'unique_tf_i32': ([([16], 'int32')], lambda tf, x: tf.unique(x)),
    'unique_tf_i64_idx64': ([([9], 'int64')], lambda tf, x: tf.unique(x, out_idx=tf.int64)),
}


def register(mk):
    cases_spectral.register_converted(mk, CONVERTED, __file__)


if __name__ == '__main__':
    cases_spectral.convert(CONVERTED, sys.argv[1], sys.argv[2])
