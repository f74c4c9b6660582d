#!/usr/bin/env bash
# Run ON a 4-GPU machine from the repository root, in one device call (issue 21, item 2): the
# incumbent engine on the classes it decides, 100x20 and 200x20 (ta081-ta090, ta101-ta110).
#   1. build pfsp and pfsp_bench_heuristic (bench/harness/device_engine.sh build);
#   2. the engine alone, CPU only, configurations side by side on disjoint 8-core sets
#      (device_engine.sh pinned: PINNED THREADS:BEAM pairs, ENGINE_SECONDS per run);
#   3. the whole solver from scratch with the default options for SWEEP_LIMIT seconds, one process
#      per GPU (bench/harness/sweep_taillard.sh).
# Leaves at most 8 files under $OUT (what a device call brings back): engine.log, the merged
# pinned_*.json, sweep.tsv, sweep.json and big60.tgz (every part and log).
#
#   PFSP_COMMIT=<sha> bench/harness/device_big60.sh        (device call: kind nvidia-h100-x4, carry .deps and shared)
#   PINNED="8:0 8:2 8:4" ENGINE_SECONDS=20 SWEEP_LIMIT=60 SETS="ta081 ... ta110"
set -u -o pipefail
ROOT=$PWD
OUT=${OUT:-$ROOT/out/device}
BUILD=${BUILD:-$ROOT/build/device}
SETS=${SETS:-$(for i in $(seq 81 90) $(seq 101 110); do printf 'ta%03d ' "$i"; done)}
mkdir -p "$OUT"
OUT=$OUT BUILD=$BUILD STAGES=${ENGINE_STAGES:-build,pinned} TARGETS="pfsp pfsp_bench_heuristic" INSTANCES="${SETS// /,}" \
  SECONDS_PER_RUN=${ENGINE_SECONDS:-20} PINNED=${PINNED:-"8:0 8:2 8:4"} bash "$ROOT/bench/harness/device_engine.sh" || exit 1
OUT=$OUT PFSP=$BUILD/pfsp LIMIT=${SWEEP_LIMIT:-60} INSTANCES="$SETS" bash "$ROOT/bench/harness/sweep_taillard.sh" |
  tail -3 | tee -a "$OUT/engine.log"
cp "$OUT"/sweep/sweep.tsv "$OUT"/sweep/sweep.json "$OUT"/ 2>/dev/null
parts=$(cd "$OUT" && ls -d pinned_parts sweep configure.log build.log sweep_logs.tgz 2>/dev/null)
(cd "$OUT" && tar czf big60.tgz $parts && rm -rf $parts)
ls "$OUT"
