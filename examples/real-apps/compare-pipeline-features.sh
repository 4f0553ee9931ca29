#!/bin/bash
# Holds Beamscope's pipeline features of a generator's stages against Halide 14's own
# featurization of the same algorithm (Debian's libautoschedule_adams2019.so, whose FunctionDAG
# dump at HL_DEBUG_AUTOSCHEDULE=2 prints every stage's op histogram and access patterns).
#
#   examples/real-apps/compare-pipeline-features.sh GENERATOR APP [PLUGIN]
#
# Prints one line per stage that differs (feature, Halide 14's count, Beamscope's) and a summary
# line "APP: N stages compared, M differ". Adams2019's dump prints only the scalar types a stage
# uses (types_in_use), so cells of other types are not compared. Exit 1 when a stage differs.
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
generator=${1:?usage: $0 GENERATOR APP [PLUGIN]}
app=${2:?usage: $0 GENERATOR APP [PLUGIN]}
plugin=${3:-$here/build/ci/core/plugin/libbeamscope_autoschedule.so}
adams=${ADAMS2019:-/usr/lib/x86_64-linux-gnu/halide14/libautoschedule_adams2019.so}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/a" "$work/b"
HL_DEBUG_AUTOSCHEDULE=2 HL_BEAM_SIZE=1 "$generator" -g "$app" -o "$work/a" -e schedule -p "$adams" -s Adams2019 \
    target=host auto_schedule=true machine_params=80,16777216,40 >"$work/halide14.log" 2>&1
# Beamscope prints its pipeline features when costing a complete state: its own beam-1 winner,
# whose debug log reads back as HL_PARTIAL_SCHEDULE.
HL_BEAM_SIZE=1 HL_DEBUG_AUTOSCHEDULE=1 "$generator" -g "$app" -o "$work/b" -e schedule -p "$plugin" -s Beamscope \
    target=host-cuda-cuda_capability_70 auto_schedule=true machine_params=80,16777216,40 >"$work/search.log" 2>&1
HL_PARTIAL_SCHEDULE="$work/search.log" BEAMSCOPE_COST_ONLY=1 HL_BEAM_SIZE=1 "$generator" -g "$app" -o "$work/b" \
    -e schedule -p "$plugin" -s Beamscope target=host-cuda-cuda_capability_70 auto_schedule=true \
    machine_params=80,16777216,40 >"$work/beamscope.log" 2>&1
awk -v app="$app" '
    FNR == 1 { file++ }
    file == 1 && /^Node: / { node = $2; next }
    file == 1 && /^  Stage [0-9]+:/ { stage = node "_s" substr($2, 1, length($2) - 1); stages[stage] = 1; next }
    file == 1 && /^Schedule features/ { stage = ""; next }
    file == 1 && /^  pointwise:/ { stage = ""; next }
    file == 1 && /^    Featurization for type / { type = $4; used[stage, type] = 1; next }
    file == 1 && stage != "" && /^      [A-Za-z]+: +[0-9]+ *$/ {
        name = $1; sub(":", "", name); if (name == "Constant") name = "Const"
        if ($2 != 0) h14[stage, name "." type] = $2
        next
    }
    file == 1 && stage != "" && /^      (Pointwise|Transpose|Broadcast|Slice): / {
        p = tolower(substr($1, 1, length($1) - 1)); split("LoadFunc LoadSelf LoadImage Store", col, " ")
        for (i = 1; i <= 4; i++) if ($(i + 1) != 0) h14[stage, p "." col[i] "." type] = $(i + 1)
        next
    }
    file == 2 && /^Beamscope: stage / { stage = $3; ours_stages[stage] = 1; next }
    file == 2 && /^    pipeline / {
        key = $2; type = key; sub(/.*\./, "", type)
        if (used[stage, type]) ours[stage, key] = $3
        next
    }
    END {
        compared = 0; differ = 0
        for (s in ours_stages) {
            if (!(s in stages)) { print s ": not in Halide 14 DAG"; differ++; continue }
            compared++; bad = ""
            for (k in ours) { split(k, a, SUBSEP); if (a[1] == s && ours[k] != h14[k]) bad = bad " " a[2] ": halide14=" (h14[k] + 0) " beamscope=" ours[k] }
            for (k in h14) { split(k, a, SUBSEP); if (a[1] == s && !(k in ours)) bad = bad " " a[2] ": halide14=" h14[k] " beamscope=0" }
            if (bad != "") { print s ":" bad; differ++ }
        }
        printf "%s: %d stages compared, %d differ\n", app, compared, differ
        exit differ > 0
    }' "$work/halide14.log" "$work/beamscope.log"
