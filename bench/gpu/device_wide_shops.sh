#!/usr/bin/env bash
# Issue 46 (wide and huge shops, VRF) on one GPU machine, from the repository root, with binaries
# built here for sm_90 and carried (bench/gpu/device_wide_shops.sh pack; device call with carry
# [".carry/w", "shared"], plus ".carry/pbb" for the race stage; the VRF data under shared/data/vrf). Writes under $OUT:
#   summary.txt    the GPU, the commit, each stage's status
#   tests.txt      the GPU test executables' verdicts (logs under logs/)
#   runs.jsonl     one line per pfsp run: instance, label, rc, status, makespan, lower bound, nodes,
#                  seconds, process wall, peak RSS (MiB), the GPU's peak memory used (MiB, sampled
#                  every 0.2 s by nvidia-smi), the memory note of the device loop
#   race/          the PBB race (bench/gpu/race_pbb.sh), when STAGES has race
#   vrf-gpu-LABEL/, vrf-cpu/  the VRF sweeps (bench/gpu/vrf_sweep.sh), when STAGES has sweep
#   sanitize.txt   compute-sanitizer's summaries at 60 machines, when STAGES has sanitize
# Stages (STAGES, comma-separated): tests, sanitize, rates, memory, race, sweep.
#   rates:  node rates at 100x20, 100x40 and 100x60 (VFR100_*_2..3), LB1 and the chain, from the
#           bounds file's upper bound, RATE_SECONDS each, no incumbent engine;
#   memory: VFR800_60_2 and VFR500_60_2, MEMORY_SECONDS with the defaults and with the former
#           behaviour (--stack-margin 0 --hopeless-share 0): peak RSS, GPU memory, the result;
#   sweep:  SWEEP_INSTANCES at SWEEP_LIMIT seconds on the GPU (cores 0-7), one at a time, under
#           each of SWEEP_CONFIGS ("label:args|label:args", default "default:"; alternating), and beside it CPU_INSTANCES with --backend cpu-mt --threads 2, four at a time on
#           cores 8-15.
set -u -o pipefail
ROOT=$PWD
B=${BUILD:-$ROOT/build/carry}
OUT=${OUT:-$ROOT/out/wide}
STAGES=${STAGES:-tests,rates,memory}
RATE_SECONDS=${RATE_SECONDS:-8}
MEMORY_SECONDS=${MEMORY_SECONDS:-20}
mkdir -p "$OUT/logs"
has() { [[ ",$STAGES," == *",$1,"* ]]; }
say() { echo "== $(date +%T) $*" | tee -a "$OUT/summary.txt"; }
BINS=(pfsp test_gpu_resident test_gpu_backends test_gpu_memory test_node_spill test_gpu_bounds test_gpu_time_limits)
TESTS=${TESTS:-test_gpu_resident test_gpu_backends test_gpu_memory test_node_spill}

. "$(dirname "$0")/carried_binaries.sh"
if [[ ${1:-} == pack ]]; then
  pack_binaries .carry/w "$B" "${BINS[@]}"
  exit 0
fi
unpack_binaries .carry/w "$B" "${BINS[@]}"
[ -e ../shared ] || ln -s "$ROOT/shared" ../shared
PFSP=$B/pfsp
say "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1), commit ${PFSP_COMMIT:-?}, $(nproc) cores, $(free -g | awk '/Mem:/{print $2 " GiB, " $7 " GiB available"}')"

