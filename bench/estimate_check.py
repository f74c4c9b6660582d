#!/usr/bin/env python3
"""Tree-size estimates checked against completed runs.

Two modes.

Offline estimates (pfsp_bench_estimate --json, search/estimator.hpp): pools the probes of every
file by instance, ub and configuration (probes are independent, so runs with different seeds
add up), prints the mean, its 95 % interval, the probes' median and spread, the node count of a
completed proof where one is known (--actual CSV: instance,ub,bound,pairs,branching,nodes,source;
bench/data/tree_sizes.csv, or nodes.csv of bench/gpu/estimate_device.sh) and the ratio, and the
GPU-hours at --rate nodes/s (one GPU) with the wall time on --gpus GPUs at --efficiency:

    bench/estimate_check.py --probes EST.json ... [--actual CSV ...] [--rate 212.7e6 --gpus 8 --efficiency 0.9]

Online estimates (the GPU device loop's progress trace): reads pfsp JSON results (runs that ended `optimal` or `proven_bound`, with a "progress" trace:
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


def read_actual(paths):
    a = {}
    for path in paths:
        for line in open(path):
            line = line.strip()
            if not line or line.startswith("#") or line.startswith("instance,"):
                continue
            f = line.split(",")
            if len(f) >= 6:
                a[tuple(f[:5])] = (float(f[5]), f[6] if len(f) > 6 else "")
    return a


def pool(paths):
    """Runs by (instance, ub, bound, pairs, branching, gap_width, slots): probes' count, sum, sum of squares."""
    groups = {}
    for path in paths:
        for r in json.load(open(path))["runs"]:
            pairs = "-" if r["bound"] == "lb1" else r["lb2_pairs"]
            key = (r["instance"], str(r["ub"]), r["bound"], pairs, r["branching"], r.get("gap_width", 1), r.get("slots", 1))
            g = groups.setdefault(key, {"k": 0, "sum": 0.0, "ss": 0.0, "each": [], "seconds": 0.0, "files": 0})
            k, m, se = r["probes"], r["mean"], r["std_error"]
            if k == 0:
                continue
            var = se * se * k  # the run's sample variance (k - 1 denominator)
            g["k"] += k
            g["sum"] += k * m
            g["ss"] += (k - 1) * var + k * m * m  # sum of x^2
            if isinstance(r.get("each"), list):  # a summary may drop them ("(dropped: N probes)")
                g["each"] += r["each"]
            g["seconds"] += r["seconds"]
            g["files"] += 1
    return groups


def offline(argv):
    import argparse
    ap = argparse.ArgumentParser()
    ap.add_argument("--probes", nargs="+", required=True)
    ap.add_argument("--actual", nargs="*", default=[])
    ap.add_argument("--rate", type=float, default=0, help="nodes/s of one GPU")
    ap.add_argument("--gpus", type=int, default=8)
    ap.add_argument("--efficiency", type=float, default=0.9)
    a = ap.parse_args(argv)
    actual = read_actual(a.actual)
    # halves: the mean of the later half of the probes over the earlier half's (runs in the order
    # given); far from 1, the mean still moves with every rare large probe: an order of magnitude.
    head = "| instance | ub | config | runs | probes | estimate | 95% interval | median | min - max | halves | actual | est/actual |"
    if a.rate > 0:
        head += " H200-hours | hours on %d |" % a.gpus
    print(head)
    print("|" + "---|" * (head.count("|") - 1))
    logs = []
    for key, g in sorted(pool(a.probes).items()):
        inst, ub, bound, pairs, branch, gw, slots = key
        k = g["k"]
        mean = g["sum"] / k
        var = (g["ss"] - k * mean * mean) / (k - 1) if k > 1 else 0.0
        se = math.sqrt(max(var, 0.0) / k)
        each = sorted(g["each"])
        med = "%.3g" % each[len(each) // 2] if each else "-"
        rng = "%.3g - %.3g" % (each[0], each[-1]) if each else "-"
        act = actual.get((inst, ub, bound, pairs, branch))
        e = g["each"]
        halves = "%.2f" % ((sum(e[len(e) // 2:]) / (len(e) - len(e) // 2)) / (sum(e[:len(e) // 2]) / (len(e) // 2))) \
            if len(e) >= 4 and sum(e[:len(e) // 2]) > 0 else "-"
        row = "| %s | %s | %s %s %s, gap %s, slots %s | %d | %d | %.3g | %.3g - %.3g | %s | %s | %s | %s | %s |" % (
            inst, ub, bound, pairs, branch, gw, slots, g["files"], k, mean, max(0.0, mean - 1.96 * se), mean + 1.96 * se,
            med, rng, halves, "%.4g" % act[0] if act else "-", "%.3f" % (mean / act[0]) if act else "-")
        if act:
            logs.append(abs(math.log10(mean / act[0])))
        if a.rate > 0:
            h = mean / a.rate / 3600
            row += " %.3g (%.3g - %.3g) | %.3g |" % (h, max(0.0, mean - 1.96 * se) / a.rate / 3600,
                                                     (mean + 1.96 * se) / a.rate / 3600, h / (a.gpus * a.efficiency))
        print(row)
    if logs:
        logs.sort()
        print("\n%d with a known count: |log10(estimate/actual)| median %.3f, max %.3f (every estimate within a factor %.2f)"
              % (len(logs), logs[len(logs) // 2], logs[-1], 10 ** logs[-1]))


if __name__ == "__main__":
    if "--probes" in sys.argv[1:]:
        offline(sys.argv[1:])
    else:
        main(sys.argv[1:])
