// Known optima through the real CLI (label slow): ta001..ta010 (20 jobs x 5 machines) must be
// proven optimal at the optimum of shared/data/taillard_pfsp.csv, each well within seconds.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "run_process.hpp"
#include "support.hpp"

namespace pfsp {
namespace {

class taillard_cli : public ::testing::TestWithParam<std::string> {};

TEST_P(taillard_cli, proves_the_csv_optimum) {
  const std::string name = GetParam();
  std::vector<test::csv_row> rows;
  ASSERT_NO_FATAL_FAILURE(test::read_taillard_csv(rows));
  const test::csv_row* row = nullptr;
  for (const auto& r : rows)
    if (r.name == name) row = &r;
  ASSERT_NE(row, nullptr) << name << " is not in " << test::shared_csv_path();
  ASSERT_TRUE(row->optimal) << name << " has no proven optimum in the CSV";
  const std::string opt = std::to_string(row->ub);
  const auto r = test::run_pfsp({"solve", name, "--backend", "cpu-mt", "--threads", "2", "-q"}, -1, /*deadline_s=*/300);
  EXPECT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_EQ(r.out, "optimal " + opt + " " + opt + "\n") << r.describe();
}

INSTANTIATE_TEST_SUITE_P(ta001_to_ta010, taillard_cli,
                         ::testing::Values("ta001", "ta002", "ta003", "ta004", "ta005", "ta006", "ta007", "ta008",
                                           "ta009", "ta010"),
                         [](const ::testing::TestParamInfo<std::string>& p) { return p.param; });

}  // namespace
}  // namespace pfsp
