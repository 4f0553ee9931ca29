#!/bin/bash
# Costs the loop nests Halide's own Anderson2021 chose for its apps with Beamscope's plugin, and
# puts the two costs side by side.
#
#   examples/real-apps/cost-halide-dumps.sh FOLDER [PLUGIN] [WEIGHTS_DIR]
#
# FOLDER holds, per app, <app>/<app>.generator (a Halide 14 generator executable),
# <app>/halide_<weights>.loop_nest.txt (the final loop nest of Halide's search, LoopNest::dump form)
# and a costs.tsv whose first three columns are app, weights and Halide's "Best cost". PLUGIN
# defaults to the ci build's libbeamscope_autoschedule.so, WEIGHTS_DIR to the shipped
# weights/anderson2021. Each row runs the generator with HL_PARTIAL_SCHEDULE and
# BEAMSCOPE_COST_ONLY=1 (the plugin costs the given state, it does not search) and the target and
# machine parameters Halide's searches used. Prints one TSV row per costs.tsv row; the per-stage
# costs and features are left in $OUT/<app>-<weights>.log, the features as Halide's featurization in
# $OUT/<app>-<weights>/<app>.featurization (OUT defaults to a temporary folder).
#
# Then, per app with two rows (its own weights and baseline, each Halide's choice under those
# weights): beamscope-cli cost-gap over both, which lists the single pipeline-feature changes that
# would give Halide's two costs at once, into $OUT/<app>-cost-gap.txt (one line of it printed).
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
folder=${1:?usage: $0 FOLDER [PLUGIN] [WEIGHTS_DIR]}
plugin=${2:-$here/build/ci/core/plugin/libbeamscope_autoschedule.so}
cli=${CLI:-$(dirname "$plugin")/../../app/beamscope-cli}
weights=${3:-$here/weights/anderson2021}
out=${OUT:-$(mktemp -d)}
[ -f "$folder/costs.tsv" ] || { echo "$0: $folder/costs.tsv: no such file" >&2; exit 1; }
[ -f "$plugin" ] || { echo "$0: $plugin: no such plugin (build the ci preset first)" >&2; exit 1; }
echo -e "app\tweights\thalide_cost\tbeamscope_cost\trelative_difference"
tail -n +2 "$folder/costs.tsv" | while IFS=$'\t' read -r app w halide _; do
    log=$out/$app-$w.log
    mkdir -p "$out/$app-$w"
    if HL_PARTIAL_SCHEDULE="$folder/$app/halide_$w.loop_nest.txt" HL_WEIGHTS_DIR="$weights/$w.weights" \
        BEAMSCOPE_COST_ONLY=1 HL_BEAM_SIZE=32 HL_SEED=0 \
        "$folder/$app/$app.generator" -g "$app" -o "$out/$app-$w" -e schedule,featurization -p "$plugin" -s Beamscope \
        target=host-cuda-cuda_capability_70 auto_schedule=true machine_params=80,16777216,40 >"$log" 2>&1; then
        ours=$(sed -n 's/.*(complete, [0-9]* Funcs): \([0-9.e+-]*\)$/\1/p' "$log" | head -1)
        rel=$(awk -v a="$ours" -v b="$halide" 'BEGIN { printf "%+.4f", (a - b) / b }')
        echo -e "$app\t$w\t$halide\t$ours\t$rel"
    else
        echo -e "$app\t$w\t$halide\t-\t$(grep -m1 -i error "$log" | cut -c1-120)"
    fi
done

# The apps with both rows costed: what single change of the algorithm's features explains both.
tail -n +2 "$folder/costs.tsv" | cut -f1 | sort -u | while read -r app; do
    rows=$(awk -F'\t' -v a="$app" '$1 == a { print $2 "=" $3 }' "$folder/costs.tsv")
    files=() targets=()
    for row in $rows; do
        f=$out/$app-${row%%=*}/$app.featurization
        [ -f "$f" ] || continue 2
        files+=("$f")
        targets+=(--target "$weights/${row%%=*}.weights=${row#*=}")
    done
    names=$(sed -n 's/^Beamscope: stage \([^ ]*\) cost .*/\1/p' "$out/$app-${rows%%=*}.log" | paste -sd,)
    "$cli" cost-gap "${files[@]}" "${targets[@]}" --stage-names "$names" --top 10 >"$out/$app-cost-gap.txt"
    echo "$app: closest single change: $(awk '/^single feature changes/ { getline; getline; print; exit }' "$out/$app-cost-gap.txt")"
done