VRF=$(mktemp -d)
for a in "$ROOT"/shared/data/vrf/*.tar.xz; do tar xJf "$a" -C "$VRF"; done
file_of() { find "$VRF" -type f \( -name "$1" -o -name "$1_Gap.txt" -o -name "$1.txt" \) | head -1; }
ub_of() { grep "^$1," "$ROOT/shared/data/vrf/vrf_bounds.csv" | cut -d, -f5; }

# One pfsp run as a JSON line: name, label, then pfsp's arguments after the instance file.
run() {
  local name=$1 label=$2
  shift 2
  local f j=$OUT/logs/$name.$label.json
  f=$(file_of "$name")
  [[ -z $f ]] && { say "no file for $name"; return; }
  nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -lms 200 >"$OUT/logs/$name.$label.gpumem" 2>/dev/null &
  local smi=$! t0 t1 rc
  t0=$(date +%s.%N)
  /usr/bin/time -f %M -o "$OUT/logs/$name.$label.rss" "${PIN[@]}" "$PFSP" solve "$f" --json "$j" --no-progress -q "$@" \
    >/dev/null 2>"$OUT/logs/$name.$label.err"
  rc=$?
  t1=$(date +%s.%N)
  kill "$smi" 2>/dev/null
  wait "$smi" 2>/dev/null
  python3 - "$j" "$name" "$label" "$rc" "$t0" "$t1" "$OUT/logs/$name.$label" "$*" >>"$OUT/runs.jsonl" <<'EOF'
import json, sys
path, name, label, rc, t0, t1, base, args = sys.argv[1:]
try:
    r = json.load(open(path))
except Exception as e:
    r = {"error": str(e)}
def read(ext):
    try:
        return open(base + ext).read().split()
    except OSError:
        return []
rss = read(".rss")
gpu = [int(x) for x in read(".gpumem") if x.isdigit()]
nodes = r.get("nodes") or {}
notes = [n for n in r.get("notes", []) if "open nodes at most" in n]
print(json.dumps({"instance": name, "label": label, "args": args, "rc": int(rc), "status": r.get("status"),
                  "makespan": r.get("makespan"), "lower_bound": r.get("lower_bound"),
                  "nodes": nodes.get("branched"), "search_seconds": r.get("time_seconds"),
                  "process_wall": round(float(t1) - float(t0), 3),
                  "peak_rss_mib": round(int(rss[-1]) / 1024) if rss and rss[-1].isdigit() else None,
                  "gpu_peak_mib": max(gpu) if gpu else None, "backend": r.get("backend"),
                  "memory_note": notes[0] if notes else None, "notes": r.get("notes"), "commit": r.get("commit")}))
EOF
  tail -1 "$OUT/runs.jsonl" | cut -c1-400 | tee -a "$OUT/summary.txt"
}

if has race && [[ -d .carry/pbb ]]; then  # first, on a quiet machine
  OUT=$OUT/race BUDGET=${RACE_BUDGET:-240} bash bench/gpu/race_pbb.sh >"$OUT/logs/race.log" 2>&1
  say "race done (rc $?)"
fi

PIN=()
if has sweep && [[ -n ${CPU_INSTANCES:-} ]]; then  # the CPU runs on cores 8-15 from here on; the rest on 0-7
  OUT=$OUT/vrf-cpu PFSP=$PFSP INSTANCES=$CPU_INSTANCES LIMIT=${SWEEP_LIMIT:-60} PARALLEL=4 CORES=2 CORE_BASE=8 \
    ARGS="--backend cpu-mt --threads 2" LABEL=cpu-mt-2 bash bench/gpu/vrf_sweep.sh >"$OUT/logs/sweep-cpu.log" 2>&1 &
  CPU_SWEEP=$!
  PIN=(taskset -c 0-7)
fi

if has tests; then
  for t in $TESTS; do
    filter='*'
    [[ $t == test_gpu_memory ]] && filter=${MEMORY_FILTER:-*}
    [[ $t == test_gpu_resident ]] && filter=${RESIDENT_FILTER:-*WideShops*:*SwapDominance*:*FusedLb1DecidesAsTheDecideKernel*:*OneEngineIsDeterministic*:*CheckpointPiecesEqualTheUninterruptedSearch*:*SeveralEnginesShareTheSearch*:*KeepsTheCounters*}
    t0=$SECONDS
    timeout ${TEST_TIMEOUT:-200} "${PIN[@]}" "$B/tests/gpu/$t" --gtest_filter="$filter" >"$OUT/logs/$t.log" 2>&1
    rc=$?
    echo "$t rc=$rc $((SECONDS - t0)) s: $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$OUT/logs/$t.log" | tr '\n' ' ')" |
      tee -a "$OUT/tests.txt"
    grep -E '^\[  FAILED  \]' "$OUT/logs/$t.log" | head -8 | tee -a "$OUT/tests.txt"
  done
  say "tests done"
fi

if has sanitize; then  # 60 machines: LB1's tables in shared memory, the chain's in global memory
  f=$(file_of VFR100_60_2)
  for r in ${SANITIZE_RUNS:-lb1:memcheck lb1-lb2:memcheck lb1:racecheck}; do
    b=${r%%:*} tool=${r#*:}
    timeout ${SANITIZE_TIMEOUT:-90} compute-sanitizer --tool "$tool" --error-exitcode 9 "$PFSP" solve "$f" --bound "$b" \
      --pool-size 2048 --node-limit ${SANITIZE_NODES:-5000} --improver-threads 0 --no-progress -q \
      >"$OUT/logs/sanitize-$b-$tool.log" 2>&1
    echo "VFR100_60_2 $b $tool: rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/logs/sanitize-$b-$tool.log" | tr '\n' ' ')" |
      tee -a "$OUT/sanitize.txt"
  done
  say "sanitize done"
fi

if has rates; then
  for m in ${RATE_MACHINES:-20 40 60}; do
    for i in ${RATE_INSTANCES:-2}; do
      name=VFR100_${m}_$i
      for b in ${RATE_BOUNDS:-lb1 lb1-lb2}; do
        run "$name" "rate-$b" --bound "$b" --improver-threads 0 --ub "$(ub_of "$name")" --time-limit "$RATE_SECONDS" ${RATE_ARGS:-}
        [[ -n ${RATE_NOCAP:-} ]] && run "$name" "rate-$b-margin0" --bound "$b" --improver-threads 0 \
          --ub "$(ub_of "$name")" --time-limit "$RATE_SECONDS" --stack-margin 0
      done
    done
  done
  say "rates done"
fi

if has memory; then
  for name in ${MEMORY_INSTANCES:-VFR800_60_2 VFR500_60_2}; do
    run "$name" default --time-limit "$MEMORY_SECONDS"
    [[ ${MEMORY_FORMER:-1} == 1 ]] && run "$name" former --time-limit "$MEMORY_SECONDS" --stack-margin 0 --hopeless-share 0
  done
  say "memory done"
fi

if has sweep; then  # the GPU runs on cores 0-7 (the CPU runs, started above, on cores 8-15)
  IFS='|' read -r -a configs <<<"${SWEEP_CONFIGS:-default:}"
  for inst in ${SWEEP_INSTANCES:-VFR100_20_2}; do  # the configurations alternate, instance by instance
    for c in "${configs[@]}"; do
      OUT=$OUT/vrf-gpu-${c%%:*} PFSP=$PFSP INSTANCES=$inst LIMIT=${SWEEP_LIMIT:-60} PARALLEL=1 CORES=8 CORE_BASE=0 \
        ARGS="${c#*:}" LABEL="${c%%:*}" bash bench/gpu/vrf_sweep.sh >>"$OUT/logs/sweep-gpu.log" 2>&1
    done
  done
  say "gpu sweep done"
  [[ -n ${CPU_SWEEP:-} ]] && wait "$CPU_SWEEP" && say "cpu sweep done"
fi
rm -rf "$VRF"
# Few files come back from a device call: every logs/ folder goes into its logs.tgz.
for d in "$OUT" "$OUT"/race "$OUT"/vrf-*; do
  [[ -d $d/logs ]] && tar czf "$d/logs.tgz" -C "$d" logs && rm -rf "$d/logs"
done
