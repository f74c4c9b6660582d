#!/usr/bin/env bash
# Run ON the GPU machine, from the repository root, after `STAGES=build bench/harness/device_run.sh`
# built this tree in build/device: builds an earlier tree (BEFORE_SRC, e.g. a `git archive` of
# the commit before a refactoring, carried as an ignored folder) into build/before, then
# compares the two on this machine (issue 12's "no behaviour change, no performance loss"):
#   nodes  - bench/harness/node_counts.sh for the GPU backends (device loop, host loop): must be equal
#   prove  - ta021-ta030 from --ub = the optimum with the defaults, before/after alternately,
#            COMPARE_REPS times (search seconds summed over the ten)
#   bounds - pfsp_gpu_bench's bounding throughput (LB1 and LB2 kernels, ta021 and ta051)
#   strategies - the same for every --gpu-strategy (LB2, branchless kernel, no sort): each
#            build's bounds checked against the CPU's, throughput before and after
# Writes $OUT/compare.txt (and logs under $OUT/compare_logs).
#   COMPARE_STAGES=build,nodes,prove,bounds  BEFORE_SRC=.before  COMPARE_REPS=2  JOBS=16
set -u -o pipefail
ROOT=$PWD
OUT=${OUT:-$ROOT/out/device}
BEFORE_SRC=${BEFORE_SRC:-$ROOT/.before}
STAGES=${COMPARE_STAGES:-build,nodes,prove,bounds}
JOBS=${JOBS:-$(nproc)}
L=$OUT/compare_logs
mkdir -p "$L"
R=$OUT/compare.txt
has() { [[ ",$STAGES," == *",$1,"* ]]; }
say() { echo "== $(date +%T) $*" | tee -a "$R"; }
OLD=$ROOT/build/before NEW=$ROOT/build/device
if has build; then
  ln -sfn "$ROOT/shared" "$BEFORE_SRC/shared" 2>/dev/null
  cmake -S "$BEFORE_SRC" -B "$OLD" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DCMAKE_PREFIX_PATH="$ROOT/.deps/root/usr" -DPFSP_SHARED_DATA_DIR="$ROOT/shared/data" \
    -DPFSP_COMMIT="${BEFORE_COMMIT:-before}" >"$L/configure_before.log" 2>&1
  cmake --build "$OLD" -j"$JOBS" --target pfsp pfsp_gpu_bench >"$L/build_before.log" 2>&1
  say "build before: rc=$?"
fi
if has nodes; then
  "$ROOT/bench/harness/node_counts.sh" "$OLD/pfsp" "gpu gpu-host" "${COMPARE_NODE_SET:-ta011 ta014 ta017 ta021}" >"$L/nodes_before.txt" 2>&1
  "$ROOT/bench/harness/node_counts.sh" "$NEW/pfsp" "gpu gpu-host" "${COMPARE_NODE_SET:-ta011 ta014 ta017 ta021}" >"$L/nodes_after.txt" 2>&1
  if diff "$L/nodes_before.txt" "$L/nodes_after.txt" >"$L/nodes_diff.txt"; then
    say "node counts: equal ($(wc -l <"$L/nodes_after.txt") runs, $(grep -c error "$L/nodes_after.txt") errors)"
  else
    say "node counts: DIFFER"; cat "$L/nodes_diff.txt" | tee -a "$R"
  fi
  cp "$L/nodes_after.txt" "$OUT/nodes_after.txt"
fi
prove_total() {  # binary label
  PFSP_BIN=$1 PROVE_UB=optimum "$ROOT/scripts/prove_taillard.sh" 21 30 >"$L/prove_$2.md" 2>&1
  local rc=$?
  awk -F'|' -v l="$2" -v rc=$rc 'NR > 2 && $3 ~ /proven_bound|optimal/ {t += $7; w += $8; n++} END {printf "prove %s: %d proofs, %.2f s search, %.2f s wall (rc %d)\n", l, n, t, w, rc}' "$L/prove_$2.md" | tee -a "$R"
}
if has prove; then
  for rep in $(seq "${COMPARE_REPS:-2}"); do
    prove_total "$OLD/pfsp" "before_$rep"
    prove_total "$NEW/pfsp" "after_$rep"
  done
fi
if has bounds; then
  for side in before after; do
    bin=$OLD/pfsp_gpu_bench
    [[ $side == after ]] && bin=$NEW/pfsp_gpu_bench
    for b in lb1 lb2; do
      "$bin" --instances ta021,ta051 --bound $b --children 262144 --reps "${COMPARE_BENCH_REPS:-10}" >"$L/bench_${b}_$side.txt" 2>&1
      say "bench $b $side: rc=$?"
    done
  done
  for b in lb1 lb2; do paste -d'\n' /dev/null; echo "--- $b before"; tail -12 "$L/bench_${b}_before.txt"; echo "--- $b after"; tail -12 "$L/bench_${b}_after.txt"; done | tee -a "$R"
fi
if has strategies; then
  for side in before after; do
    bin=$OLD/pfsp_gpu_bench
    [[ $side == after ]] && bin=$NEW/pfsp_gpu_bench
    "$bin" --instances ta021,ta051 --bound lb2 --kernels branchless --sort none --memory shared \
      --strategies plain,persistent,context-switch,split,remap --children 262144 \
      --reps "${COMPARE_BENCH_REPS:-10}" >"$L/bench_strategies_$side.txt" 2>&1
    say "bench strategies $side: rc=$?"
    grep -E '^ta0' "$L/bench_strategies_$side.txt" | tee -a "$R"
  done
fi
(cd "$L" && tar czf "$OUT/compare_logs.tgz" . 2>/dev/null)
