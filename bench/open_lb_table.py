#!/usr/bin/env python3
"""Taillard's open instances searched below their published lower bounds (issue 44 item 4): writes
FOLDER/open_lb_cpu.md from the taNNN.json results (pfsp solve --json) in FOLDER/runs.tgz, beside
shared/data/taillard_pfsp.csv; each row's time limit comes from its JSON.
Usage, from the repository root: bench/open_lb_table.py FOLDER"""
import csv
import json
import sys
import tarfile

HEADER = """# Taillard's open instances: complete searches below the published lower bound

Each run: `pfsp solve NAME --ub L ...` with L the published lower bound (shared/data/taillard_pfsp.csv)
or above it (L is the run's `ub` column); the folder's README gives the machine and the whole
command. `proven_bound`: no schedule is shorter than L, so the optimum is at least L; `time_limit`:
not proven within the run's limit.

| instance | size | published lb | published ub | ub | status | pfsp lower bound | nodes | seconds | limit s | nodes/s |
| --- | --- | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: |"""


def results(folder):
    with tarfile.open(folder + "/runs.tgz") as runs:
        for member in sorted(runs.getnames()):
            if member.endswith(".json"):
                yield member.split("/")[-1].split(".")[0], json.load(runs.extractfile(member))


def row(name, r, pub):
    p = pub[name]
    nodes, t = r["nodes"]["branched"], r["time_seconds"]
    return (f"| {name} | {p['n']}x{p['m']} | {p['lb']} | {p['ub']} | {r['options']['initial_ub']} | {r['status']} | "
            f"{r['lower_bound']} | "
            f"{nodes:,} | {t:.1f} | {r['options']['time_limit']:g} | {nodes / t / 1e3:.0f} K |")


def main():
    folder = sys.argv[1].rstrip("/")
    pub = {r["name"]: r for r in csv.DictReader(open("shared/data/taillard_pfsp.csv"))}
    text = "\n".join([HEADER] + [row(name, r, pub) for name, r in results(folder)]) + "\n"
    open(folder + "/open_lb_cpu.md", "w").write(text)
    print(text, end="")


if __name__ == "__main__":
    main()
