#!/usr/bin/env python3
"""make_control_models.py - control-flow models (WHILE, IF, CALL_ONCE) and their goldens.

Two kinds of models, all written to tests/opmodels/models/NAME.tflite with a golden from the
native TensorFlow Lite (litert_run.py, `gauss --seed 1`) in tests/opmodels/golden/:
- converted: a tf.function with a fixed signature (tf.while_loop, tf.cond) or a Keras 3 layer,
  through the official converter (tf.lite.TFLiteConverter);
- built: several subgraphs written with make_opmodels.py's Model (flatc), for what the
  converter does not make on its own (CALL_ONCE, every tensor type as loop state, a body that
  swaps its state).

control_list.txt lists the cases with a model and a golden (meson makes one test each).
--bad writes the models the loader must refuse into tests/data/control/ (test_control.c).

Usage: /work/venv-zoo/bin/python tests/opmodels/make_control_models.py [NAME_PREFIX ...]
(a Python with tensorflow, keras and ai-edge-litert). --ops prints each model's ops (all
subgraphs); cases needing ops this branch has no kernel for are made only with --all.
"""
import json
import os
import subprocess
import sys
import tempfile
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, '..', 'data'))
import make_golden  # noqa: E402
import make_opmodels as mk  # noqa: E402

MODEL_DIR = mk.MODEL_DIR
GOLDEN_DIR = mk.GOLDEN_DIR
CASES = {}


def case(name, kind, needs=None):
    """needs: ops (besides the control ops) the runtime has no kernel for yet on this branch;
    such a case is made only with --all, so it stays out of the committed set until then."""
    def reg(fn):
        CASES[name] = (kind, fn, needs)
        return fn
    return reg


# ---------------------------------------------------------------- converted (TensorFlow)

def convert_fn(fn):
    import tensorflow as tf
    conv = tf.lite.TFLiteConverter.from_concrete_functions([fn.get_concrete_function()], fn)
    return conv.convert()


@case('while_tf_counter', 'tf')
def _():
    """A counted loop: the cond compares the counter (LESS), the body updates two tensors."""
    import tensorflow as tf

    @tf.function(input_signature=[tf.TensorSpec([2, 3], tf.float32)])
    def f(x):
        def cond(i, x, s):
            return i < 5

        def body(i, x, s):
            return i + 1, x * 0.75 + 0.5, s + x
        _, y, s = tf.while_loop(cond, body, [tf.constant(0), x, tf.zeros([2, 3])])
        return y, s
    return convert_fn(f)


def flags_loop(tf, c, d, e, body_fn, state):
    """A loop whose condition is a shift register of the input flags c, d, e: it runs as many
    times as the flags are true from the first one on (0 to 3), with no comparison op."""
    false = tf.constant(False)

    def cond(c, d, e, *s):
        return c

    def body(c, d, e, *s):
        return (d, e, false) + tuple(body_fn(*s))
    return tf.while_loop(cond, body, [c, d, e] + list(state))[3:]


@case('while_tf_flags', 'tf')
def _():
    """A data-dependent trip count (0..3) and a counter of the iterations."""
    import tensorflow as tf
    b = tf.TensorSpec([], tf.bool)

    @tf.function(input_signature=[b, b, b, tf.TensorSpec([2, 3], tf.float32)])
    def f(c, d, e, x):
        y, n = flags_loop(tf, c, d, e, lambda y, n: (y * 0.5 + 1.0, n + 1.0), [x, tf.constant(0.0)])
        return y, n
    return convert_fn(f)


@case('if_tf_branches', 'tf')
def _():
    import tensorflow as tf

    @tf.function(input_signature=[tf.TensorSpec([], tf.bool), tf.TensorSpec([3, 4], tf.float32),
                                  tf.TensorSpec([3, 4], tf.float32)])
    def f(p, x, y):
        return tf.cond(p, lambda: x * 2.0 + y, lambda: x - y * 3.0)
    return convert_fn(f)


@case('while_tf_if_body', 'tf')
def _():
    """An IF inside a WHILE body, its predicate a loop-carried flag."""
    import tensorflow as tf
    b = tf.TensorSpec([], tf.bool)

    @tf.function(input_signature=[b, b, b, b, tf.TensorSpec([4], tf.float32)])
    def f(c, d, e, q, x):
        def step(y, q):
            return tf.cond(q, lambda: y * 2.0, lambda: y + 1.0), tf.logical_and(q, tf.constant(False))
        y, _ = flags_loop(tf, c, d, e, step, [x, q])
        return y
    return convert_fn(f)


