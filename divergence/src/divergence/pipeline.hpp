// CPU-GPU pipelining of runtime remapping (Zhang et al. Section 4.1) and efficiency control
// (Section 5.6, Figure 6).
//
// The loop processes chunks 0..n-1 on a device. While the device runs chunk i, worker threads
// compute the remapping of chunk i + depth (the paper's Delta). depth starts at 1 and grows by one
// each time a remap scheduled at the current depth is not ready when its chunk is launched (the
// paper's runtime adaptation, without overshoot from remaps scheduled at a smaller depth); a
// late chunk runs with the plain
// mapping and its remap is cancelled (the paper's early termination). Chunks before the first
// remap are the warm-up and run plain; they also give efficiency control its plain baseline.
//
// Efficiency control watches each workload: a remapper that predicts no gain (returns nullopt,
// e.g. BlackScholes, whose conditions do not diverge), remapped chunks that are not faster than
// plain ones, or remaps that stay late at the largest depth switch remapping off for the workload,
// so it costs nothing (no device time, no more CPU time) where it does not pay.
//
// The device is an interface (chunk_executor) so that all of this runs on the CPU against a fake.
#pragma once

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <future>
#include <mutex>
#include <optional>
#include <stop_token>
#include <thread>
#include <vector>

namespace pfsp::divergence {

// The device side. launch() is asynchronous; finish() waits for the chunk launched last and
// returns the seconds it cost on the critical path (data moves, kernel, restoration).
template <class Prepared>
class chunk_executor {
 public:
  virtual ~chunk_executor() = default;
  // remapped == nullptr: the plain thread-data mapping.
  virtual void launch(std::size_t chunk, const Prepared* remapped) = 0;
  virtual double finish() = 0;
  // Tracing hooks (and what fakes that model time hook into): the remap of `chunk` was handed to
  // a worker (called on the pipeline's thread), and its result is now visible to the pipeline
  // (called on the worker's thread, also when the remap was cancelled or threw).
  virtual void on_remap_scheduled(std::size_t /*chunk*/) {}
  virtual void on_remap_done(std::size_t /*chunk*/) {}
};

// Computes the remapping of one chunk on a worker thread; nullopt means "nothing worth moving".
// It should return early (nullopt) once `stop` is requested.
template <class Prepared>
using remapper = std::function<std::optional<Prepared>(std::size_t chunk, std::stop_token stop)>;

struct efficiency_policy {
  bool enabled = true;
  std::size_t plain_probes = 1;     // warm-up chunks run plain (at least the pipeline depth)
  std::size_t remapped_probes = 3;  // remapped chunks timed before deciding
  double min_gain = 0.03;           // remapped chunks must be this much faster than plain ones
  std::size_t max_skipped = 3;      // consecutive "nothing worth moving" plans before switching off
  std::size_t max_late = 4;         // consecutive late remaps at the largest depth before switching off
};

enum class remap_state { probing, on, off };
const char* to_string(remap_state s);

class efficiency_control {
 public:
  explicit efficiency_control(efficiency_policy policy) : policy_(policy) {}

  bool remapping_wanted() const { return !policy_.enabled || state_ != remap_state::off; }
  void record(bool remapped, double seconds);
  void record_skipped();
  // A remap was late; at_max_depth: the pipeline cannot go deeper, so it will not catch up.
  void record_late(bool at_max_depth);
  remap_state state() const { return policy_.enabled ? state_ : remap_state::on; }
  double plain_mean() const { return plain_n_ ? plain_sum_ / static_cast<double>(plain_n_) : 0.0; }
  double remapped_mean() const { return remapped_n_ ? remapped_sum_ / static_cast<double>(remapped_n_) : 0.0; }

 private:
  void decide();

  efficiency_policy policy_;
  remap_state state_ = remap_state::probing;
  double plain_sum_ = 0.0, remapped_sum_ = 0.0;
  std::size_t plain_n_ = 0, remapped_n_ = 0, skipped_run_ = 0, late_run_ = 0;
};

// Fixed set of worker threads (the paper's cpuThreadControl reuses threads rather than creating
// one per iteration). Pending tasks are dropped at destruction.
class worker_pool {
 public:
  explicit worker_pool(std::size_t threads);
  ~worker_pool();
  worker_pool(const worker_pool&) = delete;
  worker_pool& operator=(const worker_pool&) = delete;
  void submit(std::function<void()> task);

