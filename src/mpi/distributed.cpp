#include "mpi/distributed.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "base/error.hpp"
#include "mpi/messages.hpp"
#include "mpi/rank_feed.hpp"
#include "mpi/worker.hpp"

namespace pfsp::dist {
namespace {

using steady = std::chrono::steady_clock;
double since(steady::time_point t) { return std::chrono::duration<double>(steady::now() - t).count(); }

double cpu_seconds(int who) {
  rusage u{};
  getrusage(who, &u);
  const auto sec = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + 1e-6 * static_cast<double>(t.tv_usec);
  };
  return sec(u.ru_utime) + sec(u.ru_stime);
}

double thread_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

std::vector<frontier_node> take_chunk(std::deque<frontier_node>& frontier, std::size_t k) {
  std::vector<frontier_node> out;
  while (!frontier.empty() && out.size() < k) {
    out.push_back(std::move(frontier.front()));
    frontier.pop_front();
  }
  return out;
}

// Rank 0: the frontier (built, or resumed), the chunks in flight, the incumbent, the counters,
// the whole-run checkpoints; it serves the workers' messages (or, alone, solves the chunks).
class coordinator {
 public:
  coordinator(MPI_Comm comm, int size, const bound_data& data, const solve_options& opt, const incumbent& start,
              const chunk_solver& solve, const distributed_options& d)
      : comm_(comm),
        size_(size),
        n_(data.view().inst.n),
        data_(data),
        opt_(opt),
        solve_(solve),
        d_(d),
        ctl_(opt),
        best_(start),
        chunk_(std::max<std::size_t>(1, d.chunk_nodes)),
        lone_start_(d.lazy_join && d.split_after >= 0 && size > 1),
        heard_(static_cast<std::size_t>(size)),
        stopped_flag_(static_cast<std::size_t>(size)),
        lost_flag_(static_cast<std::size_t>(size)) {}

  solve_result run() {
    const auto t0 = steady::now();
    start_frontier();
    load_.frontier_seconds = since(t0);
    load_.frontier_nodes = frontier_size_;
    last_save_ = steady::now();
    std::fill(heard_.begin(), heard_.end(), steady::now());
    if (size_ == 1)
      solve_alone();
    else
      serve_workers_measured();
    save();
    solve_result r = result(receive_times());
    sends_.drain(1.0);
    load_.chunks = chunks_;
    if (d_.stats) *d_.stats = load_;
    return r;
  }

 private:
  struct flight {
    std::int64_t id = 0;
    std::vector<frontier_node> nodes;
    steady::time_point since;
    bool asked_back = false;
    solve_stats done;  // the worker's last progress: what it branched (nodes: what it has left)
  };

  std::size_t workers() const { return static_cast<std::size_t>(size_ - 1); }

  // From the root, or from opt.resume's open nodes (expanded further if fewer than the target).
  void start_frontier() {
    const std::size_t target = std::max<std::size_t>(1, workers()) * d_.frontier_per_worker;
    if (!opt_.resume) {
      threshold_ = initial_threshold(opt_, best_);
      frontier_ = build_frontier(data_, opt_, threshold_, best_, target, total_);
    } else {
      threshold_ = opt_.resume->threshold;
      total_ = opt_.resume->stats;
      resumed_seconds_ = opt_.resume->stats.total_seconds;
      frontier_ = frontier_of(*opt_.resume);
      expand_frontier(data_, opt_, threshold_, best_, target, frontier_, total_);
    }
    frontier_size_ = frontier_.size();
  }

  int ub() const { return std::min(threshold_, best_.value()); }
  double seconds_left() const { return opt_.time_limit > 0 ? opt_.time_limit - ctl_.limit_elapsed() : -1.0; }

