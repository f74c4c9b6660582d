# pfsp.solve takes every option of `pfsp solve` as a keyword, from the CLI's own registry
# (src/app/options.cpp): checked here against the registry and, where PFSP_BINARY is set, against
# what the executable's `pfsp solve --help-all` lists. Also the result's outputs: to_json(path),
# gantt_svg(), the notebook view, json=/gantt=/log=.
import json
import os
import re
import subprocess

import pytest

import pfsp

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def help_all_options():
    """The options `pfsp solve --help-all` lists (long names), or None without PFSP_BINARY."""
    binary = os.environ.get("PFSP_BINARY")
    if not binary:
        return None
    out = subprocess.run([binary, "solve", "--help-all"], capture_output=True, text=True, check=True).stdout
    names = set(re.findall(r"^  (?:-\w,)?(--[\w-]+)", out, flags=re.M))
    return names - {"--help", "--help-all"}


def test_keywords_are_the_cli_registry():
    table = pfsp.solve_options()
    names = {o["name"] for o in table}
    keywords = {o["keyword"] for o in table}
    assert keywords == {n[2:].replace("-", "_") for n in names}
    # What to solve, limits, outputs, checkpoints, and the GPU's, in every build.
    for k in ("backend", "bound", "branching", "time_limit", "node_limit", "ub", "json", "gantt", "log", "checkpoint",
              "resume", "improver_threads", "beam", "gpu_strategy", "devices", "gpu_loop", "pool_size", "gpu_memory",
              "lb2_lanes", "progress_interval"):
        assert k in keywords, k
    from_cli = help_all_options()
    if from_cli is not None:
        assert names == from_cli


def test_every_keyword_is_accepted_with_its_default():
    refused = set()
    for o in pfsp.solve_options():
        args = [o["name"]] if o["flag"] else ([f"{o['name']}={o['default']}"] if o["default"] else [])
        if not args:
            continue
        try:
            pfsp._core.SolveArgs.parse("ta001", args)
        except pfsp.InputError as e:
            # Only a build without CUDA refuses an option whatever its value: the GPU layer's.
            assert not pfsp.gpu_built(), str(e)
            assert str(e).startswith(o["name"] + ": this pfsp was built without CUDA"), str(e)
            refused.add(o["name"])
    if not pfsp.gpu_built():
        assert {"--gpu-loop", "--pool-size", "--device"} <= refused


def test_unknown_keyword_names_the_registry():
    with pytest.raises(TypeError, match="solve_options"):
        pfsp.solve("ta001", time_limt=5)


def test_devices_without_a_gpu_names_the_option():
    if pfsp.gpu_available():
        pytest.skip("a CUDA device is present")
    with pytest.raises(pfsp.InputError, match="^--devices"):
        pfsp.solve("ta001", devices=[0, 1])


def test_flags_and_values():
    r = pfsp.solve("ta001", backend="cpu", no_neh=True, shared_queue=False, seed=3, node_limit=10**9)
    assert r.status == "optimal" and r.makespan == 1278
    assert r.options["initial_ub_source"] == "none"


def test_outputs(tmp_path):
    js, svg, log = tmp_path / "r.json", tmp_path / "r.svg", tmp_path / "r.log"
    r = pfsp.solve("ta001", backend="cpu", json=js, gantt=svg, log=str(log))
    assert json.loads(js.read_text())["makespan"] == 1278
    assert svg.read_text() == r.gantt_svg()
    assert "summary" in log.read_text() and "1278" in log.read_text()
    again = tmp_path / "again.json"
    assert r.to_json(again) == again.read_text()
    assert json.loads(again.read_text()) == r.to_dict()


def test_notebook_view():
    r = pfsp.solve("ta001", backend="cpu")
    page = r._repr_html_()
    for what in ("optimal", "1278", "gap", "<svg"):
        assert what in page, what
    assert r.gap == 0.0


def test_bad_output_directory_before_the_search(tmp_path):
    with pytest.raises(pfsp.InputError, match="--json"):
        pfsp.solve("ta001", json=tmp_path / "missing" / "r.json")


def test_version_is_the_projects():
    with open(os.path.join(ROOT, "CMakeLists.txt")) as f:
        version = re.search(r"project\(pfsp VERSION ([0-9.]+)", f.read()).group(1)
    assert pfsp.__version__ == version
