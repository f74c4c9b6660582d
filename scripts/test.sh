#!/usr/bin/env bash
# The README's test command: check docs/results.md is current (bench/results_page.py --check),
# configure (CUDA compiled when nvcc exists), build, run the tests.
# CPU-labelled tests always; GPU-labelled tests too when a CUDA device is present; then the Python
# package: `pip install .` into a virtual environment ($build/venv) and its pytest suite (skipped,
# saying why, without python3's venv and headers; PFSP_SKIP_PYTHON=1 skips it too). PFSP_PIP_ARGS
# adds pip arguments (CI: -C cmake.define.PFSP_ENABLE_CUDA=OFF, one compilation of CUDA is enough).
# First installs the Debian packages the build and the tests need when they are missing, as .ci/run
# does (scripts/debian_packages.sh; the Python ones unless PFSP_SKIP_PYTHON=1).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/debian_packages.sh
packages=(cmake g++ make libgtest-dev libcli11-dev nlohmann-json3-dev libopenmpi-dev openmpi-bin python3)
[ "${PFSP_SKIP_PYTHON:-0}" = 1 ] || packages+=(python3-dev python3-venv python3-pip)
ensure_debian_packages test.sh "${packages[@]}"
build=${PFSP_BUILD_DIR:-build}
jobs=${PFSP_JOBS:-$(nproc)}
# docs/results.md is generated from bench/results/: fail if it is stale or a docs link is broken
# (standard-library Python, well under a second).
if command -v python3 >/dev/null 2>&1; then
  python3 bench/results_page.py --check
else
  echo "test.sh: python3 not found: docs/results.md and the docs' links not checked"
fi
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release ${PFSP_CMAKE_ARGS:-}
cmake --build "$build" -j "$jobs"
ctest --test-dir "$build" -L cpu --output-on-failure --no-tests=error -j "$jobs"
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q GPU; then
  ctest --test-dir "$build" -L gpu --output-on-failure --no-tests=error
else
  echo "test.sh: no CUDA device here: gpu-labelled tests not run (they are compiled when nvcc exists)"
fi

if [ "${PFSP_SKIP_PYTHON:-0}" = 1 ]; then
  echo "test.sh: PFSP_SKIP_PYTHON=1: the Python package's tests not run"
elif ! command -v python3 >/dev/null 2>&1 || ! python3 -c "import venv, ensurepip" 2>/dev/null ||
  ! python3 -c "import os, sysconfig; assert os.path.exists(os.path.join(sysconfig.get_paths()['include'], 'Python.h'))" 2>/dev/null; then
  echo "test.sh: python3 with venv and its headers not found (Debian: python3-venv python3-dev): the Python package's tests not run"
else
  build_abs=$(cd "$build" && pwd)
  venv="$build_abs/venv"
  [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
  # The pip build keeps its CMake tree in $build/pip, so that a second run only recompiles what changed.
  CMAKE_BUILD_PARALLEL_LEVEL=$jobs "$venv/bin/python" -m pip install -q ${PFSP_PIP_ARGS:-} \
    -C build-dir="$build_abs/pip" ".[test]"
  PFSP_BINARY="$build_abs/pfsp" "$venv/bin/python" -m pytest -q -p no:cacheprovider python/tests
fi
