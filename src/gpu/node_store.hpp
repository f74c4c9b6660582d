// Open-node storage of the GPU solver behind an interface, so that the selection step (and
// later the whole loop) can move to the device without touching the solver's logic.
//
// bucket_store keeps the nodes in buckets by (bound, depth): every selection rule is then a
// walk over the buckets in its own order, O(1) per node plus the empty buckets it skips, and a
// node whose bound reached the incumbent is dropped when met. One shard per host worker, so
// that the workers push children concurrently; selection runs on one thread and walks all
// shards. Bounds beyond the bucket range share the last bucket (best-first is then
// approximate among them, which only happens when no upper bound is known).
#pragma once

#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "gpu/pool_layout.hpp"

namespace pfsp::gpu {

enum class select_order { deepest, shallowest, best };

struct selection_result {
  std::size_t parents = 0;
  std::size_t children = 0;  // sum of count x directions over the parents
  std::size_t pruned = 0;    // nodes dropped because their bound reached ub
  double explored = 0;       // search-space share of the dropped nodes
};

template <class Job>
class node_store {
 public:
  virtual ~node_store() = default;
  virtual std::size_t size() const = 0;
  bool empty() const { return size() == 0; }
  // Smallest bound of an open node (INT_MAX when empty).
  virtual int min_lb() const = 0;
  // Adds the child of `parent` whose positions a and b are swapped. Calls with different
  // `shard` values may run concurrently; none may overlap a select().
  virtual void push_child(int shard, const Job* parent, int a, int b, int limit1, int limit2, int lb) = 0;
  virtual void push(int shard, const Job* perm, int limit1, int limit2, int lb) = 0;
  // Moves parents in `order` into perms (n jobs each) and limits (pack_limits), stopping at
  // max_parents or before the children (count x directions) would pass max_children. Nodes
  // with lb >= ub are dropped and counted, weights[depth] being each one's search-space share.
  // Only shards [shard_begin, shard_end) are taken from (all by default); calls on disjoint
  // shard ranges may run concurrently.
  virtual selection_result select(select_order order, std::size_t max_parents, std::size_t max_children, int directions,
                                  int ub, const double* weights, Job* perms, std::uint32_t* limits, int shard_begin = 0,
                                  int shard_end = -1) = 0;
  virtual int shards() const = 0;
};

template <class Job>
class bucket_store final : public node_store<Job> {
 public:
  // Bounds in [lb_base, ub) get one bucket each, up to a table of about 64 Ki buckets a shard.
  bucket_store(int n, int shards, int lb_base, int ub) : n_(n), base_(lb_base) {
    const long long range = static_cast<long long>(ub) - lb_base + 1;
    const long long cap = std::max(16, 65536 / (n + 1));
    levels_ = static_cast<int>(std::clamp<long long>(range, 1, cap));
    rec_ = (3 * sizeof(std::int32_t) + static_cast<std::size_t>(n) * sizeof(Job) + 3) & ~std::size_t{3};
    shards_.resize(static_cast<std::size_t>(std::max(1, shards)));
    for (auto& s : shards_) {
      s.buckets.resize(static_cast<std::size_t>(levels_) * (n + 1));
      s.count_lb.assign(static_cast<std::size_t>(levels_), 0);
      s.count_depth.assign(static_cast<std::size_t>(n) + 1, 0);
    }
  }

  std::size_t size() const override {
    std::size_t t = 0;
    for (const auto& s : shards_) t += s.size;
    return t;
  }

  int min_lb() const override {
    for (int l = 0; l < levels_; ++l) {
      int best = INT_MAX;
      for (const auto& s : shards_) {
        if (s.count_lb[static_cast<std::size_t>(l)] == 0) continue;
        for (int d = 0; d <= n_; ++d) {
          const auto& b = s.buckets[index(l, d)];
          for (std::size_t off = 0; off < b.bytes(); off += rec_) best = std::min(best, read_meta(b.data() + off).lb);
        }
      }
      if (best != INT_MAX) return best;
    }
    return INT_MAX;
  }

  void push(int shard, const Job* perm, int limit1, int limit2, int lb) override {
    unsigned char* r = append(shard, limit1, limit2, lb);
    std::memcpy(r + kMetaBytes, perm, static_cast<std::size_t>(n_) * sizeof(Job));
  }

  void push_child(int shard, const Job* parent, int a, int b, int limit1, int limit2, int lb) override {
    unsigned char* r = append(shard, limit1, limit2, lb);
    Job* p = reinterpret_cast<Job*>(r + kMetaBytes);
    std::memcpy(p, parent, static_cast<std::size_t>(n_) * sizeof(Job));
    std::swap(p[a], p[b]);
  }

  int shards() const override { return static_cast<int>(shards_.size()); }

