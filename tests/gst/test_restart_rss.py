#!/usr/bin/env python3
"""test_restart_rss.py - an appliance that restarts its pipeline (issue 30, finding 6): RSS and
threads after NULL<->PLAYING cycles stay bounded.

Four streams of MediaPipe's selfie segmentation on the CPU path (tee, queue, tflitefilter,
tfliteoverlay: one shared engine, batches of four) run a few frames to EOS, then the pipeline
goes to NULL; CYCLES times. Before the engines were made and freed on one thread
(gsttfliteengine.c's maker thread), the batched runner was built on whichever streaming
thread ran the batch: each cycle left an engine's worth of freed memory in another glibc
arena. Measured here (2 cores), RSS after cycle 1, largest of cycles 1-20, of 21-40: before
71, 534, 629 MiB (+95); with the maker thread 67-70, 154-155, 161-164 MiB (+5 to +10).

Bounds: the largest RSS after cycles WARMUP+1..CYCLES is at most BOUND_MIB above the largest
after cycles 1..WARMUP (the allocator's and GStreamer's pools fill in steps during the first
cycles, then stay), and the process has no more threads at NULL than after cycle WARMUP.

The GL path (`gl`: the frames uploaded with glupload before the tee, delegate=gl; Mesa's
llvmpipe here, GST_GL_WINDOW=egl-device): GL_CYCLES cycles, the bound on cycles
GL_WARMUP+1..GL_CYCLES against 1..GL_WARMUP. The engine ran on glupload's context, whose
thread is new with every start, so each cycle's engine (llvmpipe keeps GL buffers in malloc'd
memory) was left in another arena: before 224, 690, 951 MiB (+260); with the element lending
its own context to glupload (gsttflitefilter.c, lends_context) 222-250, 352-364, 366-368 MiB
(+3 to +16).

Usage: test_restart_rss.py PICTURES MODEL_DIRS [cpu|gl] (folders separated by ':')
"""
import os
import sys

import gi

gi.require_version("Gst", "1.0")
from gi.repository import Gst  # noqa: E402

CYCLES = 40
WARMUP = 20
GL_CYCLES = 16
GL_WARMUP = 8
BOUND_MIB = 32
STREAMS = 4
FRAMES = 3


def find_model(dirs, name):
    for d in dirs.split(":"):
        p = os.path.join(d, name)
        if os.path.isfile(p):
            return p
    sys.exit(f"FAIL: model {name} not found in {dirs} (models/fetch.sh)")


def rss_mib():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    sys.exit("FAIL: no VmRSS in /proc/self/status")


def threads():
    return len(os.listdir("/proc/self/task"))


def main():
    if len(sys.argv) not in (3, 4) or (len(sys.argv) == 4 and sys.argv[3] not in ("cpu", "gl")):
        sys.exit(__doc__)
    gl = len(sys.argv) == 4 and sys.argv[3] == "gl"
    cycles, warmup = (GL_CYCLES, GL_WARMUP) if gl else (CYCLES, WARMUP)
    upload, delegate = (" ! glupload", "gl") if gl else ("", "cpu")
    picture = os.path.join(sys.argv[1], "astronaut.png")
    if not os.path.isfile(picture):
        sys.exit(f"FAIL: {picture} missing (tests/fetch_pictures.sh)")
    model = find_model(sys.argv[2], "selfie_segmentation.tflite")
    Gst.init(None)
    branches = []
    for i in range(STREAMS):
        branches.append(
            f"filesrc location={picture} ! pngdec ! videoconvert ! videoscale ! imagefreeze num-buffers={FRAMES}"
            f" ! video/x-raw,format=RGBA,width=320,height=240,framerate=30/1{upload} ! tee name=t{i}"
            f" t{i}. ! queue ! tflitefilter model={model} delegate={delegate} ! tfliteoverlay ! fakesink sync=false"
            f" t{i}. ! queue ! fakesink sync=false")
    pipe = Gst.parse_launch(" ".join(branches))
    bus = pipe.get_bus()
    base_threads = None
    first_max = later_max = 0.0
    for c in range(1, cycles + 1):
        if pipe.set_state(Gst.State.PLAYING) == Gst.StateChangeReturn.FAILURE:
            sys.exit(f"FAIL: cycle {c}: the pipeline did not start")
        msg = bus.timed_pop_filtered(120 * Gst.SECOND, Gst.MessageType.EOS | Gst.MessageType.ERROR)
        if msg is None:
            sys.exit(f"FAIL: cycle {c}: no EOS within 120 s")
        if msg.type == Gst.MessageType.ERROR:
            err, dbg = msg.parse_error()
            sys.exit(f"FAIL: cycle {c}: {err.message} ({dbg})")
        pipe.set_state(Gst.State.NULL)
        rss, n = rss_mib(), threads()
        print(f"cycle {c}: RSS {rss:.1f} MiB, {n} threads", flush=True)
        if c <= warmup:
            first_max = max(first_max, rss)
        else:
            later_max = max(later_max, rss)
        if c == warmup:
            base_threads = n
        if base_threads is not None and n > base_threads:
            sys.exit(f"FAIL: cycle {c}: {n} threads at NULL, {base_threads} after cycle {warmup}")
    growth = later_max - first_max
    if growth > BOUND_MIB:
        sys.exit(f"FAIL: RSS up to {later_max:.1f} MiB in cycles {warmup + 1}-{cycles}, {growth:.1f} MiB above "
                 f"the {first_max:.1f} MiB of cycles 1-{warmup} (bound {BOUND_MIB} MiB)")
    print(f"ok: {cycles} cycles, largest RSS {first_max:.1f} MiB in cycles 1-{warmup}, {later_max:.1f} "
          f"after ({growth:+.1f}, bound {BOUND_MIB})")


if __name__ == "__main__":
    main()
