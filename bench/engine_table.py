#!/usr/bin/env python3
"""Markdown tables of the incumbent engine's measurements (docs/decisions/012-incumbent-engine.md),
written beside their JSON as twins (same stem, .md) that bench/results_page.py shows.

    bench/engine_table.py heuristic FILE.json ...   pfsp_bench_heuristic runs: one row per run, mean
                                                    deviation from the best known per size class
    bench/engine_table.py solves DIR --out FILE.md  pfsp solve --json results (one per instance, e.g.
                                                    a sweep's results/): the instances of known optimum
                                                    proven or not and when, the mean deviation per
                                                    class, the open instances against the best known;
                                                    --published CSV: the class means beside published
                                                    heuristics' (bench/data/published_pfsp_cmax.csv)
    bench/engine_table.py anytime DIR --out FILE.md the same results' best makespan over time, read off
                                                    their progress traces

Python standard library only; the best known values come from the results themselves (pfsp solve
records Taillard's table) or from ../shared/data/taillard_pfsp.csv.
"""
import argparse
import csv
import glob
import json
import os
import statistics
import sys


def stamp_line(machine):
    if not machine:
        return ""
    bits = [f"commit {machine.get('commit', '?')}"]
    if "cpu" in machine:
        bits += [f"cpu {machine['cpu']} ({machine.get('hardware_threads', '?')} threads)", f"gpu {machine.get('gpu', 'none')}"]
    cmd = machine.get("command")
    line = "*" + "; ".join(bits) + ".*"
    if cmd:
        line += f"\n\n*Command:* `{cmd}`"
    return line


def device_of(path):
    """The device of a run: the JSON's "device" field (bench/harness/device_engine.sh adds it), else None."""
    try:
        return json.load(open(path)).get("device")
    except (OSError, ValueError):
        return None


def passes_table(j, device=None, stamp=True):
    """pfsp_bench_heuristic --pass-widths: one beam pass per width, CPU and GPU."""
    c = j.get("config", {})
    head = (f"### Beam passes: {c.get('threads')} CPU thread(s) against the GPU, target the best known "
            f"+ {c.get('slack_percent', 0)} %")
    lines = [head, ""] + ([stamp_line(j.get("machine")), ""] if stamp else [])
    if device:
        lines += [f"*Device (from the run's log):* {device}", ""]
    lines += ["| instance | width | target | CPU s | GPU s | speed-up | makespan found | same schedule |",
              "| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |"]
    for r in j["passes"]:
        gpu = r["gpu_seconds"] >= 0
        speed = f"{r['cpu_seconds'] / r['gpu_seconds']:.1f}x" if gpu and r["gpu_seconds"] > 0 else "-"
        found = r["cpu_makespan"] or "none"
        lines.append(f"| {r['instance']} | {r['width']} | {r['target']} | {r['cpu_seconds']:.3f} | "
                     f"{(format(r['gpu_seconds'], '.3f') if gpu else '-')} | {speed} | {found} | "
                     f"{('yes' if r['same_schedule'] else 'NO') if gpu else '-'} |")
    return "\n".join(lines) + "\n"


