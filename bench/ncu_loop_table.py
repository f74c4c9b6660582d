#!/usr/bin/env python3
"""Per-kernel tables of the device loop from `ncu --csv` files, and its roofline.

    ncu_loop_table.py A.csv [B.csv ...]
        (bench/harness/device_run.sh stage nculoop) for each instance file <instance>.csv and each
        kernel: launches, mean time (us), share of the sampled time, DRAM bytes per launch, DRAM
        throughput (% of peak), SIMT efficiency (threads per executed warp instruction / 32) and
        SM throughput (% of peak).

    ncu_loop_table.py --roofline --config LABEL=NCU.csv,RATE.json ...
                      --out roofline.json --md roofline.md [--commit C] [--device D] [--command CMD]
        (bench/harness/device_roofline.sh) the roofline of each configuration: the kernels grouped into
        the loop's phases (select/gather, branch, LB1, compaction, LB2, prune, push, sync), per
        phase its share of an iteration, achieved DRAM throughput, issue-slot use, SM and
        L1/shared throughput (% of peak), and the node rate the phase alone would allow at the
        hardware limit: the phase's time per node scaled by its busiest unit's share of peak
        (time x max(dram, issue, l1, l2) / 100), i.e. the phase run at 100 % of whichever resource
        it is closest to exhausting. RATE.json is a pfsp --json run in graph mode (the nodes/s
        the table explains; its nodes and iterations give the nodes an iteration); each kernel's
        time an iteration is its mean launch time under ncu, profiled as the CUDA graph runs it
        (not --profile: a profiled iteration takes seconds, and the coordinator would cut the
        pool after a one-iteration batch over loop_tuning::iteration_max_s; the graph's batch in
        flight keeps full pools), clocks and caches as in the run (--clock-control none
        --cache-control none); "sync" is the rest of the graph-mode wall
        time an iteration (launches, the host's reads of the state block, graph gaps).

The ncu CSV is the default "details" page (one row per kernel launch and metric).
"""
import argparse
import collections
import csv
import io
import json
import os
import re
import sys

METRICS = {
    "t": "gpu__time_duration.sum",
    "dram_bytes": "dram__bytes.sum",
    "dram": "dram__throughput.avg.pct_of_peak_sustained_elapsed",
    "sm": "sm__throughput.avg.pct_of_peak_sustained_elapsed",
    "issue": "smsp__issue_active.avg.pct_of_peak_sustained_elapsed",
    "l1": "l1tex__throughput.avg.pct_of_peak_sustained_elapsed",
    "l2": "lts__throughput.avg.pct_of_peak_sustained_elapsed",
    "simt": "smsp__thread_inst_executed_per_inst_executed.ratio",
    "occupancy": "sm__warps_active.avg.pct_of_peak_sustained_active",
    "inst": "sm__inst_executed.sum",
}
# The metrics list bench/harness/device_roofline.sh passes to ncu --metrics.
METRIC_LIST = ",".join(METRICS.values())

# Kernel (short name) -> phase of the device loop. The bounding kernels are told apart by their
# bound_kind template argument (0 = lb1, 1 = lb2).
PHASES = ["select/gather+branch", "parts", "LB1", "compaction", "LB2", "prune", "push", "sync"]
PHASE_OF = {
    "count_kernel": "select/gather+branch",
    "gather_kernel": "select/gather+branch",
    "describe_kernel": "select/gather+branch",
    "DeviceScanInitKernel": None,  # two scans: split by launch order below
    "DeviceScanKernel": None,
    "parent_parts_kernel": "parts",
    "parts_lb1_kernel": "LB1",  # --lb1-fused on: the parents' parts and their children's LB1
    "parts_lb1_decide_kernel": "LB1",  # the same for LB1 alone, deciding too (decision 013, option S)
    "DeviceCompactInitKernel": "compaction",
    "DeviceSelectSweepKernel": "compaction",
    "decide_kernel": "prune",
    "decide_warp_kernel": "prune",
    "clear_kept_kernel": "prune",
    "push_kernel": "push",
    "push_warp_kernel": "push",
    "finish_kernel": "push",
    "warp_lb2_kernel": "LB2",
    "lb2_pack_kernel": "LB2",  # the chain's LB2 pass, two children a thread (--lb2-pack)
    "lb2_lanes_kernel": "LB2",
    "lb2_table_kernel": "LB2",
    "open_stats_kernel": None,  # between batches (progress statistics), not an iteration's
}


