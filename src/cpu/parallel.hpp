// Multi-threaded depth-first branch-and-bound on the CPU.
//  - work stealing (default): one stack per thread; an idle thread takes the bottom half (the
//    largest subtrees) of a victim's stack.
//  - shared queue: the papers' multi-threaded baseline (CCPE Table VII): all threads pop from and
//    push to one mutex-protected stack.
#pragma once

#include "bound/bound_data.hpp"
#include "search/control.hpp"
#include "search/types.hpp"

namespace pfsp {

solve_result solve_parallel(const bound_data& data, const solve_options& opt, const incumbent& start);

}  // namespace pfsp