  // --- one rank: rank 0 solves the chunks itself ---
  void solve_alone() {
    while (!frontier_.empty() && check_stop()) {
      const std::vector<frontier_node> nodes = take_chunk(frontier_, chunk_);
      largest_chunk_ = std::max(largest_chunk_, nodes.size());
      chunk_job job;
      job.nodes = &nodes;
      job.ub = ub();
      job.seconds_left = seconds_left();
      job.interrupt = opt_.interrupt;
      job.feed = d_.improver;
      if (d_.save) {
        job.checkpoint_interval = d_.checkpoint_interval;
        job.on_checkpoint = [&](const search_state& s) { save_with(nodes_of(s), s.stats); };
      }
      chunk_run run = run_chunk(data_, opt_, solve_, job);
      absorb(run.result.stats, run.result.makespan, run.result.schedule, std::move(run.left));
      if (!run.complete && stop_ == solve_status::optimal) stop_ = run.result.status;
      ++chunks_;
      if (since(last_save_) >= d_.checkpoint_interval) save();
    }
  }

  // --- several ranks: serve the workers until each was told to stop ---
  void serve_workers_measured() {
    const auto t0 = steady::now();
    if (opt_.time_origin) load_.serve_from = std::chrono::duration<double>(t0 - *opt_.time_origin).count();
    const double cpu0 = cpu_seconds(RUSAGE_SELF), thread0 = cpu_seconds(RUSAGE_THREAD);
    serve_workers();
    load_.serve_seconds = since(t0);
    load_.serve_cpu_seconds = cpu_seconds(RUSAGE_SELF) - cpu0;
    load_.serve_thread_cpu_seconds = cpu_seconds(RUSAGE_THREAD) - thread0;
  }

  // Receives the message matched by `st`, counted in load_ by kind.
  words receive(const MPI_Status& st) {
    words w = receive_matched(comm_, st);
    const std::uint64_t bytes = 8 * w.size();
    load_.bytes_in += bytes;
    load_.largest_in = std::max(load_.largest_in, bytes);
    ++(st.MPI_TAG == kTagBeat       ? load_.beats
       : st.MPI_TAG == kTagFound    ? load_.finds
       : st.MPI_TAG == kTagProgress ? load_.progress
                                    : load_.results);
    return w;
  }

  // Sends where the worker may be gone (false then), counted in load_.
  bool send(words w, int to, int tag) {
    const std::uint64_t bytes = 8 * w.size();
    load_.bytes_out += bytes;
    load_.largest_out = std::max(load_.largest_out, bytes);
    ++(tag == kTagWork ? load_.works : load_.controls);
    return sends_.post(std::move(w), to, tag);
  }

  // The serving thread's CPU spent on messages is summed apart from its idle polling: a
  // saturated rank 0 never idles, so messages / handling CPU is what one core serves.
  void serve_workers() {
    serve_start_ = ctl_.elapsed();
    while (stopped_ < workers()) {
      sends_.reap();
      const double c0 = thread_cpu_seconds();
      if (serve_one_message()) {
        load_.handling_cpu_seconds += thread_cpu_seconds() - c0;
      } else {
        poll_improver();
        check_stop();
        drop_silent_workers();
        ask_back_long_chunks();
        stop_workers_not_needed();
        if (d_.save && since(last_save_) >= d_.checkpoint_interval) save();
        std::this_thread::sleep_for(std::chrono::microseconds(200));
      }
    }
    if (search_seconds_ < 0) search_seconds_ = ctl_.elapsed();
  }

  // Once no chunk runs and none is left to hand out (the tree is done, or the run stops), the
  // search is over: its clock stops, and the workers that have not asked for work yet (still
  // creating their CUDA contexts: 0.9-1.0 s on a 4-GPU host, against 0.45 s for one worker) are
  // told to stop at once, their stop waiting for them. Before, the run lasted until every worker
  // had asked once, so four workers could not prove a small tree faster than the last one's start.
  void stop_workers_not_needed() {
    if (!in_flight_.empty() || (stop_ == solve_status::optimal && !frontier_.empty())) return;
    if (search_seconds_ < 0) search_seconds_ = ctl_.elapsed();
    for (int w = 1; w < size_; ++w) {
      const auto k = static_cast<std::size_t>(w);
      if (stopped_flag_[k]) continue;
      send(encode(work_msg{}, n_), w, kTagWork);
      stopped_flag_[k] = true;
      ++stopped_;
    }
    parked_.clear();
  }