 private:
  std::mutex m_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> queue_;
  bool stop_ = false;
  std::vector<std::thread> threads_;
};

struct pipeline_options {
  bool remap = true;              // false: every chunk plain (the baseline)
  std::size_t initial_depth = 1;  // Delta
  std::size_t max_depth = 8;
  std::size_t workers = 2;
  bool wait_for_late = false;  // block on a late remap instead of running the chunk plain (tests)
  efficiency_policy efficiency;
};

struct chunk_record {
  std::size_t chunk = 0;
  bool remapped = false;  // ran with a remapped mapping
  bool late = false;      // its remap was scheduled but not ready at launch
  bool skipped = false;   // its remap predicted no gain
  std::size_t depth = 0;  // pipeline depth when it was launched
  double seconds = 0.0;
  remap_state state = remap_state::probing;  // efficiency control after this chunk
};

struct pipeline_report {
  std::vector<chunk_record> chunks;
  double device_seconds = 0.0;  // sum of finish() times
  double wall_seconds = 0.0;    // from the first launch to the end of the last chunk
  double drain_seconds = 0.0;   // then, until cancelled remaps still running had returned
  std::size_t remapped = 0, late = 0, skipped = 0, scheduled = 0;
  std::size_t final_depth = 0;
  remap_state final_state = remap_state::probing;
};

template <class Prepared>
pipeline_report run_pipeline(std::size_t num_chunks, chunk_executor<Prepared>& device, const remapper<Prepared>& remap,
                             const pipeline_options& opt) {
  using clock = std::chrono::steady_clock;
  const auto t0 = clock::now();
  struct slot {
    bool scheduled = false;
    std::size_t distance = 0;  // chunks between scheduling and launch it was given
    std::future<std::optional<Prepared>> result;
    std::stop_source stop;
  };
  std::vector<slot> slots(num_chunks);
  efficiency_control control(opt.efficiency);
  pipeline_report rep;
  std::size_t depth = std::clamp<std::size_t>(opt.initial_depth, 1, std::max<std::size_t>(1, opt.max_depth));
  // Remaps start after the warm-up: chunks [0, first) run plain.
  const std::size_t first = std::max<std::size_t>({depth, opt.efficiency.enabled ? opt.efficiency.plain_probes : 0});
  std::size_t next = first;
  std::optional<worker_pool> workers;
  if (opt.remap) workers.emplace(std::max<std::size_t>(1, opt.workers));

  auto cancel_pending = [&](std::size_t from) {
    for (std::size_t c = from; c < num_chunks; ++c)
      if (slots[c].scheduled) slots[c].stop.request_stop();
  };
  // Declared after the workers, so destroyed before them: however this function is left (an
  // exception from a remap or the device included), running remaps are told to stop before the
  // workers are joined.
  struct cancel_on_exit {
    std::vector<slot>& slots;
    ~cancel_on_exit() {
      for (auto& s : slots)
        if (s.scheduled) s.stop.request_stop();
    }
  } guard{slots};

  for (std::size_t i = 0; i < num_chunks; ++i) {
    // Schedule the remaps of chunks up to i + depth (prefetch distance Delta).
    if (opt.remap && control.remapping_wanted()) {
      for (next = std::max(next, i + 1); next <= i + depth && next < num_chunks; ++next) {
        slot& s = slots[next];
        auto promise = std::make_shared<std::promise<std::optional<Prepared>>>();
        s.result = promise->get_future();
        s.scheduled = true;
        s.distance = next - i;
        ++rep.scheduled;
        device.on_remap_scheduled(next);
        workers->submit([promise, &remap, &device, c = next, token = s.stop.get_token()] {
          try {
            promise->set_value(token.stop_requested() ? std::nullopt : remap(c, token));
          } catch (...) {
            promise->set_exception(std::current_exception());
          }
          device.on_remap_done(c);
        });
      }
    }
    chunk_record rec;
    rec.chunk = i;
    rec.depth = depth;
    std::optional<Prepared> prepared;
    slot& s = slots[i];
    if (s.scheduled) {
      if (!control.remapping_wanted()) {
        s.stop.request_stop();
      } else if (opt.wait_for_late || s.result.wait_for(std::chrono::seconds(0)) == std::future_status::ready) {
        prepared = s.result.get();
        if (!prepared) {
          rec.skipped = true;
          ++rep.skipped;
          control.record_skipped();
        }
      } else {
        rec.late = true;
        ++rep.late;
        s.stop.request_stop();
        // Deeper only if the remap was late although scheduled at the current depth; remaps
        // scheduled before the last increase are late anyway and must not push it further.
        const std::size_t deepest = std::max<std::size_t>(1, opt.max_depth);
        control.record_late(depth >= deepest);
        if (s.distance >= depth) depth = std::min(depth + 1, deepest);
      }
    }
    device.launch(i, prepared ? &*prepared : nullptr);
    rec.seconds = device.finish();
    rec.remapped = prepared.has_value();
    if (!rec.skipped) control.record(rec.remapped, rec.seconds);
    if (!control.remapping_wanted()) cancel_pending(i + 1);
    rec.state = control.state();
    rep.remapped += rec.remapped ? 1 : 0;
    rep.device_seconds += rec.seconds;
    rep.chunks.push_back(rec);
  }
  rep.wall_seconds = std::chrono::duration<double>(clock::now() - t0).count();
  cancel_pending(0);
  workers.reset();  // joins the workers; dropped tasks break their promises, nobody waits on them
  rep.drain_seconds = std::chrono::duration<double>(clock::now() - t0).count() - rep.wall_seconds;
  rep.final_depth = depth;
  rep.final_state = control.state();
  return rep;
}

}  // namespace pfsp::divergence
