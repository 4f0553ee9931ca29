#!/usr/bin/env bash
# Installs dependencies, builds the explorer and launches it.
# Extra arguments go to the explorer (e.g. --weights-dir DIR or a .weights file).
set -euo pipefail
cd "$(dirname "$0")/.."
./packaging/install-deps.sh
export CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}"
cmake --preset dev >/dev/null
cmake --build --preset dev --target beamscope
exec ./build/dev/app/beamscope "$@"
