# pfsp.solve against known optima and against brute force on random small instances.
import os

import pytest

import pfsp
from conftest import brute_force, makespan, random_times


def test_ta001_default_backend():
    r = pfsp.solve(pfsp.Instance.taillard("ta001"))
    assert r.status == "optimal"
    assert r.optimal
    assert r.makespan == 1278
    assert r.lower_bound == 1278
    assert sorted(r.schedule) == list(range(1, 21))
    assert pfsp.Instance.taillard("ta001").makespan(r.schedule) == 1278
    assert r.exit_code == 0


def test_instance_by_name_and_spec():
    inst = pfsp.Instance.taillard("ta001")
    assert (inst.name, inst.n, inst.m) == ("ta001", 20, 5)
    assert inst.best_known == {"lb": 1278, "ub": 1278, "optimal": True}
    assert len(inst.times) == 5 and all(len(row) == 20 for row in inst.times)
    assert pfsp.solve("ta003", backend="cpu").makespan == 1081
    r = pfsp.Instance.load("random:6,3,7")
    assert (r.n, r.m, r.best_known) == (6, 3, None)


@pytest.mark.parametrize("backend", ["cpu", "cpu-mt"])
@pytest.mark.parametrize("bound", ["lb1", "lb2", "lb1-lb2"])
def test_random_small_instances_against_brute_force(backend, bound):
    np = pytest.importorskip("numpy")
    branchings = ["forward", "backward", "min-branch", "min-min"]
    for case in range(8):
        seed = 1000 * case + len(backend) * 10 + len(bound)
        n, m = 2 + case % 6, 1 + (case * 3) % 5
        times = random_times(seed, n, m)
        branching = branchings[case % 4]
        heuristic = "none" if case % 2 == 0 else "auto"
        where = (f"seed {seed}, n {n}, m {m}, backend {backend}, bound {bound}, branching {branching}, "
                 f"heuristic {heuristic}")
        inst = pfsp.Instance.from_matrix(np.array(times), name=f"random{seed}")
        r = pfsp.solve(inst, backend=backend, bound=bound, branching=branching, heuristic=heuristic, threads=2)
        assert r.status == "optimal", where
        assert r.makespan == brute_force(times), where
        assert r.lower_bound == r.makespan, where
        assert sorted(r.schedule) == list(range(1, n + 1)), where
        assert makespan(times, [j - 1 for j in r.schedule]) == r.makespan, where


@pytest.mark.parametrize("selection", ["depth-first", "breadth-first", "best-first"])
def test_selections_against_brute_force(selection):
    for seed in range(5):
        times = random_times(seed, 7, 4)
        r = pfsp.solve(pfsp.Instance.from_matrix(times), backend="cpu", selection=selection, heuristic="none")
        assert (r.status, r.makespan) == ("optimal", brute_force(times)), f"seed {seed}, {selection}"


@pytest.mark.parametrize("child_order", ["incumbent", "bound"])
def test_child_orders_against_brute_force(child_order):
    for seed in range(5):
        times = random_times(100 + seed, 8, 4)
        r = pfsp.solve(pfsp.Instance.from_matrix(times), backend="cpu", child_order=child_order, heuristic="neh")
        assert (r.status, r.makespan) == ("optimal", brute_force(times)), f"seed {100 + seed}, {child_order}"
        assert r.options["child_order"] == child_order


def test_from_file(tmp_path, small_times):
    path = tmp_path / "small.txt"
    path.write_text("4 3\n" + "\n".join(" ".join(map(str, row)) for row in small_times) + "\n")
    inst = pfsp.Instance.from_file(path)
    assert (inst.n, inst.m, inst.times) == (4, 3, small_times)
    r = pfsp.solve(inst, backend="cpu")
    assert r.makespan == brute_force(small_times)


def test_from_matrix_jobs_by_machines_transposed(small_times):
    np = pytest.importorskip("numpy")
    a = np.array(small_times, dtype=np.int64)
    assert pfsp.Instance.from_matrix(a.T.T).times == small_times
    assert pfsp.Instance.from_matrix(a.T).n == 3


def test_upper_bound_options():
    assert pfsp.solve("ta001", ub="best-known").makespan == 1278
    assert pfsp.solve("ta001", ub=1279, heuristic="none").status == "optimal"
    r = pfsp.solve("ta001", backend="cpu", ub=1200, heuristic="none")
    assert (r.status, r.makespan, r.lower_bound) == ("proven_bound", None, 1200)
    assert r.schedule == []
    # The default backend: on a GPU machine the improver threads run iterated greedy beside the
    # search, and their schedule (never below the optimum, 1278) is reported with the bound 1200.
    r = pfsp.solve("ta001", ub=1200, heuristic="none")
    assert (r.status, r.lower_bound) == ("proven_bound", 1200)
    assert r.makespan is None and r.schedule == [] or r.makespan >= 1278 and len(r.schedule) == 20


