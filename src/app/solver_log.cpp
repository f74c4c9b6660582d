#include "app/solver_log.hpp"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <ostream>

#include "base/error.hpp"

namespace pfsp {
namespace {

// Column widths of a row; the column header uses the same (docs/solver_log.md).
constexpr int w_time = 9, w_nodes = 14, w_rate = 9, w_open = 12, w_inc = 11, w_lb = 11, w_gap = 8, w_done = 15,
              w_left = 9;

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

std::string right(const std::string& s, int width) {
  return static_cast<int>(s.size()) >= width ? s : std::string(width - s.size(), ' ') + s;
}

std::string left(const std::string& s, int width) {
  return static_cast<int>(s.size()) >= width ? s : s + std::string(width - s.size(), ' ');
}

// A key-value line of the header and summary blocks.
std::string kv(const std::string& key, const std::string& value) { return left(key, 16) + value; }

bool has_incumbent(int best) { return best > 0 && best < INT_MAX; }

}  // namespace

std::string log_count(std::uint64_t v, int width) {
  std::string s = std::to_string(v);
  if (static_cast<int>(s.size()) > width) s = fmt("%.4e", static_cast<double>(v));
  return s;
}

std::string log_rate(double v) {
  if (!(v >= 0) || !std::isfinite(v)) return "-";
  if (v < 1e3) return fmt("%.0f", v);
  if (v < 1e6) return fmt(v < 1e5 ? "%.1fk" : "%.0fk", v / 1e3);
  if (v < 1e9) return fmt(v < 1e8 ? "%.2fM" : "%.0fM", v / 1e6);
  if (v < 1e12) return fmt("%.2fG", v / 1e9);
  return fmt("%.2fT", v / 1e12);
}

std::string log_duration(double s) {
  if (std::isnan(s) || s < 0) return "-";
  if (!std::isfinite(s)) return "inf";
  if (s < 100) return fmt("%.1fs", s);
  if (s < 6000) return fmt("%.1fm", s / 60);
  if (s < 48 * 3600.0) return fmt("%.1fh", s / 3600);
  if (s < 1000 * 86400.0) return fmt("%.1fd", s / 86400);
  return fmt("%.1ed", s / 86400);
}

std::string log_percent(double f) {
  if (std::isnan(f) || f < 0) return "-";
  const double p = 100 * f;
  if (p == 0) return "0%";
  if (f >= 1) return "100%";
  if (p < 1e-3) return fmt("%.2e%%", p);
  // The open share c in percent, shown to three significant digits: its first digit is at
  // decimal ceil(-log10 c), so that many decimals plus two, at least four; then c >= 10^-(d-2)
  // keeps the printed value below 100.
  const double c = 100 - p;
  const int d = std::max(4, static_cast<int>(std::ceil(-std::log10(c))) + 2);
  if (d > 9) return fmt("100-%.2e%%", c);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f%%", d, p);
  return buf;
}

double left_seconds(const std::vector<progress_point>& history, double tree_nodes) {
  if (!(tree_nodes > 0) || history.empty()) return -1;
  const progress_point& now = history.back();
  if (now.nodes >= tree_nodes) return -1;  // past the estimate: it was wrong, nothing to tell from
  std::size_t from = history.size() - 1;
  while (from > 0 && history[from - 1].elapsed >= 0.5 * now.elapsed) --from;
  const progress_point& first = history[from];
  const double span = now.elapsed - first.elapsed;
  if (history.size() - from < 3 || span < 1.0) return -1;
  const double rate = (now.nodes - first.nodes) / span;
  if (!(rate > 0)) return -1;
  return (tree_nodes - now.nodes) / rate;
}

std::string log_gap(int incumbent, int lower_bound) {
  if (!has_incumbent(incumbent) || lower_bound < 0) return "-";
  return fmt("%.2f%%", 100.0 * (incumbent - std::min(lower_bound, incumbent)) / incumbent);
}

std::vector<std::string> solver_log_header(const solver_log_setup& s) {
  std::vector<std::string> h;
  h.push_back("pfsp " + s.version + " (commit " + s.commit + ")");
  h.push_back(kv("instance", s.instance + ": " + std::to_string(s.n) + " jobs x " + std::to_string(s.m) + " machines" +
                                 (s.best_known.empty() ? "" : " (best known " + s.best_known + ")")));
  h.push_back(kv("backend", s.backend));
  h.push_back(kv("bound", s.bound + (s.bound == "lb1" ? "" : ", lb2 pairs " + s.lb2_pairs)));
  h.push_back(kv("branching", s.branching + ", selection " + s.selection));
  h.push_back(kv("initial ub", s.initial_ub));
  h.push_back(kv("limits", "time " + (s.time_limit > 0 ? fmt("%g s", s.time_limit) : std::string("none")) + ", nodes " +
                               (s.node_limit ? std::to_string(s.node_limit) : std::string("none")) + ", a row every " +
                               fmt("%g s", s.interval)));
  const std::string done = s.tree_estimate ? "closed share of the tree weight" : "explored share of the n! schedules";
  h.push_back(kv("done, left",
                 done + (s.tree_nodes > 0 ? "; time left to the tree-size estimate of " + fmt("%.3g", s.tree_nodes) +
                                                " nodes at the recent node rate, ? past it"
                         : s.tree_estimate ? "; left ? (no tree-size estimate)"
                                           : "; no time forecast")));
  return h;
}

std::string solver_log_columns() {
  return std::string(1, ' ') + right("time", w_time) + right("nodes", w_nodes) + right("nodes/s", w_rate) +
         right("open", w_open) + right("incumbent", w_inc) + right("global lb", w_lb) + right("gap", w_gap) +
         right("done", w_done) + right("left", w_left);
}

std::string solver_log_row(const progress_info& p, bool improved, double left) {
  const double rate = p.elapsed > 0 ? static_cast<double>(p.nodes) / p.elapsed : 0.0;
  const bool tree = p.tree_done >= 0;
  const std::string left_cell = std::isnan(left) ? "-" : left < 0 ? "?" : log_duration(left);
  return std::string(1, improved ? '*' : ' ') + right(log_duration(p.elapsed), w_time) +
         right(log_count(p.nodes, w_nodes - 2), w_nodes) + right(log_rate(rate), w_rate) +
         right(log_count(p.open, w_open - 2), w_open) +
         right(has_incumbent(p.best) ? std::to_string(p.best) : "-", w_inc) +
         right(p.global_lb >= 0 ? std::to_string(p.global_lb) : "-", w_lb) +
         right(log_gap(p.best, p.global_lb), w_gap) + right(log_percent(tree ? p.tree_done : p.explored), w_done) +
         right(left_cell, w_left);
}

std::vector<std::string> solver_log_summary(const solve_result& r, double wall_seconds) {
  std::vector<std::string> s;
  const bool found = !r.schedule.empty();
  const double t = r.stats.total_seconds;
  s.push_back("summary");
  s.push_back(kv("status", std::string(to_string(r.status))));
  s.push_back(kv("makespan", found ? std::to_string(r.makespan) : "none found below the initial upper bound"));
  s.push_back(kv("lower bound", std::to_string(r.lower_bound)));
  s.push_back(kv("gap", found ? log_gap(r.makespan, r.lower_bound) : "-"));
  s.push_back(
      kv("nodes", std::to_string(r.stats.branched) + " branched, " + std::to_string(r.stats.bounds) + " bounds, " +
                      std::to_string(r.stats.pruned) + " pruned" +
                      (r.stats.dominated ? " (" + std::to_string(r.stats.dominated) + " by swap dominance)" : "") +
                      (r.stats.memo_pruned ? ", " + std::to_string(r.stats.memo_pruned) + " by the memo" : "")));
  s.push_back(kv("explored", log_percent(r.stats.explored)));
  s.push_back(kv("time", fmt("%.3f s", t) + (wall_seconds > 0 ? fmt(" (wall %.3f s)", wall_seconds) : "")));
  s.push_back(kv("nodes/s", log_rate(t > 0 ? static_cast<double>(r.stats.branched) / t : 0.0)));
  if (!r.backend.empty()) s.push_back(kv("ran on", r.backend));
  return s;
}

solver_log::solver_log(std::ostream* console, const std::string& file) : console_(console), path_(file) {
  if (!file.empty()) {
    file_.open(file, std::ios::out | std::ios::trunc);
    if (!file_) throw input_error("--log " + file + ": cannot open the file for writing: " + std::strerror(errno));
  }
}

void solver_log::write(const std::string& line) {
  std::lock_guard lock(mutex_);
  if (console_) *console_ << line << '\n' << std::flush;
  // Flushed per line, so that `tail -f FILE` follows the run.
  if (file_.is_open()) file_ << line << '\n' << std::flush;
}

void solver_log::header(const solver_log_setup& s) {
  tree_nodes_ = s.tree_nodes;
  tree_weight_ = s.tree_estimate;
  for (const std::string& l : solver_log_header(s)) write(l);
  write("");
  write(solver_log_columns());
}

void solver_log::row(const progress_info& p) {
  const bool improved = last_best_ >= 0 && has_incumbent(p.best) && p.best < last_best_;
  last_best_ = p.best;
  history_.push_back({p.elapsed, static_cast<double>(p.nodes)});
  double left = std::numeric_limits<double>::quiet_NaN();
  if (tree_nodes_ > 0 || tree_weight_ || p.tree_done >= 0) left = left_seconds(history_, tree_nodes_);
  write(solver_log_row(p, improved, left));
}

void solver_log::summary(const solve_result& r, double wall_seconds) {
  write("");
  for (const std::string& l : solver_log_summary(r, wall_seconds)) write(l);
}

}  // namespace pfsp
