#!/usr/bin/env python3
"""Markdown tables from the VRF sweep's JSON lines (bench/gpu/vrf_sweep.sh).

  vrf_table.py vrf.jsonl [more.jsonl ...]
  vrf_table.py --matrix vrf.jsonl [more.jsonl ...]

With --matrix: one table over every label, a row per class and a column per instance number (the
deviation of each run from the best known upper bound, %; "*" marks a proven optimum), the class
mean on the right and the instance means at the bottom.

One table per label, one row per class (jobs x machines): runs, proven (status optimal), the median
and the longest wall time of the proven runs, the mean deviation of the final makespan from the best
known upper bound (vrf_bounds.csv's best_ub; negative: better than it), the largest peak RSS; then,
by name, every run that ended with an exit code other than 0 (solved) or 3 (time limit), was killed
by a signal (an OOM kill, most likely), hit the hard timeout, or overran its time limit.
"""
import json
import statistics
import sys
from collections import defaultdict


def fmt(x, digits=1):
    return "-" if x is None else f"{x:.{digits}f}"


def read_runs(paths):
    runs = []
    for path in paths:
        with open(path) as f:
            for number, line in enumerate(f, 1):
                line = line.strip()
                if line:
                    try:
                        runs.append(json.loads(line))
                    except json.JSONDecodeError as e:
                        sys.exit(f"{path}:{number}: {e}")
    if not runs:
        sys.exit("no runs")
    return runs


def matrix(runs):
    cells = {}
    for r in runs:
        if r.get("deviation_pct") is None:
            continue
        number = int(str(r.get("instance", "")).rsplit("_", 1)[-1])
        cells[(r.get("jobs") or 0, r.get("machines") or 0, number)] = r
    numbers = sorted({k[2] for k in cells})
    classes = sorted({k[:2] for k in cells})
    out = ["| class | " + " | ".join(str(i) for i in numbers) + " | mean |",
           "| --- | " + " | ".join("---:" for _ in numbers) + " | ---: |"]
    for (n, m) in classes:
        row, devs = [], []
        for i in numbers:
            r = cells.get((n, m, i))
            if r is None:
                row.append("-")
                continue
            devs.append(r["deviation_pct"])
            row.append(f"{r['deviation_pct']:.3f}" + ("*" if r.get("status") == "optimal" else ""))
        out.append(f"| {n} x {m} | " + " | ".join(row) + f" | **{statistics.mean(devs):.3f}** |")
    per = [[cells[k]["deviation_pct"] for k in cells if k[2] == i] for i in numbers]
    every = [d for p in per for d in p]
    out.append("| **mean** | " + " | ".join(f"{statistics.mean(p):.3f}" for p in per)
               + f" | **{statistics.mean(every):.3f}** |")
    print("\n".join(out))


def main(paths):
    runs = read_runs(paths)
    by_label = defaultdict(list)
    for r in runs:
        by_label[r.get("label") or "default"].append(r)
    out = []
    for label, rs in by_label.items():
        limits = sorted({r.get("limit") for r in rs if r.get("limit") is not None})
        out.append(f"### {label} (time limit {', '.join(fmt(x, 0) + ' s' for x in limits) or '?'})\n")
        out.append("| class | runs | proven | median proof s | longest proof s | mean dev. from best UB % "
                   "| max peak RSS MB |")
        out.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
        classes = defaultdict(list)
        for r in rs:
            classes[(r.get("jobs") or 0, r.get("machines") or 0)].append(r)
        total = defaultdict(int)
        for (n, m) in sorted(classes):
            c = classes[(n, m)]
            proven = [r for r in c if r.get("status") == "optimal"]
            times = [r["wall"] for r in proven if r.get("wall") is not None]
            devs = [r["deviation_pct"] for r in c if r.get("deviation_pct") is not None]
            rss = [r["peak_rss_mb"] for r in c if r.get("peak_rss_mb") is not None]
            out.append(f"| {n} x {m} | {len(c)} | {len(proven)} | {fmt(statistics.median(times) if times else None, 2)} "
                       f"| {fmt(max(times) if times else None, 2)} | {fmt(statistics.mean(devs) if devs else None, 3)} "
                       f"| {fmt(max(rss) if rss else None, 0)} |")
            total["runs"] += len(c)
            total["proven"] += len(proven)
        out.append(f"| all | {total['runs']} | {total['proven']} | | | | |\n")
        odd = []
        for r in sorted(rs, key=lambda r: (r.get("jobs") or 0, r.get("machines") or 0, r.get("instance", ""))):
            why = []
            if r.get("rc") not in (0, 3):
                why.append(f"exit code {r.get('rc')}")
            if r.get("killed"):
                why.append("killed by a signal (" + (r.get("signal") or "no /usr/bin/time report") + "; OOM?)")
            if r.get("hard_timeout"):
                why.append("hard timeout (limit + 30 s)")
            if r.get("overrun"):
                why.append(f"overran the limit: wall {fmt(r.get('wall'), 2)} s")
            if why:
                odd.append(f"- {r.get('instance')}: {'; '.join(why)} (status {r.get('status')})")
        out.extend(odd or ["No run ended with an exit code other than 0 or 3, was killed, or overran its limit."])
        out.append("")
    print("\n".join(out))


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    if sys.argv[1] == "--matrix":
        matrix(read_runs(sys.argv[2:]))
    else:
        main(sys.argv[1:])
