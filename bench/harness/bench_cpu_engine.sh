#!/usr/bin/env bash
# Issue 21's CPU targets: `pfsp solve` with the defaults on cpu-mt, THREADS threads (default 2),
# LIMIT seconds (default 20), on INSTANCES (default ta081 ta111), one JSON result each under DIR,
# then the table (bench/engine_table.py solves) as DIR/../big_cpu_<threads>t_<limit>s.md... here:
# DIR/big_table.md. Load average before and after are printed: the machine should be quiet.
#   DIR=bench/results/2026-11-26-2core-engine bench/harness/bench_cpu_engine.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
PFSP=${PFSP:-build/cpu/pfsp}
DIR=${DIR:-out/cpu-engine}
THREADS=${THREADS:-2}
LIMIT=${LIMIT:-20}
INSTANCES=${INSTANCES:-"ta081 ta111"}
mkdir -p "$DIR/results"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores; $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1)"
for name in $INSTANCES; do
  rc=0
  "$PFSP" solve "$name" --backend cpu-mt --threads "$THREADS" --time-limit "$LIMIT" --no-progress \
    --json "$DIR/results/$name.json" >/dev/null || rc=$?
  echo "$name: exit $rc, $(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(d['status'], d['makespan'], 'best known', d['instance']['best_known']['ub'], 'wall', round(d['wall_seconds'],2))" "$DIR/results/$name.json")"
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 bench/engine_table.py solves "$DIR/results" --out "$DIR/big_table.md" \
  --title "cpu-mt, $THREADS threads, $LIMIT s, defaults (this machine: $(nproc) cores)"
