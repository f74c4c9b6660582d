// The device loop's open nodes on the host: node_batch, a copy of stack nodes in the stack's
// layout (bottom first), and node_spill, the nodes an engine moved from the bottom of its device
// stack to host memory when the device had no room (docs/gpu_backend.md, "Stack memory"). The
// spilled nodes are the shallowest: in depth-first order they come after every node still on
// the device, so the coordinator brings them back under the device's nodes before its stack runs
// low, and the search pops the nodes in the same order as with an unbounded device stack.
// Plain C++ (tested on the host: tests/test_node_spill.cpp).
#pragma once

#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <limits>
#include <numeric>
#include <optional>
#include <vector>

#include "gpu/pool_layout.hpp"  // limit1_of, limit2_of

namespace pfsp::gpu::device_loop {

// Bytes of host memory each of `engines` engines may spill to: the user's cap where one is set
// (--spill-memory, all engines together), else `share` of the host's available memory (`available`:
// base/host_memory.hpp's process_memory_room when the search starts, not the physical memory, so
// that a busy host is not pushed into swap nor a batch job past its cgroup's limit).
inline std::size_t host_spill_budget(std::optional<std::size_t> cap, double share, std::size_t available,
                                     std::size_t engines) {
  const double all = cap ? static_cast<double>(*cap) : std::max(0.0, share) * static_cast<double>(available);
  return static_cast<std::size_t>(std::min(all, static_cast<double>(available)) /
                                  static_cast<double>(std::max<std::size_t>(1, engines)));
}

// Memory in proportion to progress: the most nodes a stack need hold when its engine popped
// `popped` nodes in `seconds` and `left` seconds remain before the time limit: `margin` times
// the nodes it can still pop at its rate over max(seconds, window), at least `floor` (the
// stack's first size). No cap (SIZE_MAX) without a limit or before a rate is measured.
inline std::size_t useful_stack_nodes(double popped, double seconds, double left, double margin, std::size_t floor,
                                      double window = 0) {
  constexpr std::size_t none = std::numeric_limits<std::size_t>::max();
  if (!(left < std::numeric_limits<double>::infinity()) || popped <= 0 || seconds <= 0 || margin <= 0) return none;
  const double useful = margin * popped / std::max(seconds, window) * left;
  if (useful >= 0x1p62) return none;
  return std::max(floor, static_cast<std::size_t>(useful));
}

// Host copies of nodes in the stack's layout (bottom first): n jobs a permutation.
template <class Job>
struct node_batch {
  std::vector<Job> perms;
  std::vector<std::uint32_t> limits;
  std::vector<int> lbs;
  std::vector<float> w;  // tree weights
  std::size_t size() const { return limits.size(); }
  bool empty() const { return limits.empty(); }
  double weight() const { return std::accumulate(w.begin(), w.end(), 0.0); }
  int min_lb() const { return lbs.empty() ? INT_MAX : *std::min_element(lbs.begin(), lbs.end()); }
  void clear() {
    perms.clear();
    limits.clear();
    lbs.clear();
    w.clear();
  }
  // Appends o's nodes above these (n jobs a permutation).
  void append(const node_batch& o) {
    perms.insert(perms.end(), o.perms.begin(), o.perms.end());
    limits.insert(limits.end(), o.limits.begin(), o.limits.end());
    lbs.insert(lbs.end(), o.lbs.begin(), o.lbs.end());
    w.insert(w.end(), o.w.begin(), o.w.end());
  }
  // Removes the k topmost nodes and returns them (bottom first); n jobs a permutation.
  node_batch cut_top(std::size_t k, int n) {
    k = std::min(k, size());
    const std::size_t from = size() - k, nn = static_cast<std::size_t>(n);
    node_batch top;
    top.perms.assign(perms.begin() + static_cast<std::ptrdiff_t>(from * nn), perms.end());
    top.limits.assign(limits.begin() + static_cast<std::ptrdiff_t>(from), limits.end());
    top.lbs.assign(lbs.begin() + static_cast<std::ptrdiff_t>(from), lbs.end());
    top.w.assign(w.begin() + static_cast<std::ptrdiff_t>(from), w.end());
    perms.resize(from * nn);
    limits.resize(from);
    lbs.resize(from);
    w.resize(from);
    return top;
  }
};

// A stack of node batches in host memory, the lowest first: push() puts a batch above every
// earlier one, take_top() takes from the topmost, take_bottom() gives away the lowest.
template <class Job>
class node_spill {
 public:
  explicit node_spill(int n) : n_(n) {}

