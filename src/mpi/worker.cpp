#include "mpi/worker.hpp"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <thread>

#include "mpi/messages.hpp"
#include "mpi/rank_feed.hpp"

namespace pfsp::dist {
namespace {

using steady = std::chrono::steady_clock;
constexpr auto kPoll = std::chrono::microseconds(500);

class worker {
 public:
  worker(MPI_Comm comm, const bound_data& data, const solve_options& opt, const chunk_solver& solve, double heartbeat,
         double progress_interval, bool checkpointing, const rank_time& start)
      : start_(start),
        checkpointing_(checkpointing),
        comm_(comm),
        data_(data),
        opt_(opt),
        solve_(solve),
        n_(data.view().inst.n),
        heartbeat_(heartbeat),
        progress_interval_(progress_interval) {}

  solve_stats run() {
    rank_time times = start_;
    const auto entered = steady::now();
    if (opt_.time_origin) times.ready = std::chrono::duration<double>(entered - *opt_.time_origin).count();
    solve_stats mine;
    result_msg last;  // has = false: the first request
    for (;;) {
      send_words(comm_, encode(last, n_), 0, kTagResult);
      const work_msg w = wait_for_work();
      if (w.stop) break;
      const auto t0 = steady::now();
      last = solve_chunk(w);
      times.busy += std::chrono::duration<double>(steady::now() - t0).count();
      mine += last.stats;
    }
    times.life = std::chrono::duration<double>(steady::now() - entered).count();
    times.branched = static_cast<double>(mine.branched);
    const auto [taken, latency] = feed_.taken();
    send_words(comm_,
               encode_doubles({times.busy, times.life, times.branched, static_cast<double>(taken), latency, times.ready,
                               times.contexts, times.pairs, times.engines}),
               0, kTagTimes);
    return mine;
  }

 private:
  bool signalled() const { return opt_.interrupt && opt_.interrupt->load(); }

  // Rank 0's answer; control messages that arrive meanwhile are served (a stale give-back is
  // dropped, a better schedule kept for the next chunk's feed).
  work_msg wait_for_work() {
    MPI_Status st;
    for (;;) {
      if (waiting(comm_, 0, kTagWork, st)) return decode_work(receive_matched(comm_, st), n_);
      serve_control(-1);
      beat();
      std::this_thread::sleep_for(kPoll);
    }
  }

  void serve_control(std::int64_t running) {
    MPI_Status st;
    while (waiting(comm_, 0, kTagControl, st)) {
      const words w = receive_matched(comm_, st);
      if (w.size() >= 2 && w[0] == kStopChunk && w[1] == running) {
        if (w.size() >= 3 && w[2] == 1) final_stop_.store(true);  // before stop_: the solver reads both
        stop_.store(true);
      }
      if (w.size() >= 3 && w[0] == kIncumbent) {
        if (tracing())
          std::fprintf(stderr, "trace worker: incumbent %lld (%zu words) while chunk %lld runs, feed best %d\n",
                       static_cast<long long>(w[1]), w.size(), static_cast<long long>(running), feed_.best_value());
        feed_.receive(static_cast<int>(w[1]), std::vector<int>(w.begin() + 3, w.end()), bits_double(w[2]));
      }
    }
  }

  void beat() {
    if (std::chrono::duration<double>(steady::now() - last_beat_).count() < heartbeat_) return;
    last_beat_ = steady::now();
    send_words(comm_, words{}, 0, kTagBeat);
  }

  void send_found() {
    if (auto f = feed_.take_found()) send_words(comm_, encode_schedule(f->first, f->second), 0, kTagFound);
  }

  // The solver's periodic state of the running chunk (its thread), encoded for the listener.
  void keep_progress(const work_msg& w, const search_state& s) {
    if (s.open() > kMaxProgressNodes) return;
    result_msg r;
    r.has = true;
    r.chunk_id = w.chunk_id;
    r.status = solve_status::interrupted;
    r.stats = s.stats;
    if (!s.best_schedule.empty() && s.best_makespan < w.ub) {
      r.makespan = s.best_makespan;
      r.schedule = s.best_schedule;
    }
    r.left = nodes_of(s);
    words encoded = encode(r, n_);
    const std::lock_guard<std::mutex> lock(progress_mutex_);
    progress_ = std::move(encoded);
  }

