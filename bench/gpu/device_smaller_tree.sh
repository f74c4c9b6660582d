#!/usr/bin/env bash
# Issue 44 (a smaller tree) on one GPU machine, from the repository root, with binaries built
# here for sm_90 and carried (bench/gpu/device_smaller_tree.sh pack; device call with carry
# [".carry/s", "shared"]). Writes under $OUT:
#   summary.txt         the GPU, the commit, each stage's status
#   tests.txt           the GPU test executables' verdicts (logs in logs.tgz)
#   proofs.jsonl        one line per proof: instance, configuration, status, nodes, seconds
#   cpu.jsonl           the same for the CPU runs (two cores each, pinned)
#   long.txt            the long runs (ta090, ta101 from scratch) as the solver logs end
# Stages (STAGES, comma-separated): tests, gpu, cpu, sanitize, long. The CPU matrix runs on cores 2-15 while
# the GPU stages run pinned to cores 0-1 (--improver-threads 0: the proofs from the optimum need
# no incumbent engine); the long runs come last, alone, with the default options.
set -u -o pipefail
ROOT=$PWD
B=${BUILD:-$ROOT/build/carry}
OUT=${OUT:-$ROOT/out/device}
STAGES=${STAGES:-tests,gpu,cpu,long}
LONG=${LONG_SECONDS:-60}
mkdir -p "$OUT/logs"
has() { [[ ",$STAGES," == *",$1,"* ]]; }
say() { echo "== $(date +%T) $*" | tee -a "$OUT/summary.txt"; }
BINS=(pfsp test_gpu_resident test_gpu_backends test_gpu_memory)

. "$(dirname "$0")/carried_binaries.sh"
if [[ ${1:-} == pack ]]; then
  pack_binaries .carry/s "$B" "${BINS[@]}"
  exit 0
fi
unpack_binaries .carry/s "$B" "${BINS[@]}"
[ -e ../shared ] || ln -s "$ROOT/shared" ../shared
PFSP=$B/pfsp
say "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1), commit ${PFSP_COMMIT:-?}, $(nproc) cores"

ub_of() { grep "^$1," "$ROOT/shared/data/taillard_pfsp.csv" | cut -d, -f7; }
# One proof as a JSON line: name, label, then pfsp's arguments.
proof() {
  local name=$1 label=$2 file=$3
  shift 3
  local j=$OUT/logs/$name.$label.json
  local t0
  t0=$(date +%s.%N)
  "$@" --json "$j" --no-progress -q >/dev/null 2>"$OUT/logs/$name.$label.err"
  local rc=$?
  local t1
  t1=$(date +%s.%N)
  python3 - "$j" "$name" "$label" "$rc" "$t0" "$t1" >>"$file" <<'EOF'
import json, sys
path, name, label, rc, t0, t1 = sys.argv[1:]
try:
    r = json.load(open(path))
except Exception as e:
    r = {"error": str(e)}
nodes = r.get("nodes") or {}
print(json.dumps({"instance": name, "config": label, "rc": int(rc), "status": r.get("status"),
                  "makespan": r.get("makespan"), "lower_bound": r.get("lower_bound"),
                  "nodes": nodes.get("branched"), "pruned": nodes.get("pruned"),
                  "search_seconds": r.get("time_seconds"), "wall_seconds": r.get("wall_seconds"),
                  "process_wall": round(float(t1) - float(t0), 3), "backend": r.get("backend"),
                  "commit": r.get("commit"), "command": r.get("command")}))
EOF
}

cpu_matrix() {  # on cores 2-15, seven runs of two cores at a time
  local list=()
  for i in 011 012 013 014 015 016 017 018 019 020; do
    for c in "lb1:--bound lb1" "default:" "lb1-nodom:--bound lb1 --dominance off" "chain-learn:--bound lb1-lb2 --lb2-pairs learn" \
      "chain-learn-nodom:--bound lb1-lb2 --lb2-pairs learn --dominance off" "chain-all:--bound lb1-lb2 --lb2-pairs all"; do
      list+=("ta$i|${c%%:*}|${c#*:} --time-limit 120")
    done
  done
  for i in 041 042 043 044 045 061 071; do  # 50x10, 100x5, 100x10: the bound's price where n is larger
    for c in "lb1:--bound lb1" "default:" "chain-learn:--bound lb1-lb2 --lb2-pairs learn"; do
      list+=("ta$i|${c%%:*}|${c#*:} --time-limit 30")
    done
  done
  local slot=0
  for item in "${list[@]}"; do
    IFS='|' read -r name label extra <<<"$item"
    local cores="$((2 + 2 * slot)),$((3 + 2 * slot))"
    # shellcheck disable=SC2086
    proof "$name" "cpu-$label" "$OUT/cpu.jsonl" taskset -c "$cores" "$PFSP" solve "$name" --backend cpu-mt --threads 2 \
      --improver-threads 0 --ub "$(ub_of "$name")" $extra &
    slot=$(((slot + 1) % 7))
    [[ $slot == 0 ]] && wait
  done
  wait
}

