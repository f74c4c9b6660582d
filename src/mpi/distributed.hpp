// Branch-and-bound across MPI ranks (`pfsp-mpi`): rank 0 cuts the tree into a breadth-first
// frontier (frontier.hpp) and hands chunks of frontier nodes to the other ranks on request; each
// worker solves its chunk to the end with a local solver (cpu, cpu-mt, or the GPU device loop)
// resumed from the chunk, starting from the best makespan known when the chunk was sent, and
// returns the chunk's statistics and any better schedule. The incumbent travels with every chunk
// and every result. With one rank, rank 0 solves the chunks itself.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <functional>

#include "mpi/devices.hpp"
#include "mpi/frontier.hpp"
#include "mpi/worker.hpp"
#include "problem/instance.hpp"
#include "search/incumbent_feed.hpp"

namespace pfsp::dist {

// Rank 0's load while it serves the workers (issue 22 item 5: its capacity; pfsp-mpi's notes).
// Messages and bytes as MPI carries them (8-byte words); CPU from getrusage over the serving
// phase: the whole process (MPI's own threads and rank 0's improver included) and the serving
// thread alone.
struct coordinator_stats {
  std::uint64_t results = 0, beats = 0, finds = 0, progress = 0;  // messages received, by kind
  std::uint64_t works = 0, controls = 0;                          // messages sent: chunks or stops, control
  std::uint64_t chunks = 0;                                       // chunks handed out
  std::uint64_t bytes_in = 0, bytes_out = 0, largest_in = 0, largest_out = 0;
  double frontier_seconds = 0;  // building (or expanding) the frontier
  std::size_t frontier_nodes = 0;
  double serve_seconds = 0, serve_cpu_seconds = 0, serve_thread_cpu_seconds = 0;
  double serve_from = 0;                      // seconds from rank 0's start (solve_options::time_origin) to serving
  double handling_cpu_seconds = 0;            // the serving thread's CPU on messages (idle polling excluded)
  double workers_busy = 0, workers_life = 0;  // summed over the workers' reported times
  std::uint64_t received() const { return results + beats + finds + progress; }
};

// pfsp-mpi's --chunk-nodes auto. On the GPU backend each chunk was a new device loop whose set-up
// (about 20 ms) was paid per chunk: 16 nodes a chunk against 4 cut ta021-ta030's proofs from 9.94 to
// 6.70 s on 4 ranks x 1 H100 (6.44 to 4.96 s on one) and branch as many nodes in a 10-s ta056
// slice; 64 left ranks idle at the slice's end (0.79 of 4x pfsp solve's nodes against 0.98;
// bench/results/2026-11-28-h100x4-mpi-chunks). Since the workers keep their engines (gpu
// engine_cache) 16 still leads, by less: 5.14 s against 5.42 on 4 ranks, 2.96 against 3.30 on one
// (bench/results/2026-11-27-h100x4-mpi-kept-engines). The CPU backends keep 4 (no set-up there).
constexpr std::size_t default_chunk_nodes(bool gpu_backend) { return gpu_backend ? 16 : 4; }

struct distributed_options {
  std::size_t frontier_per_worker = 64;  // frontier nodes to build per worker rank (at least 1 rank)
  std::size_t chunk_nodes = 4;           // frontier nodes a chunk (pfsp-mpi: default_chunk_nodes)
  // Whole-run checkpoints (rank 0): `save` receives the run's state (run_state in frontier.hpp)
  // every checkpoint_interval seconds, at once when a stop is decided (a signal on any rank, a
  // limit), and at the end; null: none. The caller writes it atomically.
  std::function<void(const search_state&)> save;
  double checkpoint_interval = 60.0;
  // Long chunks are split: when rank 0's frontier is empty and a worker waits, a chunk running
  // for at least split_after seconds is asked back (its worker returns what it has left, which
  // goes back to the frontier). Negative: never.
  double split_after = 1.0;
  // Ranks join when the tree is worth it (issue 22 item 6, the ranks' twin of the engines' join
  // rule, src/gpu/join_rule.hpp): the first chunk is the whole frontier, for one worker; the
  // others wait and join when it has run split_after seconds (it is asked back, and what it has
  // left is handed out). A tree that ends sooner costs one worker's time, not the chunking of a
  // frontier over every rank. false (--ranks-join at-once, the default), or split_after < 0:
  // every worker gets chunks from the start.
  bool lazy_join = false;
  // Rank 0: a source of schedules beside the search (heuristic/improver.hpp), polled by rank 0
  // and broadcast like the ranks' own improvements; null: none.
  incumbent_feed* improver = nullptr;
  // A lost worker (docs/decisions/011-lost-ranks.md): each worker sends a heartbeat every
  // `heartbeat` seconds; one silent for worker_timeout seconds is dropped and its chunk goes back
  // to the frontier (the run survives it where the MPI launcher lets the others live:
  // `mpirun --enable-recovery`).
  double heartbeat = 1.0;
  double worker_timeout = 30.0;
  // Workers report a running chunk's progress (its solver's state: what it branched, what it has
  // left, at most kMaxProgressNodes open nodes) every progress_interval seconds, and rank 0 saves
  // that instead of the chunk as sent and gives it to others if the worker is lost; 0: never
  // (pfsp-mpi: the checkpoint interval when --checkpoint is given).
  double progress_interval = 0;
  // The run writes checkpoints (every rank knows: pfsp-mpi's --checkpoint). Without them, a chunk
  // that ends on the time limit, or that rank 0 stops to end the run, returns its lower bound but
  // not its open nodes (chunk_job::drop_left_at_stop).
  bool checkpointing = false;
  // Filled by rank 0 when set (the bench of rank 0's capacity reads it).
  coordinator_stats* stats = nullptr;
  // A worker's start, step by step (rank_time's contexts, pairs, engines), for rank 0's note.
  rank_time start;
};

// Collective over `comm`: where this rank stands among the worker ranks of its node (rank 0 is
// no worker when there are others; alone, it is its own node's only worker). Rank 0 of several
// gets {0, 0}. Nodes are told apart by MPI_Get_processor_name (one MPI_Allgather), so it holds
// under mpirun and srun alike. (A communicator split instead made MPI_Finalize hang after a
// worker's kill -9 under mpirun --enable-recovery.)
rank_place node_place(MPI_Comm comm);

// Collective over `comm`. opt.resume, if set, is a whole-run checkpoint (or any depth-first
// search state) to continue from: its threshold, statistics and open nodes; `start` carries its
// incumbent. Rank 0 returns the whole search's result (status, schedule, proven
// bound, statistics summed over ranks, notes); the other ranks return their own statistics.
// Limits: time and Ctrl-C stop handing out chunks, and each chunk runs with the time left; the
// node limit is checked by rank 0 between chunks.
solve_result solve_distributed(MPI_Comm comm, const instance& inst, const bound_data& data, const solve_options& opt,
                               const incumbent& start, const chunk_solver& solve_chunk, const distributed_options& d);

}  // namespace pfsp::dist
