#!/usr/bin/env bash
# The standard CPU set of bench/harness/bench_cpu.sh on a many-core host, with the grid and table runs
# spread over parallel single-instance processes (one core each) so that the whole set fits in
# minutes. Used for the quiet reference in docs/benchmarks.md. Each phase fits in 10 minutes on
# a 16-core host:
#
#   bench/harness/bench_cpu_many.sh PHASE --out DIR [--jobs J] [--build-dir DIR] [--commit HASH]
#
#   PHASE build     configure and build pfsp_bench_bounds / pfsp_bench_solve (Release, no CUDA)
#         headline  ta030 alone (5 runs, 1 and 2 threads); then, side by side, ta021 on 2 threads,
#                   the bounds table, and the bound x branching grid (J - 3 processes)
#         table     ta001-ta030 with lb1/min-min: 1 and 2 threads from the optimum, 1 thread from
#                   NEH, 60 s per run (J processes)
#         branching lb1 with forward / min-branch / min-min from NEH on ta001-ta020 and the 20x20
#                   instances that finish in a minute, min-branch from the optimum on those, and
#                   ta021 with min-branch on 2 threads (the default-configuration question)
#   --commit HASH   stamp when the tree has no .git (e.g. an exported archive)
#
# Every process writes DIR/NAME.json and DIR/NAME.md; merge them for the tables.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
phase="${1:-}"; shift || true
out="" jobs=$(nproc) build="$root/build/bench" commit=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --out) out="$2"; shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    --build-dir) build="$2"; shift 2 ;;
    --commit) commit="$2"; shift 2 ;;
    *) echo "bench_cpu_many.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
[[ -n "$out" ]] || { echo "bench_cpu_many.sh: --out DIR is required" >&2; exit 2; }
mkdir -p "$out"
bb="$build/pfsp_bench_bounds"
bs="$build/pfsp_bench_solve"
export out bs bb stamp_commit="$commit"
run() {  # run NAME CMD...
  local name="$1"; shift
  "$@" ${stamp_commit:+--commit "$stamp_commit"} --json "$out/$name.json" >"$out/$name.md" 2>"$out/$name.log"
}
export -f run

case "$phase" in
  build)
    cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DPFSP_ENABLE_CUDA=OFF -DPFSP_BUILD_TESTS=OFF \
      ${commit:+-DPFSP_BENCH_COMMIT=$commit} >/dev/null
    cmake --build "$build" -j"$jobs" --target pfsp_bench_bounds pfsp_bench_solve >/dev/null
    ;;
  headline)
    run solve_ta030 "$bs" --instances ta030 --config 1:lb1:min-min:opt --config 2:lb1:min-min:opt --repeat 5
    run solve_ta021_2t "$bs" --instances ta021 --config 2:lb1:min-min:opt --time-limit 0 &
    run bounds "$bb" --instances ta021,ta051,ta081,ta101,ta111 --depths 0,0.25,0.5,0.75,0.9 \
      --variants prefix,suffix,split --kernels lb1-inc,lb1-children,lb1-scratch,lb2,lb2-scratch,lb2-nobranch --seconds 0.2 --repeat 3 &
    printf '%s\n' ta001 ta002 ta003 ta004 ta005 ta006 ta007 ta008 ta009 ta010 ta011 ta012 ta013 ta014 ta015 \
      ta016 ta017 ta018 ta019 ta020 ta030 |
      xargs -P $((jobs > 4 ? jobs - 3 : 1)) -I{} bash -c 'run "grid_{}" "$bs" --instances {} --threads 1 \
        --bound lb1,lb2,lb1-lb2 --branching forward,min-branch,min-min --ub opt --time-limit 30'
    wait
    ;;
  table)
    seq 1 30 | xargs -I{} printf 'ta%03d\n' {} |
      xargs -P $((jobs > 2 ? jobs - 1 : 1)) -I{} bash -c 'run "table_{}" "$bs" --instances {} \
        --config 1:lb1:min-min:opt --config 2:lb1:min-min:opt --config 1:lb1:min-min:neh --time-limit 60'
    ;;
  branching)
    run solve_ta021_2t_minbranch "$bs" --instances ta021 --config 2:lb1:min-branch:opt --time-limit 0 &
    { printf '%s\n' ta022 ta028 ta029 ta030 | sed 's/$/ opt/'
      printf '%s\n' ta001 ta002 ta003 ta004 ta005 ta006 ta007 ta008 ta009 ta010 ta011 ta012 ta013 ta014 ta015 \
        ta016 ta017 ta018 ta019 ta020 ta022 ta028 ta029 ta030 | sed 's/$/ neh/'; } |
      xargs -P $((jobs > 4 ? jobs - 3 : 1)) -L1 bash -c 'if [[ $1 == opt ]]; then b=min-branch; else b=forward,min-branch,min-min; fi
        run "branching_$0_$1" "$bs" --instances "$0" --threads 1 --bound lb1 --branching "$b" --ub "$1" --time-limit 60'
    wait
    ;;
  *) echo "usage: bench_cpu_many.sh build|headline|table|branching --out DIR [--jobs J] [--commit HASH]" >&2; exit 2 ;;
esac
