#!/usr/bin/env python3
"""The remaining-tree estimate checked against completed runs.

Reads pfsp JSON results (runs that ended `optimal` or `proven_bound`, with a "progress" trace:
the GPU device loop) and compares, at every snapshot, the estimated remaining nodes
(`remaining_estimate`) with what the run actually branched after it (final branched minus
branched at the snapshot). Prints one row per snapshot and a summary per run: the ratio
estimate/actual at about 25 %, 50 % and 75 % of the run's time (1.0 = exact; the estimate's job
is the order of magnitude when the explored share of permutations says nothing).

    bench/estimate_check.py RUN.json ...
"""
import json
import math
import sys


def rows(path):
    j = json.load(open(path))
    if j.get("status") not in ("optimal", "proven_bound") or not j.get("progress"):
        return j.get("instance", {}).get("name", path), None
    total = j["nodes"]["branched"]
    out = []
    for p in j["progress"]:
        if p["remaining_estimate"] is None:  # JSON has no infinity: nothing closed yet
            p["remaining_estimate"] = float("inf")
        if p["remaining_estimate"] < 0:
            continue
        actual = total - p["branched"]
        fc = p.get("forecast_seconds", -1)
        out.append((p["elapsed"], j["time_seconds"], p["branched"], p["remaining_estimate"], actual,
                    p.get("remaining_by_depth", -1) if p.get("remaining_by_depth") is not None else float("inf"),
                    float("inf") if fc is None else fc))
    return j["instance"]["name"], out


def main(paths):
    print("%-6s %8s %6s %14s %14s %14s %8s %10s %10s %10s" % ("run", "elapsed", "time%", "branched", "estimate", "actual", "ratio",
                                                    "by depth", "forecast s", "actual s"))
    summary = []
    for path in paths:
        try:
            name, rs = rows(path)
        except Exception as e:  # a failed run leaves no or a partial JSON
            print("%s: unreadable (%s)" % (path, e))
            continue
        if not rs:
            print("%-6s no completed run with a progress trace" % name)
            continue
        at = {}
        for el, T, br, est, act, bydepth, fc in rs:
            ratio = est / act if act > 0 else float("inf")
            r2 = bydepth / act if act > 0 and bydepth >= 0 else float("nan")
            print("%-6s %8.2f %5.0f%% %14d %14.4g %14d %8.3g %10.3g %10.3g %10.3g" % (name, el, 100 * el / T, br, est, act,
                                                                        ratio, r2, fc, T - el))
            for q in (0.25, 0.5, 0.75):
                d = abs(el / T - q)
                if act > 0 and (q not in at or d < at[q][0]):
                    at[q] = (d, ratio)
        summary.append((name, [at[q][1] if q in at else None for q in (0.25, 0.5, 0.75)]))
    print()
    print("%-6s %10s %10s %10s   (estimate / actual remaining nodes)" % ("run", "at 25%", "at 50%", "at 75%"))
    logs = []
    for name, r in summary:
        print("%-6s " % name + " ".join("%10s" % ("-" if x is None else "%.3g" % x) for x in r))
        logs += [abs(math.log10(x)) for x in r if x not in (None, 0, float("inf"))]
    if logs:
        logs.sort()
        print("median |log10(estimate/actual)| over those points: %.2f (%d points)" % (logs[len(logs) // 2], len(logs)))


if __name__ == "__main__":
    main(sys.argv[1:])
