#!/usr/bin/env python3
"""make_zoo.py - the converter zoo: models users convert themselves, with LiteRT goldens.

Builds small models with random weights (nothing is downloaded: weights=None), converts each
with the official converters from PyPI into the variants users make, and writes
  tests/zoo/models/<model>_<variant>.tflite
  tests/zoo/golden/<model>_<variant>.gauss.txt   (native TensorFlow Lite, `gauss --seed 1`)
  tests/zoo/list.txt                             (one meson test per line: NAME TOL)
  tests/zoo/status.json                          (per model x variant: made / converter
                                                  failed (why) / size / output variation)

Keras (tensorflow-cpu 2.21, Keras 3.15): the Keras applications at small input sizes and
narrow widths (so the files stay small; the op set is the architecture's), plus a small UNet,
a transformer block, an LSTM and a GRU. BatchNorm statistics are set from one random batch
(a training-mode pass with momentum 0), else random networks collapse to constant outputs;
every model is run on two different inputs and must give different outputs.
Variants: fp32; fp16 (float16 weights); dyn (dynamic range: int8 weights, float
activations); int8 (full integer, int8 in/out); uint8 (full integer, uint8 in/out).

Ultralytics YOLO (`make_zoo.py yolo`): yolov8n / yolo11n from their yaml (random weights),
exported with `format="litert"` at imgsz 320, fp32 and int8; runs in its own venv
(YOLO_PYTHON, default /work/venv-yolo/bin/python, with `pip install ultralytics`), offline.

Goldens: tests/opmodels/litert_run.py (ai-edge-litert 2.3.0, one thread) feeds the same
Gaussian inputs tests/golden.c makes; tests/data/make_golden.py's write_golden writes them.

Deterministic: every random source is seeded (model weights, BN batch, calibration data).

Usage (from the repository root, with the venv that has tensorflow-cpu and ai-edge-litert):
  /work/venv-zoo/bin/python tests/zoo/make_zoo.py keras [MODEL ...]   # build + convert + golden
  /work/venv-zoo/bin/python tests/zoo/make_zoo.py yolo                # YOLO export + golden
  /work/venv-zoo/bin/python tests/zoo/make_zoo.py golden [NAME ...]   # goldens only
  /work/venv-zoo/bin/python tests/zoo/make_zoo.py list                # list.txt from models/
  /work/venv-zoo/bin/python tests/zoo/make_zoo.py table [BUILD]       # our runtime on every model (before prune)
  /work/venv-zoo/bin/python tests/zoo/make_zoo.py prune               # drop what is not kept (KEEP_*)
Then: build/tests/test_opmodels NAME --dir tests/zoo --tol 1e-4
"""
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, '..', '..'))
sys.path.insert(0, os.path.join(ROOT, 'tests', 'data'))
import make_golden  # noqa: E402  (golden writer)

MODEL_DIR = os.path.join(HERE, 'models')
GOLDEN_DIR = os.path.join(HERE, 'golden')
STATUS = os.path.join(HERE, 'status.json')
LITERT_RUN = os.path.join(ROOT, 'tests', 'opmodels', 'litert_run.py')
ZOO_PYTHON = os.environ.get('ZOO_PYTHON', sys.executable)
YOLO_PYTHON = os.environ.get('YOLO_PYTHON', '/work/venv-yolo/bin/python')

VARIANTS = ['fp32', 'fp16', 'dyn', 'int8', 'uint8']
FLOAT_TOL = 1e-4          # test_opmodels --tol for float outputs (fraction of the range)
CALIB_SAMPLES = 8


# ---------------------------------------------------------------- Keras models

