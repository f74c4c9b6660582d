#!/usr/bin/env bash
# Taillard's twelve open instances (issue 44 item 4) with the default options on one GPU machine,
# from the repository root, binaries carried as for device_smaller_tree.sh (.carry/s). Each runs
# OPEN_SECONDS (default 25) from scratch; $OUT/open.tsv has pfsp's upper and lower bounds beside
# the published ones (shared/data/taillard_pfsp.csv), $OUT/open_logs.tgz the solver logs and JSON.
# With OPEN_UB=published, each run is instead a complete search below the published lower bound
# plus OPEN_ABOVE (default 0), `--ub PUBLISHED_LB+OPEN_ABOVE`: status proven_bound proves that no
# schedule is shorter, i.e. the optimum is at least that value (above 0: a new lower bound). OPEN_NAMES
# picks the instances (default all twelve); CARRY the carried binaries (default .carry/w). GPUS=N
# runs N instances at once, one a GPU (CUDA_VISIBLE_DEVICES) with the host's cores / N each
# (taskset), so that an 8-GPU node gives each run what a one-GPU machine would.
# Then, when RACECHECK=1, compute-sanitizer racecheck on the chain's fused LB1 kernel with swap
# dominance on a small tree (ta011).
set -u -o pipefail
ROOT=$PWD
B=${BUILD:-$ROOT/build/carry}
OUT=${OUT:-$ROOT/out/device}
SECONDS_EACH=${OPEN_SECONDS:-25}
mkdir -p "$OUT/open" "$B"
[ -x "$B/pfsp" ] || { xz -dc "${CARRY:-.carry/w}/pfsp.xz" >"$B/pfsp" && chmod +x "$B/pfsp"; }
[ -e ../shared ] || ln -s "$ROOT/shared" ../shared
PFSP=$B/pfsp
csv=$ROOT/shared/data/taillard_pfsp.csv
echo "# $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1), commit ${PFSP_COMMIT:-?}, ${SECONDS_EACH} s each, defaults${OPEN_UB:+, --ub published lb + ${OPEN_ABOVE:-0}}" >"$OUT/open.tsv"
printf "instance\tn\tm\tpfsp_ub\tpfsp_lb\tpublished_ub\tpublished_lb\tstatus\twall_s\n" >>"$OUT/open.tsv"
GPUS=${GPUS:-}
# One instance: name, slot (its GPU and cores when GPUS is set); prints its row.
run_open() {
  local name=$1 slot=$2 row n m plb pub ub_args=() pin=() t0 t1 rc status ub lb
  row=$(grep "^$name," "$csv")
  IFS=, read -r _ n m _ _ plb pub _ <<<"$row"
  [[ ${OPEN_UB:-} == published ]] && ub_args=(--ub $((plb + ${OPEN_ABOVE:-0})))
  if [[ -n $GPUS ]]; then
    local cores=$(($(nproc) / GPUS))
    pin=(env CUDA_VISIBLE_DEVICES="$slot" taskset -c "$((slot * cores))-$((slot * cores + cores - 1))")
  fi
  t0=$(date +%s.%N)
  timeout $((SECONDS_EACH + 30)) "${pin[@]}" "$PFSP" solve "$name" --time-limit "$SECONDS_EACH" \
    --json "$OUT/open/$name.json" --log "$OUT/open/$name.log" -q "${ub_args[@]}" >"$OUT/open/$name.out" 2>&1
  rc=$?
  t1=$(date +%s.%N)
  read -r status ub lb <"$OUT/open/$name.out"
  printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s (rc %s)\t%.1f\n" "$name" "$n" "$m" "$ub" "$lb" "$pub" "$plb" "$status" "$rc" \
    "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')"
}
names=(${OPEN_NAMES:-ta051 ta054 ta055 ta059 ta060 ta081 ta085 ta086 ta087 ta088 ta089 ta102})
at_once=${GPUS:-1}
for ((i = 0; i < ${#names[@]}; i += at_once)); do
  for ((s = 0; s < at_once && i + s < ${#names[@]}; s++)); do
    run_open "${names[i + s]}" "$s" >"$OUT/open/row$((i + s)).tsv" &
  done
  wait
done
for ((i = 0; i < ${#names[@]}; i++)); do cat "$OUT/open/row$i.tsv" >>"$OUT/open.tsv"; done
rm -f "$OUT"/open/row*.tsv
if [[ ${RACECHECK:-0} == 1 ]]; then
  timeout 240 compute-sanitizer --tool racecheck --error-exitcode 9 "$PFSP" solve ta011 --bound lb1-lb2 --dominance on \
    --lb1-fused on --pool-size 4096 --node-limit 3000 --improver-threads 0 --no-progress -q >"$OUT/open/racecheck.log" 2>&1
  echo "# racecheck chain fused, dominance on, ta011: rc=$? $(grep -E 'RACECHECK SUMMARY' "$OUT/open/racecheck.log")" >>"$OUT/open.tsv"
fi
(cd "$OUT/open" && tar czf "$OUT/open_logs.tgz" . 2>/dev/null) && rm -rf "$OUT/open"
cat "$OUT/open.tsv"
