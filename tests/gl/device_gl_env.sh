# device_gl_env.sh AUX - sourced ON THE GPU MACHINE by the tests/gl/*_device.sh benchmarks:
# unpacks the GL/EGL loaders staged in AUX/debs over /, adds the libraries of AUX/xdebs the
# machine lacks (device_libs.sh), points glvnd at NVIDIA's EGL and turns NVIDIA's shader
# disk cache off, so every run compiles cold.
_a=${1:?usage: source device_gl_env.sh AUX}
for _f in "$_a"/debs/*.deb; do dpkg -x "$_f" /; done; ldconfig
source "$(dirname "${BASH_SOURCE[0]}")"/device_libs.sh "$_a"/xdebs
export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
export __GL_SHADER_DISK_CACHE=0
