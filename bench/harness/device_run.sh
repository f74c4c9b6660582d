#!/usr/bin/env bash
# Run ON the GPU machine, from the repository root: builds pfsp for sm_90 (Release), runs the
# GPU tests, compute-sanitizer memcheck and racecheck on small GPU runs, then the benchmarks
# (bounding throughput GPU vs one CPU core; whole solves on the papers' protocol, --ub = the
# optimum, GPU vs CPU). Logs go under $OUT (default ./out/device); at most 8 files come back
# from the device tool, so the detailed logs are packed into logs_$TAG.tgz and the results
# are repeated in summary.txt.
#
#   STAGES=build,test,sanitize,bench,solve,resident,hard,prove,checkpoint,ckbench,mpi,scale,table,sweep,taillard30,autocompact,ppam,compact,strategies,queue,clock,sass,ncu bench/harness/device_run.sh
#   SOLVE_SET="ta021 ... ta030"  GPU_LOOP=host|device (solve stage; default host, the papers' model)  BOUNDS="lb2 lb1"  BACKENDS="gpu cpu-mt cpu"  CPU_LIMIT=30  GPU_LIMIT=120
#   CPU_ALL_BOUNDS=1 (also run --backend cpu with lb2)
#   PFSP_COMMIT=abc1234 (the commit stamped into results: pass the local HEAD, the copy's .git is stale)
#   GPU_ARGS="--sort host"  NCU_INSTANCES=ta021,ta051  TABLE_SET=ta030 TABLE_POOLS="4096 262144"  JOBS=16
#   TAILLARD_LIMIT=30 TAILLARD_SET="ta001 ta112" (stage taillard30: bench/harness/sweep_taillard.sh over every visible GPU)
#
# Dependencies the machine lacks (CLI11, nlohmann-json, GoogleTest) are carried as .deb files
# in .deps/ and unpacked into .deps/root (see docs/gpu_backend.md).
set -u -o pipefail
ROOT=$PWD
OUT=${OUT:-$ROOT/out/device}
TAG=${TAG:-run}
LOGS=$OUT/logs_$TAG
mkdir -p "$LOGS"
STAGES=${STAGES:-build,test,sanitize,bench,solve}
JOBS=${JOBS:-$(nproc)}
BUILD=${BUILD:-$ROOT/build/device}
SUMMARY=$OUT/summary.txt
has() { [[ ",$STAGES," == *",$1,"* ]]; }
say() { echo "== $(date +%T) $*" | tee -a "$SUMMARY"; }
run_logged() {  # name timeout cmd...: runs, logs to $LOGS/name.log, records the status
  local name=$1 limit=$2; shift 2
  local t0=$SECONDS
  timeout "$limit" "$@" >"$LOGS/$name.log" 2>&1
  local rc=$?
  say "$name: rc=$rc ($((SECONDS - t0)) s)"
  return $rc
}
finish() {
  (cd "$LOGS" && tar czf "$OUT/logs_${TAG}.tgz" . 2>/dev/null) && rm -rf "$LOGS"
  say "done"
}
trap finish EXIT

say "device: $(nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader 2>/dev/null)"
say "host: $(nproc) cores ($(lscpu 2>/dev/null | sed -n "s/^Model name: *//p" | head -1)), $(uname -r); nvcc $(nvcc --version | grep -o 'release [0-9.]*'); cmake $(cmake --version | head -1 | cut -d' ' -f3)"
GIT=(git -c safe.directory="*")
# PFSP_COMMIT: the commit of the tree sent (the device tool's copy of .git can be stale).
say "commit: ${PFSP_COMMIT:-$("${GIT[@]}" rev-parse --short HEAD 2>&1 | tail -1) ($("${GIT[@]}" status --porcelain 2>/dev/null | grep -c . || true) files differ from it)}"

