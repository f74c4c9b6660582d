#!/usr/bin/env bash
# Many small CPU-only solves at once on a big host, each pinned to its own CORES cores (taskset),
# to weigh a CPU option on issue 21's 2-core targets with many seeds in one go (the 16-core GPU
# machine runs 8 two-core solves at a time). Each CONFIG is a set of extra `pfsp solve` options;
# every (config, instance, seed) runs `pfsp solve NAME --backend cpu-mt --threads CORES
# --time-limit LIMIT --seed S CONFIG` and writes its JSON under $OUT/pinned/<config index>/.
# Prints and writes $OUT/pinned/summary.md: mean and worst deviation from the best known per
# config and instance. A pinned pair of cores of a busy host is not this 2-core machine: the
# figures choose between configs; the targets themselves are measured here (bench_cpu_engine.sh).
#
#   PFSP=build/cpu/pfsp CORES=2 LIMIT=20 SEEDS="1 2 3 4" INSTANCES="ta081 ta111" \
#     CONFIGS="--heuristic-share=0.5|--heuristic-share=1" bench/harness/bench_cpu_pinned.sh
set -u -o pipefail
cd "$(dirname "$0")/../.." || exit 2
PFSP=${PFSP:-build/cpu/pfsp}
OUT=${OUT:-out/device}
CORES=${CORES:-2}
LIMIT=${LIMIT:-20}
SEEDS=${SEEDS:-"1 2 3 4"}
INSTANCES=${INSTANCES:-"ta081 ta111"}
CONFIGS=${CONFIGS:-"--heuristic-share=0.5|--heuristic-share=1"}
DIR=$OUT/pinned
mkdir -p "$DIR"
IFS='|' read -r -a configs <<<"$CONFIGS"
# shellcheck source=bench/harness/pinned_jobs.sh
source bench/harness/pinned_jobs.sh
solve_pinned() {  # CPU_LIST CONFIG INSTANCE SEED
  local c=$2 name=$3 s=$4
  # shellcheck disable=SC2086
  taskset -c "$1" "$PFSP" solve "$name" --backend cpu-mt --threads "$CORES" --time-limit "$LIMIT" --seed "$s" \
    --no-progress ${configs[$c]} --json "$DIR/$c/$name-$s.json" >/dev/null 2>"$DIR/$c/$name-$s.err"
  echo "config $c $name seed $s: exit $?"
}
echo -n "pinned, --time-limit $LIMIT: "
pinned_jobs "$DIR" "$CORES" solve_pinned
python3 - "$DIR" "$CONFIGS" <<'PY' | tee "$DIR/summary.md"
import glob, json, os, sys
from collections import defaultdict
root, configs = sys.argv[1], sys.argv[2].split("|")
print("| config | instance | runs | mean deviation % | worst % |")
print("| :----- | :------- | ---: | ---------------: | ------: |")
for c, text in enumerate(configs):
    dev = defaultdict(list)
    for f in sorted(glob.glob(os.path.join(root, str(c), "*.json"))):
        r = json.load(open(f))
        best = r["instance"]["best_known"]["ub"]
        dev[r["instance"]["name"]].append(100.0 * (r["makespan"] / best - 1))
    for name, d in sorted(dev.items()):
        print(f"| `{text}` | {name} | {len(d)} | {sum(d) / len(d):.3f} | {max(d):.3f} |")
PY
