#!/usr/bin/env python3
"""make_quant_models.py - full-integer int8 models for the GL fusion passes
(delegates/gl/gl_fuse*.c), with goldens from the native TensorFlow Lite.

Writes tests/gl/quant/models/NAME.tflite and tests/gl/quant/golden/NAME.CASE.txt (the format
tests/golden.c reads), read by tests/gl/test_gl_quant_fusion.c:
  mobilenet_v3_small_logits  MobileNetV3Small(alpha=0.75) at 128x128, its own top, 16 raw
                             logits (classifier_activation=None), include_preprocessing as
                             Keras does it (Rescaling 1/127.5 - 1 inside the model), input
                             int8 on scale 1 (0..255 - 128): golden on a picture (chelsea)
  fuse_epilogue   conv, add of the input with ReLU6, a multiply: the element-wise ops in
                  the conv's dispatch; the conv output also leaves the graph (kept)
  fuse_se         squeeze-excite: mean, 1x1 conv ReLU, 1x1 conv, hard sigmoid, multiply;
                  calibrated on half the spread of the test input, so its inner tensors saturate
  fuse_inline     a rescaling of the input inlined into the depthwise conv reading it
  fuse_remap      two convs reshaped and concatenated: written in place into the concat
  fuse_float_only an inverted residual block beside two heads on one input: the pairing,
                  depthwise + 1x1 and whole-block passes take float outputs only, so on
                  int8 they must stay off (and the result still match)
Random weights (seeded), BatchNorm statistics from one random batch (momentum 0), calibration
on 8 random inputs (N(0,1); uniform 0..255 for the MobileNetV3 with its preprocessing);
goldens: ai-edge-litert 2.3.0, one thread, on `gauss --seed 1` (tests/golden.c's inputs) or
on the picture as tests/golden.c resizes it (tests/golden_tool.c).

Usage: /work/venv-zoo/bin/python tests/gl/quant/make_quant_models.py [NAME ...]
(tensorflow-cpu 2.21.0 / Keras 3.15.1 and ai-edge-litert 2.3.0 in that venv)
"""
import hashlib
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, '..', '..', '..'))
sys.path.insert(0, os.path.join(ROOT, 'tests', 'data'))
sys.path.insert(0, os.path.join(ROOT, 'tests', 'opmodels'))
import make_golden  # noqa: E402  (golden writer, input stream, picture tool)

PICTURE = 'chelsea.png'


def models():
    import keras
    from keras import layers

    def conv(x, n, k=1, act=None, **kw):
        return layers.Conv2D(n, k, padding='same', activation=act, **kw)(x)

    def mobilenet_v3_small_logits():
        return keras.applications.MobileNetV3Small(
            input_shape=(128, 128, 3), alpha=0.75, weights=None, classes=16, classifier_activation=None,
            include_preprocessing=True)

    def fuse_epilogue():
        x = keras.Input((12, 12, 8), batch_size=1)
        y = conv(x, 8, 3)
        z = layers.ReLU(6.0)(layers.Add()([y, x]))
        w = layers.Multiply()([z, conv(x, 8, 1)])
        return keras.Model(x, [w, y])

    def fuse_se():
        # calibrated on inputs of half the tests' spread (CALIB_SD): the pooled vector and
        # the hidden layer then saturate on the test input, as MobileNetV3's did on a picture
        x = keras.Input((6, 6, 16), batch_size=1)
        f = conv(x, 16)
        s = layers.GlobalAveragePooling2D(keepdims=True)(f)
        s = conv(s, 8, act='relu')
        s = conv(s, 16)
        s = layers.Activation('hard_sigmoid')(s)
        return keras.Model(x, layers.Multiply()([f, s]))

    def fuse_inline():
        # a rescaling of the input (MUL, ADD: no dispatch before them to fuse into) computed
        # inside the depthwise conv reading it (the converter folds a ZeroPadding2D into the
        # conv's own padding, so a PAD does not stay)
        x = keras.Input((15, 15, 8), batch_size=1)
        y = layers.Rescaling(0.5, offset=0.25)(x)
        y = layers.DepthwiseConv2D(3, strides=2, padding='same')(y)
        return keras.Model(x, conv(y, 12))

    def fuse_remap():
        x = keras.Input((8, 8, 8), batch_size=1)
        a = layers.Reshape((-1, 4))(conv(x, 12))
        b = layers.Reshape((-1, 4))(conv(x, 8, 3))
        return keras.Model(x, layers.Concatenate(axis=1)([a, b]))

    def fuse_float_only():
        x = keras.Input((12, 12, 8), batch_size=1)
        e = conv(x, 24, act='relu6')
        d = layers.DepthwiseConv2D(3, padding='same', activation='relu6')(e)
        r = layers.Add()([conv(d, 8), x])
        return keras.Model(x, [r, conv(x, 6, 3), conv(x, 10, 3)])

    return {
        'mobilenet_v3_small_logits': ((128, 128, 3), 'picture', mobilenet_v3_small_logits),
        'fuse_epilogue': ((12, 12, 8), 'gauss', fuse_epilogue),
        'fuse_se': ((6, 6, 16), 'gauss', fuse_se),
        'fuse_inline': ((15, 15, 8), 'gauss', fuse_inline),
        'fuse_remap': ((8, 8, 8), 'gauss', fuse_remap),
        'fuse_float_only': ((12, 12, 8), 'gauss', fuse_float_only),
    }


