#!/usr/bin/env python3
"""Tables of bench/gpu/device_wide_shops.sh's runs.jsonl (issue 46): node rates at 100 jobs x 20,
40 and 60 machines (the "rate-*" runs) and the device loop's memory on the widest shops (the
other runs), as markdown on stdout.

    bench/wide_table.py RUNS.jsonl [--gpu NAME]
"""
import argparse
import json
import re


def rates(rows):
    out = ["| instance | bound | nodes | search s | nodes/s | tables |", "| --- | --- | ---: | ---: | ---: | --- |"]
    for r in rows:
        m = re.search(r"tables in (shared memory|global memory)", r.get("backend") or "")
        rate = r["nodes"] / r["search_seconds"] if r.get("nodes") and r.get("search_seconds") else 0
        out.append(f"| {r['instance']} | {r['label'][5:]} | {r['nodes']:,} | {r['search_seconds']:.2f} | "
                   f"{rate / 1e6:.1f} M | {m.group(1) if m else '?'} |")
    return out


def memory(rows):
    out = ["| instance | configuration | makespan | lower bound | nodes | GPU peak (MiB) | peak RSS (MiB) | stack at most | spilled |",
           "| --- | --- | ---: | ---: | ---: | ---: | ---: | --- | --- |"]
    for r in rows:
        note = r.get("memory_note") or ""
        stack = re.search(r"stack of (\d+) nodes at most \((\d+) MiB", note)
        spill = re.search(r"host memory \((\d+) MiB at most\)", note)
        out.append(f"| {r['instance']} | {r['label']} (`{r['args']}`) | {r['makespan']} | {r['lower_bound']} | "
                   f"{r['nodes']:,} | {r['gpu_peak_mib']:,} | {r['peak_rss_mib']:,} | "
                   f"{int(stack.group(1)):,} nodes, {int(stack.group(2)):,} MiB | "
                   f"{spill.group(1) + ' MiB' if spill else 'none'} |" if stack else
                   f"| {r['instance']} | {r['label']} | {r['makespan']} | {r['lower_bound']} | {r['nodes']} | "
                   f"{r['gpu_peak_mib']} | {r['peak_rss_mib']} | ? | ? |")
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("runs")
    args = ap.parse_args()
    rows = [json.loads(line) for line in open(args.runs) if line.strip()]
    rate_rows = [r for r in rows if r["label"].startswith("rate-")]
    mem_rows = [r for r in rows if not r["label"].startswith("rate-")]
    commit = next((r.get("commit") for r in rows if r.get("commit")), "?")
    if rate_rows:
        print(f"### Node rates at 100 jobs x 20, 40, 60 machines (commit {commit})\n")
        print("\n".join(rates(rate_rows)) + "\n")
    if mem_rows:
        print(f"### The device loop's memory on the widest shops (commit {commit})\n")
        print("\n".join(memory(mem_rows)) + "\n")


if __name__ == "__main__":
    main()
