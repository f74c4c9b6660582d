#!/usr/bin/env bash
# Proves Taillard instances with the CLI and checks each optimum against the best known value.
# usage: scripts/prove_taillard.sh FIRST LAST [pfsp options...]   e.g. 1 20 --backend cpu-mt
# PROVE_UB=optimum: start each search from --ub = the best known makespan (the papers' protocol;
# the status is then proven_bound when no shorter schedule exists).
# PROVE_JSON_DIR=DIR: keep each run's JSON there as NAME.json (default: discarded).
# Prints one markdown row per instance; exits non-zero if any result disagrees with the table.
set -uo pipefail
cd "$(dirname "$0")/.."
bin=${PFSP_BIN:-build/pfsp}
first=$1; last=$2; shift 2
[ -x "$bin" ] || { echo "prove_taillard.sh: no binary at $bin (build first, or set PFSP_BIN)" >&2; exit 2; }
fail=0
echo "| instance | status | makespan | best known | nodes | time (s) | wall (s) |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
for i in $(seq "$first" "$last"); do
  name=$(printf "ta%03d" "$i")
  json=$(mktemp)
  ubarg=()
  if [ "${PROVE_UB:-}" = optimum ]; then
    ubarg=(--ub "$("$bin" info "$name" | sed -n 's/.*best known *lb [0-9]*, ub \([0-9]*\).*/\1/p')")
  fi
  "$bin" solve "$name" --no-progress -q --json "$json" "${ubarg[@]}" "$@" >/dev/null
  rc=$?
  if [ ! -s "$json" ]; then echo "| $name | error (exit $rc) | | | | | |"; fail=1; rm -f "$json"; continue; fi
  read -r status mk lb known nodes secs wall < <(python3 -c "
import json,sys; j=json.load(open('$json'))
print(j['status'], j['makespan'], j['lower_bound'], j['instance']['best_known']['ub'], j['nodes']['branched'], '%.2f'%j['time_seconds'], '%.2f'%j.get('wall_seconds', 0))")
  echo "| $name | $status | $mk | $known | $nodes | $secs | $wall |"
  if [ "$status" = optimal ] && [ "$mk" != "$known" ]; then echo "MISMATCH on $name" >&2; fail=1; fi
  if [ $rc -ne 0 ] && [ "$status" = optimal ]; then fail=1; fi
  if [ -n "${PROVE_JSON_DIR:-}" ]; then mkdir -p "$PROVE_JSON_DIR" && mv "$json" "$PROVE_JSON_DIR/$name.json"; else rm -f "$json"; fi
done
exit $fail
