#!/usr/bin/env bash
# Run ON the GPU machine from the repository root: `pip install .` of the Python package with the
# CUDA backend from wheels carried in .deps/wheels (`pip download` them here: scikit-build-core,
# nanobind, pip, pytest, numpy for the device's Python; the machine has no network), then GPU solves
# from Python and the pytest suite. Usage: bench/harness/device_python.sh OUTDIR (.deps/root unpacked).
set -u
R=$1
which python3; python3 --version
python3 -c "import sysconfig,os;p=os.path.join(sysconfig.get_paths()['include'],'Python.h');print('Python.h',os.path.exists(p))"
python3 -c "import venv, ensurepip" && echo venv-ok || echo venv-missing
PIPWHL=$(ls .deps/wheels/pip-*.whl)
T=/tmp/pyenv; mkdir -p $T
if python3 -m venv --without-pip /tmp/venv 2>/dev/null; then PY=/tmp/venv/bin/python; else PY=python3; fi
$PY $PIPWHL/pip install -q --no-index --find-links .deps/wheels pip 2>&1 | tail -2 || true
$PY -m pip --version || PY_PIP="$PY $PIPWHL/pip"
PIP=${PY_PIP:-"$PY -m pip"}
t0=$(date +%s)
CMAKE_BUILD_PARALLEL_LEVEL=16 $PIP install --no-index --find-links .deps/wheels --break-system-packages \
  -C cmake.define.CMAKE_PREFIX_PATH=$PWD/.deps/root/usr -C cmake.define.CMAKE_CUDA_ARCHITECTURES=90 \
  -C build-dir=/tmp/pipbuild . > $R/pip_install.log 2>&1; echo "pip rc=$? in $(( $(date +%s) - t0 )) s"
$PIP install -q --no-index --find-links .deps/wheels --break-system-packages pytest numpy 2>&1 | tail -2
tail -5 $R/pip_install.log
cd /tmp && $PY - <<'PY'
import pfsp, time
print("gpu_available", pfsp.gpu_available())
for name in ("ta001", "ta021", "ta023"):
    t = time.time()
    r = pfsp.solve(pfsp.Instance.taillard(name), backend="gpu")
    print(name, r.status, r.makespan, r.lower_bound, "%.2f s" % (time.time() - t), r.to_dict()["backend"][:60])
r = pfsp.solve(pfsp.Instance.taillard("ta056"), backend="gpu", time_limit=5, progress=lambda p: None)
print("ta056 5s", r.status, r.makespan, r.lower_bound)
PY
cd - >/dev/null
$PY -m pytest -q -p no:cacheprovider python/tests 2>&1 | tail -5
