#!/usr/bin/env python3
"""test_tensors.py - decoder=tensors and keep-tensors read from Python through GstTflite
(pipelines/examples/tensors-numpy.py's run()), against tflite-run on the same input.

The element's input normalization is set to (pixel - 128) / 128 and the frame is the
model's input size, so the model input is exactly known from the frame's pixels: the
test writes it for tflite-run, whose outputs must equal the tensors byte for byte (CPU:
same kernels, one thread), and within a float tolerance on the GL path. Checks too: the
names, dtypes, shapes and quantization tflite-run reports; numpy shares the tensor's
memory (no copy); keep-tensors beside the detection decoder; two streams of one engine
batched; regions-from (tensors belong to the region's object); repeated frames
(inference-interval) carry none.

usage: test_tensors.py EXAMPLE TFLITE_RUN PICTURE MODEL_DIRS (colon-separated)
(GST_PLUGIN_PATH, GI_TYPELIB_PATH and LD_LIBRARY_PATH set by meson to the build tree)
"""
import importlib.util
import json
import os
import subprocess
import sys
import tempfile

import gi
import numpy as np

gi.require_version('Gst', '1.0')
gi.require_version('GstTflite', '1.0')
from gi.repository import Gst, GstTflite  # noqa: E402

failures = 0
NORM = 'input-mean=128 input-std=128'


def check(cond, what):
    global failures
    print(('ok   ' if cond else 'FAIL ') + what, flush=True)
    failures += not cond


def find_model(dirs, name):
    for d in dirs:
        p = os.path.join(d, name)
        if os.path.exists(p):
            return p
    raise SystemExit(f'FAIL model {name} is in none of {dirs}')  # a missing model is a failure


def reference(tflite_run, model, frame, dtype, tmp):
    """tflite-run's outputs on the model input the element made from `frame`:
    (pixel - 128) / 128, quantized to uint8 by the input's (1/128, 128) = the pixel."""
    x = frame[np.newaxis].astype(np.float32)
    x = x if dtype == 'uint8' else (x - 128) / 128
    inp = os.path.join(tmp, 'in.bin')
    x.astype(dtype).tofile(inp)
    out = os.path.join(tmp, 'out')
    subprocess.run([tflite_run, model, '--input', inp, '--out', out, '--threads', '1'], check=True,
                   stdout=subprocess.DEVNULL)
    with open(os.path.join(out, 'outputs.json')) as f:
        outs = json.load(f)['outputs']
    return [(o, open(os.path.join(out, o['file']), 'rb').read()) for o in outs]


def collect(ex, model, picture, size, props, frames=1):
    """Per frame: (frame pixels, [(name, dtype, dims, quantization, bytes, array address)])."""
    got = []

    def on_frame(n, frame, tensors):
        got.append((frame, [(t.get_name(), t.get_dtype(), list(t.get_dims()), t.get_quantization(), a.tobytes(),
                             a.__array_interface__['data'][0], a.flags.writeable) for t, a in tensors]))
    ex.run(model, on_frame, picture, size=size, props=props, frames=frames)
    return got


def compare(label, tensors, ref, exact):
    check(len(tensors) == len(ref), f'{label}: {len(tensors)} tensors, tflite-run {len(ref)} outputs')
    for (name, dtype, dims, quant, data, _, _), (o, want) in zip(tensors, ref):
        q = o['quantization']
        check(name == o['name'] and dtype == o['dtype'] and dims == o['shape'] and
              (not quant[0] if q is None else
               quant[0] and abs(quant[1] - q['scale'][0]) < 1e-9 and quant[2] == q['zero_point'][0]),
              f'{label}: {name} {dtype} {dims} quantization {quant[1:] if quant[0] else None} as tflite-run')
        if exact:
            check(data == want, f'{label}: {name}: {len(data)} bytes equal to tflite-run\'s')
        else:
            a, b = np.frombuffer(data, dtype), np.frombuffer(want, dtype)
            err = float(np.max(np.abs(a.astype(np.float64) - b))) if a.shape == b.shape else float('inf')
            tol = 1e-3 + 1e-5 * float(np.max(np.abs(b)))  # fp32 on both; 1.2e-4 seen on llvmpipe
            check(err <= tol, f'{label}: {name}: max |GL - tflite-run| {err:.3g} <= {tol:.3g}')