@case('while_tf_nested', 'tf')
def _():
    """A WHILE inside a WHILE body: the inner loop runs 0..2 times per outer iteration."""
    import tensorflow as tf
    b = tf.TensorSpec([], tf.bool)

    @tf.function(input_signature=[b, b, b, b, b, tf.TensorSpec([3], tf.float32)])
    def f(c, d, e, p, q, x):
        def outer(y, p, q):
            z, = flags_loop(tf, p, q, tf.constant(False), lambda z: (z * 0.5 + 2.0,), [y])
            return z + 1.0, q, p
        y, _, _ = flags_loop(tf, c, d, e, outer, [x, p, q])
        return y
    return convert_fn(f)


@case('while_tf_rnn_cell', 'tf')
def _():
    """A recurrent cell in a WHILE body (gates through FULLY_CONNECTED, LOGISTIC, TANH), run
    as many steps as the flags say, the state carried from one iteration to the next."""
    import numpy as np
    import tensorflow as tf
    rng = np.random.default_rng(5)
    wx = tf.constant(rng.uniform(-0.5, 0.5, (3, 8)).astype(np.float32))
    wh = tf.constant(rng.uniform(-0.5, 0.5, (4, 8)).astype(np.float32))
    bias = tf.constant(rng.uniform(-0.1, 0.1, (8,)).astype(np.float32))
    b = tf.TensorSpec([], tf.bool)

    def cell(x, h, c):
        z = tf.matmul(x, wx) + tf.matmul(h, wh) + bias
        i, g = tf.sigmoid(z[:, :4]), tf.tanh(z[:, 4:])
        c = c * 0.5 + i * g
        return x, tf.tanh(c) * i, c

    @tf.function(input_signature=[b, b, b, tf.TensorSpec([2, 3], tf.float32), tf.TensorSpec([2, 4], tf.float32)])
    def f(c0, d, e, x, h):
        _, h, c = flags_loop(tf, c0, d, e, cell, [x, h, tf.zeros([2, 4])])
        return h, c
    return convert_fn(f)


def convert_keras(layer, shape):
    import keras
    import tensorflow as tf
    model = keras.Sequential([keras.Input(shape, batch_size=1), layer])
    return tf.lite.TFLiteConverter.from_keras_model(model).convert()


@case('while_keras_lstm', 'tf')
def _():
    import keras
    keras.utils.set_random_seed(1)
    return convert_keras(keras.layers.LSTM(4, return_sequences=True), [5, 3])


@case('while_keras_gru', 'tf')
def _():
    import keras
    keras.utils.set_random_seed(2)
    return convert_keras(keras.layers.GRU(4), [6, 3])


# shape arithmetic (runtime/tfl_fold_ints.c): an unknown batch keeps SHAPE -> ... -> RESHAPE
# in the converted model; the file's shapes have batch 1, and our prepare folds the chain

@case('reshape_dynamic_batch_tf', 'tf')
def _():
    import tensorflow as tf

    @tf.function(input_signature=[tf.TensorSpec([None, 3, 4], tf.float32)])
    def f(x):
        s = tf.shape(x)
        y = tf.reshape(x, tf.stack([s[0], s[1] * s[2]]))
        z = tf.reshape(x * 2.0, tf.concat([tf.gather(s, [0, 2]), [3]], 0))
        return y + 1.0, z
    return convert_fn(f)


# ---------------------------------------------------------------- built (several subgraphs)

class Multi(mk.Model):
    """make_opmodels' Model with more subgraphs: graph(k) makes k the one being built."""

    def __init__(self, seed):
        super().__init__(seed)
        self.graphs = [(self.tensors, self.inputs, self.outputs, self.ops)]

    def new_graph(self):
        self.graphs.append(([], [], [], []))
        return self.graph(len(self.graphs) - 1)

    def graph(self, k):
        self.tensors, self.inputs, self.outputs, self.ops = self.graphs[k]
        return k

    def json(self):
        js = super().json()
        js['subgraphs'] = [{'tensors': t, 'inputs': i, 'outputs': o, 'operators': p, 'name': 'g%d' % k}
                           for k, (t, i, o, p) in enumerate(self.graphs)]
        return js


