// The bounder's interface computed on the host with the same bound functions: lets the GPU
// solver's loop (selection, pipeline bookkeeping, pruning, statistics) run and be tested on a
// machine without a GPU. Not a CPU solver: it is single-threaded and slow.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "bound/bound_data.hpp"
#include "bound/lb2.hpp"
#include "bound/node_parts.hpp"
#include "gpu/bounder.hpp"
#include "gpu/policy.hpp"
#include "gpu/pool_layout.hpp"
#include "search/types.hpp"

namespace pfsp::gpu {

class host_bounder {
 public:
  host_bounder(const bound_data& data, bound_kind kind, branching rule, const gpu_policy& policy,
               std::size_t max_children)
      : b_(data.view()), kind_(kind), rule_(rule) {
    n_ = b_.inst.n;
    jb_ = n_ <= 256 ? 1 : 2;
    dirs_ = (rule == branching::forward || rule == branching::backward) ? 1 : 2;
    max_children_ = std::max<std::size_t>(max_children, 1);
    max_parents_ = std::min<std::size_t>(
        {max_children_, kMaxParentsPerPool, (std::size_t{32} << 20) / (static_cast<std::size_t>(n_) * jb_)});
    slots_.resize(static_cast<std::size_t>(std::clamp(policy.streams, 1, 2)));
    for (auto& s : slots_) {
      s.perms.resize(max_parents_ * static_cast<std::size_t>(n_) * jb_);
      s.limits.resize(max_parents_);
      s.offsets.resize(max_parents_ + 1);
    }
    dev_.name = "host emulation";
  }

  int n() const { return n_; }
  int job_bytes() const { return jb_; }
  int slots() const { return static_cast<int>(slots_.size()); }
  int directions() const { return dirs_; }
  std::size_t max_children() const { return max_children_; }
  std::size_t max_parents() const { return max_parents_; }
  int occupancy_threads_per_block() const { return 256; }
  const device_info& device() const { return dev_; }
  std::string describe() const { return std::string(to_string(kind_)) + " bounds computed on the host"; }
  void* perms(int s) { return slots_[static_cast<std::size_t>(s)].perms.data(); }
  std::uint32_t* limits(int s) { return slots_[static_cast<std::size_t>(s)].limits.data(); }
  const std::uint32_t* offsets(int s) const { return slots_[static_cast<std::size_t>(s)].offsets.data(); }
  std::size_t children(int s) const { return slots_[static_cast<std::size_t>(s)].bounds.size(); }
  device_times times() const { return {}; }
  double host_sort_seconds() const { return 0; }

  std::size_t submit_children(int s, std::size_t parents, int ub, int) {
    slot& sl = slots_[static_cast<std::size_t>(s)];
    sl.bounds.clear();
    const int m = b_.inst.m;
    std::vector<int> front(m), back(m), remain(m), scratch(m);
    std::vector<unsigned char> flags(static_cast<std::size_t>(n_));
    std::vector<int> perm(static_cast<std::size_t>(n_));
    for (std::size_t p = 0; p < parents; ++p) {
      sl.offsets[p] = static_cast<std::uint32_t>(sl.bounds.size());
      for (int i = 0; i < n_; ++i) {
        const std::size_t at = p * static_cast<std::size_t>(n_) + static_cast<std::size_t>(i);
        perm[static_cast<std::size_t>(i)] =
            jb_ == 1 ? sl.perms[at] : reinterpret_cast<const std::uint16_t*>(sl.perms.data())[at];
      }
      const int l1 = limit1_of(sl.limits[p]), l2 = limit2_of(sl.limits[p]), first = l1 + 1, count = l2 - first;
      node_parts(b_, perm.data(), l1, l2, front.data(), back.data(), remain.data());
      for (int i = 0; i < n_; ++i)
        flags[static_cast<std::size_t>(perm[static_cast<std::size_t>(i)])] = (i < first || i >= l2) ? 1 : 0;
      const unsigned char* f = flags.data();
      auto sched = [f](int j) { return f[j] != 0; };
      for (int dir = 0; dir < dirs_; ++dir) {
        const bool forward = dirs_ == 2 ? dir == 0 : rule_ != branching::backward;
        for (int c = 0; c < count; ++c)
          sl.bounds.push_back(child_bound(kind_, b_, front.data(), back.data(), remain.data(), sched,
                                          perm[static_cast<std::size_t>(first + c)], forward, ub, scratch.data()));
      }
    }
    sl.offsets[parents] = static_cast<std::uint32_t>(sl.bounds.size());
    PFSP_HD_ASSERT(sl.bounds.size() <= max_children_);
    return sl.bounds.size();
  }
  const int* wait(int s) { return slots_[static_cast<std::size_t>(s)].bounds.data(); }

 private:
  struct slot {
    std::vector<unsigned char> perms;
    std::vector<std::uint32_t> limits, offsets;
    std::vector<int> bounds;
  };
  bound_view b_;
  bound_kind kind_;
  branching rule_;
  int n_ = 0, jb_ = 1, dirs_ = 2;
  std::size_t max_children_ = 0, max_parents_ = 0;
  std::vector<slot> slots_;
  device_info dev_;
};

}  // namespace pfsp::gpu
