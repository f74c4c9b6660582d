// The messages of pfsp-mpi (distributed.hpp) and their encoding: arrays of int64 words, sent
// point to point between rank 0 and a worker. Layouts:
//   work    (0 -> w, kTagWork):    [1, chunk id, ub, ms left (-1: none), count, count x node] or [0] (stop)
//   result  (w -> 0, kTagResult):  [has, chunk id, status, makespan, lower bound, branched, bounds,
//                                   pruned, leaves, explored (bits), signalled, schedule length,
//                                   schedule..., count left, count x node]; [0] for the first request
//   control (0 -> w, kTagControl): [kStopChunk, chunk id(, 1)] (give back what is left of that
//                                  chunk; with 1, the run ends: without checkpoints its lower
//                                  bound is enough, chunk_job::drop_left_at_stop) or
//                                  [kIncumbent, makespan, sent at (double bits, rank 0's monotonic
//                                  seconds), schedule...] (a better schedule, anywhere)
//   found   (w -> 0, kTagFound):   [makespan, schedule...] (a better schedule found inside a chunk)
// A node is [limit1, limit2, lb, n jobs]. Sizes: a node is n + 3 words (23 x 8 bytes at 20 jobs).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <vector>

#include "mpi/frontier.hpp"

namespace pfsp::dist {

constexpr int kTagWork = 1;
constexpr int kTagResult = 2;
constexpr int kTagControl = 3;
constexpr int kTagFound = 4;
constexpr int kTagBeat = 5;  // w -> 0: [] (alive), every heartbeat seconds, busy or waiting
// w -> 0, after the stop: [busy, life, branched, incumbents taken, their longest latency] (double
// bits)
constexpr int kTagTimes = 6;
// w -> 0: a running chunk's progress, as a result message (status interrupted): what its solver
// branched so far, its incumbent if better than the chunk's ub, and the open nodes it has left
constexpr int kTagProgress = 7;
constexpr std::int64_t kStopChunk = 1;
constexpr std::int64_t kIncumbent = 2;

using words = std::vector<std::int64_t>;

// MPI calls that fail throw pfsp::error naming the call.
void check_mpi(int rc, const char* what);
void send_words(MPI_Comm comm, const words& w, int to, int tag);
// The pending message matched by `st` (from MPI_Probe or MPI_Iprobe).
words receive_matched(MPI_Comm comm, const MPI_Status& st);
// Sends where the peer may be gone (a lost worker): false instead of an exception.
bool try_send_words(MPI_Comm comm, const words& w, int to, int tag);
// Whether a message with `tag` from `from` (or MPI_ANY_SOURCE) is waiting; fills `st`.
bool waiting(MPI_Comm comm, int from, int tag, MPI_Status& st);

// Rank 0's sends, nonblocking: a standard-mode MPI_Send may wait until the receiver takes the
// message (Open MPI's shared-memory transport returns the fragment only then; large messages go
// by rendezvous), so one slow or descheduled worker would hold up rank 0's answers to all the
// others (measured: 87 % of rank 0's time in MPI_Send with 8 oversubscribed workers). Each
// message's buffer lives here until MPI is done with it.
class send_queue {
 public:
  explicit send_queue(MPI_Comm comm) : comm_(comm) {}
  send_queue(const send_queue&) = delete;
  send_queue& operator=(const send_queue&) = delete;
  ~send_queue() { release(); }

  bool post(words w, int to, int tag);  // false: MPI refused the send (the peer is gone)
  void reap();                          // forgets the completed sends (one MPI_Testsome)
  void drain(double seconds);           // waits up to `seconds` for the rest, then releases them
  // Cancels the pending sends to `to` (a lost worker): a send left pending to a dead rank made
  // MPI_Finalize hang under mpirun --enable-recovery.
  void cancel_to(int to);
  std::size_t pending() const { return requests_.size(); }

 private:
  void release();  // MPI_Request_free on what is left (MPI completes or drops them)
  MPI_Comm comm_;
  std::vector<MPI_Request> requests_;
  std::vector<words> buffers_;  // buffers_[i] belongs to requests_[i]; a move keeps its storage
  std::vector<int> peers_;      // peers_[i]: the destination of requests_[i]
};

struct work_msg {
  bool stop = true;
  std::int64_t chunk_id = 0;
  int ub = 0;
  double seconds_left = -1;  // negative: no limit
  std::vector<frontier_node> nodes;
};
words encode(const work_msg& m, int n);
work_msg decode_work(const words& w, int n);

struct result_msg {
  bool has = false;  // false: the worker's first request
  std::int64_t chunk_id = 0;
  solve_status status = solve_status::optimal;
  int makespan = 0;
  int lower_bound = 0;
  solve_stats stats;                // branched, bounds, pruned, leaves, explored
  bool signalled = false;           // the worker's process received SIGINT or SIGTERM
  std::vector<int> schedule;        // better than the chunk's ub, or empty
  std::vector<frontier_node> left;  // what remains of an unfinished chunk
};
words encode(const result_msg& m, int n);
result_msg decode_result(const words& w, int n);

// [makespan, schedule...] (the found message; the control message prepends kIncumbent).
words encode_schedule(int makespan, const std::vector<int>& schedule);

words encode_doubles(const std::vector<double>& v);
std::int64_t double_bits(double v);
double bits_double(std::int64_t b);
std::vector<double> decode_doubles(const words& w);

// PFSP_MPI_TRACE in the environment: rank 0 and the workers write every chunk and result to
// stderr (src/mpi/README.md, "Debugging"). Read once.
bool tracing();

}  // namespace pfsp::dist
