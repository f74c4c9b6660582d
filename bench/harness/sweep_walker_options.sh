#!/usr/bin/env bash
# The walkers' options (destruction size, temperature, partial local search, ties, restarts)
# weighed many runs at once on a big host: pfsp_bench_heuristic --threads THREADS (default 1),
# each run `taskset` to its own THREADS cores, over CONFIGS x INSTANCES x SEEDS. One JSON per run under
# $OUT/walker_options/<config index>/, then $OUT/walker_options/summary.md: the mean deviation from
# the best known per config and instance, and per config over all instances.
#
#   BENCH=build/pin/pfsp_bench_heuristic SECONDS_PER_RUN=30 SEEDS="1 2 3" INSTANCES="ta082 ta101 ta111" \
#     CONFIGS="--destruct=4|--destruct=2|--temperature=0.4" bench/harness/sweep_walker_options.sh
set -u -o pipefail
cd "$(dirname "$0")/../.." || exit 2
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
# shellcheck source=bench/harness/pinned_jobs.sh
source bench/harness/pinned_jobs.sh
walk_pinned() {  # CPU_LIST CONFIG INSTANCE SEED
  local c=$2 name=$3 s=$4
  # shellcheck disable=SC2086
  taskset -c "$1" "$BENCH" --instances "$name" --seconds "$SECONDS_PER_RUN" --threads "$THREADS" --reps 1 \
    --seed "$s" ${configs[$c]} --json "$DIR/$c/$name-$s.json" >/dev/null 2>"$DIR/$c/$name-$s.err" ||
    echo "config $c $name seed $s: exit $?"
}
echo -n "walker options, $SECONDS_PER_RUN s a run, $THREADS thread(s): "
pinned_jobs "$DIR" "$THREADS" walk_pinned
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
