#!/usr/bin/env bash
# Run ON the 4-GPU machine (device call, carry [".carry/t", "shared"]) after
# `bench/harness/carry_gpu_tests.sh pack` here: the chain's LB2 pass from the parents' tables
# (--lb2-table, decision 013 option I) against the walk, one binary, one call (issue 23).
#   GPU 0: the gpu-labelled test executables (carry_gpu_tests.sh run)
#   GPU 1: compute-sanitizer (carry_gpu_tests.sh sanitize, its own copy of the binaries)
#   (on two GPUs: the tests then the sanitizer on GPU 0, the slices on GPU 1)
#   GPUs 2, 3: slices of AB_SET from the best known + 1 (AB_SECONDS each) with each of AB_CONFIGS
#             ("label|pfsp args" separated by ';'), alternating; then whole proofs of AB_EXACT from
#             the optimum with each configuration, their node counters compared.
# Each process pinned to its GPU's quarter of the cores. Writes under $OUT: gputests/, sanitize/,
# ab/compare.txt and compare.json (bench/hard_table.py: nodes/s, commit, GPU, command), ab/exact.txt.
set -u -o pipefail
ROOT=$PWD
OUT=${OUT:-$ROOT/out/device}
BUILD=${BUILD:-build/carry}
mkdir -p "$OUT/ab/logs" "$BUILD/tests/gpu" build/carry2/tests/gpu build/carry-ab
xz -dc .carry/t/pfsp.xz >build/carry-ab/pfsp && chmod +x build/carry-ab/pfsp  # the slices' own copy
[ -e ../shared ] || ln -s "$PWD/shared" ../shared
xz -dc .carry/t/pfsp.xz >"$BUILD/pfsp" && chmod +x "$BUILD/pfsp"
for b in pfsp pfsp-mpi; do xz -dc ".carry/t/$b.xz" >"build/carry2/$b" && chmod +x "build/carry2/$b"; done
for t in test_gpu_resident test_gpu_walkers test_gpu_bounds; do
  xz -dc ".carry/t/$t.xz" >"build/carry2/tests/gpu/$t" && chmod +x "build/carry2/tests/gpu/$t"
done
cores=$(nproc)
q=$((cores / 4))
pin() { echo "$(($1 * q))-$(($1 * q + q - 1))"; }
gpus=$(nvidia-smi -L | wc -l)
if ((gpus >= 4)); then
  (CUDA_VISIBLE_DEVICES=0 taskset -c "$(pin 0)" bash bench/harness/carry_gpu_tests.sh run >"$OUT/run.txt" 2>&1) &
  (BUILD=build/carry2 taskset -c "$(pin 1)" bash bench/harness/carry_gpu_tests.sh sanitize 1 >"$OUT/sanitize.txt" 2>&1) &
  AB_GPUS=(2 3)
else  # two GPUs: the tests, then the sanitizer, on GPU 0; the slices on GPU 1
  q=$((cores / 2))
  (CUDA_VISIBLE_DEVICES=0 taskset -c "$(pin 0)" bash bench/harness/carry_gpu_tests.sh run >"$OUT/run.txt" 2>&1
   BUILD=build/carry2 taskset -c "$(pin 0)" bash bench/harness/carry_gpu_tests.sh sanitize 0 >"$OUT/sanitize.txt" 2>&1) &
  AB_GPUS=(1)
fi
P=$ROOT/build/carry-ab/pfsp
IFS=';' read -ra cfgs <<<"${AB_CONFIGS:-walk|--lb2-table off;table|--lb2-table on}"
ab_one() {  # ab_one GPU INSTANCE
  local g=$1 inst=$2 ub
  ub=$("$P" info "$inst" | sed -n 's/.*best known *lb [0-9]*, ub \([0-9]*\).*/\1/p')
  for c in "${cfgs[@]}"; do
    IFS='|' read -r label extra <<<"$c"
    CUDA_VISIBLE_DEVICES=$g taskset -c "$(pin "$g")" "$P" solve "$inst" --backend gpu --ub $((ub + 1)) \
      --time-limit "${AB_SECONDS:-8}" --no-progress -q --json "$OUT/ab/logs/hard_${inst}_${label}.json" $extra \
      >"$OUT/ab/logs/hard_${inst}_${label}.log" 2>&1
  done
}
exact_one() {  # exact_one GPU INSTANCE: the same tree by each configuration
  local g=$1 inst=$2 ub line
  ub=$("$P" info "$inst" | sed -n 's/.*best known *lb [0-9]*, ub \([0-9]*\).*/\1/p')
  line="exact $inst:"
  for c in "${cfgs[@]}"; do
    IFS='|' read -r label extra <<<"$c"
    CUDA_VISIBLE_DEVICES=$g taskset -c "$(pin "$g")" "$P" solve "$inst" --backend gpu --ub "$ub" --time-limit 60 \
      --no-progress -q --json "$OUT/ab/logs/exact_${inst}_${label}.json" $extra >/dev/null 2>&1
    line+=" $label $(python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(j["status"], j["nodes"], "%.3f s" % j["time_seconds"])' "$OUT/ab/logs/exact_${inst}_${label}.json" 2>&1)"
  done
  echo "$line"
}
lane() {  # lane GPU INSTANCES...: this GPU's share
  local g=$1
  shift
  for inst in "$@"; do ab_one "$g" "$inst"; done
}
set -- ${AB_SET:-ta051 ta052 ta053 ta054 ta055 ta056 ta057 ta058 ta059 ta060}
(
  for ((k = 0; k < ${#AB_GPUS[@]}; k++)); do
    share=()
    for ((i = k; i < $#; i += ${#AB_GPUS[@]})); do share+=("${@:i+1:1}"); done
    lane "${AB_GPUS[k]}" "${share[@]}" &
  done
  wait
)
python3 bench/hard_table.py --out "$OUT/ab/compare.json" "$OUT"/ab/logs/hard_*.json >"$OUT/ab/compare.txt" 2>&1
for inst in ${AB_EXACT:-ta021 ta022 ta023 ta024 ta025 ta026 ta027 ta028 ta029 ta030 ta031 ta041}; do
  exact_one "${AB_GPUS[0]}" "$inst"
done | tee "$OUT/ab/exact.txt"
python3 - "$OUT"/ab/logs/hard_ta056_*.json >"$OUT/ab/bound_steps.txt" 2>&1 <<'PY'
import json, sys
for f in sys.argv[1:]:
    print(f.rsplit("/", 1)[-1], json.load(open(f)).get("backend", "?"))
PY
(cd "$OUT/ab" && tar czf logs.tgz logs && rm -rf logs)
wait
tail -3 "$OUT/run.txt" "$OUT/sanitize.txt"
