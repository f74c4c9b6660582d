#!/usr/bin/env bash
# The README's solve command: configure, build, solve an instance (default ta001) on the GPU if
# there is one (and pfsp was built with CUDA), else on all CPU cores.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${PFSP_BUILD_DIR:-build}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DPFSP_BUILD_TESTS=OFF -DPFSP_BUILD_BENCH=OFF >/dev/null
cmake --build "$build" -j "$(nproc)" --target pfsp >/dev/null
exec "$build/pfsp" solve "${@:-ta001}"
