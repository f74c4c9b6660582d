#!/usr/bin/env bash
# The README's solve command: configure, build, solve an instance (default ta001) on the GPU if
# there is one (and pfsp was built with CUDA), else on all CPU cores. Installs the Debian packages
# the build needs when they are missing (scripts/debian_packages.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/debian_packages.sh
ensure_debian_packages solve.sh cmake g++ make libcli11-dev nlohmann-json3-dev
build=${PFSP_BUILD_DIR:-build}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DPFSP_BUILD_TESTS=OFF -DPFSP_BUILD_BENCH=OFF >/dev/null
cmake --build "$build" -j "$(nproc)" --target pfsp >/dev/null
exec "$build/pfsp" solve "${@:-ta001}"