  bool serve_one_message() {
    MPI_Status st;
    if (waiting(comm_, MPI_ANY_SOURCE, kTagBeat, st)) {
      receive(st);
      heard_[static_cast<std::size_t>(st.MPI_SOURCE)] = steady::now();
      return true;
    }
    if (waiting(comm_, MPI_ANY_SOURCE, kTagFound, st)) {
      heard_[static_cast<std::size_t>(st.MPI_SOURCE)] = steady::now();
      const words w = receive(st);
      if (!w.empty()) offer(static_cast<int>(w[0]), std::vector<int>(w.begin() + 1, w.end()));
      return true;
    }
    if (waiting(comm_, MPI_ANY_SOURCE, kTagProgress, st)) {
      heard_[static_cast<std::size_t>(st.MPI_SOURCE)] = steady::now();
      on_progress(st.MPI_SOURCE, decode_result(receive(st), n_));
      return true;
    }
    if (!waiting(comm_, MPI_ANY_SOURCE, kTagResult, st)) return false;
    const int from = st.MPI_SOURCE;
    heard_[static_cast<std::size_t>(from)] = steady::now();
    if (first_ready_ < 0 && search_seconds_ < 0) first_ready_ = ctl_.elapsed();
    if (lost_flag_[static_cast<std::size_t>(from)] || stopped_flag_[static_cast<std::size_t>(from)]) {
      receive(st);  // dropped as lost (its chunk was given to others), or a request its stop answers
      return true;
    }
    on_result(from, decode_result(receive(st), n_));
    hand_out(from);
    serve_parked();
    return true;
  }

  void on_result(int from, result_msg r) {
    const auto it = in_flight_.find(from);
    const bool asked_back = it != in_flight_.end() && it->second.asked_back;
    if (tracing() && r.has)
      std::fprintf(stderr,
                   "trace rank0: result from %d chunk %lld (in flight %lld, %zu nodes) status %d branched %llu left "
                   "%zu asked_back %d\n",
                   from, static_cast<long long>(r.chunk_id),
                   static_cast<long long>(it != in_flight_.end() ? it->second.id : -1),
                   it != in_flight_.end() ? it->second.nodes.size() : 0, static_cast<int>(r.status),
                   static_cast<unsigned long long>(r.stats.branched), r.left.size(), asked_back ? 1 : 0);
    if (it != in_flight_.end()) in_flight_.erase(it);
    if (!r.has) return;
    const bool complete = r.status == solve_status::optimal || r.status == solve_status::proven_bound;
    if (asked_back && !complete && !r.signalled && stop_ == solve_status::optimal) ++splits_;
    // A chunk that stopped on its own (time limit, a signal on its rank) stops the run.
    if (!complete && (!asked_back || r.signalled) && stop_ == solve_status::optimal) {
      stop_ = r.signalled ? solve_status::interrupted : r.status;
      stop_decided();
    }
    // A chunk that kept its open nodes to itself (no checkpoint, the run ending) leaves its lower
    // bound for them.
    if (!complete && r.left.empty()) {
      dropped_lb_ = std::min(dropped_lb_, r.lower_bound);
      ++dropped_chunks_;
    }
    absorb(r.stats, r.makespan, r.schedule, std::move(r.left));
  }

  // A running chunk's progress replaces its nodes as sent (checkpoints, a lost worker); a stale
  // one (of a chunk already answered) is ignored. Its incumbent first: its nodes were pruned by it.
  void on_progress(int from, result_msg r) {
    const auto it = in_flight_.find(from);
    if (it == in_flight_.end() || it->second.id != r.chunk_id) return;
    if (!r.schedule.empty()) offer(r.makespan, r.schedule);
    it->second.nodes = std::move(r.left);
    it->second.done = r.stats;
  }

  // A chunk's counters, schedule and unfinished nodes (back to the front of the frontier).
  void absorb(const solve_stats& s, int makespan, const std::vector<int>& schedule, std::vector<frontier_node> left) {
    total_ += s;
    if (!schedule.empty()) offer(makespan, schedule);
    for (auto it = left.rbegin(); it != left.rend(); ++it) frontier_.push_front(std::move(*it));
  }

