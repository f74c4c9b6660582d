#!/usr/bin/env python3
"""Table of fixed-time GPU slices (bench/harness/device_run.sh stage `hard`) from pfsp --json files.

One row a run: instance, configuration (from the file name hard_<instance>_<label>.json),
status, seconds, branched nodes and nodes/s, bounds/s, incumbent, lower bound and gap. With
--out, the rows and each run's commit, backend and command go to one JSON file. With --profile,
the rows show the --profile note (the device loop's phases timed by events).
"""
import argparse
import json
import os
import re
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("files", nargs="+")
    ap.add_argument("--out")
    ap.add_argument("--profile", action="store_true")
    a = ap.parse_args()
    rows = []
    for f in sorted(a.files):
        if f.endswith(".log"):  # a run's log names its JSON (missing when the run failed)
            f = f[:-4] + ".json"
        m = re.match(r"hard(?:prof)?_(ta\d+|[^_]+)_(.+)\.json$", os.path.basename(f))
        inst, label = (m.group(1), m.group(2)) if m else (f, "?")
        try:
            j = json.load(open(f))
        except Exception as e:  # a run that crashed or timed out leaves no JSON
            rows.append({"instance": inst, "config": label, "error": str(e)})
            continue
        t = max(j["time_seconds"] - j.get("setup_seconds", 0.0), 1e-9)
        r = {"instance": inst, "config": label, "n": j["instance"]["n"], "m": j["instance"]["m"],
             "status": j["status"], "seconds": j["time_seconds"], "setup_seconds": j.get("setup_seconds", 0.0),
             "branched": j["nodes"]["branched"], "bounds": j["nodes"]["bounds"],
             "nodes_per_s": j["nodes"]["branched"] / t, "bounds_per_s": j["nodes"]["bounds"] / t,
             "makespan": j["makespan"], "lower_bound": j["lower_bound"], "commit": j.get("commit"),
             "backend": j.get("backend"), "command": j.get("command"), "notes": j.get("notes", [])}
        # The closed share of the tree at the last progress snapshot (tree weight) and the forecast
        # from its recent rate (JSON null = infinity: the share stood still). The share is each
        # bound's own tree's, the nearest to "tree closed per minute" across bounds.
        trace = [p for p in j.get("progress", []) if (p.get("tree_done") if p.get("tree_done") is not None else -1) >= 0]
        r["tree_done"] = trace[-1]["tree_done"] if trace else None
        fc = trace[-1].get("forecast_seconds", -1) if trace else -1
        r["forecast_hours"] = float("inf") if fc is None else (fc / 3600 if fc >= 0 else None)
        r["gap"] = (r["makespan"] - r["lower_bound"]) / r["makespan"] if r["makespan"] else None
        rows.append(r)
    if a.profile:
        for r in rows:
            prof = [n for n in r.get("notes", []) if n.startswith("profile")]
            print(f"{r['instance']:7} {r['config']:14} {prof[0] if prof else r.get('error', '-')}")
        return
    print(f"{'instance':8} {'size':7} {'config':14} {'status':11} {'s':>6} {'branched':>13} {'Mnodes/s':>9} "
          f"{'Gbounds/s':>9} {'best':>6} {'lb':>6} {'gap%':>6} {'tree %':>9} {'forecast h':>10}")
    for r in rows:
        if "error" in r:
            print(f"{r['instance']:8} {'':7} {r['config']:14} failed: {r['error']}")
            continue
        gap = f"{100 * r['gap']:.2f}" if r["gap"] is not None else "-"
        print(f"{r['instance']:8} {str(r['n']) + 'x' + str(r['m']):7} {r['config']:14} {r['status']:11} "
              f"{r['seconds']:6.2f} {r['branched']:13d} {r['nodes_per_s'] / 1e6:9.2f} {r['bounds_per_s'] / 1e9:9.3f} "
              f"{r['makespan'] or 0:6d} {r['lower_bound']:6d} {gap:>6} "
              f"{'-' if r['tree_done'] is None else format(100 * r['tree_done'], '.4f'):>9} "
              f"{'-' if r['forecast_hours'] is None else format(r['forecast_hours'], '.3g'):>10}")
    if a.out:
        with open(a.out, "w") as f:
            json.dump({"rows": rows}, f, indent=1)


if __name__ == "__main__":
    sys.exit(main())
