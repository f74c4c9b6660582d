#!/usr/bin/env bash
# Issue 13's done-check for the Python package: a clean `git clone` of this checkout's HEAD in a
# temporary directory, a fresh virtual environment, `pip install .`, then
#   python -c "import pfsp; print(pfsp.solve(pfsp.Instance.taillard('ta001')).makespan)"
# must print 1278. Needs python3 with venv, network access to PyPI (scikit-build-core, nanobind;
# cmake and ninja too where the system's are missing) and the README's build prerequisites.
# PFSP_PIP_ARGS adds pip arguments (e.g. "-C cmake.define.PFSP_ENABLE_CUDA=OFF"); KEEP=1 keeps
# the temporary directory.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
python=${PYTHON:-python3}
commit=$(git -C "$root" rev-parse HEAD)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pfsp-pip-check.XXXXXX")
if [ "${KEEP:-0}" != 1 ]; then trap 'rm -rf "$tmp"' EXIT; fi
echo "check_pip_install: commit $commit in $tmp"
git clone -q --no-checkout "$root" "$tmp/pfsp"
git -C "$tmp/pfsp" checkout -q "$commit"
"$python" -m venv "$tmp/venv"
export CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}
(cd "$tmp/pfsp" && "$tmp/venv/bin/python" -m pip install -q ${PFSP_PIP_ARGS:-} .)
cd "$tmp"  # not the source tree: the installed package is imported
out=$("$tmp/venv/bin/python" -c "import pfsp; print(pfsp.solve(pfsp.Instance.taillard('ta001')).makespan)")
echo "$out"
if [ "$out" != 1278 ]; then
  echo "check_pip_install: FAILED: expected 1278" >&2
  exit 1
fi
echo "check_pip_install: ok (pip install . from a clean clone of $commit prints 1278)"
