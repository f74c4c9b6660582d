#!/usr/bin/env bash
# Issue 44 item 2: the solution-guided child order on the GPU's device loop (decision 014), on one
# GPU machine from the repository root, with the binaries of bench/harness/carry_gpu_tests.sh pack
# (device call with carry [".carry/t", "shared"]). Writes under $OUT/guided:
#   runs.jsonl    one line a run: instance, order, exit code, status, makespan, lower bound, nodes,
#                 seconds, the seconds to the final makespan (from the JSON's progress trace)
#   summary.txt   the GPU, the commit, one line a run
#   logs.tgz      the JSON results and stderr logs
# Stages (STAGES, comma-separated):
#   pairs   PAIRS instances from scratch, default options, --child-order bound then incumbent,
#           PAIR_LIMIT seconds each
#   long    LONG instances from scratch with the defaults (the guided order), LONG_LIMIT seconds each
#
#   STAGES=pairs PAIRS="ta021 ta042" PAIR_LIMIT=20 LONG="ta090 ta101" LONG_LIMIT=240 bench/gpu/device_guided.sh
set -u -o pipefail
ROOT=$PWD
B=${BUILD:-$ROOT/build/carry}
OUT=${OUT:-$ROOT/out/device}/guided
STAGES=${STAGES:-pairs,long}
PAIRS=${PAIRS:-"ta021 ta022 ta023 ta024 ta025 ta026 ta027 ta028 ta029 ta030 ta041 ta042 ta043 ta044 ta045 ta046 ta047 ta048 ta049 ta050"}
PAIR_LIMIT=${PAIR_LIMIT:-20}
LONG=${LONG:-"ta090 ta101"}
LONG_LIMIT=${LONG_LIMIT:-240}
mkdir -p "$OUT/logs"
has() { [[ ",$STAGES," == *",$1,"* ]]; }
say() { echo "== $(date +%T) $*" | tee -a "$OUT/summary.txt"; }
finish() { (cd "$OUT/logs" && tar czf "$OUT/logs.tgz" . 2>/dev/null) && rm -rf "$OUT/logs"; }
trap finish EXIT

if [[ ! -x $B/pfsp ]]; then
  mkdir -p "$B"
  xz -dc .carry/t/pfsp.xz >"$B/pfsp" && chmod +x "$B/pfsp"
fi
[ -e ../shared ] || ln -s "$ROOT/shared" ../shared
say "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1), commit ${PFSP_COMMIT:-?}, $(nproc) cores"

# One run as a JSON line: instance, order label, seconds, then pfsp's extra arguments.
run() {
  local name=$1 order=$2 limit=$3
  shift 3
  local j=$OUT/logs/$name.$order.json
  timeout $((limit + 60)) "$B/pfsp" solve "$name" --child-order "$order" --time-limit "$limit" "$@" \
    --json "$j" --no-progress -q >/dev/null 2>"$OUT/logs/$name.$order.err"
  local rc=$?
  python3 - "$j" "$name" "$order" "$rc" >>"$OUT/runs.jsonl" <<'EOF'
import json, sys
path, name, order, rc = sys.argv[1:]
try:
    r = json.load(open(path))
except Exception as e:
    r = {"error": str(e)}
best = r.get("makespan")
trace = r.get("progress") or []
to_best = min((p.get("elapsed") for p in trace if p.get("best") == best), default=None)
print(json.dumps({"instance": name, "order": order, "rc": int(rc), "status": r.get("status"),
                  "makespan": best, "lower_bound": r.get("lower_bound"),
                  "nodes": (r.get("nodes") or {}).get("branched"), "seconds": r.get("time_seconds"),
                  "seconds_to_best": to_best, "backend": r.get("backend"), "commit": r.get("commit"),
                  "command": r.get("command")}))
EOF
  say "$(tail -1 "$OUT/runs.jsonl")"
}

if has pairs; then
  for t in $PAIRS; do
    run "$t" bound "$PAIR_LIMIT"
    run "$t" incumbent "$PAIR_LIMIT"
  done
fi
if has long; then
  for t in $LONG; do run "$t" incumbent "$LONG_LIMIT"; done
fi
say done
