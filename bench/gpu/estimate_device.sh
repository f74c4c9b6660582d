#!/usr/bin/env bash
# Node counts of GPU proofs that finish, to check the offline tree-size estimator
# (pfsp_bench_estimate, search/estimator.hpp) against, and progress traces for the solver log's
# "left" column (docs/tree_estimate.md). One H200, about 4 minutes in all.
#
#   bench/gpu/estimate_device.sh BUILD_DIR     (BUILD_DIR holds a CUDA build's pfsp; logs under $OUT)
#
# Every run is from --ub = the optimum, so that its tree is the one the estimator samples (the
# nodes whose bound is below the optimum, whatever the order). Stages:
#   1. ta021-ta030 with --bound lb1 (MinMin, the device loop): a second bound, larger trees.
#   2. ta041-ta050 (50x10), the defaults.
#   3. ta082-ta084 (100x20), the defaults.
#   4. one 50x20 instance (ESTIMATE_BIG, default ta056) from its optimum, the defaults, for
#      ESTIMATE_BIG_SECONDS (default 150): the offline estimate (docs/tree_estimate.md) puts its
#      tree at 5e10-2e11 nodes, 4-15 min at the chain's 212.7 M nodes/s: a proof if the tree is
#      at the low end, else a lower bound on its size (the nodes branched) and the closed share.
# Output: $OUT/estimate_device/{nodes.csv,*.json,*.log,summary.txt}. nodes.csv is in the format of
# bench/data/tree_sizes.csv (instance,ub,bound,pairs,branching,nodes,source), completed runs only.
set -uo pipefail
build=${1:?usage: bench/gpu/estimate_device.sh BUILD_DIR}
pfsp=$build/pfsp
out=${OUT:-/tmp/out}/estimate_device
mkdir -p "$out"
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
echo "commit $commit, $gpu, $(date -u +%FT%TZ)" | tee "$out/summary.txt"
echo "instance,ub,bound,pairs,branching,nodes,source" >"$out/nodes.csv"

optimum() { "$pfsp" info "$1" | sed -n 's/.*best known *lb [0-9]*, ub \([0-9]*\).*/\1/p'; }

# run LABEL INSTANCE LIMIT INTERVAL [ARGS...]: one proof from the optimum, its JSON and log.
run() {
  local label=$1 inst=$2 limit=$3 interval=$4
  shift 4
  local ub
  ub=$(optimum "$inst")
  local json=$out/${label}_$inst.json log=$out/${label}_$inst.log
  local t0=$SECONDS
  timeout $((limit + 30)) "$pfsp" solve "$inst" --backend "${ESTIMATE_BACKEND:-gpu}" --ub "$ub" --time-limit "$limit" \
    --progress-interval "$interval" --no-progress --log "$log" --json "$json" "$@" >/dev/null 2>>"$out/stderr.txt"
  local rc=$?
  local line
  line=$(python3 - "$json" "$inst" "$ub" "$label" "$commit" <<'EOF'
import json, sys
path, inst, ub, label, commit = sys.argv[1:]
try:
    j = json.load(open(path))
except Exception as e:
    print("x", "unreadable", e); sys.exit()
o = j.get("options", {})
pairs = "learn" if str(j.get("lb2_pairs", o.get("lb2_pairs", "learn"))).startswith("learn") else o.get("lb2_pairs", "?")
bound = o.get("bound", "?")
pairs = "-" if bound == "lb1" else pairs
ok = j["status"] in ("optimal", "proven_bound")
print("ok" if ok else "x", "%s,%s,%s,%s,%s,%d,gpu-%s-%s" % (inst, ub, bound, pairs, o.get("branching", "?"),
      j["nodes"]["branched"], commit, label), j["status"], "%.3f s" % j.get("time_seconds", -1))
EOF
)
  echo "$label $inst rc=$rc $((SECONDS - t0)) s: $line" | tee -a "$out/summary.txt"
  [[ $line == ok* ]] && echo "$line" | cut -d' ' -f2 >>"$out/nodes.csv"
}

[[ ${ESTIMATE_DRY:-0} == 1 ]] && { run lb1 ta001 5 0.1 --bound lb1; run default ta002 5 0.1; exit 0; }
for i in $(seq 21 30); do run lb1 "ta0$i" 20 0.1 --bound lb1; done
for i in $(seq 41 50); do run default "ta0$i" 20 0.1; done
for i in 82 83 84; do run default "ta0$i" 20 0.5; done
run big "${ESTIMATE_BIG:-ta056}" "${ESTIMATE_BIG_SECONDS:-150}" 1
echo "done $(date -u +%FT%TZ)" | tee -a "$out/summary.txt"
