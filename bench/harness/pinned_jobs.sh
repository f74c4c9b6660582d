# shellcheck shell=bash disable=SC2154
# Sourced by bench_cpu_pinned.sh and sweep_walker_options.sh: many runs at once on a big host,
# each pinned (taskset) to its own cores.
#   pinned_jobs DIR CORES RUN  — over every (config index, instance, seed) of the arrays `configs`
#   and the words of INSTANCES and SEEDS (DIR/<config index>/ made for each config), nproc/CORES
#   at a time, calls RUN CPU_LIST CONFIG_INDEX INSTANCE SEED, CPU_LIST being the slot's cores
#   ("first-last" for taskset -c). The jobs are listed in DIR/jobs.txt.
pinned_jobs() {
  local dir=$1 cores=$2 run=$3 slots c name s slot
  slots=$(($(nproc) / cores))
  ((slots >= 1)) || slots=1
  : >"$dir/jobs.txt"
  for c in "${!configs[@]}"; do
    mkdir -p "$dir/$c"
    for name in $INSTANCES; do
      for s in $SEEDS; do echo "$c $name $s" >>"$dir/jobs.txt"; done
    done
  done
  echo "$(wc -l <"$dir/jobs.txt") runs, $slots at a time on $cores core(s) each"
  local pids=()
  for ((slot = 0; slot < slots; ++slot)); do
    (
      k=0 first=$((slot * cores))
      while read -r c name s; do
        if ((k++ % slots != slot)); then continue; fi
        "$run" "$first-$((first + cores - 1))" "$c" "$name" "$s"
      done <"$dir/jobs.txt"
    ) &
    pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p"; done
}
