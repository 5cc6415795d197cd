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
print(f'{checked} includes checked, {bad} across a layer boundary')
sys.exit(1 if bad else 0)
