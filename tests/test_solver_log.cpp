// The solver log (src/app/solver_log.hpp, docs/solver_log.md): cells, aligned columns with huge
// and unknown values, and where the CLI sends it (stderr, --log FILE, --quiet, --no-progress).
#include <gtest/gtest.h>

#include <climits>
#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "app/cli.hpp"
#include "app/solver_log.hpp"
#include "run_process.hpp"
#include "support.hpp"

namespace pfsp {
namespace {

using test::run_pfsp;

bool contains(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> v;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) v.push_back(l);
  return v;
}

// The column where each right-aligned cell of a row ends (cells hold no space).
std::vector<std::size_t> cell_ends(const std::string& line) {
  std::vector<std::size_t> ends;
  for (std::size_t i = 0; i < line.size(); ++i)
    if (line[i] != ' ' && (i + 1 == line.size() || line[i + 1] == ' ')) ends.push_back(i + 1);
  return ends;
}

// The same for the column header, whose names may hold a space ("global lb").
std::vector<std::size_t> header_ends(const std::string& header) {
  std::vector<std::size_t> ends;
  std::size_t from = 0;
  for (const char* name : {"time", "nodes", "nodes/s", "open", "incumbent", "global lb", "gap", "done", "left"}) {
    const std::size_t at = header.find(name, from);
    if (at == std::string::npos) return {};
    from = at + std::string(name).size();
    ends.push_back(from);
  }
  return ends;
}

TEST(solver_log, cells) {
  EXPECT_EQ(log_count(0, 10), "0");
  EXPECT_EQ(log_count(1234567, 10), "1234567");
  EXPECT_EQ(log_count(12345678901234ULL, 10), "1.2346e+13");
  EXPECT_EQ(log_rate(950), "950");
  EXPECT_EQ(log_rate(12345), "12.3k");
  EXPECT_EQ(log_rate(4.561e6), "4.56M");
  EXPECT_EQ(log_rate(1.2e9), "1.20G");
  EXPECT_EQ(log_rate(3.4e12), "3.40T");
  EXPECT_EQ(log_duration(0.44), "0.4s");
  EXPECT_EQ(log_duration(738), "12.3m");
  EXPECT_EQ(log_duration(5.2 * 3600), "5.2h");
  EXPECT_EQ(log_duration(3.1 * 86400), "3.1d");
  EXPECT_EQ(log_duration(std::numeric_limits<double>::infinity()), "inf");
  EXPECT_EQ(log_duration(-1), "-");
  EXPECT_EQ(log_percent(0), "0%");
  EXPECT_EQ(log_percent(0.123456789), "12.3457%");
  EXPECT_EQ(log_percent(1), "100%");
  EXPECT_EQ(log_percent(1.23e-17), "1.23e-15%");
  // Near 100 %: the open share to three significant digits, so that the cell moves with the run
  // (it read 100.0000 % for minutes on ta090).
  EXPECT_EQ(log_percent(0.999), "99.9000%");
  EXPECT_EQ(log_percent(1 - 2.9e-9), "99.999999710%");
  EXPECT_NE(log_percent(1 - 2.9e-9), log_percent(1 - 2.8e-9));
  EXPECT_EQ(log_percent(1 - 2.9e-12), "100-2.90e-10%");
  EXPECT_NE(log_percent(1 - 2.9e-12), log_percent(1 - 2.8e-12));
  for (double open = 0.5; open > 1e-12; open /= 3.7) {  // below, 1 - open in a double keeps too few digits
    const std::string cell = log_percent(1 - open);
    EXPECT_NE(cell, "100%") << open;
    EXPECT_NE(cell, log_percent(1 - open * 0.99)) << open << ": a 1 % move of the open share shows";
    EXPECT_LE(cell.size(), 14u) << cell;
  }
  EXPECT_EQ(log_gap(1300, 1278), "1.69%");
  EXPECT_EQ(log_gap(1278, 1278), "0.00%");
  EXPECT_EQ(log_gap(1300, -1), "-");
  EXPECT_EQ(log_gap(INT_MAX, 1200), "-");
}

TEST(solver_log, rows_align_with_the_column_header_whatever_the_values) {
  const std::string header = solver_log_columns();
  const std::vector<std::size_t> ends = header_ends(header);
  ASSERT_EQ(ends.size(), 9u) << header;
  progress_info small;
  small.elapsed = 0.5;
  small.nodes = 12;
  small.best = 1278;
  small.open = 3;
  small.explored = 0.25;
  progress_info huge;  // the GPU device loop after days: every cell at its widest
  huge.elapsed = 9.9e6;
  huge.nodes = 18446744073709551615ULL;
  huge.best = 2000000000;
  huge.open = 123456789012345ULL;
  huge.global_lb = 1999999999;
  huge.tree_done = 1 - 2.9e-12;
  progress_info unknown;  // no incumbent, no forecast yet
  unknown.best = INT_MAX;
  unknown.tree_done = 0;
  unknown.forecast_seconds = -1;
  for (const progress_info& p : {small, huge, unknown}) {
    const std::string row = solver_log_row(p, false, &p == &huge ? 1e12 : &p == &small ? NAN : -1);
    EXPECT_EQ(row.size(), header.size()) << header << '\n' << row;
    EXPECT_EQ(cell_ends(row), ends) << header << '\n' << row;
  }
  EXPECT_TRUE(contains(solver_log_row(huge, false, 1e12), "1.2e+07d")) << solver_log_row(huge, false, 1e12);
  EXPECT_TRUE(contains(solver_log_row(huge), "1.8447e+19")) << solver_log_row(huge);
  EXPECT_TRUE(contains(solver_log_row(huge), "100-2.90e-10%")) << solver_log_row(huge);
  // "?": the estimate cannot be trusted (yet); "-": the backend has no such value.
  const std::string u = solver_log_row(unknown);
  EXPECT_EQ(u.substr(u.size() - 2), " ?") << u;
  const std::string s = solver_log_row(small, false, NAN);
  EXPECT_EQ(s.substr(s.size() - 2), " -") << s;
  EXPECT_TRUE(contains(s, "25.0000%")) << s;
  // A new incumbent marks its row with '*' in the first column; the columns stay where they are.
  const std::string marked = solver_log_row(small, true, NAN);
  EXPECT_EQ(marked[0], '*') << marked;
  EXPECT_EQ(s[0], ' ') << s;
  EXPECT_EQ(marked.substr(1), s.substr(1));
}

// left_seconds: the tree-size estimate given before the run less the nodes branched, at the
// node rate of the last half of the run; "?" without an estimate or past it.
TEST(solver_log, left_is_told_from_the_tree_size_estimate) {
  // 1000 nodes/s, then 500 nodes/s from t = 10: the rate is the last half's.
  std::vector<progress_point> h;
  for (int t = 1; t <= 10; ++t) h.push_back({double(t), 1000.0 * t});
  EXPECT_NEAR(left_seconds(h, 100000), 90, 1e-9);
  for (int t = 11; t <= 20; ++t) h.push_back({double(t), 10000 + 500.0 * (t - 10)});
  EXPECT_NEAR(left_seconds(h, 100000), (100000 - 15000) / 500.0, 1e-9);
  EXPECT_EQ(left_seconds(h, 0), -1);                                // no estimate
  EXPECT_EQ(left_seconds(h, 15000), -1);                            // the run is past it: the estimate was wrong
  EXPECT_EQ(left_seconds({h.begin(), h.begin() + 2}, 100000), -1);  // two rows
  EXPECT_EQ(left_seconds({{0.1, 100}, {0.2, 200}, {0.3, 300}}, 100000), -1);  // under a second
  EXPECT_EQ(left_seconds({{1, 100}, {2, 100}, {3, 100}}, 100000), -1);        // no node in the window
  // The log object: "?" on a backend with a tree weight but no estimate (the GPU device loop:
  // the tree weight's own estimate is not trusted for it), "-" without either, a time with one.
  auto rows = [](double tree_nodes, bool tree_weight) {
    std::ostringstream console;
    solver_log log(&console, "");
    solver_log_setup s;
    s.tree_nodes = tree_nodes;
    s.tree_estimate = tree_weight;
    log.header(s);
    progress_info p;
    for (int t = 1; t <= 10; ++t) {
      p.elapsed = t;
      p.nodes = 1000u * static_cast<unsigned>(t);
      p.tree_done = tree_weight ? 0.5 : -1;
      log.row(p);
    }
    std::vector<std::string> v = lines_of(console.str());
    return std::vector<std::string>(v.end() - 10, v.end());
  };
  auto last = [](const std::string& row, std::size_t k) { return row.substr(row.size() - k); };
  const std::vector<std::string> told = rows(100000, false);
  EXPECT_EQ(last(told[0], 2), " ?") << told[0];
  EXPECT_EQ(last(told[9], 6), " 90.0s") << told[9];
  const std::vector<std::string> gpu = rows(0, true);
  EXPECT_EQ(last(gpu[9], 2), " ?") << gpu[9];
  const std::vector<std::string> cpu = rows(0, false);
  EXPECT_EQ(last(cpu[9], 2), " -") << cpu[9];
  const std::vector<std::string> gpu_told = rows(100000, true);
  EXPECT_EQ(last(gpu_told[9], 6), " 90.0s") << gpu_told[9];
}

// The log object marks the rows where the incumbent went down since the row before.
TEST(solver_log, rows_of_new_incumbents_are_marked) {
  std::ostringstream console;
  solver_log log(&console, "");
  progress_info p;
  p.elapsed = 1;
  for (int best : {INT_MAX, 1300, 1300, 1290, 1290}) {
    p.best = best;
    log.row(p);
  }
  std::istringstream lines(console.str());
  std::string marks;
  for (std::string l; std::getline(lines, l);) marks += l.empty() ? '?' : l[0];
  EXPECT_EQ(marks, " * * ") << console.str();
}

TEST(solver_log, header_and_summary_blocks) {
  solver_log_setup setup;
  setup.version = "0.1.0";
  setup.commit = "abc1234";
  setup.instance = "ta001";
  setup.n = 20;
  setup.m = 5;
  setup.backend = "cpu-mt, 2 threads";
  setup.bound = "lb1-lb2";
  setup.lb2_pairs = "all";
  setup.branching = "min-branch";
  setup.selection = "depth-first";
  setup.initial_ub = "1297 (neh, 0.001 s)";
  setup.time_limit = 10;
  const std::vector<std::string> h = solver_log_header(setup);
  ASSERT_GE(h.size(), 6u);
  EXPECT_EQ(h[0], "pfsp 0.1.0 (commit abc1234)");
  std::string all;
  for (const auto& l : h) all += l + '\n';
  for (const char* needle : {"ta001: 20 jobs x 5 machines", "cpu-mt, 2 threads", "lb1-lb2, lb2 pairs all", "min-branch",
                             "1297 (neh", "time 10 s, nodes none"})
    EXPECT_TRUE(contains(all, needle)) << "lacks '" << needle << "'\n" << all;
  solve_result r;
  r.status = solve_status::time_limit;
  r.makespan = 1300;
  r.schedule = {0, 1};
  r.lower_bound = 1200;
  r.stats.branched = 1000;
  r.stats.total_seconds = 2;
  std::string sum;
  for (const auto& l : solver_log_summary(r, 2.5)) sum += l + '\n';
  for (const char* needle :
       {"status          time_limit", "makespan        1300", "lower bound     1200", "gap             7.69%",
        "nodes           1000 branched", "wall 2.500 s", "nodes/s         500"})
    EXPECT_TRUE(contains(sum, needle)) << "lacks '" << needle << "'\n" << sum;
}

// The report's explored line moves while a long run does: a 200-job run's share is 1 - 1.2e-11
// after minutes, which six digits printed as "100 %" (ta101 from --ub 11159 on one H100,
// 2026-12-07); the report now prints it as the log does.
TEST(solver_log, the_reports_explored_share_keeps_its_open_part) {
  const instance inst = test::random_instance(6, 3, 1, 1, 9);
  solve_result r;
  r.status = solve_status::time_limit;
  r.lower_bound = 10;
  std::ostringstream out;
  r.stats.explored = 1 - 1.2e-11;
  print_result(out, inst, solve_options{}, r, run_info{});
  EXPECT_TRUE(contains(out.str(), "explored     100-1.20e-09 %")) << out.str();
  std::ostringstream half;
  r.stats.explored = 0.473732;
  print_result(half, inst, solve_options{}, r, run_info{});
  EXPECT_TRUE(contains(half.str(), "explored     47.3732 %")) << half.str();
}

TEST(solver_log_cli, stderr_and_log_file) {
  test::temp_dir dir;
  const std::string log = dir.file("run.log");
  // Rows every 0.05 s over a short time-limited search.
  const auto r = run_pfsp(
      {"solve", "ta021", "--backend", "cpu", "--time-limit", "0.4", "--progress-interval", "0.05", "--log", log});
  EXPECT_EQ(r.exit_code, 3) << r.describe();
  const std::string file = test::slurp(log);
  EXPECT_EQ(file, r.err) << "--log FILE holds the lines written to stderr";
  const std::vector<std::string> lines = lines_of(file);
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines[0].rfind("pfsp ", 0), 0u) << file;
  std::size_t columns = 0;
  for (std::size_t i = 0; i < lines.size(); ++i)
    if (lines[i] == solver_log_columns()) columns = i;
  ASSERT_GT(columns, 0u) << file;
  ASSERT_GT(lines.size(), columns + 2) << "no rows\n" << file;
  for (std::size_t i = columns + 1; i < lines.size() && !lines[i].empty(); ++i)
    EXPECT_EQ(cell_ends(lines[i]), header_ends(lines[columns])) << file;
  EXPECT_TRUE(contains(file, "\nsummary\nstatus          time_limit\n")) << file;
  // stdout beside the log: --quiet's line first, each field once (docs/cli.md, "Output").
  EXPECT_EQ(r.out.rfind("time_limit ", 0), 0u) << r.describe();

