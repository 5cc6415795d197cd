#!/usr/bin/env python3
"""make_models.py - tiny models for the element tests, written with flatc from the opmodels'
schema (tests/opmodels/make_opmodels.py's Model class).

gl_refused_tall.tflite: LOGISTIC on a [1, 1048576, 1, 3] image (a frame scaled to one
column of 2^20 pixels). The CPU runs it; the GL delegate accepts the op but refuses the
partition when it prepares it: its dispatch would need more than 65535 workgroups along y
(GL_MAX_COMPUTE_WORK_GROUP_COUNT[1]; 65535 on llvmpipe and NVIDIA alike). So the GL
engine fails to be made while the CPU engine works: gl-start=cpu's failure path.

Usage: tests/gst/models/make_models.py     (writes the models beside this script)
"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', '..', 'opmodels'))
import make_opmodels as mo  # noqa: E402


def gl_refused_tall(m):
    shape = [1, 1 << 20, 1, 3]
    x = m.input(shape)
    out = m.tensor(shape)
    m.op('LOGISTIC', [x], [out])
    m.output(out)


def main():
    for name, build in (('gl_refused_tall', gl_refused_tall),):
        m = mo.Model(1)
        build(m)
        with tempfile.TemporaryDirectory() as tmp:
            js = os.path.join(tmp, name + '.json')
            with open(js, 'w') as f:
                json.dump(m.json(), f)
            subprocess.run(['flatc', '-b', '-o', HERE, mo.SCHEMA, js], check=True)


if __name__ == '__main__':
    main()
