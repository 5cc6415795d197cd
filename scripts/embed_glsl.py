#!/usr/bin/env python3
"""embed_glsl.py OUT.h SHADER.glsl...: writes a C header holding each shader's text as a
string constant, so shaders live in .glsl files (read, diffed and checked as GLSL) and the
library still carries them without reading files at run time. A file name a.b.glsl becomes
`static const char a_b[]`; its text is kept byte for byte (comments included: the GLSL
compiler drops them)."""
import os
import re
import sys


def c_string(text):
    out = []
    for line in text.splitlines(keepends=True):
        esc = line.replace('\\', '\\\\').replace('"', '\\"').replace('\t', '\\t').replace('\n', '\\n')
        out.append(f'  "{esc}"')
    return '\n'.join(out) if out else '  ""'


def main():
    if len(sys.argv) < 3:
        sys.exit('usage: embed_glsl.py OUT.h SHADER.glsl...')
    out, sources = sys.argv[1], sys.argv[2:]
    guard = re.sub(r'\W', '_', os.path.basename(out)).upper()
    parts = [f'/* {os.path.basename(out)}: made by scripts/embed_glsl.py from '
             + ', '.join(os.path.basename(s) for s in sources) + '; do not edit. */',
             f'#ifndef {guard}', f'#define {guard}', '']
    seen = set()
    for src in sources:
        base = os.path.basename(src)
        if not base.endswith('.glsl'):
            sys.exit(f'embed_glsl.py: {src}: not a .glsl file')
        name = re.sub(r'\W', '_', base[:-len('.glsl')])
        if name in seen:
            sys.exit(f'embed_glsl.py: two shaders would be named {name}')
        seen.add(name)
        with open(src, encoding='utf-8') as f:
            text = f.read()
        if '\0' in text:
            sys.exit(f'embed_glsl.py: {src}: has a NUL byte')
        parts += [f'static const char {name}[] =', c_string(text) + ';', '']
    parts += [f'#endif', '']
    with open(out, 'w', encoding='utf-8') as f:
        f.write('\n'.join(parts))


main()