  // A chunk, or wait (parked) while other chunks may give work back, or stop.
  void hand_out(int w) {
    if (stop_ == solve_status::optimal && !frontier_.empty()) {
      flight f{next_id_++, take_chunk(frontier_, next_chunk_size()), steady::now(), false, {}};
      largest_chunk_ = std::max(largest_chunk_, f.nodes.size());
      work_msg m;
      m.stop = false;
      m.chunk_id = f.id;
      m.ub = ub();
      m.seconds_left = seconds_left();
      m.nodes = f.nodes;
      const bool sent = send(encode(m, n_), w, kTagWork);
      if (tracing())
        std::fprintf(stderr, "trace rank0: chunk %lld (%zu nodes) to %d, frontier %zu, %s\n",
                     static_cast<long long>(f.id), f.nodes.size(), w, frontier_.size(),
                     in_flight_.count(w) ? "REPLACING A CHUNK IN FLIGHT" : "ok");
      in_flight_[w] = std::move(f);
      ++chunks_;
      if (!sent) drop(w);
    } else if (stop_ == solve_status::optimal && !in_flight_.empty() && d_.split_after >= 0) {
      parked_.push_back(w);
    } else {
      send(encode(work_msg{}, n_), w, kTagWork);
      stopped_flag_[static_cast<std::size_t>(w)] = true;
      ++stopped_;
    }
  }

  // The first chunk of a lazy join is the whole frontier (the other workers park until it is
  // split). Later chunks, at-once or lazy, grow with the frontier: one that splits made larger
  // than the frontier built is cut into about as many chunks as the built one. A GPU worker's
  // split returns up to millions of nodes, which chunk_nodes at a time would cost a chunk's setup
  // each: at-once on ta023 with --chunk-nodes 64 and --split-after 1 took 42.6 s (6585 chunks)
  // where pfsp solve takes 1.6 s (bench/results/2026-11-27-h100-mpi-split-race).
  std::size_t next_chunk_size() {
    if (lone_start_) {
      lone_start_ = false;
      return frontier_.size();
    }
    return chunk_ * std::max<std::size_t>(1, frontier_.size() / std::max<std::size_t>(1, frontier_size_));
  }

  // Workers silent for worker_timeout seconds (no heartbeat, no message) are dropped.
  void drop_silent_workers() {
    for (int w = 1; w < size_; ++w) {
      const auto k = static_cast<std::size_t>(w);
      if (!stopped_flag_[k] && std::chrono::duration<double>(steady::now() - heard_[k]).count() > d_.worker_timeout)
        drop(w);
    }
  }

  // A lost worker: its chunk's nodes go back to the frontier (its counters for them never
  // arrived, so nothing is counted twice); it is never written to again.
  void drop(int w) {
    const auto k = static_cast<std::size_t>(w);
    if (stopped_flag_[k]) return;
    stopped_flag_[k] = lost_flag_[k] = true;
    sends_.cancel_to(w);
    ++stopped_;
    ++lost_;
    std::fprintf(stderr, "pfsp-mpi: warning: rank %d lost (silent for %.1f s); its chunk goes to the others\n", w,
                 d_.worker_timeout);
    parked_.erase(std::remove(parked_.begin(), parked_.end(), w), parked_.end());
    const auto it = in_flight_.find(w);
    if (it != in_flight_.end()) {
      total_ += it->second.done;
      std::vector<frontier_node>& nodes = it->second.nodes;
      for (auto n = nodes.rbegin(); n != nodes.rend(); ++n) frontier_.push_front(std::move(*n));
      in_flight_.erase(it);
    }
    serve_parked();
  }

  // Each live worker's times (sent after its stop); a worker lost after its stop is skipped.
  std::vector<rank_time> receive_times() {
    std::vector<rank_time> all(static_cast<std::size_t>(size_));
    for (int w = 1; w < size_; ++w) {
      if (lost_flag_[static_cast<std::size_t>(w)]) continue;
      MPI_Status st;
      const auto t0 = steady::now();
      while (!waiting(comm_, w, kTagTimes, st) && since(t0) < d_.worker_timeout) {
        if (waiting(comm_, w, kTagResult, st)) receive(st);  // a request sent before it read its stop
        std::this_thread::sleep_for(std::chrono::microseconds(200));
      }
      if (since(t0) >= d_.worker_timeout) continue;
      const std::vector<double> v = decode_doubles(receive_matched(comm_, st));
      if (v.size() != 9) continue;
      all[static_cast<std::size_t>(w)] = {v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8]};
      load_.workers_busy += v[0];
      load_.workers_life += v[1];
    }
    return all;
  }

