#!/usr/bin/env bash
# The walkers' options (destruction size, temperature, partial local search, ties, restarts)
# weighed many runs at once on a big host: pfsp_bench_heuristic --threads THREADS (default 1),
# each run `taskset` to its own THREADS cores, over CONFIGS x INSTANCES x SEEDS. One JSON per run under
# $OUT/walker_options/<config index>/, then $OUT/walker_options/summary.md: the mean deviation from
# the best known per config and instance, and per config over all instances.
#
#   BENCH=build/pin/pfsp_bench_heuristic SECONDS_PER_RUN=30 SEEDS="1 2 3" INSTANCES="ta082 ta101 ta111" \
#     CONFIGS="--destruct=4|--destruct=2|--temperature=0.4" scripts/sweep_walker_options.sh
set -u -o pipefail
cd "$(dirname "$0")/.."
BENCH=${BENCH:-build/cpu/pfsp_bench_heuristic}
OUT=${OUT:-out/device}
SECONDS_PER_RUN=${SECONDS_PER_RUN:-30}
THREADS=${THREADS:-1}
SEEDS=${SEEDS:-"1 2 3"}
INSTANCES=${INSTANCES:-"ta082 ta101 ta111"}
CONFIGS=${CONFIGS:-"--destruct=4|--destruct=2|--destruct=6"}
DIR=$OUT/walker_options
mkdir -p "$DIR"
IFS='|' read -r -a configs <<<"$CONFIGS"
SLOTS=$(($(nproc) / THREADS))
((SLOTS >= 1)) || SLOTS=1
jobs_file=$DIR/jobs.txt
: >"$jobs_file"
for c in "${!configs[@]}"; do
  mkdir -p "$DIR/$c"
  for name in $INSTANCES; do
    for s in $SEEDS; do echo "$c $name $s" >>"$jobs_file"; done
  done
done
echo "walker options: $(wc -l <"$jobs_file") runs of $SECONDS_PER_RUN s, $SLOTS at a time, $THREADS threads on $THREADS cores each"
run_slot() {
  local slot=$1 k=0 c name s first=$(($1 * THREADS))
  while read -r c name s; do
    if ((k++ % SLOTS != slot)); then continue; fi
    # shellcheck disable=SC2086
    taskset -c "$first-$((first + THREADS - 1))" "$BENCH" --instances "$name" --seconds "$SECONDS_PER_RUN" \
      --threads "$THREADS" --reps 1 --seed "$s" \
      ${configs[$c]} --json "$DIR/$c/$name-$s.json" >/dev/null 2>"$DIR/$c/$name-$s.err" ||
      echo "config $c $name seed $s: exit $?"
  done <"$jobs_file"
}
pids=()
for ((slot = 0; slot < SLOTS; ++slot)); do
  run_slot "$slot" &
  pids+=($!)
done
for p in "${pids[@]}"; do wait "$p"; done
python3 - "$DIR" "$CONFIGS" <<'PY' | tee "$DIR/summary.md"
import glob, json, os, sys
from collections import defaultdict
root, configs = sys.argv[1], sys.argv[2].split("|")
names = sorted({os.path.basename(f).split("-")[0] for f in glob.glob(os.path.join(root, "*", "*.json"))})
print("| config | " + " | ".join(names) + " | mean % |")
print("| :----- | " + " | ".join("---:" for _ in names) + " | ---: |")
for c, text in enumerate(configs):
    dev = defaultdict(list)
    for f in glob.glob(os.path.join(root, str(c), "*.json")):
        for r in json.load(open(f))["runs"]:
            dev[r["instance"]].append(r["deviation_percent"])
    means = [sum(dev[n]) / len(dev[n]) if dev[n] else float("nan") for n in names]
    cells = [f"{m:.3f} ({len(dev[n])})" for m, n in zip(means, names)]
    print(f"| `{text}` | " + " | ".join(cells) + f" | {sum(means) / len(means):.3f} |")
PY
