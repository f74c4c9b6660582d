#!/usr/bin/env bash
# Run ON the GPU machine from the repository root: the incumbent engine's GPU measurements
# (docs/decisions/012-incumbent-engine.md). Builds pfsp, pfsp_bench_heuristic and test_gpu_walkers
# for sm_90, runs the walkers' GPU tests, then pfsp_bench_heuristic with CPU walker threads, GPU
# walkers, and both, on the same instances and seconds (one JSON per configuration under $OUT).
#
#   STAGES=build,test,bench INSTANCES=ta081,ta111 SECONDS_PER_RUN=10 CONFIGS="1:0 8:0 0:-1 8:-1" bench/harness/device_engine.sh
#
# CONFIGS: CPU_THREADS:GPU_WALKERS pairs (-1: two walkers per multiprocessor). Stage pinned: CPU-only
# pairs THREADS:BEAM side by side on disjoint cores (PINNED="8:0 8:2" CORES_PER=8). Dependencies the
# machine lacks come as .deb files in .deps/ (bench/harness/device_run.sh does the same).
set -u -o pipefail
ROOT=$PWD
OUT=${OUT:-$ROOT/out/device}
BUILD=${BUILD:-$ROOT/build/device}
STAGES=${STAGES:-build,test,bench}
INSTANCES=${INSTANCES:-ta081,ta111}
SECONDS_PER_RUN=${SECONDS_PER_RUN:-10}
CONFIGS=${CONFIGS:-"1:0 8:0 0:-1 8:-1"}
mkdir -p "$OUT"
LOG=$OUT/engine.log
has() { [[ ",$STAGES," == *",$1,"* ]]; }
say() { echo "== $(date +%T) $*" | tee -a "$LOG"; }
say "device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1); host: $(nproc) cores"
PREFIX=$ROOT/.deps/root/usr
if ls .deps/*.deb >/dev/null 2>&1; then
  mkdir -p .deps/root
  for f in .deps/*.deb; do dpkg -x "$f" .deps/root; done
fi
if has build; then
  cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH="$PREFIX" \
    -DPFSP_SHARED_DATA_DIR="$ROOT/shared/data" -DPFSP_COMMIT="${PFSP_COMMIT:-}" >"$OUT/configure.log" 2>&1 || { tail -30 "$OUT/configure.log"; exit 1; }
  cmake --build "$BUILD" -j"$(nproc)" --target ${TARGETS:-pfsp pfsp_bench_heuristic test_gpu_walkers} >"$OUT/build.log" 2>&1 ||
    { grep -E "error" -A5 "$OUT/build.log" | head -60; exit 1; }
  say "built"
fi
if has test; then
  "$BUILD"/tests/gpu/test_gpu_walkers 2>&1 | tail -25 | tee -a "$LOG"
fi
if has bench; then
  for c in $CONFIGS; do
    t=${c%%:*} g=${c##*:}
    say "bench: $t CPU threads, $g GPU walkers"
    "$BUILD"/pfsp_bench_heuristic --instances "$INSTANCES" --seconds "$SECONDS_PER_RUN" --threads "$t" --gpu-walkers "$g" \
      --json "$OUT/engine_t${t}_g${g}.json" 2>/dev/null | tee -a "$LOG"
  done
fi
if has pinned; then
  # CPU-only configurations side by side, each run taskset to its own CORES_PER cores: PINNED is a
  # list of THREADS:BEAM pairs (pfsp_bench_heuristic --threads --beam); every (pair, instance) run is
  # a job, the jobs spread over the host's cores / CORES_PER slots. One merged JSON per pair:
  # $OUT/pinned_tT_bB.json (bench/engine_table.py heuristic reads it).
  CORES_PER=${CORES_PER:-8}
  SLOTS=$(($(nproc) / CORES_PER))
  PARTS=$OUT/pinned_parts
  mkdir -p "$PARTS"
  jobs=()
  for c in ${PINNED:-"8:0 8:2"}; do
    for name in ${INSTANCES//,/ }; do jobs+=("${c%%:*} ${c##*:} $name"); done
  done
  say "pinned: ${#jobs[@]} runs of $SECONDS_PER_RUN s on $SLOTS slots of $CORES_PER cores"
  for ((s = 0; s < SLOTS; s++)); do
    (
      for ((i = s; i < ${#jobs[@]}; i += SLOTS)); do
        read -r t b name <<<"${jobs[$i]}"
        taskset -c "$((s * CORES_PER))-$((s * CORES_PER + CORES_PER - 1))" "$BUILD"/pfsp_bench_heuristic --instances "$name" \
          --seconds "$SECONDS_PER_RUN" --threads "$t" --beam "$b" --json "$PARTS/t${t}_b${b}_$name.json" >/dev/null 2>&1
      done
    ) &
  done
  wait
  for c in ${PINNED:-"8:0 8:2"}; do
    t=${c%%:*} b=${c##*:}
    python3 - "$OUT/pinned_t${t}_b${b}.json" "$PARTS"/t${t}_b${b}_*.json <<'PY'
import json, sys
parts = [json.load(open(p)) for p in sorted(sys.argv[2:])]
merged = dict(parts[0])
merged["runs"] = [r for p in parts for r in p["runs"]]
merged["machine"]["command"] = "pfsp_bench_heuristic per instance, each run pinned to its own cores (bench/harness/device_engine.sh pinned)"
json.dump(merged, open(sys.argv[1], "w"), indent=1)
PY
    python3 - "$OUT/pinned_t${t}_b${b}.json" <<'PY' | tee -a "$LOG"
import json, sys, collections
d = json.load(open(sys.argv[1])); by = collections.defaultdict(list)
for r in d["runs"]: by[f"{r['n']}x{r['m']}"].append(r["deviation_percent"])
print(sys.argv[1].rsplit("/", 1)[-1], "; ".join(f"{k}: {sum(v)/len(v):.3f} % ({len(v)})" for k, v in sorted(by.items())))
PY
  done
fi
if has rate; then
  # What the GPU walkers cost the search on the same GPU: node rate on ta056 slices with and without.
  for g in 0 -1; do
    "$BUILD"/pfsp solve ta056 --ub 3680 --time-limit "${RATE_LIMIT:-10}" --gpu-walkers "$g" --json "$OUT/rate_ta056_g${g}.json" \
      --no-progress >/dev/null 2>&1
    say "ta056 --ub 3680 --gpu-walkers $g: $(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(d['nodes']['branched'], 'nodes in', round(d['time_seconds'],2), 's:', round(d['nodes']['branched']/d['time_seconds']/1e6,1), 'M nodes/s')" "$OUT/rate_ta056_g${g}.json")"
  done
fi
if has solve; then
  # Default solves from scratch (SOLVE_SET, SOLVE_LIMIT s each): status, makespan, bound, time.
  for name in ${SOLVE_SET:-ta111}; do
    "$BUILD"/pfsp solve "$name" --time-limit "${SOLVE_LIMIT:-30}" --json "$OUT/solve_$name.json" --no-progress >/dev/null 2>&1
    say "$name: rc=$? $(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(d['status'], d['makespan'], d['lower_bound'], round(d['wall_seconds'],2), 's;', '; '.join(n for n in d['notes'] if 'engine' in n))" "$OUT/solve_$name.json")"
  done
fi
say "done"
