#!/usr/bin/env bash
# Run ON the GPU machine, from the repository root: the device loop's roofline (issue 23,
# docs/decisions/013-device-loop-roofline.md). Builds pfsp (bench/harness/device_run.sh's build stage,
# unless SKIP_BUILD=1), then for each configuration of ROOF_CONFIGS ("label|pfsp args" entries
# separated by ';'), on ROOF_INSTANCE from its best known + 1:
#   1. a graph-mode slice of ROOF_SECONDS (pfsp --json: nodes/s, nodes an iteration);
#   2. ncu on ROOF_COUNT kernel launches after ROOF_SKIP of a graph-mode run (the graph's
#      kernel nodes, full pools: a --profile run's profiled iterations take seconds and the
#      coordinator then cuts the pool), clocks and caches left as in the run, the metrics
#      bench/ncu_loop_table.py reads;
#   3. for the labels in ROOF_FULL (comma list), ncu --set full on the bounding kernels (stall
#      reasons, occupancy, registers), as text.
# Then bench/ncu_loop_table.py --roofline writes ncu_loop_roofline_<instance>[_<ROOF_TAG>].json
# and its table, ..._table.md, under $OUT (the names bench/results_page.py files under "hard"). BUILD: the build folder whose pfsp runs (another tree's, e.g. the base of a
# before/after comparison, with SKIP_BUILD=1).
#
#   PFSP_COMMIT=abc1234 ROOF_INSTANCE=ta056 ROOF_SECONDS=10 bench/harness/device_roofline.sh
set -u -o pipefail
ROOT=$PWD
OUT=${OUT:-$ROOT/out/device}
mkdir -p "$OUT"
BUILD=${BUILD:-$ROOT/build/device}
if [[ ${SKIP_BUILD:-0} != 1 ]]; then
  OUT=$OUT TAG=${TAG:-roofbuild} STAGES=build BUILD_MPI=0 TARGETS=${TARGETS:-pfsp} bash bench/harness/device_run.sh || exit 1
fi
PFSP=$BUILD/pfsp
INST=${ROOF_INSTANCE:-ta056}
SECS=${ROOF_SECONDS:-10}
LOGS=$OUT/roof_logs
mkdir -p "$LOGS"
ub=$("$PFSP" info "$INST" | sed -n 's/.*best known *lb [0-9]*, ub \([0-9]*\).*/\1/p')
ub=$((ub + 1))
DEVICE=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
METRICS=$(python3 bench/ncu_loop_table.py --metrics)
args=()
IFS=';' read -ra cfgs <<<"${ROOF_CONFIGS:-chain|;lb1|--bound lb1}"
for c in "${cfgs[@]}"; do
  label=${c%%|*} extra=${c#*|}
  "$PFSP" solve "$INST" --backend gpu --ub "$ub" --time-limit "$SECS" --no-progress -q \
    --json "$LOGS/rate_${label}.json" $extra >"$LOGS/rate_${label}.log" 2>&1
  echo "== $label rate: rc=$? $(python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(round(j['nodes']['branched']/(j['time_seconds']-j.get('setup_seconds',0))/1e6,1), 'M nodes/s')" "$LOGS/rate_${label}.json" 2>&1)"
  timeout 300 ncu --clock-control none --cache-control none --launch-skip "${ROOF_SKIP:-6000}" \
    --launch-count "${ROOF_COUNT:-48}" --csv --metrics "$METRICS" \
    "$PFSP" solve "$INST" --backend gpu --ub "$ub" --time-limit 8 --no-progress -q $extra \
    >"$LOGS/ncu_${label}.csv" 2>"$LOGS/ncu_${label}.err"
  echo "== $label ncu: rc=$?"
  if [[ ",${ROOF_FULL:-}," == *",$label,"* ]]; then
    timeout 300 ncu --clock-control none --set full --kernel-name regex:"parts_children|warp_lb2" \
      --launch-skip "${ROOF_FULL_SKIP:-800}" --launch-count 2 \
      "$PFSP" solve "$INST" --backend gpu --ub "$ub" --time-limit 8 --no-progress -q $extra \
      >"$LOGS/ncu_full_${label}.txt" 2>&1
    echo "== $label ncu full: rc=$?"
  fi
  args+=(--config "$label=$LOGS/ncu_${label}.csv,$LOGS/rate_${label}.json")
done
NAME=ncu_loop_roofline_${INST}${ROOF_TAG:+_$ROOF_TAG}
python3 bench/ncu_loop_table.py --roofline "${args[@]}" --out "$OUT/$NAME.json" --md "$OUT/${NAME}_table.md" \
  --commit "${PFSP_COMMIT:-unknown}" --device "$DEVICE" \
  --command "bench/harness/device_roofline.sh (ROOF_INSTANCE=$INST ROOF_SECONDS=$SECS ROOF_CONFIGS='${ROOF_CONFIGS:-chain|;lb1|--bound lb1}')"
for f in "$LOGS"/ncu_*.csv; do python3 bench/ncu_loop_table.py "$f"; done >"$LOGS/kernels.txt" 2>&1
(cd "$LOGS" && tar czf "$OUT/${NAME}_logs.tgz" .) && rm -rf "$LOGS"
