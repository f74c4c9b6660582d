#!/usr/bin/env bash
# Run ON the GPU machine, from the repository root: before/after node rates of the device loop in
# one call (issue 23). BASE_TREE is a copy of the tree before the change (e.g. `git archive` of
# the base commit); both trees are built at once (pfsp, Release, sm_90), then each instance of
# CMP_SET runs CMP_SECONDS from its best known + 1 with each configuration of CMP_CONFIGS
# ("label|binary|pfsp args" separated by ';', binary `base` or `new`), alternating the binaries
# so that both see the same machine state. bench/hard_table.py --out writes compare.json under
# $OUT (one row a run: nodes/s, bounds/s, commit, command).
#
#   BASE_TREE=/tmp/base PFSP_COMMIT=abc1234 BASE_COMMIT=def5678 CMP_SET="ta056" scripts/device_roofline_compare.sh
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
     bash scripts/device_run.sh >"$LOGS/build_base.txt" 2>&1) &
  OUT=$LOGS/new TAG=new STAGES=build BUILD_MPI=0 JOBS=$half TARGETS=${TARGETS:-pfsp} \
    bash scripts/device_run.sh >"$LOGS/build_new.txt" 2>&1
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
(cd "$LOGS" && tar czf "$OUT/cmp_logs.tgz" --exclude='*.tgz' .)
