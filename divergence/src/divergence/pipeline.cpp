#include "divergence/pipeline.hpp"

namespace pfsp::divergence {

const char* to_string(remap_state s) {
  switch (s) {
    case remap_state::probing:
      return "probing";
    case remap_state::on:
      return "on";
    case remap_state::off:
      return "off";
  }
  return "?";
}

void efficiency_control::record(bool remapped, double seconds) {
  if (remapped) {
    remapped_sum_ += seconds;
    ++remapped_n_;
    skipped_run_ = 0;
    late_run_ = 0;
  } else {
    plain_sum_ += seconds;
    ++plain_n_;
  }
  decide();
}

void efficiency_control::record_skipped() {
  ++skipped_run_;
  late_run_ = 0;
  decide();
}

void efficiency_control::record_late(bool at_max_depth) {
  late_run_ = at_max_depth ? late_run_ + 1 : 0;
  decide();
}

// Off when plans keep predicting no gain, when remaps keep missing their chunk although the
// pipeline is as deep as allowed, or when the remapped chunks measured so far are not min_gain
// faster than the plain ones. Once off, it stays off for the workload (Zhang 5.6).
void efficiency_control::decide() {
  if (!policy_.enabled || state_ == remap_state::off) return;
  if ((policy_.max_skipped > 0 && skipped_run_ >= policy_.max_skipped) ||
      (policy_.max_late > 0 && late_run_ >= policy_.max_late)) {
    state_ = remap_state::off;
    return;
  }
  if (plain_n_ == 0 || remapped_n_ < std::max<std::size_t>(1, policy_.remapped_probes)) return;
  state_ = remapped_mean() < plain_mean() * (1.0 - policy_.min_gain) ? remap_state::on : remap_state::off;
}

worker_pool::worker_pool(std::size_t threads) {
  threads_.reserve(threads);
  for (std::size_t i = 0; i < threads; ++i) {
    threads_.emplace_back([this] {
      for (;;) {
        std::function<void()> task;
        {
          std::unique_lock lock(m_);
          cv_.wait(lock, [this] { return stop_ || !queue_.empty(); });
          if (stop_) return;
          task = std::move(queue_.front());
          queue_.pop_front();
        }
        task();
      }
    });
  }
}

worker_pool::~worker_pool() {
  {
    std::lock_guard lock(m_);
    stop_ = true;
    queue_.clear();
  }
  cv_.notify_all();
  for (auto& t : threads_) t.join();
}

void worker_pool::submit(std::function<void()> task) {
  {
    std::lock_guard lock(m_);
    queue_.push_back(std::move(task));
  }
  cv_.notify_one();
}

}  // namespace pfsp::divergence
