#!/usr/bin/env bash
# Same-GPU race on ta021-ta025 (20x20), both solvers from scratch: pfsp with its default options
# against PBB (Gmys et al., github.com/jangmys/pbb, the IVM-based GPU branch-and-bound, kept outside
# this repository: built elsewhere for sm_90 and carried as a binary in .carry/pbb).
#   OUT=$OUT bash bench/gpu/race_pbb.sh   (device call, carry [".carry/s", ".carry/pbb"])
# Per instance, alternately (pfsp first on odd repetitions, PBB first on even ones):
#   pfsp solve taNNN --json FILE --no-progress -q [PFSP_ARGS]
#   gpubb -f ../gpu/gpuconfig.ini -z p=fsp,i=taNN,o=neh [PBB_ARGS]
# PBB's settings are those of its shipped GPU configuration (gpu/gpuconfig.ini, which its GPU README
# says to use): boundingMode 0 (LB1 only, children bounded incrementally), adaptiveBranchingMode 2
# (MinBranch), 16384 IVM explorers. Its initial upper bound is its own NEH (o=neh, also the
# code's default init mode): pfsp's start (NEH plus its incumbent engine) cannot be handed to PBB.
# o=neh must be given: gpuconfig.ini has no [problem] init_ub, which PBB then reads as an initial
# upper bound of 0 (nothing is ever improved). pfsp's defaults on the GPU at 20x20 bound with the
# LB1->LB2 chain, so node counts are not like for like (PFSP_ARGS="--bound lb1" for LB1 on both).
# Writes under $OUT:
#   summary.txt   the GPU, both commits, the settings, one line per run
#   race.jsonl    one line per run: instance, solver, rep, rc, status, makespan, nodes, the
#                 solver's own seconds, process wall seconds (date before/after)
#   race.md       the table: instance, pfsp makespan/nodes/search s/wall s, PBB makespan/nodes/
#                 its reported time/wall s, speedups (PBB over pfsp), sums over the rows both finished
#   logs/         each run's stdout, stderr (and pfsp's JSON, PBB's logfile.txt)
# Each run has a timeout (PFSP_TIMEOUT 60 s, PBB_TIMEOUT 300 s), cut to what is left of BUDGET
# (560 s from the start, for the device call's 600 s); a run with under 5 s left is skipped.
# INSTANCES (default "021 022 023 024 025"), REPEAT (default 1) repeats the whole set.
set -u -o pipefail
ROOT=$PWD
B=${BUILD:-$ROOT/build/carry}
P=${PBB_DIR:-$ROOT/build/pbb}
OUT=${OUT:-$ROOT/out/race_pbb}
INSTANCES=${INSTANCES:-021 022 023 024 025}
REPEAT=${REPEAT:-1}
PFSP_TIMEOUT=${PFSP_TIMEOUT:-60}
PBB_TIMEOUT=${PBB_TIMEOUT:-300}
BUDGET=${BUDGET:-560}
PBB_UB=${PBB_UB:-neh}
PFSP_ARGS=${PFSP_ARGS:-}
PBB_ARGS=${PBB_ARGS:-}
PBB_COMMIT_BUILT=bb1b8b9895da72e4cdfe8de7162a443d23e023b9  # jangmys/pbb, 2025-12-08


