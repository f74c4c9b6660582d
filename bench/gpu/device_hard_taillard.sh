#!/usr/bin/env bash
# The hard Taillard instances (issue 44 item 2: ta090, ta101, and ta108/ta109 beside them) on one
# GPU machine, from the repository root, with the binaries carried as for device_wide_shops.sh
# (.carry/w). Each entry of RUNS is name:label:seconds[:args...] (args comma-separated): one
# `pfsp solve` from scratch with the defaults plus args, one process at a time. Writes
# $OUT/hard.tsv (status, makespan, lower bound, nodes, search and process seconds) and
# $OUT/hard_logs.tgz (each run's JSON and solver log).
#   RUNS="ta101:chain:120:--bound,lb1-lb2 ta101:lb1:120:--bound,lb1" bash bench/gpu/device_hard_taillard.sh
set -u -o pipefail
ROOT=$PWD
B=${BUILD:-$ROOT/build/carry}
OUT=${OUT:-$ROOT/out/hard}
mkdir -p "$OUT/hard"
[ -x "$B/pfsp" ] || { xz -dc .carry/w/pfsp.xz >"$B/pfsp" && chmod +x "$B/pfsp"; }
[ -e ../shared ] || ln -s "$ROOT/shared" ../shared
echo "# $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1), commit ${PFSP_COMMIT:-?}, $(nproc) cores" >>"$OUT/hard.tsv"
printf "instance\tlabel\targs\trc\tstatus\tmakespan\tlower_bound\tnodes\tsearch_s\twall_s\n" >>"$OUT/hard.tsv"
for entry in ${RUNS:-ta101:default:60}; do
  IFS=: read -r name label secs args <<<"$entry"
  IFS=, read -r -a extra <<<"${args:-}"
  base=$OUT/hard/$name.$label
  t0=$(date +%s.%N)
  timeout $((secs + 60)) "$B/pfsp" solve "$name" --time-limit "$secs" --json "$base.json" --log "$base.log" \
    --no-progress -q "${extra[@]}" >"$base.out" 2>&1
  rc=$?
  t1=$(date +%s.%N)
  python3 - "$base.json" "$name" "$label" "${args:-}" "$rc" "$t0" "$t1" >>"$OUT/hard.tsv" <<'PY'
import json, sys
path, name, label, args, rc, t0, t1 = sys.argv[1:]
try:
    r = json.load(open(path))
except Exception as e:
    r = {"status": f"no json ({e})"}
nodes = (r.get("nodes") or {}).get("branched")
print("\t".join(str(x) for x in (name, label, args or "-", rc, r.get("status"), r.get("makespan"),
      r.get("lower_bound"), nodes, r.get("time_seconds"), round(float(t1) - float(t0), 2))))
PY
  tail -1 "$OUT/hard.tsv"
done
(cd "$OUT/hard" && tar czf "$OUT/hard_logs.tgz" . 2>/dev/null) && rm -rf "$OUT/hard"
