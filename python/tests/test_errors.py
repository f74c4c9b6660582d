# Bad inputs and options raise pfsp.InputError (a ValueError) with the messages `pfsp` prints.
import os
import subprocess

import pytest

import pfsp


def cli_message(*args):
    """What the pfsp executable prints on stderr for these arguments (without 'pfsp: '), or None
    when PFSP_BINARY is not set."""
    binary = os.environ.get("PFSP_BINARY")
    if not binary:
        return None
    r = subprocess.run([binary, *args], capture_output=True, text=True)
    assert r.returncode == 2, r.stderr
    return r.stderr.strip().removeprefix("pfsp: ")


def check(exc, expected, *cli_args):
    assert str(exc.value) == expected
    assert isinstance(exc.value, ValueError) and isinstance(exc.value, pfsp.Error)
    from_cli = cli_message(*cli_args)
    if from_cli is not None:
        assert str(exc.value) == from_cli


def test_unknown_taillard_name():
    with pytest.raises(pfsp.InputError) as e:
        pfsp.Instance.taillard("ta999")
    check(e, "unknown instance name 'ta999' (Taillard's instances are ta001 .. ta120)", "solve", "ta999")


def test_missing_file():
    with pytest.raises(pfsp.InputError) as e:
        pfsp.Instance.from_file("/nonexistent/x.txt")
    assert str(e.value) == "/nonexistent/x.txt: cannot open file (and it is not an instance name like ta001)"


def test_malformed_file(tmp_path):
    path = tmp_path / "bad.txt"
    path.write_text("3 2\n1 2 3\n4 x 6\n")
    with pytest.raises(pfsp.InputError) as e:
        pfsp.Instance.from_file(path)
    assert str(e.value).startswith(f"{path}:3: ")
    from_cli = cli_message("solve", str(path))
    if from_cli is not None:
        assert str(e.value) == from_cli


@pytest.mark.parametrize("kwargs, expected, cli", [
    ({"backend": "foo"}, "--backend: foo not in {auto,cpu,cpu-mt,gpu}", ["--backend", "foo"]),
    ({"bound": "lb3"}, "--bound: lb3 not in {auto,lb1,lb2,lb1-lb2}", ["--bound", "lb3"]),
    ({"threads": 0}, "--threads: Value 0 not in range 1 to 4096", ["--threads", "0"]),
    ({"time_limit": -1}, "--time-limit: Value -1 not in range 0.000000 to 1000000000.000000",
     ["--time-limit", "-1"]),
    ({"lb2_pairs": "x"}, "--lb2-pairs: 'x': expected auto, all, adjacent, learn or learn:K", ["--lb2-pairs", "x"]),
    ({"ub": "abc"}, "--ub abc: expected a makespan in 1..2000000000 or best-known", ["--ub", "abc"]),
    ({"lb2_pairs": "adjacent", "bound": "lb1"},
     "--lb2-pairs adjacent needs --bound lb2 or lb1-lb2 (LB1 has no machine pairs)",
     ["--lb2-pairs", "adjacent", "--bound", "lb1"]),
])
def test_bad_options(kwargs, expected, cli):
    with pytest.raises(pfsp.InputError) as e:
        pfsp.solve("ta001", **kwargs)
    check(e, expected, "solve", "ta001", "-q", *cli)


def test_gpu_backend_without_gpu():
    if pfsp.gpu_available():
        pytest.skip("a CUDA device is present")
    with pytest.raises(pfsp.InputError) as e:
        pfsp.solve("ta001", backend="gpu")
    expected = ("--backend gpu: no CUDA device is available on this machine" if pfsp.gpu_built() else
                "--backend gpu: this pfsp was built without CUDA (nvcc was not found at configure time)")
    assert str(e.value) == expected


def test_ub_best_known_of_a_matrix():
    with pytest.raises(pfsp.InputError) as e:
        pfsp.solve(pfsp.Instance.from_matrix([[1, 2], [3, 4]], name="mine"), ub="best-known")
    assert str(e.value) == ("--ub best-known: mine has no best known makespan "
                            "(only Taillard's instances ta001..ta120 have one)")


@pytest.mark.parametrize("matrix, fragment", [
    ([[1, 0, 3]], "processing time of job 2 on machine 1 must be an integer in 1..1000000, got 0"),
    ([[1, 2.5]], "processing time of job 2 on machine 1 must be an integer in 1..1000000, got 2.5"),
    ([[1, 2], [3, 10**12]], "processing time of job 2 on machine 2 must be an integer in 1..1000000, got "
                            "1000000000000"),
    ([[1, 2], [3]], "expected a 2-D array of shape (machines, jobs) with equal, non-empty rows"),
    ([], "expected a 2-D array of shape (machines, jobs) with equal, non-empty rows"),
    ([[1] * 5] * 1001, "number of machines must be in 1..1000, got 1001"),
])
def test_bad_matrix(matrix, fragment):
    with pytest.raises(pfsp.InputError, match="^m: ") as e:
        pfsp.Instance.from_matrix(matrix, name="m")
    assert fragment in str(e.value)


def test_unknown_keyword_and_bad_schedule():
    with pytest.raises(TypeError):
        pfsp.solve("ta001", colour="red")
    with pytest.raises(pfsp.InputError, match="not a permutation"):
        pfsp.Instance.taillard("ta001").makespan([1] * 20)
