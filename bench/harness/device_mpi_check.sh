#!/usr/bin/env bash
# Run ON a GPU machine (one GPU is enough) from the repository root, in one device call: the
# pfsp-mpi checks of its host-side changes that no GPU ran yet (2026-11-26: the send-queue fix,
# the time limit counted from the start, the end-of-run lower bound instead of the open nodes,
# --ranks-join lazy). Builds pfsp and pfsp-mpi (bench/harness/device_mpi_scaling.sh build), then, with
# two worker ranks sharing GPU 0:
#   exact   EXACT (ta023) from the optimum: pfsp solve, pfsp-mpi at-once, lazy, and at-once with
#           chunks split after 0.2 s branch the same nodes;
#   limit   ta056 --time-limit LIMIT from best known + 1, at-once, lazy and --chunk-nodes 300
#           (chunks past the eager limit): exit code 3, no crash, rank 0's wall_seconds within
#           LIMIT + max(1 s, 5 %);
# and prints one line per run and PASS or FAIL. Writes $OUT/mpi_check/{check.txt,runs/*.json}.
# About 3 minutes on one H100 (the build about 2).
#
#   PFSP_COMMIT=<sha> bench/harness/device_mpi_check.sh            (device call; carry .deps)
#   PFSP_SCALING_BACKEND=cpu BUILD=build/cpu EXACT=ta014 LIMIT=3 bench/harness/device_mpi_check.sh   (the logic)
set -u -o pipefail
ROOT=$PWD
OUT=${OUT:-$ROOT/out/device}
BUILD=${BUILD:-$ROOT/build/device}
LIMIT=${LIMIT:-10}
EXACT=${EXACT:-ta023}  # a tree one GPU proves in seconds from the optimum
BACKEND=${PFSP_SCALING_BACKEND:-gpu}
DIR=$OUT/mpi_check
mkdir -p "$DIR/runs"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
export OMPI_MCA_rmaps_base_oversubscribe=1
CHECK=$DIR/check.txt
: >"$CHECK"
FAILED=0
say() { echo "$*" | tee -a "$CHECK"; }
fail() {
  say "FAIL: $*"
  FAILED=1
}

if [ "$BACKEND" = gpu ]; then
  OUT=$OUT BUILD=$BUILD bash "$ROOT/bench/harness/device_mpi_scaling.sh" build >"$DIR/build.txt" 2>&1 ||
    { tail -20 "$DIR/build.txt"; exit 1; }
fi
GPU_ARGS=()
[ "$BACKEND" = gpu ] && GPU_ARGS=(--devices 0)

# field FILE KEY: a number from a result JSON (its "nodes" object's KEY, or a top-level KEY).
field() {
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); k=sys.argv[2]; print(d["nodes"][k] if k in d.get("nodes", {}) else d.get(k, -1))' "$1" "$2"
}

# run NAME EXPECTED_EXIT command...: the run's JSON at runs/NAME.json; prints its line.
run() {
  local name=$1 expected=$2
  shift 2
  local json=$DIR/runs/$name.json
  timeout $((LIMIT * 3 + 60)) "$@" --json "$json" -q >"$DIR/runs/$name.log" 2>&1
  local rc=$?
  if [ ! -s "$json" ]; then
    fail "$name: exit $rc, no JSON ($(tail -3 "$DIR/runs/$name.log" | tr '\n' ' '))"
    return
  fi
  say "$name: exit $rc, status $(field "$json" status), branched $(field "$json" branched), wall $(field "$json" wall_seconds) s"
  [ "$rc" = "$expected" ] || fail "$name: exit $rc, expected $expected"
}

MPI=(mpirun -n 3 "$BUILD/pfsp-mpi")
say "pfsp-mpi checks, backend $BACKEND, commit ${PFSP_COMMIT:-?}, limit $LIMIT s"
run exact_solve 0 "$BUILD/pfsp" solve "$EXACT" --backend "$BACKEND" "${GPU_ARGS[@]}" --ub best-known --no-progress
run exact_atonce 0 "${MPI[@]}" "$EXACT" --backend "$BACKEND" "${GPU_ARGS[@]}" --ub best-known
run exact_lazy 0 "${MPI[@]}" "$EXACT" --backend "$BACKEND" "${GPU_ARGS[@]}" --ub best-known --ranks-join lazy
# Splits without the lazy join: chunks asked back after 0.2 s (is it the split or the lazy start?).
run exact_split 0 "${MPI[@]}" "$EXACT" --backend "$BACKEND" "${GPU_ARGS[@]}" --ub best-known --split-after 0.2 \
  --chunk-nodes 64
for name in exact_atonce exact_lazy exact_split; do
  if [ ! -s "$DIR/runs/$name.json" ] || [ ! -s "$DIR/runs/exact_solve.json" ]; then continue; fi
  [ "$(field "$DIR/runs/$name.json" branched)" = "$(field "$DIR/runs/exact_solve.json" branched)" ] ||
    fail "$name: branched $(field "$DIR/runs/$name.json" branched), pfsp solve $(field "$DIR/runs/exact_solve.json" branched)"
done
run limit_atonce 3 "${MPI[@]}" ta056 --backend "$BACKEND" "${GPU_ARGS[@]}" --ub 3680 --time-limit "$LIMIT"
run limit_lazy 3 "${MPI[@]}" ta056 --backend "$BACKEND" "${GPU_ARGS[@]}" --ub 3680 --time-limit "$LIMIT" --ranks-join lazy
run limit_bigchunks 3 "${MPI[@]}" ta056 --backend "$BACKEND" "${GPU_ARGS[@]}" --ub 3680 --time-limit "$LIMIT" \
  --chunk-nodes 300
ALLOWED=$(python3 -c "print($LIMIT + max(1.0, 0.05 * $LIMIT))")
for name in limit_atonce limit_lazy limit_bigchunks; do
  [ -s "$DIR/runs/$name.json" ] || continue
  python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) <= float(sys.argv[2]) else 1)" \
    "$(field "$DIR/runs/$name.json" wall_seconds)" "$ALLOWED" ||
    fail "$name: rank 0's wall $(field "$DIR/runs/$name.json" wall_seconds) s, allowed $ALLOWED s"
done
if [ "$FAILED" = 0 ]; then say PASS; else say FAIL; fi
exit "$FAILED"