  selection_result select(select_order order, std::size_t max_parents, std::size_t max_children, int directions, int ub,
                          const double* weights, Job* perms, std::uint32_t* limits, int shard_begin = 0,
                          int shard_end = -1) override {
    selection_result r;
    bool full = false;
    if (shard_end < 0) shard_end = shards();
    const auto first = shards_.begin() + shard_begin, last = shards_.begin() + shard_end;
    auto take_bucket = [&](int l, int d) {
      for (auto it = first; it != last; ++it) {
        shard_data& s = *it;
        record_stack& b = s.buckets[index(l, d)];
        while (!b.empty()) {
          const unsigned char* rec = b.top(rec_);
          const meta mt = read_meta(rec);
          if (mt.lb >= ub) {
            ++r.pruned;
            r.explored += weights[d];
          } else {
            const std::size_t kids =
                static_cast<std::size_t>(mt.limit2 - mt.limit1 - 1) * static_cast<std::size_t>(directions);
            if (r.parents >= max_parents || r.children + kids > max_children) {
              full = true;
              return;
            }
            std::memcpy(perms + r.parents * static_cast<std::size_t>(n_), rec + kMetaBytes,
                        static_cast<std::size_t>(n_) * sizeof(Job));
            limits[r.parents] = pack_limits(mt.limit1, mt.limit2);
            ++r.parents;
            r.children += kids;
          }
          b.pop(rec_);
          --s.size;
          --s.count_lb[static_cast<std::size_t>(l)];
          --s.count_depth[static_cast<std::size_t>(d)];
        }
      }
    };
    auto any_lb = [&](int l) {
      for (auto it = first; it != last; ++it)
        if (it->count_lb[static_cast<std::size_t>(l)]) return true;
      return false;
    };
    auto any_depth = [&](int d) {
      for (auto it = first; it != last; ++it)
        if (it->count_depth[static_cast<std::size_t>(d)]) return true;
      return false;
    };
    switch (order) {
      case select_order::best:
        for (int l = 0; l < levels_ && !full; ++l) {
          if (!any_lb(l)) continue;
          for (int d = n_; d >= 0 && !full; --d) take_bucket(l, d);
        }
        break;
      case select_order::deepest:
        for (int d = n_; d >= 0 && !full; --d) {
          if (!any_depth(d)) continue;
          for (int l = 0; l < levels_ && !full; ++l) take_bucket(l, d);
        }
        break;
      case select_order::shallowest:
        for (int d = 0; d <= n_ && !full; ++d) {
          if (!any_depth(d)) continue;
          for (int l = 0; l < levels_ && !full; ++l) take_bucket(l, d);
        }
        break;
    }
    return r;
  }

 private:
  struct meta {
    std::int32_t limit1, limit2, lb;
  };
  static constexpr std::size_t kMetaBytes = sizeof(meta);
  // A LIFO of fixed-size records that grows without zero-filling (std::vector::resize would).
  class record_stack {
   public:
    bool empty() const { return size_ == 0; }
    std::size_t bytes() const { return size_; }
    const unsigned char* data() const { return data_.get(); }
    const unsigned char* top(std::size_t rec) const { return data_.get() + size_ - rec; }
    void pop(std::size_t rec) { size_ -= rec; }
    unsigned char* push(std::size_t rec) {
      if (size_ + rec > cap_) {
        const std::size_t cap = std::max<std::size_t>(4 * rec, 2 * cap_);
        std::unique_ptr<unsigned char[]> grown(new unsigned char[cap]);
        if (size_) std::memcpy(grown.get(), data_.get(), size_);
        data_ = std::move(grown);
        cap_ = cap;
      }
      unsigned char* at = data_.get() + size_;
      size_ += rec;
      return at;
    }

   private:
    std::unique_ptr<unsigned char[]> data_;
    std::size_t size_ = 0, cap_ = 0;
  };
  struct alignas(64) shard_data {
    std::vector<record_stack> buckets;  // [level * (n + 1) + depth]: records
    std::vector<std::size_t> count_lb, count_depth;
    std::size_t size = 0;
  };

  static meta read_meta(const unsigned char* rec) {
    meta m;
    std::memcpy(&m, rec, sizeof(meta));
    return m;
  }
  std::size_t index(int level, int depth) const {
    return static_cast<std::size_t>(level) * static_cast<std::size_t>(n_ + 1) + static_cast<std::size_t>(depth);
  }
  int level_of(int lb) const {
    const long long l = static_cast<long long>(lb) - base_;
    return static_cast<int>(std::clamp<long long>(l, 0, levels_ - 1));
  }
  unsigned char* append(int shard_id, int limit1, int limit2, int lb) {
    shard_data& s = shards_[static_cast<std::size_t>(shard_id)];
    const int l = level_of(lb), d = limit1 + 1 + n_ - limit2;
    unsigned char* r = s.buckets[index(l, d)].push(rec_);
    const meta m{limit1, limit2, lb};
    std::memcpy(r, &m, sizeof(meta));
    ++s.size;
    ++s.count_lb[static_cast<std::size_t>(l)];
    ++s.count_depth[static_cast<std::size_t>(d)];
    return r;
  }

  int n_;
  int base_;
  int levels_ = 1;
  std::size_t rec_ = 0;
  std::vector<shard_data> shards_;
};

}  // namespace pfsp::gpu
