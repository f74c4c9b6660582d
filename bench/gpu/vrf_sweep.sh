#!/usr/bin/env bash
# Issue 46: a sweep over the VRF benchmark (Vallada, Ruiz & Framinan 2015; data/vrf/README.md), from
# the repository root, on the device machine or here. Extracts vrf_small.tar.xz and vrf_large.tar.xz
# from VRF_DIR into a temporary folder, runs `pfsp solve FILE --time-limit LIMIT --json J --no-progress
# -q ARGS` on each instance named by INSTANCES under /usr/bin/time (peak RSS) and a hard timeout of
# LIMIT + 30 s, and writes under $OUT:
#   vrf.jsonl      one line per run (appended to as each run ends): instance, jobs, machines, label, rc, status, makespan,
#                  lower_bound, nodes (branched), time_seconds (the solver's), wall (the process's),
#                  peak_rss_mb, the table's lb / ub / best (vrf_bounds.csv's best_ub), deviation_pct
#                  (makespan over best, %), overrun (wall > LIMIT + max(1 s, 5 % of LIMIT)), killed
#                  (a signal ended pfsp before the hard timeout: an OOM kill, most likely), hard_timeout
#   vrf_table.md   bench/vrf_table.py over vrf.jsonl
#   meta.txt       the binary, its commit, the machine, the settings
#   logs/          each run's JSON, stdout and stderr (TAR_LOGS=1: logs.tgz instead, for a device
#                  call, which brings back a limited number of files)
# Environment:
#   INSTANCES  names or globs, blank- or comma-separated (default "VFR10_*_2 VFR20_*_2"); instance 1 of
#              every size is kept for an outside check and skipped unless KEPT_OUT=1
#   LIMIT      seconds per run (default 60)
#   ARGS       extra pfsp arguments, e.g. "--backend cpu --threads 2"
#   LABEL      the runs' label in vrf.jsonl (default: ARGS, or "default")
#   PARALLEL   runs at once (default 1); with more than one, each is pinned with taskset to its own
#              CORES consecutive cores (default 2): run i of a slot s gets cores
#              CORE_BASE+s*CORES..CORE_BASE+s*CORES+CORES-1 (CORE_BASE default 0; PARALLEL=1 with
#              CORE_BASE set pins the one run to CORE_BASE..CORE_BASE+CORES-1)
#   GPUS       one run per GPU at once (default unset): sets PARALLEL to GPUS and CORES to the host's
#              cores / GPUS, and slot s runs with CUDA_VISIBLE_DEVICES=s, so that on an 8-GPU node each
#              run has one GPU and its share of the host, as on a one-GPU machine
#   DONE       JSON-lines files of earlier sweeps (blank-separated): an instance that has a line with
#              this LABEL in one of them is skipped, so that a table too long for one device call
#              is filled over several (each call appends to its own vrf.jsonl); a file that cannot
#              be read stops the sweep (exit 2)
#   PFSP       the binary (default build/carry/pfsp)
#   VRF_DIR    where the archives and vrf_bounds.csv are (default: the first of shared/data/vrf,
#              ../shared/data/vrf, data/vrf, out/vrf that has them)
#   OUT        output folder (default out/vrf_sweep)
# Example: INSTANCES='VFR100_*_2' LIMIT=60 PARALLEL=4 ARGS='--backend cpu --threads 2' bench/gpu/vrf_sweep.sh
set -u -o pipefail
ROOT=$PWD
PFSP=${PFSP:-$ROOT/build/carry/pfsp}
OUT=${OUT:-$ROOT/out/vrf_sweep}
INSTANCES=${INSTANCES:-VFR10_*_2 VFR20_*_2}
LIMIT=${LIMIT:-60}
ARGS=${ARGS:-}
LABEL=${LABEL:-${ARGS:-default}}
PARALLEL=${PARALLEL:-1}
CORES=${CORES:-2}
CORE_BASE=${CORE_BASE:-}
GPUS=${GPUS:-}
if [[ -n $GPUS ]]; then
  PARALLEL=$GPUS
  CORES=$(($(nproc) / GPUS))
fi
KEPT_OUT=${KEPT_OUT:-0}

if [[ -z ${VRF_DIR:-} ]]; then
  for d in "$ROOT/shared/data/vrf" "$ROOT/../shared/data/vrf" "$ROOT/data/vrf" "$ROOT/out/vrf"; do
    if [[ -f $d/vrf_small.tar.xz && -f $d/vrf_large.tar.xz ]]; then
      VRF_DIR=$d
      break
    fi
  done
