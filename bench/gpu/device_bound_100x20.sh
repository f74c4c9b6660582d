#!/usr/bin/env bash
# Is LB1 alone the faster default at 100x20 on the GPU? (bench/results/2026-12-07-vm2core-ta085-trees:
# there the chain over learned pairs branches 0.78-1.05x LB1's nodes, where an LB1 node costs a
# quarter of a chain node or less.) One device call, from the repository root, binaries carried as
# for device_open_instances.sh (CARRY, default .carry/w). Each RUNS entry NAME:UB:LIMIT (UB 0: from
# scratch) runs once with each of BOUNDS (default "auto lb1"), the two back to back, so that both
# share the machine's state; `pfsp solve NAME [--ub UB] --bound B --time-limit LIMIT --json`.
# Writes $OUT/bound100.jsonl (one line a run) and $OUT/bound100.md (the pairs side by side).
set -u -o pipefail
ROOT=$PWD
B=${BUILD:-$ROOT/build/carry}
OUT=${OUT:-$ROOT/out/device}
mkdir -p "$OUT/bound100" "$B"
[ -x "$B/pfsp" ] || { xz -dc "${CARRY:-.carry/w}/pfsp.xz" >"$B/pfsp" && chmod +x "$B/pfsp"; }
[ -e ../shared ] || ln -s "$ROOT/shared" ../shared
RUNS=${RUNS:-ta082:6183:60 ta083:6252:60 ta084:6254:60 ta085:6260:60 ta085:6263:120 ta082:0:60 ta083:0:60 ta084:0:60}
BOUNDS=${BOUNDS:-auto lb1}
: >"$OUT/bound100.jsonl"
for run in $RUNS; do
  IFS=: read -r name ub limit <<<"$run"
  ub_args=()
  [[ $ub != 0 ]] && ub_args=(--ub "$ub")
  for bound in $BOUNDS; do
    json=$OUT/bound100/$name.$ub.$bound.json
    timeout $((limit + 30)) "$B/pfsp" solve "$name" "${ub_args[@]}" --bound "$bound" --time-limit "$limit" \
      --json "$json" --no-progress -q >/dev/null 2>"$json.err"
    python3 - "$json" "$name" "$ub" "$bound" "$?" >>"$OUT/bound100.jsonl" <<'EOF'
import json, sys
path, name, ub, bound, rc = sys.argv[1:]
try:
    r = json.load(open(path))
except Exception:
    r = {}
print(json.dumps({"instance": name, "ub": int(ub), "bound": bound, "rc": int(rc), "status": r.get("status"),
                  "makespan": r.get("makespan"), "lower_bound": r.get("lower_bound"),
                  "nodes": (r.get("nodes") or {}).get("branched"), "seconds": r.get("time_seconds"),
                  "commit": r.get("commit"), "backend": r.get("backend"),
                  "bound_used": (r.get("options") or {}).get("bound")}))
EOF
  done
done
python3 - "$OUT/bound100.jsonl" >"$OUT/bound100.md" <<'EOF'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
runs = {}
for r in rows:
    runs.setdefault((r["instance"], r["ub"]), {})[r["bound"]] = r
bounds = list(dict.fromkeys(r["bound"] for r in rows))
print(f"commit {rows[0]['commit'] if rows else '?'}; {rows[0]['backend'] if rows else ''}\n")
print("| instance | ub | " + " | ".join(f"{b}: status, nodes, s" for b in bounds) + " |")
print("| --- | ---: | " + " | ".join("---" for _ in bounds) + " |")
for (name, ub), by in runs.items():
    cells = []
    for b in bounds:
        r = by.get(b, {})
        nodes = f"{r['nodes']:,}" if r.get("nodes") is not None else "-"
        secs = f"{r['seconds']:.2f}" if r.get("seconds") is not None else "-"
        cells.append(f"{r.get('status')} ({r.get('bound_used')}), {nodes}, {secs}")
    print(f"| {name} | {ub or 'scratch'} | " + " | ".join(cells) + " |")
EOF
(cd "$OUT/bound100" && tar czf "$OUT/bound100_logs.tgz" . 2>/dev/null) && rm -rf "$OUT/bound100"
cat "$OUT/bound100.md"
