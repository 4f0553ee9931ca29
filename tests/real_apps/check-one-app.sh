#!/bin/bash
# Checks one app file against Halide's outputs for it without rebuilding the
# project: compiles core/pipelines/app_APP.cpp and the report (real_app_report.cpp)
# and links them against already-built libraries, then runs the report.
#
#   tests/real_apps/check-one-app.sh APP FUNCTION [LIBDIR]
#
# APP: e.g. camera_pipe; FUNCTION: its builder in apps_common.h, e.g. cameraPipe.
# LIBDIR: the static libraries (default build/ci); several people checking apps at
# once can share one copy of them (cp build/ci/core/*.a build/ci/tests/real_apps/*.a DIR).
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
app=${1:?usage: $0 APP FUNCTION [LIBDIR]}
function=${2:?usage: $0 APP FUNCTION [LIBDIR]}
libs=${3:-}
if [ -z "$libs" ]; then
    libs=$(mktemp -d)
    trap 'rm -rf "$libs"' EXIT
    cp "$here"/build/ci/core/*.a "$here"/build/ci/tests/real_apps/libbeamscope_real_app_check.a "$libs"/
fi
out=${TMPDIR:-/tmp}/real-app-report-$app
flags=(-std=c++20 -O1 -g0 -Wall -Wextra -Werror -Wshadow=local -DBEAMSCOPE_HAVE_HALIDE=1 -DHALIDE_ENABLE_RTTI
       -DHALIDE_WITH_EXCEPTIONS -I"$here" -isystem /usr/include/halide14)
c++ "${flags[@]}" -DREAL_APP_FUNCTION="$function" "$here/core/pipelines/app_$app.cpp" \
    "$here/tests/real_apps/real_app_report.cpp" -o "$out" \
    "$libs/libbeamscope_real_app_check.a" "$libs"/libbeamscope_{autotune,samples,session,schedule,search,bench}.a \
    "$libs"/libbeamscope_{pipelines,dag,model,weights,gpu,util}.a /usr/local/cuda/lib64/libcudart_static.a \
    -lz -ldl -lrt -lpthread /usr/lib/x86_64-linux-gnu/libHalide14.so.0
cd "$here"
exec "$out" "$app" "$here/tests/fixtures/halide/real_apps" "$here/weights/anderson2021"
