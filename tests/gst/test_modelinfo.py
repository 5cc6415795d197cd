#!/usr/bin/env python3
"""test_modelinfo.py - a .modelinfo beside a model (GStreamer 1.28's convention) read by
tflitefilter: input ranges applied (the raw tensors equal tflite-run's on the input the
ranges give), tensor ids choosing the decoder, labels, both file names, and errors that
name the file, the group, the key and the value. Each case copies a model from the tree
into a temporary folder and writes the .modelinfo beside the copy.

usage: test_modelinfo.py TFLITE_RUN PICTURE MODEL_DIRS (colon-separated)
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

import gi
import numpy as np

gi.require_version('Gst', '1.0')
gi.require_version('GstTflite', '1.0')
from gi.repository import Gst, GstTflite  # noqa: E402

failures = 0


def check(cond, what):
    global failures
    print(('ok   ' if cond else 'FAIL ') + what, flush=True)
    failures += not cond


def find_model(dirs, name):
    for d in dirs:
        if os.path.exists(os.path.join(d, name)):
            return os.path.join(d, name)
    raise SystemExit(f'FAIL model {name} is in none of {dirs}')


def run(model, picture, size, props=''):
    """(sample or None, error message or None, decoder named in the tflite-model message)"""
    pipe = Gst.parse_launch(
        f'filesrc location="{picture}" ! decodebin ! videoconvert ! videoscale ! '
        f'video/x-raw,width={size},height={size} ! videoconvert ! video/x-raw,format=RGB ! '
        f'tflitefilter model="{model}" delegate=cpu threads=1 {props} ! appsink name=sink')
    pipe.set_state(Gst.State.PLAYING)
    # an error stops the stream without an EOS: read the bus until an error or preroll
    bus = pipe.get_bus()
    error, decoder, sample = None, None, None
    while True:
        msg = bus.timed_pop(30 * Gst.SECOND)
        if msg is None:
            break
        if msg.type == Gst.MessageType.ERROR:
            error = msg.parse_error()[0].message
            break
        if msg.type == Gst.MessageType.ELEMENT and msg.get_structure().get_name() == 'tflite-model':
            decoder = msg.get_structure().get_string('decoder')
        if msg.type == Gst.MessageType.ASYNC_DONE:
            sample = pipe.get_by_name('sink').emit('try-pull-sample', 5 * Gst.SECOND)
            break
    pipe.set_state(Gst.State.NULL)
    return sample, error, decoder


def write(path, text):
    with open(path, 'w') as f:
        f.write(text)


FACE_INFO = """[modelinfo]
version=1.1
group-id=face-detector

[input]
dir=input
type=float32
dims=1,128,128,3
ranges={ranges}
caps=video/x-raw,format=RGB

[regressors]
dir=output
type={type}
dims={dims}

