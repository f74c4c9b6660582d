// Pools of open nodes for the three selection strategies. A node is the papers' subproblem:
// a permutation with limit1 (end of the prefix, -1 when empty) and limit2 (start of the suffix,
// n when empty), plus the bound it was given when created.
#pragma once

#include <algorithm>
#include <climits>
#include <cstdint>
#include <deque>
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

struct owned_node {
  node_meta meta;
  std::vector<job_t> perm;
};

// Breadth-first: FIFO.
class bfs_pool {
 public:
  explicit bfs_pool(int n) : n_(n) {}
  std::size_t size() const { return q_.size(); }
  bool empty() const { return q_.empty(); }
  void push_root(const job_t* perm, int limit1, int limit2, int lb) {
    q_.push_back({{limit1, limit2, lb}, std::vector<job_t>(perm, perm + n_)});
  }
  void push(const job_t* parent, int a, int b, int limit1, int limit2, int lb) {
    owned_node nd{{limit1, limit2, lb}, std::vector<job_t>(parent, parent + n_)};
    std::swap(nd.perm[a], nd.perm[b]);
    q_.push_back(std::move(nd));
  }
  node_meta pop(job_t* out) {
    owned_node nd = std::move(q_.front());
    q_.pop_front();
    std::copy(nd.perm.begin(), nd.perm.end(), out);
    return nd.meta;
  }
  int min_lb() const {
    int v = INT_MAX;
    for (const auto& x : q_) v = std::min(v, x.meta.lb);
    return v;
  }

 private:
  int n_;
  std::deque<owned_node> q_;
};

// Best-first: smallest bound first, deeper first among equal bounds.
class best_pool {
 public:
  explicit best_pool(int n) : n_(n) {}
  std::size_t size() const { return q_.size(); }
  bool empty() const { return q_.empty(); }
  void push_root(const job_t* perm, int limit1, int limit2, int lb) {
    q_.push({{limit1, limit2, lb}, std::vector<job_t>(perm, perm + n_)});
  }
  void push(const job_t* parent, int a, int b, int limit1, int limit2, int lb) {
    owned_node nd{{limit1, limit2, lb}, std::vector<job_t>(parent, parent + n_)};
    std::swap(nd.perm[a], nd.perm[b]);
    q_.push(std::move(nd));
  }
  node_meta pop(job_t* out) {
    const owned_node& top = q_.top();
    std::copy(top.perm.begin(), top.perm.end(), out);
    const node_meta m = top.meta;
    q_.pop();
    return m;
  }
  int min_lb() const { return q_.empty() ? INT_MAX : q_.top().meta.lb; }

 private:
  struct worse {
    bool operator()(const owned_node& a, const owned_node& b) const {
      if (a.meta.lb != b.meta.lb) return a.meta.lb > b.meta.lb;
      return (a.meta.limit1 - a.meta.limit2) < (b.meta.limit1 - b.meta.limit2);  // deeper first
    }
  };
  int n_;
  std::priority_queue<owned_node, std::vector<owned_node>, worse> q_;
};

}  // namespace pfsp
