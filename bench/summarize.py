#!/usr/bin/env python3
"""Merges the JSON written by pfsp_bench_solve / pfsp_bench_bounds and prints the markdown
tables of docs/benchmarks.md.

    bench/summarize.py DIR [DIR...]          all sections found in the JSON files of the DIRs
    bench/summarize.py --section grid DIR    one section: machine, headline, grid, table,
                                             branching, bounds, bounds-full
    bench/summarize.py --clock cpu DIR       bounds tables per second of thread CPU time
                                             (for runs on a shared machine; see cpu/wall)

Files are recognised by content: solve results go to 'grid' when they compare bounds x
branching, to 'branching' when their file name starts with branching_, to 'table' otherwise.
"""
import argparse
import glob
import gzip
import json
import os
import statistics
import sys


def load(dirs):
    solve, bounds, machines = [], [], []
    for d in dirs:
        for f in sorted(glob.glob(os.path.join(d, "*.json")) + glob.glob(os.path.join(d, "*.json.gz"))):
            j = json.load(gzip.open(f, "rt") if f.endswith(".gz") else open(f))  # large ones kept compressed
            base = os.path.basename(f).removesuffix(".gz")
            machines.append((base, j["machine"]))
            if j.get("benchmark") == "pfsp_bench_bounds":
                bounds.append(j)
            elif j.get("benchmark") == "pfsp_bench_solve":
                for r in j["results"]:
                    r["_file"] = base
                    # Older files judged "proven" by the status; the bound is what counts.
                    if r.get("known_optimum") and r["lower_bound"] >= r["known_optimum"]:
                        r["proven"] = True
                    solve.append(r)
    return solve, bounds, machines


def cfg(r):
    t = "seq" if r["threads"] == 1 else f"{r['threads']}t"
    return f"{t} {r['bound']} {r['branching']} ub={r['initial_ub_mode']}"


def fmt_time(r):
    s = f"{r['seconds']:.2f}" if r["seconds"] < 100 else f"{r['seconds']:.0f}"
    return s if r["proven"] else f">{s}"  # not proven: stopped at the time limit


def md(headers, rows, align=None):
    out = ["| " + " | ".join(headers) + " |"]
    out.append("|" + "|".join(":---" if i == 0 else "---:" for i in range(len(headers))) + "|")
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(out)


def section_machine(machines):
    seen = {}
    for base, m in machines:
        key = (m["commit"], m["cpu"], m.get("hardware_threads"), m["compiler"], m["hostname"])
        seen.setdefault(key, []).append((base, m))
    rows = []
    for (commit, cpu, hw, comp, host), items in seen.items():
        loads = [m["load_at_start"][0] for _, m in items] + [m.get("load_at_end", [0])[0] for _, m in items]
        rows.append([commit, cpu, hw, "none", host, comp, len(items), f"{min(loads):.1f}-{max(loads):.1f}"])
    return md(["commit", "cpu", "hardware threads", "gpu", "host", "compiler", "files", "load (1 min)"], rows)


def section_headline(solve):
    rows = []
    for r in solve:
        if r["instance"] in ("ta021", "ta030") and r["bound"] == "lb1" and r["initial_ub_mode"] == "opt" and \
                r["branching"] != "forward" and r["proven"] and \
                (r["_file"].startswith("solve_ta0") or r["_file"].startswith("branching_")):
            rows.append([r["instance"], cfg(r), r["status"], f"{r['nodes_branched']:,}", fmt_time(r),
                         f"{r['cpu_seconds']:.2f}", f"{r['nodes_per_second'] / 1e6:.2f}",
                         f"{r['nodes_per_second_per_thread'] / 1e6:.2f}", len(r["seconds_runs"])])
    return md(["instance", "configuration", "status", "nodes branched", "wall s (median)", "cpu s",
               "Mnodes/s", "Mnodes/s/thread", "runs"], rows)


def section_grid(solve):
    grid = [r for r in solve if r["_file"].startswith("grid_") or r["_file"] == "solve_grid.json"]
    if not grid:
        return ""
    configs = sorted({(r["bound"], r["branching"]) for r in grid}, key=lambda c: (c[0], c[1]))
    insts = sorted({r["instance"] for r in grid})
    by = {(r["instance"], r["bound"], r["branching"]): r for r in grid}
    rows = []
    for i in insts:
        row = [i]
        for b, br in configs:
            r = by.get((i, b, br))
            row.append("" if r is None else f"{fmt_time(r)} ({r['nodes_branched']:.3g})")
        rows.append(row)
    # Totals over the instances every configuration proved; proofs within the limit.
    common = [i for i in insts if all(by.get((i, b, br), {}).get("proven") for b, br in configs)]
    tot = ["**total over the %d instances all proved**" % len(common)]
    cnt = ["**proved within the limit**"]
    for b, br in configs:
        tot.append("%.2f s" % sum(by[(i, b, br)]["seconds"] for i in common))
        cnt.append("%d / %d" % (sum(1 for i in insts if by.get((i, b, br), {}).get("proven")), len(insts)))
    rows += [tot, cnt]
    return md(["instance"] + [f"{b} {br}" for b, br in configs], rows)


