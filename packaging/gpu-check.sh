#!/usr/bin/env bash
# The GPU check: on a machine with an NVIDIA GPU (and ideally 16 cores), in
# under 10 minutes, writes a report folder with
#   device.json        the local GPU beside the V100 profile (beamscope-cli device)
#   study/             a reduced device study on CUDA (4 apps): Halide's V100 hold-one-out files against
#                      the same files fine-tuned on this GPU's samples, picks timed here (report.md, report.json,
#                      plots/); the same table as the 2-core study in docs/device-study-2026-12-07.md
#   check-apps.json    every built-in app autoscheduled for the local GPU and compiled for CUDA
#   bench-<app>.json   real CUDA runs of a few apps (hand-written GPU schedules) against the host reference
#   samples/           one autotune batch of those apps on the GPU: searched schedules timed with CUDA, each
#                      app's first checked against the host reference (.sample files, records, manifest)
#   summary.txt        beamscope-cli samples summary of them
#   compare-weights.txt  Halide's V100 weights (per-app hold-one-out, gpu.weights, baseline) ranking those samples
#   bench-autotune.txt the autotune throughput figures (bench_autotune --target cuda)
# usage: packaging/gpu-check.sh [--study-only] [REPORT_DIR]   (default gpu-check-<date>)
# --study-only: the build, device.json and the study, nothing else (about 5 minutes on an H100
# with 16 cores, most of it the build). Needs the dependencies of packaging/install-deps.sh and the
# NVIDIA driver.
set -euo pipefail
cd "$(dirname "$0")/.."
study_only=0
if [ "${1:-}" = --study-only ]; then
    study_only=1
    shift
fi
report="${1:-gpu-check-$(date +%Y%m%d-%H%M%S)}"
mkdir -p "$report"
report="$(cd "$report" && pwd)"
jobs="$(nproc)"
started=$SECONDS
step() { echo "gpu-check: [$((SECONDS - started)) s] $*" | tee -a "$report/log.txt"; }

command -v nvidia-smi > /dev/null && nvidia-smi > "$report/nvidia-smi.txt" 2>&1 || true
step "building (release preset, $jobs jobs)"
cmake --preset release > "$report/build.log" 2>&1
cmake --build --preset release -j "$jobs" --target beamscope-cli beamscope-bench-worker bench_autotune >> "$report/build.log" 2>&1
cli=build/release/app/beamscope-cli
export BEAMSCOPE_BENCH_WORKER="$PWD/build/release/app/beamscope-bench-worker"

step "device"
"$cli" device --json > "$report/device.json"
if ! command -v nvidia-smi > /dev/null; then
    step "no nvidia-smi: this check needs an NVIDIA GPU and its driver (see device.json)"
    exit 1
fi

# The study first: it is what this check exists for, and it must fit the machine's time.
step "device study on CUDA: 4 apps, 2 batches of 8, fine-tunes, picks timed in 10 interleaved rounds"
"$cli" device-study --out "$report/study" --target cuda --profile local --app conv_layer --app cuda_mat_mul \
    --app depthwise_separable_conv --app unsharp --random 2 --random-stages 4 --batches 2 --batch-size 8 \
    --min-batch 6 --loop-epochs 30 --fine-tune-epochs 30 --pick-rounds 10 --pick-reps 5 --sample-reps 5 \
    --scale 1 --jobs "$jobs" --compile-timeout 120 --bench-timeout 10 2> "$report/study.log" || true
[ -f "$report/study/report.md" ] && cat "$report/study/report.md" > "$report/study-report.md"
if [ "$study_only" = 1 ]; then
    step "done: $report (study only)"
    [ -f "$report/study-report.md" ] && sed -n '/^## Picks/,/^## Rank/p' "$report/study-report.md"
    exit 0
fi

step "check-apps: every app searched for the local GPU, compiled for CUDA"
"$cli" check-apps --profile local --beam 8 --jobs "$jobs" --no-opencl --json > "$report/check-apps.json" || true

apps=(conv_layer cuda_mat_mul depthwise_separable_conv unsharp bilateral_grid)
for app in "${apps[@]}"; do
    step "bench $app on CUDA (its hand-written GPU schedule against the host reference)"
    "$cli" bench --app "$app" --target cuda --schedule gpu --reps 10 --json > "$report/bench-$app.json" 2>> "$report/log.txt" || true
done

step "autotune: one batch of ${#apps[@]} apps and 2 random pipelines on the GPU"
args=()
for app in "${apps[@]}"; do args+=(--app "$app"); done
"$cli" autotune --out "$report/samples" "${args[@]}" --random 2 --target cuda --profile local \
    --batch-size 16 --first-beam 8 --jobs "$jobs" --no-retrain --seed 1 2> "$report/autotune.log"
"$cli" samples summary "$report/samples" > "$report/summary.txt"

step "compare-weights: Halide's V100 weights on these local samples"
"$cli" compare-weights --samples "$report/samples" --weights halide-hold-one-out --weights gpu --weights baseline \
    > "$report/compare-weights.txt"

step "bench_autotune on CUDA"
build/release/bench/autotune/bench_autotune --target cuda --jobs "$jobs" > "$report/bench-autotune.txt" 2>&1 || true

step "done: $report"
cat "$report/compare-weights.txt"
