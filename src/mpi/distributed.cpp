#include "mpi/distributed.hpp"

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "base/error.hpp"

namespace pfsp::dist {
namespace {

constexpr int kTagWork = 1;    // rank 0 -> worker: a chunk, or stop
constexpr int kTagResult = 2;  // worker -> rank 0: the last chunk's result (or none), and a request

using words = std::vector<std::int64_t>;

void check(int rc, const char* what) {
  if (rc != MPI_SUCCESS) throw error(std::string("MPI call failed: ") + what);
}

void send(MPI_Comm comm, const words& w, int to, int tag) {
  check(MPI_Send(w.data(), static_cast<int>(w.size()), MPI_INT64_T, to, tag, comm), "MPI_Send");
}

words receive(MPI_Comm comm, int from, int tag, MPI_Status& st) {
  check(MPI_Probe(from, tag, comm, &st), "MPI_Probe");
  int count = 0;
  check(MPI_Get_count(&st, MPI_INT64_T, &count), "MPI_Get_count");
  words w(static_cast<std::size_t>(count));
  check(MPI_Recv(w.data(), count, MPI_INT64_T, st.MPI_SOURCE, st.MPI_TAG, comm, MPI_STATUS_IGNORE), "MPI_Recv");
  return w;
}

std::int64_t bits_of(double v) {
  std::int64_t b = 0;
  std::memcpy(&b, &v, sizeof b);
  return b;
}
double double_of(std::int64_t b) {
  double v = 0;
  std::memcpy(&v, &b, sizeof v);
  return v;
}

// Work message: [1, ub, milliseconds left (-1: none), count, count x (limit1, limit2, lb, n jobs)]
// or [0] (stop).
words work_message(const std::vector<frontier_node>& nodes, int ub, double seconds_left, int n) {
  words w{1, ub, seconds_left < 0 ? -1 : static_cast<std::int64_t>(seconds_left * 1000.0),
          static_cast<std::int64_t>(nodes.size())};
  for (const frontier_node& f : nodes) {
    w.push_back(f.meta.limit1);
    w.push_back(f.meta.limit2);
    w.push_back(f.meta.lb);
    for (int i = 0; i < n; ++i) w.push_back(f.perm[static_cast<std::size_t>(i)]);
  }
  return w;
}

// Result message: [has, status, makespan, lower bound, branched, bounds, pruned, leaves,
// explored (bits), schedule length, schedule...]; has = 0 for the first request.
words result_message(const solve_result* r) {
  if (!r) return {0};
  words w{1,
          static_cast<std::int64_t>(r->status),
          r->makespan,
          r->lower_bound,
          static_cast<std::int64_t>(r->stats.branched),
          static_cast<std::int64_t>(r->stats.bounds),
          static_cast<std::int64_t>(r->stats.pruned),
          static_cast<std::int64_t>(r->stats.leaves),
          bits_of(r->stats.explored),
          static_cast<std::int64_t>(r->schedule.size())};
  for (int j : r->schedule) w.push_back(j);
  return w;
}

struct chunk_outcome {
  bool complete = true;
  int lower_bound = INT_MAX;  // of an incomplete chunk
  solve_status status = solve_status::optimal;
};

// Adds a chunk's result to the totals; a better schedule goes to `best`.
chunk_outcome merge(const words& w, int n, incumbent& best, solve_stats& total) {
  chunk_outcome o;
  if (w.empty() || w[0] == 0) return o;
  if (w.size() < 10) throw error("distributed: a truncated result message");
  o.status = static_cast<solve_status>(w[1]);
  const int makespan = static_cast<int>(w[2]);
  total.branched += static_cast<std::uint64_t>(w[4]);
  total.bounds += static_cast<std::uint64_t>(w[5]);
  total.pruned += static_cast<std::uint64_t>(w[6]);
  total.leaves += static_cast<std::uint64_t>(w[7]);
  total.explored += double_of(w[8]);
  const auto len = static_cast<std::size_t>(w[9]);
  if (len == static_cast<std::size_t>(n) && w.size() >= 10 + len) {
    std::vector<int> schedule(w.begin() + 10, w.begin() + 10 + static_cast<std::ptrdiff_t>(len));
    best.offer(makespan, schedule.data(), n);
  }
  o.complete = o.status == solve_status::optimal || o.status == solve_status::proven_bound;
  if (!o.complete) o.lower_bound = static_cast<int>(w[3]);
  return o;
}

std::vector<frontier_node> take_chunk(std::deque<frontier_node>& frontier, std::size_t k) {
  std::vector<frontier_node> out;
  while (!frontier.empty() && out.size() < k) {
    out.push_back(std::move(frontier.front()));
    frontier.pop_front();
  }
  return out;
}

// Every rank's time (seconds solving chunks, seconds from entering solve_distributed to the last
// chunk's answer, branched nodes) gathered on rank 0 (issue 11's idle share per worker).
struct rank_time {
  double busy = 0, life = 0, branched = 0;
};
std::vector<rank_time> gather_times(MPI_Comm comm, int rank, int size, const rank_time& mine) {
  std::vector<rank_time> all(rank == 0 ? static_cast<std::size_t>(size) : 0);
  const double send[3] = {mine.busy, mine.life, mine.branched};
  check(MPI_Gather(send, 3, MPI_DOUBLE, rank == 0 ? &all[0].busy : nullptr, 3, MPI_DOUBLE, 0, comm), "MPI_Gather");
  return all;
}

}  // namespace

solve_result solve_distributed(MPI_Comm comm, const instance& inst, const bound_data& data, const solve_options& opt,
                               const incumbent& start, const chunk_solver& solve_chunk, const distributed_options& d) {
  int rank = 0, size = 1;
  check(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  check(MPI_Comm_size(comm, &size), "MPI_Comm_size");
  const int n = inst.n;
  const std::size_t chunk = std::max<std::size_t>(1, d.chunk_nodes);

  // A chunk solved here: the chunk's nodes as a resumed search, the time left as its limit.
  auto solve_here = [&](const std::vector<frontier_node>& nodes, int ub, double seconds_left, int threshold) {
    const search_state state = chunk_state(data, opt, threshold, nodes);
    solve_options o = opt;
    o.resume = &state;
    o.initial_ub.reset();
    o.node_limit = 0;
    o.time_limit = seconds_left < 0 ? 0.0 : std::max(seconds_left, 1e-3);
    o.on_progress = nullptr;
    o.on_checkpoint = nullptr;
    return solve_chunk(o, incumbent(ub, {}));
  };

  using steady = std::chrono::steady_clock;
  const auto entered = steady::now();
  auto since = [](steady::time_point t) { return std::chrono::duration<double>(steady::now() - t).count(); };
  if (rank != 0) {
    // Worker: ask, solve, answer, until told to stop.
    rank_time times;
    solve_stats mine;
    solve_result last;
    bool have = false;
    for (;;) {
      send(comm, result_message(have ? &last : nullptr), 0, kTagResult);
      MPI_Status st;
      const words w = receive(comm, 0, kTagWork, st);
      if (w.empty() || w[0] == 0) break;
      const int ub = static_cast<int>(w[1]);
      const double left = w[2] < 0 ? -1.0 : static_cast<double>(w[2]) / 1000.0;
      const auto count = static_cast<std::size_t>(w[3]);
      std::vector<frontier_node> nodes(count);
      std::size_t at = 4;
      for (frontier_node& f : nodes) {
        f.meta = {static_cast<std::int32_t>(w[at]), static_cast<std::int32_t>(w[at + 1]),
                  static_cast<std::int32_t>(w[at + 2])};
        at += 3;
        f.perm.resize(static_cast<std::size_t>(n));
        for (int i = 0; i < n; ++i) f.perm[static_cast<std::size_t>(i)] = static_cast<job_t>(w[at++]);
      }
      // The threshold only matters as the pruning value here: ub carries the best known.
      const auto t0 = steady::now();
      last = solve_here(nodes, ub, left, ub);
      times.busy += since(t0);
      mine += last.stats;
      have = true;
    }
    times.life = since(entered);
    times.branched = static_cast<double>(mine.branched);
    gather_times(comm, rank, size, times);
    solve_result r;
    r.stats = mine;
    r.status = solve_status::optimal;
    return r;
  }

  // Rank 0: the frontier, then chunks on request.
  run_control ctl(opt);
  incumbent best(start);
  const int threshold = initial_threshold(opt, best);
  solve_stats total;
  const std::size_t workers = static_cast<std::size_t>(size - 1);
  std::deque<frontier_node> frontier =
      build_frontier(data, opt, threshold, best, std::max<std::size_t>(1, workers) * d.frontier_per_worker, total);
  const std::size_t frontier_size = frontier.size();
  int open_min = INT_MAX;
  solve_status stop = solve_status::optimal;
  std::size_t chunks = 0;
  auto seconds_left = [&] { return opt.time_limit > 0 ? opt.time_limit - ctl.elapsed() : -1.0; };
  auto keep_going = [&] {
    if (stop == solve_status::optimal) stop = ctl.check(total.branched);
    return stop == solve_status::optimal;
  };
  auto note_outcome = [&](const chunk_outcome& o) {
    if (o.complete) return;
    open_min = std::min(open_min, o.lower_bound);
    if (stop == solve_status::optimal) stop = o.status;
  };

  if (workers == 0) {
    while (!frontier.empty() && keep_going()) {
      const std::vector<frontier_node> nodes = take_chunk(frontier, chunk);
      const solve_result r = solve_here(nodes, std::min(threshold, best.value()), seconds_left(), threshold);
      note_outcome(merge(result_message(&r), n, best, total));
      ++chunks;
    }
  } else {
    std::size_t stopped = 0;
    while (stopped < workers) {
      MPI_Status st;
      const words w = receive(comm, MPI_ANY_SOURCE, kTagResult, st);
      note_outcome(merge(w, n, best, total));
      if (!frontier.empty() && keep_going()) {
        const std::vector<frontier_node> nodes = take_chunk(frontier, chunk);
        send(comm, work_message(nodes, std::min(threshold, best.value()), seconds_left(), n), st.MPI_SOURCE, kTagWork);
        ++chunks;
      } else {
        send(comm, words{0}, st.MPI_SOURCE, kTagWork);
        ++stopped;
      }
    }
  }
  const double frontier_seconds_end = since(entered);
  const std::vector<rank_time> times = gather_times(comm, rank, size, rank_time{0, frontier_seconds_end, 0});
  for (const frontier_node& f : frontier) open_min = std::min(open_min, f.meta.lb);
  if (!frontier.empty() && stop == solve_status::optimal) stop = solve_status::interrupted;
  solve_result r = finish_result(stop, best, threshold, open_min, total, ctl.elapsed());
  r.backend = "mpi (" + std::to_string(size) + (size == 1 ? " rank" : " ranks") + ")";
  r.notes.push_back("frontier of " + std::to_string(frontier_size) + " nodes built on rank 0, " +
                    std::to_string(chunks) + " chunks of up to " + std::to_string(chunk) + " nodes solved by " +
                    (workers ? std::to_string(workers) + " worker rank" + (workers == 1 ? "" : "s") : "rank 0"));
  if (workers) {
    std::string line = "workers' time (busy solving chunks / idle waiting for rank 0 / life):";
    for (int k = 1; k < size; ++k) {
      const rank_time& t = times[static_cast<std::size_t>(k)];
      const double idle = std::max(0.0, t.life - t.busy);
      char buf[160];
      std::snprintf(buf, sizeof buf, "%s rank %d branched %.0f, busy %.3f s, idle %.3f s = %.1f %%, life %.3f s",
                    k == 1 ? "" : ";", k, t.branched, t.busy, idle, t.life > 0 ? 100.0 * idle / t.life : 0.0, t.life);
      line += buf;
    }
    r.notes.push_back(line);
  }
  return r;
}

}  // namespace pfsp::dist
