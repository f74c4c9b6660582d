#!/usr/bin/env bash
# Run ON a GPU machine of 4 GPUs from the repository root, in one device call, with binaries carried
# from the dev machine (`bench/harness/carry_gpu_tests.sh pack`, carry [".carry/t"]): pfsp-mpi's chunk
# size on the GPU backend (issue 22 items 5 and 6). Each chunk a GPU worker solves is a new device
# loop (its engine's set-up: about 20 ms a chunk on ta030, bench/results/2026-11-27-h100x4-mpi-one-pair-loop),
# so fewer, larger chunks cost less set-up and balance less well. Runs, per --chunk-nodes C in CHUNKS:
#   mpi-cC_g1   mpirun -n 2 pfsp-mpi --devices 0 --chunk-nodes C   (one worker rank, one GPU)
#   mpi-cC_g4   mpirun -n 5 pfsp-mpi --chunk-nodes C               (4 worker ranks x 1 GPU)
# beside devices_g1 (`pfsp solve`, one GPU), on a SLICE-s slice of ta056 from best known + 1 and on
# ta021-ta030 from the optimum; then bench/scale_table.py's tables into $OUT/mpi_chunks/scale.txt,
# scale.json, and runs.tgz (each run's JSON and the log).
#   PFSP_COMMIT=<sha> CHUNKS="4 16 64" SLICE=10 bench/harness/device_mpi_chunks.sh
set -u -o pipefail
ROOT=$PWD
OUT=${OUT:-$ROOT/out/device}
BUILD=${BUILD:-$ROOT/build/carry}
SLICE=${SLICE:-10}
CHUNKS=${CHUNKS:-"4 16 64"}
SMALL=${SMALL:-"ta021 ta022 ta023 ta024 ta025 ta026 ta027 ta028 ta029 ta030"}
DIR=$OUT/mpi_chunks
RUNS=$DIR/runs
LOG=$DIR/mpi_chunks.log
mkdir -p "$RUNS" "$BUILD"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
export OMPI_MCA_rmaps_base_oversubscribe=1
for b in pfsp pfsp-mpi; do
  [[ -f .carry/t/$b.xz ]] && xz -dc ".carry/t/$b.xz" >"$BUILD/$b" && chmod +x "$BUILD/$b"
  [[ -x $BUILD/$b ]] || { echo "device_mpi_chunks.sh: no $BUILD/$b" >&2; exit 1; }
done
[[ -e ../shared ]] || ln -s "$ROOT/shared" ../shared 2>/dev/null
DEVICE=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
say() { echo "== $(date +%T) $*" | tee -a "$LOG"; }
run() {  # name command...: one run, its JSON at $RUNS/name.json
  local name=$1; shift
  say "$name: $*"
  local t0=$SECONDS
  timeout "$((SLICE + 60))" "$@" --json "$RUNS/$name.json" -q >>"$LOG" 2>&1
  echo "   exit $?, $((SECONDS - t0)) s" | tee -a "$LOG"
}
configs() {  # instance args...
  local inst=$1; shift
  run "devices_g1_$inst" "$BUILD/pfsp" solve "$inst" --backend gpu --devices 0 "$@"
  for c in $CHUNKS; do
    run "mpi-c${c}_g1_$inst" mpirun -n 2 "$BUILD/pfsp-mpi" "$inst" --backend gpu --devices 0 --chunk-nodes "$c" "$@"
    run "mpi-c${c}_g4_$inst" mpirun -n 5 "$BUILD/pfsp-mpi" "$inst" --backend gpu --chunk-nodes "$c" "$@"
  done
}
say "4 x $DEVICE, chunks $CHUNKS, slice $SLICE s, commit ${PFSP_COMMIT:-?}"
configs ta056 --ub 3680 --time-limit "$SLICE"
for i in $SMALL; do configs "$i" --ub best-known; done
python3 "$ROOT/bench/scale_table.py" --out "$DIR/scale.json" --commit "${PFSP_COMMIT:-}" --device "$DEVICE" \
  "$RUNS"/*.json | tee "$DIR/scale.txt"
(cd "$DIR" && tar czf runs.tgz runs mpi_chunks.log && rm -rf runs)
say "done in $SECONDS s"
