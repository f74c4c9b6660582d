#!/usr/bin/env bash
# Run ON a GPU machine of 4 GPUs from the repository root, in one device call, with binaries carried
# from the dev machine (`bench/harness/carry_gpu_tests.sh pack`, carry [".carry/t"]): pfsp-mpi's workers'
# start with every GPU visible to every rank against one GPU per rank (bench/harness/gpu_per_rank.sh,
# as srun --gpus-per-task=1 gives), on ta021-ta030 from the optimum, each instance:
#   devices_g1       pfsp solve --devices 0
#   mpi_g1 / mpi_g4  mpirun -n 2 pfsp-mpi --devices 0 / mpirun -n 5 pfsp-mpi     (every GPU visible)
#   mpi-bind_g1 / mpi-bind_g4   the same under bench/harness/gpu_per_rank.sh        (one GPU a rank)
# then bench/scale_table.py's tables into $OUT/mpi_bind/scale.txt, scale.json, and runs.tgz.
#   PFSP_COMMIT=<sha> bench/harness/device_mpi_bind.sh
set -u -o pipefail
ROOT=$PWD
OUT=${OUT:-$ROOT/out/device}
BUILD=${BUILD:-$ROOT/build/carry}
SMALL=${SMALL:-"ta021 ta022 ta023 ta024 ta025 ta026 ta027 ta028 ta029 ta030"}
DIR=$OUT/mpi_bind
RUNS=$DIR/runs
LOG=$DIR/mpi_bind.log
mkdir -p "$RUNS" "$BUILD"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
export OMPI_MCA_rmaps_base_oversubscribe=1
for b in pfsp pfsp-mpi; do
  [[ -f .carry/t/$b.xz ]] && xz -dc ".carry/t/$b.xz" >"$BUILD/$b" && chmod +x "$BUILD/$b"
  [[ -x $BUILD/$b ]] || { echo "device_mpi_bind.sh: no $BUILD/$b" >&2; exit 1; }
done
[[ -e ../shared ]] || ln -s "$ROOT/shared" ../shared 2>/dev/null
DEVICE=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
BIND=$ROOT/bench/harness/gpu_per_rank.sh
say() { echo "== $(date +%T) $*" | tee -a "$LOG"; }
run() {  # name command...: one run, its JSON at $RUNS/name.json
  local name=$1; shift
  say "$name: $*"
  local t0=$SECONDS
  timeout 60 "$@" --json "$RUNS/$name.json" -q >>"$LOG" 2>&1
  echo "   exit $?, $((SECONDS - t0)) s" | tee -a "$LOG"
}
say "4 x $DEVICE, commit ${PFSP_COMMIT:-?}"
for i in $SMALL; do
  run "devices_g1_$i" "$BUILD/pfsp" solve "$i" --backend gpu --devices 0 --ub best-known
  run "mpi_g1_$i" mpirun -n 2 "$BUILD/pfsp-mpi" "$i" --backend gpu --devices 0 --ub best-known
  run "mpi_g4_$i" mpirun -n 5 "$BUILD/pfsp-mpi" "$i" --backend gpu --ub best-known
  run "mpi-bind_g1_$i" mpirun -n 2 "$BIND" "$BUILD/pfsp-mpi" "$i" --backend gpu --ub best-known
  run "mpi-bind_g4_$i" mpirun -n 5 "$BIND" "$BUILD/pfsp-mpi" "$i" --backend gpu --ub best-known
done
python3 "$ROOT/bench/scale_table.py" --out "$DIR/scale.json" --commit "${PFSP_COMMIT:-}" --device "$DEVICE" \
  "$RUNS"/*.json | tee "$DIR/scale.txt"
python3 - "$RUNS" <<'PY' | tee "$DIR/start.txt"
import glob, json, os, re, sys
print("| run | wall (s) | rank 0 serving from (s) | workers ready at (s) |")
print("| --- | --- | --- | --- |")
for f in sorted(glob.glob(os.path.join(sys.argv[1], "*.json"))):
    d = json.load(open(f))
    serve = ready = ""
    for n in d.get("notes", []):
        m = re.search(r"from ([\d.]+) s after its start", n)
        if m: serve = m.group(1)
        r = re.findall(r"ready ([\d.]+) s after its start", n)
        if r: ready = " ".join(r)
    print(f"| {os.path.basename(f)[:-5]} | {d['wall_seconds']:.3f} | {serve} | {ready} |")
PY
(cd "$DIR" && tar czf runs.tgz runs mpi_bind.log && rm -rf runs)
say "done in $SECONDS s"
