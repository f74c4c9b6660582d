#!/usr/bin/env bash
# Run ON a 4-GPU machine (device call, carry [".carry/t"]) after `bench/harness/carry_gpu_tests.sh pack`
# here: the start of a process on a multi-GPU host (issue 21 item 5, issue 22 item 6), each run
# timed around the process and read from its JSON.
#   solve-narrow / solve-all   pfsp solve ta030 (3 runs each): CUDA_VISIBLE_DEVICES narrowed by
#                              pfsp itself (the default) / set to every GPU (the old behaviour)
#   then for each of SMALL (ta021-ta030, from the optimum):
#     solve        pfsp solve (narrowed)
#     mpi1 / mpiG  mpirun -n 2 pfsp-mpi --devices 0 / one worker a GPU, G = the machine's GPUs
#                  (rank 0's note: when it began serving; each worker's contexts, pairs, engines)
#     mpiG-nolock  the same with PFSP_MPI_CONTEXT_LOCK=off (mpiG's workers take turns at their
#                  contexts: the default since ec178cb from three workers on a node; before that
#                  this configuration was mpiG-lock, PFSP_MPI_CONTEXT_LOCK=on)
#     mpi1-all / mpiG-all  mpi1 / mpiG with CUDA_VISIBLE_DEVICES set to every GPU: the workers
#                  do not narrow it (the behaviour before they did)
# Writes $OUT/start/runs/*.json, start.txt (per configuration: sums of search, JSON wall and process
# wall; the workers' start notes) and runs.tgz.
set -u -o pipefail
ROOT=$PWD
OUT=${OUT:-$ROOT/out/device}
B=${BUILD:-$ROOT/build/carry}
D=$OUT/start
mkdir -p "$D/runs" "$B"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
export OMPI_MCA_rmaps_base_oversubscribe=1
for b in pfsp pfsp-mpi; do xz -dc ".carry/t/$b.xz" >"$B/$b" && chmod +x "$B/$b"; done
[[ -e ../shared ]] || ln -s "$ROOT/shared" ../shared 2>/dev/null
SMALL=${SMALL:-"ta021 ta022 ta023 ta024 ta025 ta026 ta027 ta028 ta029 ta030"}
G=$(nvidia-smi -L | wc -l)  # workers of the many-worker runs: one a GPU
ALL=$(seq -s, 0 $((G - 1)))  # every GPU, as pfsp saw them before it narrowed
run() {  # run NAME [VAR=value...] command...: one run, its JSON and process wall time
  local name=$1
  shift
  local t0 t1
  t0=$(date +%s.%N)
  env "$@" --json "$D/runs/$name.json" -q >"$D/runs/$name.log" 2>&1
  t1=$(date +%s.%N)
  echo "$name $(python3 -c "print('%.3f' % ($t1 - $t0))")" >>"$D/process_wall.txt"
}
: >"$D/process_wall.txt"
for k in 1 2 3; do
  run "solve-narrow_ta030-$k" "$B/pfsp" solve ta030 --backend gpu --ub best-known
  run "solve-all_ta030-$k" CUDA_VISIBLE_DEVICES="$ALL" "$B/pfsp" solve ta030 --backend gpu --ub best-known
done
for i in $SMALL; do
  run "solve_$i" "$B/pfsp" solve "$i" --backend gpu --ub best-known
  run "mpi1_$i" mpirun -n 2 "$B/pfsp-mpi" "$i" --backend gpu --devices 0 --ub best-known
  run "mpi${G}_$i" mpirun -n $((G + 1)) "$B/pfsp-mpi" "$i" --backend gpu --ub best-known
  run "mpi${G}-nolock_$i" mpirun -n $((G + 1)) -x PFSP_MPI_CONTEXT_LOCK=off "$B/pfsp-mpi" "$i" --backend gpu --ub best-known
  run "mpi1-all_$i" mpirun -n 2 -x CUDA_VISIBLE_DEVICES="$ALL" "$B/pfsp-mpi" "$i" --backend gpu --devices 0 --ub best-known
  run "mpi${G}-all_$i" mpirun -n $((G + 1)) -x CUDA_VISIBLE_DEVICES="$ALL" "$B/pfsp-mpi" "$i" --backend gpu --ub best-known
done
python3 - "$D" <<'PY' | tee "$D/start.txt"
import collections, glob, json, os, re, sys
d = sys.argv[1]
proc = dict(l.split() for l in open(os.path.join(d, "process_wall.txt")) if l.strip())
sums = collections.defaultdict(lambda: [0, 0.0, 0.0, 0.0, set()])
lines = []
for f in sorted(glob.glob(os.path.join(d, "runs", "*.json"))):
    name = os.path.basename(f)[:-5]
    cfg, inst = name.rsplit("_", 1)
    j = json.load(open(f))
    s = sums[cfg]
    s[0] += 1; s[1] += j["time_seconds"]; s[2] += j["wall_seconds"]; s[3] += float(proc.get(name, "nan"))
    s[4].add(str(j["nodes"]["branched"]) if isinstance(j["nodes"], dict) else str(j["nodes"]))
    notes = [n for n in j.get("notes", []) if "ready" in n or "serving" in n or "CUDA_VISIBLE" in n]
    starts = []
    for n in notes:
        m = re.search(r"serving [\d.]+ s from ([\d.]+) s", n)
        if m: starts.append("rank 0 serving from " + m.group(1))
        starts += ["ready " + r for r in re.findall(r"ready ([\d.]+) s after its start", n)]
        starts += ["contexts " + r for r in re.findall(r"contexts at ([\d.]+) s", n)]
    lines.append(f"{name}: search {j['time_seconds']:.3f} s, wall {j['wall_seconds']:.3f} s, process {proc.get(name)} s; "
                 + "; ".join(starts))
print("| configuration | runs | search (s) | JSON wall (s) | process wall (s) |")
print("| --- | --- | --- | --- | --- |")
for cfg, (n, search, wall, pw, _) in sorted(sums.items()):
    print(f"| {cfg} | {n} | {search:.3f} | {wall:.3f} | {pw:.3f} |")
print()
print("\n".join(lines))
PY
(cd "$D" && tar czf runs.tgz runs && rm -rf runs)
