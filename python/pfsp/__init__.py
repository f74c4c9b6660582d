"""Exact branch-and-bound for the permutation flow-shop problem (makespan), from Python.

    >>> import pfsp
    >>> r = pfsp.solve(pfsp.Instance.taillard("ta001"))
    >>> r.status, r.makespan
    ('optimal', 1278)

``solve`` runs the same pipeline as ``pfsp solve`` (src/app/solve_api.hpp): every option of
``pfsp solve`` as a keyword (its name with ``_`` for ``-``, taken from the CLI's own option
registry: ``solve_options()``), parsed by the CLI's parser with its defaults, checks and error
messages; the same result fields as ``pfsp solve --json``. Schedules are 1-based job numbers, as
in the JSON and the CLI's output.
"""

from __future__ import annotations

import html as _html
import json as _json
import os as _os
import warnings as _warnings
from dataclasses import dataclass
from typing import Any, Callable, Optional, Sequence, Union

from . import _core
from ._core import Error, InputError

__all__ = ["Instance", "Result", "Progress", "solve", "solve_options", "Error", "InputError", "gpu_built",
           "gpu_available", "__version__"]

__version__ = _core.version()


def gpu_built() -> bool:
    """Whether this build has the GPU backend (nvcc was found when it was compiled)."""
    return _core.gpu_built()


def gpu_available() -> bool:
    """Whether backend="gpu" can run: built with the GPU backend and a CUDA device is present
    (what backend="auto" picks then)."""
    return _core.gpu_available()


class Instance:
    """A flow-shop instance: ``n`` jobs, ``m`` machines, processing times ``times[k][j]`` > 0
    of job ``j`` on machine ``k`` (machine-major, as in Taillard's files)."""

    __slots__ = ("_inst", "_spec")

    def __init__(self, core: "_core.Instance", spec: str = ""):
        self._inst = core
        self._spec = spec  # what reloads it (name, random:..., path); empty for a matrix

    @classmethod
    def taillard(cls, name: str) -> "Instance":
        """Taillard's instance ``ta001`` .. ``ta120`` (generated from its seed), with its best
        known bounds."""
        return cls(_core.Instance.taillard(name), name)

    @classmethod
    def from_file(cls, path: Union[str, "os.PathLike[str]"]) -> "Instance":  # noqa: F821
        """An instance file in Taillard's format or the OR-Library/VRF job-per-row format
        (detected automatically). Raises InputError naming the file, line and expectation."""
        return cls(_core.Instance.from_file(str(path)), str(path))

    @classmethod
    def load(cls, spec: str) -> "Instance":
        """What ``pfsp solve INSTANCE`` accepts: ``ta001``..``ta120``, ``random:N,M,SEED`` or a
        file path."""
        return cls(_core.Instance.load(spec), spec)

    @classmethod
    def from_matrix(cls, times: Any, name: str = "matrix") -> "Instance":
        """From a 2-D array (numpy array or nested sequences) of shape ``(m, n)``:
        ``times[k][j]`` is the processing time of job ``j`` on machine ``k``, a positive integer
        (machine-major, Taillard's layout). Use ``from_matrix(a.T)`` for a jobs x machines array."""
        rows = [list(r) for r in times]
        if not rows or not rows[0] or any(len(r) != len(rows[0]) for r in rows):
            raise InputError(f"{name}: expected a 2-D array of shape (machines, jobs) with equal, non-empty rows")
        limit = _core.time_limit(len(rows[0]), len(rows))
        flat = []
        for k, row in enumerate(rows):
            for j, v in enumerate(row):
                try:
                    iv = int(v)
                    ok = iv == v
                except (TypeError, ValueError, OverflowError):
                    ok = False
                if not ok:  # the C++ side checks the range, with the same message
                    raise InputError(f"{name}: processing time of job {j + 1} on machine {k + 1} must be an "
                                     f"integer in 1..{limit}, got {v!r}")
                flat.append(iv)
        return cls(_core.Instance.from_times(name, len(rows[0]), len(rows), flat))

    @property
    def name(self) -> str:
        return self._inst.name

    @property
    def n(self) -> int:
        """Number of jobs."""
        return self._inst.n

    @property
    def m(self) -> int:
        """Number of machines."""
        return self._inst.m

    @property
    def times(self) -> list:
        """Processing times as a list of ``m`` rows of ``n`` integers (machine-major)."""
        p, n = self._inst.p, self._inst.n
        return [p[k * n:(k + 1) * n] for k in range(self._inst.m)]

    @property
    def best_known(self) -> Optional[dict]:
        """``{"lb", "ub", "optimal"}`` from Taillard's table for ``ta001``..``ta120``, else None."""
        return self._inst.best_known

    def makespan(self, schedule: Sequence[int]) -> int:
        """Makespan of a complete schedule of 1-based job numbers (like Result.schedule)."""
        return self._inst.makespan([int(j) for j in schedule])

    def __repr__(self) -> str:
        return f"Instance({self.name!r}, n={self.n}, m={self.m})"


