#!/usr/bin/env bash
# Builds the CPU benchmarks in Release and runs the standard set; every result is a JSON file
# (stamped with commit, CPU, GPU, host, load and command line) plus the printed table (.md).
#
#   bench/harness/bench_cpu.sh [--out DIR] [--quick] [--long] [--head] [--build-dir DIR] [--time-limit S]
#
#   --out DIR        where to write (default build/bench-results/<UTC date>-<commit>)
#   --quick          a smoke run: small grids, short cells (minutes, for checking the scripts)
#   --long           also the long runs: ta021 on 2 threads, lb1/min-min from the optimum (~5+ min
#                    on a quiet 2-core machine) and the 20x20 table without a time limit
#   --head           build from a clean checkout of HEAD (git worktree), not the working tree,
#                    so that other people's uncommitted edits do not end up in the numbers
#   --build-dir DIR  build directory (default build/bench, or build/bench-head with --head)
#   --time-limit S   per-run limit of the ta001-ta030 table (default 60)
#   --grid-time-limit S  per-run limit of the bound x branching grid (default 30)
#
# Measure on a quiet machine: the load average is recorded in every JSON, check it.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
out="" quick=0 long=0 head=0 build="" tl=60 gtl=30
while [[ $# -gt 0 ]]; do
  case "$1" in
    --out) out="$2"; shift 2 ;;
    --quick) quick=1; shift ;;
    --long) long=1; shift ;;
    --head) head=1; shift ;;
    --build-dir) build="$2"; shift 2 ;;
    --time-limit) tl="$2"; shift 2 ;;
    --grid-time-limit) gtl="$2"; shift 2 ;;
    -h|--help) sed -n '2,/^# Measure/p' "$0"; exit 0 ;;
    *) echo "bench_cpu.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done

src="$root"
if [[ $head == 1 ]]; then
  src="${TMPDIR:-/tmp}/pfsp-bench-head"
  git -C "$root" worktree remove --force "$src" 2>/dev/null || rm -rf "$src"
  git -C "$root" worktree add --detach "$src" HEAD >/dev/null
  trap 'git -C "$root" worktree remove --force "$src" 2>/dev/null || true' EXIT
  build="${build:-$root/build/bench-head}"
else
  build="${build:-$root/build/bench}"
fi
commit=$(git -C "$src" rev-parse --short HEAD 2>/dev/null || echo unknown)
out="${out:-$root/build/bench-results/$(date -u +%Y%m%dT%H%M%SZ)-$commit}"
mkdir -p "$out"

echo "== building in $build (Release, no CUDA, no tests) from $src"
cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release -DPFSP_ENABLE_CUDA=OFF -DPFSP_BUILD_TESTS=OFF >/dev/null
cmake --build "$build" -j2 --target pfsp_bench_bounds pfsp_bench_solve >/dev/null
bb="$build/pfsp_bench_bounds"
bs="$build/pfsp_bench_solve"
echo "== results in $out   (load: $(cut -d' ' -f1-3 /proc/loadavg))"

run() {  # run NAME CMD...: table to NAME.md (and the terminal), JSON to NAME.json
  local name="$1"; shift
  echo "== $name: $*"
  "$@" --json "$out/$name.json" | tee "$out/$name.md"
}

if [[ $quick == 1 ]]; then
  run bounds "$bb" --instances ta021,ta111 --depths 0,0.5,0.9 --seconds 0.05 --repeat 1
  run solve_ta030 "$bs" --instances ta030 --config 1:lb1:min-min:opt --repeat 1
  run solve_grid "$bs" --instances ta001-ta012 --threads 1 --bound lb1,lb1-lb2 --branching forward,min-min --ub opt --time-limit 5
  exit 0
fi

# 1. Bounds per second: ta021/ta051/ta081/ta101/ta111 at 0/25/50/75/90 % depth, three splits.
run bounds "$bb" --instances ta021,ta051,ta081,ta101,ta111 --depths 0,0.25,0.5,0.75,0.9 \
  --variants prefix,suffix,split --kernels lb1-inc,lb1-children,lb1-scratch,lb2,lb2-scratch,lb2-nobranch --seconds 0.3 --repeat 3

# 2. The headline: ta030 from the optimum, incremental LB1 with MinMin, one thread (Gmys et al.
#    2020: 2.7 M nodes, 3.9 s), 5 runs for the median.
run solve_ta030 "$bs" --instances ta030 --config 1:lb1:min-min:opt --config 2:lb1:min-min:opt --repeat 5

# 3. Default configuration: every bound x branching, one thread, from the optimum, on the
#    instances small enough to finish (ta001-ta020) and on ta030, the easiest 20x20.
run solve_grid "$bs" --instances ta001-ta020,ta030 --threads 1 --bound lb1,lb2,lb1-lb2 \
  --branching forward,min-branch,min-min --ub opt --time-limit "$gtl"

# 4. ta001-ta030 with the default configuration: from the optimum on 1 and 2 threads, and from
#    NEH on 1 thread.
run solve_table "$bs" --instances ta001-ta030 --config 1:lb1:min-min:opt --config 2:lb1:min-min:opt \
  --config 1:lb1:min-min:neh --time-limit "$tl"

if [[ $long == 1 ]]; then
  # 5. ta021 on two threads from the optimum (Gmys et al. 2020: 443 M nodes, 314 s on two threads).
  run solve_ta021_2t "$bs" --instances ta021 --config 2:lb1:min-min:opt --time-limit 0
fi
echo "== done: $out"
