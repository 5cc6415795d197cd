#!/usr/bin/env python3
"""frame_files.py - a static walk of the calls one frame makes, counting the source files
it visits and how many times it comes back to a file it had left (issue 27).

Usage: scripts/frame_files.py [--path gl|cpu] [--trace] [--root DIR]
       scripts/frame_files.py --circles [--root DIR]

--circles: the file circles among the element's own files (gst/tflitefilter/ but the meta
library): file A calls (or hands on) a function of file B and B, directly or not, one of A.

The walk starts at tflitefilter's transform_ip and follows every call, in source order,
depth first, through the element's own files (gst/tflitefilter/ but the meta
library). A library (runtime/, decoders/, delegates/gl/, preprocess/, postproc/, the meta
library) is one step: entered, left; inside it only the element's callbacks that the
call was handed run (functions the caller stored into a job's fields or passed as an
argument since its last library call: the jobs' fill and consume, the GL thread's
function). Calls through a pointer inside the element's files are resolved by field
name (`x.fill = f` makes `->fill(` call f). Branches are not evaluated: a function called twice from one body is walked once (the
second call site is usually the other branch), and what a frame of the chosen path does
not reach at the default settings (gl-queue-depth=1, no regions, a fresh inference, the
runtime made already) is listed in SKIP below, by name, for each tree layout.

A "visit" is a change of file along the walk (caller's file -> callee's file and back);
a "return" is entering a file that the walk had already left before; a "call back" is a
return by a call (not by returning) into a file further up the call stack: a file circle. Recursion stops at
depth 40 and a function already on the stack.
"""
import os
import re
import sys

ROOT = sys.argv[sys.argv.index("--root") + 1] if "--root" in sys.argv else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DIRS = ["gst/tflitefilter", "runtime", "decoders", "delegates/gl", "preprocess", "postproc"]

# not on a frame's path at the default settings (the runtime exists already, one frame
# in, one frame out, whole frames); names of either layout
SKIP_COMMON = {
    # made once per stream, not per frame
    "make_runtime", "release_runtime", "load_model", "take_settings", "software_gl", "make_gl_engine",
    "gst_tflite_filter_switch_to_gl", "gst_tflite_filter_stop_gl_start", "gst_tflite_infer_new",
    "gst_tflite_infer_free", "gst_tflite_infer_prepare", "gst_tflite_infer_release", "infer_prepare",
    "gst_tflite_infer_switch_to_gl", "gst_tflite_infer_stop_gl_start",
    # regions-from, gl-queue-depth=2, skipped frames
    "gst_tflite_filter_regions_frame", "gst_tflite_queue_submit", "gst_tflite_queue_complete",
    "gst_tflite_infer_regions_frame", "gst_tflite_infer_queue_submit", "gst_tflite_infer_queue_complete",
    "gst_tflite_filter_gl_collect", "gst_tflite_infer_gl_collect", "reuse_last", "forget_last",
    # a held frame's completion returns at once at depth 1; region mode
    "complete_held", "regions_frame",
    # errors
    "gst_tflite_filter_gl_unavailable", "gst_tflite_notice_set", "gst_tflite_notice_clear",
    # warnings: only when one is pending
    "gst_tflite_infer_take_notices",
    # the runtime's first run, batches of several streams, frees
    "make_on_exec", "free_on_exec", "tfl_engine_detach", "tfl_engine_attach",
    # the "tflite-model" message: posted once after the runtime is made (the old layout posted
    # it inside make_runtime, skipped above)
    "gst_tflite_infer_post_model",
}
SKIP_PATH = {
    "gl": {"run_sysmem", "sysmem_fill", "sysmem_consume", "upload_frame", "gst_tflite_infer_run_sysmem"},
    "cpu": {"gst_tflite_filter_gl_run", "gst_tflite_infer_gl_run", "fill", "consume"},
}
START = "gst_tflite_filter_transform_ip"
KEYWORDS = {"if", "for", "while", "switch", "return", "sizeof", "defined", "G_N_ELEMENTS"}

DEF_RE = re.compile(r"^(?:static\s+)?(?:inline\s+)?[A-Za-z_][\w\s\*]*?\b([A-Za-z_]\w*)\s*\(")


def strip_comments(src):
    src = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), src, flags=re.S)
    src = re.sub(r"//[^\n]*", "", src)
    return re.sub(r'"(?:\\.|[^"\\])*"', '""', src)


def functions():
    """name -> [(file, body text, static)] for every function defined in DIRS' .c files."""
    out = {}
    for d in DIRS:
        base = os.path.join(ROOT, d)
        for dirpath, _, names in os.walk(base):
            for n in sorted(names):
                if not n.endswith(".c"):
                    continue
                path = os.path.join(dirpath, n)
                rel = os.path.relpath(path, ROOT)
                lines = strip_comments(open(path, encoding="utf-8").read()).split("\n")
                i = 0
                while i < len(lines):
                    m = DEF_RE.match(lines[i])
                    if m and not lines[i].rstrip().endswith(";") and not lines[i].startswith(("#", " ", "\t")):
                        # the body: from the first "{" at column 0 to the next "}" at column 0
                        j = i
                        while j < len(lines) and not lines[j].startswith("{"):
                            if lines[j].rstrip().endswith(";"):
                                break
                            j += 1
                        if j < len(lines) and lines[j].startswith("{"):
                            k = j + 1
                            while k < len(lines) and not lines[k].startswith("}"):
                                k += 1
                            name = m.group(1)
                            static = lines[i].startswith("static")
                            out.setdefault(name, []).append((rel, "\n".join(lines[j:k + 1]), static))
                            i = k
                    i += 1
    return out