  void send_progress() {
    words w;
    {
      const std::lock_guard<std::mutex> lock(progress_mutex_);
      w.swap(progress_);
    }
    if (!w.empty()) send_words(comm_, w, 0, kTagProgress);
  }

  // The listener: the only thread calling MPI while the chunk runs (MPI_THREAD_SERIALIZED).
  void listen(std::int64_t chunk, const std::atomic<bool>& done) {
    while (!done.load()) {
      if (signalled()) stop_.store(true);
      serve_control(chunk);
      send_found();
      send_progress();
      beat();
      std::this_thread::sleep_for(kPoll);
    }
  }

  result_msg solve_chunk(const work_msg& w) {
    final_stop_.store(false);
    stop_.store(signalled());
    chunk_job job;
    job.nodes = &w.nodes;
    job.ub = std::min(w.ub, feed_.best_value());
    job.seconds_left = w.seconds_left;
    job.interrupt = &stop_;
    job.feed = &feed_;
    job.drop_left_at_stop = !checkpointing_;
    job.final_stop = &final_stop_;
    if (progress_interval_ > 0) {
      job.checkpoint_interval = progress_interval_;
      job.on_checkpoint = [this, &w](const search_state& s) { keep_progress(w, s); };
    }
    std::atomic<bool> done{false};
    std::thread listener([&] { listen(w.chunk_id, done); });
    chunk_run run;
    try {
      run = run_chunk(data_, opt_, solve_, job);
    } catch (...) {
      done.store(true);
      listener.join();
      throw;
    }
    done.store(true);
    listener.join();
    {
      const std::lock_guard<std::mutex> lock(progress_mutex_);
      progress_.clear();  // the result supersedes it
    }
    send_found();
    result_msg r = result_of(w, run);
    trace_chunk(w, job, run, r);
    return r;
  }

  // PFSP_MPI_TRACE: the chunk as solved (src/mpi/README.md, "Debugging").
  void trace_chunk(const work_msg& w, const chunk_job& job, const chunk_run& run, const result_msg& r) const {
    if (!tracing()) return;
    std::fprintf(stderr,
                 "trace worker: chunk %lld (%zu nodes, ub %d, job ub %d) status %d branched %llu left %zu dropped %d "
                 "stop %d pruned %llu leaves %llu makespan %d feed %d\n",
                 static_cast<long long>(w.chunk_id), w.nodes.size(), w.ub, job.ub, static_cast<int>(r.status),
                 static_cast<unsigned long long>(r.stats.branched), r.left.size(), run.left_dropped ? 1 : 0,
                 stop_.load() ? 1 : 0, static_cast<unsigned long long>(r.stats.pruned),
                 static_cast<unsigned long long>(r.stats.leaves), r.makespan, feed_.best_value());
  }

  result_msg result_of(const work_msg& w, chunk_run& run) const {
    result_msg r;
    r.has = true;
    r.chunk_id = w.chunk_id;
    r.status = run.result.status;
    r.makespan = run.result.makespan;
    r.lower_bound = run.result.lower_bound;
    r.stats = run.result.stats;
    r.signalled = signalled();
    if (!run.result.schedule.empty() && run.result.makespan < w.ub) r.schedule = run.result.schedule;
    r.left = std::move(run.left);
    return r;
  }

  rank_time start_;  // the start's steps (main.cpp), sent with the times
  bool checkpointing_;
  MPI_Comm comm_;
  const bound_data& data_;
  const solve_options& opt_;
  const chunk_solver& solve_;
  int n_;
  double heartbeat_;
  double progress_interval_;
  std::mutex progress_mutex_;
  words progress_;  // the running chunk's last progress message, not yet sent
  steady::time_point last_beat_ = steady::now();
  std::atomic<bool> stop_{false};
  std::atomic<bool> final_stop_{false};  // rank 0 stopped the chunk to end the run (not to split it)
  rank_feed feed_;
};

}  // namespace

solve_stats run_worker(MPI_Comm comm, const bound_data& data, const solve_options& opt, const chunk_solver& solve,
                       double heartbeat, double progress_interval, bool checkpointing, const rank_time& start) {
  worker w(comm, data, opt, solve, heartbeat, progress_interval, checkpointing, start);
  return w.run();
}

}  // namespace pfsp::dist
