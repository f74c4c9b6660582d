#include "heuristic/elite_pool.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>

namespace pfsp {

int insertion_distance(const std::vector<int>& a, const std::vector<int>& b) {
  const auto n = a.size();
  std::vector<int> where(n);
  for (std::size_t i = 0; i < n; ++i) where[static_cast<std::size_t>(b[i])] = static_cast<int>(i);
  std::vector<int> tails;  // tails[k]: the least last element of an increasing run of length k + 1
  tails.reserve(n);
  for (const int job : a) {
    const int x = where[static_cast<std::size_t>(job)];
    const auto it = std::lower_bound(tails.begin(), tails.end(), x);
    if (it == tails.end())
      tails.push_back(x);
    else
      *it = x;
  }
  return static_cast<int>(n - tails.size());
}

int elite_min_distance(int n, int destruct) { return std::max({1, destruct, n / 10}); }

elite_pool::elite_pool(int capacity, int min_distance)
    : capacity_(std::max(1, capacity)), min_distance_(std::max(1, min_distance)) {
  members_.reserve(static_cast<std::size_t>(capacity_));
}

bool elite_pool::offer(const std::vector<int>& schedule, int value) {
  std::vector<int> distance(members_.size());
  bool close = false;
  for (std::size_t i = 0; i < members_.size(); ++i) {
    distance[i] = insertion_distance(schedule, members_[i].schedule);
    close = close || distance[i] < min_distance_;
  }
  const bool entered = close ? replace_close(schedule, value, distance) : replace_far(schedule, value, distance);
  if (entered) ++accepted_;
  return entered;
}

// Within the minimum distance of some members: it replaces them all if it beats every one of them.
bool elite_pool::replace_close(const std::vector<int>& schedule, int value, const std::vector<int>& distance) {
  for (std::size_t i = 0; i < members_.size(); ++i)
    if (distance[i] < min_distance_ && members_[i].value <= value) return false;
  std::vector<elite_member> kept;
  kept.reserve(static_cast<std::size_t>(capacity_));
  for (std::size_t i = 0; i < members_.size(); ++i)
    if (distance[i] >= min_distance_) kept.push_back(std::move(members_[i]));
  kept.push_back({schedule, value});
  members_.swap(kept);
  return true;
}

// Far from every member: it enters where there is room, else it replaces the closest of the
// members worse than it (none: it stays out).
bool elite_pool::replace_far(const std::vector<int>& schedule, int value, const std::vector<int>& distance) {
  if (size() < capacity_) {
    members_.push_back({schedule, value});
    return true;
  }
  int closest = -1;
  for (std::size_t i = 0; i < members_.size(); ++i)
    if (members_[i].value > value && (closest < 0 || distance[i] < distance[static_cast<std::size_t>(closest)]))
      closest = static_cast<int>(i);
  if (closest < 0) return false;
  members_[static_cast<std::size_t>(closest)] = {schedule, value};
  return true;
}

int elite_pool::pick(std::uint64_t& rng) const {
  const int a = random_below(rng, size()), b = random_below(rng, size());
  return members_[static_cast<std::size_t>(b)].value < members_[static_cast<std::size_t>(a)].value ? b : a;
}

int elite_pool::best_value() const {
  int v = INT_MAX;
  for (const auto& e : members_) v = std::min(v, e.value);
  return v;
}

int elite_pool::worst_value() const {
  int v = members_.empty() ? INT_MAX : INT_MIN;
  for (const auto& e : members_) v = std::max(v, e.value);
  return v;
}

double elite_pool::mean_distance() const {
  long long sum = 0, pairs = 0;
  for (std::size_t i = 0; i < members_.size(); ++i)
    for (std::size_t j = i + 1; j < members_.size(); ++j, ++pairs)
      sum += insertion_distance(members_[i].schedule, members_[j].schedule);
  return pairs ? static_cast<double>(sum) / static_cast<double>(pairs) : 0.0;
}

std::vector<int> relink(const insertion_kernel& kernel, const std::vector<int>& from, const std::vector<int>& to,
                        int min_distance, int& value) {
  std::vector<int> path = from, best;
  const int n = static_cast<int>(path.size());
  value = INT_MAX;
  for (int i = 0; i < n; ++i) {
    if (path[static_cast<std::size_t>(i)] == to[static_cast<std::size_t>(i)]) continue;
    const auto it = std::find(path.begin() + i, path.end(), to[static_cast<std::size_t>(i)]);
    std::rotate(path.begin() + i, it, it + 1);  // one insertion: the job moves to position i
    if (insertion_distance(path, from) < min_distance) continue;
    if (insertion_distance(path, to) < min_distance) break;
    const int v = kernel.makespan(path.data(), n);
    if (v < value) {
      value = v;
      best = path;
    }
  }
  return best;
}

void restart_from_elite(ig_walker& w, const elite_member& a, const elite_member& b, const insertion_kernel& kernel,
                        int min_distance, const std::atomic<bool>* stop) {
  if (!b.schedule.empty()) {
    int value = 0;
    std::vector<int> child = relink(kernel, a.schedule, b.schedule, min_distance, value);
    if (!child.empty()) {
      w.reset(child, value);
      w.descend(stop);
      return;
    }
  }
  w.reset(a.schedule, a.value);
}

}  // namespace pfsp
