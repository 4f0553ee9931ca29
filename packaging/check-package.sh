#!/usr/bin/env bash
# Makes the Debian package from a build folder (default build/ci), checks it
# with lintian, installs it with apt and tries what a user would, with no
# Beamscope environment variable set:
#   - the installed beamscope-cli validates the installed weights and finds them by name,
#     searches an app with its shipped hold-one-out weights and times a pipeline in the installed bench worker;
#   - the installed explorer answers --help and --version without a display;
#   - the installed plugin schedules a Halide 14 generator with the shipped weights;
#   - an out-of-tree CMake project (examples/halide-plugin) finds the package
#   - a user's own generator (examples/own-generator) records its search, opened by the CLI and explorer
#     with find_package(Beamscope), schedules its generator and runs it on OpenCL.
# The package is removed at the end, also when a check fails. Needs root (apt).
#
#   packaging/check-package.sh [BUILD_DIR] [--keep DIR]   (--keep: leave the .deb in DIR)
set -euo pipefail
cd "$(dirname "$0")/.."
source_dir=$(pwd)
build=${1:-build/ci}
keep=""
[ "${2:-}" = "--keep" ] && keep=${3:?--keep needs a folder}

sudo_cmd=()
[ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)
work=$(mktemp -d /tmp/beamscope-package.XXXXXX)
passed=0
failed=0
cleanup() {
    if dpkg-query -W -f='${Status}' beamscope 2>/dev/null | grep -q "install ok installed"; then
        "${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq beamscope >/dev/null
    fi
    rm -rf "$work"
}
trap cleanup EXIT

check() { # check NAME COMMAND...: runs it, counts it, shows its output when it fails
    local name=$1
    shift
    if "$@" >"$work/out.txt" 2>&1; then
        echo "package check: $name: ok"
        passed=$((passed + 1))
    else
        echo "package check: $name: FAILED"
        sed 's/^/    /' "$work/out.txt"
        failed=$((failed + 1))
    fi
}

# As a user's shell would have it: no Beamscope, Halide or Qt variables, no display.
clean_env=(env -i PATH=/usr/bin:/bin HOME="$work/home" LANG=C.UTF-8)
mkdir -p "$work/home"

echo "package check: building the package from $build"
(cd "$build" && cpack -G DEB -B "$work/cpack" >"$work/cpack.log" 2>&1) || { cat "$work/cpack.log"; exit 1; }
deb=$(ls "$work"/cpack/beamscope_*_amd64.deb)
echo "package check: $(basename "$deb"), $(du -h "$deb" | cut -f1)"
dpkg-deb --field "$deb" Package Version Architecture Depends Recommends | sed 's/^/    /'
[ -n "$keep" ] && mkdir -p "$keep" && cp "$deb" "$keep/"

# lintian: errors fail the check; warnings are printed (the README's Install section explains them).
lintian_ok() {
    lintian --tag-display-limit 0 "$deb" | tee "$work/lintian.txt"
    ! grep -q '^E:' "$work/lintian.txt"
}
check "lintian reports no error" lintian_ok

if dpkg-query -W -f='${Status}' beamscope 2>/dev/null | grep -q "install ok installed"; then
    "${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq beamscope >/dev/null
fi
check "apt installs the package" "${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$deb"

validate_weights() {
    "${clean_env[@]}" beamscope-cli weights validate /usr/share/beamscope/weights/anderson2021/*.weights \
        /usr/share/beamscope/weights/adams2019/baseline.weights | tee "$work/validate.txt"
    grep -q "19 of 19 valid" "$work/validate.txt"
}
check "installed beamscope-cli validates the installed weights" validate_weights

weights_by_name() {
    "${clean_env[@]}" beamscope-cli weights list | tee "$work/list.txt"
    grep -q "/usr/share/beamscope/weights/anderson2021/bilateral_grid.weights" "$work/list.txt"
    "${clean_env[@]}" beamscope-cli weights inspect bilateral_grid --json | grep -q '"valid": true'
}
check "installed beamscope-cli finds the shipped weights by name" weights_by_name

search_with_shipped_weights() {
    # No --weights: an app's own hold-one-out file, from the installed folder, said on stderr.
    "${clean_env[@]}" beamscope-cli autoschedule --app harris --beam 1 2>&1 | tee "$work/autoschedule.txt"
    grep -q "using harris.weights: the hold-one-out file for harris .*/usr/share/beamscope/weights/" "$work/autoschedule.txt"
    grep -q "predicted cost" "$work/autoschedule.txt"
}
check "installed beamscope-cli searches an app with its own shipped hold-one-out weights" search_with_shipped_weights

