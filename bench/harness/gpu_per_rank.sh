#!/usr/bin/env bash
# Under Open MPI's mpirun on one node of G GPUs: runs the command with CUDA_VISIBLE_DEVICES set to
# one GPU per rank, as `srun --gpus-per-task=1` does on SLURM (docs/runbook_slurm.md): a worker
# rank (local rank r >= 1) sees GPU (r - 1) mod G, rank 0 (the coordinator, which solves no chunk)
# GPU 0. pfsp-mpi's default device choice then picks each worker's only device. Why: every process
# that initialises CUDA sees every visible GPU, and on a 4-GPU host four workers doing so at once
# became ready 0.2-0.25 s later than one (docs/distributed.md, "Workers' start").
#   mpirun -n 5 bench/harness/gpu_per_rank.sh build/pfsp-mpi ta056 --backend gpu ...
# G: PFSP_NODE_GPUS, else nvidia-smi -L's count. A CUDA_VISIBLE_DEVICES already set is kept.
set -euo pipefail
if [ -z "${CUDA_VISIBLE_DEVICES:-}" ]; then
  gpus=${PFSP_NODE_GPUS:-$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)}
  local_rank=${OMPI_COMM_WORLD_LOCAL_RANK:-0}
  if [ "${gpus:-0}" -gt 0 ]; then
    if [ "$local_rank" -ge 1 ]; then
      export CUDA_VISIBLE_DEVICES=$(((local_rank - 1) % gpus))
    else
      export CUDA_VISIBLE_DEVICES=0
    fi
  fi
fi
exec "$@"