  void serve_parked() {
    while (!parked_.empty() && (!frontier_.empty() || in_flight_.empty() || stop_ != solve_status::optimal)) {
      const int w = parked_.front();
      parked_.erase(parked_.begin());
      hand_out(w);
    }
  }

  // Splitting: while workers wait and the frontier is empty, the oldest chunks running for at
  // least split_after seconds are asked back, one per waiting worker.
  void ask_back_long_chunks() {
    if (parked_.empty() || !frontier_.empty() || stop_ != solve_status::optimal) return;
    std::size_t asked = 0;
    for (const auto& [w, f] : in_flight_) asked += f.asked_back ? 1 : 0;
    while (asked < parked_.size()) {
      flight* oldest = nullptr;
      int rank = -1;
      for (auto& [w, f] : in_flight_)
        if (!f.asked_back && since(f.since) >= d_.split_after && (!oldest || f.since < oldest->since)) {
          oldest = &f;
          rank = w;
        }
      if (!oldest) return;
      oldest->asked_back = true;
      send(words{kStopChunk, oldest->id}, rank, kTagControl);
      ++asked;
    }
  }

  // Limits and signals: returns whether the run goes on. A stop, once decided, is saved at once
  // (a batch system's SIGKILL may follow its SIGTERM) and every chunk is asked back.
  bool check_stop() {
    if (stop_ == solve_status::optimal) {
      stop_ = ctl_.check(total_.branched);
      if (stop_ != solve_status::optimal) stop_decided();
    }
    return stop_ == solve_status::optimal;
  }

  void stop_decided() {
    if (d_.save) save();
    for (auto& [w, f] : in_flight_)
      if (!f.asked_back) {
        f.asked_back = true;
        send(words{kStopChunk, f.id, d_.save ? 0 : 1}, w, kTagControl);  // 1: for good, nodes not wanted
      }
    serve_parked();
  }

  // A better schedule (from a result, a worker's chunk, or the improver) goes to every worker
  // running a chunk, and to the improver as a seed.
  void offer(int makespan, const std::vector<int>& schedule) {
    if (static_cast<int>(schedule.size()) != n_ || makespan >= best_.value()) return;
    best_.offer(makespan, schedule.data(), n_);
    if (d_.improver) d_.improver->offer_seed(schedule, makespan);
    words w{kIncumbent, makespan, double_bits(rank_feed::now_seconds())};
    w.insert(w.end(), schedule.begin(), schedule.end());
    for (const auto& [rank, f] : in_flight_) send(w, rank, kTagControl);
    ++broadcasts_;
  }

  void poll_improver() {
    if (d_.improver && d_.improver->best_value() < best_.value()) {
      const std::vector<int> s = d_.improver->best_schedule();
      offer(d_.improver->best_value(), s);
    }
  }

  // --- whole-run checkpoints ---
  void save() { save_with({}, solve_stats{}); }

  // The run's state, plus (one rank) the running chunk's open nodes and counters.
  void save_with(const std::vector<frontier_node>& running, const solve_stats& running_stats) {
    last_save_ = steady::now();
    if (!d_.save) return;
    std::vector<const frontier_node*> open;
    for (const frontier_node& f : running) open.push_back(&f);
    for (const auto& [w, f] : in_flight_)
      for (const frontier_node& x : f.nodes) open.push_back(&x);
    for (const frontier_node& f : frontier_) open.push_back(&f);
    solve_stats s = total_;
    s += running_stats;
    for (const auto& [w, f] : in_flight_) s += f.done;
    d_.save(run_state(data_, opt_, threshold_, best_, s, resumed_seconds_ + ctl_.elapsed(), open, "pfsp-mpi"));
    ++saves_;
  }

