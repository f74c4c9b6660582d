#!/usr/bin/env bash
cd /work/main
for seed in 1 2; do for i in ta081 ta082 ta083 ta084 ta085; do for sh in 0.5 1; do
  build/cpu/pfsp solve $i --backend cpu-mt --threads 2 --time-limit 20 --heuristic-share $sh --seed $seed --no-progress --json /tmp/share/${i}_s${sh}_seed${seed}.json > /dev/null
done; done; done
echo done > /tmp/share/done
