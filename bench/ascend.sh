#!/usr/bin/env bash
# Lower bound by ascent (issue 44 item 2): where a run stalls with an incumbent above the optimum
# and the trees from the incumbent are huge but those from the optimum small (ta090, ta101:
# docs/benchmarks.md, "ta090 and ta101 wait for a schedule"), complete searches from an upper
# bound L = LB, LB + 1, ... each either end with "no schedule shorter than L" (the optimum is at
# least L: go on) or find a schedule below L, which the earlier steps prove optimal. Every step is
# a plain `pfsp solve INSTANCE --ub L` (exact by itself); the ascent only chains them.
#
#   bench/ascend.sh INSTANCE [pfsp solve options...]
# Environment:
#   PFSP       the binary (default build/carry/pfsp, else build/cpu/pfsp)
#   START      the first L (default: the lower bound of a first run with the options and
#              --time-limit START_SECONDS, default 10; that run's incumbent is kept as the answer
#              should the ascent reach it)
#   STEP_LIMIT seconds a step at most (default 60); a step stopped by it ends the ascent
#   BUDGET     seconds for all the steps together (default 600)
#   OUT        folder for each step's JSON and the table ascend.tsv (default out/ascend)
# Prints one row a step: L, status, makespan, lower bound, nodes, search seconds; exit 0 when the
# optimum is proven, 3 when the budget or a step's limit ran out first.
set -u -o pipefail
[[ $# -ge 1 ]] || { echo "usage: bench/ascend.sh INSTANCE [pfsp solve options...]" >&2; exit 2; }
inst=$1
shift
ROOT=$PWD
PFSP=${PFSP:-$([ -x "$ROOT/build/carry/pfsp" ] && echo "$ROOT/build/carry/pfsp" || echo "$ROOT/build/cpu/pfsp")}
OUT=${OUT:-$ROOT/out/ascend}
STEP_LIMIT=${STEP_LIMIT:-60}
BUDGET=${BUDGET:-600}
mkdir -p "$OUT"
field() { python3 -c "import json,sys; r=json.load(open(sys.argv[1])); v=r.get(sys.argv[2]); print(v if v is not None else '')" "$@"; }
nodes() { python3 -c "import json,sys; print((json.load(open(sys.argv[1])).get('nodes') or {}).get('branched', ''))" "$1"; }
step() {  # step NAME ARGS...: one pfsp run, its JSON at $OUT/NAME.json; prints its row
  local name=$1
  shift
  "$PFSP" solve "$inst" --json "$OUT/$name.json" --no-progress -q "$@" "${opts[@]}" >"$OUT/$name.out" 2>&1
  local rc=$?
  printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\n" "$name" "$rc" "$(field "$OUT/$name.json" status)" \
    "$(field "$OUT/$name.json" makespan)" "$(field "$OUT/$name.json" lower_bound)" "$(nodes "$OUT/$name.json")" \
    "$(field "$OUT/$name.json" time_seconds)" | tee -a "$OUT/ascend.tsv"
}
opts=("$@")
printf "step\trc\tstatus\tmakespan\tlower_bound\tnodes\tsearch_s\n" | tee "$OUT/ascend.tsv"
t0=$SECONDS
if [[ -z ${START:-} ]]; then
  step first --time-limit "${START_SECONDS:-10}"
  [[ $(field "$OUT/first.json" status) == optimal ]] && exit 0
  START=$(field "$OUT/first.json" lower_bound)
  best=$(field "$OUT/first.json" makespan)
fi
best=${best:-}
L=$START
# What the ascent itself proved: the last L whose step ended proven_bound (none yet).
proved() { if [[ -n ${last:-} ]]; then echo "the optimum is at least $last"; else echo "no step proved a bound"; fi; }
while true; do
  left=$((BUDGET - (SECONDS - t0)))
  ((left > 0)) || { echo "budget spent: $(proved)" | tee -a "$OUT/ascend.tsv"; exit 3; }
  limit=$((left < STEP_LIMIT ? left : STEP_LIMIT))
  step "ub$L" --ub "$L" --time-limit "$limit"
  status=$(field "$OUT/ub$L.json" status)
  case $status in
    proven_bound) last=$L ;;  # nothing below L: the optimum is at least L
    optimal)
      echo "optimum $(field "$OUT/ub$L.json" makespan) proven by step ub$L" |
        tee -a "$OUT/ascend.tsv"
      exit 0
      ;;
    *)
      echo "step ub$L ended $status: $(proved)${best:+, at most $best}" | tee -a "$OUT/ascend.tsv"
      exit 3
      ;;
  esac
  if [[ -n $best && $((L + 1)) -ge $best ]]; then
    echo "optimum $best proven (no schedule shorter than $L; the first run's schedule has $best)" | tee -a "$OUT/ascend.tsv"
    exit 0
  fi
  L=$((L + 1))
done