def short(name):
    name = name.replace("(anonymous namespace)::", "").replace("<unnamed>::", "")
    kind = re.search(r"parts_children_kernel<(?:\(pfsp::bound_kind\))?(\d)|parts_children_kernel<pfsp::bound_kind::(\w+)",
                     name)
    name = re.sub(r"<.*", "", name)
    name = re.sub(r"\(.*", "", name)
    base = name.split("::")[-1][:34]
    if kind:
        k = kind.group(1) or kind.group(2)
        base += "[lb1]" if k in ("0", "lb1") else "[lb2]"
    return base


def read_launches(path):
    """[(short kernel name, {metric: value})] in launch order."""
    text = open(path, errors="replace").read()
    start = text.find('"ID"')
    if start < 0:
        return []
    per = collections.OrderedDict()
    for r in csv.DictReader(io.StringIO(text[start:])):
        k = (int(r["ID"]), short(r["Kernel Name"]))
        try:
            v = float(r["Metric Value"].replace(",", ""))
        except ValueError:
            continue
        per.setdefault(k, {})[r["Metric Name"]] = v
    return [(name, m) for (_, name), m in sorted(per.items())]


def phase_of(name, previous):
    """The phase of a launch; CUB's scans belong to the phase of the kernel before them (count:
    select; decide, or the LB1 kernel that decides: prune)."""
    if name.startswith("parts_children_kernel"):
        return "LB1" if name.endswith("[lb1]") else "LB2"
    if name in PHASE_OF and PHASE_OF[name]:
        return PHASE_OF[name]
    if name.startswith("DeviceScan"):  # the kept scan follows decide, or the deciding LB1 kernel
        return "select/gather+branch" if previous in (None, "count_kernel") else "prune"
    return None


def plain_tables(paths):
    for path in paths:
        inst = os.path.splitext(os.path.basename(path))[0]
        launches = read_launches(path)
        if not launches:
            print(f"{inst}: no ncu rows ({path})")
            continue
        agg = collections.OrderedDict()
        for kname, m in launches:
            a = agg.setdefault(kname, collections.defaultdict(float))
            a["n"] += 1
            for key, v in m.items():
                a[key] += v
        total = sum(a.get(METRICS["t"], 0) for a in agg.values()) or 1
        print(f"== {inst}: {len(launches)} launches sampled")
        print(f"{'kernel':39} {'n':>3} {'us':>9} {'time%':>6} {'MB':>8} {'dram%':>6} {'simt':>5} {'sm%':>5}")
        for kname, a in agg.items():
            n = a["n"]
            t = a.get(METRICS["t"], 0)
            print(f"{kname:39} {int(n):3d} {t / n / 1e3:9.1f} {100 * t / total:6.1f} "
                  f"{a.get(METRICS['dram_bytes'], 0) / n / 1e6:8.2f} {a.get(METRICS['dram'], 0) / n:6.1f} "
                  f"{a.get(METRICS['simt'], 0) / n / 32:5.2f} {a.get(METRICS['sm'], 0) / n:5.1f}")


