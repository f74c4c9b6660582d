// The lower-bound ascent behind `pfsp solve --ascent SECONDS` (issue 44; the product form of
// bench/ascend.sh): a first search of SECONDS, then, if it stopped at the time limit with its bound
// below its schedule, complete searches below L = that bound + d, each with its prunes at L. Each
// step is exact by itself: it ends with no schedule below L (the optimum is at least L: the next
// step goes higher), or with the best schedule below L (the optimum: the search below L was
// complete), or at the time limit or an interrupt (the result: the best schedule of any step and
// the highest L proven). d is 1 at first, then at most twice the last d: doubling over trees too
// small to measure, a unit step at the first tree that can, then only as large as the measured
// growth a unit lets the next step fit the time left (ascent::next_jump). A step of d > 1 that
// outlasts four times its prediction (at least a second) is cut short: it went past the optimum
// into the incumbent's tree, and the ascent goes on in unit steps. Where the trees below the
// optimum are small and the trees below the incumbent huge (ta101; the open instances' lower
// bounds: docs/benchmarks.md), the ascent raises the bound where a plain search stalls. The
// incumbent engine and its feed run across all steps.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "search/control.hpp"
#include "search/types.hpp"

namespace pfsp {

// One search with these options from this incumbent (the caller's backend, engine and feed).
using ascent_search = std::function<solve_result(solve_options&, const incumbent&)>;

// The ascent: `base`'s options (its time limit counts from base.time_origin, as every step's
// does), a first search of `first_seconds`, then the steps. The result adds up the steps'
// statistics and notes what each step did. on_proven (optional) is told each bound proven (app:
// the incumbent engine, whose bisecting beam then aims at or above it).
solve_result run_ascent(const ascent_search& search, const solve_options& base, const incumbent& start,
                        double first_seconds, const std::function<void(int)>& on_proven = {});

}  // namespace pfsp
