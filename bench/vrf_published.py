#!/usr/bin/env python3
"""pfsp's VRF large runs beside the published heuristics' runs, with their time budgets (issue 46).

  vrf_published.py --dogs GIT_DIR --bounds vrf_bounds.csv --cpu A.jsonl [...] [--gpu B.jsonl ...]
                   [--instances 2-10]

The published runs are Libralesso et al.'s experiment on VRF large (github librallu/dogs-pfsp,
experiments/vfr_large_makespan_2021_07_29/solver_results/, read from a git directory with `git
show`): iterative beam search (IBS, one run a configuration) and the best-of-breed iterated greedy
IGbob (ten runs an instance), each on one core for n * m / 2 * t milliseconds (t = 90 for IBS, 30,
45 or 90 for IGbob). pfsp's runs are vrf_sweep.sh's JSON lines (a later line of an instance
replaces an earlier one, as in vrf_table.py --matrix).

Prints, per class (jobs x machines), the published runs' time budget and the mean deviation (%)
from vrf_bounds.csv's best_ub of: IGbob_30 and IGbob_90 (the mean of their ten runs), IBS with
the bidirectional branching and the walpha guide (the paper's recommended one), pfsp on the CPU,
pfsp on the GPU; each mean over the instances every column of the table has. A second table takes
only the instances the GPU ran.
"""
import argparse
import csv
import json
import statistics
import subprocess
import sys
from collections import defaultdict

RESULTS = "experiments/vfr_large_makespan_2021_07_29/solver_results"
PUBLISHED = [("IGbob_30", 30), ("IGbob_90", 90), ("IBS_bi_min_walpha", 90)]


def git_json(git_dir, path):
    run = subprocess.run(["git", "--git-dir", git_dir, "show", f"HEAD:{path}"], capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"vrf_published: {git_dir}: cannot read {path} (a git directory of librallu/dogs-pfsp?): "
                 f"{run.stderr.strip()}")
    return json.loads(run.stdout)


def published_makespan(git_dir, algo, name):
    """The mean makespan of a published configuration's runs on one instance."""
    d = git_json(git_dir, f"{RESULTS}/{algo}_{name}.stats.json")
    if "primal_list" in d:  # IGbob: ten runs
        return statistics.mean(d["primal_list"])
    return d["best_primal"]  # IBS: one run


def pfsp_runs(paths):
    runs = {}
    for path in paths:
        for line in open(path):
            if line.strip():
                r = json.loads(line)
                if r.get("makespan") is not None:
                    runs[r["instance"]] = r
    return runs


def numbers(spec):
    lo, _, hi = spec.partition("-")
    return list(range(int(lo), int(hi or lo) + 1))


def table(classes, columns, rows, best, title):
    out = [f"#### {title}\n",
           "| class | budget at t = 90 ms, s (one core) | " + " | ".join(c for c, _ in columns) + " | instances |",
           "| --- | ---: | " + " | ".join("---:" for _ in columns) + " | ---: |"]
    for (n, m) in classes:
        names = [x for x in rows[(n, m)] if all(x in col for _, col in columns)]
        if not names:
            continue
        cells = []
        for _, col in columns:
            devs = [100.0 * (col[x] - best[x]) / best[x] for x in names]
            cells.append(f"{statistics.mean(devs):.3f}")
        out.append(f"| {n} x {m} | {n * m / 2 * 0.09:.0f} | " + " | ".join(cells) + f" | {len(names)} |")
    all_names = [x for c in classes for x in rows[c] if all(x in col for _, col in columns)]
    if all_names:
        means = [statistics.mean(100.0 * (col[x] - best[x]) / best[x] for x in all_names) for _, col in columns]
        out.append("| **all** | | " + " | ".join(f"**{v:.3f}**" for v in means) + f" | {len(all_names)} |")
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dogs", required=True, help="git directory of librallu/dogs-pfsp")
    ap.add_argument("--bounds", required=True, help="vrf_bounds.csv")
    ap.add_argument("--cpu", nargs="+", required=True, help="pfsp's CPU runs (vrf.jsonl)")
    ap.add_argument("--gpu", nargs="*", default=[], help="pfsp's GPU runs (vrf.jsonl)")
    ap.add_argument("--instances", default="2-10", help="instance numbers (default 2-10)")
    a = ap.parse_args()

    best, rows = {}, defaultdict(list)
    wanted = set(numbers(a.instances))
    for r in csv.DictReader(open(a.bounds)):
        n, m, number = int(r["jobs"]), int(r["machines"]), int(r["name"].rsplit("_", 1)[-1])
        if n >= 100 and number in wanted:
            best[r["name"]] = int(r["best_ub"])
            rows[(n, m)].append(r["name"])
    classes = sorted(rows)
    published = {algo: {x: published_makespan(a.dogs, algo, x) for x in best} for algo, _ in PUBLISHED}
    cpu = {x: r["makespan"] for x, r in pfsp_runs(a.cpu).items() if x in best}
    gpu = {x: r["makespan"] for x, r in pfsp_runs(a.gpu).items() if x in best} if a.gpu else {}

    columns = [(f"{algo} (n m / 2 x {t} ms)", published[algo]) for algo, t in PUBLISHED]
    columns.append(("pfsp CPU, 2 threads, 60 s", cpu))
    print(table(classes, columns, rows, best, f"Instances {a.instances}: the published runs and pfsp's CPU"))
    if gpu:
        columns.append(("pfsp GPU + 16 cores, 60 s", gpu))
        print(table(classes, columns, rows, best, "The instances the GPU ran"))


if __name__ == "__main__":
    main()
