#!/usr/bin/env bash
# Runs `pfsp solve taXXX --time-limit LIMIT --json ...` with the default options on Taillard's
# instances (all 120 unless INSTANCES says), spread over the visible GPUs: one process per GPU at
# a time (CUDA_VISIBLE_DEVICES), N GPUs in parallel. Checks that every run ends with exit code 0
# (optimal) or 3 (time limit) within LIMIT + max(1 s, 5 % of LIMIT) of wall time, and writes
# under $OUT/sweep: sweep.tsv (one line an instance: instance, gpu, exit code, wall seconds, the
# allowance, ok, status, makespan, lower bound, nodes branched, the search's seconds from the JSON), sweep.json
# (the same as a list, plus the totals), the JSON results and the stderr logs (packed into
# sweep_logs.tgz). Exit status 0 when every run passed, 1 otherwise.
#
#   PFSP=build/device/src/app/pfsp LIMIT=30 INSTANCES="ta001 ta056 ta112" GPUS=4 EXTRA_ARGS="" PIN=1 bench/harness/sweep_taillard.sh
#
# Run ON the GPU machine from the repository root (bench/harness/device_run.sh's sweep30 stage builds
# pfsp first and calls it).
set -u -o pipefail
OUT=${OUT:-$PWD/out/device}
DIR=$OUT/sweep
PFSP=${PFSP:-$PWD/build/device/src/app/pfsp}
LIMIT=${LIMIT:-30}
EXTRA_ARGS=${EXTRA_ARGS:-}
if [[ -z ${INSTANCES:-} ]]; then
  INSTANCES=$(for i in $(seq 1 120); do printf 'ta%03d ' "$i"; done)