def phase_rows(launches):
    """Per phase: the time of one iteration (the mean launch time of each of its kernels, summed:
    every kernel runs once an iteration, CUB's scan once per phase) and the time-weighted means
    of the percentages over the sampled launches; plus the kernels each phase holds."""
    per = collections.OrderedDict()  # (phase, kernel) -> sums
    previous = None
    for name, m in launches:
        p = phase_of(name, previous)
        if not name.startswith("DeviceScan"):
            previous = p if p == "prune" else name
        if p is None:
            continue
        a = per.setdefault((p, name), collections.defaultdict(float))
        t = m.get(METRICS["t"], 0.0)
        a["n"] += 1
        a["t"] += t
        a["dram_bytes"] += m.get(METRICS["dram_bytes"], 0.0)
        a["inst"] += m.get(METRICS["inst"], 0.0)
        for key in ("dram", "sm", "issue", "l1", "l2", "occupancy"):
            a[key + "_w"] += t * m.get(METRICS[key], 0.0)
        a["simt_w"] += m.get(METRICS["inst"], 0.0) * m.get(METRICS["simt"], 0.0) / 32
    ph = collections.OrderedDict((p, collections.defaultdict(float)) for p in PHASES)
    kernels = collections.defaultdict(list)
    for (p, name), a in per.items():
        b = ph[p]
        b["t"] += a["t"] / a["n"]  # per iteration
        b["launches"] += a["n"]
        for key in ("dram_bytes", "inst", "dram_w", "sm_w", "issue_w", "l1_w", "l2_w", "occupancy_w", "simt_w"):
            b[key] += a[key] / a["n"]
        kernels[p].append(name)
    return ph, kernels


def roofline(label, ncu_csv, rate_json):
    launches = read_launches(ncu_csv)
    rate = json.load(open(rate_json))
    wall = max(rate["time_seconds"] - rate.get("setup_seconds", 0.0), 1e-9)
    nodes = rate["nodes"]["branched"]
    iters = None
    for note in rate.get("notes", []):
        m = re.match(r"(\d+) iterations on the device", note)
        if m:
            iters = int(m.group(1))
    iters = iters or 1
    wall_iter_ns = wall / iters * 1e9
    nodes_iter = nodes / iters
    ph, kernels = phase_rows(launches)
    kernel_iter_ns = sum(a["t"] for p, a in ph.items() if p != "sync")
    rows = []
    for p in PHASES:
        a = ph[p]
        if p == "sync":
            s_iter = max(0.0, wall_iter_ns - kernel_iter_ns)
            rows.append({"phase": p, "share": s_iter / wall_iter_ns, "kernels": [], "us_per_iteration": s_iter / 1e3,
                         "alone_nodes_per_s": nodes_iter / (s_iter * 1e-9) if s_iter > 0 else None})
            continue
        if a["launches"] == 0:
            continue
        t = a["t"]  # ns an iteration
        pct = {k: a[k + "_w"] / t if t else 0.0 for k in ("dram", "sm", "issue", "l1", "l2", "occupancy")}
        busiest = max(pct["dram"], pct["issue"], pct["l1"], pct["l2"])
        s_node = t * 1e-9 / nodes_iter  # seconds of this phase per branched node
        rows.append({
            "phase": p, "share": t / wall_iter_ns, "kernels": kernels[p], "launches": int(a["launches"]),
            "us_per_iteration": t / 1e3, "dram_pct": pct["dram"], "issue_pct": pct["issue"], "sm_pct": pct["sm"],
            "l1_pct": pct["l1"], "l2_pct": pct["l2"], "occupancy_pct": pct["occupancy"],
            "simt": a["simt_w"] / a["inst"] if a["inst"] else None,
            "dram_gb_per_s": a["dram_bytes"] / t if t else 0.0,  # bytes / ns = GB/s
            "busiest_pct": busiest, "ns_per_node": s_node * 1e9,
            "alone_nodes_per_s": 1.0 / s_node if s_node > 0 else None,
            "limit_nodes_per_s": 1.0 / (s_node * busiest / 100) if s_node > 0 and busiest > 0 else None,
        })
    return {"config": label, "instance": rate["instance"].get("name"), "nodes_per_s": nodes / wall,
            "branched": nodes, "seconds": wall, "iterations": iters, "nodes_per_iteration": nodes_iter,
            "wall_us_per_iteration": wall_iter_ns / 1e3, "kernel_us_per_iteration": kernel_iter_ns / 1e3,
            "ncu_launches": len(launches), "rate_command": rate.get("command"), "phases": rows}


