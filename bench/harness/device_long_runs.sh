#!/usr/bin/env bash
# Run ON a GPU machine from the repository root, with binaries carried from the dev machine
# (`bench/harness/carry_gpu_tests.sh pack` writes .carry/t/pfsp.xz): long solves from scratch with the
# default options, one process per GPU, each pinned to its own share of the host's cores (issue
# 21: "one GPU and its host's cores"), then the tables:
#   $OUT/sweep.tsv        exit codes and wall times against the allowance (bench/harness/sweep_taillard.sh)
#   $OUT/table.md         proven or not, class means beside published heuristics', open instances
#                         (bench/engine_table.py solves --published)
#   $OUT/anytime.md       each run's best makespan over time (bench/engine_table.py anytime)
#   $OUT/results_jsons.tgz the JSON results (with their progress traces) and the logs
#
#   SET="ta089 ta051 ta054 ta055" LIMIT=570 bench/harness/device_long_runs.sh
#     (device call: kind nvidia-h100-x4, carry [".carry/t"]; LIMIT at most about 580 s, since a
#      device call ends at 600 s; GPUS defaults to every GPU the machine has)
# With SWEEP_GPU_LIST (e.g. "2 3"), the 30-s sweep of every Taillard instance (issue 21 item 3) runs
# at the same time on those GPUs, into $OUT/sweep30 (sweep.tsv, sweep.json, sweep_logs.tgz); the long
# runs then take GPU_LIST (e.g. "0 1", GPUS=2) and each slot 16 cores, the sweep the cores after theirs.
#   GPUS=2 GPU_LIST="0 1" SWEEP_GPU_LIST="2 3" SET="ta059 ta060" LIMIT=570 bench/harness/device_long_runs.sh
set -u -o pipefail
ROOT=$PWD
OUT=${OUT:-$ROOT/out/device}
BUILD=${BUILD:-$ROOT/build/carry}
: "${SET:?SET: the instances, e.g. SET=\"ta090 ta101\"}"
LIMIT=${LIMIT:-570}
mkdir -p "$BUILD" "$OUT"
if [[ -f .carry/t/pfsp.xz ]]; then
  xz -dc .carry/t/pfsp.xz >"$BUILD/pfsp" && chmod +x "$BUILD/pfsp"
fi
[[ -x $BUILD/pfsp ]] || { echo "device_long_runs.sh: no pfsp at $BUILD/pfsp (carry .carry/t/pfsp.xz)" >&2; exit 1; }
[[ -e ../shared ]] || ln -s "$ROOT/shared" ../shared 2>/dev/null
{ nvidia-smi --query-gpu=name --format=csv,noheader; echo "cores $(nproc), commit ${PFSP_COMMIT:-?}"; } >"$OUT/machine.txt"
sweep_pid=
if [[ -n ${SWEEP_GPU_LIST:-} ]]; then
  read -r -a sweep_gpus <<<"$SWEEP_GPU_LIST"
  export CORES_PER_SLOT=${CORES_PER_SLOT:-16}
  mkdir -p "$OUT/sweep30"
  OUT=$OUT/sweep30 PFSP=$BUILD/pfsp PIN=1 GPUS=${#sweep_gpus[@]} GPU_LIST="$SWEEP_GPU_LIST" \
    CORE_FIRST=$((${GPUS:-2} * CORES_PER_SLOT)) INSTANCES=${SWEEP_INSTANCES:-} LIMIT=${SWEEP_LIMIT:-30} bash "$ROOT/bench/harness/sweep_taillard.sh" \
    >"$OUT/sweep30/stdout.txt" 2>&1 &
  sweep_pid=$!
fi
OUT=$OUT PFSP=$BUILD/pfsp INSTANCES="$SET" LIMIT=$LIMIT PIN=1 bash "$ROOT/bench/harness/sweep_taillard.sh" >"$OUT/sweep_stdout.txt" 2>&1
rc=$?
if [[ -n $sweep_pid ]]; then
  wait "$sweep_pid" || rc=1
  (cd "$OUT/sweep30/sweep" && cp sweep.tsv sweep.json .. && tar czf ../sweep_logs.tgz results logs) && rm -rf "$OUT/sweep30/sweep"
  tail -1 "$OUT/sweep30/stdout.txt"
fi
cp "$OUT/sweep/sweep.tsv" "$OUT/" 2>/dev/null
python3 "$ROOT/bench/engine_table.py" solves "$OUT/sweep/results" --out "$OUT/table.md" \
  --title "Solves from scratch, --time-limit $LIMIT, defaults, one process per GPU" \
  --published "$ROOT/bench/data/published_pfsp_cmax.csv"
python3 "$ROOT/bench/engine_table.py" anytime "$OUT/sweep/results" --out "$OUT/anytime.md" \
  --marks "10,30,60,120,240,$LIMIT"
(cd "$OUT/sweep" && tar czf "$OUT/results_jsons.tgz" results logs) && rm -rf "$OUT/sweep" "$OUT/sweep_logs.tgz"
tail -3 "$OUT/sweep_stdout.txt"
exit $rc
