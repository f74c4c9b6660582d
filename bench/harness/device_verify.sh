#!/usr/bin/env bash
# Run ON a 4-GPU machine (device call: kind nvidia-h100-x4, carry [".carry/t"]) after
# `bench/harness/carry_gpu_tests.sh pack` here: a commit's whole GPU verification in one call.
#   phase 1, at once:
#     GPU 0 (cores 0-15):   the gpu-labelled test executables, then compute-sanitizer
#                           (carry_gpu_tests.sh run, then sanitize 0; SANITIZE_SKIP, default
#                           '_rounds$', leaves out the two-round table racecheck, over 240 s)
#     GPUs 1-3 (cores 16-63): every Taillard instance for SWEEP_LIMIT (30) s with the default
#                           options (sweep_taillard.sh; issue 21 item 3)
#   phase 2 (MPI_START=1, the default): device_mpi_start.sh on every GPU (issue 22 item 6)
# Each phase is cut by `timeout` (PHASE1_S, PHASE2_S) so that the call returns its files.
# Writes under $OUT (at most eight files come back): gputests/summary.txt, sanitize/summary.txt,
# sweep.tsv, start.txt and logs.tgz (every log and JSON of the call).
set -u -o pipefail
ROOT=$PWD
OUT=${OUT:-$ROOT/out/device}
BUILD=${BUILD:-build/carry}
mkdir -p "$OUT" "$BUILD" build/carry2
[[ -e ../shared ]] || ln -s "$ROOT/shared" ../shared 2>/dev/null
xz -dc .carry/t/pfsp.xz >"$BUILD/pfsp" && chmod +x "$BUILD/pfsp"
cp "$BUILD/pfsp" build/carry2/pfsp  # the sweep's own copy: `run` rewrites $BUILD/pfsp
G=$(nvidia-smi -L | wc -l)
((G >= 4)) || echo "device_verify.sh: $G GPUs; the layout wants 4 (the sweep takes GPUs 1..$((G - 1)))"
{ nvidia-smi --query-gpu=name --format=csv,noheader | head -1; echo "gpus $G, cores $(nproc), commit ${PFSP_COMMIT:-?}"; } \
  >"$OUT/machine.txt"
(
  CUDA_VISIBLE_DEVICES=0 taskset -c 0-15 bash bench/harness/carry_gpu_tests.sh run >"$OUT/run.txt" 2>&1
  SANITIZE_SKIP=${SANITIZE_SKIP-_rounds\$} taskset -c 0-15 bash bench/harness/carry_gpu_tests.sh sanitize 0 >"$OUT/sanitize.txt" 2>&1
) &
tests_pid=$!
sweep_gpus=$(seq -s ' ' 1 $((G - 1)))
mkdir -p "$OUT/sweep30"
OUT=$OUT/sweep30 PFSP=$ROOT/build/carry2/pfsp PIN=1 GPUS=$((G - 1)) GPU_LIST="$sweep_gpus" CORE_FIRST=16 \
  CORES_PER_SLOT=16 LIMIT=${SWEEP_LIMIT:-30} INSTANCES=${SWEEP_INSTANCES:-} \
  timeout "${PHASE1_S:-380}" bash bench/harness/sweep_taillard.sh >"$OUT/sweep30/stdout.txt" 2>&1
echo "sweep rc=$?" >>"$OUT/machine.txt"
timeout "${TESTS_WAIT_S:-60}" tail --pid="$tests_pid" -f /dev/null || kill -- -"$tests_pid" 2>/dev/null
cp "$OUT/sweep30/sweep/sweep.tsv" "$OUT/sweep.tsv" 2>/dev/null
if [[ ${MPI_START:-1} == 1 ]]; then
  timeout "${PHASE2_S:-150}" bash bench/harness/device_mpi_start.sh >"$OUT/mpi_start_stdout.txt" 2>&1
  echo "mpi start rc=$?" >>"$OUT/machine.txt"
  cp "$OUT/start/start.txt" "$OUT/start.txt" 2>/dev/null
fi
(cd "$OUT" && tar czf logs.tgz --exclude=logs.tgz machine.txt run.txt sanitize.txt sweep30 start mpi_start_stdout.txt \
  gputests/logs.tgz sanitize/logs.tgz 2>/dev/null)
rm -rf "$OUT/sweep30" "$OUT/start" "$OUT/run.txt" "$OUT/sanitize.txt" "$OUT/mpi_start_stdout.txt" \
  "$OUT/gputests/logs.tgz" "$OUT/sanitize/logs.tgz"
cat "$OUT/machine.txt"
