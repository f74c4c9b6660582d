#!/usr/bin/env bash
# The README's test command: configure (CUDA compiled when nvcc exists), build, run the tests.
# CPU-labelled tests always; GPU-labelled tests too when a CUDA device is present.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${PFSP_BUILD_DIR:-build}
jobs=${PFSP_JOBS:-$(nproc)}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release ${PFSP_CMAKE_ARGS:-}
cmake --build "$build" -j "$jobs"
ctest --test-dir "$build" -L cpu --output-on-failure --no-tests=error -j "$jobs"
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q GPU; then
  ctest --test-dir "$build" -L gpu --output-on-failure --no-tests=error
else
  echo "test.sh: no CUDA device here: gpu-labelled tests not run (they are compiled when nvcc exists)"
fi
