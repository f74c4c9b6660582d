#!/usr/bin/env python3
"""The table of bench/gpu/device_guided.sh's runs.jsonl: one row an instance, the bound's order
beside the solution-guided one (status, makespan / lower bound, nodes, seconds, seconds to the
final makespan).

    bench/gpu/guided_table.py runs.jsonl GPU > guided.md
"""
import json
import sys


def cell(r):
    if r is None:
        return ["", "", "", ""]
    bounds = f"{r['makespan']} / {r['lower_bound']}" if r.get("makespan") is not None else "?"
    nodes = f"{r['nodes']:,}" if r.get("nodes") is not None else "?"
    secs = f"{r['seconds']:.2f}" if r.get("seconds") is not None else "?"
    best = f"{r['seconds_to_best']:.2f}" if r.get("seconds_to_best") is not None else "?"
    return [f"{r.get('status')} (exit {r['rc']})", bounds, nodes, f"{secs} ({best})"]


def main():
    rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
    gpu = sys.argv[2] if len(sys.argv) > 2 else "?"
    commits = sorted({r.get("commit") or "?" for r in rows})
    print(f"# guided commit {','.join(commits)} cpu 16 gpu {gpu.replace(' ', '_')} host device")
    if rows and rows[0].get("command"):
        print(f"# {rows[0]['command']}")
    print()
    print("Default options (`pfsp solve NAME --time-limit S`), each instance with `--child-order bound`")
    print("and `--child-order incumbent`, one process at a time. Seconds: the search's, in brackets")
    print("the time the final makespan was reached (from the JSON's progress trace).")
    print()
    print("| instance | bound: status | makespan / lb | nodes | s (to best) "
          "| incumbent: status | makespan / lb | nodes | s (to best) |")
    print("| --- | --- | --- | ---: | ---: | --- | --- | ---: | ---: |")
    names = []
    for r in rows:
        if r["instance"] not in names:
            names.append(r["instance"])
    for n in names:
        by = {r["order"]: r for r in rows if r["instance"] == n}
        print("| " + " | ".join([n] + cell(by.get("bound")) + cell(by.get("incumbent"))) + " |")


if __name__ == "__main__":
    main()
