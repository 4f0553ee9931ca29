#!/usr/bin/env bash
# Installs dependencies, checks the formatting (.clang-format), builds and runs every test:
#  1. the Halide-free core under AddressSanitizer + UndefinedBehaviorSanitizer (clang), plus a short fuzz run;
#  2. everything (core, GUI, CLI) with warnings as errors, all tests (GUI ones on the offscreen platform);
#  3. the Debian package made from that build: lintian, installed with apt, the installed programs,
#     plugin and CMake package tried as a user would, then removed (packaging/check-package.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
./packaging/install-deps.sh --packaging
./packaging/check-format.sh
export CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}"
cmake --workflow --preset ci-asan
cmake --workflow --preset ci
./packaging/check-package.sh build/ci
