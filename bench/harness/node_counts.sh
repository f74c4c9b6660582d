#!/usr/bin/env bash
# Node counts of every backend from --ub = the optimum (issue 12's "no behaviour change" check):
# with the optimum as the upper bound the set of branched nodes is fixed, so a refactoring must
# leave branched, bounds, pruned and leaves unchanged. Prints one line per run:
#   backend bound branching instance branched bounds pruned leaves status
# usage: bench/harness/node_counts.sh PFSP_BINARY [BACKENDS] [INSTANCES]
#   BACKENDS default "cpu cpu-mt" (add gpu, or gpu-host for --backend gpu --gpu-loop host)
#   INSTANCES default "ta003 ta011 ta012 ta014"
# Compare two builds with: diff <(node_counts.sh old/pfsp) <(node_counts.sh new/pfsp)
set -uo pipefail
bin=$1
backends=${2:-cpu cpu-mt}
insts=${3:-ta003 ta011 ta012 ta014}
json=$(mktemp)
trap 'rm -f "$json"' EXIT
for b in $backends; do
  args=(--backend "$b")
  [[ $b == gpu-host ]] && args=(--backend gpu --gpu-loop host)
  [[ $b == cpu-mt ]] && args+=(--threads 2)
  for bound in lb1 lb2 lb1-lb2; do
    for rule in min-branch min-min; do
      for inst in $insts; do
        ub=$("$bin" info "$inst" | sed -n 's/.*best known *lb [0-9]*, ub \([0-9]*\).*/\1/p')
        "$bin" solve "$inst" "${args[@]}" --bound "$bound" --branching "$rule" --ub "$ub" --heuristic neh \
          --improver-threads 0 --no-progress -q --json "$json" >/dev/null 2>&1
        python3 -c "
import json; j = json.load(open('$json')); n = j['nodes']
print('$b', '$bound', '$rule', '$inst', n['branched'], n['bounds'], n['pruned'], n['leaves'], j['status'])" 2>/dev/null ||
          echo "$b $bound $rule $inst error"
        : >"$json"
      done
    done
  done
done
