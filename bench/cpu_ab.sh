#!/usr/bin/env bash
# Two pfsp binaries on the same CPU searches, alternating, each run's JSON kept: for a change whose
# trees must stay the same and whose speed is the question (the same node and bound counters are
# checked; a difference fails the script). Single-threaded (--backend cpu --improver-threads 0),
# node limits so that each run takes seconds (exit 0, or 3 and 4: time and node limit).
#   bench/cpu_ab.sh BEFORE_BINARY AFTER_BINARY OUT_DIR [REPS]
# Writes OUT_DIR/runs/{before,after}_<case>_<rep>.json and OUT_DIR/ab.md (median seconds per case,
# the ratio, the counters); prints ab.md.
set -euo pipefail
before=$1 after=$2 out=$3 reps=${4:-3}
mkdir -p "$out/runs"
cases=(
  "ta022_chain|ta022 --bound lb1-lb2 --ub best-known --node-limit 300000"
  "ta056_chain|ta056 --bound lb1-lb2 --ub 3680 --node-limit 100000"
  "ta081_chain|ta081 --bound lb1-lb2 --ub 6202 --node-limit 30000"
  "ta111_chain|ta111 --bound lb1-lb2 --ub 26041 --node-limit 3000"
  "ta056_lb2|ta056 --bound lb2 --ub 3680 --node-limit 50000"
  "ta011_proof|ta011 --bound lb1-lb2 --ub best-known"
  "ta012_proof|ta012 --bound lb1-lb2 --ub best-known"
)
for c in "${cases[@]}"; do
  name=${c%%|*} args=${c#*|}
  for r in $(seq 1 "$reps"); do
    for side in before after; do
      bin=$before; [ "$side" = after ] && bin=$after
      # shellcheck disable=SC2086
      rc=0
      "$bin" solve $args --backend cpu --improver-threads 0 -q --json "$out/runs/${side}_${name}_$r.json" >/dev/null 2>&1 ||
        rc=$?
      [ "$rc" -eq 0 ] || [ "$rc" -eq 3 ] || [ "$rc" -eq 4 ] || { echo "cpu_ab.sh: $side $name exit $rc" >&2; exit 1; }
    done
  done
done
python3 - "$out" "${reps}" <<'PY'
import json, os, statistics, sys
out, reps = sys.argv[1], int(sys.argv[2])
names = sorted({f.split("_", 1)[1].rsplit("_", 1)[0] for f in os.listdir(os.path.join(out, "runs"))})
lines = ["| case | command | before (s) | after (s) | after / before | branched | bounds |",
         "| --- | --- | ---: | ---: | ---: | ---: | ---: |"]
bad = False
for n in names:
    runs = {s: [json.load(open(os.path.join(out, "runs", f"{s}_{n}_{r}.json"))) for r in range(1, reps + 1)]
            for s in ("before", "after")}
    t = {s: statistics.median(d["time_seconds"] for d in runs[s]) for s in runs}
    counters = {(d["nodes"]["branched"], d["nodes"]["bounds"]) for s in runs for d in runs[s]}
    if len(counters) != 1:
        bad = True
    b, bd = sorted(counters)[0]
    cmd = runs["after"][0]["command"].split(" --json")[0]
    lines.append(f"| {n} | `{cmd}` | {t['before']:.3f} | {t['after']:.3f} | {t['after'] / t['before']:.3f} | "
                 f"{b:,} | {bd:,}{' (DIFFER)' if len(counters) != 1 else ''} |")
open(os.path.join(out, "ab.md"), "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
sys.exit(1 if bad else 0)
PY
