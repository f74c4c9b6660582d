#include "search/types.hpp"

namespace pfsp {

std::string_view to_string(bound_kind v) {
  switch (v) {
    case bound_kind::lb1:
      return "lb1";
    case bound_kind::lb2:
      return "lb2";
    case bound_kind::lb1_lb2:
      return "lb1-lb2";
  }
  return "?";
}
std::string_view to_string(branching v) {
  switch (v) {
    case branching::forward:
      return "forward";
    case branching::backward:
      return "backward";
    case branching::min_branch:
      return "min-branch";
    case branching::min_min:
      return "min-min";
  }
  return "?";
}
std::string_view to_string(selection v) {
  switch (v) {
    case selection::depth_first:
      return "depth-first";
    case selection::breadth_first:
      return "breadth-first";
    case selection::best_first:
      return "best-first";
  }
  return "?";
}
std::string_view to_string(solve_status v) {
  switch (v) {
    case solve_status::optimal:
      return "optimal";
    case solve_status::proven_bound:
      return "proven_bound";
    case solve_status::time_limit:
      return "time_limit";
    case solve_status::node_limit:
      return "node_limit";
    case solve_status::interrupted:
      return "interrupted";
    case solve_status::error:
      return "error";
  }
  return "?";
}

}  // namespace pfsp
