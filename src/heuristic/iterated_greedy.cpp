#include "heuristic/iterated_greedy.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

namespace pfsp {
namespace {

// Insertion local search: each job, in random order, is removed and reinserted at its best
// position; repeated while the makespan improves.
int local_search(const instance& inst, std::vector<int>& seq, int cmax, std::mt19937& rng, insertion_workspace& ws) {
  bool improved = true;
  std::vector<int> jobs = seq;
  while (improved) {
    improved = false;
    std::shuffle(jobs.begin(), jobs.end(), rng);
    for (int job : jobs) {
      const auto it = std::find(seq.begin(), seq.end(), job);
      const auto old_pos = it - seq.begin();
      seq.erase(it);
      const auto [pos, value] = best_insertion(inst, seq, job, ws);
      if (value < cmax) {
        seq.insert(seq.begin() + pos, job);
        cmax = value;
        improved = true;
      } else {
        seq.insert(seq.begin() + old_pos, job);
      }
    }
  }
  return cmax;
}

}  // namespace

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
  std::mt19937 rng(opt.seed);
  insertion_workspace ws;
  long long total = 0;
  for (int v : inst.p) total += v;
  const double temperature = opt.temperature * static_cast<double>(total) / (10.0 * inst.n * inst.m);
  std::vector<int> cur = start.schedule;
  int cur_value = local_search(inst, cur, start.makespan, rng, ws);
  std::vector<int> best = cur;
  int best_value = cur_value;
  const int d = std::min(opt.destruct, inst.n - 1);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (int it = 0; it < opt.iterations; ++it) {
    if (stop && stop->load(std::memory_order_relaxed)) break;
    std::vector<int> s = cur;
    std::vector<int> removed;
    for (int r = 0; r < d; ++r) {
      const auto idx = std::uniform_int_distribution<std::size_t>(0, s.size() - 1)(rng);
      removed.push_back(s[idx]);
      s.erase(s.begin() + static_cast<std::ptrdiff_t>(idx));
    }
    int value = 0;
    for (int job : removed) {
      const auto [pos, v] = best_insertion(inst, s, job, ws);
      s.insert(s.begin() + pos, job);
      value = v;
    }
    value = local_search(inst, s, value, rng, ws);
    if (value < cur_value) {
      cur = std::move(s);
      cur_value = value;
      if (value < best_value) {
        best = cur;
        best_value = value;
      }
    } else if (unit(rng) < std::exp(-(value - cur_value) / temperature)) {
      cur = std::move(s);
      cur_value = value;
    }
  }
  return {best, evaluate_schedule(inst, best)};
}

}  // namespace pfsp
