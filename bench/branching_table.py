#!/usr/bin/env python3
"""Tree size by branching rule, and what a per-instance choice of the rule would save.

Reads pfsp_bench_estimate JSON files named RULE.json (min-min, forward, backward, min-branch) from
a folder or a .tgz of them and prints a markdown table: the estimated nodes of each instance under each rule, the
best rule per instance (an oracle's choice) and the sum's ratio min-min / oracle.

    bench/branching_table.py bench/results/2026-12-07-vm2core-branching/estimates.tgz > .../branching_estimates.md
"""
import json
import os
import sys
import tarfile

RULES = ["min-min", "forward", "backward", "min-branch"]


def load(source):
    """{rule: the estimator's JSON} from a folder or a .tgz holding RULE.json files."""
    if os.path.isdir(source):
        paths = {r: os.path.join(source, r + ".json") for r in RULES}
        return {r: json.load(open(p)) for r, p in paths.items() if os.path.exists(p)}
    with tarfile.open(source) as tar:
        names = set(tar.getnames())
        return {r: json.load(tar.extractfile(r + ".json")) for r in RULES if r + ".json" in names}


def estimates(files):
    """{instance: {rule: estimated nodes}}."""
    table = {}
    for rule, j in files.items():
        for run in j["runs"]:
            table.setdefault(run["instance"], {})[rule] = run["mean"]
    return table


def main(source):
    files = load(source)
    table = estimates(files)
    rules = [r for r in RULES if all(r in row for row in table.values())]
    command = files[rules[0]]["machine"]["command"]
    print(f"Estimated nodes to prove each instance from its optimum, by branching rule (`{command}`, "
          "the other rules with `--branching RULE`).\n")
    print("| instance | " + " | ".join(rules) + " | best rule | min-min / best |")
    print("| --- | " + " | ".join("---:" for _ in rules) + " | --- | ---: |")
    total = {r: 0.0 for r in rules}
    oracle = 0.0
    for inst in sorted(table):
        row = table[inst]
        best = min(rules, key=lambda r: row[r])
        oracle += row[best]
        for r in rules:
            total[r] += row[r]
        cells = " | ".join(f"{row[r]:.3g}" for r in rules)
        print(f"| {inst} | {cells} | {best} | {row['min-min'] / row[best]:.2f} |")
    cells = " | ".join(f"**{total[r]:.3g}**" for r in rules)
    print(f"| **sum** | {cells} | oracle {oracle:.3g} | **{total['min-min'] / oracle:.2f}** |")


if __name__ == "__main__":
    main(sys.argv[1])
