# device_libs.sh DEB_DIR - sourced on the GPU machine: the libraries of the Debian packages
# in DEB_DIR that the machine lacks (oneDNN, libgomp, libjpeg, the OpenCL loader: the CPU
# fast path and the tools link them), copied to /tmp/xlib and put on the library path
# AFTER the machine's own, so they never shadow its libraries.
_x=${1:?usage: source device_libs.sh DEB_DIR}
mkdir -p /tmp/xdeb /tmp/xlib
for _f in "$_x"/*.deb; do dpkg -x "$_f" /tmp/xdeb; done
for _f in $(find /tmp/xdeb -name 'lib*.so*' \( -type f -o -type l \)); do
  ldconfig -p | grep -q " $(basename "$_f") " || cp -P "$_f" /tmp/xlib/ 2>/dev/null
done
export LD_LIBRARY_PATH=${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}/tmp/xlib
