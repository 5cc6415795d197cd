#!/usr/bin/env python3
"""check_layers.py SOURCE_ROOT: fails when a file of a layer below the elements includes a
header of a layer it must not depend on (README's layout: runtime at the bottom, the
model-policy layer on it, preprocessing and decoders each on those, the delegates beside
each other, never one through the other). Quoted includes only; a path is resolved
against the including file's folder first, then the source root, as the compiler does."""
import os
import re
import sys

# layer -> the layers its files may include (itself always)
ALLOWED = {
    'runtime': set(),
    'postproc': {'runtime'},
    'policy': {'runtime'},
    'preprocess': {'runtime', 'policy'},
    'decoders': {'runtime', 'policy', 'postproc'},
    'delegates/cpu': {'runtime', 'postproc'},
    'delegates/gl': {'runtime', 'postproc'},
}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
# Inside the GL delegate the generators only get their tuning as values (gl_gen_tile): a
# generator that includes the planner's, the fusion passes' or the tuning's header, or
# calls into them, closes the circle issue 27 removed.
GL_GEN = re.compile(r'gl_gen_\w*\.c$')
GL_GEN_BANNED_INC = re.compile(r'(^|/)gl_(plan\w*|fuse\w*|tune)\.h$')
GL_GEN_BANNED_CALL = re.compile(r'\b(gl_plan_\w+|gl_fuse_\w+|gl_tune_\w+)\s*\(')
# The device buffers (gl_buffers.c) serve the delegate's partitions (gl_delegate.c calls
# them through gl_part.h); a call back into a function gl_delegate.c defines closes a circle.
GL_CALLEE, GL_CALLER = 'gl_buffers.c', 'gl_delegate.c'
DEFINED = re.compile(r'^(?!static\b)[A-Za-z_][\w \t\*]*?\b(\w+)\s*\([^;{]*\)\s*\{', re.M)


def layer_of(rel):
    for name in sorted(ALLOWED, key=len, reverse=True):
        if rel == name or rel.startswith(name + '/'):
            return name
    return rel.split('/')[0]


root = os.path.realpath(sys.argv[1])
bad = 0
checked = 0
for layer in ALLOWED:
    for folder, _, files in os.walk(os.path.join(root, layer)):
        for f in files:
            if not f.endswith(('.c', '.h')):
                continue
            path = os.path.join(folder, f)
            with open(path, encoding='utf-8', errors='replace') as fp:
                text = fp.read()
            if layer == 'delegates/gl' and GL_GEN.match(f):
                code = re.sub(r'/\*.*?\*/', '', text, flags=re.S)
                for inc in INCLUDE.findall(code):
                    if GL_GEN_BANNED_INC.search(inc):
                        print(f'delegates/gl/{f}: includes "{inc}": generators get their tuning in gl_gen_in.tile')
                        bad += 1
                for call in sorted(set(GL_GEN_BANNED_CALL.findall(code))):
                    print(f'delegates/gl/{f}: calls {call}: generators never call the planner, fusion or tuning')
                    bad += 1
            for inc in INCLUDE.findall(text):
                local = os.path.realpath(os.path.join(folder, inc))
                target = local if os.path.exists(local) else os.path.realpath(os.path.join(root, inc))
                if not os.path.exists(target) or not target.startswith(root + os.sep):
                    continue  # a system or generated header
                checked += 1
                to = layer_of(os.path.relpath(target, root))
                if to != layer and to not in ALLOWED[layer]:
                    print(f'{os.path.relpath(path, root)}: includes "{inc}" ({to}/), which {layer}/ must not depend on')
                    bad += 1
gl_dir = os.path.join(root, 'delegates', 'gl')
if os.path.exists(os.path.join(gl_dir, GL_CALLEE)):
    with open(os.path.join(gl_dir, GL_CALLER), encoding='utf-8') as fp:
        upper = set(DEFINED.findall(re.sub(r'/\*.*?\*/', '', fp.read(), flags=re.S)))
    with open(os.path.join(gl_dir, GL_CALLEE), encoding='utf-8') as fp:
        code = re.sub(r'/\*.*?\*/', '', fp.read(), flags=re.S)
    for name in sorted(n for n in upper if re.search(r'\b' + n + r'\s*\(', code)):
        print(f'delegates/gl/{GL_CALLEE}: calls {name} of {GL_CALLER}, which calls it: a file circle')
        bad += 1
print(f'{checked} includes checked, {bad} across a layer boundary')
sys.exit(1 if bad else 0)