def audio_layers():
    """The audio front end as a Keras layer (registered, so the converter's child process can
    load the saved model): framed STFT magnitudes, log-compressed. The converter writes
    STRIDED_SLICE/GATHER framing, the Hann window MUL, RFFT2D and COMPLEX_ABS, then LOG."""
    import keras

    @keras.saving.register_keras_serializable(package='zoo')
    class LogSpectrogram(keras.layers.Layer):
        def __init__(self, frame_length=128, frame_step=64, **kw):
            super().__init__(**kw)
            self.frame_length, self.frame_step = frame_length, frame_step

        def call(self, x):
            import tensorflow as tf
            s = tf.abs(tf.signal.stft(x, self.frame_length, self.frame_step, fft_length=self.frame_length))
            return tf.math.log(s + 1e-3)

        def get_config(self):
            return dict(super().get_config(), frame_length=self.frame_length, frame_step=self.frame_step)
    return LogSpectrogram


def keras_models():
    """name -> (input shape without batch, builder). Builders import Keras lazily."""
    import keras
    from keras import layers
    from keras.src.applications import densenet, resnet, convnext, nasnet, efficientnet
    from keras.src.applications import inception_v3 as inception_mod

    classes = 16   # small heads: the 1000-class Dense would dominate every file

    def mobilenet_v2():
        return keras.applications.MobileNetV2(input_shape=(96, 96, 3), alpha=0.35, weights=None,
                                              classes=classes)

    def head(base, name):
        # a classifier head on the pooled features, as fine-tuned models have: MobileNetV3's own
        # top (a 1024/1280-channel 1x1 conv) alone would be most of the file
        x = layers.Dense(classes, activation='softmax', name='head')(base.output)
        return keras.Model(base.input, x, name=name)

    def mobilenet_v3_small():
        return head(keras.applications.MobileNetV3Small(
            input_shape=(96, 96, 3), alpha=0.5, weights=None, include_top=False, pooling='avg',
            include_preprocessing=False), 'mobilenet_v3_small_a05')

    def mobilenet_v3_large():
        return head(keras.applications.MobileNetV3Large(
            input_shape=(96, 96, 3), alpha=0.35, weights=None, include_top=False, pooling='avg',
            include_preprocessing=False), 'mobilenet_v3_large_a035')

    def efficientnet_b0():
        # B0's blocks and depth, a quarter of its width (EfficientNetB0 is width 1.0)
        return efficientnet.EfficientNet(0.25, 1.0, 224, weights=None, input_shape=(96, 96, 3),
                                         classes=classes, name='efficientnet_b0_w025')

    def resnet50():
        # ResNet50's blocks (3, 4, 6, 3 bottlenecks) at an eighth of its width
        def stack_fn(x):
            x = resnet.stack_residual_blocks_v1(x, 8, 3, stride1=1, name='conv2')
            x = resnet.stack_residual_blocks_v1(x, 16, 4, name='conv3')
            x = resnet.stack_residual_blocks_v1(x, 32, 6, name='conv4')
            return resnet.stack_residual_blocks_v1(x, 64, 3, name='conv5')
        return resnet.ResNet(stack_fn, False, True, weights=None, input_shape=(96, 96, 3),
                             classes=classes, name='resnet50_w0125')

    def densenet121():
        # DenseNet121's blocks (6, 12, 24, 16) with growth rate 8 instead of 32
        orig = densenet.conv_block
        densenet.conv_block = lambda x, growth_rate, name: orig(x, 8, name)
        try:
            return densenet.DenseNet([6, 12, 24, 16], weights=None, input_shape=(96, 96, 3),
                                     classes=classes, name='densenet121_g8')
        finally:
            densenet.conv_block = orig

    def convnext_tiny():
        # ConvNeXt-Tiny's depths (3, 3, 9, 3), an eighth of its widths
        return convnext.ConvNeXt([3, 3, 9, 3], [12, 24, 48, 96], weights=None, input_shape=(96, 96, 3),
                                 classes=classes, include_preprocessing=False, name='convnext_tiny_w0125')

    def nasnet_mobile():
        # NASNetMobile's cells (4 blocks, skip_reduction False), penultimate filters 288 (of 1056)
        return nasnet.NASNet(input_shape=(96, 96, 3), penultimate_filters=288, num_blocks=4,
                             stem_block_filters=8, skip_reduction=False, weights=None,
                             classes=classes, default_size=96, name='nasnet_mobile_w025')

    def inception_v3():
        # InceptionV3's modules with every convolution at an eighth of its filters
        orig = inception_mod.conv2d_bn
        inception_mod.conv2d_bn = lambda x, filters, *a, **k: orig(x, max(4, filters // 8), *a, **k)
        try:
            return inception_mod.InceptionV3(input_shape=(96, 96, 3), weights=None, classes=classes)
        finally:
            inception_mod.conv2d_bn = orig

    def cbr(x, n):
        x = layers.Conv2D(n, 3, padding='same', use_bias=False)(x)
        x = layers.BatchNormalization()(x)
        return layers.ReLU()(x)

    def unet():
        inp = keras.Input((64, 64, 3), batch_size=1)
        c1 = cbr(cbr(inp, 8), 8)
        c2 = cbr(cbr(layers.MaxPooling2D()(c1), 16), 16)
        b = cbr(cbr(layers.MaxPooling2D()(c2), 32), 32)
        u2 = layers.Conv2DTranspose(16, 3, strides=2, padding='same')(b)
        u2 = cbr(layers.Concatenate()([u2, c2]), 16)
        u1 = layers.Conv2DTranspose(8, 3, strides=2, padding='same')(u2)
        u1 = cbr(layers.Concatenate()([u1, c1]), 8)
        out = layers.Conv2D(3, 1, activation='softmax')(u1)
        return keras.Model(inp, out, name='unet')

    def transformer():
        inp = keras.Input((16, 32), batch_size=1)
        h = layers.LayerNormalization(epsilon=1e-6)(inp)
        h = layers.MultiHeadAttention(num_heads=4, key_dim=8)(h, h)
        x = layers.Add()([inp, h])
        h = layers.LayerNormalization(epsilon=1e-6)(x)
        h = layers.Dense(64, activation='gelu')(h)
        h = layers.Dense(32)(h)
        out = layers.Add()([x, h])
        return keras.Model(inp, out, name='transformer')

    def lstm():
        inp = keras.Input((16, 8), batch_size=1)
        h = layers.LSTM(24, return_sequences=True)(inp)
        out = layers.Dense(4)(h)
        return keras.Model(inp, out, name='lstm')

    def gru():
        inp = keras.Input((16, 8), batch_size=1)
        h = layers.GRU(24, return_sequences=True)(inp)
        out = layers.Dense(4)(h)
        return keras.Model(inp, out, name='gru')

    def audio():
        # a keyword-spotting-style classifier on 1024 samples: log spectrogram (15 frames x 65
        # bins), a dense layer per frame, mean over time, class scores
        inp = keras.Input((1024,), batch_size=1)
        h = audio_layers()()(inp)
        h = layers.Dense(16, activation='relu')(h)
        h = layers.GlobalAveragePooling1D()(h)
        out = layers.Dense(4, activation='softmax')(h)
        return keras.Model(inp, out, name='audio')

    img = (96, 96, 3)
    return {
        'mobilenet_v2': (img, mobilenet_v2),
        'mobilenet_v3_small': (img, mobilenet_v3_small),
        'mobilenet_v3_large': (img, mobilenet_v3_large),
        'efficientnet_b0': (img, efficientnet_b0),
        'resnet50': (img, resnet50),
        'densenet121': (img, densenet121),
        'convnext_tiny': (img, convnext_tiny),
        'nasnet_mobile': (img, nasnet_mobile),
        'inception_v3': (img, inception_v3),
        'unet': ((64, 64, 3), unet),
        'transformer': ((16, 32), transformer),
        'lstm': ((16, 8), lstm),
        'gru': ((16, 8), gru),
        'audio': ((1024,), audio),
    }


KERAS_ORDER = ['mobilenet_v2', 'mobilenet_v3_small', 'mobilenet_v3_large', 'efficientnet_b0',
               'resnet50', 'densenet121', 'convnext_tiny', 'nasnet_mobile', 'inception_v3',
               'unet', 'transformer', 'lstm', 'gru', 'audio']


def seed_of(name):
    return int(hashlib.sha256(name.encode()).hexdigest()[:6], 16)


def calibrate_bn(model, shape, seed):
    """BatchNorm moving statistics := the statistics of one random batch (momentum 0)."""
    import numpy as np
    from keras import layers
    bns = [l for l in model._flatten_layers() if isinstance(l, layers.BatchNormalization)]
    if not bns:
        return 0
    for l in bns:
        l.momentum = 0.0
    x = np.random.default_rng(seed).standard_normal((16,) + tuple(shape)).astype('float32')
    model(x, training=True)
    return len(bns)


def convert(model, shape, variant, seed):
    import numpy as np
    import tensorflow as tf
    # from_keras_model, as users do (a concrete function of model.__call__ keeps the weights as
    # resource variables that the WHILE bodies of LSTM/GRU cannot read, and NaNs in MHA)
    c = tf.lite.TFLiteConverter.from_keras_model(model)
    if variant != 'fp32':
        c.optimizations = [tf.lite.Optimize.DEFAULT]
    if variant == 'fp16':
        c.target_spec.supported_types = [tf.float16]
    if variant in ('int8', 'uint8'):
        rng = np.random.default_rng(seed + 1)

        def rep():
            for _ in range(CALIB_SAMPLES):
                yield [rng.standard_normal((1,) + tuple(shape)).astype('float32')]
        c.representative_dataset = rep
        c.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
        t = tf.int8 if variant == 'int8' else tf.uint8
        c.inference_input_type = t
        c.inference_output_type = t
    return c.convert()


def variation(path):
    """Runs the model on two different Gaussian inputs (numpy seeds); returns, per output, the
    largest difference (raw units: LSB for integer outputs) and the first run's range.
    A collapsed network gives 0; a non-finite output gives nan."""
    import numpy as np
    from ai_edge_litert.interpreter import Interpreter
    it = Interpreter(model_path=path, num_threads=1)
    it.allocate_tensors()
    outs = []
    for seed in (11, 12):
        rng = np.random.default_rng(seed)
        for d in it.get_input_details():
            z = rng.standard_normal(d['shape'])
            if d['dtype'] == np.float32:
                x = z.astype(np.float32)
            else:
                s, zp = d['quantization']
                info = np.iinfo(d['dtype'])
                x = np.clip(np.round(z / (s or 1) + zp), info.min, info.max).astype(d['dtype'])
            it.set_tensor(d['index'], x)
        it.invoke()
        outs.append([it.get_tensor(d['index']) for d in it.get_output_details()])
    res = []
    for a, b in zip(*outs):
        integer = not np.issubdtype(a.dtype, np.floating)
        a, b = a.astype(np.float64), b.astype(np.float64)
        if not np.all(np.isfinite(a)):
            res.append(float('nan'))
            continue
        res.append({'diff': float(np.max(np.abs(a - b))), 'range': float(a.max() - a.min()),
                    'integer': integer})
    return res


def varies(v):
    """Output variation large enough that a test at our tolerance means something: 4 LSB for
    integer outputs, 100 times the float tolerance for float ones."""
    for o in v:
        if not isinstance(o, dict):
            return False
        need = 4.0 if o['integer'] else 100 * FLOAT_TOL * max(1.0, o['range'])
        if o['diff'] < need or o['range'] <= 0:
            return False
    return True


def load_status():
    if os.path.exists(STATUS):
        with open(STATUS) as f:
            return json.load(f)
    return {}


def save_status(st):
    with open(STATUS, 'w') as f:
        json.dump(st, f, indent=1, sort_keys=True)
        f.write('\n')


def make_keras(names):
    import keras
    import tensorflow as tf
    models = keras_models()
    st = load_status()
    tmp = tempfile.mkdtemp(prefix='zoo-keras-')
    for name in names or KERAS_ORDER:
        shape, build = models[name]
        seed = seed_of(name)
        keras.utils.set_random_seed(seed)
        t0 = time.time()
        model = build()
        nbn = calibrate_bn(model, shape, seed)
        print('%s: %d params, %d BatchNorm calibrated (%.0f s)' % (name, model.count_params(), nbn,
                                                                    time.time() - t0), flush=True)
        saved = os.path.join(tmp, name + '.keras')
        model.save(saved)
        for variant in VARIANTS:
            case = '%s_%s' % (name, variant)
            path = os.path.join(MODEL_DIR, case + '.tflite')
            rec = {'model': name, 'variant': variant, 'source': 'keras', 'params': int(model.count_params()),
                   'converter': 'tensorflow-cpu %s, keras %s' % (tf.__version__, keras.__version__)}
            t0 = time.time()
            # each conversion in its own process: full-integer quantization of some models
            # crashes the converter itself (not an exception: the process dies)
            out = os.path.join(tmp, case + '.tflite')
            r = subprocess.run([sys.executable, os.path.abspath(__file__), 'convert', saved, variant,
                                str(seed), out, json.dumps(list(shape))], capture_output=True, text=True)
            if r.returncode != 0 or not os.path.exists(out):
                err = os.path.join(tmp, case + '.err')
                lines = [l for l in (open(err).read() if os.path.exists(err) else r.stderr).splitlines()
                         if l.strip() and not l.startswith(('W0000', 'I0000', 'WARNING: All log'))
                         and 'warn' not in l.lower()]
                why = lines[-1] if lines else ''
                if r.returncode < 0:
                    why = 'converter crashed (signal %d)%s' % (-r.returncode, ': ' + why if why else '')
                rec.update(status='converter failed', error=why[:300])
                print('  %-6s converter failed: %s' % (variant, rec['error']), flush=True)
                if os.path.exists(path):
                    os.remove(path)
                gold = os.path.join(GOLDEN_DIR, case + '.gauss.txt')
                if os.path.exists(gold):
                    os.remove(gold)
                st[case] = rec
                save_status(st)
                continue
            with open(out, 'rb') as f:
                data = f.read()
            with open(path, 'wb') as f:
                f.write(data)
            rec.update(status='made', bytes=len(data))
            try:
                v = variation(path)
                rec['variation'] = v
                rec['varies'] = varies(v)
            except Exception as e:
                rec.update(status='litert failed', error=str(e).strip().splitlines()[-1][:300])
            st[case] = rec
            save_status(st)
            print('  %-6s %8d bytes  %.0f s  varies %s' % (variant, len(data), time.time() - t0,
                                                          rec.get('varies')), flush=True)
            if rec['status'] == 'made':
                golden(case)
        keras.backend.clear_session()
    shutil.rmtree(tmp)
    write_list()


def convert_saved(saved, variant, seed, out, shape):
    """Child process: converts one saved Keras model; writes the error to out[:-7] + '.err'."""
    import keras
    audio_layers()   # registers the custom layer the audio model uses
    try:
        model = keras.models.load_model(saved, compile=False)
        data = convert(model, tuple(json.loads(shape)), variant, int(seed))
    except Exception as e:
        with open(out[:-len('.tflite')] + '.err', 'w') as f:
            f.write(''.join(traceback.format_exception_only(type(e), e)))
        raise SystemExit(1)
    with open(out, 'wb') as f:
        f.write(data)


# ---------------------------------------------------------------- YOLO

YOLO_MODELS = ['yolov8n', 'yolo11n']


def yolo_export(out_dir):
    """Runs inside the YOLO venv: exports both models, fp32 and int8, into out_dir."""
    os.environ['YOLO_OFFLINE'] = '1'
    import glob
    import numpy as np
    from PIL import Image
    from ultralytics import YOLO
    import ultralytics
    import torch
    torch.manual_seed(0)
    np.random.seed(0)
    # a tiny calibration set: random pictures and a data yaml (no labels needed for calibration)
    data_dir = os.path.join(out_dir, 'calib')
    for split in ('train', 'val'):
        os.makedirs(os.path.join(data_dir, 'images', split), exist_ok=True)
        os.makedirs(os.path.join(data_dir, 'labels', split), exist_ok=True)
        rng = np.random.default_rng(7 if split == 'train' else 8)
        for i in range(4):
            a = rng.integers(0, 256, (320, 320, 3), dtype=np.uint8)
            Image.fromarray(a).save(os.path.join(data_dir, 'images', split, '%d.jpg' % i))
            with open(os.path.join(data_dir, 'labels', split, '%d.txt' % i), 'w') as f:
                f.write('0 0.5 0.5 0.2 0.2\n')
    yaml = os.path.join(data_dir, 'data.yaml')
    with open(yaml, 'w') as f:
        f.write('path: %s\ntrain: images/train\nval: images/val\nnames:\n  0: thing\n' % data_dir)
    result = {'ultralytics': ultralytics.__version__, 'torch': torch.__version__}
    exp = os.path.join(out_dir, 'export')   # Ultralytics writes its files into the current folder
    os.makedirs(exp, exist_ok=True)
    os.chdir(exp)
    for m in YOLO_MODELS:
        for variant in ('fp32', 'int8'):
            key = '%s_%s' % (m, variant)
            t0 = time.time()
            try:
                torch.manual_seed(0)
                model = YOLO(m + '.yaml')
                # BatchNorm statistics from one random batch (N(0,1), as the tests feed): with
                # the initial ones (mean 0, var 1) the random network's outputs do not depend
                # on the input at all
                net = model.model
                for mod in net.modules():
                    if isinstance(mod, torch.nn.BatchNorm2d):
                        mod.reset_running_stats()
                        mod.momentum = 1.0
                net.train()
                with torch.no_grad():
                    net(torch.randn(8, 3, 320, 320, generator=torch.Generator().manual_seed(1)))
                net.eval()
                kw = dict(format='litert', imgsz=320)
                if variant == 'int8':   # static int8 (ai-edge-quantizer), float in/out
                    kw.update(quantize=8, data=yaml)
                f = model.export(**kw)
                files = [f] if f and str(f).endswith('.tflite') else \
                    sorted(glob.glob(os.path.join(str(f), '*.tflite')))
                src = os.path.abspath(files[0] if variant == 'fp32' else
                                      next((x for x in files if 'int8' in os.path.basename(x)), files[0]))
                dst = os.path.join(out_dir, key + '.tflite')
                shutil.copy(src, dst)
                result[key] = {'status': 'made', 'file': os.path.basename(src),
                               'seconds': round(time.time() - t0)}
            except Exception as e:
                result[key] = {'status': 'export failed', 'error': ''.join(
                    traceback.format_exception_only(type(e), e)).strip()[-400:],
                    'seconds': round(time.time() - t0)}
            print(key, result[key], flush=True)
    with open(os.path.join(out_dir, 'result.json'), 'w') as f:
        json.dump(result, f, indent=1)


def make_yolo():
    st = load_status()
    work = tempfile.mkdtemp(prefix='zoo-yolo-')
    env = dict(os.environ, YOLO_OFFLINE='1')
    r = subprocess.run([YOLO_PYTHON, os.path.abspath(__file__), 'yolo-export', work], cwd=work, env=env)
    with open(os.path.join(work, 'result.json')) as f:
        res = json.load(f)
    for m in YOLO_MODELS:
        for variant in ('fp32', 'int8'):
            case = '%s_%s' % (m, variant)
            rec = dict(res.get(case, {'status': 'export failed', 'error': 'exit %d' % r.returncode}))
            rec.update(model=m, variant=variant, source='ultralytics',
                       converter='ultralytics %s, torch %s' % (res.get('ultralytics'), res.get('torch')))
            if rec['status'] == 'made':
                path = os.path.join(MODEL_DIR, case + '.tflite')
                shutil.copy(os.path.join(work, case + '.tflite'), path)
                rec['bytes'] = os.path.getsize(path)
                try:
                    v = variation(path)
                    rec['variation'] = v
                    rec['varies'] = varies(v)
                except Exception as e:
                    rec['status'] = 'litert failed'
                    rec['error'] = str(e)[:300]
            st[case] = rec
            save_status(st)
            print(case, rec['status'], rec.get('bytes'), rec.get('error', ''), flush=True)
            if rec['status'] == 'made':
                golden(case)
    write_list()


# ---------------------------------------------------------------- goldens and list

def golden(case):
    model = os.path.join(MODEL_DIR, case + '.tflite')
    out = os.path.join(GOLDEN_DIR, case + '.gauss.txt')
    with tempfile.TemporaryDirectory() as tmp:
        run_dir = os.path.join(tmp, 'run')
        r = subprocess.run([ZOO_PYTHON, LITERT_RUN, model, '--seed', '1', '--out', run_dir],
                           capture_output=True, text=True, timeout=600)
        if r.returncode != 0:
            print('  golden %s: litert_run failed: %s' % (case, r.stderr.strip().splitlines()[-1:]))
            return False
        with open(os.path.join(run_dir, 'outputs.json')) as f:
            doc = json.load(f)
        with open(model, 'rb') as f:
            sha = hashlib.sha256(f.read()).hexdigest()
        header = ['model %s.tflite' % case, 'sha256 %s' % sha, 'runtime %s' % doc['runtime'], 'input gauss 1']
        make_golden.write_golden(out, header, doc, run_dir, spread=False, lsb=dequantize_lsb(model))
    return True


# What is committed: all of tests/zoo together stays near 20 MB. Every variant is converted
# (its converter status is recorded), but for the larger Keras applications only fp16 and int8
# are kept: fp16 runs the fp32 graph's float kernels (LiteRT dequantizes the float16 weights
# once) at half the size of fp32; dyn's hybrid kernels (conv, depthwise, fully connected) and
# uint8's QUANTIZE at the ends are covered by MobileNetV2 and the small models, which keep all
# five.
KEEP_ALL = {'mobilenet_v2', 'unet', 'transformer', 'lstm', 'gru', 'audio'}
KEEP_APP = {'fp16', 'int8'}
# YOLO: the fp32 files are 10-13 MB each; yolo11n's int8 file (3 MB) has yolov8n's op set
# and more (C2PSA attention), so it alone is committed
KEEP_YOLO = {'yolo11n_int8'}


def kept(case, rec):
    if rec.get('source') == 'ultralytics':
        return case in KEEP_YOLO
    return rec['model'] in KEEP_ALL or rec['variant'] in KEEP_APP


def prune():
    st = load_status()
    for case, rec in st.items():
        if rec['status'] != 'made':
            continue
        rec['kept'] = kept(case, rec)
        if not rec['kept']:
            for f in (os.path.join(MODEL_DIR, case + '.tflite'), os.path.join(GOLDEN_DIR, case + '.gauss.txt')):
                if os.path.exists(f):
                    os.remove(f)
    save_status(st)
    write_list()


def dequantize_lsb(path):
    """Float outputs made by DEQUANTIZE (quantized models with float in/out, as Ultralytics
    exports them): output position -> one LSB of the int8 tensor it dequantizes, the tolerance
    floor of a quantized chain."""
    from ai_edge_litert.interpreter import Interpreter
    it = Interpreter(model_path=path)
    tensors = {t['index']: t for t in it.get_tensor_details()}
    producer = {}
    for op in it._get_ops_details():
        for o in op['outputs']:
            producer[int(o)] = op
    lsb = {}
    for i, d in enumerate(it.get_output_details()):
        op = producer.get(d['index'])
        if op is not None and op['op_name'] == 'DEQUANTIZE':
            scale = tensors[int(op['inputs'][0])]['quantization'][0]
            if scale:
                lsb[i] = float(scale)
    return lsb or None


def tol_of(case):
    return FLOAT_TOL


def write_list():
    """list.txt: every model that has a golden, with its test tolerance (float outputs;
    integer outputs are always held to 1 LSB)."""
    names = sorted(f[:-len('.gauss.txt')] for f in os.listdir(GOLDEN_DIR) if f.endswith('.gauss.txt'))
    names = [n for n in names if os.path.exists(os.path.join(MODEL_DIR, n + '.tflite'))]
    with open(os.path.join(HERE, 'list.txt'), 'w') as f:
        for n in names:
            f.write('%s %g\n' % (n, tol_of(n)))


def first_error(text):
    for l in text.splitlines():
        if 'FAIL' in l or l.lower().startswith('error'):
            return l.strip()
    return ''


def table(build):
    """Runs every zoo model on our runtime (test_opmodels, and tflite-inspect for the first
    error) and prints the markdown table for README.md (status at the current commit)."""
    test = os.path.join(build, 'tests', 'test_opmodels')
    inspect = os.path.join(build, 'tools', 'tflite-inspect')
    st = load_status()
    rows = []
    with open(os.path.join(HERE, 'list.txt')) as f:
        cases = dict(l.split() for l in f if l.strip())
    for case in sorted(st):
        rec = st[case]
        if rec['status'] != 'made':
            rows.append((case, '-', rec['status'] + ': ' + rec.get('error', '')))
            continue
        if not os.path.exists(os.path.join(MODEL_DIR, case + '.tflite')):
            rows.append((case, 'not committed', 'made (%d bytes), left out for size' % rec['bytes']))
            continue
        r = subprocess.run([test, case, '--dir', HERE, '--tol', cases.get(case, str(FLOAT_TOL))],
                           capture_output=True, text=True, timeout=600)
        if r.returncode == 0:
            rows.append((case, 'ok', ''))
            continue
        i = subprocess.run([inspect, os.path.join(MODEL_DIR, case + '.tflite')], capture_output=True,
                           text=True, timeout=600)
        err = first_error(i.stdout + i.stderr)
        if not err:  # loads and prepares: the comparison (or the run) failed
            err = 'loads; ' + first_error(r.stdout + r.stderr)
            rows.append((case, 'runs, FAIL', err))
        else:
            rows.append((case, 'refused', err.replace(os.path.join(MODEL_DIR, ''), '')))
    order = KERAS_ORDER + YOLO_MODELS
    print('| model | params | ' + ' | '.join(VARIANTS) + ' |')
    print('| --- | --- |' + ' --- |' * len(VARIANTS))
    for m in order:
        cells, params = [], ''
        for v in VARIANTS:
            rec = st.get('%s_%s' % (m, v))
            params = params or (rec or {}).get('params', '')
            if rec is None:
                cells.append('-')
            elif rec['status'] != 'made':
                cells.append(rec['status'])
            else:
                cells.append('%d KB%s' % (round(rec['bytes'] / 1024),
                                          '' if kept('%s_%s' % (m, v), rec) else ' (not committed)'))
        print('| %s | %s | %s |' % (m, params, ' | '.join(cells)))
    print()
    print('| model | our runtime | first error |')
    print('| --- | --- | --- |')
    for c, res, err in rows:
        print('| %s | %s | %s |' % (c, res, err.replace('|', '/')))


def main():
    os.makedirs(MODEL_DIR, exist_ok=True)
    os.makedirs(GOLDEN_DIR, exist_ok=True)
    cmd = sys.argv[1] if len(sys.argv) > 1 else 'keras'
    args = sys.argv[2:]
    if cmd == 'keras':
        make_keras(args)
    elif cmd == 'convert':
        convert_saved(*args)
    elif cmd == 'yolo':
        make_yolo()
    elif cmd == 'yolo-export':
        yolo_export(args[0])
    elif cmd == 'golden':
        for case in args or sorted(f[:-7] for f in os.listdir(MODEL_DIR) if f.endswith('.tflite')):
            print(case, 'ok' if golden(case) else 'FAILED')
        write_list()
    elif cmd == 'table':
        table(args[0] if args else os.path.join(ROOT, 'build'))
    elif cmd == 'list':
        write_list()
    elif cmd == 'prune':
        prune()
    else:
        raise SystemExit(__doc__)


if __name__ == '__main__':
    main()
