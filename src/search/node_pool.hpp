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

// Depth-first: a stack of nodes kept as frames. A frame is one parent's permutation, stored once;
// each node is an entry naming its frame and the two positions its child swaps (none for a node
// pushed whole). A depth-first search that prunes nothing holds about n^2 / 2 nodes: as whole
// permutations that is n^3 bytes (512 MB a thread at 800 jobs), as frames and entries about
// 2 n^2 + 10 n^2 bytes (8 MB). Entries of a frame are contiguous and frames are in stack order, so
// a frame goes when its last entry is popped. No allocation in steady state; nodes can be taken
// from the bottom for work stealing. The order of pops is that of a stack of whole nodes.
class dfs_pool {
 public:
  explicit dfs_pool(int n) : n_(static_cast<std::size_t>(n)) {}

  std::size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }

  void push_root(const job_t* perm, int limit1, int limit2, int lb) {
    add_frame(perm);
    entries_.push_back({{limit1, limit2, lb}, top_frame(), 0, 0});
  }
  // Child = parent with positions a and b swapped. Children of one parent pushed one after the
  // other share its frame.
  void push(const job_t* parent, int a, int b, int limit1, int limit2, int lb) {
    if (frames() == 0 || !std::equal(parent, parent + n_, frame(top_frame()))) add_frame(parent);
    entries_.push_back({{limit1, limit2, lb}, top_frame(), static_cast<job_t>(a), static_cast<job_t>(b)});
  }
  // Copies the top node into out (n jobs) and removes it.
  node_meta pop(job_t* out) {
    const entry e = entries_.back();
    copy_perm(entries_.size() - 1, out);
    entries_.pop_back();
    if (entries_.empty() || entries_.back().frame != e.frame) perms_.resize(perms_.size() - n_);
    return e.meta;
  }
  // Moves the `count` bottom-most (oldest, largest) nodes onto the top of `to` (work stealing),
  // bottom first. A frame whose entries are split stays here and is copied there.
  void steal_bottom(dfs_pool& to, std::size_t count) {
    count = std::min(count, size());
    if (count == 0) return;
    const std::uint32_t last = entries_[count - 1].frame;
    const auto base = static_cast<std::uint32_t>(to.frames());
    to.perms_.insert(to.perms_.end(), perms_.begin(), perms_.begin() + static_cast<std::ptrdiff_t>((last + 1) * n_));
    for (std::size_t i = 0; i < count; ++i) {
      entry e = entries_[i];
      e.frame += base;
      to.entries_.push_back(e);
    }
    const std::uint32_t gone = count < size() ? entries_[count].frame : last + 1;  // frames left with no entry
    entries_.erase(entries_.begin(), entries_.begin() + static_cast<std::ptrdiff_t>(count));
    perms_.erase(perms_.begin(), perms_.begin() + static_cast<std::ptrdiff_t>(gone * n_));
    for (auto& e : entries_) e.frame -= gone;
  }
  int min_lb() const {
    int v = INT_MAX;
    for (const auto& e : entries_) v = std::min(v, e.meta.lb);
    return v;
  }
  // Node i's permutation (0 = the bottom) into out (n jobs).
  void copy_perm(std::size_t i, job_t* out) const {
    const entry& e = entries_[i];
    const job_t* p = frame(e.frame);
    std::copy(p, p + n_, out);
    std::swap(out[e.a], out[e.b]);
  }
  const node_meta& meta(std::size_t i) const { return entries_[i].meta; }
  void clear() {
    perms_.clear();
    entries_.clear();
  }
  // The memory held (the vectors' capacities).
  std::size_t bytes() const { return perms_.capacity() * sizeof(job_t) + entries_.capacity() * sizeof(entry); }

 private:
  struct entry {
    node_meta meta;
    std::uint32_t frame;
    job_t a, b;  // the positions swapped in the frame's permutation (equal: none)
  };
  std::size_t frames() const { return perms_.size() / n_; }
  std::uint32_t top_frame() const { return static_cast<std::uint32_t>(frames() - 1); }
  const job_t* frame(std::uint32_t f) const { return perms_.data() + f * n_; }
  void add_frame(const job_t* perm) { perms_.insert(perms_.end(), perm, perm + n_); }

  std::size_t n_;
  std::vector<job_t> perms_;  // the frames, n jobs each
  std::vector<entry> entries_;
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
