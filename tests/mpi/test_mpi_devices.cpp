// pfsp-mpi --devices (issue 22 item 4): which CUDA devices each worker rank drives, on nodes of
// 1 to 8 devices with 1 to 9 worker ranks. Plain C++: the mapping is checked in every build (the
// GPU runs themselves are scripts/device_mpi_scaling.sh's).
#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "base/error.hpp"
#include "mpi/devices.hpp"

namespace pfsp::test {
namespace {

using dist::device_share;
using dist::rank_devices;
using v = std::vector<int>;

std::vector<v> per_rank(device_share share, int ranks, int devices, const v& list = {}) {
  std::vector<v> out;
  for (int r = 0; r < ranks; ++r) out.push_back(rank_devices(share, list, {r, ranks}, devices));
  return out;
}

TEST(mpi_devices, local_cuts_the_nodes_devices_into_one_block_per_rank) {
  EXPECT_EQ(per_rank(device_share::local, 1, 4, {}), (std::vector<v>{{0, 1, 2, 3}}));
  EXPECT_EQ(per_rank(device_share::local, 2, 4, {}), (std::vector<v>{{0, 1}, {2, 3}}));
  EXPECT_EQ(per_rank(device_share::local, 4, 4, {}), (std::vector<v>{{0}, {1}, {2}, {3}}));
  EXPECT_EQ(per_rank(device_share::local, 3, 4, {}), (std::vector<v>{{0}, {1}, {2, 3}}));
  EXPECT_EQ(per_rank(device_share::local, 6, 4, {}), (std::vector<v>{{0}, {1}, {2}, {3}, {0}, {1}}));
  // Every device of the node is driven, each by exactly one rank, when ranks <= devices.
  for (int devices = 1; devices <= 8; ++devices)
    for (int ranks = 1; ranks <= devices; ++ranks) {
      std::multiset<int> seen;
      for (const v& mine : per_rank(device_share::local, ranks, devices)) {
        EXPECT_FALSE(mine.empty()) << ranks << " ranks on " << devices;
        seen.insert(mine.begin(), mine.end());
      }
      std::multiset<int> every;
      for (int d = 0; d < devices; ++d) every.insert(d);
      EXPECT_EQ(seen, every) << ranks << " ranks on " << devices;
    }
}

TEST(mpi_devices, all_one_and_a_list) {
  EXPECT_EQ(per_rank(device_share::all, 2, 3, {}), (std::vector<v>{{0, 1, 2}, {0, 1, 2}}));
  // Not given: one device each, by place on the node (as Open MPI's local rank did before).
  EXPECT_EQ(per_rank(device_share::one, 5, 4, {}), (std::vector<v>{{0}, {1}, {2}, {3}, {0}}));
  EXPECT_EQ(per_rank(device_share::list, 2, 4, {1, 3}), (std::vector<v>{{1, 3}, {1, 3}}));
}

TEST(mpi_devices, no_device_or_a_missing_ordinal_is_an_input_error) {
  EXPECT_THROW(rank_devices(device_share::one, {}, {0, 1}, 0), input_error);
  EXPECT_THROW(rank_devices(device_share::local, {}, {0, 1}, 0), input_error);
  try {
    rank_devices(device_share::list, {0, 4}, {0, 1}, 4);
    FAIL() << "device 4 of 4 accepted";
  } catch (const input_error& e) {
    EXPECT_NE(std::string(e.what()).find("device 4 does not exist"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace pfsp::test
