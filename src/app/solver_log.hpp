// The solver log: a header block, one aligned row per progress interval, a summary block, in the
// manner of HiGHS's branch-and-bound log. Written to stderr and to `--log FILE`; the format is
// documented in docs/solver_log.md. The formatting functions are pure (unit-tested); `solver_log`
// is the sink that sends their lines where the options say.
#pragma once

#include <fstream>
#include <iosfwd>
#include <mutex>
#include <string>
#include <vector>

#include "search/types.hpp"

namespace pfsp {

// What the header says about the run; every field is already formatted by the caller.
struct solver_log_setup {
  std::string version;     // "0.1.0"
  std::string commit;      // "2136227"
  std::string instance;    // "ta001"
  int n = 0, m = 0;        // jobs, machines
  std::string best_known;  // "1278, optimal" or empty
  std::string backend;     // "cpu-mt, 2 threads", "gpu, device loop"
  std::string bound;       // "lb1"
  std::string lb2_pairs;   // "all", "learn: 1-2 2-3 ..."
  std::string branching;   // "min-branch"
  std::string selection;   // "depth-first"
  std::string initial_ub;  // "1297 (ig, 0.012 s)" or "none"
  double time_limit = 0;   // 0: none
  std::uint64_t node_limit = 0;
  double interval = 1;         // seconds between rows
  bool tree_estimate = false;  // the backend reports the tree weight and a forecast (GPU device loop)
  // The whole tree's nodes estimated before the run (search/estimator.hpp, e.g. by
  // pfsp_bench_estimate from the same --ub and configuration); 0: none, "left" then says "?".
  double tree_nodes = 0;
};

// Fixed-width cells (right-aligned in the column's width). "-" where a value is unknown.
std::string log_count(std::uint64_t v, int width);  // integer, or 1.2346e+13 if wider than `width`
std::string log_rate(double per_second);            // 950, 12.3k, 4.56M, 1.20G, 3.40T
std::string log_duration(double seconds);           // 0.4s 59.9s 12.3m 5.2h 3.1d 1.2e+04d; inf; "-" if < 0
// 12.3457%, 100%, 1.23e-15%, 0%; near 100 % as many decimals as the open share 1 - fraction needs
// for three significant digits (99.99999971%), past nine decimals the open share itself
// (100-2.90e-10%): a run that moves the share moves the cell.
std::string log_percent(double fraction);
std::string log_gap(int incumbent, int lower_bound);  // (incumbent - lb) / incumbent; "-" if either unknown

// The "left" column (docs/solver_log.md, docs/tree_estimate.md): the nodes the whole tree is
// estimated to hold before the run (`tree_nodes`, search/estimator.hpp: stratified probes of the
// same tree from the same ub, checked against completed proofs) less the nodes branched, over the
// node rate of the last half of the run (at least 1 s and 3 rows). -1 (the log prints "?") when it
// cannot tell: no estimate, too short a history, or the run already past the estimate. The online
// tree-weight estimate (nodes / closed share) is not used for it: replayed on completed depth-first
// runs it was 0.3-25x off while it held within 1.5x over half the run, and never held within 1.25x.
struct progress_point {
  double elapsed = 0;
  double nodes = 0;
};
double left_seconds(const std::vector<progress_point>& history, double tree_nodes);

std::vector<std::string> solver_log_header(const solver_log_setup& s);
std::string solver_log_columns();
// `improved`: the incumbent is better than the previous row's; the row then starts with '*' (as
// HiGHS marks the rows of new solutions), otherwise with a blank. `left`: left_seconds' value,
// "?" when negative, "-" when NaN (nothing to tell it from: no estimate, no tree weight).
std::string solver_log_row(const progress_info& p, bool improved = false, double left = -1);
// `wall_seconds` 0: left out.
std::vector<std::string> solver_log_summary(const solve_result& r, double wall_seconds);

// Sends lines to the console (stderr) and to a file. Rows may come from a solver's thread.
class solver_log {
 public:
  // `console` null: nothing on the console (--quiet, --no-progress). `file` empty: no file; else
  // opened (truncated) now, input_error if it cannot be.
  solver_log(std::ostream* console, const std::string& file);
  void header(const solver_log_setup& s);
  void row(const progress_info& p);
  void summary(const solve_result& r, double wall_seconds);
  bool active() const { return console_ != nullptr || file_.is_open(); }

 private:
  void write(const std::string& line);
  std::mutex mutex_;
  std::ostream* console_;
  std::ofstream file_;
  std::string path_;
  int last_best_ = -1;                   // the previous row's incumbent (-1: no row yet)
  std::vector<progress_point> history_;  // every row's time and nodes (left_seconds)
  double tree_nodes_ = 0;                // the header's estimate of the whole tree
  bool tree_weight_ = false;             // the backend reports a tree weight (device loop)
};

}  // namespace pfsp