  std::size_t size() const { return nodes_; }
  bool empty() const { return nodes_ == 0; }
  std::size_t bytes() const { return nodes_ * node_bytes(); }
  std::size_t node_bytes() const {
    return static_cast<std::size_t>(n_) * sizeof(Job) + sizeof(std::uint32_t) + sizeof(int) + sizeof(float);
  }

  void push(node_batch<Job>&& b) {
    if (b.empty()) return;
    nodes_ += b.size();
    chunks_.push_back(summarise(std::move(b)));
  }

  // The (at most) k topmost nodes, bottom first: from the topmost batch only.
  node_batch<Job> take_top(std::size_t k) {
    if (chunks_.empty() || k == 0) return {};
    chunk& c = chunks_.back();
    if (k >= c.b.size()) {
      node_batch<Job> all = std::move(c.b);
      chunks_.pop_back();
      nodes_ -= all.size();
      return all;
    }
    node_batch<Job> top = c.b.cut_top(k, n_);
    c = summarise(std::move(c.b));
    nodes_ -= top.size();
    return top;
  }

  // The lowest batch (the shallowest nodes: the largest subtrees), for an idle engine.
  node_batch<Job> take_bottom() {
    if (chunks_.empty()) return {};
    node_batch<Job> b = std::move(chunks_.front().b);
    chunks_.pop_front();
    nodes_ -= b.size();
    return b;
  }

  int min_lb() const {
    int m = INT_MAX;
    for (const chunk& c : chunks_) m = std::min(m, c.min_lb);
    return m;
  }
  double weight() const {
    double w = 0;
    for (const chunk& c : chunks_) w += c.weight;
    return w;
  }
  // Adds the spilled nodes' counts per depth into open (sized n + 1).
  template <class Count>
  void add_depths(std::vector<Count>& open) const {
    for (const chunk& c : chunks_)
      for (std::uint32_t lim : c.b.limits) ++open[static_cast<std::size_t>(limit1_of(lim) + 1 + n_ - limit2_of(lim))];
  }
  // Every spilled node appended to out, the lowest first.
  void append_to(node_batch<Job>& out) const {
    for (const chunk& c : chunks_) out.append(c.b);
  }

 private:
  struct chunk {
    node_batch<Job> b;
    int min_lb = INT_MAX;
    double weight = 0;
  };
  static chunk summarise(node_batch<Job>&& b) {
    chunk c;
    c.min_lb = b.min_lb();
    c.weight = b.weight();
    c.b = std::move(b);
    return c;
  }

  int n_;
  std::size_t nodes_ = 0;
  std::deque<chunk> chunks_;
};

// One engine's open tree weight as the coordinator's progress snapshot counts it: the weight its
// last statistics collection found (stack and spill), plus what it received since (mail taken),
// less what it donated since. Weight received since the collection may be donated again before
// the next one, so the donations come off the sum, never off the collected weight alone (that
// counted such re-donated weight twice: once here, once in the receiver's mail or ledger).
// Never less than the engine's true open weight (what it closed since only lowers that); the
// clamp only absorbs rounding.
struct open_weight_ledger {
  double collected = 0, received = 0, sent = 0;
  void collect(double w) {
    collected = w;
    received = sent = 0;
  }
  void receive(double w) { received += w; }
  void send(double w) { sent += w; }
  double open() const { return std::max(0.0, collected - sent + received); }
};

}  // namespace pfsp::gpu::device_loop
