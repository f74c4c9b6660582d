#!/usr/bin/env python3
"""Lower bounds reached by ascents (bench/ascend.sh) beside the published ones, as a markdown table.

    bench/ascent_table.py FOLDER [CSV]

FOLDER holds one `ascend_<instance>.tsv` per instance (ascend.sh's table: step, rc, status,
makespan, lower bound, nodes, search seconds). CSV: Taillard's table (default
shared/data/taillard_pfsp.csv, else ../shared/data/taillard_pfsp.csv) for the published bounds and
whether the optimum is known. A step `ubL` that ends `proven_bound` proves that no schedule is
shorter than L; the table's lower bound is the highest such L. Writes FOLDER/ascent.md and prints it.
"""
import csv
import glob
import os
import sys


def read_steps(path):
    """The ascent's steps as dicts, in order (its closing sentence, one field, is not a step)."""
    with open(path) as f:
        rows = [line.rstrip("\n").split("\t") for line in f if line.strip()]
    head, body = rows[0], rows[1:]
    return [dict(zip(head, r)) for r in body if len(r) == len(head)]


def published(csv_path):
    with open(csv_path) as f:
        return {r["name"]: r for r in csv.DictReader(f)}


def summarize(name, steps, known):
    """One table row: the highest proven L, the step that proved it, the first unproven step."""
    proven = [s for s in steps if s["status"] == "proven_bound"]
    best = proven[-1] if proven else None
    stopped = next((s for s in steps if s["status"] != "proven_bound"), None)
    row = known[name]
    pub_lb = int(row["lb"])
    status = "optimum known" if row["optimal"] == "1" else "open"
    if best:
        lb = int(best["step"][2:])
        proof = f"{lb} | {lb - pub_lb:+d} | {int(best['nodes']):,} | {float(best['search_s']):.1f}"
    else:
        proof = "- | - | - | -"
    last = f"{stopped['step']} {stopped['status']}" if stopped else "-"
    total = sum(float(s["search_s"]) for s in steps)
    return f"| {name} | {row['n']}x{row['m']} | {status} | {pub_lb} | {row['ub']} | {proof} | {last} | {total:.1f} |"


def main():
    folder = sys.argv[1]
    csv_path = sys.argv[2] if len(sys.argv) > 2 else next(
        p for p in ("shared/data/taillard_pfsp.csv", "../shared/data/taillard_pfsp.csv") if os.path.exists(p))
    known = published(csv_path)
    lines = [
        "| instance | size | status | published lb | published ub | lower bound proven here | vs published lb | "
        "nodes of that step | its seconds | first step not proven | seconds, all steps |",
        "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: |",
    ]
    for path in sorted(glob.glob(os.path.join(folder, "ascend_*.tsv"))):
        name = os.path.basename(path)[len("ascend_"):-len(".tsv")]
        lines.append(summarize(name, read_steps(path), known))
    text = "\n".join(lines) + "\n"
    with open(os.path.join(folder, "ascent.md"), "w") as f:
        f.write(text)
    print(text, end="")


if __name__ == "__main__":
    main()