fi
GPUS=${GPUS:-$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')}
((GPUS >= 1)) || GPUS=1
# PER_GPU processes share each GPU (default 1): SLOTS = GPUS x PER_GPU runs at a time; slot s uses
# GPU s % GPUS. More than one per GPU halves each run's GPU (a stricter test of the time limits, a
# pessimistic one of the makespans).
PER_GPU=${PER_GPU:-1}
SLOTS=$((GPUS * PER_GPU))
# PIN=1 (default where taskset exists and SLOTS > 1): slot s runs on its own block of nproc / SLOTS
# cores (taskset), so that each process's engine sizes its threads for one GPU's share of the host.
# Two sweeps may share a machine: GPU_LIST names the GPUs of this one (slot s uses the (s % GPUS)-th
# of them; default 0 .. GPUS-1), CORE_FIRST its first core and CORES_PER_SLOT each slot's cores
# (default nproc / SLOTS), e.g. GPUS=2 GPU_LIST="2 3" CORE_FIRST=32 CORES_PER_SLOT=16.
PIN=${PIN:-1}
command -v taskset >/dev/null || PIN=0
((SLOTS > 1)) || [[ -n ${CORE_FIRST:-} ]] || PIN=0
CORES_PER_SLOT=${CORES_PER_SLOT:-$(($(nproc) / SLOTS))}
CORE_FIRST=${CORE_FIRST:-0}
read -r -a GPU_IDS <<<"${GPU_LIST:-$(seq -s ' ' 0 $((GPUS - 1)))}"
((${#GPU_IDS[@]} == GPUS)) || { echo "sweep_taillard.sh: GPU_LIST has ${#GPU_IDS[@]} GPUs, GPUS=$GPUS" >&2; exit 1; }
((CORES_PER_SLOT >= 1)) || PIN=0
mkdir -p "$DIR/results" "$DIR/logs"
[[ -x $PFSP ]] || { echo "sweep_taillard.sh: no pfsp at $PFSP (set PFSP)" >&2; exit 1; }

# The allowance: LIMIT + max(1, 0.05 LIMIT) seconds.
ALLOWED=$(awk -v t="$LIMIT" 'BEGIN { a = 0.05 * t; if (a < 1) a = 1; printf "%.3f", t + a }')

# One GPU's share: the instances i with i % GPUS == g, one after another.
run_share() {
  local g=$1 k=0 name
  for name in $INSTANCES; do
    if ((k++ % SLOTS != g)); then continue; fi
    local json=$DIR/results/$name.json log=$DIR/logs/$name.log
    local t0 t1 rc
    t0=$(date +%s.%N)
    # shellcheck disable=SC2086
    local pin=()
    ((PIN)) && pin=(taskset -c "$((CORE_FIRST + g * CORES_PER_SLOT))-$((CORE_FIRST + (g + 1) * CORES_PER_SLOT - 1))")
    CUDA_VISIBLE_DEVICES=${GPU_IDS[$((g % GPUS))]} timeout $((LIMIT * 3 + 120)) "${pin[@]}" "$PFSP" solve "$name" --time-limit "$LIMIT" --json "$json" \
      --no-progress $EXTRA_ARGS >"$log.out" 2>"$log"
    rc=$?
    t1=$(date +%s.%N)
    local wall ok
    wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
    ok=$(awk -v rc="$rc" -v w="$wall" -v lim="$ALLOWED" 'BEGIN { print ((rc == 0 || rc == 3) && w <= lim) ? "ok" : "FAIL" }')
    local fields="-	-	-	-	-"
    if [[ -s $json ]]; then
      fields=$(python3 - "$json" <<'PY' 2>/dev/null || echo "-	-	-	-	-"
import json, sys
r = json.load(open(sys.argv[1]))
nodes = r.get("nodes", {})
print("\t".join(str(v) for v in (r.get("status", "-"), r.get("makespan", "-"), r.get("lower_bound", "-"),
                                   nodes.get("branched", "-") if isinstance(nodes, dict) else nodes,
                                   r.get("time_seconds", "-"))))
PY
)
    fi
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "${GPU_IDS[$((g % GPUS))]}" "$rc" "$wall" "$ALLOWED" "$ok" "$fields" >>"$DIR/share_$g.tsv"
    echo "$name gpu ${GPU_IDS[$((g % GPUS))]}: rc=$rc wall=$wall s (allowed $ALLOWED) $ok"
  done
}

rm -f "$DIR"/share_*.tsv
echo "sweep: $(echo $INSTANCES | wc -w) instances, --time-limit $LIMIT, $GPUS GPU(s) x $PER_GPU, $( ((PIN)) && echo "each pinned to $CORES_PER_SLOT of $(nproc) cores" || echo "unpinned"), pfsp $PFSP $EXTRA_ARGS"
pids=()
for ((g = 0; g < SLOTS; ++g)); do
  run_share "$g" &
  pids+=($!)
done
for p in "${pids[@]}"; do wait "$p"; done

TSV=$DIR/sweep.tsv
printf 'instance\tgpu\texit\twall_s\tallowed_s\tok\tstatus\tmakespan\tlower_bound\tnodes\tsearch_s\n' >"$TSV"
cat "$DIR"/share_*.tsv 2>/dev/null | sort >>"$TSV"
rm -f "$DIR"/share_*.tsv
python3 - "$TSV" "$DIR/sweep.json" "$LIMIT" <<'PY'
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
bad = [r["instance"] for r in rows if r["ok"] != "ok"]
walls = [float(r["wall_s"]) for r in rows]
json.dump({"time_limit": float(sys.argv[3]), "runs": rows, "count": len(rows), "failed": bad,
           "max_wall_s": max(walls) if walls else None,
           "exit_codes": {c: sum(r["exit"] == c for r in rows) for c in sorted({r["exit"] for r in rows})}},
          open(sys.argv[2], "w"), indent=1)
print(f"sweep: {len(rows)} runs, {len(rows) - len(bad)} ok, failed: {' '.join(bad) or 'none'}; "
      f"longest wall {max(walls) if walls else 0:.2f} s")
PY
(cd "$DIR" && tar czf "$OUT/sweep_logs.tgz" results logs 2>/dev/null)
n_bad=$(awk -F'\t' 'NR > 1 && $6 != "ok"' "$TSV" | wc -l)
[[ $n_bad -eq 0 ]]
