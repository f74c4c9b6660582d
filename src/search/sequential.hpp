// The sequential branch-and-bound: the reference every other solver is checked against.
#pragma once

#include "bound/bound_data.hpp"
#include "search/control.hpp"
#include "search/types.hpp"

namespace pfsp {

// Solves `data`'s instance exactly. `start` is the first incumbent (e.g. NEH; may be empty).
solve_result solve_sequential(const bound_data& data, const solve_options& opt, const incumbent& start);

}  // namespace pfsp
