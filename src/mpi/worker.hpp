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
  double taken = 0, latency = 0;  // schedules from rank 0 its solvers took; the longest send-to-take
  double ready = 0;               // seconds from its process's start (solve_options::time_origin) to its first request
  // Its start's steps, seconds from its process's start (0: not measured): its devices' contexts
  // created, rank 0's pairs received (after its start heuristic and pair learning), its engines
  // built (pfsp-mpi's main.cpp fills them; issue 22 item 6).
  double contexts = 0, pairs = 0, engines = 0;
};

// Runs until rank 0 says stop, sending rank 0 a heartbeat every `heartbeat` seconds (rank 0
// gives the chunk of a silent worker to others); then sends its times. Returns this rank's
// statistics.
// Every progress_interval seconds (0: never) the running chunk's progress goes to rank 0 (at most
// kMaxProgressNodes open nodes: a larger state, e.g. a GPU's pools, is not sent).
constexpr std::size_t kMaxProgressNodes = 20000;
// Without `checkpointing`, a chunk stopped by its time limit or for good returns no open nodes
// (chunk_job::drop_left_at_stop).
// `start`: the start's steps to report with the times (contexts, pairs, engines).
solve_stats run_worker(MPI_Comm comm, const bound_data& data, const solve_options& opt, const chunk_solver& solve,
                       double heartbeat, double progress_interval, bool checkpointing, const rank_time& start = {});

}  // namespace pfsp::dist