def circles():
    """Strongly connected groups (more than one file) of the element's files' call graph."""
    defs = functions()
    own = lambda f: f.startswith("gst/tflitefilter/") and not os.path.basename(f).startswith("gsttflitemeta")
    edges = {}
    for ds in defs.values():
        for f, body, _ in ds:
            if not own(f):
                continue
            for m in re.finditer(r"\b([A-Za-z_]\w*)\b", body):
                cands = defs.get(m.group(1), [])
                d = next((d for d in cands if d[0] == f), None) or next((d for d in cands if not d[2]), None)
                if d and own(d[0]) and d[0] != f:
                    edges.setdefault(f, set()).add(d[0])
    index, low, stack, on, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(os.path.basename(x) for x in comp))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    print("file circles:", "; ".join(" <-> ".join(c) for c in found) if found else "none")


def main():
    if "--circles" in sys.argv:
        return circles()
    path = "gl"
    trace = "--trace" in sys.argv
    if "--path" in sys.argv:
        path = sys.argv[sys.argv.index("--path") + 1]
    skip = SKIP_COMMON | SKIP_PATH[path]
    defs = functions()

    def resolve(name, caller_file):
        """The definition a call in caller_file reaches: its file's own, else a global one."""
        for d in defs.get(name, []):
            if d[0] == caller_file:
                return d
        for d in defs.get(name, []):
            if not d[2]:
                return d
        return None

    # name@file keys, so that static functions of the same name stay apart
    funcs = {}
    for name, ds in defs.items():
        for d in ds:
            funcs[name + "@" + d[0]] = (d[0], d[1])
    # field -> functions stored into it, from the element's files (the frame's jobs, hooks)
    fields = {}
    for key, (f, body) in funcs.items():
        if not f.startswith("gst/tflitefilter"):
            continue
        for m in re.finditer(r"(?:\.|->)(\w+)\s*=\s*([A-Za-z_]\w*)\s*[;,]", body):
            d = resolve(m.group(2), f)
            if d and m.group(2) not in skip:
                fields.setdefault(m.group(1), []).append(m.group(2) + "@" + d[0])
    token = re.compile(r"(?:(\.|->)\s*)?\b([A-Za-z_]\w*)\b(\s*\()?")
    seq = []  # the file of every step, in order
    callbacks = {}  # file -> calls into it from a file it had called (a circle)

    def own(f):
        return f.startswith("gst/tflitefilter/") and not os.path.basename(f).startswith("gsttflitemeta")

    def walk(name, stack, pending):
        """pending: the callbacks the caller handed to this opaque library call."""
        f, body = funcs[name]
        files_up = [funcs[k][0] for k in stack]
        if stack and files_up[-1] != f and f in files_up:
            callbacks[f] = callbacks.get(f, 0) + 1
        seq.append(f)
        if trace:
            print("  " * len(stack) + name)
        if len(stack) > 40:
            return
        if not own(f):
            # a library (runtime, decoders, GL delegate, meta library): entered and left;
            # inside it, only the element's callbacks handed to it run (each once)
            for t in pending:
                walk(t, stack + [name], [])
                seq.append(f)
            return
        registered = []                          # stored into a field here: a later library call runs them
        done = set()                             # callees walked from this body
        for m in token.finditer(body[1:]):
            member, ident, call = m.group(1), m.group(2), m.group(3)
            targets = []
            if member and call and ident in fields:
                targets = fields[ident]          # a call through a pointer field
            elif member:
                continue                         # a field, not a function
            elif ident not in KEYWORDS and resolve(ident, f):
                key = ident + "@" + resolve(ident, f)[0]
                if not call:                     # a function handed on: stored or an argument
                    if ident not in skip:
                        registered.append(key)
                    continue
                targets = [key]
            for t in targets:
                if t.split("@")[0] in skip or t in stack or t == name or t in done:
                    continue
                done.add(t)
                if own(funcs[t][0]):
                    walk(t, stack + [name], [])
                else:
                    walk(t, stack + [name], registered)
                    registered = []
                seq.append(f)                    # back in the caller's file
        for t in registered:                     # handed to an own helper that runs it
            if t not in stack and t != name and own(funcs[t][0]):
                walk(t, stack + [name], [])
                seq.append(f)

    start = [k for k in funcs if k.startswith(START + "@")]
    if "--root" in sys.argv:
        pass
    walk(start[0], [], [])
    # collapse runs of the same file: the files in the order the frame meets them
    visits = [seq[0]]
    for f in seq[1:]:
        if f != visits[-1]:
            visits.append(f)
    left = set()
    returns = 0
    for prev, f in zip(visits, visits[1:]):
        left.add(prev)
        if f in left:
            returns += 1
    files = sorted(set(visits))
    print(f"path {path}: {len(files)} files, {len(visits) - 1} file changes, {returns} returns to a file left before, "
          f"{sum(callbacks.values())} of them calls back into a file that is waiting on the call "
          f"({', '.join(f'{os.path.basename(k)} {v}' for k, v in sorted(callbacks.items())) or 'none'})")
    for f in files:
        print(f"  {f}: entered {visits.count(f)} times")


if __name__ == "__main__":
    main()
