#!/usr/bin/env bash
# Makes the README's screenshots (docs/screenshots/*.png) with the explorer's
# own screenshot mode (`beamscope --workspace ... --screenshot FILE.png`),
# under a virtual X server (xvfb-run), so every picture can be made again:
#
#   packaging/take-screenshots.sh [--build DIR] [--out DIR] [--study DIR] [NAME...]
#
# NAME is any of: first-start weights-workspace weights-compare search search-compare search-navigate search-beam-measured pipeline
# device retrain predictions autotune device-weights own-generator device-study autotune-batches (default: all).
# device-study and autotune-batches show a device study (beamscope-cli device-study): the one
# --study names, else a --quick one made here (two apps, a few minutes). Each is taken at
# 1600x1000 (NAME.png, the README's) and at a laptop's 1280x800 (NAME-1280x800.png),
# or only at --sizes LIST (comma-separated WxH). --build is a configured build
# folder with Halide and the GUI (default build/dev; the explorer and the bench
# worker are built there first); --out where the PNGs go (default
# docs/screenshots). The weights are the shipped ones (weights/), the samples
# Halide's retrain set (tests/fixtures/halide/samples). Each picture uses fresh settings; the retrained
# weights and the sample layout live in $TMPDIR/beamscope-screenshots, removed
# at the end.
set -euo pipefail
cd "$(dirname "$0")/.."

build=build/dev
out=docs/screenshots
study=
names=()
sizes=(1600x1000 1280x800)
while [ $# -gt 0 ]; do
    case "$1" in
        --build) build="$2"; shift 2 ;;
        --out) out="$2"; shift 2 ;;
        --sizes) IFS=, read -r -a sizes <<< "$2"; shift 2 ;;
        --study) study="$2"; shift 2 ;;
        -h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        -*) echo "take-screenshots: unknown option $1" >&2; exit 2 ;;
        *) names+=("$1"); shift ;;
    esac
