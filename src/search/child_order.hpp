// The solution-guided order's key of a child (child_order::incumbent, decision 014): the distance
// of the job the child places at position `to` from the guide's position of that job, then the
// child's bound. A parent's children are pushed largest key first, so the child nearest the guide
// (then of the smallest bound) is explored first. One definition for the CPU expander
// (expander::order_children) and the GPU device loop's push kernel (push_rank).
#pragma once

#include "base/hd.hpp"

namespace pfsp {

// lb >= 0. Without a guide (every position 0 or none), the distance is the same for all children
// of a parent and the bound alone orders them.
PFSP_HD unsigned long long guided_child_key(int guide_position, int to, int lb) {
  const int d = guide_position - to;
  return (static_cast<unsigned long long>(d < 0 ? -d : d) << 32) | static_cast<unsigned>(lb);
}

}  // namespace pfsp
