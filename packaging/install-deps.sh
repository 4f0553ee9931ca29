#!/usr/bin/env bash
# Installs everything Beamscope needs on Debian 12 through apt; with
# --packaging also what building and checking the .deb needs (run-tests.sh).
# Idempotent: prints nothing and touches nothing when all is present.
# The CUDA Toolkit is optional and not installed here (found at /usr/local/cuda when present).
set -euo pipefail

packages=(
    cmake make g++ clang libclang-rt-14-dev
    qt6-base-dev qt6-charts-dev qt6-svg-dev libgl-dev
    libhalide14-0-dev
    libmimalloc-dev   # the allocator of the programs that search (cmake/BeamscopeAllocator.cmake)
    libcli11-dev      # header-only command-line parser of beamscope-cli and the bench worker
    nlohmann-json3-dev   # JSON (core/util/json_parse.cpp), header-only: no runtime package
    zlib1g-dev        # gzipped recorded data (core/util/gzip_file.cpp)
    libssl-dev        # SHA-256 through libcrypto's EVP (core/util/sha256.cpp)
    pocl-opencl-icd ocl-icd-opencl-dev
    xvfb xauth
    slurm-wlm munge   # the single-node Slurm the Slurm tests start (tests/slurm/local_slurm.h)
)
if [ "${1:-}" = "--packaging" ]; then
    packages+=(dpkg-dev file binutils gzip lintian clang-format)  # clang-format: packaging/check-format.sh
fi

missing=()
for p in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$p")
    fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "install-deps: installing ${missing[*]}" >&2
sudo_cmd=()
[ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq "${missing[@]}" >/dev/null
