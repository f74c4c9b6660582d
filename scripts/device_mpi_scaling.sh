#!/usr/bin/env bash
# Run ON a 4-GPU machine from the repository root (issue 22, item 5): pfsp-mpi on 4 GPUs as
# 4 ranks x 1 GPU (plus rank 0, the coordinator), and, where this pfsp-mpi has --devices,
# 2 ranks x 2 GPUs and 1 rank x 4 GPUs; beside them `pfsp solve --devices all` and one GPU.
# Workloads: ta056 slices (--ub 3680 --time-limit 30: the node rate) and ta021-ta030 from the
# optimum (--ub best-known: the time to proof). Each run writes its JSON; the summary is
# $OUT/mpi_scaling.json (one record per run: config, instance, status, seconds, branched, rate).
#
#   BUILD=build/device (pfsp and pfsp-mpi built there, e.g. by scripts/device_run.sh STAGES=build)
#   SLICE=30  SMALL="ta021 ... ta030"  OUT=out/device
set -u -o pipefail
ROOT=$PWD
OUT=${OUT:-$ROOT/out/device}
BUILD=${BUILD:-$ROOT/build/device}
SLICE=${SLICE:-30}
SMALL=${SMALL:-"ta021 ta022 ta023 ta024 ta025 ta026 ta027 ta028 ta029 ta030"}
RUNS=$OUT/mpi_scaling_runs
mkdir -p "$RUNS"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
export OMPI_MCA_rmaps_base_oversubscribe=1
if [ ! -x "$BUILD/pfsp-mpi" ]; then
  cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DPFSP_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DPFSP_WERROR=OFF > "$RUNS/configure.log" 2>&1 && cmake --build "$BUILD" -j"$(nproc)" --target pfsp pfsp-mpi \
    > "$RUNS/build.log" 2>&1 || { echo "build failed: $RUNS/build.log"; exit 1; }
fi
GPUS=$(nvidia-smi -L | wc -l)
has_devices=0
"$BUILD/pfsp-mpi" --help 2>/dev/null | grep -q -- "--devices" && has_devices=1

run() {  # name instance args...: one run, its JSON under $RUNS/name_instance.json
  local name=$1 inst=$2; shift 2
  local json=$RUNS/${name}_${inst}.json
  echo "== $(date +%T) $name $inst: $*" | tee -a "$RUNS/commands.log"
  timeout 900 "$@" --json "$json" -q >> "$RUNS/stdout.log" 2>> "$RUNS/stderr.log" || true
}
configs() {  # instance args...: every configuration on this instance
  local inst=$1; shift
  run solve_1gpu "$inst" "$BUILD/pfsp" solve "$inst" --backend gpu --devices 0 "$@"
  run solve_all "$inst" "$BUILD/pfsp" solve "$inst" --backend gpu --devices all "$@"
  run mpi_4x1 "$inst" mpirun -n $((GPUS + 1)) "$BUILD/pfsp-mpi" "$inst" --backend gpu "$@"
  if [ $has_devices = 1 ] && [ "$GPUS" -ge 4 ]; then
    run mpi_2x2 "$inst" mpirun -n 3 "$BUILD/pfsp-mpi" "$inst" --backend gpu --devices "rank-pairs" "$@"
    run mpi_1x4 "$inst" mpirun -n 2 "$BUILD/pfsp-mpi" "$inst" --backend gpu --devices all "$@"
  fi
}
configs ta056 --ub 3680 --time-limit "$SLICE"
for i in $SMALL; do configs "$i" --ub best-known; done

python3 - "$RUNS" "$OUT/mpi_scaling.json" <<'PY'
import glob, json, os, sys
runs, out = sys.argv[1], sys.argv[2]
rows = []
for path in sorted(glob.glob(os.path.join(runs, "*.json"))):
    name = os.path.basename(path)[:-5]
    config, inst = name.rsplit("_", 1)
    try:
        j = json.load(open(path))
    except Exception as e:
        rows.append({"config": config, "instance": inst, "error": str(e)}); continue
    st = j.get("stats", j)
    secs = st.get("total_seconds") or j.get("seconds")
    br = st.get("branched")
    rows.append({"config": config, "instance": inst, "status": j.get("status"), "seconds": secs, "branched": br,
                 "rate_M_nodes_s": (br / secs / 1e6) if br and secs else None, "backend": j.get("backend")})
json.dump(rows, open(out, "w"), indent=1)
print(json.dumps(rows, indent=1))
PY