def test_incumbent_engine_options():
    # The engine beside the CPU search, as on the CLI: its threads, share and seed are options.
    r = pfsp.solve("ta001", backend="cpu", improver_threads=1, seed=5)
    assert (r.status, r.makespan) == ("optimal", 1278)
    assert r.to_dict()["engine_threads"] == 1
    r = pfsp.solve("ta001", backend="cpu-mt", threads=2, heuristic_share=0.5)
    assert (r.status, r.makespan) == ("optimal", 1278)
    assert r.to_dict()["engine_threads"] == 1
    with pytest.raises(pfsp.InputError, match="--heuristic-share"):
        pfsp.solve("ta001", backend="cpu", heuristic_share=2.0)
    # The beam search as one of two engine threads (auto where n > 20; here asked for), its targets
    # bisected by default, or the engine's best.
    r = pfsp.solve("ta031", backend="cpu", improver_threads=2, beam=1, time_limit=2)
    assert r.makespan == 2724 and any("beam search on 1 thread (targets bisected" in n for n in r.notes)
    r = pfsp.solve("ta031", backend="cpu", improver_threads=2, beam=1, beam_target="best", time_limit=2)
    assert r.makespan == 2724 and any("beam search on 1 thread: width" in n for n in r.notes)
    with pytest.raises(pfsp.InputError, match="--beam"):
        pfsp.solve("ta001", backend="cpu", beam=-2)
    with pytest.raises(pfsp.InputError, match="--beam-target"):
        pfsp.solve("ta001", backend="cpu", beam_target="widest")
    # The beam's passes on the GPU need the gpu backend; cpu keeps them on the engine's threads.
    r = pfsp.solve("ta031", backend="cpu", improver_threads=2, beam=1, beam_device="cpu", time_limit=2)
    assert r.makespan == 2724 and any("beam search on 1 thread (targets bisected" in n for n in r.notes)
    with pytest.raises(pfsp.InputError, match="--beam-device gpu needs the gpu backend"):
        pfsp.solve("ta001", backend="cpu", beam_device="gpu")
    with pytest.raises(pfsp.InputError, match="--beam-device"):
        pfsp.solve("ta001", backend="cpu", beam_device="tpu")


def test_auto_heuristic_share_follows_the_class():
    # cpu-mt's auto share: every thread runs the engine on 100x20 and up (the search keeps one),
    # half elsewhere (100x10: the search proves those).
    r = pfsp.solve("ta101", backend="cpu-mt", threads=2, time_limit=0.3)
    assert r.to_dict()["engine_threads"] == 2
    r = pfsp.solve("ta081", backend="cpu-mt", threads=2, time_limit=0.3)
    assert r.to_dict()["engine_threads"] == 2
    r = pfsp.solve("ta071", backend="cpu-mt", threads=2, time_limit=0.3)
    assert r.to_dict()["engine_threads"] == 1


def test_time_and_node_limits():
    r = pfsp.solve("ta021", backend="cpu", heuristic="neh", time_limit=0.3)
    assert r.status == "time_limit"
    assert r.exit_code == 3
    assert r.makespan is not None and r.lower_bound <= r.makespan
    assert r.time_seconds < 2
    r = pfsp.solve("ta021", backend="cpu-mt", threads=2, heuristic="neh", node_limit=1000)
    assert r.status == "node_limit"
    assert r.nodes["branched"] >= 1000


def test_result_has_the_json_fields():
    r = pfsp.solve("ta002", backend="cpu")
    d = r.to_dict()
    for key in ("status", "makespan", "schedule", "lower_bound", "instance", "nodes", "explored_fraction",
                "time_seconds", "wall_seconds", "heuristic_seconds", "pair_learning_seconds", "backend", "notes",
                "options", "commit", "command"):
        assert key in d, key
    assert d["command"] == "pfsp.solve('ta002', backend='cpu')"
    assert d["schedule"] == r.schedule and d["makespan"] == r.makespan == 1359
    assert d["options"]["backend"] == "cpu"
    assert r.wall_seconds >= r.time_seconds >= 0


def test_same_json_keys_as_the_cli(tmp_path):
    binary = os.environ.get("PFSP_BINARY")
    if not binary:
        pytest.skip("PFSP_BINARY (the pfsp executable, set by scripts/test.sh) not set")
    import json
    import subprocess
    out = tmp_path / "r.json"
    subprocess.run([binary, "solve", "ta002", "--backend", "cpu", "-q", "--json", str(out)], check=True,
                   capture_output=True)
    cli = json.loads(out.read_text())
    py = pfsp.solve("ta002", backend="cpu").to_dict()
    assert sorted(py) == sorted(cli)
    assert sorted(py["options"]) == sorted(cli["options"])
    for key in ("status", "makespan", "lower_bound", "schedule", "instance"):
        assert py[key] == cli[key], key


def test_gantt_chart(tmp_path):
    r = pfsp.solve("ta001", backend="cpu")
    svg = r.gantt()
    assert "<svg" in svg and svg.rstrip().endswith("</svg>")
    path = tmp_path / "ta001.svg"
    assert r.gantt(path) == svg and path.read_text() == svg
    assert "Mine" in r.gantt(title="Mine")
    binary = os.environ.get("PFSP_BINARY")
    if binary:  # the same chart as pfsp solve --gantt draws for the same schedule
        import subprocess
        cli_svg = tmp_path / "cli.svg"
        subprocess.run([binary, "solve", "ta001", "--backend", "cpu", "-q", "--gantt", str(cli_svg)], check=True,
                       capture_output=True)
        assert cli_svg.read_text() == svg
    empty = pfsp.solve("ta001", backend="cpu", ub=1200, heuristic="none")
    with pytest.raises(pfsp.InputError, match="no schedule was found"):
        empty.gantt()


def test_instance_spec_in_the_json(tmp_path):
    assert pfsp.solve("ta001", backend="cpu").to_dict()["instance"]["spec"] == "ta001"
    assert pfsp.solve(pfsp.Instance.load("random:6,3,7"), backend="cpu").to_dict()["instance"]["spec"] == \
        "random:6,3,7"
    assert "spec" not in pfsp.solve(pfsp.Instance.from_matrix([[1, 2], [2, 1]]), backend="cpu").to_dict()["instance"]
