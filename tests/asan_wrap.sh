#!/bin/sh
# asan_wrap.sh - `meson test --wrapper` for the GStreamer suites under ASan+UBSan
# (scripts/test.sh): runs COMMAND... with Mesa's software driver preloaded.
#
# Mesa unloads its driver (dri/swrast_dri.so) when the last EGL display is terminated.
# LeakSanitizer then no longer scans the driver's globals and reports what they held as
# leaked, from an "<unknown module>" that no suppression can name. Preloaded, the driver
# stays mapped until exit and those blocks stay reachable; a block our code loses is still
# reported. ASan's runtime must come first in the preload list.
set -eu
asan=$(gcc -print-file-name=libasan.so)
driver=/usr/lib/$(gcc -print-multiarch)/dri/swrast_dri.so
[ -f "$driver" ] || { echo "asan_wrap.sh: $driver missing (libgl1-mesa-dri)" >&2; exit 1; }
LD_PRELOAD="$asan $driver${LD_PRELOAD:+ $LD_PRELOAD}" exec "$@"
