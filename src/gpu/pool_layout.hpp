// The layout of one pool as it crosses the bus, shared by the host code and the kernels
// (PFSP_HD, no CUDA header).
//
// A pool is P parents and the C children the GPU bounds for them (C = sum over parents of
// count x directions, count = limit2 - limit1 - 1 unscheduled jobs). The host sends only the
// parents: their permutations (8-bit jobs when n < 256, else 16-bit), packed limits, and the
// offset of each parent's first child. A device kernel expands them into one 32-bit descriptor
// per child; one thread then bounds one child (the papers' model: one thread per node).
//
// Children of parent p sit at offset[p] .. offset[p+1): for the bidirectional rules first the
// forward children (append the c-th unscheduled job to the prefix), then the backward ones (put
// it in front of the suffix); for forward or backward branching only that direction. This
// "natural" order is the one the host reads the bounds in; a sort only permutes which thread
// evaluates which child.
#pragma once

#include <cstdint>

#include "base/hd.hpp"

namespace pfsp::gpu {

inline constexpr int kMaxJobs = 1024;    // 11 bits of child position in a descriptor
inline constexpr int kMaxMachines = 64;  // per-thread front/back/remain/scratch arrays
inline constexpr int kParentBits = 20;   // parents per pool < 2^20
inline constexpr std::uint32_t kMaxParentsPerPool = (1u << kParentBits) - 1;

// limit1 in [-1, n), limit2 in (limit1, n]: (limit1 + 1) in the low 16 bits, limit2 in the high.
PFSP_HD std::uint32_t pack_limits(int limit1, int limit2) {
  return static_cast<std::uint32_t>(limit1 + 1) | (static_cast<std::uint32_t>(limit2) << 16);
}
PFSP_HD int limit1_of(std::uint32_t packed) { return static_cast<int>(packed & 0xFFFFu) - 1; }
PFSP_HD int limit2_of(std::uint32_t packed) { return static_cast<int>(packed >> 16); }

// Child descriptor: parent index (20 bits) | position among the unscheduled (11 bits) | backward.
PFSP_HD std::uint32_t make_child(std::uint32_t parent, int position, bool backward) {
  return parent | (static_cast<std::uint32_t>(position) << kParentBits) | (backward ? 0x80000000u : 0u);
}
PFSP_HD std::uint32_t child_parent(std::uint32_t d) { return d & ((1u << kParentBits) - 1u); }
PFSP_HD int child_position(std::uint32_t d) { return static_cast<int>((d >> kParentBits) & 0x7FFu); }
PFSP_HD bool child_backward(std::uint32_t d) { return (d & 0x80000000u) != 0; }

// Thread-data reordering key (CCPE 5.2): the child's own (limit1, limit2) and its direction.
// The loops of node_parts run limit1 + 1 and n - limit2 times, and child_bound branches on the
// direction: children with equal keys take the same path. Below 2 (n + 1)^2.
PFSP_HD std::uint32_t child_key(int n, int parent_limit1, int parent_limit2, bool backward) {
  const int l1 = backward ? parent_limit1 : parent_limit1 + 1;
  const int l2 = backward ? parent_limit2 - 1 : parent_limit2;
  return (static_cast<std::uint32_t>((l1 + 1) * (n + 1) + l2) << 1) | (backward ? 1u : 0u);
}
// Writes parent p's child descriptors in natural order from index idx on (and, when keys is set,
// their sort keys with identity values); returns the index past them. The host loop's expand
// kernel and the device loop's gather kernel both call it.
PFSP_HD std::uint32_t write_children(std::uint32_t p, int n, int limit1, int limit2, int directions, bool backward_only,
                                     std::uint32_t idx, std::uint32_t* desc, std::uint32_t* keys,
                                     std::uint32_t* values) {
  const int count = limit2 - limit1 - 1;
  for (int dir = 0; dir < directions; ++dir) {
    const bool backward = directions == 2 ? dir == 1 : backward_only;
    const std::uint32_t key = child_key(n, limit1, limit2, backward);
    for (int c = 0; c < count; ++c, ++idx) {
      desc[idx] = make_child(p, c, backward);
      if (keys) {
        keys[idx] = key;
        values[idx] = idx;
      }
    }
  }
  return idx;
}

inline int child_key_bits(int n) {
  const unsigned max_key = 2u * static_cast<unsigned>(n + 1) * static_cast<unsigned>(n + 1);
  int bits = 1;
  while ((1u << bits) <= max_key) ++bits;
  return bits;
}

}  // namespace pfsp::gpu