[classificators]
dir=output
type=float32
dims=-1,896,1
id=ultra-lightweight-face-detection-rfb-320-v1-variant-1-out-scores
"""


def main():
    tflite_run, picture, model_dirs = sys.argv[1:4]
    dirs = model_dirs.split(':')
    Gst.init(None)
    face_src = find_model(dirs, 'face_detection_short_range.tflite')
    quant_src = find_model(dirs, 'mobilenet_v2_1.0_224_quant.tflite')
    selfie_src = find_model(dirs, 'selfie_segmentation.tflite')
    with tempfile.TemporaryDirectory() as tmp:
        face = os.path.join(tmp, 'face.tflite')
        shutil.copy(face_src, face)

        # ranges 0..255 per channel: the model input is the pixel itself (the face family's
        # own range is -1..1): the raw tensors equal tflite-run's on the pixels as float32
        write(face + '.modelinfo', FACE_INFO.format(ranges='0.0,255.0;0.0,255.0;0.0,255.0', type='float32',
                                                    dims='1,896,16'))
        sample, error, _ = run(face, picture, 128, 'decoder=tensors')
        check(sample is not None and error is None, f'face.tflite.modelinfo read ({error})')
        buf = sample.get_buffer()
        with buf.map(Gst.MapFlags.READ) as info:
            frame = np.frombuffer(info.data, np.uint8).reshape(128, 128, 3).astype(np.float32)
        frame[np.newaxis].tofile(os.path.join(tmp, 'in.bin'))
        subprocess.run([tflite_run, face, '--input', os.path.join(tmp, 'in.bin'), '--out', os.path.join(tmp, 'ref'),
                        '--threads', '1'], check=True, stdout=subprocess.DEVNULL)
        meta = GstTflite.buffer_get_meta(buf)
        same = meta is not None and meta.n_tensors() == 2
        for i in range(meta.n_tensors() if meta else 0):
            with meta.get_tensor(i).get_buffer().map(Gst.MapFlags.READ) as info:
                same = same and bytes(info.data) == open(os.path.join(tmp, 'ref', f'output_{i}.bin'), 'rb').read()
        check(same, 'ranges=0,255: the tensors equal tflite-run\'s on the pixels (the family would take -1..1)')
        ids = [meta.get_tensor(i).get_id() for i in range(meta.n_tensors())]
        check(ids == ['', 'ultra-lightweight-face-detection-rfb-320-v1-variant-1-out-scores'],
              f'the tensors carry the file\'s ids ({ids})')

        # the stem's name (face.modelinfo) is found too; a wrong type names file, group, key
        os.remove(face + '.modelinfo')
        stem = os.path.join(tmp, 'face.modelinfo')
        write(stem, FACE_INFO.format(ranges='0.0,255.0', type='float16', dims='1,896,16'))
        _, error, _ = run(face, picture, 128, 'decoder=tensors')
        check(error is not None and stem in error and '[regressors] type' in error and 'float16' in error and
              'float32' in error, f'face.modelinfo found; a wrong type is named: {error}')
        good = FACE_INFO.format(ranges='0.0,255.0', type='float32', dims='1,896,16')
        for text, words in (
            (FACE_INFO.format(ranges='0.0,255.0', type='float32', dims='1,896,17'), ['[regressors] dims', '1,896,17',
                                                                                    '[1,896,16]']),
            (FACE_INFO.format(ranges='0.0;255.0', type='float32', dims='1,896,16'), ['[input] ranges', '0.0;255.0']),
            (FACE_INFO.format(ranges='1.0,1.0', type='float32', dims='1,896,16'), ['[input] ranges', '1.0,1.0']),
            (FACE_INFO.format(ranges='0.0,1.0', type='float32', dims='1,x,16'), ['[regressors] dims', '1,x,16']),
            (good.replace('version=1.1', 'version=2.0'), ['[modelinfo] version', '2.0']),
            (good.replace('[modelinfo]\nversion=1.1\ngroup-id=face-detector\n', ''), ['[modelinfo]', 'missing']),
            (good.replace('dir=output', 'dir=out', 1), ['[regressors] dir', "'out'"]),
            (good + '\n[extra]\ndir=output\ntype=float32\n', ['[extra]', 'no output tensor']),
            (good.replace('group-id=face-detector', 'labels=missing.txt'), ['[modelinfo] labels',
                                                                                 'missing.txt']),
        ):
            write(stem, text)
            _, error, _ = run(face, picture, 128, 'decoder=tensors')
            check(error is not None and stem in error and all(w in error for w in words),
                  f'named in the error ({", ".join(words)}): {error}')
        os.remove(stem)

        # tensor ids choose the decoder: GStreamer's YOLO id on the selfie model asks for the
        # detection decoder (its family says segmentation), which then refuses its output
        selfie = os.path.join(tmp, 'selfie.tflite')
        shutil.copy(selfie_src, selfie)
        write(selfie + '.modelinfo', '[modelinfo]\nversion=1.0\n\n[activation_10]\ndir=output\ntype=float32\n'
              'id=yolo-v8-out\n')
        _, error, _ = run(selfie, picture, 256)
        check(error is not None and "'detection' decoder" in error, f'id yolo-v8-out picks detection: {error}')
        # GStreamer's oriented-box YOLO id on a model without Ultralytics' obb metadata: the
        # angle column cannot be told from a class, an error says what settles it
        write(selfie + '.modelinfo', '[modelinfo]\nversion=1.0\n\n[activation_10]\ndir=output\ntype=float32\n'
              'id=yolo-v8-obb-out\n')
        _, error, _ = run(selfie, picture, 256)
        check(error is not None and '[activation_10] id' in error and "task 'obb'" in error,
              f'id yolo-v8-obb-out without obb metadata is named: {error}')
        os.remove(selfie + '.modelinfo')
        _, error, decoder = run(selfie, picture, 256)
        check(error is None and decoder == 'segmentation', f'without it, the family\'s decoder ({decoder})')

        # GStreamer's classifier id and labels of the file's own (relative to it), over the
        # labels embedded in the model
        quant = os.path.join(tmp, 'classifier.tflite')
        shutil.copy(quant_src, quant)
        write(os.path.join(tmp, 'names.txt'), ''.join(f'name-{i}\n' for i in range(1001)))
        # ranges of a quantized input are its stored values (as GStreamer reads them):
        # 0,255 on this uint8 input passes the pixels through (its metadata says -1..1 real,
        # which gives other bytes)
        write(quant + '.modelinfo', '[modelinfo]\nversion=1.1\nlabels=names.txt\n\n'
              '[input]\ndir=input\ntype=uint8\nranges=0.0,255.0\n\n'
              '[MobilenetV2/Predictions/Softmax]\ndir=output\ntype=uint8\ndims=1,1001\n'
              'id=classification-generic-softmaxed-out\n')
        sample, error, decoder = run(quant, picture, 224, 'threshold=0.0 keep-tensors=true')
        meta = GstTflite.buffer_get_meta(sample.get_buffer()) if sample else None
        o = meta.get_object(0) if meta and meta.n_objects() else None
        label = GstTflite.Object.label(o, o.class_id) if o else None
        check(error is None and decoder == 'classification' and o is not None and label == f'name-{o.class_id}',
              f'classifier id and the file\'s labels: {decoder}, "{label}"')
        with sample.get_buffer().map(Gst.MapFlags.READ) as info:
            open(os.path.join(tmp, 'in8.bin'), 'wb').write(bytes(info.data))
        subprocess.run([tflite_run, quant, '--input', os.path.join(tmp, 'in8.bin'), '--out', os.path.join(tmp, 'ref8'),
                        '--threads', '1'], check=True, stdout=subprocess.DEVNULL)
        with meta.get_tensor(0).get_buffer().map(Gst.MapFlags.READ) as info:
            same = bytes(info.data) == open(os.path.join(tmp, 'ref8', 'output_0.bin'), 'rb').read()
        check(same, 'uint8 input, ranges=0,255: the output equals tflite-run\'s on the pixel bytes')
    print(f'{failures} failure(s)')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
