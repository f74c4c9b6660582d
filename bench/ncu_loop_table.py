#!/usr/bin/env python3
"""Per-kernel table of the device loop from `ncu --csv` files (scripts/device_run.sh stage nculoop).

For each instance file <instance>.csv and each kernel (name shortened): launches, mean time (us),
share of the sampled time, DRAM bytes per launch, DRAM throughput (% of peak), SIMT efficiency
(threads per executed warp instruction / 32) and SM throughput (% of peak).
"""
import collections
import csv
import io
import os
import re
import sys


def short(name):
    name = name.replace("(anonymous namespace)::", "").replace("<unnamed>::", "")
    name = re.sub(r"<.*", "", name)
    name = re.sub(r"\(.*", "", name)
    return name.split("::")[-1][:34]


def main():
    for path in sys.argv[1:]:
        inst = os.path.splitext(os.path.basename(path))[0]
        text = open(path, errors="replace").read()
        start = text.find('"ID"')
        if start < 0:
            print(f"{inst}: no ncu rows ({path})")
            continue
        rows = list(csv.DictReader(io.StringIO(text[start:])))
        per = collections.OrderedDict()
        for r in rows:
            k = (short(r["Kernel Name"]), r["ID"])
            try:
                v = float(r["Metric Value"].replace(",", ""))
            except ValueError:
                continue
            per.setdefault(k, {})[r["Metric Name"]] = v
        agg = collections.OrderedDict()
        for (kname, _), m in per.items():
            a = agg.setdefault(kname, collections.defaultdict(float))
            a["n"] += 1
            for key, v in m.items():
                a[key] += v
        total = sum(a.get("gpu__time_duration.sum", 0) for a in agg.values()) or 1
        print(f"== {inst}: {len(per)} launches sampled")
        print(f"{'kernel':34} {'n':>3} {'us':>9} {'time%':>6} {'MB':>8} {'dram%':>6} {'simt':>5} {'sm%':>5}")
        for kname, a in agg.items():
            n = a["n"]
            t = a.get("gpu__time_duration.sum", 0)
            print(f"{kname:34} {int(n):3d} {t / n / 1e3:9.1f} {100 * t / total:6.1f} "
                  f"{a.get('dram__bytes.sum', 0) / n / 1e6:8.2f} "
                  f"{a.get('dram__throughput.avg.pct_of_peak_sustained_elapsed', 0) / n:6.1f} "
                  f"{a.get('smsp__thread_inst_executed_per_inst_executed.ratio', 0) / n / 32:5.2f} "
                  f"{a.get('sm__throughput.avg.pct_of_peak_sustained_elapsed', 0) / n:5.1f}")


if __name__ == "__main__":
    main()