  solve_result result(const std::vector<rank_time>& times) {
    int open_min = dropped_lb_;
    for (const frontier_node& f : frontier_) open_min = std::min(open_min, f.meta.lb);
    if ((!frontier_.empty() || dropped_chunks_) && stop_ == solve_status::optimal) stop_ = solve_status::interrupted;
    solve_result r = finish_result(stop_, best_, threshold_, open_min, total_,
                                   search_seconds_ >= 0 ? search_seconds_ : ctl_.elapsed());
    // The wait for the first worker's first request (its CUDA contexts, on GPUs) is set-up, as an
    // engine's is in pfsp solve's: the report's search time leaves it out (time_seconds keeps it).
    if (first_ready_ >= serve_start_ && serve_start_ >= 0)
      r.stats.setup_seconds = std::min(first_ready_ - serve_start_, r.stats.total_seconds);
    r.backend = "mpi (" + std::to_string(size_) + (size_ == 1 ? " rank" : " ranks") + ")";
    r.notes.push_back(summary_note());
    if (workers()) r.notes.push_back(load_note());
    if (workers()) r.notes.push_back(times_note(times));
    return r;
  }

  std::string summary_note() const {
    const std::size_t w = workers();
    std::string s = "frontier of " + std::to_string(frontier_size_) + " nodes " + (opt_.resume ? "resumed" : "built") +
                    " on rank 0, " + std::to_string(chunks_) + " chunks of up to " + std::to_string(largest_chunk_) +
                    " nodes solved by " + (w ? std::to_string(w) + " worker rank" + (w == 1 ? "" : "s") : "rank 0");
    s += "; " + std::to_string(splits_) + " chunks split, " + std::to_string(broadcasts_) + " incumbents broadcast";
    if (d_.save) s += ", " + std::to_string(saves_) + " checkpoints written";
    if (dropped_chunks_)
      s += "; " + std::to_string(dropped_chunks_) +
           " chunks stopped at the end kept their open nodes (no checkpoint; their lower bound counted)";
    if (lost_)
      s += "; " + std::to_string(lost_) + " worker ranks lost, their chunks (as last reported) back in the frontier";
    return s;
  }

  std::string load_note() const {
    const coordinator_stats& l = load_;
    char buf[512];
    std::snprintf(
        buf, sizeof buf,
        "rank 0's load: frontier %.3f s; serving %.3f s from %.3f s after its start, CPU %.3f s (%.1f %%; serving "
        "thread %.3f s), "
        "%llu messages in (%llu results, %llu heartbeats, %llu finds, %llu progress; %.1f kB, largest %llu B), "
        "%llu out (%llu chunks or stops, %llu control; %.1f kB, largest %llu B)",
        l.frontier_seconds, l.serve_seconds, l.serve_from, l.serve_cpu_seconds,
        l.serve_seconds > 0 ? 100.0 * l.serve_cpu_seconds / l.serve_seconds : 0.0, l.serve_thread_cpu_seconds,
        static_cast<unsigned long long>(l.received()), static_cast<unsigned long long>(l.results),
        static_cast<unsigned long long>(l.beats), static_cast<unsigned long long>(l.finds),
        static_cast<unsigned long long>(l.progress), static_cast<double>(l.bytes_in) / 1e3,
        static_cast<unsigned long long>(l.largest_in), static_cast<unsigned long long>(l.works + l.controls),
        static_cast<unsigned long long>(l.works), static_cast<unsigned long long>(l.controls),
        static_cast<double>(l.bytes_out) / 1e3, static_cast<unsigned long long>(l.largest_out));
    return buf;
  }

  std::string times_note(const std::vector<rank_time>& times) const {
    std::string line = "workers' time (busy solving chunks / idle waiting for rank 0 / life):";
    for (int k = 1; k < size_; ++k) {
      const rank_time& t = times[static_cast<std::size_t>(k)];
      const double idle = std::max(0.0, t.life - t.busy);
      char buf[160];
      std::snprintf(buf, sizeof buf,
                    "%s rank %d branched %.0f, busy %.3f s, idle %.3f s = %.1f %%, life %.3f s, ready %.3f s after its "
                    "start",
                    k == 1 ? "" : ";", k, t.branched, t.busy, idle, t.life > 0 ? 100.0 * idle / t.life : 0.0, t.life,
                    t.ready);
      line += buf;
      if (t.engines > 0) {
        std::snprintf(buf, sizeof buf, " (contexts at %.3f s, rank 0's pairs at %.3f s, engines at %.3f s)", t.contexts,
                      t.pairs, t.engines);
        line += buf;
      }
      if (t.taken > 0) {
        std::snprintf(buf, sizeof buf, ", took %.0f broadcast incumbents (at most %.1f ms after rank 0 sent them)",
                      t.taken, 1e3 * t.latency);
        line += buf;
      }
    }
    return line;
  }

