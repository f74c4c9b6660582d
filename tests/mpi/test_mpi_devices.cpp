// pfsp-mpi --devices (issue 22 item 4): which CUDA devices each worker rank drives, on nodes of
// 1 to 8 devices with 1 to 9 worker ranks. Plain C++: the mapping is checked in every build (the
// GPU runs themselves are bench/harness/device_mpi_scaling.sh's).
#include <gtest/gtest.h>

#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "mpi/devices.hpp"
#include "mpi/worker_devices.hpp"

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

// A worker's narrowed CUDA_VISIBLE_DEVICES (main.cpp sets it before its first CUDA call): read
// back through the list share, its positions name the very GPUs the rank drove without it, for
// every share, rank and node size; and nothing is narrowed where it must not be.
v split_ordinals(const std::string& text) {
  v out;
  std::stringstream in(text);
  std::string part;
  while (std::getline(in, part, ',')) out.push_back(std::stoi(part));
  return out;
}

TEST(mpi_devices, narrowed_positions_drive_the_same_gpus) {
  struct given_case {
    gpu::device_selection given;
    bool local;
  };
  std::vector<given_case> cases = {{{}, false}, {{}, true}};
  gpu::device_selection one_list, two_list;
  one_list.ordinals = {1};
  two_list.ordinals = {3, 1, 3};
  cases.push_back({one_list, false});
  cases.push_back({two_list, false});
  int narrowed = 0;
  for (const given_case& c : cases)
    for (int gpus = 1; gpus <= 8; ++gpus)
      for (int ranks = 1; ranks <= 9; ++ranks)
        for (int r = 0; r < ranks; ++r) {
          const dist::rank_place place{r, ranks};
          const device_share share = c.local           ? device_share::local
                                     : c.given.given() ? device_share::list
                                                       : device_share::one;
          v before;
          try {
            before = rank_devices(share, c.given.ordinals, place, gpus);
          } catch (const input_error&) {
            EXPECT_FALSE(dist::plan_worker_devices(c.given, c.local, place, gpus, false)) << gpus;
            continue;
          }
          const auto w = dist::plan_worker_devices(c.given, c.local, place, gpus, false);
          if (!w) {  // only when the rank drives every GPU in order
            v every(static_cast<std::size_t>(gpus));
            for (int d = 0; d < gpus; ++d) every[static_cast<std::size_t>(d)] = d;
            EXPECT_EQ(before, every) << gpus << " GPUs, rank " << r << " of " << ranks;
            continue;
          }
          ++narrowed;
          const v visible = split_ordinals(w->visible);
          const v after =
              rank_devices(device_share::list, w->selection.ordinals, place, static_cast<int>(visible.size()));
          v physical;
          for (int p : after) physical.push_back(visible[static_cast<std::size_t>(p)]);
          EXPECT_EQ(physical, before) << gpus << " GPUs, rank " << r << " of " << ranks << ", visible " << w->visible;
        }
  EXPECT_GT(narrowed, 100);
  gpu::device_selection all;
  all.all = true;
  EXPECT_FALSE(dist::plan_worker_devices({}, false, {1, 4}, 4, true));  // the variable is set
  EXPECT_FALSE(dist::plan_worker_devices(all, false, {1, 4}, 4, false));
  EXPECT_FALSE(dist::plan_worker_devices({}, false, {1, 4}, -1, false));  // the driver's GPUs unknown
  const auto w = dist::plan_worker_devices({}, false, {2, 4}, 4, false);
  ASSERT_TRUE(w);
  EXPECT_EQ(w->visible, "2");
  EXPECT_EQ(w->selection.ordinals, v{0});
}

}  // namespace
}  // namespace pfsp::test
