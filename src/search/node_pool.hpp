// Pools of open nodes for the three selection strategies. A node is the papers' subproblem:
// a permutation with limit1 (end of the prefix, -1 when empty) and limit2 (start of the suffix,
// n when empty), plus the bound it was given when created.
#pragma once

#include <algorithm>
#include <climits>
#include <cstdint>
#include <deque>
#include <memory>
#include <queue>
#include <vector>

#include "search/types.hpp"

namespace pfsp {

struct node_meta {
  std::int32_t limit1;
  std::int32_t limit2;
  std::int32_t lb;
};

// Depth-first: a stack in flat arrays (one permutation of n jobs per node). No allocation in
// steady state; nodes can be taken from the bottom for work stealing.
class dfs_pool {
 public:
  explicit dfs_pool(int n) : n_(n) {}

  std::size_t size() const { return meta_.size(); }
  bool empty() const { return meta_.empty(); }

  void push_root(const job_t* perm, int limit1, int limit2, int lb) {
    perms_.insert(perms_.end(), perm, perm + n_);
    meta_.push_back({limit1, limit2, lb});
  }
  // Child = parent with positions a and b swapped.
  void push(const job_t* parent, int a, int b, int limit1, int limit2, int lb) {
    const std::size_t off = perms_.size();
    perms_.resize(off + n_);
    job_t* p = perms_.data() + off;
    std::copy(parent, parent + n_, p);
    std::swap(p[a], p[b]);
    meta_.push_back({limit1, limit2, lb});
  }
  // Copies the top node into out (n jobs) and removes it.
  node_meta pop(job_t* out) {
    const node_meta m = meta_.back();
    const std::size_t off = perms_.size() - n_;
    std::copy(perms_.data() + off, perms_.data() + off + n_, out);
    perms_.resize(off);
    meta_.pop_back();
    return m;
  }
  // Moves the `count` bottom-most (oldest, largest) nodes into `to` (work stealing).
  void steal_bottom(dfs_pool& to, std::size_t count) {
    count = std::min(count, size());
    to.perms_.insert(to.perms_.end(), perms_.begin(), perms_.begin() + static_cast<std::ptrdiff_t>(count * n_));
    to.meta_.insert(to.meta_.end(), meta_.begin(), meta_.begin() + static_cast<std::ptrdiff_t>(count));
    perms_.erase(perms_.begin(), perms_.begin() + static_cast<std::ptrdiff_t>(count * n_));
    meta_.erase(meta_.begin(), meta_.begin() + static_cast<std::ptrdiff_t>(count));
  }
  int min_lb() const {
    int v = INT_MAX;
    for (const auto& m : meta_) v = std::min(v, m.lb);
    return v;
  }
  const job_t* perm(std::size_t i) const { return perms_.data() + i * n_; }
  const node_meta& meta(std::size_t i) const { return meta_[i]; }
  void clear() {
    perms_.clear();
    meta_.clear();
  }

 private:
  int n_;
  std::vector<job_t> perms_;
  std::vector<node_meta> meta_;
};

// Best- and breadth-first pools keep their permutations in chunks of about 1 MiB: a node costs
// 2n bytes plus its meta (no allocation of its own), and freeing a pool of millions of nodes is a
// few thousand free() calls (one vector per node cost 0.6 s for 1.6 M nodes at 500 x 20, after
// the time limit). Slots are addressed by index; freed slots are reused.
class node_slab {
 public:
  explicit node_slab(int n)
      : n_(static_cast<std::size_t>(n)),
        per_chunk_(std::max<std::size_t>(1, (std::size_t{1} << 20) / (n_ * sizeof(job_t)))) {}
  // A slot for one permutation (a freed one if any).
  std::size_t take() {
    if (!free_.empty()) {
      const std::size_t s = free_.back();
      free_.pop_back();
      return s;
    }
    if (next_ == chunks_.size() * per_chunk_) chunks_.push_back(std::make_unique<job_t[]>(per_chunk_ * n_));
    return next_++;
  }
  void release(std::size_t slot) { free_.push_back(slot); }
  job_t* at(std::size_t slot) { return chunks_[slot / per_chunk_].get() + (slot % per_chunk_) * n_; }
  const job_t* at(std::size_t slot) const { return chunks_[slot / per_chunk_].get() + (slot % per_chunk_) * n_; }

 private:
  std::size_t n_, per_chunk_;
  std::vector<std::unique_ptr<job_t[]>> chunks_;
  std::vector<std::size_t> free_;
  std::size_t next_ = 0;
};

struct slab_node {
  node_meta meta;
  std::size_t slot;
};

// Breadth-first: FIFO.
class bfs_pool {
 public:
  explicit bfs_pool(int n) : n_(n), slab_(n) {}
  std::size_t size() const { return q_.size(); }
  bool empty() const { return q_.empty(); }
  void push_root(const job_t* perm, int limit1, int limit2, int lb) {
    const std::size_t s = slab_.take();
    std::copy(perm, perm + n_, slab_.at(s));
    q_.push_back({{limit1, limit2, lb}, s});
  }
  void push(const job_t* parent, int a, int b, int limit1, int limit2, int lb) {
    const std::size_t s = slab_.take();
    job_t* p = slab_.at(s);
    std::copy(parent, parent + n_, p);
    std::swap(p[a], p[b]);
    q_.push_back({{limit1, limit2, lb}, s});
  }
  node_meta pop(job_t* out) {
    const slab_node nd = q_.front();
    q_.pop_front();
    const job_t* p = slab_.at(nd.slot);
    std::copy(p, p + n_, out);
    slab_.release(nd.slot);
    return nd.meta;
  }
  int min_lb() const {
    int v = INT_MAX;
    for (const auto& x : q_) v = std::min(v, x.meta.lb);
    return v;
  }

 private:
  int n_;
  node_slab slab_;
  std::deque<slab_node> q_;
};

// Best-first: smallest bound first, deeper first among equal bounds.
class best_pool {
 public:
  explicit best_pool(int n) : n_(n), slab_(n) {}
  std::size_t size() const { return q_.size(); }
  bool empty() const { return q_.empty(); }
  void push_root(const job_t* perm, int limit1, int limit2, int lb) {
    const std::size_t s = slab_.take();
    std::copy(perm, perm + n_, slab_.at(s));
    q_.push({{limit1, limit2, lb}, s});
  }
  void push(const job_t* parent, int a, int b, int limit1, int limit2, int lb) {
    const std::size_t s = slab_.take();
    job_t* p = slab_.at(s);
    std::copy(parent, parent + n_, p);
    std::swap(p[a], p[b]);
    q_.push({{limit1, limit2, lb}, s});
  }
  node_meta pop(job_t* out) {
    const slab_node top = q_.top();
    q_.pop();
    const job_t* p = slab_.at(top.slot);
    std::copy(p, p + n_, out);
    slab_.release(top.slot);
    return top.meta;
  }
  int min_lb() const { return q_.empty() ? INT_MAX : q_.top().meta.lb; }

 private:
  struct worse {
    bool operator()(const slab_node& a, const slab_node& b) const {
      if (a.meta.lb != b.meta.lb) return a.meta.lb > b.meta.lb;
      return (a.meta.limit1 - a.meta.limit2) < (b.meta.limit1 - b.meta.limit2);  // deeper first
    }
  };
  int n_;
  node_slab slab_;
  std::priority_queue<slab_node, std::vector<slab_node>, worse> q_;
};

}  // namespace pfsp
