#!/usr/bin/env bash
# Installs missing dependencies, then configures and builds crmap (Release) into build/.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install_deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE="${CRMAP_BUILD_TYPE:-Release}" >/dev/null
cmake --build build -j"$(nproc)"
