// The worker side of pfsp-mpi (distributed.hpp): ask rank 0 for a chunk, solve it with the local
// solver while a listener thread serves rank 0's control messages (give the chunk back, a better
// schedule) and forwards the schedules the solver finds, answer with the result, until stopped.
#pragma once

#include <mpi.h>

#include "mpi/frontier.hpp"

namespace pfsp::dist {

// What a rank did (issue 11's idle share per worker): seconds solving chunks, seconds from
// entering solve_distributed to the stop, branched nodes.
struct rank_time {
  double busy = 0, life = 0, branched = 0;
};

// Runs until rank 0 says stop; returns this rank's statistics and fills `times`.
solve_stats run_worker(MPI_Comm comm, const bound_data& data, const solve_options& opt, const chunk_solver& solve,
                       rank_time& times);

}  // namespace pfsp::dist