fi
[[ -n ${VRF_DIR:-} && -f $VRF_DIR/vrf_small.tar.xz && -f $VRF_DIR/vrf_large.tar.xz && -f $VRF_DIR/vrf_bounds.csv ]] || {
  echo "vrf_sweep: no VRF data (set VRF_DIR to a folder with vrf_small.tar.xz, vrf_large.tar.xz, vrf_bounds.csv)" >&2
  exit 2
}
[[ -x $PFSP ]] || {
  echo "vrf_sweep: no pfsp binary at $PFSP (set PFSP)" >&2
  exit 2
}
mkdir -p "$OUT/logs"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
for a in small large; do tar xJf "$VRF_DIR/vrf_$a.tar.xz" -C "$WORK" || exit 2; done

# The instances DONE's sweeps ran with this label, a name a line (read once).
DONE_LIST=$WORK/done
: >"$DONE_LIST"
if [[ -n ${DONE:-} ]]; then
  # shellcheck disable=SC2086 # DONE is a list of files
  python3 - "$LABEL" $DONE >"$DONE_LIST" <<'PY' || exit 2
import json, sys
label = sys.argv[1]
for path in sys.argv[2:]:
    for line in open(path):
        d = json.loads(line) if line.strip() else {}
        if d.get("label") == label and d.get("instance"):
            print(d["instance"])
PY
fi

# The instances, in the order given, each once.
shopt -s nullglob
LIST=$WORK/list
: >"$LIST"
read -ra PATTERNS <<<"${INSTANCES//,/ }"
for pat in "${PATTERNS[@]}"; do
  pat=${pat%_Gap.txt}
  matched=0
  for f in "$WORK"/Small/${pat}_Gap.txt "$WORK"/Large/${pat}_Gap.txt; do
    [[ -f $f ]] || continue
    name=$(basename "$f" _Gap.txt)
    matched=1
    if [[ $name == *_1 && $KEPT_OUT != 1 ]]; then
      echo "vrf_sweep: skipping $name (instance 1 is kept for an outside check; KEPT_OUT=1 runs it)" >&2
      continue
    fi
    if grep -qx "$name" "$DONE_LIST"; then
      echo "vrf_sweep: skipping $name (run before, in DONE)" >&2
      continue
    fi
    grep -qx "$name" "$LIST" || echo "$name" >>"$LIST"
  done
  [[ $matched == 1 ]] || echo "vrf_sweep: no instance matches '$pat'" >&2
done
shopt -u nullglob
TOTAL=$(wc -l <"$LIST")
[[ $TOTAL -gt 0 ]] || {
  echo "vrf_sweep: no instance to run" >&2
  exit 2
}

TIME_BIN=/usr/bin/time
[[ -x $TIME_BIN ]] || {
  TIME_BIN=
  echo "vrf_sweep: /usr/bin/time missing: peak_rss_mb will be null" >&2
}
PIN=0
if [[ $PARALLEL -gt 1 || -n $CORE_BASE ]]; then
  CORE_BASE=${CORE_BASE:-0}
  if command -v taskset >/dev/null && [[ $((CORE_BASE + PARALLEL * CORES)) -le $(nproc) ]]; then
    PIN=1
  else
    echo "vrf_sweep: not pinning ($PARALLEL x $CORES cores on $(nproc), or no taskset)" >&2
  fi
fi
{
  echo "pfsp: $PFSP ($("$PFSP" --version 2>/dev/null | head -1))"
  echo "host: $(hostname), $(nproc) cores, $(free -g 2>/dev/null | awk '/Mem:/{print $2 " GiB"}')"
  command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,memory.total --format=csv,noheader | sed 's/^/gpu: /'
  echo "VRF_DIR=$VRF_DIR INSTANCES=$INSTANCES ($TOTAL runs) LIMIT=$LIMIT ARGS=$ARGS LABEL=$LABEL"
  echo "PARALLEL=$PARALLEL CORES=$CORES CORE_BASE=${CORE_BASE:-0} pinned=$PIN GPUS=${GPUS:-} started $(date -u +%FT%TZ)"
} >"$OUT/meta.txt"
cat "$OUT/meta.txt"

SAFE_LABEL=$(printf %s "$LABEL" | tr -cs 'A-Za-z0-9.' _ | sed 's/^_*//; s/_*$//')

