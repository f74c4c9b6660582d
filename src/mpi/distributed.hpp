// Branch-and-bound across MPI ranks (`pfsp-mpi`): rank 0 cuts the tree into a breadth-first
// frontier (frontier.hpp) and hands chunks of frontier nodes to the other ranks on request; each
// worker solves its chunk to the end with a local solver (cpu, cpu-mt, or the GPU device loop)
// resumed from the chunk, starting from the best makespan known when the chunk was sent, and
// returns the chunk's statistics and any better schedule. The incumbent travels with every chunk
// and every result. With one rank, rank 0 solves the chunks itself.
#pragma once

#include <mpi.h>

#include <cstddef>

#include "mpi/frontier.hpp"
#include "problem/instance.hpp"

namespace pfsp::dist {

struct distributed_options {
  std::size_t frontier_per_worker = 64;  // frontier nodes to build per worker rank (at least 1 rank)
  std::size_t chunk_nodes = 4;           // frontier nodes a chunk
};

// Collective over `comm`. Rank 0 returns the whole search's result (status, schedule, proven
// bound, statistics summed over ranks, notes); the other ranks return their own statistics.
// Limits: time and Ctrl-C stop handing out chunks, and each chunk runs with the time left; the
// node limit is checked by rank 0 between chunks.
solve_result solve_distributed(MPI_Comm comm, const instance& inst, const bound_data& data, const solve_options& opt,
                               const incumbent& start, const chunk_solver& solve_chunk, const distributed_options& d);

}  // namespace pfsp::dist
