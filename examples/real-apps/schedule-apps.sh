#!/bin/bash
# Schedules Halide's own app generators with Beamscope's plugin and compiles the result for CUDA.
#
#   examples/real-apps/schedule-apps.sh FOLDER [BEAM] [PLUGIN] [WEIGHTS_DIR] [APP...]
#
# FOLDER holds <app>/<app>.generator (Halide 14 generator executables, e.g. shared/golden/real_apps).
# Each app is searched at BEAM (default 32) with its own hold-one-out weights (<app>.weights from
# WEIGHTS_DIR, default the shipped weights/anderson2021), the machine parameters Halide's searches used,
# and emitted as a CUDA static library (PTX: no GPU needed). Prints one TSV row per app: exit status,
# wall seconds, Beamscope's predicted cost (from the plugin's HL_DEBUG_AUTOSCHEDULE line), and whether
# the library was written; the logs are left in $OUT/<app>.log (OUT defaults to a temporary folder).
# The generators run without GenGen's 15-minute limit (-t 0): lens_blur (80 stages) can take longer
# at beam 32 on a small machine.
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
folder=${1:?usage: $0 FOLDER [BEAM] [PLUGIN] [WEIGHTS_DIR] [APP...]}
beam=${2:-32}
plugin=${3:-$here/build/ci/core/plugin/libbeamscope_autoschedule.so}
weights=${4:-$here/weights/anderson2021}
shift $(($# < 4 ? $# : 4))
apps=("$@")
[ ${#apps[@]} -gt 0 ] || apps=(hist iir_blur unsharp bilateral_grid camera_pipe lens_blur)
out=${OUT:-$(mktemp -d)}
[ -f "$plugin" ] || { echo "$0: $plugin: no such plugin (build the ci preset first)" >&2; exit 1; }
echo -e "app\texit\tseconds\tpredicted_cost\tcuda_library"
for app in "${apps[@]}"; do
    log=$out/$app.log
    mkdir -p "$out/$app"
    start=$(date +%s.%N)
    HL_WEIGHTS_DIR="$weights/$app.weights" HL_BEAM_SIZE=$beam HL_SEED=0 HL_DEBUG_AUTOSCHEDULE=1 \
        "$folder/$app/$app.generator" -g "$app" -o "$out/$app" -e static_library,h,schedule -p "$plugin" \
        -s Beamscope -t 0 target=host-cuda-cuda_capability_70 auto_schedule=true machine_params=80,16777216,40 \
        >"$log" 2>&1
    status=$?
    seconds=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }')
    cost=$(sed -n 's/.* states, .* s, predicted cost \([0-9.e+-]*\)$/\1/p' "$log" | tail -1)
    library=$([ -s "$out/$app/$app.a" ] && echo written || echo missing)
    echo -e "$app\t$status\t$seconds\t${cost:--}\t$library"
done
