#!/usr/bin/env bash
# 2026-12-07 evening, call 1: ta085 and ta086 from their published lower bounds upward with LB1
# (issue 44 item 4): bench/ascend.sh with START = the published lower bound, one budget each.
set -u -o pipefail
. bench/gpu/carried_binaries.sh; unpack_binaries .carry/w build/carry pfsp
[ -e ../shared ] || ln -s "$PWD/shared" ../shared
{ nvidia-smi --query-gpu=name,memory.total --format=csv,noheader; nproc; build/carry/pfsp --version | head -1; } > $OUT/gpu.txt
cat $OUT/gpu.txt
for spec in ${SPECS:-ta085:6270 ta086:6311}; do
  name=${spec%:*}
  START=${spec#*:} BUDGET=${BUDGET:-265} STEP_LIMIT=${BUDGET:-265} OUT=$OUT/$name PFSP=$PWD/build/carry/pfsp \
    bash bench/ascend.sh $name --bound ${BOUND:-lb1}
done
cd $OUT && for d in ta*; do echo "== $d"; cat $d/ascend.tsv; done