if has cpu; then
  say "cpu matrix (background, cores 2-15)"
  cpu_matrix &
  CPU_PID=$!
fi

if has tests; then
  for t in "${BINS[@]:1}"; do
    filter='*'
    [[ $t == test_gpu_resident ]] && filter=${RESIDENT_FILTER:-*SwapDominance*:*FusedLb1*:*ParentTables*:*ProvesTaillard*:*OneEngineIsDeterministic*}
    t0=$SECONDS
    timeout 300 taskset -c 0,1 "$B/tests/gpu/$t" --gtest_filter="$filter" >"$OUT/logs/$t.log" 2>&1
    rc=$?
    echo "$t rc=$rc $((SECONDS - t0)) s: $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$OUT/logs/$t.log" | tr '\n' ' ')" |
      tee -a "$OUT/tests.txt"
    grep -E '^\[  FAILED  \]' "$OUT/logs/$t.log" | head -8 | tee -a "$OUT/tests.txt"
  done
  say "tests done"
fi

if has gpu; then
  for on in on off; do
    for i in 021 022 023 024 025 026 027 028 029 030; do
      proof "ta$i" "gpu-dom-$on" "$OUT/proofs.jsonl" taskset -c 0,1 "$PFSP" solve "ta$i" --improver-threads 0 \
        --ub "$(ub_of "ta$i")" --dominance "$on"
    done
    for i in 071 072 073 074 075; do  # LB1 decided in the parents kernel at 100x10 (the --bound lb1 path)
      proof "ta$i" "gpu-lb1-dom-$on" "$OUT/proofs.jsonl" taskset -c 0,1 "$PFSP" solve "ta$i" --improver-threads 0 \
        --ub "$(ub_of "ta$i")" --bound lb1 --dominance "$on"
    done
  done
  for i in 021 022 023 024 025; do
    proof "ta$i" "gpu-dom-on-pairs-all" "$OUT/proofs.jsonl" taskset -c 0,1 "$PFSP" solve "ta$i" --improver-threads 0 \
      --ub "$(ub_of "ta$i")" --lb2-pairs all
  done
  for on in on off; do
    proof ta056 "rate-chain-dom-$on" "$OUT/proofs.jsonl" taskset -c 0,1 "$PFSP" solve ta056 --improver-threads 0 \
      --ub 3680 --time-limit 10 --dominance "$on"
  done
  say "gpu proofs done"
fi

[[ -n ${CPU_PID:-} ]] && wait "$CPU_PID" && say "cpu matrix done"

if has sanitize; then  # the LB1 parents kernels with the rule on: memcheck and racecheck
  for tool in memcheck racecheck; do
    for b in lb1 lb1-lb2; do
      timeout 300 compute-sanitizer --tool "$tool" --error-exitcode 9 "$PFSP" solve ta021 --bound "$b" --dominance on \
        --lb1-fused on --pool-size 4096 --node-limit 20000 --improver-threads 0 --no-progress -q \
        >"$OUT/logs/sanitize_${tool}_$b.log" 2>&1
      echo "sanitize $tool $b rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/logs/sanitize_${tool}_$b.log" | tr '\n' ' ')" |
        tee -a "$OUT/summary.txt"
    done
  done
fi

if has long; then
  # LONG_RUNS: label:instance:extra-args entries (default: ta090 from scratch with the defaults).
  for entry in ${LONG_RUNS:-default:ta090:}; do
    IFS=: read -r label name extra <<<"$entry"
    # shellcheck disable=SC2086
    timeout $((LONG + 30)) "$PFSP" solve "$name" --time-limit "$LONG" --json "$OUT/logs/$name.$label.long.json" \
      --log "$OUT/logs/$name.$label.long.log" -q ${extra//,/ } >>"$OUT/long.txt" 2>&1
    echo "$name $label (${extra//,/ }) rc=$?: $(tail -14 "$OUT/logs/$name.$label.long.log" | tr -s ' ' | tr '\n' ';')" >>"$OUT/long.txt"
  done
  say "long runs done"
fi
(cd "$OUT/logs" && tar czf "$OUT/logs.tgz" . 2>/dev/null) && rm -rf "$OUT/logs"
say done
