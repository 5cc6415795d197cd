"""check_raw_opens.py - every file the library code opens from a path goes through
runtime/tfl_file.c (regular files only, no blocking on a FIFO, no writing through a link,
bounded reads, atomic replace). Fails on a call that opens a path (fopen, open, openat,
fdopen, creat, freopen, their GLib forms, mkstemp, libpng's file readers/writers) in the
library folders outside raw_opens_allow.txt, whose every entry says why; an entry that no
longer matches a call fails too, so the list cannot go stale.

usage: check_raw_opens.py SOURCE_ROOT ALLOW_LIST"""
import os
import re
import sys

FOLDERS = ['runtime', 'delegates', 'decoders', 'policy', 'preprocess', 'postproc', 'evaluation', 'gst', 'gst-libs', 'tools']
CALL = re.compile(r'(?<![\w.>])((?:g_)?(?:fopen|open|openat|fdopen|creat|freopen)|mkstemp|mkostemp'
                  r'|png_image_begin_read_from_file|png_image_write_to_file)\s*\(')
# comments, then string and character literals: a call named in either is no call
COMMENT = re.compile(r'/\*.*?\*/|//[^\n]*', re.S)
LITERAL = re.compile(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'')


def blank(m):
    return re.sub(r'[^\n]', ' ', m.group(0))


def calls(path):
    text = open(path, encoding='utf-8', errors='replace').read()
    text = LITERAL.sub(blank, COMMENT.sub(blank, text))
    for m in CALL.finditer(text):
        # a declaration or definition of a function of that name is not a call
        before = text[:m.start()].rstrip()
        if before.endswith('*') or re.search(r'\b(int|FILE|void|static)\s*$', before):
            continue
        yield text.count('\n', 0, m.start()) + 1, m.group(1)


def main():
    root, allow_path = sys.argv[1], sys.argv[2]
    allowed = {}
    for n, line in enumerate(open(allow_path, encoding='utf-8'), 1):
        line = line.strip()
        if not line or line.startswith('#'):
            continue
        parts = line.split(None, 2)
        if len(parts) < 3 or len(parts[2]) < 10:
            print('FAIL %s:%d: an entry is "FILE FUNCTION why" with a reason: %r' % (allow_path, n, line))
            return 1
        allowed[(parts[0], parts[1])] = 0
    bad = []
    scanned = 0
    for folder in FOLDERS:
        for dirpath, _, names in os.walk(os.path.join(root, folder)):
            for name in sorted(names):
                if not name.endswith(('.c', '.h')):
                    continue
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, root)
                scanned += 1
                for line, fn in calls(path):
                    if (rel, fn) in allowed:
                        allowed[(rel, fn)] += 1
                    else:
                        bad.append('%s:%d: %s() opens a path outside runtime/tfl_file.c' % (rel, line, fn))
    for (rel, fn), hits in sorted(allowed.items()):
        if not hits:
            bad.append('%s: allow-list entry "%s %s" matches no call (remove it)' % (allow_path, rel, fn))
    for b in bad:
        print('FAIL ' + b)
    print('%d files scanned, %d allowed entries, %d problem(s)' % (scanned, len(allowed), len(bad)))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