def section_table(solve):
    tab = [r for r in solve if r["_file"].startswith("table_") or r["_file"] == "solve_table.json"]
    if not tab:
        return ""
    configs = []
    for r in tab:
        if cfg(r) not in configs:
            configs.append(cfg(r))
    insts = sorted({r["instance"] for r in tab})
    by = {(r["instance"], cfg(r)): r for r in tab}
    rows = []
    for i in insts:
        first = next(by[(i, c)] for c in configs if (i, c) in by)
        row = [i, f"{first['n']}x{first['m']}", first["known_optimum"], first["neh"]]
        for c in configs:
            r = by.get((i, c))
            if r is None:
                row += ["", ""]
                continue
            done = "" if r["proven"] else f" ({100 * r['explored_fraction']:.1f} %)"
            row += [f"{fmt_time(r)}{done}", f"{r['nodes_branched']:.3g}"]
        rows.append(row)
    headers = ["instance", "n x m", "optimum", "NEH"]
    for c in configs:
        headers += [f"{c}: time s", "nodes"]
    return md(headers, rows)


def section_branching(solve):
    br = [r for r in solve if r["_file"].startswith("branching_") and r["initial_ub_mode"] == "neh"]
    if not br:
        return ""
    rules = ["forward", "min-branch", "min-min"]
    insts = sorted({r["instance"] for r in br})
    by = {(r["instance"], r["branching"]): r for r in br}
    rows = []
    for i in insts:
        row = [i, by[(i, rules[-1])]["neh"], by[(i, rules[-1])]["known_optimum"]]
        for b in rules:
            r = by.get((i, b))
            row.append("" if r is None else f"{fmt_time(r)} ({r['nodes_branched']:.3g})")
        rows.append(row)
    common = [i for i in insts if all(by.get((i, b), {}).get("proven") for b in rules[1:])]
    tot = [f"**total, the {len(common)} instances min-branch and min-min both proved**", "", ""]
    tot.append("")
    for b in rules[1:]:
        tot.append("%.2f s" % sum(by[(i, b)]["seconds"] for i in common))
    rows.append(tot)
    return md(["instance", "NEH", "optimum"] + [f"lb1 {b}: s (nodes)" for b in rules], rows)


def section_bounds(bounds, full=False, clock="wall", rates=False):
    out = []
    for j in bounds:
        res = j["results"]
        kernels = []
        for r in res:
            if r["kernel"] not in kernels:
                kernels.append(r["kernel"])
        cells = []
        for r in res:
            key = (r["instance"], r["n"], r["m"], r["depth_fraction"], r["variant"], r["prefix"], r["suffix"])
            if key not in cells:
                cells.append(key)
        by = {(r["instance"], r["depth_fraction"], r["variant"], r["kernel"]): r for r in res}
        rows = []
        for (inst, n, m, f, v, p, s) in cells:
            if not full and v not in ("root", "split"):
                continue
            row = [inst, f"{n}x{m}", f"{int(round(100 * f))} %", v, f"{p}+{s}"]
            for k in kernels:
                r = by[(inst, f, v, k)]
                rate = r["bounds_per_cpu_second"] if clock == "cpu" else r["bounds_per_second"]
                ns = 1e9 / rate if rate > 0 else 0
                row.append(f"{ns:.0f}" if ns >= 100 else f"{ns:.1f}")
                if rates:
                    row.append(f"{rate / 1e6:.3g}")
            rows.append(row)
        headers = ["instance", "n x m", "depth", "split", "prefix+suffix"]
        for k in kernels:
            headers += [f"{k} ns", f"{k} M/s"] if rates else [f"{k} ns"]
        out.append(f"<!-- {j['machine']['command']} -->\n" + md(headers, rows))
    return "\n\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dirs", nargs="+")
    ap.add_argument("--section", default="all")
    ap.add_argument("--clock", choices=["wall", "cpu"], default="wall")
    ap.add_argument("--rates", action="store_true", help="bounds tables: also million bounds per second")
    a = ap.parse_args()
    solve, bounds, machines = load(a.dirs)
    sections = {
        "machine": lambda: section_machine(machines),
        "headline": lambda: section_headline(solve),
        "grid": lambda: section_grid(solve),
        "table": lambda: section_table(solve),
        "branching": lambda: section_branching(solve),
        "bounds": lambda: section_bounds(bounds, clock=a.clock, rates=a.rates),
        "bounds-full": lambda: section_bounds(bounds, full=True, clock=a.clock, rates=a.rates),
    }
    names = list(sections) if a.section == "all" else [a.section]
    for name in names:
        if name == "bounds-full" and a.section == "all":
            continue
        text = sections[name]()
        if text:
            print(f"### {name}\n\n{text}\n")


if __name__ == "__main__":
    sys.exit(main())
