#!/usr/bin/env bash
# Run ON a 4-GPU machine (device call: kind nvidia-h100-x4, carry [".carry/t"]) after
# `scripts/carry_gpu_tests.sh pack` here: the chain's LB2 pass over the parents' listed orders
# (--lb2-orders, decision 013 option J) against the walk, then the start of pfsp-mpi's workers.
#   1. scripts/device_lb2_table.sh with AB_CONFIGS (default the walk, the lists in shared memory and
#      in global memory: "walk|--lb2-orders off;shared|--lb2-orders shared;global|--lb2-orders global"):
#      GPU 0 the gpu-labelled tests, GPU 1 compute-sanitizer (SANITIZE_SKIP '_rounds$'), GPUs 2-3
#      8-s slices of ta051-ta060 from the best known + 1 and whole proofs from the optimum
#   2. scripts/device_mpi_start.sh on every GPU (issue 22 item 6; MPI_START=0 leaves it out)
#   3. cuobjdump's registers and shared memory of the LB2 kernels
# Each step is cut by `timeout`. Writes under $OUT (at most eight files come back): summary.txt
# (the tests', the sanitizer's and the slices' summaries, the exact proofs, the MPI start table),
# resources.txt and all.tgz (every log and JSON).
set -u -o pipefail
ROOT=$PWD
OUT=${OUT:-$ROOT/out/device}
mkdir -p "$OUT"
AB_CONFIGS=${AB_CONFIGS:-"walk|--lb2-orders off;shared|--lb2-orders shared;global|--lb2-orders global"} SANITIZE_SKIP=${SANITIZE_SKIP-_rounds\$} \
  timeout "${STEP1_S:-400}" bash scripts/device_lb2_table.sh >"$OUT/lb2.txt" 2>&1
echo "step 1 rc=$?" >>"$OUT/lb2.txt"
if [[ ${MPI_START:-1} == 1 ]]; then
  timeout "${STEP2_S:-150}" bash scripts/device_mpi_start.sh >"$OUT/mpi_start.txt" 2>&1
  echo "step 2 rc=$?" >>"$OUT/mpi_start.txt"
fi
cuobjdump --dump-resource-usage build/carry/pfsp 2>&1 | grep -A1 -E 'lb2_orders_kernel|lb2_listed_walk|lb2_lists_fill|parts_children_kernelILNS_10bound_kindE2E' |
  grep -E 'Function|REG' | sed 's/^ *//' | cut -c1-220 >"$OUT/resources.txt"
{
  cat "$OUT/gputests/summary.txt" "$OUT/sanitize/summary.txt" 2>&1
  echo
  cat "$OUT/ab/compare.txt" "$OUT/ab/exact.txt" "$OUT/ab/bound_steps.txt" 2>&1
  echo
  cat "$OUT/start/start.txt" 2>&1
} >"$OUT/summary.txt"
(cd "$OUT" && tar czf all.tgz --exclude=all.tgz --exclude=summary.txt --exclude=resources.txt . 2>/dev/null)
find "$OUT" -mindepth 1 -maxdepth 1 ! -name all.tgz ! -name summary.txt ! -name resources.txt -exec rm -rf {} +
cat "$OUT/summary.txt"