CALIB_SD = {'fuse_se': 0.5}   # calibration inputs N(0, sd) (default 1)


def sample(rng, shape, case, name):
    x = (CALIB_SD.get(name, 1.0) * rng.standard_normal((1,) + tuple(shape))).astype('float32')
    if case == 'picture':
        # pixels: 0 and 255 present so the input quantizes on scale 1, zero point -128
        x = rng.uniform(0, 255, (1,) + tuple(shape)).astype('float32')
        x.flat[0], x.flat[1] = 0.0, 255.0
    return x


def make(name, shape, case, build):
    import keras
    import numpy as np
    import tensorflow as tf
    from keras import layers
    seed = int(hashlib.sha256(name.encode()).hexdigest()[:6], 16)
    keras.utils.set_random_seed(seed)
    model = build()
    rng = np.random.default_rng(seed)
    bns = [l for l in model._flatten_layers() if isinstance(l, layers.BatchNormalization)]
    for l in bns:
        l.momentum = 0.0
    if bns:
        model(np.concatenate([sample(rng, shape, case, name) for _ in range(16)]), training=True)
    c = tf.lite.TFLiteConverter.from_keras_model(model)
    c.optimizations = [tf.lite.Optimize.DEFAULT]

    def rep():
        for _ in range(8):
            yield [sample(rng, shape, case, name)]
    c.representative_dataset = rep
    c.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
    c.inference_input_type = tf.int8
    c.inference_output_type = tf.int8
    data = c.convert()
    path = os.path.join(HERE, 'models', name + '.tflite')
    with open(path, 'wb') as f:
        f.write(data)
    print('%s: %d bytes, %d params' % (name, len(data), model.count_params()), flush=True)
    return path


def golden(name, path, case, tool, tmp):
    import numpy as np
    from ai_edge_litert.interpreter import Interpreter
    import ai_edge_litert
    from litert_run import fill
    it = Interpreter(model_path=path, num_threads=1)
    it.allocate_tensors()
    run = os.path.join(tmp, name)
    os.makedirs(run, exist_ok=True)
    doc = {'runtime': 'ai-edge-litert %s (native TensorFlow Lite, CPU)' % ai_edge_litert.__version__,
           'inputs': [], 'outputs': []}
    normal = make_golden.gauss_stream(1)
    for i, d in enumerate(it.get_input_details()):
        scale, zp = d['quantization']
        t = {'name': d['name'], 'dtype': np.dtype(d['dtype']).name, 'shape': list(map(int, d['shape'])),
             'quantization': {'scale': [scale], 'zero_point': [zp]}, 'file': 'input_%d.bin' % i}
        f = os.path.join(run, t['file'])
        if case == 'picture':
            if (scale, zp) != (1.0, -128):
                raise SystemExit('%s: input on scale %g zero point %d, the picture needs 1, -128' % (name, scale, zp))
            subprocess.run([tool, 'picture', os.path.join(ROOT, 'tests', 'data', 'pictures', PICTURE), '0', '255',
                            make_golden.spec(t), f], check=True)
            x = np.fromfile(f, d['dtype']).reshape(d['shape'])
        else:
            x = fill(normal, d['dtype'], list(d['shape']), scale, zp)
            x.tofile(f)
        it.set_tensor(d['index'], x)
        doc['inputs'].append(t)
    it.invoke()
    for i, d in enumerate(it.get_output_details()):
        y = it.get_tensor(d['index'])
        y.tofile(os.path.join(run, 'output_%d.bin' % i))
        qp = d['quantization_parameters']
        doc['outputs'].append({'name': d['name'], 'dtype': np.dtype(y.dtype).name, 'shape': list(map(int, y.shape)),
                               'quantization': {'scale': [float(s) for s in qp['scales']],
                                                'zero_point': [int(z) for z in qp['zero_points']]},
                               'file': 'output_%d.bin' % i})
    with open(path, 'rb') as f:
        sha = hashlib.sha256(f.read()).hexdigest()
    source = 'input picture %s 0 255' % PICTURE if case == 'picture' else 'input gauss 1'
    header = ['model %s.tflite' % name, 'sha256 %s' % sha, 'runtime %s' % doc['runtime'], source]
    out = os.path.join(HERE, 'golden', '%s.%s.txt' % (name, case))
    make_golden.write_golden(out, header, doc, run, spread=False)
    print('  %s' % os.path.relpath(out, ROOT), flush=True)


def main():
    want = sys.argv[1:]
    os.makedirs(os.path.join(HERE, 'models'), exist_ok=True)
    os.makedirs(os.path.join(HERE, 'golden'), exist_ok=True)
    all_models = models()
    with tempfile.TemporaryDirectory() as tmp:
        tool = make_golden.build_tool(tmp)
        for name, (shape, case, build) in all_models.items():
            if want and name not in want:
                continue
            path = make(name, shape, case, build)
            golden(name, path, case, tool, tmp)


if __name__ == '__main__':
    main()
