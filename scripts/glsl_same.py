#!/usr/bin/env python3
"""glsl_same.py BEFORE_DIR AFTER_DIR: are two dumps of the GL delegate's shaders
(TFLGL_DUMP_SHADERS=DIR, delegates/gl/gl_program.c) the same programs? Each source is run
through the C preprocessor (GLSL's is C's less #version/#extension, which are kept
aside), then compared token by token: moving a body into a .glsl file with #defines may
change the text, never the tokens the compiler sees. Prints each file that differs with
its first differing tokens; exit 1 when any does or a file is in one dump only. Integer
constant expressions are folded first (`24 * 42` and `1008` are one program), where C's
precedence allows it."""
import os
import re
import subprocess
import sys

TOKEN = re.compile(r'\d+\.\d*(?:[eE][-+]?\d+)?[fFuU]?|\.\d+(?:[eE][-+]?\d+)?|\d+(?:[eE][-+]?\d+)?[uU]?|\w+'
                   r'|<<=|>>=|&&|\|\||\+\+|--|<<|>>|[-+*/%&|^!=<>]=|\S')


INT = re.compile(r'\d+$')
OPS = {'*': lambda a, b: a * b, '/': lambda a, b: a // b if b else None, '%': lambda a, b: a % b if b else None,
       '+': lambda a, b: a + b, '-': lambda a, b: a - b}
# tokens after which an integer starts an operand of its own (not the right side of * / %,
# a member, a call or an index of something else)
OPEN = {'(', ',', '=', ';', '[', '?', ':', '<', '>', '<=', '>=', '==', '!=', '&&', '||', '{', '}', 'return',
        '+=', '-=', '*=', '/=', '%='}


def fold(t):
    """Folds non-negative integer constant expressions in token list t, to a fixed point."""
    changed = True
    while changed:
        changed = False
        i = 0
        while i < len(t):
            # ( INT ) not after a name (a call or constructor keeps its parentheses)
            if (t[i] == '(' and i + 2 < len(t) and INT.match(t[i + 1]) and t[i + 2] == ')'
                    and (i == 0 or not re.match(r'\w', t[i - 1]))):
                t[i:i + 3] = [t[i + 1]]
                changed = True
                continue
            if i + 2 < len(t) and INT.match(t[i]) and t[i + 1] in OPS and INT.match(t[i + 2]):
                prev = t[i - 1] if i else ';'
                nxt = t[i + 3] if i + 3 < len(t) else ';'
                op = t[i + 1]
                ok = prev in OPEN or (op in '*/%' and prev in ('+', '-') and i >= 2 and t[i - 2] not in OPEN)
                if op in '+-':
                    ok = prev in OPEN and nxt not in ('*', '/', '%')
                val = OPS[op](int(t[i]), int(t[i + 2])) if ok else None
                if val is not None and val >= 0:
                    t[i:i + 3] = [str(val)]
                    changed = True
                    continue
            i += 1
    return t


def tokens(path):
    kept, body = [], []
    for line in open(path, encoding='utf-8'):
        (kept if re.match(r'\s*#\s*(version|extension)\b', line) else body).append(line)
    out = subprocess.run(['cpp', '-P', '-undef', '-nostdinc', '-x', 'c', '-'], input=''.join(body),
                         capture_output=True, text=True)
    if out.returncode:
        sys.exit(f'glsl_same.py: cpp failed on {path}: {out.stderr.strip()}')
    return [t for line in kept for t in line.split()] + fold(TOKEN.findall(out.stdout))


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
