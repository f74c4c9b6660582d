#include "heuristic/iterated_greedy.hpp"

#include <algorithm>
#include <chrono>
#include <thread>

namespace pfsp {

int auto_ig_iterations(const instance& inst) {
  const double work = static_cast<double>(inst.n) * inst.n * inst.m;
  return static_cast<int>(std::clamp(4e7 / work, 10.0, 5000.0));
}

neh_result iterated_greedy(const instance& inst, const ig_options& opt) {
  neh_result start = neh(inst);
  if (inst.n < 3 || opt.iterations <= 0) return start;
  return iterated_greedy_from(inst, std::move(start), opt);
}

neh_result iterated_greedy_from(const instance& inst, neh_result start, const ig_options& opt,
                                const std::atomic<bool>* stop) {
  if (inst.n < 3 || opt.iterations <= 0) return start;
  // A time budget: a timer thread raises `expired` when it is spent or the caller's flag rises,
  // and the walker watches `expired` alone.
  std::atomic<bool> expired{false};
  std::atomic<bool> done{false};
  std::thread timer;
  if (opt.seconds > 0) {
    timer = std::thread([&] {
      const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(opt.seconds);
      while (!done.load() && std::chrono::steady_clock::now() < end && !(stop && stop->load()))
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      expired.store(true);
    });
  }
  const std::atomic<bool>* flag = opt.seconds > 0 ? &expired : stop;
  auto halted = [flag] { return flag && flag->load(std::memory_order_relaxed); };
  ig_walker walker(inst, opt.walk, opt.seed);
  walker.restart(start.schedule, start.makespan);
  if (!halted()) walker.descend(flag);
  for (int it = 0; it < opt.iterations && !halted(); ++it) walker.round(flag);
  done.store(true);
  if (timer.joinable()) timer.join();
  return {walker.best(), evaluate_schedule(inst, walker.best())};
}

}  // namespace pfsp