# One run: instance name, slot.
run_one() {
  local name=$1 slot=$2
  local dir=Small
  [[ ${name#VFR} =~ ^([0-9]+)_ ]] && ((BASH_REMATCH[1] > 60)) && dir=Large
  local file=$WORK/$dir/${name}_Gap.txt tag=$OUT/logs/$name.$SAFE_LABEL
  local pin=()
  ((PIN)) && pin=(taskset -c "$((CORE_BASE + slot * CORES))-$((CORE_BASE + slot * CORES + CORES - 1))")
  [[ -n $GPUS ]] && pin=(env CUDA_VISIBLE_DEVICES="$slot" "${pin[@]}")
  local meter=()
  [[ -n $TIME_BIN ]] && meter=("$TIME_BIN" -f %M -o "$tag.rss")
  rm -f "$tag.json" "$tag.rss"
  local t0 t1 rc
  t0=$(date +%s.%N)
  # shellcheck disable=SC2086 # ARGS is a list of words
  timeout -k 10 "$((${LIMIT%.*} + 30))" "${pin[@]}" "${meter[@]}" "$PFSP" solve "$file" --time-limit "$LIMIT" \
    --json "$tag.json" --no-progress -q $ARGS >"$tag.out" 2>"$tag.err"
  rc=$?
  t1=$(date +%s.%N)
  python3 - "$VRF_DIR/vrf_bounds.csv" "$tag" "$name" "$LABEL" "$rc" "$t0" "$t1" "$LIMIT" <<'EOF'
import csv, json, os, sys
bounds, tag, name, label, rc, t0, t1, limit = sys.argv[1:]
rc, wall, limit = int(rc), float(t1) - float(t0), float(limit)
try:
    r = json.load(open(tag + ".json"))
except Exception:
    r = {}
row = next((x for x in csv.DictReader(open(bounds)) if x["name"] == name), {})
rss, signal = None, None
if os.path.exists(tag + ".rss"):
    for line in open(tag + ".rss"):
        line = line.strip()
        if line.isdigit():
            rss = round(int(line) / 1024, 1)
        elif "signal" in line:
            signal = line
best = int(row["best_ub"]) if row.get("best_ub") else None
mk = r.get("makespan")
hard = rc in (124, 137) and wall >= limit + 30
print(json.dumps({
    "instance": name, "jobs": int(row.get("jobs", 0)) or None, "machines": int(row.get("machines", 0)) or None,
    "label": label, "rc": rc, "status": r.get("status"), "makespan": mk, "lower_bound": r.get("lower_bound"),
    "nodes": (r.get("nodes") or {}).get("branched"), "time_seconds": r.get("time_seconds"),
    "wall": round(wall, 3), "peak_rss_mb": rss,
    "lb": int(row["lb"]) if row.get("lb") else None, "ub": int(row["ub"]) if row.get("ub") else None, "best": best,
    "deviation_pct": round(100.0 * (mk - best) / best, 4) if mk and best else None,
    "overrun": wall > limit + max(1.0, 0.05 * limit), "limit": limit,
    "killed": (rc >= 128 or signal is not None) and not hard, "signal": signal, "hard_timeout": hard,
}))
EOF
}

# PARALLEL workers take the next instance from the list (a counter under flock) until none is left.
echo 0 >"$WORK/next"
worker() {
  local slot=$1 i name
  while :; do
    {
      flock 9
      i=$(<"$WORK/next")
      echo $((i + 1)) >"$WORK/next"
    } 9>"$WORK/next.lock"
    ((i < TOTAL)) || break
    name=$(sed -n "$((i + 1))p" "$LIST")
    run_one "$name" "$slot" >>"$WORK/slot$slot.jsonl"
    { flock 9; tail -1 "$WORK/slot$slot.jsonl" >>"$OUT/vrf.jsonl"; } 9>"$WORK/out.lock"  # kept if the sweep is killed
    echo "[$((i + 1))/$TOTAL] $name: $(tail -1 "$WORK/slot$slot.jsonl" | python3 -c 'import json,sys; d=json.loads(sys.stdin.read()); print(d["status"], d["makespan"], "rc", d["rc"], "wall", d["wall"])')"
  done
}
for ((s = 0; s < PARALLEL; s++)); do worker "$s" & done
wait
python3 "$ROOT/bench/vrf_table.py" "$OUT/vrf.jsonl" >"$OUT/vrf_table.md" && cat "$OUT/vrf_table.md"
if [[ ${TAR_LOGS:-0} == 1 ]]; then
  (cd "$OUT" && tar czf logs.tgz logs && rm -rf logs)
fi