  // --quiet: one line on stdout, nothing on stderr, the file still complete.
  const auto q = run_pfsp({"solve", "ta001", "-q", "--log", log});
  EXPECT_EQ(q.exit_code, 0) << q.describe();
  EXPECT_EQ(q.out, "optimal 1278 1278\n") << q.describe();
  EXPECT_EQ(q.err, "") << q.describe();
  const std::string qfile = test::slurp(log);
  EXPECT_TRUE(contains(qfile, "instance        ta001: 20 jobs x 5 machines")) << qfile;
  EXPECT_TRUE(contains(qfile, "makespan        1278")) << qfile;
  // --no-progress: no log on stderr.
  const auto n = run_pfsp({"solve", "ta001", "--no-progress"});
  EXPECT_EQ(n.exit_code, 0) << n.describe();
  EXPECT_EQ(n.err, "") << n.describe();
  // A log that cannot be opened: exit 2 before solving.
  const auto bad = run_pfsp({"solve", "ta001", "--log", dir.file("no/such/dir/x.log")});
  EXPECT_EQ(bad.exit_code, 2) << bad.describe();
  EXPECT_TRUE(contains(bad.err, "--log")) << bad.describe();
  EXPECT_FALSE(contains(bad.out, "status")) << bad.describe();
}

}  // namespace
}  // namespace pfsp
