// Bidirectional iterative beam search (after Libralesso, Focke, Secardin and Jost, EJOR 2022): a
// constructive search that fixes jobs at both ends of the sequence, keeps the `width` best partial
// schedules of each depth by a guide, and repeats with a doubled width while time remains.
// - A node is a prefix and a suffix: per machine the prefix's completion time (front), the
//   suffix's time from that machine's start to the end (back), the work left, and the idle time
//   inside the prefix and inside the suffix.
// - Its bound: max over machines of front + work left + back (the one-machine bound, O(m) per
//   child). At a leaf it is the makespan (a sequence split into a prefix and a suffix ends at
//   max_k front_k + back_k).
// - Each node branches forward or backward: the direction with fewer children under the target,
//   then the one with the larger sum of children's bounds, then the opposite of its parent's
//   (the root forward, its children backward).
// - Guide of a child at depth d: a * bound + (1 - a) * w * bound with a = d / n and w the sum over
//   machines of idle / busy time in the prefix and in the suffix (1 for an empty side): early on
//   the idle time decides, near the leaves the bound.
// Children whose bound is not below the target (the best makespan so far) are pruned, so a pass
// finds only strictly better schedules. Deterministic: ties go to the lower parent, then job.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <queue>
#include <vector>

#include "problem/instance.hpp"

namespace pfsp {

// One beam pass, beam_search::pass's contract: a schedule below `target` found by a pass of `width`,
// or empty. What the aspiration search runs: the CPU's beam_search or another implementation of
// the same pass (app binds the GPU's, gpu/device_beam.hpp).
using beam_pass_fn = std::function<std::vector<int>(int width, int target, const std::atomic<bool>* stop,
                                                    const std::function<int()>& outside)>;

struct beam_options {
  int first_width = 1;
  int max_width = 1 << 20;  // the width stops doubling here (passes go on at this width)
  bool bidirectional = true;
  int threads = 1;  // threads of a pass (the same result for any number)
};

struct beam_stats {
  int passes = 0;
  int last_width = 0;
  std::uint64_t children = 0;  // children bounded over all passes
  int improvements = 0;        // schedules given to on_better
};

class beam_search {
 public:
  explicit beam_search(const instance& inst, beam_options opt = {});

  // One pass of the given width: a schedule of makespan below `target`, or an empty vector when the
  // pass found none or *stop rose (checked once per expanded node). `outside` (optional): a better
  // makespan found elsewhere (the engine's best), read at each depth to lower the target.
  std::vector<int> pass(int width, int target, const std::atomic<bool>* stop, const std::function<int()>& outside = {});

  // Passes of width first_width, 2 first_width, ... while *stop stays false; each schedule better
  // than the last (starting below `target`, and below outside()) goes to on_better(schedule,
  // makespan), then becomes the next target. `target` may be INT_MAX.
  void run(int target, const std::function<void(const std::vector<int>&, int)>& on_better,
           const std::atomic<bool>* stop, const std::function<int()>& outside = {});

  const beam_stats& stats() const { return stats_; }
  // The widest pass whose two levels stay under about 512 MiB (5 m ints and n flags a node).
  int memory_width_cap() const;

 private:
  struct level;
  struct candidate {
    double guide;
    int parent;
    int job;
    bool operator<(const candidate& o) const;
  };
  // One thread's share of a depth: its scratch bounds and its `width` best children (worst on top).
  struct worker {
    std::vector<int> bounds, other;  // per job: the children's bounds in the chosen and the other direction
    std::vector<int> t, chain;       // per job: children_bounds's running values
    std::vector<double> side_ratio;  // per machine: the node's other side's idle ratio (side_ratios)
    std::priority_queue<candidate> kept;
    std::uint64_t children = 0;
  };
  void init_root(level& root) const;
  bool choose_forward(const level& lv, int node, int depth, int target, worker& w) const;
  bool expand(const level& cur, int depth, int width, int target, const std::atomic<bool>* stop,
              std::vector<std::uint8_t>& forward, std::vector<candidate>& chosen);
  void children_bounds(const level& lv, int node, bool forward, worker& w, std::vector<int>& out) const;
  double child_guide(const level& lv, int node, int job, bool forward, int bound, int depth,
                     const double* side_ratio) const;
  void side_ratios(const level& lv, int node, bool forward, double* out) const;
  void make_child(const level& lv, int node, int job, bool forward, level& out, int slot) const;
  std::vector<int> rebuild(const std::vector<std::vector<std::int64_t>>& links, int leaf) const;

  const instance& inst_;
  beam_options opt_;
  int n_, m_;
  std::vector<int> pj_;  // job-major times: pj_[j * m + k] (children_bounds reads inst_.p, machine-major)
  std::vector<worker> workers_;
  beam_stats stats_;
};

}  // namespace pfsp