mkdir -p "$OUT/logs" "$P/bin" "$P/lib" "$P/gpu" "$P/evaluation/flowshop/data" "$P/run"
say() { echo "== $(date +%T) $*" | tee -a "$OUT/summary.txt"; }
if ! xz -dc .carry/pbb/gpubb.xz >"$P/bin/gpubb"; then say "no PBB binary (.carry/pbb/gpubb.xz)"; fi
chmod +x "$P/bin/gpubb"
cp .carry/pbb/gpuconfig.ini "$P/gpu/" && cp .carry/pbb/instances.data "$P/evaluation/flowshop/data/" &&
  cp .carry/pbb/lib/* "$P/lib/"
if [ -f .carry/s/pfsp.xz ]; then
  mkdir -p "$B" && xz -dc .carry/s/pfsp.xz >"$B/pfsp" && chmod +x "$B/pfsp"
fi
PFSP=$B/pfsp
GPUBB=$P/bin/gpubb
export LD_LIBRARY_PATH=$P/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}  # libgomp.so.1 for gpubb
BUF=()
command -v stdbuf >/dev/null && BUF=(stdbuf -oL -eL)  # PBB's lines survive a timeout

say "$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1), $(nproc) cores"
say "pfsp: $("$PFSP" --version 2>&1 | head -1)"
say "PBB: commit $(cat .carry/pbb/COMMIT 2>/dev/null || echo "$PBB_COMMIT_BUILT") (github.com/jangmys/pbb)"
say "pfsp solve taNNN --json FILE --no-progress -q $PFSP_ARGS (timeout $PFSP_TIMEOUT s)"
say "gpubb -f ../gpu/gpuconfig.ini -z p=fsp,i=taNN,o=$PBB_UB $PBB_ARGS (timeout $PBB_TIMEOUT s)"
say "instances: $INSTANCES; repetitions: $REPEAT; budget $BUDGET s"

# One run: solver, instance (three digits), repetition, timeout. Appends a line to race.jsonl.
race() {
  local solver=$1 i=$2 rep=$3 limit=$4 left=$((BUDGET - SECONDS))
  local tag=ta$i.$solver.r$rep
  local log=$OUT/logs/$tag
  ((left < limit)) && limit=$left
  local rc=125 t0 t1
  t0=$(date +%s.%N)
  if ((limit < 5)); then
    rc=-1
  elif [[ $solver == pfsp ]]; then
    # shellcheck disable=SC2086
    timeout -k 5 "$limit" "$PFSP" solve "ta$i" --json "$log.json" --no-progress -q $PFSP_ARGS >"$log.out" 2>"$log.err"
    rc=$?
  else
    rm -f "$P/run/logfile.txt"
    # shellcheck disable=SC2086
    (cd "$P/run" && timeout -k 5 "$limit" "${BUF[@]}" "$GPUBB" -f ../gpu/gpuconfig.ini \
      -z "p=fsp,i=ta$((10#$i)),o=$PBB_UB" $PBB_ARGS >"$log.out" 2>"$log.err")
    rc=$?
    [ -f "$P/run/logfile.txt" ] && mv "$P/run/logfile.txt" "$log.logfile.txt"
  fi
  t1=$(date +%s.%N)
  python3 - "$solver" "ta$i" "$rep" "$rc" "$t0" "$t1" "$limit" "$log" >>"$OUT/race.jsonl" <<'EOF'
import json, re, sys
solver, name, rep, rc, t0, t1, limit, log = sys.argv[1:]
opt = {"ta021": 2297, "ta022": 2099, "ta023": 2326, "ta024": 2223, "ta025": 2291}
rc = int(rc)
r = {"instance": name, "solver": solver, "rep": int(rep), "rc": rc, "timeout_s": int(limit),
     "process_wall": round(float(t1) - float(t0), 3)}
if rc == -1:
    r.update(status="skipped (budget)", process_wall=None)
elif solver == "pfsp":
    try:
        j = json.load(open(log + ".json"))
    except Exception as e:
        j = {"error": str(e)}
    nodes, o = j.get("nodes") or {}, j.get("options") or {}
    r.update(status=j.get("status", "timeout" if rc in (124, 137) else "no json"), makespan=j.get("makespan"),
             nodes=nodes.get("branched"), solver_seconds=j.get("time_seconds"), wall_seconds=j.get("wall_seconds"),
             backend=j.get("backend"), bound=o.get("bound"), initial_ub=o.get("initial_ub"),
             initial_ub_source=o.get("initial_ub_source"), commit=j.get("commit"))
else:
    text = open(log + ".out", errors="replace").read()
    def grab(pattern, cast=int):
        m = re.search(pattern, text, re.M)
        return cast(m.group(1)) if m else None
    r.update(initial_ub=grab(r"#Initial upper bound[^:\n]*:\s*(-?\d+)"),
             bounding_mode=grab(r"#?Bounding mode:\s*(-?\d+)"), branching=grab(r"#?Branching:\s*(-?\d+)"),
             gpu_workers=grab(r"#?GPU workers:\s*(\d+)"), nodes=grab(r"^TOT-BRANCHED:\s*(\d+)"),
             leaves=grab(r"^TOT-LEAVES:\s*(\d+)"), solver_seconds=grab(r"^Walltime\s*:\s*([0-9.eE+-]+)", float))
    if re.search(r"^Found optimal solution", text, re.M):
        r["makespan"] = grab(r"^Min Cmax:\s*(\d+)")
    elif re.search(r"^Not improved", text, re.M):  # the initial upper bound was optimal
        r["makespan"] = grab(r"Optimal makespan is >= (\d+)")
    else:
        r["makespan"] = None
    done = rc == 0 and r["makespan"] is not None and r["solver_seconds"] is not None
    r["status"] = "optimal" if done else ("timeout" if rc in (124, 137) else "failed")
if r.get("makespan") is not None and name in opt:
    r["known_optimum"] = opt[name]
    r["matches_known_optimum"] = r["makespan"] == opt[name]
print(json.dumps(r))
EOF
  say "$(tail -1 "$OUT/race.jsonl")"
}

table() {
  python3 - "$OUT/race.jsonl" >"$OUT/race.md" <<'EOF'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
runs = {}
for r in rows:
    runs.setdefault((r["rep"], r["instance"]), {})[r["solver"]] = r
def f(x, d=3):
    return "-" if x is None else (f"{x:,}" if isinstance(x, int) else f"{x:.{d}f}")
def ms(r):
    if not r or r.get("makespan") is None:
        return (r or {}).get("status", "-")
    return f'{r["makespan"]}' + ("" if r.get("matches_known_optimum", True) else " (!)") + (
        "" if r.get("status") == "optimal" else f' ({r.get("status")})')
print("| instance | rep | pfsp makespan | pfsp nodes | pfsp search s | pfsp wall s | PBB makespan | PBB nodes "
      "| PBB reported s | PBB wall s | speedup, wall | speedup, solver times |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
sums = [0.0, 0.0, 0.0, 0.0]
for (rep, name), d in sorted(runs.items(), key=lambda kv: (kv[0][1], kv[0][0])):
    a, b = d.get("pfsp"), d.get("pbb")
    both = bool(a and b and a.get("status") == "optimal" and b.get("status") == "optimal")
    sw = ss = None
    if both:
        sw = b["process_wall"] / a["process_wall"] if a["process_wall"] else None
        ss = b["solver_seconds"] / a["solver_seconds"] if a.get("solver_seconds") else None
        for k, v in enumerate((a["solver_seconds"] or 0, a["process_wall"], b["solver_seconds"], b["process_wall"])):
            sums[k] += v
    a, b = a or {}, b or {}
    print(f'| {name} | {rep} | {ms(a)} | {f(a.get("nodes"))} | {f(a.get("solver_seconds"))} | {f(a.get("process_wall"))} '
          f'| {ms(b)} | {f(b.get("nodes"))} | {f(b.get("solver_seconds"))} | {f(b.get("process_wall"))} '
          f'| {f(sw, 1)}x | {f(ss, 1)}x |'.replace("| -x", "| -"))
if sums[1] > 0:
    print(f"| sum (both optimal) | | | | {sums[0]:.2f} | {sums[1]:.2f} | | | {sums[2]:.2f} | {sums[3]:.2f} "
          f"| {sums[3] / sums[1]:.1f}x | {(sums[2] / sums[0]) if sums[0] else float('nan'):.1f}x |")
print()
print("Speedup: PBB's time over pfsp's (above 1: pfsp faster). Wall: the process, from start to exit (date "
      "before and after). Solver times: pfsp's time_seconds (the search) against the Walltime PBB prints "
      "(device set-up and search, after its NEH). (!): not the known optimum.")
EOF
}

# Untimed warm-up: the driver and both binaries once on a small instance (ta001, 20x5).
timeout 60 "$PFSP" solve ta001 --no-progress -q >"$OUT/logs/warmup.pfsp.out" 2>&1
say "warm-up pfsp ta001 rc=$? ($(head -c 200 "$OUT/logs/warmup.pfsp.out" | tr '\n' ' '))"
(cd "$P/run" && timeout 60 "$GPUBB" -f ../gpu/gpuconfig.ini -z p=fsp,i=ta1,o=neh >"$OUT/logs/warmup.pbb.out" 2>&1)
say "warm-up PBB ta1 rc=$? ($(grep -E '^(Min Cmax|TOT-BRANCHED|Walltime)' "$OUT/logs/warmup.pbb.out" | tr '\n' ' '))"
rm -f "$P/run/logfile.txt"

for ((rep = 1; rep <= REPEAT; rep++)); do
  for i in $INSTANCES; do
    if ((rep % 2)); then
      race pfsp "$i" "$rep" "$PFSP_TIMEOUT"
      race pbb "$i" "$rep" "$PBB_TIMEOUT"
    else
      race pbb "$i" "$rep" "$PBB_TIMEOUT"
      race pfsp "$i" "$rep" "$PFSP_TIMEOUT"
    fi
    table
  done
done
tee -a "$OUT/summary.txt" <"$OUT/race.md"
say "done"