bench_finds_its_worker() {
    "${clean_env[@]}" beamscope-cli bench --app box_blur --target host --reps 2 2>&1 | tee "$work/bench.txt"
    ! grep -q "worker missing" "$work/bench.txt"
}
check "installed beamscope-cli times a pipeline in the installed bench worker" bench_finds_its_worker

explorer_without_display() {
    "${clean_env[@]}" beamscope --help | grep -q -- "--workspace"
    "${clean_env[@]}" beamscope --version | grep -q "beamscope"
    local status=0
    "${clean_env[@]}" beamscope --no-such-option 2>"$work/usage.txt" || status=$?
    [ "$status" -eq 2 ] && grep -q "no-such-option" "$work/usage.txt"
}
check "installed explorer answers --help, --version and usage errors without a display" explorer_without_display

plugin_schedules_generator() {
    local generator="$build/tests/plugin/beamscope_tiny_blur_generator"
    local plugin
    plugin=$(dpkg -L beamscope | grep 'libbeamscope_autoschedule\.so$')
    mkdir -p "$work/plugin"
    "${clean_env[@]}" "$generator" -g tiny_blur -f tiny_blur -o "$work/plugin" -e static_library,c_header,schedule \
        -p "$plugin" -s Beamscope target=host-cuda auto_schedule=true 2>&1 | tee "$work/plugin.txt"
    test -s "$work/plugin/tiny_blur.schedule.h"
    grep -q "using the shipped /usr/share/beamscope/weights/anderson2021/baseline.weights" "$work/plugin.txt"
}
check "installed plugin schedules a generator with the shipped weights" plugin_schedules_generator

out_of_tree_cmake_project() {
    "${clean_env[@]}" cmake -S "$source_dir/examples/halide-plugin" -B "$work/example" -DCMAKE_BUILD_TYPE=Release
    "${clean_env[@]}" cmake --build "$work/example" -j "$(nproc)"
    test -s "$work/example/blur_opencl.schedule.h"
    grep -q "gpu_blocks\|gpu_threads" "$work/example/blur_opencl.schedule.h"
    "${clean_env[@]}" ctest --test-dir "$work/example" --output-on-failure
}
check "out-of-tree CMake project schedules and runs its generator with find_package(Beamscope)" out_of_tree_cmake_project

own_generator_project() {
    # A user's own generator (examples/own-generator): scheduled by the installed plugin with its search
    # recorded, then the generator library and that recorded search opened by the installed programs.
    "${clean_env[@]}" cmake -S "$source_dir/examples/own-generator" -B "$work/own" -DCMAKE_BUILD_TYPE=Release
    "${clean_env[@]}" cmake --build "$work/own" -j "$(nproc)"
    "${clean_env[@]}" ctest --test-dir "$work/own" --output-on-failure
    local library="$work/own/libedge_generators.so"
    local trace="$work/own/beamscope-traces/edges_opencl.beamscope-trace.jsonl"
    "${clean_env[@]}" beamscope-cli generators "$library" --json | grep -q '"name": "edges"'
    "${clean_env[@]}" beamscope-cli autoschedule --generator "$library" --name edges --param threshold=0.2 \
        --beam 1 --weights bilateral_grid | grep -q "gpu_blocks"
    "${clean_env[@]}" QT_QPA_PLATFORM=offscreen beamscope --trace "$trace" --generator "$library" \
        --size 1280x800 --screenshot "$work/own-trace.png" 2>"$work/own-trace.txt"
    test -s "$work/own-trace.png"
}
check "a user's own generator: scheduled with its search recorded, opened by the installed CLI and explorer" own_generator_project

remove_package() {
    "${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq beamscope
    ! command -v beamscope-cli
    test ! -e /usr/share/beamscope
}
check "apt removes the package without leftovers" remove_package

echo "package: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
