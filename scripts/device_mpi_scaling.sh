#!/usr/bin/env bash
# Run ON a 4-GPU machine from the repository root (issue 22, items 4-6): pfsp-mpi on the
# machine's GPUs as 1 worker rank x 4 GPUs (--devices all), 2 x 2 (--devices local) and 4 x 1
# (one device per rank), each plus rank 0 (the coordinator), beside `pfsp solve --devices all`
# and `pfsp solve` on one GPU. Workloads: ta056 slices (--ub 3680 --time-limit SLICE: the node
# rate) and ta021-ta030 from the optimum (--ub best-known: the time to proof; every config
# branches the same tree). Each run writes its JSON under $OUT/mpi_scaling_runs; the summary is
# $OUT/mpi_scaling.json (one record per run) and the log $OUT/mpi_scaling.log.
# About 6 minutes on 4 GPUs (5 configs x (one 30-s slice + ten small proofs)); a run that would
# start past DEADLINE seconds of runs is skipped (recorded as skipped), so the runs end in time.
#
#   scripts/device_mpi_scaling.sh [build|run]   (run, the default, builds first if needed)
#   BUILD=build/device  OUT=out/device  SLICE=30  SMALL="ta021 ... ta030"  DEADLINE=420
# Build and run in two device calls (each under 10 minutes): `... build`, then `... run`.
# Testing the shell logic without a GPU: PFSP_SCALING_BACKEND=cpu (every run on --backend cpu,
# --devices dropped, GPUS=4 unless set), e.g.
#   PFSP_SCALING_BACKEND=cpu BUILD=build/cpu SLICE=2 SMALL="ta001 ta002" scripts/device_mpi_scaling.sh
set -u -o pipefail
ROOT=$PWD
OUT=${OUT:-$ROOT/out/device}
BUILD=${BUILD:-$ROOT/build/device}
SLICE=${SLICE:-30}
SMALL=${SMALL:-"ta021 ta022 ta023 ta024 ta025 ta026 ta027 ta028 ta029 ta030"}
DEADLINE=${DEADLINE:-420}
BACKEND=${PFSP_SCALING_BACKEND:-gpu}
RUNS=$OUT/mpi_scaling_runs
LOG=$OUT/mpi_scaling.log
STARTED=$SECONDS
mkdir -p "$RUNS"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
export OMPI_MCA_rmaps_base_oversubscribe=1

build() {
  [ -x "$BUILD/pfsp-mpi" ] && [ -x "$BUILD/pfsp" ] && return 0
  [ "$BACKEND" = gpu ] || { echo "no $BUILD/pfsp-mpi (build it first)" | tee -a "$LOG"; exit 1; }
  echo "== $(date +%T) building in $BUILD" | tee -a "$LOG"
  if ! cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DPFSP_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DPFSP_WERROR=OFF -DPFSP_BUILD_TESTS=OFF -DPFSP_BUILD_BENCH=OFF > "$RUNS/configure.log" 2>&1 ||
    ! cmake --build "$BUILD" -j"$(nproc)" --target pfsp pfsp-mpi > "$RUNS/build.log" 2>&1; then
    echo "build failed: $RUNS/configure.log, $RUNS/build.log" | tee -a "$LOG"
    exit 1
  fi
}