# --- dependencies carried as .deb files --------------------------------------------------------
PREFIX=$ROOT/.deps/root/usr
if ls .deps/*.deb >/dev/null 2>&1; then
  mkdir -p .deps/root
  for f in .deps/*.deb; do dpkg -x "$f" .deps/root; done
fi
for c in GTestConfig.cmake CLI11Config.cmake nlohmann_jsonConfig.cmake; do
  say "dep $c: $(find "$PREFIX" -name "$c" 2>/dev/null | head -1)"
done

CONFIGURE=(cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90
  -DPFSP_SHARED_DATA_DIR="$ROOT/shared/data" -DPFSP_COMMIT="${PFSP_COMMIT:-}")
TARGETS=${TARGETS:-"pfsp pfsp_bench_checkpoint pfsp_bench_solve pfsp_gpu_bench pfsp_gpu_clock test_gpu_bounds test_gpu_solver test_gpu_strategies test_gpu_resident test_gpu_host_loop test_gpu_plan test_gpu_backends test_gpu_memory test_node_spill test_gpu_walkers test_gpu_time_limits test_divergence_gpu pfsp_bench_heuristic"}

if has build; then
  run_logged configure 300 "${CONFIGURE[@]}" -DCMAKE_PREFIX_PATH="$PREFIX"
  if ! run_logged build 480 cmake --build "$BUILD" -j"$JOBS" --target $TARGETS; then
    # The Debian libgtest.a may not link with this compiler: build GoogleTest from its sources.
    if grep -q "gtest" "$LOGS/build.log"; then
      say "rebuilding GoogleTest from .deps sources"
      run_logged gtest 300 bash -c "cmake -S $PREFIX/src/googletest -B /tmp/gtest-build -DCMAKE_INSTALL_PREFIX=/tmp/gtest \
        -DCMAKE_BUILD_TYPE=Release && cmake --build /tmp/gtest-build -j$JOBS && cmake --install /tmp/gtest-build"
      rm -rf "$BUILD"
      run_logged configure2 300 "${CONFIGURE[@]}" -DCMAKE_PREFIX_PATH="/tmp/gtest;$PREFIX"
      run_logged build2 480 cmake --build "$BUILD" -j"$JOBS" --target $TARGETS || exit 1
    else
      tail -40 "$LOGS/build.log"
      exit 1
    fi
  fi
  # pfsp-mpi exists when CMake found MPI on this machine (stage mpi).
  if [[ ${BUILD_MPI:-1} == 0 ]]; then
    say "BUILD_MPI=0: pfsp-mpi not built"
  elif grep -q "MPI (pfsp-mpi) ON" "$LOGS"/configure*.log 2>/dev/null; then
    run_logged build_mpi 300 cmake --build "$BUILD" -j"$JOBS" --target pfsp-mpi test_mpi_frontier test_mpi_ranks
  else
    say "no MPI found by CMake: pfsp-mpi not built"
  fi
  cuobjdump -res-usage "$BUILD"/src/gpu/libpfsp_gpu.a 2>/dev/null | grep -A1 bound_children | grep -o 'REG:[0-9]* STACK:[0-9]* SHARED:[0-9]* LOCAL:[0-9]*' |
    sort | uniq -c >"$LOGS/resources.txt"
fi
PFSP=$BUILD/pfsp
BENCH=$BUILD/pfsp_gpu_bench

if has test; then
  (cd "$BUILD" && run_logged ctest_gpu 400 ctest -L gpu --output-on-failure --timeout 300)
  (cd "$BUILD" && run_logged ctest_host_loop 120 ctest -R '^GpuHostLoop' --output-on-failure)
  grep -E "tests passed|tests failed|Failed|\*\*\*" "$LOGS/ctest_gpu.log" | tail -15 | tee -a "$SUMMARY"
fi

if has sanitize; then
  T=$BUILD/tests/gpu/test_gpu_bounds
  F='GpuBounds.TwoSlotsInFlight:GpuBounds.HostAndDeviceSortGiveTheSameStableOrder:GpuBounds.OneDirectionRulesBoundOnlyTheirDirection'
  run_logged memcheck 300 compute-sanitizer --tool memcheck --error-exitcode 9 "$T" --gtest_filter="$F"
  run_logged racecheck 300 compute-sanitizer --tool racecheck --error-exitcode 9 "$T" --gtest_filter=GpuBounds.TwoSlotsInFlight
  S=$BUILD/tests/gpu/test_gpu_strategies
  run_logged memcheck_strategies 300 compute-sanitizer --tool memcheck --error-exitcode 9 "$S" \
    --gtest_filter='GpuStrategies.TwoSlotsInFlight:GpuStrategies.RemapOrderIsALamPermutation'
  run_logged racecheck_strategies 300 compute-sanitizer --tool racecheck --error-exitcode 9 "$S" \
    --gtest_filter='GpuStrategies.TwoSlotsInFlight'
  run_logged memcheck_solve_strategies 300 bash -c "for st in persistent context-switch split remap; do \
    compute-sanitizer --tool memcheck --error-exitcode 9 $PFSP solve ta003 --backend gpu --bound lb1-lb2 --no-neh \
    --threads 4 --pool-size 4096 --threads-per-block 128 --no-progress -q --gpu-strategy \$st || exit 9; done"
  run_logged memcheck_solve 300 compute-sanitizer --tool memcheck --error-exitcode 9 "$PFSP" solve ta003 --backend gpu \
    --gpu-loop host --bound lb2 --no-neh --threads 4 --pool-size 4096 --threads-per-block 128 --no-progress
  run_logged memcheck_resident 300 bash -c "for b in lb1 lb2 lb1-lb2; do compute-sanitizer --tool memcheck \
    --error-exitcode 9 $PFSP solve ta003 --backend gpu --gpu-loop device --bound \$b --no-neh --pool-size 4096 \
    --sort device --no-progress -q || exit 9; done"
  run_logged memcheck_resident_engines 300 compute-sanitizer --tool memcheck --error-exitcode 9 "$PFSP" solve ta017 \
    --backend gpu --gpu-loop device --devices 0,0,0 --bound lb2 --no-neh --pool-size 16384 --no-progress -q
  run_logged racecheck_resident 300 compute-sanitizer --tool racecheck --error-exitcode 9 "$PFSP" solve ta001 \
    --backend gpu --gpu-loop device --bound lb2 --no-neh --pool-size 4096 --no-progress -q
  grep -hE "ERROR SUMMARY|RACECHECK SUMMARY" "$LOGS"/memcheck*.log "$LOGS"/racecheck*.log | tee -a "$SUMMARY"
fi

if has bench; then
  run_logged bench_lb2 300 "$BENCH" --instances ta021,ta051 --bound lb2 --children 262144 --reps 20
  cp "$LOGS/bench_lb2.log" "$OUT/bench_bounds_lb2.txt"
  run_logged bench_lb1 200 "$BENCH" --instances ta021,ta051 --bound lb1 --children 262144 --reps 20 \
    --kernels branchless --memory shared --sort none,device
fi

if has solve; then
  SET=${SOLVE_SET:-"ta021 ta022 ta023 ta024 ta025 ta026 ta027 ta028 ta029 ta030 ta014"}
  GPU_BOUNDS=${BOUNDS:-"lb2 lb1"}
  GPU_ARGS=${GPU_ARGS:-""}
  CPU_LIMIT=${CPU_LIMIT:-30}
  res=$LOGS/solve.txt
  printf "%-6s %-8s %-34s %-13s %8s %12s %12s\n" instance bound backend status seconds branched bounds >"$res"
  for inst in $SET; do
    ub=$("$PFSP" info "$inst" | sed -n 's/.*best known *lb [0-9]*, ub \([0-9]*\).*/\1/p')
    for b in $GPU_BOUNDS; do
      for be in ${BACKENDS:-gpu cpu-mt cpu}; do
        limit=${GPU_LIMIT:-120}
        [[ $be != gpu ]] && limit=$CPU_LIMIT
        [[ $be == cpu && $b != lb1 && -z ${CPU_ALL_BOUNDS:-} ]] && continue
        json=$LOGS/solve_${inst}_${b}_${be}.json
        args=(solve "$inst" --backend "$be" --bound "$b" --ub "$ub" --no-progress --time-limit "$limit" --json "$json" --profile)
        [[ $be == gpu ]] && args+=(--gpu-loop "${GPU_LOOP:-host}" $GPU_ARGS)
        timeout $((limit + 30)) "$PFSP" "${args[@]}" >"$LOGS/solve_${inst}_${b}_${be}.log" 2>&1
        python3 - "$json" "$inst" "$b" "$be" >>"$res" <<'PY'