def fmt_rate(v):
    if v is None:
        return "-"
    return f"{v / 1e9:.2f} G" if v >= 1e9 else f"{v / 1e6:.0f} M"


def markdown(res, commit, device, command):
    out = [f"Device-loop roofline, commit {commit}, device: {device}.", ""]
    if command:
        out += [f"Command: `{command}`", ""]
    out += ["Per phase: share of the graph-mode wall time, achieved DRAM throughput (GB/s and % of peak), "
            "issue-slot use, SM, L1/shared and L2 throughput (% of peak), SIMT efficiency, and the node rate "
            "the phase alone allows: as it runs now (`alone`), and at the hardware limit (`limit`: its busiest "
            "unit at 100 %). `sync`: launches, graph gaps and the host's state reads (graph-mode wall time not "
            "spent in kernels: the graph-mode wall time an iteration less the kernels' ncu time an iteration).", ""]
    for r in res:
        out.append(f"**{r['config']}** on {r['instance']}: {r['nodes_per_s'] / 1e6:.1f} M nodes/s "
                   f"({r['branched']:,} nodes in {r['seconds']:.2f} s, graph mode, {r['iterations']:,} iterations of "
                   f"{r['nodes_per_iteration']:,.0f} nodes, {r['wall_us_per_iteration']:.0f} us each, "
                   f"{r['kernel_us_per_iteration']:.0f} us of kernels by ncu; {r['ncu_launches']} launches sampled)")
        out.append("")
        out.append("| phase | kernels | share | DRAM GB/s | DRAM % | issue % | SM % | L1 % | L2 % | SIMT | alone nodes/s | limit nodes/s |")
        out.append("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
        for p in r["phases"]:
            if p["phase"] == "sync":
                out.append(f"| sync | (host, gaps) | {100 * p['share']:.1f} % | | | | | | | | "
                           f"{fmt_rate(p['alone_nodes_per_s'])} | |")
                continue
            simt = f"{p['simt']:.2f}" if p["simt"] is not None else "-"
            out.append(f"| {p['phase']} | {', '.join(p['kernels'])} | {100 * p['share']:.1f} % | "
                       f"{p['dram_gb_per_s']:.0f} | {p['dram_pct']:.1f} | {p['issue_pct']:.1f} | {p['sm_pct']:.1f} | "
                       f"{p['l1_pct']:.1f} | {p['l2_pct']:.1f} | {simt} | {fmt_rate(p['alone_nodes_per_s'])} | "
                       f"{fmt_rate(p['limit_nodes_per_s'])} |")
        out.append("")
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="*")
    ap.add_argument("--roofline", action="store_true")
    ap.add_argument("--config", action="append", default=[], help="LABEL=NCU.csv,RATE.json")
    ap.add_argument("--out")
    ap.add_argument("--md")
    ap.add_argument("--commit", default="unknown")
    ap.add_argument("--device", default="unknown")
    ap.add_argument("--command", default="")
    ap.add_argument("--metrics", action="store_true", help="print the ncu --metrics list and exit")
    a = ap.parse_args()
    if a.metrics:
        print(METRIC_LIST)
        return 0
    if not a.roofline:
        plain_tables(a.files)
        return 0
    res = []
    for c in a.config:
        label, files = c.split("=", 1)
        parts = files.split(",")
        res.append(roofline(label, parts[0], parts[1]))
    text = markdown(res, a.commit, a.device, a.command)
    sys.stdout.write(text)
    if a.md:
        open(a.md, "w").write(text)
    if a.out:
        json.dump({"commit": a.commit, "device": a.device, "command": a.command, "configs": res},
                  open(a.out, "w"), indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
