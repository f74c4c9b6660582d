// Memo dominance between nodes over the same job sets: a node (prefix set A, suffix set B, front,
// back) is pruned when a node expanded earlier had the same sets A and B and was no worse on every
// machine, front' <= front and back' <= back componentwise. Every completion of the pruned node
// (an order of the jobs between) completes the earlier one too, with a makespan no larger
// (max-plus recurrences are monotone in their starts and tails).
//
// Exactness. Only nodes that were expanded (all their children generated) are stored. Suppose some
// node N whose best completion v(N) is below the final threshold (the incumbent, or --ub) were
// lost; take one of greatest depth. Expanded, one of its children would be a deeper such node;
// pruned by its bound, lb(N) <= v(N) would be below the threshold. Pruned here, the stored node M
// it was compared with has the same depth, v(M) <= v(N), and was expanded: one of M's children is
// a deeper such node. So none is lost, and the search proves what it proves without the memo.
// Equal fronts and backs need no tie rule, for the same reason. The swap rule
// (bound/dominance.hpp) rests on another argument (an order of complete schedules) and the two
// are not combined: the solvers run one or the other.
//
// The table is a cache: 4-way buckets, lossy, shared by the threads of a solve under a spin lock
// a bucket (any thread's expanded nodes serve the argument). A stored entry holds the two sets exactly (no hash is
// trusted) and the front and back. Cost: O(n / 64 + m) a node on top of its expansion, one bucket of cache lines.
// (Memory-based dominance of this kind: Ozolins's bounded dynamic programming for flow shops; the
// node form here is for bidirectional branching.)
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "search/types.hpp"

namespace pfsp {

// One thread's view of a table: the key of the node it last checked, and where it goes.
struct memo_probe {
  std::vector<std::uint64_t> key;  // the prefix set, then the suffix set (n bits each)
  std::size_t bucket = 0;
  int replace = -1;  // a way holding the same sets that the node is no worse than, or -1
  int victim = 0;    // the way to evict when the bucket is full
};

class memo_table {
 public:
  // bytes: the table's memory (entries of 16 ceil(n/64) + 8 m + 1 bytes, four to a bucket).
  memo_table(int n, int m, std::size_t bytes) : n_(n), m_(m), words_((n + 63) / 64) {
    const std::size_t key_words = 2 * static_cast<std::size_t>(words_);
    const std::size_t entry = key_words * sizeof(std::uint64_t) + 2 * static_cast<std::size_t>(m) * sizeof(int) + 1;
    std::size_t buckets = 1;
    while (buckets * 2 * kWays * entry <= bytes) buckets *= 2;
    mask_ = buckets - 1;
    const std::size_t slots = buckets * kWays;
    // Left uninitialised (pages arrive as they are first written): only used_ is read first.
    keys_.reset(new std::uint64_t[slots * key_words]);
    values_.reset(new int[slots * 2 * static_cast<std::size_t>(m)]);
    used_.assign(slots, 0);
    locks_.reset(new std::atomic<bool>[buckets]);
    for (std::size_t b = 0; b < buckets; ++b) locks_[b].store(false, std::memory_order_relaxed);
  }

  std::size_t entries() const { return used_.size(); }
  memo_probe probe() const {
    return memo_probe{std::vector<std::uint64_t>(2 * static_cast<std::size_t>(words_)), 0, -1, 0};
  }

  // True when a stored node over the same sets as (perm, limit1, limit2) is no worse on every
  // machine; else `p` remembers the node's key for store(). Safe beside other threads' calls.
  bool dominated(memo_probe& p, const job_t* perm, int limit1, int limit2, const int* front, const int* back) {
    make_key(p, perm, limit1, limit2);
    const bucket_lock hold(locks_[p.bucket]);
    const std::size_t base = p.bucket * kWays;
    for (std::size_t w = 0; w < kWays; ++w) {
      const std::size_t s = base + w;
      if (!used_[s] || !same_key(p, s)) continue;
      const int* v = &values_[s * 2 * static_cast<std::size_t>(m_)];
      if (no_worse(v, front) && no_worse(v + m_, back)) return true;
      if (p.replace < 0 && no_worse(front, v) && no_worse(back, v + m_)) p.replace = static_cast<int>(w);
    }
    return false;
  }

  // Stores the node last checked through `p` (found not dominated): over an entry of the same sets
  // it is no worse than, else an empty way, else the bucket's next victim. Another thread may
  // have written the bucket since the check: any entry is an expanded node, so overwriting one
  // loses only a chance to prune.
  void store(const memo_probe& p, const int* front, const int* back) {
    const bucket_lock hold(locks_[p.bucket]);
    const std::size_t base = p.bucket * kWays;
    const std::size_t s = base + static_cast<std::size_t>(p.replace >= 0 ? p.replace : free_way(base, p.victim));
    std::copy(p.key.begin(), p.key.end(), &keys_[s * p.key.size()]);
    int* v = &values_[s * 2 * static_cast<std::size_t>(m_)];
    std::copy(front, front + m_, v);
    std::copy(back, back + m_, v + m_);
    used_[s] = 1;
  }

 private:
  static constexpr std::size_t kWays = 4;

  // A spin lock over one bucket: held for a few dozen loads and stores.
  class bucket_lock {
   public:
    explicit bucket_lock(std::atomic<bool>& f) : f_(f) {
      while (f_.exchange(true, std::memory_order_acquire))
        while (f_.load(std::memory_order_relaxed)) {
        }
    }
    ~bucket_lock() { f_.store(false, std::memory_order_release); }
    bucket_lock(const bucket_lock&) = delete;
    bucket_lock& operator=(const bucket_lock&) = delete;

   private:
    std::atomic<bool>& f_;
  };

  void make_key(memo_probe& p, const job_t* perm, int limit1, int limit2) const {
    std::fill(p.key.begin(), p.key.end(), 0);
    for (int i = 0; i <= limit1; ++i) p.key[perm[i] >> 6] |= std::uint64_t{1} << (perm[i] & 63);
    for (int i = limit2; i < n_; ++i) p.key[words_ + (perm[i] >> 6)] |= std::uint64_t{1} << (perm[i] & 63);
    std::uint64_t h = 0x9e3779b97f4a7c15ULL;
    for (const std::uint64_t w : p.key) h = mix(h ^ w);
    p.bucket = static_cast<std::size_t>(h) & mask_;
    p.victim = static_cast<int>(h >> 62);
    p.replace = -1;
  }

  bool same_key(const memo_probe& p, std::size_t s) const {
    return std::equal(p.key.begin(), p.key.end(), &keys_[s * p.key.size()]);
  }

  bool no_worse(const int* a, const int* b) const {
    for (int k = 0; k < m_; ++k)
      if (a[k] > b[k]) return false;
    return true;
  }

  int free_way(std::size_t base, int victim) const {
    for (std::size_t w = 0; w < kWays; ++w)
      if (!used_[base + w]) return static_cast<int>(w);
    return victim;
  }

  static std::uint64_t mix(std::uint64_t x) {  // splitmix64's finaliser
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
  }

  int n_, m_, words_;
  std::size_t mask_ = 0;
  std::unique_ptr<std::uint64_t[]> keys_;  // per slot: the two sets
  std::unique_ptr<int[]> values_;          // per slot: front, then back
  std::vector<unsigned char> used_;
  std::unique_ptr<std::atomic<bool>[]> locks_;  // per bucket
};

}  // namespace pfsp
