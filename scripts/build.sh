#!/usr/bin/env bash
# Installs missing dependencies, then configures and builds crmap (Release) into build/.
# usage: scripts/build.sh [TARGET...]   (no target: everything, tests included)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install_deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE="${CRMAP_BUILD_TYPE:-Release}" >/dev/null
if [ "$#" -gt 0 ]; then
  cmake --build build -j"$(nproc)" --target "$@"
else
  cmake --build build -j"$(nproc)"
fi
