#!/usr/bin/env bash
# Run ON the GPU machine, from the repository root: before/after node rates of the device loop in
# one call (issue 23). BASE_TREE is a copy of the tree before the change (e.g. `git archive` of
# the base commit); both trees are built at once (pfsp, Release, sm_90), then each instance of
# CMP_SET runs CMP_SECONDS from its best known + 1 with each configuration of CMP_CONFIGS
# ("label|binary|pfsp args" separated by ';', binary `base` or `new`), alternating the binaries
# so that both see the same machine state. bench/hard_table.py --out writes compare.json under
# $OUT (one row a run: nodes/s, bounds/s, commit, command).
#
#   BASE_TREE=/tmp/base PFSP_COMMIT=abc1234 BASE_COMMIT=def5678 CMP_SET="ta056" bench/harness/device_roofline_compare.sh
set -u -o pipefail
ROOT=$PWD
OUT=${OUT:-$ROOT/out/device}
mkdir -p "$OUT"
LOGS=$OUT/cmp_logs
mkdir -p "$LOGS"
JOBS=${JOBS:-$(nproc)}
half=$(((JOBS + 1) / 2))
if [[ ${SKIP_BUILD:-0} != 1 ]]; then
  (cd "$BASE_TREE" && cp -r "$ROOT/.deps" "$ROOT/shared" . 2>/dev/null
   OUT=$LOGS/base TAG=base STAGES=build BUILD_MPI=0 JOBS=$half PFSP_COMMIT=${BASE_COMMIT:-base} TARGETS=pfsp \
     bash bench/harness/device_run.sh >"$LOGS/build_base.txt" 2>&1) &
  OUT=$LOGS/new TAG=new STAGES=build BUILD_MPI=0 JOBS=$half TARGETS=${TARGETS:-pfsp} \
    bash bench/harness/device_run.sh >"$LOGS/build_new.txt" 2>&1
  wait
  tail -3 "$LOGS/build_base.txt" "$LOGS/build_new.txt"
fi
declare -A BIN=([base]=$BASE_TREE/build/device/pfsp [new]=$ROOT/build/device/pfsp)
IFS=';' read -ra cfgs <<<"${CMP_CONFIGS:-chain-before|base|;chain-after|new|;lb1-before|base|--bound lb1;lb1-after|new|--bound lb1}"
for inst in ${CMP_SET:-ta056}; do
  ub=$("${BIN[new]}" info "$inst" | sed -n 's/.*best known *lb [0-9]*, ub \([0-9]*\).*/\1/p')
  for c in "${cfgs[@]}"; do
    IFS='|' read -r label which extra <<<"$c"
    "${BIN[$which]}" solve "$inst" --backend gpu --ub $((ub + 1)) --time-limit "${CMP_SECONDS:-8}" --no-progress -q \
      --json "$LOGS/hard_${inst}_${label}.json" $extra >"$LOGS/hard_${inst}_${label}.log" 2>&1
  done
done
python3 bench/hard_table.py --out "$OUT/compare.json" "$LOGS"/hard_*.json | tee "$OUT/compare.txt"
# Same tree: whole proofs from the optimum (CMP_EXACT, "instance:bound" pairs) by both binaries,
# their node counters compared.
for pair in ${CMP_EXACT:-ta021:lb1-lb2 ta022:lb1-lb2 ta029:lb1-lb2 ta030:lb1 ta014:lb1-lb2 ta031:lb1-lb2}; do
  IFS=: read -r inst b <<<"$pair"
  ub=$("${BIN[new]}" info "$inst" | sed -n 's/.*best known *lb [0-9]*, ub \([0-9]*\).*/\1/p')
  for which in base new; do
    "${BIN[$which]}" solve "$inst" --backend gpu --bound "$b" --ub "$ub" --time-limit 60 --no-progress -q \
      --json "$LOGS/exact_${inst}_${b}_${which}.json" >/dev/null 2>&1
  done
  python3 - "$LOGS/exact_${inst}_${b}_base.json" "$LOGS/exact_${inst}_${b}_new.json" "$inst $b" <<'PY' | tee -a "$OUT/compare.txt"
import json, sys
try:
    a, b = (json.load(open(f)) for f in sys.argv[1:3])
    same = a["nodes"] == b["nodes"] and a["status"] == b["status"] and a["makespan"] == b["makespan"]
    print(f"exact {sys.argv[3]}: {'same tree' if same else 'DIFFERENT'} base {a['status']} {a['nodes']} "
          f"{a['time_seconds']:.2f} s, new {b['status']} {b['nodes']} {b['time_seconds']:.2f} s")
except Exception as e:
    print(f"exact {sys.argv[3]}: failed ({e})")
PY
done
(cd "$LOGS" && tar czf "$OUT/cmp_logs.tgz" --exclude='*.tgz' .)