def main():
    example, tflite_run, picture, model_dirs = sys.argv[1:5]
    dirs = model_dirs.split(':')
    spec = importlib.util.spec_from_file_location('tensors_numpy', example)
    ex = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ex)
    Gst.init(None)
    quant = find_model(dirs, 'mobilenet_v2_1.0_224_quant.tflite')
    face = find_model(dirs, 'face_detection_short_range.tflite')

    with tempfile.TemporaryDirectory() as tmp:
        # CPU, 8-bit model: uint8 input and output with scale / zero point
        got = collect(ex, quant, picture, (224, 224), f'{NORM} delegate=cpu threads=1')
        check(len(got) == 1, 'quantized model: one frame')
        frame, tensors = got[0]
        compare('cpu uint8', tensors, reference(tflite_run, quant, frame, 'uint8', tmp), True)
        check(not tensors[0][6], 'the array is read-only (the meta\'s bytes)')

        # CPU, float model with two outputs, four frames: every frame its own tensors
        got = collect(ex, face, picture, (128, 128), f'{NORM} delegate=cpu threads=1')
        frame, tensors = got[0]
        ref = reference(tflite_run, face, frame, 'float32', tmp)
        compare('cpu float32', tensors, ref, True)

        # zero-copy: two maps of one tensor give numpy the same memory (no copy per map),
        # which is the tensor's own (GstTflite's C pointer is not reachable from Python:
        # the address is compared with a second map instead)
        addresses = []

        def twice(n, frame, ts):
            import contextlib
            t = ts[0][0]
            with contextlib.ExitStack() as stack:
                addresses.append((ts[0][1].__array_interface__['data'][0],
                                  ex.tensor_array(t, stack).__array_interface__['data'][0]))
        ex.run(face, twice, picture, size=(128, 128), props=f'{NORM} delegate=cpu')
        check(len(addresses) == 1 and addresses[0][0] == addresses[0][1],
              'numpy.frombuffer shares the tensor\'s memory (same address on two maps)')

        # keep-tensors: the face decoder's objects and the raw outputs on one buffer (the
        # post-processing stays out of the graph: the tensors are the model's own)
        pipe = Gst.parse_launch(
            f'filesrc location="{picture}" ! decodebin ! videoconvert ! videoscale ! '
            'video/x-raw,width=128,height=128 ! videoconvert ! video/x-raw,format=RGB ! '
            f'tflitefilter model="{face}" keep-tensors=true {NORM} delegate=cpu threads=1 ! appsink name=sink')
        pipe.set_state(Gst.State.PLAYING)
        sample = pipe.get_by_name('sink').emit('pull-sample')
        meta = GstTflite.buffer_get_meta(sample.get_buffer())
        kinds = [meta.get_object(i).kind for i in range(meta.n_objects())]
        check(GstTflite.ObjectKind.DETECTION in kinds, f'keep-tensors: the detector\'s objects too ({len(kinds)})')
        same = meta.n_tensors() == 2
        for i in range(meta.n_tensors()):
            t = meta.get_tensor(i)
            with t.get_buffer().map(Gst.MapFlags.READ) as info:
                same = same and bytes(info.data) == tensors[i][4]
        check(same, 'keep-tensors: the 2 raw outputs, equal to decoder=tensors\'')
        check(meta.find_tensor('classificators', None) == 1 and meta.find_tensor('nope', None) == -1,
              'find_tensor by name')
        pipe.set_state(Gst.State.NULL)

        # two streams of one engine, batched (batch-window): each frame its own slot's tensors
        pipe = Gst.parse_launch(
            f'filesrc location="{picture}" ! decodebin ! videoconvert ! videoscale ! '
            'video/x-raw,width=128,height=128 ! videoconvert ! video/x-raw,format=RGB ! tee name=t '
            f't. ! queue ! tflitefilter model="{face}" decoder=tensors {NORM} delegate=cpu threads=1 '
            'batch-window=200000 ! appsink name=a '
            'videotestsrc num-buffers=1 pattern=ball ! video/x-raw,width=128,height=128,format=RGB ! queue ! '
            f'tflitefilter model="{face}" decoder=tensors {NORM} delegate=cpu threads=1 batch-window=200000 ! '
            'appsink name=b')
        pipe.set_state(Gst.State.PLAYING)
        sa, sb = pipe.get_by_name('a').emit('pull-sample'), pipe.get_by_name('b').emit('pull-sample')
        outs = []
        for s in (sa, sb):
            m = GstTflite.buffer_get_meta(s.get_buffer())
            with m.get_tensor(1).get_buffer().map(Gst.MapFlags.READ) as info:
                outs.append(bytes(info.data))
        with sb.get_buffer().map(Gst.MapFlags.READ) as info:
            ball = np.frombuffer(info.data, np.uint8).reshape(128, 128 * 3)[:, :].reshape(128, 128, 3).copy()
        pipe.set_state(Gst.State.NULL)
        ref_ball = reference(tflite_run, face, ball, 'float32', tmp)
        check(outs[0] == ref[1][1] and outs[1] == ref_ball[1][1],
              'two streams on one engine: each frame\'s classificators equal tflite-run\'s on its own frame')

        # regions-from: the face mesh on the detector's face, decoder=tensors: its tensors
        # belong to the face object (parent_id), the detector's frame has none
        mesh = find_model(dirs, 'face_landmark.tflite')
        pipe = Gst.parse_launch(
            f'filesrc location="{picture}" ! decodebin ! videoconvert ! video/x-raw,format=RGBA ! '
            f'tflitefilter name=det model="{face}" delegate=cpu ! '
            f'tflitefilter name=mesh model="{mesh}" regions-from=det decoder=tensors delegate=cpu ! appsink name=sink')
        pipe.set_state(Gst.State.PLAYING)
        meta = GstTflite.buffer_get_meta(pipe.get_by_name('sink').emit('pull-sample').get_buffer())
        faces = [meta.get_object(i) for i in range(meta.n_objects())
                 if meta.get_object(i).get_source() == 'det']
        ts = [meta.get_tensor(i) for i in range(meta.n_tensors())]
        check(len(faces) == 1 and len(ts) > 0 and all(t.parent_id == faces[0].id and t.get_source() == 'mesh'
                                                      for t in ts),
              f'regions-from: {len(ts)} tensors of the mesh, parent the face ({[t.parent_id for t in ts]})')
        pipe.set_state(Gst.State.NULL)

        # inference-interval=2: the repeated frame has the objects but no tensors
        counts = []
        ex.run(face, lambda n, f, ts: counts.append(len(ts)), picture, size=(128, 128),
               props=f'{NORM} delegate=cpu inference-interval=2',
               source=f'filesrc location="{picture}" ! decodebin ! imagefreeze num-buffers=3 ! videoconvert ! '
               'videoscale ! video/x-raw,width=128,height=128 ! videoconvert', frames=3)
        check(counts == [2, 0, 2], f'inference-interval=2: tensors on the frames that ran ({counts})')

        # GL path (llvmpipe here): outputs read back, within float tolerance of the CPU
        got = collect(ex, face, picture, (128, 128), f'{NORM} delegate=gl precision=fp32')
        frame, tensors = got[0]
        compare('gl float32', tensors, reference(tflite_run, face, frame, 'float32', tmp), False)
        # GL frames (glupload), gl-queue-depth=2: frames 1 and 2 come back queued, a frame later
        frames = []
        ex.run(face, lambda n, f, ts: frames.append((f, [(t.get_name(), t.get_dtype(), list(t.get_dims()),
                                                          t.get_quantization(), a.tobytes(), 0, False)
                                                         for t, a in ts])), frames=3,
               launch=f'filesrc location="{picture}" ! decodebin ! imagefreeze num-buffers=3 ! videoconvert ! '
               'videoscale ! video/x-raw,width=128,height=128 ! videoconvert ! video/x-raw,format=RGBA ! glupload ! '
               f'tflitefilter decoder=tensors model="{face}" {NORM} precision=fp32 gl-queue-depth=2 ! gldownload ! '
               'videoconvert ! video/x-raw,format=RGB ! appsink name=sink sync=false')
        check(len(frames) == 3, f'GL frames: 3 frames ({len(frames)})')
        for n, (frame, tensors) in enumerate(frames):
            compare(f'gl frames, frame {n}', tensors, reference(tflite_run, face, frame, 'float32', tmp), False)
    print(f'{failures} failure(s)')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