def tensor_like(m, spec):
    shape, type, q = spec
    return m.tensor(shape, type, q=q)


@case('while_swap_types', 'built')
def _(m):
    """Loop state of many types; the body swaps two int8 tensors (its outputs are its own
    inputs in another order: TFLite copies them over each other in order, so after one
    iteration both hold the second) and forwards the rest, for as many iterations as the
    flags say (8 inputs: the golden format's limit)."""
    specs = [([], 'bool', None), ([], 'bool', None),
             ([3], 'int8', (0.5, 3)), ([3], 'int8', (0.5, 3)),
             ([2, 2], 'int16', (0.25, 0)), ([2], 'int64', None), ([1, 2], 'uint8', (1.0, 128)),
             ([2, 1], 'float32', None)]
    ins = [m.input(s, t, q=q) for s, t, q in specs]
    outs = [tensor_like(m, s) for s in specs]
    m.op('WHILE', ins, outs, 'WhileOptions', {'cond_subgraph_index': 1, 'body_subgraph_index': 2})
    for o in outs:
        m.output(o)
    m.new_graph()   # cond: the first flag, straight through
    cin = [tensor_like(m, s) for s in specs]
    m.inputs.extend(cin)
    m.outputs.append(cin[0])
    m.new_graph()   # body
    bin_ = [tensor_like(m, s) for s in specs]
    m.inputs.extend(bin_)
    false = m.const([], [False], 'bool')
    m.outputs.extend([bin_[1], false, bin_[3], bin_[2]] + bin_[4:])
    m.graph(0)


@case('while_body_add_i32', 'built')
def _(m):
    """An int32 body computing (ADD) and a cond reading a loop-carried flag the body computes
    (LOGICAL_AND of two state flags, the second cleared): 0 to 2 iterations."""
    c, d = m.input([], 'bool'), m.input([], 'bool')
    x = m.input([2, 3], 'int32')
    y = m.input([3], 'int32')
    oc, od, ox, oy = m.tensor([], 'bool'), m.tensor([], 'bool'), m.tensor([2, 3], 'int32'), m.tensor([3], 'int32')
    m.op('WHILE', [c, d, x, y], [oc, od, ox, oy], 'WhileOptions', {'cond_subgraph_index': 1, 'body_subgraph_index': 2})
    m.output(ox)
    m.output(oc)
    m.new_graph()
    cc, cd, cx, cy = m.tensor([], 'bool'), m.tensor([], 'bool'), m.tensor([2, 3], 'int32'), m.tensor([3], 'int32')
    m.inputs.extend([cc, cd, cx, cy])
    m.outputs.append(cc)
    m.new_graph()
    bc, bd, bx, by = m.tensor([], 'bool'), m.tensor([], 'bool'), m.tensor([2, 3], 'int32'), m.tensor([3], 'int32')
    m.inputs.extend([bc, bd, bx, by])
    nc, nd = m.tensor([], 'bool'), m.tensor([], 'bool')
    m.op('LOGICAL_AND', [bc, bd], [nc])
    m.op('LOGICAL_AND', [bd, m.const([], [False], 'bool')], [nd])
    s = m.tensor([2, 3], 'int32')
    m.op('ADD', [bx, by], [s], 'AddOptions', {})
    m.outputs.extend([nc, nd, s, by])
    m.graph(0)


@case('if_int8_branches', 'built')
def _(m):
    """IF on int8 tensors: then adds (requantizing), else forwards its input."""
    p = m.input([], 'bool')
    q = (0.05, -2)
    a, b = m.input([2, 4], 'int8', q=q), m.input([2, 4], 'int8', q=q)
    o = m.tensor([2, 4], 'int8', q=(0.1, 1))
    m.op('IF', [p, a, b], [o], 'IfOptions', {'then_subgraph_index': 1, 'else_subgraph_index': 2})
    m.output(o)
    m.new_graph()
    ta, tb = m.tensor([2, 4], 'int8', q=q), m.tensor([2, 4], 'int8', q=q)
    to = m.tensor([2, 4], 'int8', q=(0.1, 1))
    m.inputs.extend([ta, tb])
    m.op('ADD', [ta, tb], [to], 'AddOptions', {})
    m.outputs.append(to)
    m.new_graph()
    ea, eb = m.tensor([2, 4], 'int8', q=q), m.tensor([2, 4], 'int8', q=q)
    eo = m.tensor([2, 4], 'int8', q=(0.1, 1))
    m.inputs.extend([ea, eb])
    m.op('ADD', [eb, eb], [eo], 'AddOptions', {})
    m.outputs.append(eo)
    m.graph(0)


