#!/usr/bin/env python3
"""Strong-scaling table of bench/harness/device_run.sh's `scale` stage (issue 11).

Reads the runs' JSON files, named FRONT_gK_INSTANCE.json (FRONT: devices = `pfsp solve --devices`,
mpi = `mpirun -n K+1 pfsp-mpi --backend gpu` (K ranks x 1 GPU), mpi1rank = one worker rank x K GPUs
(`--devices all`), mpi2rank = two worker ranks x K/2 GPUs (`--devices local`), mpilazy = mpi with
`--ranks-join lazy` (one rank first, the others when its chunk is split); K GPUs; the
pfsp-mpi layouts are compared with mpi's K = 1), and prints per front end and K:
- proofs (runs that ended optimal or proven_bound): total time, total search time (time minus
  the devices' setup), branched nodes, efficiency T1 / (K * TK) on the search time and on the time;
- slices (runs stopped by the time limit): nodes/s (branched over the search time: time minus the
  setup the run reports; pfsp-mpi reports none, so its workers' device set-up counts as search) and
  its ratio to K = 1's, and the nodes branched within the same --time-limit over K times those of
  `pfsp solve` on one GPU (devices, K = 1): what a run of that limit gets, set-up included;
- the idle share of each engine or worker rank (from the run's notes), summed over the proofs;
- small trees (issue 22 item 6, more GPUs never slower): per front and K > 1, the proofs' time on K
  GPUs over the same instances' time on one GPU (total and worst instance; the target is at most
  1.1), the same on wall time, and the runs in which engines after the first joined (pfsp solve's
  note "did not join" otherwise).
With --out, writes the rows as JSON stamped with commit, device and command.
"""
import argparse
import glob
import json
import os
import re
import sys
from collections import defaultdict

# A front may carry a variant (mpi-c16: pfsp-mpi with --chunk-nodes 16, bench/harness/device_mpi_chunks.sh;
# mpi-bind: one GPU visible a rank, bench/harness/device_mpi_bind.sh),
# compared with the same variant's K = 1.
NAME = re.compile(r"((?:devices|mpi|mpi1rank|mpi2rank|mpilazy)(?:-c\d+|-bind)?)_g(\d+)_(ta\d+)\.json$")
# The front whose K = 1 runs a front is compared with.
BASE_FRONT = {"mpi1rank": "mpi", "mpi2rank": "mpi", "mpilazy": "mpi"}  # others: their own K = 1
SMALL_TARGET = 1.1
# "engine 0 (device 0) branched N, busy X s, idle Y s = Z %, life L s" / "rank 1 branched ..."
PART = re.compile(r"(engine|rank) (\d+)(?: \(device \d+\))? branched (\d+), busy ([\d.]+) s, idle ([\d.]+) s = [\d.]+ %, life ([\d.]+) s")


