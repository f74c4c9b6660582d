#!/usr/bin/env bash
# pfsp solve NAME --backend cpu-mt --threads 2 (defaults) --child-order O, both orders back to back
out=$1; shift
: > $out
for i in "$@"; do
  for o in bound incumbent; do
    timeout 60 /tmp/bcpu/pfsp solve $i --backend cpu-mt --threads 2 --child-order $o --time-limit 30 --no-progress --json /tmp/ds_${o}_$i.json -q > /dev/null
    python3 -c "
import json; r=json.load(open('/tmp/ds_${o}_$i.json')); print('$i', '$o', r['status'], r['makespan'], r['lower_bound'], r['nodes']['branched'], round(r['time_seconds'],2), round(r['wall_seconds'],2))" >> $out
  done
done
