#!/usr/bin/env bash
# Runs ON the GPU machine, from the repository root: builds the divergence library (Release,
# sm_90, warnings as errors), runs its GPU tests, compute-sanitizer racecheck and memcheck on the
# task-pool and context-switching kernels, the bench driver (table + JSON), and ncu's divergence
# counters on the plain kernels and each strategy. Everything is logged under $OUT.
#
#   OUT=out/divergence BUILD=build/div-device JOBS=16 STEPS="build test sanitize bench ncu" \
#   BENCH_ARGS="--suite termination,branch,julia,remap-kernels,remap-pipeline,sweep" \
#   PFSP_GIT_COMMIT=<sha> bench/harness/device_divergence.sh
#
# Needs CUDA 13, CMake, ncu and compute-sanitizer (all on the device image) and, since that machine
# has no network, the Debian packages of GoogleTest, CLI11 and nlohmann-json in .deps/ (see
# docs/gpu_strategies.md). PREBUILT=<dir>: a folder holding pfsp_divergence_bench and
# test_divergence_gpu to fall back on if the build fails.
set -uo pipefail

OUT=${OUT:-out/divergence}
BUILD=${BUILD:-build/div-device}
JOBS=${JOBS:-$(nproc)}
STEPS=${STEPS:-build test sanitize bench ncu}
BENCH_ARGS=${BENCH_ARGS:---suite termination,branch,julia,remap-kernels,remap-pipeline,sweep}
# Logs are written outside $OUT and archived into $OUT/logs.tgz after every step: at most 8 files
# come back from the device, also when the run is cut short.
LOGS=${LOGS:-$(mktemp -d /tmp/pfsp_divergence.XXXXXX)}
mkdir -p "$OUT" "$LOGS"
SUMMARY="$OUT/summary.log"
: >"$SUMMARY"
export PFSP_GIT_COMMIT=${PFSP_GIT_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}

say() { echo "$*" | tee -a "$SUMMARY"; }
# step NAME TIMEOUT CMD...: runs CMD with a time limit, logs to $LOGS/NAME.log, records rc and seconds.
step() {
  local name=$1 limit=$2
  shift 2
  local t0=$SECONDS
  timeout "$limit" "$@" >"$LOGS/$name.log" 2>&1
  local rc=$?
  say "step $name: rc=$rc, $((SECONDS - t0)) s"
  tar czf "$OUT/logs.tgz" -C "$LOGS" . 2>/dev/null
  return $rc
}
has_step() { [[ " $STEPS " == *" $1 "* ]]; }

say "pfsp divergence on $(hostname), commit $PFSP_GIT_COMMIT, $(date -u +%FT%TZ)"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv,noheader 2>&1 | tee -a "$SUMMARY"

BENCH="$BUILD/pfsp_divergence_bench"
TEST="$BUILD/divergence/tests/test_divergence_gpu"
if has_step build; then
  PREFIX=()
  if compgen -G ".deps/*.deb" >/dev/null; then
    mkdir -p .deps/root
    for f in .deps/*.deb; do dpkg -x "$f" .deps/root; done
    PREFIX=(-DCMAKE_PREFIX_PATH="$PWD/.deps/root/usr")
  fi
  step configure 300 cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DPFSP_WERROR=ON -DPFSP_BUILD_TESTS=ON -DPFSP_BUILD_BENCH=ON "${PREFIX[@]}" &&
    step build 600 cmake --build "$BUILD" -j "$JOBS" --target test_divergence_gpu pfsp_divergence_bench
  if [[ ! -x $BENCH || ! -x $TEST ]] && [[ -n ${PREBUILT:-} ]]; then
    say "build failed: falling back on $PREBUILT"
    BENCH="$PREBUILT/pfsp_divergence_bench"
    TEST="$PREBUILT/test_divergence_gpu"
  fi
fi

if has_step test; then
  step gpu-tests 300 "$TEST" --gtest_output="xml:$LOGS/gpu_tests.xml"
  grep -E "^\[  (PASSED|FAILED)|tests ran" "$LOGS/gpu-tests.log" | tee -a "$SUMMARY"
fi

if has_step sanitize; then
  # Small sizes: every task-pool kind and control, both context-switch modes, the remap kernels.
  for tool in racecheck memcheck; do
    step "sanitizer-$tool" 300 compute-sanitizer --tool "$tool" --error-exitcode 3 "$BENCH" --suite profile --quick
    grep -E "ERROR SUMMARY|RACECHECK SUMMARY|hazard" "$LOGS/sanitizer-$tool.log" | tail -3 | tee -a "$SUMMARY"
  done
fi

if has_step bench; then
  # shellcheck disable=SC2086
  step bench 600 "$BENCH" $BENCH_ARGS --json "$LOGS/bench.json"
  cp "$LOGS/bench.log" "$OUT/bench.md"
  cp "$LOGS/bench.json" "$OUT/bench.json" 2>/dev/null
fi

if has_step ncu; then
  METRICS=smsp__sass_average_branch_targets_threads_uniform.pct,smsp__sass_branch_targets_threads_divergent.sum,smsp__average_thread_inst_executed_per_inst_executed.ratio,gpu__time_duration.sum
  step ncu 600 ncu --clock-control none --metrics "$METRICS" --csv --log-file "$LOGS/ncu.csv" \
    --kernel-name regex:'plain|task_pool|context_switch|gafort|black_scholes' "$BENCH" --suite profile
  python3 - "$LOGS/ncu.csv" >"$OUT/ncu_summary.md" <<'PY'
import csv, re, sys
rows = [l for l in open(sys.argv[1]) if not l.startswith("==")]
pools = ["global", "local", "hybrid", "persistent"]
controls = ["any", "all", "ballot", "atomic"]
def short(name):
    name = re.sub(r"\(pfsp::divergence::pool_kind\)(\d)", lambda m: pools[int(m.group(1))], name)
    name = re.sub(r"\(pfsp::divergence::fetch_control\)(\d)", lambda m: controls[int(m.group(1))], name)
    name = name.replace("pfsp::divergence::gpu::", "").replace("pfsp::divergence::", "").replace("void ", "")
    name = re.sub(r"\(.*\)$", "", name)
    return name.replace("(anonymous namespace)::", "")
by_id = {}
for r in csv.DictReader(rows):
    k = r["ID"]
    d = by_id.setdefault(k, {"kernel": short(r["Kernel Name"])})
    d[r["Metric Name"]] = r["Metric Value"]
cols = ["gpu__time_duration.sum", "smsp__sass_average_branch_targets_threads_uniform.pct",
        "smsp__sass_branch_targets_threads_divergent.sum", "smsp__average_thread_inst_executed_per_inst_executed.ratio"]
print("| # | kernel | time (ns) | uniform branch targets % | divergent branch targets | threads per instruction |")
print("|---|---|---|---|---|---|")
for k, d in sorted(by_id.items(), key=lambda kv: int(kv[0])):
    print("| " + k + " | " + d["kernel"] + " | " + " | ".join(d.get(c, "") for c in cols) + " |")
PY
  cat "$OUT/ncu_summary.md" >>"$SUMMARY"
fi

say "done in $SECONDS s"
tar czf "$OUT/logs.tgz" -C "$LOGS" . 2>/dev/null
cat "$SUMMARY"
