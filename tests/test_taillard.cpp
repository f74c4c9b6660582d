// Taillard's generator and the embedded table of ta001..ta120, checked against Taillard's paper
// (ta001's first row) and against shared/data/taillard_pfsp.csv.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "heuristic/neh.hpp"
#include "problem/taillard.hpp"
#include "support.hpp"

namespace pfsp {
namespace {

std::string ta_name(int i) {
  std::string digits = std::to_string(i);
  return "ta" + std::string(3 - std::min<std::size_t>(3, digits.size()), '0') + digits;
}

TEST(taillard_generator, ta001_first_machine_row_matches_the_paper) {
  const int expected[20] = {54, 83, 15, 71, 77, 36, 53, 38, 27, 87, 76, 91, 14, 29, 12, 77, 32, 87, 68, 94};
  const instance g = generate_taillard(20, 5, 873654221U);
  ASSERT_EQ(g.n, 20);
  ASSERT_EQ(g.m, 5);
  ASSERT_EQ(g.p.size(), 100u);
  for (int j = 0; j < 20; ++j) EXPECT_EQ(g.time(0, j), expected[j]) << "job " << j + 1;
  const instance t = taillard_instance("ta001");
  EXPECT_EQ(t.p, g.p);
  EXPECT_EQ(t.name, "ta001");
  ASSERT_TRUE(t.known.has_value());
  EXPECT_EQ(t.known->ub, 1278);
  EXPECT_EQ(t.known->lb, 1278);
  EXPECT_TRUE(t.known->optimal);
}

TEST(taillard_generator, times_are_in_1_to_99_and_deterministic) {
  for (std::uint32_t seed : {1U, 2U, 12345U, 873654221U, 2147483646U}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const instance a = generate_taillard(37, 7, seed);
    const instance b = generate_taillard(37, 7, seed);
    EXPECT_EQ(a.p, b.p);
    for (int v : a.p) {
      EXPECT_GE(v, 1);
      EXPECT_LE(v, 99);
    }
  }
}

TEST(taillard_generator, rejects_bad_sizes_and_seeds) {
  EXPECT_THROW(generate_taillard(0, 5, 1), input_error);
  EXPECT_THROW(generate_taillard(5, 0, 1), input_error);
  EXPECT_THROW(generate_taillard(-1, 5, 1), input_error);
  EXPECT_THROW(generate_taillard(5, 5, 0), input_error);
  EXPECT_THROW(generate_taillard(5, 5, 2147483647U), input_error);
}

TEST(taillard_table, has_120_entries_named_in_order_with_consistent_bounds) {
  const auto table = taillard_table();
  ASSERT_EQ(table.size(), 120u);
  for (std::size_t i = 0; i < table.size(); ++i) {
    const auto& e = table[i];
    const std::string name = ta_name(static_cast<int>(i) + 1);
    SCOPED_TRACE(name);
    EXPECT_EQ(std::string(e.name), name);
    EXPECT_LE(e.lb, e.ub);
    EXPECT_EQ(e.optimal, e.lb == e.ub);
    EXPECT_GT(e.n, 0);
    EXPECT_GT(e.m, 0);
  }
}

TEST(taillard_table, agrees_with_the_shared_csv) {
  std::vector<test::csv_row> rows;
  ASSERT_NO_FATAL_FAILURE(test::read_taillard_csv(rows));
  const auto table = taillard_table();
  ASSERT_EQ(rows.size(), table.size()) << test::shared_csv_path() << " has " << rows.size() << " instances";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& r = rows[i];
    const auto& e = table[i];
    SCOPED_TRACE(test::shared_csv_path() + ":" + std::to_string(r.line) + " (" + r.name + ")");
    EXPECT_EQ(r.name, e.name);
    EXPECT_EQ(r.n, e.n);
    EXPECT_EQ(r.m, e.m);
    EXPECT_EQ(r.time_seed, static_cast<long long>(e.time_seed));
    EXPECT_EQ(r.lb, e.lb);
    EXPECT_EQ(r.ub, e.ub);
    EXPECT_EQ(r.optimal, e.optimal);
  }
}

TEST(taillard_table, find_taillard_accepts_every_name) {
  for (int i = 1; i <= 120; ++i) {
    const std::string name = ta_name(i);
    SCOPED_TRACE(name);
    const auto e = find_taillard(name);
    ASSERT_TRUE(e.has_value());
    EXPECT_EQ(std::string(e->name), name);
    // Documented short and upper-case forms.
    const std::string upper = "TA" + name.substr(2);
    const auto u = find_taillard(upper);
    ASSERT_TRUE(u.has_value()) << upper;
    EXPECT_EQ(std::string(u->name), name);
    const auto s = find_taillard("ta" + std::to_string(i));
    ASSERT_TRUE(s.has_value()) << "ta" << i;
    EXPECT_EQ(std::string(s->name), name);
  }
}

TEST(taillard_table, find_taillard_rejects_other_names) {
  for (const char* bad :
       {"ta000",  "ta121", "ta999",         "ta1000",       "tb001",        "ta",       "t",      "",
        "a001",   "ta-01", "ta+01",         "ta 01",        "ta001 ",       " ta001",   "ta001x", "ta01a",
        "xta001", "ta0.1", "ta00000000001", "ta4294967297", "random:5,3,1", "ta001.txt"}) {
    SCOPED_TRACE(std::string("'") + bad + "'");
    EXPECT_FALSE(find_taillard(bad).has_value());
  }
  EXPECT_THROW(taillard_instance("ta121"), input_error);
  EXPECT_THROW(taillard_instance("tb001"), input_error);
}

// The CSV's best makespans are real schedules' values, so no heuristic can beat them.
TEST(taillard_table, neh_never_beats_the_best_known_makespan) {
  std::vector<test::csv_row> rows;
  ASSERT_NO_FATAL_FAILURE(test::read_taillard_csv(rows));
  int checked = 0;
  for (const auto& r : rows) {
    if (r.n > 50) continue;
    SCOPED_TRACE(r.name);
    const instance inst = taillard_instance(r.name);
    const neh_result h = neh(inst);
    EXPECT_GE(h.makespan, r.ub);
    EXPECT_GE(r.ub, r.lb);
    ++checked;
  }
  EXPECT_EQ(checked, 60);
}

}  // namespace
}  // namespace pfsp
