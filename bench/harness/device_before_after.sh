#!/usr/bin/env bash
# Run ON a GPU machine (device call, carry [".carry/t"]) after `bench/harness/carry_gpu_tests.sh pack`
# here and earlier builds packed beside it (.carry/t/pfsp-NAME.xz for each NAME of BA_BINS but
# `new`, which is .carry/t/pfsp.xz; e.g. issue 23's b505c02 as `base`): the device loop's node
# rate before and after, on the same machine in the same call (issue 23, item 3). Each instance
# of BA_SET runs BA_SECONDS from its best known + 1 with each configuration of BA_CONFIGS
# ("label|pfsp args" separated by ';'), each binary of BA_BINS in turn, on one GPU;
# the instances are dealt over the GPUs of BA_GPUS (default: every GPU), one process a GPU.
# `--improver-threads 0`: the incumbent stays the best known + 1, so the rate is the tree's.
# Writes $OUT/before_after/compare.json (bench/hard_table.py: one row a run, its commit and
# command), compare.txt and summary.txt (per configuration and binary: the mean rate; the last
# binary against each earlier one: each instance's ratio and their geometric mean).
#
#   BASE_COMMIT=b505c02 PFSP_COMMIT=abc1234 bench/harness/device_before_after.sh
set -u -o pipefail
ROOT=$PWD
OUT=${OUT:-$ROOT/out/device}
D=$OUT/before_after
B=${BUILD:-$ROOT/build/carry}
mkdir -p "$D/runs" "$B"
BINS=(${BA_BINS:-base new})
for w in "${BINS[@]}"; do
  b=pfsp-$w
  [[ $w == new ]] && b=pfsp
  xz -dc ".carry/t/$b.xz" >"$B/$b" && chmod +x "$B/$b" || exit 1
done
[[ -e ../shared ]] || ln -s "$ROOT/shared" ../shared 2>/dev/null
SET=(${BA_SET:-ta051 ta052 ta053 ta054 ta055 ta056 ta057 ta058 ta059 ta060})
GPUS=(${BA_GPUS:-$(seq 0 $(($(nvidia-smi -L | wc -l) - 1)))})
IFS=';' read -ra CFGS <<<"${BA_CONFIGS:-chain|;lb1|--bound lb1}"
SECS=${BA_SECONDS:-6}
one_gpu() {  # one_gpu GPU INSTANCE...: every configuration of each instance, base then new
  local gpu=$1
  shift
  for inst in "$@"; do
    local ub
    ub=$("$B/pfsp" info "$inst" | sed -n 's/.*best known *lb [0-9]*, ub \([0-9]*\).*/\1/p')
    for c in "${CFGS[@]}"; do
      local label=${c%%|*} extra=${c#*|}
      for which in "${BINS[@]}"; do
        local bin=$B/pfsp-$which
        [[ $which == new ]] && bin=$B/pfsp
        CUDA_VISIBLE_DEVICES=$gpu "$bin" solve "$inst" --backend gpu --ub $((ub + 1)) --time-limit "$SECS" \
          --improver-threads 0 --no-progress -q --json "$D/runs/hard_${inst}_${label}-${which}.json" $extra \
          >"$D/runs/hard_${inst}_${label}-${which}.log" 2>&1
      done
    done
  done
}
nvidia-smi --query-gpu=name --format=csv,noheader | head -1 >"$D/summary.txt"
echo "binaries ${BINS[*]} (${BA_COMMITS:-?}; new ${PFSP_COMMIT:-?}), ${SECS}-s slices from the best known + 1" \
  >>"$D/summary.txt"
for g in "${!GPUS[@]}"; do
  mine=()
  for i in "${!SET[@]}"; do ((i % ${#GPUS[@]} == g)) && mine+=("${SET[$i]}"); done
  ((${#mine[@]})) && one_gpu "${GPUS[$g]}" "${mine[@]}" &
done
wait
python3 bench/hard_table.py --out "$D/compare.json" "$D"/runs/hard_*.json >"$D/compare.txt"
python3 - "$D/compare.json" "${BINS[@]}" <<'PY' | tee -a "$D/summary.txt"
import json, math, sys
rows = json.load(open(sys.argv[1]))["rows"]
bins = sys.argv[2:]
rate = {(r["instance"], r["config"]): r.get("nodes_per_s") for r in rows}
insts = sorted({i for i, _ in rate})
for cfg in sorted({c.rsplit("-", 1)[0] for _, c in rate}):
    means = []
    for w in bins:
        v = [rate[(i, f"{cfg}-{w}")] for i in insts if rate.get((i, f"{cfg}-{w}"))]
        means.append(f"{w} {sum(v) / max(1, len(v)) / 1e6:.1f}")
    print(f"{cfg}: mean M nodes/s over the instances: " + ", ".join(means))
    last = bins[-1]
    for w in bins[:-1]:
        ratios, cells = [], []
        for i in insts:
            b, a = rate.get((i, f"{cfg}-{w}")), rate.get((i, f"{cfg}-{last}"))
            if not b or not a:
                cells.append(f"{i} missing")
                continue
            ratios.append(a / b)
            cells.append(f"{i} {b / 1e6:.1f} -> {a / 1e6:.1f} ({a / b:.2f}x)")
        if ratios:
            g = math.exp(sum(map(math.log, ratios)) / len(ratios))
            print(f"  {last} / {w}: geometric mean {g:.3f}x over {len(ratios)} instances")
        print("    " + "; ".join(cells))
PY
(cd "$D" && tar czf runs.tgz runs && rm -rf runs)
