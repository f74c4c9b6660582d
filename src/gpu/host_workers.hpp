// A fixed team of host threads for the branching and pruning steps. run() splits [0, count)
// into one contiguous range per thread; the calling thread takes range 0. Exceptions thrown by
// a worker are rethrown by run().
#pragma once

#include <condition_variable>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace pfsp::gpu {

class host_workers {
 public:
  using task = std::function<void(int worker, std::size_t begin, std::size_t end)>;

  explicit host_workers(int threads);
  ~host_workers();
  host_workers(const host_workers&) = delete;
  host_workers& operator=(const host_workers&) = delete;

  int size() const { return size_; }
  void run(std::size_t count, const task& fn);
  // fn(w, w, w + 1) once on every worker w, however small the work.
  void run_each(const task& fn) { dispatch(static_cast<std::size_t>(size_), fn); }

 private:
  void dispatch(std::size_t count, const task& fn);
  void loop(int id);
  static std::pair<std::size_t, std::size_t> range(std::size_t count, int parts, int id);

  int size_;
  std::vector<std::thread> threads_;
  std::mutex mu_;
  std::condition_variable wake_, done_;
  const task* task_ = nullptr;
  std::size_t count_ = 0;
  unsigned long long generation_ = 0;
  int running_ = 0;
  bool quit_ = false;
  std::exception_ptr error_;
};

}  // namespace pfsp::gpu
