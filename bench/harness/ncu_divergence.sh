#!/usr/bin/env bash
# Thread divergence of the bounding kernel per strategy (kernel variant x table placement x
# sort), read by Nsight Compute with --clock-control none (CCPE Fig. 3, on today's counters):
#   smsp__sass_average_branch_targets_threads_uniform.pct   share of branch targets taken uniformly by the warp
#   smsp__sass_branch_targets_threads_divergent.sum         branch targets where the warp diverged
#   smsp__average_thread_inst_executed_per_inst_executed.ratio   active threads per warp instruction (of 32)
# plus time, occupancy, issue-slot and ALU-pipe use and integer thread-instructions, for the
# kernel's share of the integer peak. Then the same counters for every --gpu-strategy
# (branchless, shared tables, device sort; docs/gpu_strategies.md "Applied to pfsp"): the kernels
# of the first launch of each (split: its two kernels; CUB's compaction is not profiled). Run on
# the GPU machine:
#   bench/harness/ncu_divergence.sh build/device/pfsp_gpu_bench OUTDIR [INSTANCES] [BOUND] [STRATEGIES]
set -u -o pipefail
BENCH=${1:?pfsp_gpu_bench path}
OUT=${2:-out/ncu}
INSTANCES=${3:-ta021,ta051}
BOUND=${4:-lb2}
STRATEGIES=${5:-plain,persistent,context-switch,split,remap}
mkdir -p "$OUT"
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1 || echo /usr/local/cuda/bin/ncu)
DIV=smsp__sass_average_branch_targets_threads_uniform.pct,smsp__sass_branch_targets_threads_divergent.sum,smsp__average_thread_inst_executed_per_inst_executed.ratio
EXTRA=gpu__time_duration.sum,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active,sm__sass_thread_inst_executed_op_integer_pred_on.sum,smsp__thread_inst_executed.sum,sm__cycles_elapsed.avg.per_second
# One bench process per instance: every strategy bounds the same 65536-child pool 3 times
# (--reps 1); the first launch of each strategy is profiled (order: kernel, memory, sort).
# SKIP_VARIANTS=1 profiles the strategies only.
for inst in ${INSTANCES//,/ }; do
  [[ -n ${SKIP_VARIANTS:-} ]] && break
  for set in DIV EXTRA; do
    "$NCU" --clock-control none --kernel-name regex:bound_children_kernel --metrics "${!set}" --csv --print-units base \
      "$BENCH" --instances "$inst" --bound "$BOUND" --children 65536 --reps 1 --cpu-seconds 0.2 \
      >"$OUT/ncu_${inst}_${set}.csv" 2>"$OUT/ncu_${inst}_${set}.err" || echo "ncu failed for $inst $set (see .err)"
  done
done
# Strategy kernels: one bench process per instance and strategy (3 launches of the same pool).
STRATEGY_KERNELS='regex:bound_children_kernel|task_pool_kernel|context_switch_kernel|split_lb1_kernel|split_pairs_kernel'
for inst in ${INSTANCES//,/ }; do
  for s in ${STRATEGIES//,/ }; do
    for set in DIV EXTRA; do
      "$NCU" --clock-control none --kernel-name "$STRATEGY_KERNELS" --metrics "${!set}" --csv --print-units base \
        "$BENCH" --instances "$inst" --bound "$BOUND" --children 65536 --reps 1 --cpu-seconds 0.2 \
        --kernels branchless --memory shared --sort device --strategies "$s" \
        >"$OUT/ncu_${inst}_strategy_${s}_${set}.csv" 2>"$OUT/ncu_${inst}_strategy_${s}_${set}.err" ||
        echo "ncu failed for $inst $s $set (see .err)"
    done
  done
done
python3 - "$OUT" "$INSTANCES" "$STRATEGIES" <<'PY'
import csv, io, sys, os
out, instances = sys.argv[1], sys.argv[2].split(",")
kernels = ["plain", "refactored", "branchless"]; memory = ["shared", "global"]; sorts = ["none", "host", "device"]
strategies = [(k, m, s) for k in kernels for m in memory for s in sorts]
lines = []
def load(path):
    if not os.path.exists(path): return {}
    text = "\n".join(l for l in open(path).read().splitlines() if l.startswith('"'))
    start = text.find('"ID"')
    if start < 0: return {}
    rows = list(csv.DictReader(io.StringIO(text[start:])))
    by_id = {}
    for r in rows:
        by_id.setdefault(int(r["ID"]), {})[r["Metric Name"]] = r["Metric Value"].replace(",", "")
    return by_id
for inst in instances:
    div = load(f"{out}/ncu_{inst}_DIV.csv"); ext = load(f"{out}/ncu_{inst}_EXTRA.csv")
    ids = sorted(div)
    lines.append(f"instance {inst}: {len(ids)} kernel launches profiled (3 per strategy; the first of each is shown)")
    lines.append("%-10s %-6s %-6s %9s %12s %9s %9s %8s %8s %8s %10s" % ("kernel", "memory", "sort", "uniform%", "divergent", "thr/inst",
                 "time_us", "occup%", "issue%", "alu%", "int_Gops"))
    for i, (k, m, s) in enumerate(strategies):
        lid = 3 * i
        if lid not in div: continue
        d = div[lid]; e = ext.get(lid, {})
        def f(x, key, fmt="%9.2f"):
            try: return fmt % float(x[key])
            except Exception: return "%9s" % "-"
        t_ns = float(e.get("gpu__time_duration.sum", "nan") or "nan")
        iops = float(e.get("sm__sass_thread_inst_executed_op_integer_pred_on.sum", "nan") or "nan")
        rate = iops / (t_ns * 1e-9) / 1e9 if t_ns == t_ns and t_ns > 0 else float("nan")
        lines.append("%-10s %-6s %-6s %s %s %s %s %s %s %s %10.1f" % (k, m, s,
            f(d, "smsp__sass_average_branch_targets_threads_uniform.pct"),
            f(d, "smsp__sass_branch_targets_threads_divergent.sum", "%12.0f"),
            f(d, "smsp__average_thread_inst_executed_per_inst_executed.ratio"),
            "%9.1f" % (t_ns / 1e3), f(e, "sm__warps_active.avg.pct_of_peak_sustained_active", "%8.1f"),
            f(e, "smsp__issue_active.avg.pct_of_peak_sustained_active", "%8.1f"),
            f(e, "sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active", "%8.1f"), rate))
# Strategies: the kernels of the first launch (split launches two kernels per pool).
names = {}
def load_named(path):
    by_id = load(path)
    if os.path.exists(path):
        text = "\n".join(l for l in open(path).read().splitlines() if l.startswith('"'))
        start = text.find('"ID"')
        if start >= 0:
            for r in csv.DictReader(io.StringIO(text[start:])):
                names[(path, int(r["ID"]))] = r.get("Kernel Name", "?").split("(")[0].split("<")[0]
    return by_id
strategies = sys.argv[3].split(",") if len(sys.argv) > 3 else []
for inst in instances:
    lines.append(f"instance {inst}: strategies (branchless, shared, device sort; first launch)")
    lines.append("%-15s %-22s %9s %12s %9s %9s %8s %8s %8s" % ("strategy", "kernel", "uniform%", "divergent", "thr/inst",
                 "time_us", "occup%", "issue%", "alu%"))
    for s in strategies:
        dpath = f"{out}/ncu_{inst}_strategy_{s}_DIV.csv"
        div = load_named(dpath); ext = load(f"{out}/ncu_{inst}_strategy_{s}_EXTRA.csv")
        per_launch = 2 if s == "split" else 1
        for lid in range(per_launch):
            if lid not in div: continue
            d = div[lid]; e = ext.get(lid, {})
            def g(x, key, fmt):
                try: return fmt % float(x[key])
                except Exception: return "%9s" % "-"
            t_ns = float(e.get("gpu__time_duration.sum", "nan") or "nan")
            lines.append("%-15s %-22s %s %s %s %9.1f %s %s %s" % (s, names.get((dpath, lid), "?")[:22],
                g(d, "smsp__sass_average_branch_targets_threads_uniform.pct", "%9.2f"),
                g(d, "smsp__sass_branch_targets_threads_divergent.sum", "%12.0f"),
                g(d, "smsp__average_thread_inst_executed_per_inst_executed.ratio", "%9.2f"), t_ns / 1e3,
                g(e, "sm__warps_active.avg.pct_of_peak_sustained_active", "%8.1f"),
                g(e, "smsp__issue_active.avg.pct_of_peak_sustained_active", "%8.1f"),
                g(e, "sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active", "%8.1f")))
open(f"{out}/ncu_divergence.txt", "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
PY
