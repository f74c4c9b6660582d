#!/usr/bin/env bash
# Several pfsp configurations on the same CPU proofs, alternating within each repetition, each run's
# JSON kept: for a change that alters the tree (a bound, a dominance rule), where both the node
# count and the time are the question. Every run must end optimal or proven_bound with the same
# lower bound (the script fails otherwise).
#   bench/cpu_configs.sh PFSP OUT_DIR REPS "INSTANCE[:UB] ..." "label|args" "label|args" ...
# UB defaults to the instance's best known value (Taillard's table), so that each run proves the
# optimum from it. Writes OUT_DIR/runs/<instance>.<label>.<rep>.json and OUT_DIR/configs.md
# (per instance and configuration: the median seconds, branched nodes, memo and swap prunes, the
# ratio of nodes and of time to the first configuration); prints configs.md.
set -euo pipefail
pfsp=$1 out=$2 reps=$3 instances=$4
shift 4
mkdir -p "$out/runs"
for spec in $instances; do
  name=${spec%%:*} ub=best-known
  [[ $spec == *:* ]] && ub=${spec#*:}
  for r in $(seq 1 "$reps"); do
    for c in "$@"; do
      label=${c%%|*} args=${c#*|}
      rc=0
      # shellcheck disable=SC2086
      "$pfsp" solve "$name" --ub "$ub" --improver-threads 0 --no-progress -q $args \
        --json "$out/runs/$name.$label.$r.json" >/dev/null 2>&1 || rc=$?
      [ "$rc" -eq 0 ] || { echo "cpu_configs.sh: $name $label exit $rc" >&2; exit 1; }
    done
  done
done
labels=()
for c in "$@"; do labels+=("${c%%|*}"); done
python3 - "$out" "$pfsp" "$*" "${labels[*]}" <<'PY' | tee "$out/configs.md"
import glob, json, os, statistics, sys
out, pfsp, configs, labels = sys.argv[1:]
order = labels.split()
runs = {}
for f in sorted(glob.glob(os.path.join(out, "runs", "*.json"))):
    name, label, _ = os.path.basename(f)[:-5].split(".")
    runs.setdefault(name, {}).setdefault(label, []).append(json.load(open(f)))
first = json.load(open(sorted(glob.glob(os.path.join(out, "runs", "*.json")))[0]))
print(f"commit {first.get('commit')}, `{pfsp}`, each run `solve INSTANCE --ub UB --improver-threads 0` plus the "
      f"configuration's arguments; configurations (label|arguments): {configs}\n")
print("| instance | config | status | lower bound | branched | memo pruned | swap dominated | seconds (median) | nodes / first | time / first |")
print("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
for name, by_label in runs.items():
    base = None
    bounds = set()
    for label in order:
        rs = by_label[label]
        t = statistics.median(r["time_seconds"] for r in rs)
        nodes = statistics.median(r["nodes"]["branched"] for r in rs)
        bounds |= {r["lower_bound"] for r in rs}
        if any(r["status"] not in ("optimal", "proven_bound") for r in rs):
            sys.exit(f"{name} {label}: not proven")
        if base is None:
            base = (nodes, t)
        n = rs[0]["nodes"]
        print(f"| {name} | {label} | {rs[0]['status']} | {rs[0]['lower_bound']} | {nodes:,.0f} | "
              f"{n.get('memo_pruned', 0):,} | {n.get('swap_dominated', 0):,} | {t:.2f} | "
              f"{nodes / base[0]:.2f} | {t / base[1]:.2f} |")
    if len(bounds) != 1:
        sys.exit(f"{name}: the configurations proved different bounds {sorted(bounds)}")
PY
