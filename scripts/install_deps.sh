#!/usr/bin/env bash
# Installs the Debian 12 packages crmap builds on, if any is missing. Quick and silent when all are present.
set -euo pipefail

packages=(
  build-essential cmake ccache pkg-config
  libdnnl-dev ocl-icd-opencl-dev  # libdnnl-dev's dnnl-config.cmake requires OpenCL; only a Recommends
  libtorch-dev libopenblas0-openmp
  libspdlog-dev libcxxopts-dev nlohmann-json3-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  clang-14 libclang-rt-14-dev  # the policy loader fuzzer (libFuzzer, tests/CMakeLists.txt)
  python3 python3-matplotlib
  prometheus-cpp-dev  # serve's metrics (runtime/serve/metrics)
  prometheus          # promtool checks serve's metrics file; a real server scrapes serve in a test
)

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "crmap: installing missing packages: ${missing[*]}" >&2
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "crmap: need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
  sudo_cmd=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq >/dev/null
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