build
[ "${1:-run}" = build ] && exit 0
STARTED=$SECONDS  # the deadline counts the runs only: build in a call of its own (`build`)
rm -f "$RUNS"/*.json
if [ "$BACKEND" = gpu ]; then
  GPUS=${GPUS:-$(nvidia-smi -L | wc -l)}
else
  GPUS=${GPUS:-4}
fi
[ "$GPUS" -ge 1 ] || { echo "no GPU" | tee -a "$LOG"; exit 1; }

devices() {  # --devices SPEC on the GPU backend; nothing on the cpu stand-in
  [ "$BACKEND" = gpu ] && echo "--devices $1"
}

run() {  # name instance command...: one run, its JSON at $RUNS/name_instance.json
  local name=$1 inst=$2; shift 2
  local json=$RUNS/${name}_${inst}.json
  if [ $((SECONDS - STARTED)) -ge "$DEADLINE" ]; then
    echo "== $(date +%T) $name $inst: skipped (past DEADLINE=$DEADLINE s)" | tee -a "$LOG"
    echo "{\"skipped\": true}" > "$json"
    return
  fi
  echo "== $(date +%T) $name $inst: $*" | tee -a "$LOG"
  local t0=$SECONDS
  timeout "$((SLICE + 90))" "$@" --json "$json" -q >> "$LOG" 2>&1
  echo "   exit $?, $((SECONDS - t0)) s" | tee -a "$LOG"
}

# Every configuration on one instance; the rank counts include rank 0 (the coordinator).
configs() {  # instance args...
  local inst=$1; shift
  # shellcheck disable=SC2046
  run solve_1gpu "$inst" "$BUILD/pfsp" solve "$inst" --backend "$BACKEND" $(devices 0) "$@"
  # shellcheck disable=SC2046
  run solve_all "$inst" "$BUILD/pfsp" solve "$inst" --backend "$BACKEND" $(devices all) "$@"
  # shellcheck disable=SC2046
  run "mpi_1x${GPUS}" "$inst" mpirun -n 2 "$BUILD/pfsp-mpi" "$inst" --backend "$BACKEND" $(devices all) "$@"
  if [ "$GPUS" -ge 4 ] && [ $((GPUS % 2)) -eq 0 ]; then
    # shellcheck disable=SC2046
    run "mpi_2x$((GPUS / 2))" "$inst" mpirun -n 3 "$BUILD/pfsp-mpi" "$inst" --backend "$BACKEND" $(devices local) "$@"
  fi
  run "mpi_${GPUS}x1" "$inst" mpirun -n $((GPUS + 1)) "$BUILD/pfsp-mpi" "$inst" --backend "$BACKEND" "$@"
}

echo "== $(date +%T) $GPUS GPUs, backend $BACKEND, slice $SLICE s, deadline $DEADLINE s" | tee -a "$LOG"
configs ta056 --ub 3680 --time-limit "$SLICE"
for i in $SMALL; do configs "$i" --ub best-known; done

python3 - "$RUNS" "$OUT/mpi_scaling.json" "$GPUS" "$BACKEND" <<'PY'
import glob, json, os, sys
runs, out, gpus, backend = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
rows = []
for path in sorted(glob.glob(os.path.join(runs, "*.json"))):
    config, inst = os.path.basename(path)[:-5].rsplit("_", 1)
    row = {"config": config, "instance": inst}
    try:
        j = json.load(open(path))
    except Exception as e:  # a run that died before writing its JSON
        rows.append(dict(row, error=str(e)))
        continue
    if j.get("skipped"):
        rows.append(dict(row, skipped=True))
        continue
    secs, br = j.get("time_seconds"), (j.get("nodes") or {}).get("branched")
    rows.append(dict(row, status=j.get("status"), makespan=j.get("makespan"), seconds=secs,
                     wall_seconds=j.get("wall_seconds"), branched=br, backend=j.get("backend"),
                     rate_M_nodes_s=(br / secs / 1e6) if br and secs else None,
                     notes=[n for n in j.get("notes", []) if "time (busy" in n or "load" in n]))
# Summary: the ta056 rate and the ta021-ta030 search time per config, against one GPU.
summary = {}
for r in rows:
    if r.get("seconds") is None:
        continue
    s = summary.setdefault(r["config"], {"slice_rate_M_nodes_s": None, "small_seconds": 0.0, "small_runs": 0,
                                         "small_branched": 0})
    if r["instance"] == "ta056":
        s["slice_rate_M_nodes_s"] = r["rate_M_nodes_s"]
    else:
        s["small_seconds"] += r["seconds"]
        s["small_runs"] += 1
        s["small_branched"] += r["branched"] or 0
base = summary.get("solve_1gpu")
for s in summary.values():
    if base and base["slice_rate_M_nodes_s"] and s["slice_rate_M_nodes_s"]:
        s["slice_speedup"] = s["slice_rate_M_nodes_s"] / base["slice_rate_M_nodes_s"]
        s["slice_efficiency"] = s["slice_speedup"] / gpus
    if base and base["small_seconds"] and s["small_runs"] == base["small_runs"]:
        s["small_time_ratio"] = s["small_seconds"] / base["small_seconds"]
doc = {"gpus": gpus, "backend": backend, "summary": summary, "rows": rows}
tmp = out + ".tmp"
json.dump(doc, open(tmp, "w"), indent=1)
os.replace(tmp, out)
print(f"{'config':12} {'ta056 M nodes/s':>16} {'x 1 GPU':>8} {'small s':>9} {'/ 1 GPU':>8} {'branched':>12}")
for c, s in summary.items():
    rate = s["slice_rate_M_nodes_s"]
    print(f"{c:12} {rate if rate is not None else float('nan'):16.1f} {s.get('slice_speedup', float('nan')):8.2f} "
          f"{s['small_seconds']:9.2f} {s.get('small_time_ratio', float('nan')):8.2f} {s['small_branched']:12d}")
PY
echo "== $(date +%T) done in $((SECONDS - STARTED)) s" | tee -a "$LOG"
