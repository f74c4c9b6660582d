// Which lower bound a node gets (bound/lb2.hpp's child_bound and node_bound), and its names.
#pragma once

#include <array>

#include "base/enum_names.hpp"

namespace pfsp {

enum class bound_kind : int { lb1 = 0, lb2 = 1, lb1_lb2 = 2 };

constexpr auto enum_names(bound_kind) {
  using e = enum_name<bound_kind>;
  return std::array{e{bound_kind::lb1, "lb1"}, e{bound_kind::lb2, "lb2"}, e{bound_kind::lb1_lb2, "lb1-lb2"}};
}

}  // namespace pfsp