import json, sys
try:
    j = json.load(open(sys.argv[1]))
    print("%-6s %-8s %-34s %-13s %8.3f %12d %12d" % (sys.argv[2], sys.argv[3], (sys.argv[4] + " " + j["backend"])[:34],
          j["status"], j["time_seconds"], j["nodes"]["branched"], j["nodes"]["bounds"]))
except Exception as e:
    print("%-6s %-8s %-34s failed (%s)" % (sys.argv[2], sys.argv[3], sys.argv[4], e))
PY
      done
    done
  done
  cat "$res" | tee -a "$SUMMARY"
fi

# The whole loop on the device (--gpu-loop device) against the host loop: whole proofs with the
# optimum as ub. RESIDENT_RUNS: "instance:bound:branching" triples; RESIDENT_CONFIGS: "label|extra
# args" entries separated by ';' (the label names the row); RESIDENT_LIMIT seconds a run.
if has resident; then
  res=$LOGS/resident.txt
  printf "%-6s %-7s %-10s %-12s %-13s %8s %12s %12s\n" instance bound branching config status seconds branched bounds >"$res"
  CONFIGS=${RESIDENT_CONFIGS:-"host|--gpu-loop host;dev256k|--gpu-loop device --pool-size 262144 --threads-per-block 256;dev1m|--gpu-loop device --pool-size 1048576 --threads-per-block 256;dev4m|--gpu-loop device --pool-size 4194304 --threads-per-block 256"}
  for run in ${RESIDENT_RUNS:-ta021:lb2:min-min ta030:lb2:forward ta029:lb2:forward ta022:lb2:forward ta014:lb2:forward ta030:lb1:forward ta030:lb1:min-min}; do
    IFS=: read -r inst b br <<<"$run"
    ub=$("$PFSP" info "$inst" | sed -n 's/.*best known *lb [0-9]*, ub \([0-9]*\).*/\1/p')
    IFS=';' read -ra cfgs <<<"$CONFIGS"
    for c in "${cfgs[@]}"; do
      label=${c%%|*} extra=${c#*|}
      json=$LOGS/resident_${inst}_${b}_${br}_${label}.json
      timeout $((${RESIDENT_LIMIT:-60} + 30)) "$PFSP" solve "$inst" --backend gpu --bound "$b" --branching "$br" --ub "$ub" \
        --time-limit "${RESIDENT_LIMIT:-60}" --no-progress -q --json "$json" $extra >"$LOGS/resident_${inst}_${b}_${br}_${label}.log" 2>&1
      python3 - "$json" "$inst" "$b" "$br" "$label" >>"$res" <<'PY'
import json, sys
a = sys.argv
try:
    j = json.load(open(a[1]))
    print("%-6s %-7s %-10s %-12s %-13s %8.3f %12d %12d" % (a[2], a[3], a[4], a[5], j["status"], j["time_seconds"],
          j["nodes"]["branched"], j["nodes"]["bounds"]))
except Exception as e:
    print("%-6s %-7s %-10s %-12s failed (%s)" % (a[2], a[3], a[4], a[5], e))
PY
    done
  done
  cat "$res" | tee -a "$SUMMARY"
  cp "$res" "$OUT/resident.txt"
  # Where a device iteration's time goes (--profile: phases timed with events).
  for pool in ${RESIDENT_PROFILE_POOLS:-262144 1048576}; do
    "$PFSP" solve "${RESIDENT_PROFILE_INSTANCE:-ta021}" --backend gpu --gpu-loop device --bound lb2 --pool-size "$pool" \
      --threads-per-block 256 --ub "$("$PFSP" info "${RESIDENT_PROFILE_INSTANCE:-ta021}" | sed -n 's/.*best known *lb [0-9]*, ub \([0-9]*\).*/\1/p')" \
      --profile --no-progress 2>&1 | tee -a "$LOGS/resident_profile.log" | grep -E "profile|iterations|time" | tee -a "$SUMMARY"
  done
fi

# Hard-instance slices (issue 10): fixed-time slices from best known + 1 on 20x20 .. 200x20,
# per configuration (HARD_CONFIGS: "label|args" entries separated by ';'), each run's JSON kept;
# bench/hard_table.py prints the table (nodes/s, bounds/s, gap) and writes hard.json. With
# HARD_PROFILE=S, each configuration also runs S seconds with --profile (phases timed by events).
if has hard; then
  HCONFIGS=${HARD_CONFIGS:-"recompute|--loop-bound recompute;parts|--loop-bound parts"}
  for inst in ${HARD_SET:-ta021 ta056 ta081 ta101}; do
    ub=$("$PFSP" info "$inst" | sed -n 's/.*best known *lb [0-9]*, ub \([0-9]*\).*/\1/p')
    IFS=';' read -ra cfgs <<<"$HCONFIGS"
    for c in "${cfgs[@]}"; do
      label=${c%%|*} extra=${c#*|}
      uarg=(--ub $((ub + 1)))
      [[ ${HARD_UB:-known1} == none ]] && uarg=()
      timeout $((${HARD_LIMIT:-10} + 60)) "$PFSP" solve "$inst" --backend gpu "${uarg[@]}" --time-limit "${HARD_LIMIT:-10}" \
        --no-progress -q --json "$LOGS/hard_${inst}_${label}.json" $extra >"$LOGS/hard_${inst}_${label}.log" 2>&1
      if [[ -n ${HARD_PROFILE:-} ]]; then
        timeout $((HARD_PROFILE + 60)) "$PFSP" solve "$inst" --backend gpu "${uarg[@]}" --time-limit "$HARD_PROFILE" \
          --no-progress -q --profile --json "$LOGS/hardprof_${inst}_${label}.json" $extra >"$LOGS/hardprof_${inst}_${label}.log" 2>&1
      fi
    done
  done
  python3 "$ROOT/bench/hard_table.py" --out "$OUT/hard.json" "$LOGS"/hard_*.log | tee "$OUT/hard.txt" | tee -a "$SUMMARY"
  if [[ -n ${HARD_PROFILE:-} ]]; then
    python3 "$ROOT/bench/hard_table.py" --profile "$LOGS"/hardprof_*.log | tee "$OUT/hard_profile.txt" | tee -a "$SUMMARY"
  fi
fi

# Nsight Compute on the device loop's kernels (issue 10): per kernel of a few full iterations
# (the graph's kernel nodes: a --profile run's profiled iterations exceed iteration_max_s and the
# coordinator cuts their pools, decision 013), time, DRAM bytes and throughput, SIMT efficiency
# (threads per warp instruction / 32), issue slots; NCU_LOOP_SET instances from best known + 1.
# The per-phase roofline: bench/harness/device_roofline.sh.
if has nculoop; then
  mkdir -p "$LOGS/nculoop"
  for inst in ${NCU_LOOP_SET:-ta021 ta056 ta081 ta101}; do
    ub=$("$PFSP" info "$inst" | sed -n 's/.*best known *lb [0-9]*, ub \([0-9]*\).*/\1/p')
    timeout 200 ncu --launch-skip "${NCU_LOOP_SKIP:-6000}" --launch-count "${NCU_LOOP_COUNT:-24}" --csv \
      --metrics gpu__time_duration.sum,dram__bytes.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,smsp__thread_inst_executed_per_inst_executed.ratio,sm__inst_executed.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed \
      "$PFSP" solve "$inst" --backend gpu --ub $((ub + 1)) --time-limit 20 --no-progress -q ${NCU_LOOP_ARGS:-} \
      >"$LOGS/nculoop/$inst.csv" 2>"$LOGS/nculoop/$inst.err"
    say "ncu loop $inst: rc=$?"
  done
  python3 "$ROOT/bench/ncu_loop_table.py" "$LOGS"/nculoop/*.csv | tee "$OUT/ncu_loop.txt" | tee -a "$SUMMARY"
fi

# Taillard proofs from the start heuristic (no --ub), each optimum checked against the table:
# PROVE_FIRST..PROVE_LAST with each of PROVE_CONFIGS ("label|args" separated by ';').
if has prove; then
  IFS=';' read -ra cfgs <<<"${PROVE_CONFIGS:-device|--backend gpu --bound lb2 --gpu-loop device;host|--backend gpu --bound lb2 --gpu-loop host}"
  for c in "${cfgs[@]}"; do
    label=${c%%|*} extra=${c#*|}
    pub=
    [[ $label == *-opt ]] && pub=optimum  # a label ending in -opt starts from --ub = the optimum
    PFSP_BIN=$PFSP PROVE_UB=$pub PROVE_JSON_DIR=$LOGS/prove_json_$label run_logged "prove_$label" 500 scripts/prove_taillard.sh "${PROVE_FIRST:-1}" "${PROVE_LAST:-30}" $extra
    cp "$LOGS/prove_$label.log" "$OUT/prove_$label.md"
    awk -F'|' 'NR > 2 {t += $7; w += $8} END {printf "prove total: %.2f s search, %.2f s wall\n", t, w}' "$LOGS/prove_$label.log" | tee -a "$SUMMARY"
    python3 "$ROOT/bench/estimate_check.py" "$LOGS/prove_json_$label"/*.json >"$OUT/estimate_$label.txt" 2>&1
  done
fi

# Checkpoint/restart of the GPU backend through the CLI: Ctrl-C (SIGINT) after a few seconds
# writes the checkpoint and prints the best schedule and bound; --resume finishes the proof.
if has checkpoint; then
  ck=$LOGS/ck_${CK_INSTANCE:-ta023}.txt
  # One SIGINT to pfsp alone (timeout(1) would signal its process group too: a second SIGINT kills).
  run_logged checkpoint_interrupt 60 bash -c "\"$PFSP\" solve ${CK_INSTANCE:-ta023} --backend gpu --bound lb2 \
    --checkpoint \"$ck\" --checkpoint-interval 1 --no-progress ${CK_ARGS:-} & pid=\$!; sleep ${CK_SECONDS:-3}; \
    kill -INT \$pid; wait \$pid"
  run_logged checkpoint_resume 120 "$PFSP" solve "${CK_INSTANCE:-ta023}" --backend gpu --resume "$ck" --no-progress \
    ${CK_RESUME_ARGS:-}
  grep -hE "^(status|makespan|resume|nodes|time|note)" "$LOGS/checkpoint_interrupt.log" "$LOGS/checkpoint_resume.log" | tee -a "$SUMMARY"
  head -c 600 "$ck" >>"$LOGS/checkpoint_resume.log"
fi

# Binary and text checkpoints' save and load times on this machine's disk (issue 10).
if has ckbench; then
  run_logged ckbench 400 "$BUILD/pfsp_bench_checkpoint" --nodes "${CKB_NODES:-1000000,10000000,50000000}" \
    --dir "${CKB_DIR:-$BUILD}" --json "$OUT/bench_checkpoint.json" --commit "${PFSP_COMMIT:-}"
  tail -20 "$LOGS/ckbench.log" | tee -a "$SUMMARY"
fi

# pfsp-mpi on this machine: the MPI tests, then ranks whose chunks run on the GPU's device loop
# (the ranks share the machine's GPUs in turn).
if has mpi && [ -x "$BUILD/pfsp-mpi" ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
  (cd "$BUILD" && run_logged ctest_mpi 400 ctest -L mpi --output-on-failure)
  for spec in ${MPI_RUNS:-"2:ta021:lb2:--ub 2297" "3:ta023:lb2:" "1:ta023:lb2:"}; do
    IFS=: read -r ranks inst b extra <<<"$spec"
    run_logged "mpi_${ranks}_${inst}" 300 mpirun -n "$ranks" --oversubscribe "$BUILD/pfsp-mpi" "$inst" --bound "$b" \
      --local-backend gpu --branching min-min $extra
    grep -hE "^(status|makespan|nodes|time|note)" "$LOGS/mpi_${ranks}_${inst}.log" | tee -a "$SUMMARY"
  done
fi

# Strong scaling over this machine's GPUs (issue 11): for k in SCALE_GPUS (those <= the GPUs
# present), `pfsp solve --devices 0..k-1` and `mpirun -n k+1 pfsp-mpi --backend gpu` (rank 0 hands
# out chunks, one worker rank per GPU) on SCALE_PROVE (from --ub = the optimum: every k explores
# the same tree) and SCALE_SLICE instances for SCALE_LIMIT seconds from best known + 1 (nodes/s).
# Each run's JSON is kept; bench/scale_table.py prints efficiency T1/(k Tk) and idle shares.
if has scale; then
  ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
  mkdir -p "$LOGS/scale"
  for k in ${SCALE_GPUS:-1 2 4 8}; do
    ((k > ngpu)) && continue
    devs=$(seq -s, 0 $((k - 1)))
    for inst in ${SCALE_PROVE:-ta021 ta022 ta023 ta024 ta025 ta026 ta027 ta028 ta029 ta030} ${SCALE_SLICE:-ta056}; do
      ub=$("$PFSP" info "$inst" | sed -n 's/.*best known *lb [0-9]*, ub \([0-9]*\).*/\1/p')
      lim=() uarg=(--ub "$ub")
      if [[ " ${SCALE_SLICE:-ta056} " == *" $inst "* ]]; then lim=(--time-limit "${SCALE_LIMIT:-30}"); uarg=(--ub $((ub + 1))); fi
      for front in ${SCALE_FRONTS:-devices mpi}; do
        [[ $front == mpi && ! -x "$BUILD/pfsp-mpi" ]] && continue
        j=$LOGS/scale/${front}_g${k}_${inst}.json
        if [[ $front == devices ]]; then
          timeout 600 "$PFSP" solve "$inst" --backend gpu --devices "$devs" "${uarg[@]}" "${lim[@]}" --no-progress -q \
            --json "$j" ${SCALE_ARGS:-} >"${j%.json}.log" 2>&1
        else
          CUDA_VISIBLE_DEVICES=$devs timeout 600 mpirun -n $((k + 1)) --oversubscribe "$BUILD/pfsp-mpi" "$inst" --backend gpu \
            "${uarg[@]}" "${lim[@]}" -q --json "$j" ${SCALE_MPI_ARGS:-} >"${j%.json}.log" 2>&1
        fi
        say "scale $front k=$k $inst: rc=$?"
      done
    done
  done
  python3 "$ROOT/bench/scale_table.py" --out "$OUT/scale.json" --commit "${PFSP_COMMIT:-}" \
    --device "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" "$LOGS"/scale/*.json \
    | tee "$OUT/scale.txt" | tee -a "$SUMMARY"
fi

# The papers' Tables III-V on one instance: whole proofs (--ub = optimum) per pool size, kernel
# variant and sort, everything else fixed (hybrid selection, 2 streams, tables in shared memory).
if has table; then
  res=$LOGS/table.txt
  printf "%-6s %-5s %8s %-10s %-6s %-6s %-13s %8s %14s\n" instance bound pool kernel sort memory status seconds children/s >"$res"
  for inst in ${TABLE_SET:-ta030}; do
    ub=$("$PFSP" info "$inst" | sed -n 's/.*best known *lb [0-9]*, ub \([0-9]*\).*/\1/p')
    for pool in ${TABLE_POOLS:-4096 16384 65536 262144}; do
      for k in ${TABLE_KERNELS:-plain refactored branchless}; do
        for srt in ${TABLE_SORTS:-none device}; do
          for mem in ${TABLE_MEMORY:-shared}; do
            json=$LOGS/table_${inst}_${pool}_${k}_${srt}_${mem}.json
            timeout 150 "$PFSP" solve "$inst" --backend gpu --gpu-loop host --bound "${TABLE_BOUND:-lb2}" --ub "$ub" --pool-size "$pool" \
              --threads-per-block 256 --kernel "$k" --sort "$srt" --memory "$mem" --time-limit 120 --no-progress -q \
              --json "$json" >/dev/null 2>&1
            python3 - "$json" "$inst" "${TABLE_BOUND:-lb2}" "$pool" "$k" "$srt" "$mem" >>"$res" <<'PY'
import json, sys
a = sys.argv
try:
    j = json.load(open(a[1]))
    print("%-6s %-5s %8s %-10s %-6s %-6s %-13s %8.3f %14.0f" % (a[2], a[3], a[4], a[5], a[6], a[7], j["status"],
          j["time_seconds"], j["nodes"]["bounds"] / max(j["time_seconds"], 1e-9)))
except Exception as e:
    print("%-6s %-5s %8s %-10s %-6s %-6s failed (%s)" % (a[2], a[3], a[4], a[5], a[6], a[7], e))
PY
          done
        done
      done
    done
  done
  cat "$res" | tee -a "$SUMMARY"
fi

# Tables III-V as bounding throughput over one CPU core, per pool size and instance size (the
# papers' 20x20 ... 200x20 plus 500x20): pfsp_gpu_bench on pools of random parents, LB2, ub =
# optimum, 256 threads a block, tables in shared memory where they fit. III = plain unsorted,
# IV = plain sorted, V = refactored sorted (and unsorted).
if has sweep; then
  res=$LOGS/sweep.txt
  : >"$res"
  for inst in ${SWEEP_SET:-ta021 ta051 ta081 ta101 ta111}; do
    for pool in ${SWEEP_POOLS:-4096 16384 65536 262144}; do
      timeout 300 "$BENCH" --instances "$inst" --bound lb2 --children "$pool" --reps 10 --kernels plain,refactored,branchless \
        --memory shared --sort none,device --tpb 256 --cpu-seconds 1 ${SWEEP_ARGS:-} >"$LOGS/sweep_${inst}_${pool}.log" 2>&1
      say "sweep $inst $pool: rc=$?"
      grep -E '^\{' "$LOGS/sweep_${inst}_${pool}.log" >>"$res"
    done
  done
  cp "$res" "$OUT/sweep.jsonl"
  # The tables as figures beside the papers' numbers (docs/plots/): SVGs and a markdown table.
  mkdir -p "$LOGS/plots"
  python3 bench/harness/plot_tables.py "$res" --out "$LOGS/plots" >"$LOGS/plots/tables_iii_v.md" 2>&1
  say "plot_tables: rc=$?"
fi

# Issue 21's check: every Taillard instance (or TAILLARD_SET) for TAILLARD_LIMIT (30) seconds with
# the default options, one process per visible GPU (bench/harness/sweep_taillard.sh); each must end
# with exit code 0 or 3 within its limit + max(1 s, 5 %). sweep.tsv, sweep.json and
# sweep_logs.tgz go to $OUT.
if has taillard30; then
  OUT=$OUT PFSP=$PFSP LIMIT=${TAILLARD_LIMIT:-30} INSTANCES=${TAILLARD_SET:-} bench/harness/sweep_taillard.sh \
    >"$LOGS/taillard30.log" 2>&1
  rc=$?
  cp "$OUT/sweep/sweep.tsv" "$OUT/sweep/sweep.json" "$OUT/" 2>/dev/null
  rm -rf "$OUT/sweep"
  say "taillard30: rc=$rc ($(tail -1 "$LOGS/taillard30.log"))"
fi

# --compact-times auto (the default) on 200x20: the whole solver, 10 s from the root, auto against
# int tables (bounds per second; same tree order, so the counts compare).
if has autocompact; then
  res=$LOGS/autocompact.txt
  for inst in ${AUTOCOMPACT_SET:-ta101 ta021}; do
    ub=$("$PFSP" info "$inst" | sed -n 's/.*best known *lb [0-9]*, ub \([0-9]*\).*/\1/p')
    for mode in auto off; do
      "$PFSP" solve "$inst" --backend gpu --gpu-loop host --bound lb2 --ub "$ub" --time-limit 10 --no-progress --compact-times="$mode" \
        --json "$LOGS/autocompact_${inst}_$mode.json" 2>&1 | grep -E "^(options|nodes|time)" | sed "s/^/$inst $mode /" >>"$res"
    done
  done
  cat "$res" | tee -a "$SUMMARY"
fi

# CCPE Fig. 3's clock() measurement: pfsp_gpu_clock's cycles per divergent region (work per lane,
# cycles per warp, SIMT efficiency), unsorted vs sorted, plain vs branchless, ub = optimum vs none.
if has clock; then
  run_logged clock 300 "$BUILD/pfsp_gpu_clock" --instances "${CLOCK_SET:-ta021,ta051}" --children "${CLOCK_CHILDREN:-65536}" \
    ${CLOCK_ARGS:-}
  grep -E '^\{' "$LOGS/clock.log" >"$OUT/clock.jsonl"
  grep -vE '^\{' "$LOGS/clock.log" | tee -a "$SUMMARY"
fi

# PPAM Table 1: kernel time on pools generated depth-first against breadth-first (no sort,
# plain kernel, one stream so the kernel events are exact), per pool size, for a fixed search
# time; reported as kernel nanoseconds per bound.
if has ppam; then
  res=$LOGS/ppam.txt
  printf "%-6s %8s %-14s %10s %12s %10s\n" instance pool selection bounds kernel_s ns/bound >"$res"
  for inst in ${PPAM_SET:-ta021 ta051 ta081 ta101 ta111}; do
    ub=$("$PFSP" info "$inst" | sed -n 's/.*best known *lb [0-9]*, ub \([0-9]*\).*/\1/p')
    for pool in ${PPAM_POOLS:-4096 16384 65536}; do
      for sel in depth-first breadth-first; do
        json=$LOGS/ppam_${inst}_${pool}_${sel}.json
        timeout 60 "$PFSP" solve "$inst" --backend gpu --gpu-loop host --bound lb2 --ub "$ub" --pool-size "$pool" --threads-per-block 256 \
          --kernel plain --sort none --streams 1 --gpu-selection "$sel" --time-limit "${PPAM_SECONDS:-3}" --profile \
          --no-progress -q --json "$json" >/dev/null 2>&1
        python3 - "$json" "$inst" "$pool" "$sel" >>"$res" <<'PY'
import json, sys
a = sys.argv
try:
    j = json.load(open(a[1]))
    b = j["nodes"]["bounds"]; k = j.get("bound_seconds", 0.0)
    print("%-6s %8s %-14s %10d %12.4f %10.2f" % (a[2], a[3], a[4], b, k, 1e9 * k / max(b, 1)))
except Exception as e:
    print("%-6s %8s %-14s failed (%s)" % (a[2], a[3], a[4], e))
PY
      done
    done
  done
  cat "$res" | tee -a "$SUMMARY"
fi

# --compact-times: int against 8-bit tables, per instance size (bounding kernel, LB2, ub = optimum).
if has compact; then
  for pool in ${COMPACT_POOLS:-65536 262144}; do
    run_logged compact_$pool 300 "$BENCH" --instances ${COMPACT_SET:-ta021,ta051,ta081,ta101,ta111} --bound lb2 \
      --children "$pool" --reps 10 --kernels branchless --memory shared --sort device --compact off,on --tpb 256 \
      --cpu-seconds 1
    grep -E '^\{' "$LOGS/compact_$pool.log" >>"$OUT/compact.jsonl"
  done
fi

# --gpu-strategy (issue 4): bounding throughput per strategy and knob, then whole proofs with
# each strategy (same optimum, same node counts as plain with ub = optimum).
if has strategies; then
  for b in ${STRAT_BOUNDS:-lb2 lb1-lb2}; do
    run_logged strat_$b 300 "$BENCH" --instances ${STRAT_SET:-ta021,ta051} --bound "$b" --children 262144 --reps 10 \
      --kernels branchless --memory shared --sort none,device --tpb 256 --cpu-seconds 1 \
      --strategies plain,persistent,context-switch,split,remap
    grep -E '^\{' "$LOGS/strat_$b.log" >>"$OUT/strategies.jsonl"
    for pp in ${STRAT_PERSISTENT:-"pool=global,fetch=any" "pool=local,fetch=any" "pool=hybrid,fetch=any" \
      "pool=hybrid,fetch=ballot,k=8" "pool=hybrid,fetch=ballot,k=16" "pool=hybrid,fetch=all" "pool=persistent,fetch=all" \
      "pool=hybrid,fetch=atomic,k=8"}; do
      run_logged "strat_${b}_${pp//[=,]/_}" 300 "$BENCH" --instances ${STRAT_SET:-ta021,ta051} --bound "$b" \
        --children 262144 --reps 10 --kernels branchless --memory shared --sort none,device --tpb 256 --cpu-seconds 0.2 \
        --strategies persistent --persistent-params "$pp"
      grep -E '^\{' "$LOGS/strat_${b}_${pp//[=,]/_}.log" >>"$OUT/strategies.jsonl"
    done
  done
  res=$LOGS/strat_solve.txt
  printf "%-6s %-8s %-15s %-13s %8s %12s %12s\n" instance bound strategy status seconds branched bounds >"$res"
  for inst in ${STRAT_SOLVE_SET:-ta028 ta029 ta030}; do
    ub=$("$PFSP" info "$inst" | sed -n 's/.*best known *lb [0-9]*, ub \([0-9]*\).*/\1/p')
    for b in ${STRAT_BOUNDS:-lb2 lb1-lb2}; do
      for st in plain persistent context-switch split remap; do
        json=$LOGS/strat_${inst}_${b}_${st}.json
        timeout 120 "$PFSP" solve "$inst" --backend gpu --gpu-loop host --bound "$b" --ub "$ub" --gpu-strategy "$st" --no-progress -q \
          --time-limit 100 --json "$json" >"$LOGS/strat_${inst}_${b}_${st}.log" 2>&1
        python3 - "$json" "$inst" "$b" "$st" >>"$res" <<'PY'
import json, sys
a = sys.argv
try:
    j = json.load(open(a[1]))
    print("%-6s %-8s %-15s %-13s %8.3f %12d %12d" % (a[2], a[3], a[4], j["status"], j["time_seconds"],
          j["nodes"]["branched"], j["nodes"]["bounds"]))
except Exception as e:
    print("%-6s %-8s %-15s failed (%s)" % (a[2], a[3], a[4], e))
PY
      done
    done
  done
  cat "$res" | tee -a "$SUMMARY"
fi

# Table VII's CPU side: work stealing against the papers' shared queue, all host cores, LB1.
if has queue; then
  res=$LOGS/queue.txt
  for inst in ${QUEUE_SET:-ta030 ta029}; do
    ub=$("$PFSP" info "$inst" | sed -n 's/.*best known *lb [0-9]*, ub \([0-9]*\).*/\1/p')
    for q in "" --shared-queue; do
      "$PFSP" solve "$inst" --backend cpu-mt --threads "$(nproc)" --bound lb1 --ub "$ub" --no-progress $q 2>&1 |
        grep -E "^(options|nodes|time|backend)" | sed "s/^/$inst ${q:-work-stealing} /" >>"$res"
    done
  done
  cat "$res" | tee -a "$SUMMARY"
fi

# SASS of the bounding kernels (issue 3: which conditionals the compiler predicates): the cubins
# of kernels_lb*.cu disassembled with line information (pfsp_gpu is built with -lineinfo), then
# bench/harness/sass_branches.py: per kernel variant the branches, selects and predicated instructions,
# each per-thread conditional branch with its source line, and the opcodes of the variants' own
# lines (plain / refactored / branchless in bound_kernels.cuh). The listing comes back gzipped.
if has sass; then
  mkdir -p "$LOGS/cubin"
  for o in $(find "$BUILD/src/gpu" -name 'kernels_lb*.cu.o'); do
    (cd "$LOGS/cubin" && cuobjdump -xelf all "$o" >>"$LOGS/cuobjdump.log" 2>&1)
  done
  : >"$LOGS/sass_listing.txt"
  for c in "$LOGS"/cubin/*.cubin; do
    nvdisasm -c -g "$c" >>"$LOGS/sass_listing.txt" 2>>"$LOGS/nvdisasm.log" || nvdisasm -c "$c" >>"$LOGS/sass_listing.txt"
  done
  gzip -9 -c "$LOGS/sass_listing.txt" >"$OUT/sass_listing.txt.gz"
  say "sass: $(ls "$LOGS"/cubin | wc -l) cubins, $(wc -l <"$LOGS/sass_listing.txt") listing lines"
  lo=$(grep -n '^struct plain_variant' src/gpu/bound_kernels.cuh | cut -d: -f1)
  hi=$(grep -n '^// Never called: LB1' src/gpu/bound_kernels.cuh | cut -d: -f1)
  python3 bench/harness/sass_branches.py "$LOGS/sass_listing.txt" --branches --ops "src/gpu/bound_kernels.cuh:$lo-$hi" \
    --json "$OUT/sass_branches.json" >"$OUT/sass_summary.md" 2>&1
  say "sass_branches: rc=$?"
  head -14 "$OUT/sass_summary.md" | tee -a "$SUMMARY"
fi

if has ncu; then
  timeout 400 bash "$ROOT/bench/harness/ncu_divergence.sh" "$BENCH" "$LOGS/ncu" "${NCU_INSTANCES:-ta021,ta051}" >"$LOGS/ncu.log" 2>&1
  say "ncu: rc=$?"
  [[ -f $LOGS/ncu/ncu_divergence.txt ]] && cp "$LOGS/ncu/ncu_divergence.txt" "$OUT/" && cat "$OUT/ncu_divergence.txt" | tee -a "$SUMMARY"
fi
