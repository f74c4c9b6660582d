#!/usr/bin/env bash
# usage: order_sweep.sh ORDER HEUR OUTFILE instances...
o=$1; h=$2; out=$3; shift 3
: > $out
for i in "$@"; do
  timeout 120 /tmp/bdive/pfsp solve $i --backend cpu --improver-threads 0 --heuristic $h --child-order $o --time-limit 60 --no-progress --json /tmp/os_$o_$i.json -q > /dev/null
  python3 -c "
import json; r=json.load(open('/tmp/os_$o_$i.json')); print('$i', '$o', '$h', r['status'], r['makespan'], r['nodes']['branched'], round(r['time_seconds'],2))" >> $out
done
