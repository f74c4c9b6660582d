// Gantt charts (src/report/gantt.hpp, `pfsp solve --gantt`, `pfsp gantt`): the critical path is a
// valid path whose length is the makespan, labels never overlap and stay inside their bars, the
// SVG is well-formed XML with escaped text, and the CLI round trip draws the same chart.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "heuristic/neh.hpp"
#include "problem/io.hpp"
#include "problem/taillard.hpp"
#include "report/gantt.hpp"
#include "run_process.hpp"
#include "support.hpp"

namespace pfsp {
namespace {

using test::run_pfsp;

std::vector<int> random_permutation(int n, std::uint32_t seed) {
  std::vector<int> s(n);
  std::iota(s.begin(), s.end(), 0);
  std::mt19937 rng(seed);
  std::shuffle(s.begin(), s.end(), rng);
  return s;
}

void expect_critical_path_valid(const instance& inst, const std::vector<int>& schedule, const std::string& what) {
  const std::vector<operation> path = critical_path(inst, schedule);
  ASSERT_EQ(static_cast<int>(path.size()), inst.n + inst.m - 1) << what;
  EXPECT_EQ(path.front().machine, 0) << what;
  EXPECT_EQ(path.front().position, 0) << what;
  EXPECT_EQ(path.front().start, 0) << what;
  EXPECT_EQ(path.back().machine, inst.m - 1) << what;
  EXPECT_EQ(path.back().position, inst.n - 1) << what;
  long long length = 0;
  for (std::size_t i = 0; i < path.size(); ++i) {
    const operation& o = path[i];
    EXPECT_EQ(o.job, schedule[o.position]) << what;
    EXPECT_EQ(o.end - o.start, inst.time(o.machine, o.job)) << what << " at step " << i;
    length += o.end - o.start;
    if (i == 0) continue;
    const operation& p = path[i - 1];
    // One step right on the same machine, or one machine down with the same job; no wait.
    const bool right = o.machine == p.machine && o.position == p.position + 1;
    const bool down = o.machine == p.machine + 1 && o.position == p.position;
    EXPECT_TRUE(right || down) << what << " at step " << i;
    EXPECT_EQ(o.start, p.end) << what << " at step " << i;
  }
  EXPECT_EQ(length, evaluate_schedule(inst, schedule)) << what;
}

TEST(gantt, critical_path_is_a_tight_path_of_the_makespan) {
  for (std::uint32_t seed = 1; seed <= 60; ++seed) {
    const int n = 1 + static_cast<int>(seed % 13), m = 1 + static_cast<int>(seed % 7);
    // Small time ranges make ties (two tight predecessors) common.
    const instance inst = test::random_instance(n, m, seed, 1, seed % 2 ? 3 : 99);
    expect_critical_path_valid(inst, random_permutation(n, seed), inst.name + " seed " + std::to_string(seed));
  }
  const instance ta001 = taillard_instance("ta001");
  expect_critical_path_valid(ta001, neh(ta001).schedule, "ta001 NEH");
}

TEST(gantt, operations_follow_the_completion_time_recurrence) {
  const instance inst = test::random_instance(9, 4, 7, 1, 20);
  const std::vector<int> s = random_permutation(9, 7);
  const std::vector<operation> ops = schedule_operations(inst, s);
  ASSERT_EQ(ops.size(), 36u);
  EXPECT_EQ(ops.back().end, evaluate_schedule(inst, s));
  for (const operation& o : ops) {
    int ready = 0;
    if (o.machine > 0) ready = std::max(ready, ops[(o.machine - 1) * 9 + o.position].end);
    if (o.position > 0) ready = std::max(ready, ops[o.machine * 9 + o.position - 1].end);
    EXPECT_EQ(o.start, ready);
  }
}

TEST(gantt, a_schedule_that_is_not_a_permutation_is_refused) {
  const instance inst = test::random_instance(4, 2, 1, 1, 9);
  EXPECT_THROW(schedule_operations(inst, std::vector<int>{0, 1, 2}), input_error);
  EXPECT_THROW(schedule_operations(inst, std::vector<int>{0, 1, 2, 2}), input_error);
  EXPECT_THROW(schedule_operations(inst, std::vector<int>{0, 1, 2, 4}), input_error);
}

// Labels lie inside their bars, and no two overlap (bars of one machine are disjoint in time, and
// rows are disjoint; checked directly on the label boxes anyway, per row sorted by x).
void expect_labels_readable(const gantt_layout& L, const std::string& what, int min_labels) {
  int labels = 0;
  std::vector<std::vector<const gantt_bar*>> rows;
  for (const gantt_bar& b : L.bars) {
    if (b.op.machine >= static_cast<int>(rows.size())) rows.resize(b.op.machine + 1);
    if (b.label == gantt_bar::label_kind::none) continue;
    ++labels;
    EXPECT_GE(b.lx, b.x - 1e-9) << what << " job " << b.op.job + 1;
    EXPECT_LE(b.lx + b.lw, b.x + b.w + 1e-9) << what << " job " << b.op.job + 1;
    EXPECT_GE(b.ly, b.y - 1e-9) << what;
    EXPECT_LE(b.ly + b.lh, b.y + b.h + 1e-9) << what;
    // The box is the estimated size of the text it holds.
    const double text_w = estimated_text_width(std::to_string(b.op.job + 1),
                                               b.label == gantt_bar::label_kind::horizontal ? L.font_size : b.lw);
    EXPECT_NEAR(b.label == gantt_bar::label_kind::horizontal ? b.lw : b.lh, text_w, 1e-9) << what;
    rows[b.op.machine].push_back(&b);
  }
  for (auto& row : rows) {
    std::sort(row.begin(), row.end(), [](const gantt_bar* a, const gantt_bar* b) { return a->lx < b->lx; });
    for (std::size_t i = 1; i < row.size(); ++i)
      EXPECT_LE(row[i - 1]->lx + row[i - 1]->lw, row[i]->lx + 1e-9)
          << what << ": labels of jobs " << row[i - 1]->op.job + 1 << " and " << row[i]->op.job + 1 << " overlap";
  }
  for (std::size_t i = 1; i < rows.size(); ++i)
    if (!rows[i - 1].empty() && !rows[i].empty()) {
      EXPECT_LE(rows[i - 1].front()->y + rows[i - 1].front()->h, rows[i].front()->y) << what;
    }
  EXPECT_GE(labels, min_labels) << what;
  // Bars of one machine never overlap in time.
  for (const gantt_bar& b : L.bars)
    if (b.op.position > 0) {
      const gantt_bar& prev = L.bars[&b - &L.bars[0] - 1];
      EXPECT_LE(prev.x + prev.w, b.x + 1e-9) << what;
    }
}

TEST(gantt, labels_fit_their_bars_and_never_overlap) {
  const instance ta001 = taillard_instance("ta001");
  const gantt_layout small = compute_gantt_layout(ta001, neh(ta001).schedule, {});
  // At 20 jobs nearly every bar holds its number.
  expect_labels_readable(small, "ta001", 80);
  const instance big = load_instance("random:500,20,1");
  const gantt_layout large = compute_gantt_layout(big, random_permutation(500, 1), {});
  EXPECT_LE(large.width, 3600);
  expect_labels_readable(large, "random:500,20,1", 0);
  // A narrow fixed width: fewer labels, still none overlapping.
  gantt_options narrow;
  narrow.width = 400;
  expect_labels_readable(compute_gantt_layout(ta001, neh(ta001).schedule, narrow), "ta001 at 400 px", 0);
}

TEST(gantt, layout_marks_the_critical_path_and_the_makespan) {
  const instance ta001 = taillard_instance("ta001");
  const std::vector<int> s = neh(ta001).schedule;
  const gantt_layout L = compute_gantt_layout(ta001, s, {});
  EXPECT_EQ(L.makespan, evaluate_schedule(ta001, s));
  ASSERT_EQ(L.path.size(), static_cast<std::size_t>(ta001.n + ta001.m - 1));
  for (int idx : L.path) EXPECT_TRUE(L.bars[idx].critical);
  EXPECT_EQ(std::count_if(L.bars.begin(), L.bars.end(), [](const gantt_bar& b) { return b.critical; }),
            static_cast<long>(L.path.size()));
  EXPECT_NEAR(L.bars.back().x + L.bars.back().w, L.plot_x + L.plot_w, 1e-6);
  ASSERT_FALSE(L.ticks.empty());
  EXPECT_EQ(L.ticks.front().time, 0);
  EXPECT_LE(L.ticks.back().time, L.makespan);
  // Same job, same colour; neighbouring jobs differ.
  EXPECT_EQ(job_colour(3), job_colour(3));
  for (int j = 0; j + 1 < 500; ++j) EXPECT_NE(job_colour(j), job_colour(j + 1));
}

// A minimal XML well-formedness check: tags balance, attributes are quoted, '&' starts an entity,
// '<' never appears in text. (The ctest Scripts.GanttSvgXml parses the CLI's SVG with Python's
// xml.etree too.)
std::string xml_problem(const std::string& x) {
  std::vector<std::string> open;
  std::size_t i = 0;
  if (x.rfind("<?xml", 0) == 0) i = x.find("?>") + 2;
  while (i < x.size()) {
    if (x[i] == '&') {
      const std::size_t semi = x.find(';', i);
      const std::string ent = x.substr(i, semi == std::string::npos ? 8 : semi - i + 1);
      if (ent != "&amp;" && ent != "&lt;" && ent != "&gt;" && ent != "&quot;" && ent != "&apos;")
        return "bad entity " + ent + " at " + std::to_string(i);
      ++i;
      continue;
    }
    if (x[i] != '<') {
      if (x[i] == '>') return "'>' in text at " + std::to_string(i);
      ++i;
      continue;
    }
    const std::size_t end = x.find('>', i);
    if (end == std::string::npos) return "unterminated tag at " + std::to_string(i);
    std::string tag = x.substr(i + 1, end - i - 1);
    if (tag.find('<') != std::string::npos) return "'<' inside a tag at " + std::to_string(i);
    if (std::count(tag.begin(), tag.end(), '"') % 2) return "unbalanced quotes in <" + tag + ">";
    if (!tag.empty() && tag[0] == '/') {
      const std::string name = tag.substr(1);
      if (open.empty() || open.back() != name)
        return "</" + name + "> closes <" + (open.empty() ? "" : open.back()) + ">";
      open.pop_back();
    } else if (tag.empty() || tag.back() != '/') {
      open.push_back(tag.substr(0, tag.find_first_of(" \n\t")));
    }
    i = end + 1;
  }
  if (!open.empty()) return "<" + open.back() + "> never closed";
  return "";
}

TEST(gantt, svg_is_well_formed_with_escaped_text) {
  instance inst = test::random_instance(12, 3, 5, 1, 30);
  inst.name = "a<b & \"c\" 'd'>";
  const std::string svg = gantt_svg(inst, random_permutation(12, 5));
  EXPECT_EQ(xml_problem(svg), "");
  EXPECT_NE(svg.find("xmlns=\"http://www.w3.org/2000/svg\""), std::string::npos);
  EXPECT_NE(svg.find("a&lt;b &amp; &quot;c&quot; &apos;d&apos;&gt;"), std::string::npos);
  EXPECT_EQ(svg.find("a<b"), std::string::npos);
  // One tooltip per bar.
  std::size_t titles = 0;
  for (std::size_t p = svg.find("<title>job "); p != std::string::npos; p = svg.find("<title>job ", p + 1)) ++titles;
  EXPECT_EQ(titles, 36u);
  EXPECT_EQ(xml_problem(gantt_svg(load_instance("random:500,20,1"), random_permutation(500, 2))), "");
  EXPECT_NE(xml_problem("<svg><g></svg>"), "");  // the checker itself
}

TEST(gantt_cli, solve_then_gantt_draws_the_same_chart) {
  test::temp_dir dir;
  const std::string json = dir.file("r.json"), a = dir.file("a.svg"), b = dir.file("b.svg");
  const auto r = run_pfsp({"solve", "ta001", "-q", "--json", json, "--gantt", a});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  const std::string svg = test::slurp(a);
  EXPECT_EQ(xml_problem(svg), "");
  EXPECT_NE(svg.find("makespan 1278"), std::string::npos);
  EXPECT_FALSE(std::ifstream(a + ".tmp").good());
  const auto g = run_pfsp({"gantt", json, "-o", b});
  ASSERT_EQ(g.exit_code, 0) << g.describe();
  EXPECT_EQ(test::slurp(b), svg);
  // A random instance: the JSON keeps the spec it was given, so it reloads.
  const std::string json2 = dir.file("r2.json"), c = dir.file("c.svg");
  const auto solved = run_pfsp({"solve", "random:30,4,3", "-q", "--node-limit", "1", "--json", json2});
  ASSERT_TRUE(solved.exit_code == 0 || solved.exit_code == 4) << solved.describe();
  const auto g2 = run_pfsp({"gantt", json2, "-o", c});
  EXPECT_EQ(g2.exit_code, 0) << g2.describe();
  EXPECT_EQ(xml_problem(test::slurp(c)), "");
}

TEST(gantt_cli, bad_results_are_input_errors_naming_the_file) {
  test::temp_dir dir;
  const std::string bad = dir.file("bad.json"), out = dir.file("x.svg");
  auto expect_refused = [&](const std::string& text, const std::string& needle, std::vector<std::string> extra = {}) {
    std::ofstream(bad) << text;
    std::vector<std::string> args{"gantt", bad, "-o", out};
    args.insert(args.end(), extra.begin(), extra.end());
    const auto r = run_pfsp(args);
    EXPECT_EQ(r.exit_code, 2) << r.describe();
    EXPECT_NE(r.err.find(bad), std::string::npos) << r.describe();
    EXPECT_NE(r.err.find(needle), std::string::npos) << "stderr lacks '" << needle << "'\n" << r.describe();
    EXPECT_FALSE(std::ifstream(out).good()) << text;
  };
  expect_refused("{not json", "not valid JSON");
  expect_refused("{\"status\": \"optimal\"}", "no \"schedule\"");
  expect_refused("{\"schedule\": [1, 2, 3], \"instance\": {\"name\": \"ta001\"}}", "has 20");
  std::string repeated = "{\"schedule\": [1";
  for (int j = 1; j < 20; ++j) repeated += ", " + std::to_string(j);
  expect_refused(repeated + "], \"instance\": {\"name\": \"ta001\"}}", "appears twice");
  std::string ok = "{\"schedule\": [";
  for (int j = 1; j <= 20; ++j) ok += (j > 1 ? ", " : "") + std::to_string(j);
  expect_refused(ok + "], \"makespan\": 5, \"instance\": {\"name\": \"ta001\"}}", "the file says 5");
  expect_refused(ok + "], \"instance\": {\"name\": \"nowhere\"}}", "give --instance");
  // --instance overrides the result's own.
  std::ofstream(bad) << ok + "], \"instance\": {\"name\": \"nowhere\"}}";
  const auto r = run_pfsp({"gantt", bad, "-o", out, "--instance", "ta001"});
  EXPECT_EQ(r.exit_code, 0) << r.describe();
  const auto missing = run_pfsp({"gantt", dir.file("none.json"), "-o", out});
  EXPECT_EQ(missing.exit_code, 2) << missing.describe();
  const auto no_dir = run_pfsp({"solve", "ta001", "-q", "--gantt", dir.file("no/such/x.svg")});
  EXPECT_EQ(no_dir.exit_code, 2) << no_dir.describe();
  EXPECT_NE(no_dir.err.find("does not exist"), std::string::npos) << no_dir.describe();
}

}  // namespace
}  // namespace pfsp