done
[ ${#names[@]} -eq 0 ] && names=(first-start weights-workspace weights-compare search search-compare search-navigate search-beam-measured pipeline device retrain predictions autotune device-weights own-generator device-study autotune-batches)

weights=weights/anderson2021
samples_src=tests/fixtures/halide/samples/retrain_set
command -v xvfb-run >/dev/null || { echo "take-screenshots: xvfb-run not found (apt-get install xvfb xauth)" >&2; exit 1; }
[ -f "$build/CMakeCache.txt" ] || cmake --preset dev >/dev/null
cmake --build "$build" --target beamscope beamscope-cli beamscope-bench-worker
# The explorer finds beamscope-cli beside itself (generator libraries are looked at in it first).
explorer="$build/app/beamscope"
mkdir -p "$out"

# A fixed folder, not mktemp's random name: its path shows in the Retrain and Predictions pictures.
tmp="${TMPDIR:-/tmp}/beamscope-screenshots"
rm -rf "$tmp"
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
# The golden retrain set, one folder per app, so Retrain can hold one out (docs/samples.md).
for f in "$samples_src"/*.sample; do
    app="$(basename "$f" | sed 's/_seed[0-9]*\.sample$//')"
    mkdir -p "$tmp/samples/$app"
    ln -s "$(realpath "$f")" "$tmp/samples/$app/"
done

picture() { # NAME SIZE: the file of one picture (the 1600x1000 one keeps the plain name the README uses)
    if [ "$2" = 1600x1000 ]; then echo "$out/$1.png"; else echo "$out/$1-$2.png"; fi
}

shoot() { # NAME ARGS...: the picture at every size, each in its own X server
    local name="$1" size
    shift
    for size in "${sizes[@]}"; do
        echo "take-screenshots: $name at $size" >&2
        xvfb-run -a -s "-screen 0 1920x1200x24" "$explorer" --size "$size" --screenshot "$(picture "$name" "$size")" "$@"
    done
}

for name in "${names[@]}"; do
    case "$name" in
        first-start) # what a fresh explorer opens on, with no option at all
            shoot "$name" ;;
        weights-workspace)
            shoot "$name" "$weights/harris.weights" ;;
        weights-compare)
            shoot "$name" --compare "$weights/bgu.weights" "$weights/harris.weights" ;;
        search)
            shoot "$name" --workspace search --app bilateral_grid --weights "$weights/bilateral_grid.weights" \
                --beam 8 --passes 3 --tab cost --measure opencl ;;
        search-compare) # camera_pipe's winner beside the runner-up of its final beam
            shoot "$name" --workspace search --app camera_pipe --weights "$weights/camera_pipe.weights" \
                --beam 2 --passes 1 --compare-runner-up --tab cost ;;
        search-navigate) # camera_pipe's final beam below the tree, the finds on "inline" alone
            shoot "$name" --workspace search --app camera_pipe --weights "$weights/camera_pipe.weights" \
                --beam 8 --passes 1 --func inline --hide-unmatched --final-beam --tab path ;;
        search-beam-measured) # camera_pipe's final beam timed on OpenCL: predicted against measured
            shoot "$name" --workspace search --app camera_pipe --weights "$weights/camera_pipe.weights" \
                --beam 8 --passes 1 --measure opencl --measure-beam --tab cost ;;
        own-generator) # a user's generator library: examples/own-generator's edge detector, built here
            if [ ! -f "$tmp/libedge_generators.so" ]; then
                c++ -std=c++17 -O1 -fPIC -shared -I/usr/include/halide14 examples/own-generator/edge_generator.cpp \
                    -o "$tmp/libedge_generators.so" -lHalide14
            fi
            shoot "$name" --generator "$tmp/libedge_generators.so" --name edges --param threshold=0.1 \
                --beam 4 --passes 1 --tab cost ;;
        pipeline)
            shoot "$name" --workspace pipeline --app unsharp --stage sharpen_s0 --bench host ;;
        device)
            shoot "$name" --workspace device --profile V100 ;;
        retrain|predictions)
            # Predictions puts the baseline beside the file Retrain trained, so both come from one run.
            if [ ! -f "$tmp/retrained.weights" ]; then
                for size in "${sizes[@]}"; do
                    shot="$(picture retrain "$size")"
                    [[ " ${names[*]} " == *" retrain "* ]] || shot="$tmp/retrain-$size.png"
                    echo "take-screenshots: retrain at $size" >&2
                    rm -f "$tmp/retrained.weights"
                    xvfb-run -a -s "-screen 0 1920x1200x24" "$explorer" --size "$size" --screenshot "$shot" \
                        --workspace retrain --samples "$tmp/samples" --weights "$weights/bilateral_grid.weights" \
                        --hold-out conv_relu --epochs 30 --learning-rate 0.001 --output "$tmp/retrained.weights"
                done
            fi
            if [ "$name" = predictions ]; then
                shoot predictions --workspace predictions --samples "$tmp/samples" \
                    --compare "$weights/bilateral_grid.weights" "$tmp/retrained.weights"
            fi ;;
        autotune|device-weights)
            # One small OpenCL autotune run (three golden pipelines, 12 schedules each) serves both pictures.
            if [ ! -f "$tmp/autotune/batches/batch_0000.json" ]; then
                echo "take-screenshots: autotune run" >&2
                "$build/app/beamscope-cli" autotune --out "$tmp/autotune" --app box_blur --app conv_relu \
                    --app select_cast --target opencl --batch-size 12 --first-beam 8 --scale 0.25 --reps 3 \
                    --no-retrain --seed 1 2> "$tmp/autotune.log"
            fi
            if [ "$name" = autotune ]; then
                shoot autotune --workspace autotune --samples "$tmp/autotune"
            else
                shoot device-weights --workspace device --samples "$tmp/autotune" \
                    "$weights/bilateral_grid.weights" "$weights/baseline.weights"
            fi ;;
        device-study|autotune-batches)
            if [ -z "$study" ]; then
                study="$tmp/study"
                echo "take-screenshots: device study (--quick)" >&2
                "$build/app/beamscope-cli" device-study --out "$study" --quick 2> "$tmp/study.log"
            fi
            if [ "$name" = device-study ]; then
                shoot device-study --workspace device --samples "$study"
            else # the loop of the study's app with the most measured schedules, batch by batch
                loop="$(for d in "$study"/loop/*/; do echo "$(grep -c $'\tok\t' "$d/records.tsv" 2>/dev/null || echo 0) $d"; done |
                    sort -k1,1nr -k2 | head -n 1 | cut -d' ' -f2-)"
                shoot autotune-batches --workspace autotune --samples "$loop" --tab batches
            fi ;;
        *) echo "take-screenshots: no picture named $name" >&2; exit 2 ;;
    esac
done
