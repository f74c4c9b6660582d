#!/usr/bin/env bash
# Rank 0's capacity (issue 22 item 5): pfsp_bench_mpi_coordinator under mpirun with W worker
# ranks standing in for GPUs, for a few (W, chunk milliseconds) pairs: OUT_DIR/mpi_coordinator.json
# (every row; the stamp is the first run's, each run's command kept) and mpi_coordinator.txt (the table). About a minute on a 2-core machine.
#   bench/mpi/coordinator_capacity.sh [BUILD_DIR] [OUT_DIR]
# Env: PFSP_CAPACITY_RUNS="W:MS ..." (default "8:20 8:2 32:2 32:1 64:1"), PFSP_CAPACITY_SECONDS (5).
set -euo pipefail
build=${1:-build/cpu}
out=${2:-bench/results/capacity}
runs=${PFSP_CAPACITY_RUNS:-"8:20 8:2 32:2 32:1 64:1"}
seconds=${PFSP_CAPACITY_SECONDS:-5}
bin=$build/pfsp_bench_mpi_coordinator
[[ -x $bin ]] || { echo "no $bin: cmake --build $build --target pfsp_bench_mpi_coordinator" >&2; exit 2; }
mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=${OMPI_ALLOW_RUN_AS_ROOT:-1} OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=${OMPI_ALLOW_RUN_AS_ROOT_CONFIRM:-1}
parts=()
for r in $runs; do
  w=${r%%:*} ms=${r##*:}
  part=$out/.run_${w}_${ms}.json
  echo "== $w workers, chunks of $ms ms" >&2
  mpirun --oversubscribe -n $((w + 1)) "$bin" --chunk-ms "$ms" --seconds "$seconds" --json "$part"
  parts+=("$part")
done
python3 - "$out/mpi_coordinator.json" "${parts[@]}" <<'PY'
import json, sys
dest, parts = sys.argv[1], sys.argv[2:]
runs = [json.load(open(p)) for p in parts]
merged = {k: v for k, v in runs[0].items() if k != "rows"}
merged["commands"] = [r["machine"].get("command", "") for r in runs]
merged["rows"] = [row for r in runs for row in r["rows"]]
with open(dest + ".tmp", "w") as f:
    json.dump(merged, f, indent=1)
import os
os.replace(dest + ".tmp", dest)
lines = ["| workers | chunk ms | results/s | demanded/s | rank 0 CPU | us/msg | msgs/core-s | in/out B | wait ms | idle % |",
         "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
for x in merged["rows"]:
    lines.append(f"| {x['workers']} | {x['chunk_ms']:g} | {x['results_per_s']:.0f} | {x['demanded_per_s']:.0f} | "
          f"{100*x['rank0_cpu_share']:.1f} % | {x['cpu_us_per_message']:.1f} | "
          f"{x['projection']['messages_per_core_s']:.0f} | {x['largest_in_bytes']}/{x['largest_out_bytes']} | "
          f"{x['wait_ms_per_request']:.2f} | {100*x['workers_idle_share']:.0f} |")
m = merged["machine"]
header = [f"# rank 0's capacity (pfsp_bench_mpi_coordinator), commit {m['commit']}, {m['date_utc']}",
          f"# device: {m['cpu']}, {m['hardware_threads']} hardware threads, host {m['hostname']}, "
          f"load at start {m['load_at_start']}",
          f"# workers stand in for GPUs at {merged['rows'][0]['projection']['gpu_rate']:g} nodes/s; instance "
          f"{merged['instance']}; time limit {merged['time_limit_s']:g} s a run"]
text = "\n".join(header + lines) + "\n"
print(text, end="")
with open(dest[:-len(".json")] + ".txt", "w") as f:
    f.write(text)
PY
rm -f "${parts[@]}"