@case('if_const_pred_false', 'built')
def _(m):
    """A constant predicate (false): only the else branch runs."""
    p = m.const([1], [False], 'bool')
    x = m.input([5], 'float32')
    o = m.tensor([5], 'float32')
    m.op('IF', [p, x], [o], 'IfOptions', {'then_subgraph_index': 1, 'else_subgraph_index': 2})
    m.output(o)
    for k, fact in ((1, 2.0), (2, -3.0)):
        m.new_graph()
        t = m.tensor([5], 'float32')
        m.inputs.append(t)
        r = m.tensor([5], 'float32')
        m.op('MUL', [t, m.const([1], [fact])], [r], 'MulOptions', {})
        m.outputs.append(r)
    m.graph(0)


@case('call_once_init', 'built')
def _(m):
    """CALL_ONCE of an init subgraph (no inputs or outputs, as TFLite requires) before the
    main computation."""
    m.op('CALL_ONCE', [], [], 'CallOnceOptions', {'init_subgraph_index': 1})
    x = m.input([2, 3], 'float32')
    y = m.tensor([2, 3], 'float32')
    m.op('ADD', [x, m.const([1], [1.5])], [y], 'AddOptions', {})
    m.output(y)
    m.new_graph()
    a = m.tensor([2], 'float32')
    m.op('ADD', [m.const([2], [1.0, 2.0]), m.const([2], [3.0, 4.0])], [a], 'AddOptions', {})
    m.graph(0)


# ---------------------------------------------------------------- bad models (no golden)

# Models the loader must refuse with a clean error (tests/test_control.c loads each from
# tests/data/control/ and checks the message): written by --bad.
BAD = {}


def bad(name, message):
    def reg(fn):
        BAD[name] = (fn, message)
        return fn
    return reg


def while_model(m, cond, body, cond_in_type='float32', body_in=1):
    """WHILE(flag, x[2]) with the given subgraph indices; subgraph 1 a cond, 2 a body."""
    f, x = m.input([], 'bool'), m.input([2])
    of, ox = m.tensor([], 'bool'), m.tensor([2])
    m.op('WHILE', [f, x], [of, ox], 'WhileOptions', {'cond_subgraph_index': cond, 'body_subgraph_index': body})
    m.output(ox)
    m.new_graph()
    cf, cx = m.tensor([], 'bool'), m.tensor([2], cond_in_type)
    m.inputs.extend([cf, cx])
    m.outputs.append(cf)
    m.new_graph()
    ins = [m.tensor([], 'bool'), m.tensor([2])][:body_in + 1]
    m.inputs.extend(ins)
    m.outputs.extend(ins)
    m.graph(0)


@bad('bad_while_index', 'body subgraph 7 out of range')
def _(m):
    while_model(m, 1, 7)


@bad('bad_while_same', 'cond and body are both subgraph 1')
def _(m):
    while_model(m, 1, 1)


@bad('bad_while_main', 'cond subgraph 0 out of range')
def _(m):
    while_model(m, 0, 2)


@bad('bad_while_types', 'input 1 is FLOAT32, its subgraph\'s input 1 is INT32')
def _(m):
    while_model(m, 1, 2, cond_in_type='int32')


@bad('bad_while_counts', 'body subgraph 2 has 1 inputs and 1 outputs, expected 2 and 2')
def _(m):
    while_model(m, 1, 2, body_in=0)


@bad('bad_while_recursive', 'subgraph 2 runs itself')
def _(m):
    while_model(m, 1, 2)
    # the body runs WHILE(cond 1, body 2) on its state: itself
    m.graph(2)
    bf, bx = m.inputs
    of, ox = m.tensor([], 'bool'), m.tensor([2])
    m.op('WHILE', [bf, bx], [of, ox], 'WhileOptions', {'cond_subgraph_index': 1, 'body_subgraph_index': 2})
    m.outputs[:] = [of, ox]
    m.graph(0)