@dataclass(frozen=True)
class Progress:
    """A progress snapshot, given to ``solve(progress=...)`` about every progress_interval
    seconds: the fields of the CLI's progress line. ``lower_bound``, ``tree_done`` and
    ``forecast_seconds`` are None where the backend does not know them (all but the GPU device
    loop)."""

    elapsed: float
    nodes: int
    best: int
    open: int
    explored: float
    lower_bound: Optional[int]
    tree_done: Optional[float]
    forecast_seconds: Optional[float]


class Result:
    """The result of ``solve``: the fields of ``pfsp solve --json`` (``to_dict()`` is that JSON
    object). ``schedule`` is 1-based; ``makespan`` is None when no schedule was found below the
    initial upper bound."""

    __slots__ = ("_d", "_outcome")

    def __init__(self, outcome: "_core.Outcome"):
        self._outcome = outcome
        self._d = _json.loads(outcome.json())

    status = property(lambda self: self._d["status"], doc="optimal, proven_bound, time_limit, node_limit or interrupted")
    makespan = property(lambda self: self._d["makespan"])
    schedule = property(lambda self: list(self._d["schedule"]), doc="1-based job numbers, in processing order")
    lower_bound = property(lambda self: self._d["lower_bound"], doc="proven lower bound on the optimum")
    nodes = property(lambda self: dict(self._d["nodes"]), doc="branched, bounds, pruned, leaves")
    explored_fraction = property(lambda self: self._d["explored_fraction"])
    time_seconds = property(lambda self: self._d["time_seconds"], doc="the solver's time (search)")
    wall_seconds = property(lambda self: self._d.get("wall_seconds"),
                            doc="with the start heuristic and pair learning")
    backend = property(lambda self: self._d["backend"])
    notes = property(lambda self: list(self._d["notes"]))
    options = property(lambda self: dict(self._d["options"]))

    @property
    def optimal(self) -> bool:
        """True when the schedule is proven optimal."""
        return self._d["status"] == "optimal"

    @property
    def exit_code(self) -> int:
        """The exit code ``pfsp solve`` would return (0, 3, 4, 130)."""
        return self._outcome.exit_code

    @property
    def gap(self) -> Optional[float]:
        """Percent of the makespan above the proven lower bound, 100 (makespan - lower_bound) /
        makespan, as the CLI prints it; None when no schedule was found."""
        if self.makespan is None or self.makespan <= 0:
            return None
        return 100.0 * (self.makespan - self.lower_bound) / self.makespan

    def gantt_svg(self, *, title: str = "", width: int = 0, critical: bool = True) -> str:
        """The schedule as a Gantt chart: the same standalone SVG as ``pfsp solve --gantt``
        (machines as rows, one critical path and the makespan marked). ``title`` empty: the
        instance, its size and the makespan; ``width`` 0: auto. Raises InputError when no schedule
        was found."""
        return self._outcome.gantt_svg(title, int(width), bool(critical))

    def gantt(self, path: Union[str, "os.PathLike[str]", None] = None, *, title: str = "", width: int = 0,  # noqa: F821
              critical: bool = True) -> str:
        """``gantt_svg()``, also written to ``path`` (atomically) when given."""
        svg = self.gantt_svg(title=title, width=width, critical=critical)
        if path is not None:
            _core.write_file_atomically(_os.fspath(path), svg)
        return svg

    def to_dict(self) -> dict:
        """The JSON report of ``pfsp solve --json`` as a dict (``command`` is the Python call)."""
        return _json.loads(_json.dumps(self._d))

    def to_json(self, path: Union[str, "os.PathLike[str]", None] = None) -> str:  # noqa: F821
        """The JSON text ``pfsp solve --json`` writes; also written to ``path`` (atomically) when
        given."""
        text = self._outcome.json()
        if path is not None:
            _core.write_file_atomically(_os.fspath(path), text)
        return text

    def __repr__(self) -> str:
        return (f"Result(status={self.status!r}, makespan={self.makespan}, lower_bound={self.lower_bound}, "
                f"nodes={self._d['nodes']['branched']}, time_seconds={self.time_seconds:.3f})")

    def _repr_html_(self) -> str:
        """Jupyter's view: status, makespan, bound, gap, nodes and times, then the Gantt chart."""
        gap = self.gap
        rows = [("status", self.status), ("makespan", self.makespan), ("lower bound", self.lower_bound),
                ("gap", "-" if gap is None else f"{gap:.2f} %"), ("nodes", f"{self.nodes['branched']:,} branched"),
                ("time", f"{self.time_seconds:.3f} s search, {self.wall_seconds or 0:.3f} s wall"),
                ("backend", self.backend)]
        name = self._d.get("instance", {}).get("name", "") if isinstance(self._d.get("instance"), dict) else ""
        cells = "".join(f"<tr><th style='text-align:left'>{_html.escape(str(k))}</th>"
                        f"<td style='text-align:left'>{_html.escape(str(v))}</td></tr>" for k, v in rows)
        head = f"<b>pfsp result{' for ' + _html.escape(name) if name else ''}</b>"
        chart = ""
        if self.makespan is not None and self._d.get("schedule"):
            chart = f"<div style='overflow-x:auto'>{self.gantt_svg()}</div>"
        return f"<div>{head}<table>{cells}</table>{chart}</div>"


