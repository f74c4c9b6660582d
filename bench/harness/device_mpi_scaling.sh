#!/usr/bin/env bash
# Run ON a GPU machine of K >= 2 GPUs from the repository root, in one device call (issue 22,
# items 5 and 6): builds pfsp and pfsp-mpi (CUDA, Release, -j$(nproc)), then runs, per workload,
#   devices_g1    pfsp solve --devices 0                       (one GPU, the baseline)
#   devices_gK    pfsp solve --devices 0,..,K-1                (K engines in one process)
#   mpi_g1        mpirun -n 2 pfsp-mpi --devices 0             (one worker rank, one GPU)
#   mpi_gK        mpirun -n K+1 pfsp-mpi                       (K worker ranks x 1 GPU)
#   mpi1rank_gK   mpirun -n 2 pfsp-mpi --devices all           (1 worker rank x K GPUs)
#   mpi2rank_gK   mpirun -n 3 pfsp-mpi --devices local         (2 ranks x K/2 GPUs; K >= 4 only)
#   mpilazy_gK    mpirun -n K+1 pfsp-mpi --ranks-join lazy     (one rank first, the others after --split-after)
# (pfsp-mpi's rank counts include rank 0, the coordinator) on the workloads
#   ta056 slices: --ub 3680 (best known + 1) --time-limit SLICE: the node rate;
#   ta021-ta030 from the optimum (--ub best-known): the time to proof, the same tree everywhere;
#     item 6's check: the time on K GPUs at most 1.1x the one-GPU time (devices against
#     devices_g1, the pfsp-mpi layouts against mpi_g1).
# Each run's JSON is $OUT/mpi_scaling/runs/FRONT_gK_INSTANCE.json (bench/scale_table.py's names);
# the tables (scale_table.py) are $OUT/mpi_scaling/scale.json and scale.txt, stamped with
# PFSP_COMMIT (the device's copy of .git can be stale); README.md says how they were made. The
# lead copies $OUT/mpi_scaling/{scale.json,scale.txt,README.md,runs.tgz} to
# bench/results/DATE-h100xK-mpi/ and regenerates docs/results.md (bench/results_page.py).
# About 8 minutes on 2 H100s (build about 2.5 min, runs about 5); a run that would start past
# DEADLINE seconds since the script began is skipped (recorded as skipped), so the call ends in
# time.
#
#   PFSP_COMMIT=<sha> bench/harness/device_mpi_scaling.sh        (device call: kind nvidia-h100-x2, carry .deps)
#   bench/harness/device_mpi_scaling.sh build                    (the build alone)
# The build stays in $BUILD (ignored by git) on a warm machine: if a slow build left runs skipped,
# a second call on the same machine skips the build and runs everything.
#   BUILD=build/device  OUT=out/device  SLICE=30  SMALL="ta021 ... ta030"  DEADLINE=480  GPUS=K
# Testing the shell logic without a GPU: PFSP_SCALING_BACKEND=cpu (every run on --backend cpu,
# --devices dropped, GPUS=2 unless set; BUILD must hold pfsp and pfsp-mpi), e.g.
#   PFSP_SCALING_BACKEND=cpu BUILD=build/cpu SLICE=2 SMALL="ta001 ta002" bench/harness/device_mpi_scaling.sh
set -u -o pipefail
ROOT=$PWD
OUT=${OUT:-$ROOT/out/device}
BUILD=${BUILD:-$ROOT/build/device}
SLICE=${SLICE:-30}
SMALL=${SMALL:-"ta021 ta022 ta023 ta024 ta025 ta026 ta027 ta028 ta029 ta030"}
DEADLINE=${DEADLINE:-480}
BACKEND=${PFSP_SCALING_BACKEND:-gpu}
DIR=$OUT/mpi_scaling
RUNS=$DIR/runs
LOG=$DIR/mpi_scaling.log
mkdir -p "$RUNS"
rm -f "$RUNS"/*.json "$RUNS"/*.skipped
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
export OMPI_MCA_rmaps_base_oversubscribe=1
say() { echo "== $(date +%T) $*" | tee -a "$LOG"; }

# The CUDA build of pfsp and pfsp-mpi, with the .deb dependencies carried in .deps (as
# bench/harness/device_run.sh's build stage).
build() {
  [ -x "$BUILD/pfsp-mpi" ] && [ -x "$BUILD/pfsp" ] && return 0
  [ "$BACKEND" = gpu ] || { say "no $BUILD/pfsp-mpi (build it first)"; exit 1; }
  local prefix=$ROOT/.deps/root/usr t0=$SECONDS
  if ls "$ROOT"/.deps/*.deb >/dev/null 2>&1; then
    mkdir -p "$ROOT/.deps/root"
    for f in "$ROOT"/.deps/*.deb; do dpkg -x "$f" "$ROOT/.deps/root"; done
  fi
  say "building pfsp pfsp-mpi in $BUILD"
  if ! cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DPFSP_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DPFSP_WERROR=OFF -DPFSP_BUILD_TESTS=OFF -DPFSP_BUILD_BENCH=OFF -DCMAKE_PREFIX_PATH="$prefix" \
    -DPFSP_SHARED_DATA_DIR="$ROOT/shared/data" -DPFSP_COMMIT="${PFSP_COMMIT:-}" > "$DIR/configure.log" 2>&1 ||
    ! cmake --build "$BUILD" -j"$(nproc)" --target pfsp pfsp-mpi > "$DIR/build.log" 2>&1; then
    say "build failed: $DIR/configure.log, $DIR/build.log"
    tail -30 "$DIR/build.log" "$DIR/configure.log" 2>/dev/null
    exit 1
  fi
  say "built in $((SECONDS - t0)) s"
}

build
[ "${1:-}" = build ] && exit 0
if [ "$BACKEND" = gpu ]; then
  GPUS=${GPUS:-$(nvidia-smi -L | wc -l)}
  DEVICE=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
else
  GPUS=${GPUS:-2}
  DEVICE="cpu stand-in ($(nproc) cores, --backend cpu)"
fi
[ "$GPUS" -ge 2 ] || { say "needs 2 GPUs or more, found $GPUS"; exit 1; }
LAST=$((GPUS - 1))

devices() {  # --devices SPEC on the GPU backend; nothing on the cpu stand-in
  [ "$BACKEND" = gpu ] && echo "--devices $1"
}

run() {  # front k instance command...: one run, its JSON at $RUNS/front_gk_instance.json
  local front=$1 k=$2 inst=$3; shift 3
  local json=$RUNS/${front}_g${k}_${inst}.json
  if [ "$SECONDS" -ge "$DEADLINE" ]; then
    say "$front k=$k $inst: skipped (past DEADLINE=$DEADLINE s)"
    echo "{\"skipped\": true}" > "$json.skipped"
    return
  fi
  say "$front k=$k $inst: $*"
  local t0=$SECONDS
  timeout "$((SLICE + 60))" "$@" --json "$json" -q >> "$LOG" 2>&1
  echo "   exit $?, $((SECONDS - t0)) s" | tee -a "$LOG"
}

configs() {  # instance args...: every configuration, one after the other on this instance
  local inst=$1; shift
  local pfsp=$BUILD/pfsp mpi=$BUILD/pfsp-mpi
  # shellcheck disable=SC2046
  run devices 1 "$inst" "$pfsp" solve "$inst" --backend "$BACKEND" $(devices 0) "$@"
  # shellcheck disable=SC2046
  run devices "$GPUS" "$inst" "$pfsp" solve "$inst" --backend "$BACKEND" $(devices "$(seq -s, 0 "$LAST")") "$@"
  # shellcheck disable=SC2046
  run mpi 1 "$inst" mpirun -n 2 "$mpi" "$inst" --backend "$BACKEND" $(devices 0) "$@"
  run mpi "$GPUS" "$inst" mpirun -n $((GPUS + 1)) "$mpi" "$inst" --backend "$BACKEND" "$@"
  # shellcheck disable=SC2046
  run mpi1rank "$GPUS" "$inst" mpirun -n 2 "$mpi" "$inst" --backend "$BACKEND" $(devices all) "$@"
  if [ "$GPUS" -ge 4 ] && [ $((GPUS % 2)) -eq 0 ]; then
    # shellcheck disable=SC2046
    run mpi2rank "$GPUS" "$inst" mpirun -n 3 "$mpi" "$inst" --backend "$BACKEND" $(devices local) "$@"
  fi
  run mpilazy "$GPUS" "$inst" mpirun -n $((GPUS + 1)) "$mpi" "$inst" --backend "$BACKEND" --ranks-join lazy "$@"
}

say "$GPUS GPUs ($DEVICE), backend $BACKEND, slice $SLICE s, deadline $DEADLINE s, commit ${PFSP_COMMIT:-?}"
configs ta056 --ub 3680 --time-limit "$SLICE"
for i in $SMALL; do configs "$i" --ub best-known; done

python3 "$ROOT/bench/scale_table.py" --out "$DIR/scale.json" --commit "${PFSP_COMMIT:-}" --device "$DEVICE" \
  "$RUNS"/*.json | tee "$DIR/scale.txt"
cat > "$DIR/README.md" <<EOF
# pfsp solve --devices and pfsp-mpi on $GPUS GPUs (issue 22 items 5 and 6)

\`PFSP_COMMIT=${PFSP_COMMIT:-?} bench/harness/device_mpi_scaling.sh\` on $GPUS x $DEVICE (backend $BACKEND), commit
${PFSP_COMMIT:-?}: \`pfsp solve --devices\` (front \`devices\`: one process, one engine per GPU, engines
after the first joining by the join rule, src/gpu/join_rule.hpp), \`mpirun -n K+1 pfsp-mpi\` (front
\`mpi\`: K worker ranks x 1 GPU), \`mpirun -n 2 pfsp-mpi --devices all\` (front \`mpi1rank\`: one
worker rank x K GPUs), \`mpirun -n 3 pfsp-mpi --devices local\` (front \`mpi2rank\`, K >= 4) and
\`mpirun -n K+1 pfsp-mpi --ranks-join lazy\` (front \`mpilazy\`: one rank first, the others
when its chunk has run --split-after seconds; the default is at-once), on ta021-ta030 from the optimum (\`--ub best-known\`) and on a $SLICE-s slice
of ta056 from best known + 1 (\`--ub 3680\`). Runs of a configuration follow each other per
instance. scale.json / scale.txt: bench/scale_table.py's tables (the third, "small trees", is item
6's check: time on K GPUs over the one-GPU time of the same front, at most 1.1); runs.tgz: each
run's JSON and the log.
EOF
SKIPPED=$(find "$RUNS" -name '*.skipped' -printf '%f\n' | sed 's/\.json\.skipped$//' | sort | tr '\n' ' ')
echo "Skipped (past DEADLINE=$DEADLINE s of the call): ${SKIPPED:-none}." >> "$DIR/README.md"
(cd "$DIR" && tar czf runs.tgz runs mpi_scaling.log 2>/dev/null)
say "done in $SECONDS s"
