#!/usr/bin/env bash
# Experiment, run ON the GPU machine after bench/harness/device_run.sh's build stage (it reuses the
# unpacked .deps): builds the bounding benchmark and the clock64 tool with
# -DPFSP_DEVICE_LB2_SKIP=ON (lb2_pairs' inner loop with the data-dependent skip of scheduled
# jobs in device code, the form before the branch-free one) and times them against the default
# build in $BUILD (branch-free), on the same pools. Every bound is checked against
# the CPU by the tools themselves. Output under $OUT/lb2_select.
set -u -o pipefail
ROOT=$PWD
OUT=${OUT:-$ROOT/out/device}/lb2_select
BUILD=${BUILD:-$ROOT/build/device}
SEL=${SEL_BUILD:-$ROOT/build/device-lb2-skip}
mkdir -p "$OUT"
cmake -S "$ROOT" -B "$SEL" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DPFSP_DEVICE_LB2_SKIP=ON \
  -DCMAKE_PREFIX_PATH="$ROOT/.deps/root/usr" >"$OUT/configure.log" 2>&1 &&
  cmake --build "$SEL" -j"$(nproc)" --target pfsp_gpu_bench pfsp_gpu_clock >"$OUT/build.log" 2>&1 || {
  tail -30 "$OUT/build.log"
  exit 1
}
for b in default:$BUILD skip:$SEL; do
  name=${b%%:*} dir=${b#*:}
  for ub in opt none; do
    "$dir/pfsp_gpu_bench" --instances ta021,ta051 --bound lb2 --children 262144 --reps 10 --kernels plain,branchless \
      --memory shared --sort none,device --tpb 256 --ub "$ub" --cpu-seconds 0.3 >"$OUT/bench_${name}_${ub}.log" 2>&1
    echo "bench $name ub=$ub: rc=$?"
    grep -E '^\{' "$OUT/bench_${name}_${ub}.log" | sed "s/^{/{\"build\":\"$name\",/" >>"$OUT/bench.jsonl"
  done
  "$dir/pfsp_gpu_clock" --instances ta021 --bound lb2 --kernels branchless --sort none,host --ub opt,none \
    >"$OUT/clock_${name}.log" 2>&1
  echo "clock $name: rc=$?"
done
python3 - "$OUT/bench.jsonl" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
print("%-8s %-10s %-6s %-5s %12s %12s %8s" % ("instance", "kernel", "sort", "ub", "skip_ms", "default_ms", "ratio"))
key = lambda j: (j["instance"], j["kernel"], j["sort"], j["ub"])
d = {key(j): j for j in rows if j["build"] == "skip"}
for j in rows:
    if j["build"] != "default" or key(j) not in d: continue
    a, b = d[key(j)]["kernel_ms_median"], j["kernel_ms_median"]
    print("%-8s %-10s %-6s %-5s %12.3f %12.3f %8.2f %s" % (j["instance"], j["kernel"], j["sort"],
          "none" if j["ub"] > 10**8 else j["ub"], a, b, a / b, j["check"]))
PY
