#!/usr/bin/env python3
"""glsl_same.py BEFORE_DIR AFTER_DIR: are two dumps of the GL delegate's shaders
(TFLGL_DUMP_SHADERS=DIR, delegates/gl/gl_program.c) the same programs? Each source is run
through the C preprocessor (GLSL's is C's less #version/#extension, which are kept
aside), then compared token by token: moving a body into a .glsl file with #defines may
change the text, never the tokens the compiler sees. Prints each file that differs with
its first differing tokens; exit 1 when any does or a file is in one dump only."""
import os
import re
import subprocess
import sys

TOKEN = re.compile(r'\d+\.\d*(?:[eE][-+]?\d+)?[fFuU]?|\.\d+(?:[eE][-+]?\d+)?|\d+(?:[eE][-+]?\d+)?[uU]?|\w+'
                   r'|<<=|>>=|&&|\|\||\+\+|--|<<|>>|[-+*/%&|^!=<>]=|\S')


def tokens(path):
    kept, body = [], []
    for line in open(path, encoding='utf-8'):
        (kept if re.match(r'\s*#\s*(version|extension)\b', line) else body).append(line)
    out = subprocess.run(['cpp', '-P', '-undef', '-nostdinc', '-x', 'c', '-'], input=''.join(body),
                         capture_output=True, text=True)
    if out.returncode:
        sys.exit(f'glsl_same.py: cpp failed on {path}: {out.stderr.strip()}')
    return [t for line in kept for t in line.split()] + TOKEN.findall(out.stdout)


def main():
    if len(sys.argv) != 3:
        sys.exit('usage: glsl_same.py BEFORE_DIR AFTER_DIR')
    a, b = sys.argv[1:]
    na, nb = set(os.listdir(a)), set(os.listdir(b))
    bad = 0
    for name in sorted(na ^ nb):
        print(f'{name}: only in {a if name in na else b}')
        bad += 1
    same = 0
    for name in sorted(na & nb):
        ta, tb = tokens(os.path.join(a, name)), tokens(os.path.join(b, name))
        if ta == tb:
            same += 1
            continue
        bad += 1
        i = next((k for k, (x, y) in enumerate(zip(ta, tb)) if x != y), min(len(ta), len(tb)))
        print(f'{name}: differs at token {i}:\n  before: {" ".join(ta[max(0, i - 12):i + 12])}\n'
              f'  after:  {" ".join(tb[max(0, i - 12):i + 12])}')
    print(f'{same} programs the same, {bad} differ or are missing')
    sys.exit(1 if bad else 0)


main()