  MPI_Comm comm_;
  int size_;
  int n_;
  const bound_data& data_;
  const solve_options& opt_;
  const chunk_solver& solve_;
  distributed_options d_;
  run_control ctl_;
  incumbent best_;
  std::size_t chunk_;
  bool lone_start_;                // the next chunk is the first of a lazy join (next_chunk_size)
  std::size_t largest_chunk_ = 0;  // nodes of the largest chunk handed out
  int dropped_lb_ = INT_MAX;       // the lower bound of the open nodes chunks did not return
  std::size_t dropped_chunks_ = 0;
  steady::time_point entered_ = steady::now();
  double search_seconds_ = -1;  // ctl_'s clock when the search ended (serve_workers), -1 before
  double serve_start_ = -1;     // ctl_'s clock when rank 0 began serving the workers
  double first_ready_ = -1;     // and when the first worker's first request reached it
  steady::time_point last_save_ = steady::now();
  int threshold_ = INT_MAX;
  solve_stats total_;
  double resumed_seconds_ = 0;
  std::deque<frontier_node> frontier_;
  std::size_t frontier_size_ = 0;
  std::map<int, flight> in_flight_;
  std::vector<int> parked_;
  std::size_t stopped_ = 0;
  solve_status stop_ = solve_status::optimal;
  std::int64_t next_id_ = 1;
  std::size_t chunks_ = 0, splits_ = 0, broadcasts_ = 0, saves_ = 0, lost_ = 0;
  std::vector<steady::time_point> heard_;  // the last message from each worker
  std::vector<bool> stopped_flag_, lost_flag_;
  coordinator_stats load_;
  send_queue sends_{comm_};
};

}  // namespace

rank_place node_place(MPI_Comm comm) {
  int rank = 0, size = 1, len = 0;
  check_mpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  check_mpi(MPI_Comm_size(comm, &size), "MPI_Comm_size");
  std::vector<char> name(MPI_MAX_PROCESSOR_NAME, '\0');
  check_mpi(MPI_Get_processor_name(name.data(), &len), "MPI_Get_processor_name");
  std::vector<char> all(name.size() * static_cast<std::size_t>(size));
  check_mpi(
      MPI_Allgather(name.data(), MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all.data(), MPI_MAX_PROCESSOR_NAME, MPI_CHAR, comm),
      "MPI_Allgather");
  const auto is_worker = [size](int r) { return r != 0 || size == 1; };
  if (!is_worker(rank)) return {0, 0};
  const auto same_node = [&](int r) {
    return std::equal(name.begin(), name.end(), all.begin() + static_cast<std::ptrdiff_t>(r) * MPI_MAX_PROCESSOR_NAME);
  };
  rank_place p{0, 0};
  for (int r = 0; r < size; ++r)
    if (is_worker(r) && same_node(r)) {
      p.index += r < rank ? 1 : 0;
      ++p.count;
    }
  return p;
}

solve_result solve_distributed(MPI_Comm comm, const instance& inst, const bound_data& data, const solve_options& opt,
                               const incumbent& start, const chunk_solver& solve_chunk, const distributed_options& d) {
  (void)inst;
  int rank = 0, size = 1;
  check_mpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  check_mpi(MPI_Comm_size(comm, &size), "MPI_Comm_size");
  if (rank == 0) return coordinator(comm, size, data, opt, start, solve_chunk, d).run();
  solve_result r;
  r.stats = run_worker(comm, data, opt, solve_chunk, d.heartbeat, d.progress_interval, d.checkpointing, d.start);
  r.status = solve_status::optimal;
  return r;
}

}  // namespace pfsp::dist
