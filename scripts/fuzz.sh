#!/usr/bin/env bash
# Fuzzes the instance and checkpoint parsers (issue 13): configures build/fuzz with clang and
# -DPFSP_FUZZ=ON (libFuzzer + AddressSanitizer + UBSan), builds fuzz_instance and fuzz_checkpoint,
# and runs each for SECONDS (default 60) seeded with tests/fuzz/{instance,checkpoint}/. Any
# crash, sanitizer report, uncaught exception other than an input error, leak, timeout (10 s an
# input) or out-of-memory (2 GiB) fails the script; the input that did it is kept in
# build/fuzz/artifacts/ (reproduce: build/fuzz/tests/fuzz/fuzz_instance FILE). New inputs found go
# to build/fuzz/corpus/, never into the repository's corpus.
# Needs clang and libclang-rt-dev (Debian; .ci/run installs them).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
build=${PFSP_FUZZ_BUILD_DIR:-build/fuzz}
jobs=${PFSP_JOBS:-$(nproc)}
cxx=${PFSP_FUZZ_CXX:-$(command -v clang++ || command -v clang++-14 || true)}
if [ -z "$cxx" ]; then
  echo "fuzz.sh: clang++ not found (apt-get install clang libclang-rt-dev)" >&2
  exit 2
fi
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER="$cxx" -DPFSP_FUZZ=ON \
  -DPFSP_ENABLE_CUDA=OFF -DPFSP_ENABLE_MPI=OFF -DPFSP_BUILD_TESTS=OFF -DPFSP_BUILD_BENCH=OFF >/dev/null
cmake --build "$build" -j "$jobs" --target fuzz_instance fuzz_checkpoint
mkdir -p "$build/artifacts"
status=0
for kind in instance checkpoint; do
  work="$build/corpus/$kind"
  mkdir -p "$work"
  echo "fuzz.sh: fuzz_$kind for $seconds s (seeds: tests/fuzz/$kind, $(ls tests/fuzz/$kind | wc -l) files)"
  if ! "$build/tests/fuzz/fuzz_$kind" "$work" "tests/fuzz/$kind" -max_total_time="$seconds" -timeout=10 \
      -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 -artifact_prefix="$build/artifacts/${kind}-" \
      2> "$build/fuzz_$kind.log"; then
    tail -n 60 "$build/fuzz_$kind.log" >&2
    echo "fuzz.sh: fuzz_$kind FAILED; the input is in $build/artifacts/ (log: $build/fuzz_$kind.log)" >&2
    status=1
  else
    grep -E "^stat::number_of_executed_units|^Done" "$build/fuzz_$kind.log" || tail -n 3 "$build/fuzz_$kind.log"
  fi
done
exit $status