def solve_options() -> list:
    """Every option of ``pfsp solve``, from the CLI's option registry (src/app/options.cpp): a dict
    each with ``name`` (``--time-limit``), ``keyword`` (``time_limit``, what ``solve`` takes),
    ``flag``, ``group`` (the ``--help`` group), ``default`` and ``help``."""
    table = _core.solve_options()
    for o in table:
        o["keyword"] = o["name"].lstrip("-").replace("-", "_")
    return table


_KEYWORDS = {o["keyword"]: o for o in solve_options()}


def _command_line(options: dict) -> list:
    """The ``pfsp solve`` arguments of these keywords: ``--name=value`` (a list or tuple joined by
    commas, e.g. devices=[0, 1]); a flag given True is ``--name``, False or None leaves it out."""
    args = []
    for key, value in options.items():
        o = _KEYWORDS.get(key)
        if o is None:
            raise TypeError(f"solve() got an unexpected keyword argument {key!r} (the options of pfsp solve, "
                            f"with _ for -, are pfsp.solve_options())")
        if value is None or value is False:
            continue
        if value is True:
            args.append(o["name"])
            continue
        if isinstance(value, (list, tuple)):
            value = ",".join(str(v) for v in value)
        elif isinstance(value, _os.PathLike):
            value = _os.fspath(value)
        args.append(f"{o['name']}={value}")
    return args


def solve(instance: Union[Instance, str], *, progress: Optional[Callable[[Progress], Any]] = None,
          **options: Any) -> Result:
    """Solves ``instance`` to proven optimality (or until a limit), as ``pfsp solve`` does.

    instance: an Instance, or what ``pfsp solve`` accepts (``"ta001"``, ``"random:8,5,1"``, a path).
    options: every option of ``pfsp solve``, named with ``_`` for ``-`` (``time_limit=60``,
        ``backend="cpu-mt"``, ``bound="lb1"``, ``ub="best-known"``, ``devices=[0, 1]``,
        ``pool_size=...``): ``pfsp.solve_options()`` lists them with their defaults and help, the
        GPU's included (a build without CUDA refuses those with InputError). A flag is True or
        False; a value is given as the CLI takes it (a number, a name, a path). ``json=PATH`` and
        ``gantt=PATH`` write the result and the chart as the CLI does; ``log=PATH`` the solver
        log; ``quiet`` and ``no_progress`` change nothing (Python prints no log).
    progress: called with a Progress about every ``progress_interval`` seconds (default 1), on the
        thread that called solve, while the search goes on; an exception raised in it stops the
        search and propagates (with the partial Result as ``exc.result``).

    The GIL is released while the search runs. Ctrl-C (SIGINT, on the main thread) stops the
    search within a poll interval plus the solver's own check (milliseconds) and raises
    KeyboardInterrupt carrying the partial Result (status ``interrupted``) as ``exc.result``.
    Bad options and inputs raise InputError (a ValueError) with the CLI's message.
    """
    if not isinstance(instance, Instance):
        if isinstance(instance, (str, _os.PathLike)):
            instance = Instance.load(_os.fspath(instance))
        else:
            raise TypeError(f"instance: expected pfsp.Instance or str, got {type(instance).__name__}")
    argv = _command_line(options)
    args = _core.SolveArgs.parse(instance._spec or instance.name, argv)
    shown = ", ".join(f"{k}={v!r}" for k, v in options.items())
    command = f"pfsp.solve({instance.name!r}{', ' + shown if shown else ''})"

    callback = None
    if progress is not None:
        def callback(d: dict) -> None:
            progress(Progress(**d))

    try:
        outcome = _core.solve(instance._inst, args, command, instance._spec, callback)
    except BaseException as e:
        partial = getattr(e, "_pfsp_outcome", None)
        if partial is not None:
            try:
                e.result = Result(partial)
                del e._pfsp_outcome
            except Exception:
                pass
        raise
    for w in outcome.warnings:
        _warnings.warn(f"pfsp: {w}", RuntimeWarning, stacklevel=2)
    result = Result(outcome)
    if args.json:
        result.to_json(args.json)
    if args.gantt:
        if result.makespan is None or not result.schedule:
            _warnings.warn(f"pfsp: --gantt {args.gantt} not written: no schedule was found", RuntimeWarning,
                           stacklevel=2)
        else:
            result.gantt(args.gantt)
    return result