@bad('bad_call_once_io', 'init subgraph 1 has 1 inputs and 0 outputs, expected none')
def _(m):
    m.op('CALL_ONCE', [], [], 'CallOnceOptions', {'init_subgraph_index': 1})
    x = m.input([2])
    y = m.tensor([2])
    m.op('ADD', [x, x], [y], 'AddOptions', {})
    m.output(y)
    m.new_graph()
    m.inputs.append(m.tensor([2]))
    m.graph(0)


def make_bad():
    out = os.path.join(HERE, '..', 'data', 'control')
    os.makedirs(out, exist_ok=True)
    lines = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, (fn, message) in sorted(BAD.items()):
            m = Multi(zlib.crc32(name.encode()))
            fn(m)
            js = os.path.join(tmp, name + '.json')
            with open(js, 'w') as f:
                json.dump(m.json(), f)
            subprocess.run(['flatc', '-b', '-o', out, mk.SCHEMA, js], check=True)
            lines.append('%s.tflite %s' % (name, message))
            print('%-28s written' % name)
    # the test reads "file message" lines: each file must fail to load with that text
    with open(os.path.join(out, 'expected.txt'), 'w') as f:
        f.write('\n'.join(lines) + '\n')


# ---------------------------------------------------------------- driver

def op_names(path):
    """The builtin op names a model uses, over all its subgraphs."""
    from tensorflow.lite.python import schema_py_generated as s
    inv = {v: k for k, v in mk.BUILTIN.items()}
    with open(path, 'rb') as f:
        model = s.ModelT.InitFromObj(s.Model.GetRootAsModel(f.read(), 0))
    names = set()
    for sg in model.subgraphs:
        for op in sg.operators or []:
            c = model.operatorCodes[op.opcodeIndex]
            code = max(c.builtinCode, c.deprecatedBuiltinCode)
            names.add(inv.get(code, str(code)))
    return sorted(names)


def main():
    if '--bad' in sys.argv:
        make_bad()
        return
    want = [a for a in sys.argv[1:] if not a.startswith('--')]
    show_ops = '--ops' in sys.argv
    os.makedirs(MODEL_DIR, exist_ok=True)
    os.makedirs(GOLDEN_DIR, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        for name, (kind, fn, needs) in sorted(CASES.items()):
            if want and not any(name.startswith(w) for w in want):
                continue
            if needs and '--all' not in sys.argv:
                print('%-28s skipped: needs %s (--all makes it)' % (name, needs))
                continue
            model = os.path.join(MODEL_DIR, name + '.tflite')
            if kind == 'tf':
                with open(model, 'wb') as f:
                    f.write(fn())
            else:
                m = Multi(zlib.crc32(name.encode()))
                fn(m)
                js = os.path.join(tmp, name + '.json')
                with open(js, 'w') as f:
                    json.dump(m.json(), f)
                subprocess.run(['flatc', '-b', '-o', MODEL_DIR, mk.SCHEMA, js], check=True)
            if show_ops:
                print('%-28s ops: %s' % (name, ' '.join(op_names(model))))
            run_dir = os.path.join(tmp, name)
            r = subprocess.run([sys.executable, mk.LITERT_RUN, model, '--seed', '1', '--out', run_dir],
                               capture_output=True, text=True, timeout=300)
            golden = os.path.join(GOLDEN_DIR, name + '.gauss.txt')
            if r.returncode != 0:
                print('%-28s TensorFlow Lite cannot run it: %s' % (name, r.stderr.strip().splitlines()[-1:]))
                continue
            with open(os.path.join(run_dir, 'outputs.json')) as f:
                doc = json.load(f)
            header = ['model %s.tflite' % name, 'runtime %s' % doc['runtime'], 'input gauss 1']
            make_golden.write_golden(golden, header, doc, run_dir, spread=False)
            print('%-28s ok' % name)
    # the committed set: every case with a model and a golden whose ops all have kernels
    # (meson: one test each)
    made = sorted(n for n, (_, _, needs) in CASES.items() if not needs
                  and os.path.exists(os.path.join(MODEL_DIR, n + '.tflite'))
                  and os.path.exists(os.path.join(GOLDEN_DIR, n + '.gauss.txt')))
    with open(os.path.join(HERE, 'control_list.txt'), 'w') as f:
        f.write('\n'.join(made) + '\n')


if __name__ == '__main__':
    main()