def load(paths):
    runs = []
    for p in paths:
        m = NAME.search(os.path.basename(p))
        if not m:
            continue
        try:
            j = json.load(open(p))
        except (OSError, ValueError) as e:
            print(f"scale_table: {p}: {e}", file=sys.stderr)
            continue
        parts = []
        for note in j.get("notes", []):
            if note.startswith("engines' time") or note.startswith("workers' time"):
                parts = [(int(a), int(b), float(c), float(d), float(e)) for _, a, b, c, d, e in PART.findall(note)]
        runs.append({
            "front": m.group(1), "gpus": int(m.group(2)), "instance": m.group(3),
            "status": j["status"], "branched": j["nodes"]["branched"],
            "time": j["time_seconds"], "setup": j.get("setup_seconds", 0.0),
            "wall": j.get("wall_seconds") or j["time_seconds"],
            "joined": not any("did not join" in n for n in j.get("notes", [])),
            "parts": parts,  # (index, branched, busy, idle, life)
        })
    return runs


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--out")
    ap.add_argument("--commit", default="")
    ap.add_argument("--device", default="")
    a = ap.parse_args()
    files = [f for pat in a.files for f in glob.glob(pat)] or a.files
    runs = load(files)
    if not runs:
        print("scale_table: no runs", file=sys.stderr)
        return 1
    rows = []
    by = defaultdict(list)
    for r in runs:
        by[(r["front"], r["gpus"], r["status"] in ("optimal", "proven_bound"))].append(r)
    fronts = sorted({r["front"] for r in runs})
    ks = sorted({r["gpus"] for r in runs})
    print(f"# strong scaling, {a.device or 'device ?'}, commit {a.commit or '?'}")
    print("| front end | GPUs | proofs | branched | time (s) | search (s) | eff. (search) | eff. (time) | idle share per engine/rank (%) |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    base = {}
    for f in fronts:
        for k in ks:
            p = by.get((f, k, True), [])
            if not p:
                continue
            insts = sorted(r["instance"] for r in p)
            t = sum(r["time"] for r in p)
            s = sum(r["time"] - r["setup"] for r in p)
            n = sum(r["branched"] for r in p)
            idle = defaultdict(float)
            life = defaultdict(float)
            for r in p:
                for idx, _, _, i, l in r["parts"]:
                    idle[idx] += i
                    life[idx] += l
            shares = [100.0 * idle[i] / life[i] if life[i] else 0.0 for i in sorted(idle)]
            if k == 1 or f not in base:
                base.setdefault(f, (k, t, s))
            k0, t0, s0 = base.get(BASE_FRONT.get(f), base[f])
            eff_s = s0 * k0 / (k * s) if s else 0.0
            eff_t = t0 * k0 / (k * t) if t else 0.0
            print(f"| {f} | {k} | {len(p)} ({insts[0]}..{insts[-1]}) | {n:,} | {t:.2f} | {s:.2f} | {100 * eff_s:.1f} % | "
                  f"{100 * eff_t:.1f} % | {' / '.join(f'{x:.1f}' for x in shares) or '-'} |")
            rows.append({"kind": "proofs", "front": f, "gpus": k, "instances": insts, "branched": n, "time_s": t,
                         "search_s": s, "efficiency_search": eff_s, "efficiency_time": eff_t, "idle_share_pct": shares})
    print()
    print("| front end | GPUs | slice | seconds | branched | M nodes/s | x vs 1 GPU | nodes / (K x pfsp solve's) "
          "| idle share per engine/rank (%) |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    rate1 = {}
    solve1 = {r["instance"]: r["branched"] for r in by.get(("devices", 1, False), [])}
    for f in fronts:
        for k in ks:
            for r in sorted(by.get((f, k, False), []), key=lambda r: r["instance"]):
                rate = r["branched"] / max(r["time"] - r["setup"], 1e-9)
                if k == 1:
                    rate1[(f, r["instance"])] = rate
                one = rate1.get((BASE_FRONT.get(f, f), r["instance"]))
                x = rate / one if one else 0.0
                shares = [100.0 * i / l if l else 0.0 for _, _, _, i, l in r["parts"]]
                base = solve1.get(r["instance"])
                same = r["branched"] / (k * base) if base else None
                print(f"| {f} | {k} | {r['instance']} ({r['status']}) | {r['time']:.1f} | {r['branched']:,} | "
                      f"{rate / 1e6:.1f} | {x:.2f} | {f'{same:.3f}' if same else '-'} | "
                      f"{' / '.join(f'{s:.1f}' for s in shares) or '-'} |")
                rows.append({"kind": "slice", "front": f, "gpus": k, "instance": r["instance"], "status": r["status"],
                             "time_s": r["time"], "branched": r["branched"], "nodes_per_s": rate, "speedup": x,
                             "nodes_vs_k_solve": same, "idle_share_pct": shares})
    rows += small_trees(runs, fronts, ks)
    if a.out:
        with open(a.out, "w") as fh:
            json.dump({"commit": a.commit, "device": a.device, "command": " ".join(sys.argv), "rows": rows}, fh, indent=1)
    return 0


def small_trees(runs, fronts, ks):
    """Item 6's table: proofs on K GPUs against the same instances' proofs on one GPU."""
    one = {}
    for r in runs:
        if r["gpus"] == 1 and r["status"] in ("optimal", "proven_bound"):
            one[(r["front"], r["instance"])] = r
    out = []
    print()
    print(f"| front end | GPUs | proofs | time (s) | one GPU (s) | ratio | worst instance | wall ratio | "
          f"engines joined | at most {SMALL_TARGET}x |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for f in fronts:
        for k in ks:
            if k == 1:
                continue
            pairs = [(r, one[(BASE_FRONT.get(f, f), r["instance"])]) for r in runs
                     if r["front"] == f and r["gpus"] == k and r["status"] in ("optimal", "proven_bound")
                     and (BASE_FRONT.get(f, f), r["instance"]) in one]
            if not pairs:
                continue
            t = sum(r["time"] for r, _ in pairs)
            t1 = sum(b["time"] for _, b in pairs)
            w = sum(r["wall"] for r, _ in pairs)
            w1 = sum(b["wall"] for _, b in pairs)
            worst = max(pairs, key=lambda p: p[0]["time"] / max(p[1]["time"], 1e-9))
            wr = worst[0]["time"] / max(worst[1]["time"], 1e-9)
            ratio = t / max(t1, 1e-9)
            joined = sum(1 for r, _ in pairs if r["joined"])
            ok = ratio <= SMALL_TARGET
            print(f"| {f} | {k} | {len(pairs)} | {t:.2f} | {t1:.2f} | {ratio:.2f} | {worst[0]['instance']} {wr:.2f} | "
                  f"{w / max(w1, 1e-9):.2f} | {joined}/{len(pairs)} | {'yes' if ok else 'NO'} |")
            out.append({"kind": "small_trees", "front": f, "gpus": k, "proofs": len(pairs), "time_s": t,
                        "one_gpu_time_s": t1, "ratio": ratio, "worst_instance": worst[0]["instance"],
                        "worst_ratio": wr, "wall_ratio": w / max(w1, 1e-9), "joined_runs": joined,
                        "within_target": ok})
    return out


if __name__ == "__main__":
    sys.exit(main())