def heuristic_table(path, device=None, stamp=True):
    j = json.load(open(path))
    if "passes" in j:
        return passes_table(j, device, stamp)
    c = j.get("config", {})
    head = (f"### Incumbent engine alone: {c.get('threads')} CPU walker threads, "
            f"{c.get('gpu_walkers', 0)} GPU walkers, {c.get('seconds')} s per run")
    if c.get("beam"):
        head += f", the beam on {c['beam']} of the threads (targets: {c.get('beam_target', 'best')})"
    lines = [head, ""] + ([stamp_line(j.get("machine")), ""] if stamp else [])
    if device:
        lines += [f"*Device (from the run's log):* {device}", ""]
    lines += ["| instance | seed | NEH | makespan | best known | dev % | last improvement s | CPU rounds | GPU rounds |",
              "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    classes = {}
    for r in j["runs"]:
        lines.append(f"| {r['instance']} | {r['seed']} | {r['neh']} | {r['makespan']} | {r['best_known']} | "
                     f"{r['deviation_percent']:.3f} | {r['last_improvement_s']:.2f} | {r['rounds']} | "
                     f"{r.get('gpu_rounds', 0)} |")
        classes.setdefault(f"{r['n']}x{r['m']}", []).append(r["deviation_percent"])
    lines += ["", "| class | runs | mean deviation % |", "| --- | ---: | ---: |"]
    for k, v in sorted(classes.items(), key=lambda kv: [int(x) for x in kv[0].split("x")]):
        lines.append(f"| {k} | {len(v)} | {statistics.mean(v):.3f} |")
    return "\n".join(lines) + "\n"


def load_solves(directory):
    runs = []
    for p in sorted(glob.glob(os.path.join(directory, "*.json"))):
        try:
            d = json.load(open(p))
        except (OSError, ValueError):
            continue
        if "status" in d and "instance" in d:
            runs.append(d)
    return runs


def published_table(classes, csv_path):
    """pfsp's class means beside published heuristics' (bench/data/published_pfsp_cmax.csv)."""
    rows = list(csv.DictReader(open(csv_path)))
    keys = [k for k in ("100x20", "200x20", "500x20") if k in classes]
    lines = ["pfsp's mean deviation per class from today's best known upper bounds, beside published "
             "heuristics' from the bounds of their year (higher on the open instances, so theirs read low); "
             "budgets and machines differ: see the columns and decision 012.", "",
             "| algorithm | " + " | ".join(f"{k} %" for k in keys) + " | budget | source |",
             "| --- | " + " | ".join("---:" for _ in keys) + " | --- | --- |",
             "| **pfsp (these runs)** | " + " | ".join(f"**{statistics.mean(classes[k]):.3f}**" for k in keys) +
             " | these runs' limit, one GPU and its cores | this folder |"]
    for r in rows:
        lines.append(f"| {r['algorithm']} | " + " | ".join(r.get(k, "-") for k in keys) +
                     f" | {r['budget']} | {r['source']} |")
    return lines + [""]


def solves_tables(directory, title, published=None):
    runs = load_solves(directory)
    lines = [f"### {title}", ""]
    if runs:
        lines += [stamp_line({"commit": runs[0].get("commit"), "command": runs[0].get("command")}), ""]
    known = [r for r in runs if r["instance"].get("best_known", {}).get("optimal") and r["instance"].get("n", 0) >= 100
             and r["instance"].get("m", 0) >= 20]
    if known:
        proven = [r for r in known if r["status"] == "optimal"]
        lines += [f"Instances of 100-500 jobs x 20 machines with a known optimum: **{len(proven)} of {len(known)} "
                  f"proven from scratch**.", "",
                  "| instance | size | optimum | status | makespan | lower bound | wall s | engine |",
                  "| --- | --- | ---: | --- | ---: | ---: | ---: | --- |"]
        for r in known:
            i = r["instance"]
            eng = "; ".join(n for n in r.get("notes", []) if n.startswith("incumbent engine"))
            lines.append(f"| {i['name']} | {i['n']}x{i['m']} | {i['best_known']['ub']} | {r['status']} | "
                         f"{r.get('makespan')} | {r.get('lower_bound')} | {r.get('wall_seconds', 0):.1f} | {eng} |")
        lines.append("")
    classes = {}
    for r in runs:
        i = r["instance"]
        bk = i.get("best_known", {}).get("ub")
        if bk and r.get("makespan") and i.get("n", 0) >= 100 and i.get("m", 0) >= 20:
            classes.setdefault(f"{i['n']}x{i['m']}", []).append(100.0 * (r["makespan"] - bk) / bk)
    if classes:
        lines += ["| class | instances | mean deviation from the best known % | max % |", "| --- | ---: | ---: | ---: |"]
        for k, v in sorted(classes.items(), key=lambda kv: [int(x) for x in kv[0].split("x")]):
            lines.append(f"| {k} | {len(v)} | {statistics.mean(v):.3f} | {max(v):.3f} |")
        lines.append("")
        if published:
            lines += published_table(classes, published)
    open_ = [r for r in runs if not r["instance"].get("best_known", {}).get("optimal", True)]
    if open_:
        lines += ["Open instances (no proven optimum): the best makespan found against the best known upper bound.",
                  "", "| instance | size | best known (lb, ub) | makespan | above ub | lower bound |",
                  "| --- | --- | --- | ---: | ---: | ---: |"]
        for r in open_:
            i = r["instance"]
            b = i["best_known"]
            diff = r["makespan"] - b["ub"] if r.get("makespan") else None
            flag = " **new best known**" if diff is not None and diff < 0 else ""
            lines.append(f"| {i['name']} | {i['n']}x{i['m']} | {b['lb']}, {b['ub']} | {r.get('makespan')}{flag} | "
                         f"{diff} | {r.get('lower_bound')} |")
    return "\n".join(lines) + "\n"


def anytime_table(directory, marks, title):
    """The best makespan over time (deviation from the best known upper bound, %) of each run, read
    off its progress trace (`progress[].best`, one snapshot a progress interval); the last column
    is the run's final makespan."""
    runs = [r for r in load_solves(directory) if r.get("progress") and r["instance"].get("best_known")]
    lines = [f"### {title}", "",
             "| instance | best known ub | " + " | ".join(f"{t:g} s" for t in marks) + " | end | last improvement s |",
             "| --- | ---: | " + " | ".join("---:" for _ in marks) + " | ---: | ---: |"]
    for r in runs:
        ub = r["instance"]["best_known"]["ub"]
        trace = r["progress"]
        cells = []
        for t in marks:
            seen = [p["best"] for p in trace if p["elapsed"] <= t]
            cells.append(f"{100.0 * (seen[-1] - ub) / ub:.3f}" if seen else "-")
        last, when = None, 0.0
        for p in trace:
            if p["best"] != last:
                last, when = p["best"], p["elapsed"]
        end = r.get("makespan") or last
        lines.append(f"| {r['instance']['name']} | {ub} | " + " | ".join(cells) +
                     f" | {100.0 * (end - ub) / ub:.3f} | {when:.0f} |")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="mode", required=True)
    h = sub.add_parser("heuristic")
    h.add_argument("files", nargs="+")
    h.add_argument("--device", help="the device the runs used (pfsp_bench_heuristic's stamp names no GPU)")
    s = sub.add_parser("solves")
    s.add_argument("directory")
    s.add_argument("--out", required=True)
    s.add_argument("--title", default="Solves from scratch")
    s.add_argument("--published", help="CSV of published class means (bench/data/published_pfsp_cmax.csv): "
                                       "a table of pfsp's class means beside them")
    t = sub.add_parser("anytime")
    t.add_argument("directory")
    t.add_argument("--out", required=True)
    t.add_argument("--marks", default="10,30,60,120,240", help="seconds at which to read the best")
    t.add_argument("--title", default="The best makespan over time (deviation from the best known upper bound, %)")
    a = ap.parse_args()
    if a.mode == "heuristic":
        for f in a.files:
            with open(os.path.splitext(f)[0] + ".md", "w") as out:
                out.write(heuristic_table(f, a.device))
    elif a.mode == "anytime":
        with open(a.out, "w") as out:
            out.write(anytime_table(a.directory, [float(x) for x in a.marks.split(",")], a.title))
    else:
        with open(a.out, "w") as out:
            out.write(solves_tables(a.directory, a.title, a.published))
    return 0


if __name__ == "__main__":
    sys.exit(main())
