#include "gpu/host_workers.hpp"

#include <algorithm>

namespace pfsp::gpu {

host_workers::host_workers(int threads) : size_(std::max(1, threads)) {
  for (int id = 1; id < size_; ++id) threads_.emplace_back([this, id] { loop(id); });
}

host_workers::~host_workers() {
  {
    std::lock_guard lock(mu_);
    quit_ = true;
  }
  wake_.notify_all();
  for (auto& t : threads_) t.join();
}

std::pair<std::size_t, std::size_t> host_workers::range(std::size_t count, int parts, int id) {
  const std::size_t p = static_cast<std::size_t>(parts), i = static_cast<std::size_t>(id);
  return {count * i / p, count * (i + 1) / p};
}

void host_workers::run(std::size_t count, const task& fn) {
  if (size_ == 1 || count < 2 * static_cast<std::size_t>(size_)) {
    fn(0, 0, count);
    return;
  }
  dispatch(count, fn);
}

void host_workers::dispatch(std::size_t count, const task& fn) {
  if (size_ == 1) {
    fn(0, 0, count);
    return;
  }
  {
    std::lock_guard lock(mu_);
    task_ = &fn;
    count_ = count;
    running_ = size_ - 1;
    error_ = nullptr;
    ++generation_;
  }
  wake_.notify_all();
  std::exception_ptr mine;
  try {
    const auto [b, e] = range(count, size_, 0);
    fn(0, b, e);
  } catch (...) {
    mine = std::current_exception();
  }
  std::unique_lock lock(mu_);
  done_.wait(lock, [this] { return running_ == 0; });
  task_ = nullptr;
  if (mine) std::rethrow_exception(mine);
  if (error_) std::rethrow_exception(error_);
}

void host_workers::loop(int id) {
  unsigned long long seen = 0;
  for (;;) {
    const task* fn = nullptr;
    std::size_t count = 0;
    {
      std::unique_lock lock(mu_);
      wake_.wait(lock, [&] { return quit_ || generation_ != seen; });
      if (quit_) return;
      seen = generation_;
      fn = task_;
      count = count_;
    }
    std::exception_ptr err;
    try {
      const auto [b, e] = range(count, size_, id);
      (*fn)(id, b, e);
    } catch (...) {
      err = std::current_exception();
    }
    {
      std::lock_guard lock(mu_);
      if (err && !error_) error_ = err;
      if (--running_ == 0) done_.notify_one();
    }
  }
}

}  // namespace pfsp::gpu
