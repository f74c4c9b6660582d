// CUDA_VISIBLE_DEVICES narrowed to the GPUs a pfsp process uses (app/visible_devices.hpp): the
// plan, without touching the environment.
#include <gtest/gtest.h>

#include "app/visible_devices.hpp"

namespace pfsp {
namespace {

gpu::device_selection ordinals(std::vector<int> d) {
  gpu::device_selection s;
  s.ordinals = std::move(d);
  return s;
}

TEST(VisibleDevices, OneDeviceOfFourSeesOnlyItself) {
  const auto v = plan_visible_devices(2, {}, 4, false);
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->text, "2");
  EXPECT_EQ(v->device, 0);
  EXPECT_TRUE(v->ordinals.empty());
  const auto first = plan_visible_devices(0, {}, 4, false);
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->text, "0");
}

TEST(VisibleDevices, AListIsRenumberedByFirstUseRepeatsKept) {
  const auto v = plan_visible_devices(0, ordinals({3, 1, 3}), 4, false);
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->text, "3,1");
  EXPECT_EQ(v->ordinals, (std::vector<int>{0, 1, 0}));
  EXPECT_EQ(v->device, 0);  // the list's first: its device
  const auto same = plan_visible_devices(0, ordinals({0, 0, 0}), 2, false);
  ASSERT_TRUE(same.has_value());
  EXPECT_EQ(same->text, "0");
  EXPECT_EQ(same->ordinals, (std::vector<int>{0, 0, 0}));
}

TEST(VisibleDevices, LeftAloneWhereItCannotHelpOrIsNotOurs) {
  EXPECT_FALSE(plan_visible_devices(1, {}, 4, true).has_value());  // the variable is the user's
  gpu::device_selection all;
  all.all = true;
  EXPECT_FALSE(plan_visible_devices(0, all, 4, false).has_value());
  EXPECT_FALSE(plan_visible_devices(0, {}, 1, false).has_value());                      // the only GPU
  EXPECT_FALSE(plan_visible_devices(0, ordinals({0, 1, 2, 3}), 4, false).has_value());  // every GPU in order
  EXPECT_FALSE(plan_visible_devices(0, {}, -1, false).has_value());                     // count unknown
  EXPECT_FALSE(plan_visible_devices(0, {}, 0, false).has_value());
  // An ordinal the driver lacks: the runtime's error names it, as without narrowing.
  EXPECT_FALSE(plan_visible_devices(7, {}, 4, false).has_value());
  EXPECT_FALSE(plan_visible_devices(0, ordinals({0, 5}), 4, false).has_value());
}

TEST(VisibleDevices, EveryGpuOutOfOrderIsNarrowedToThatOrder) {
  const auto v = plan_visible_devices(0, ordinals({1, 0}), 2, false);
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->text, "1,0");
  EXPECT_EQ(v->ordinals, (std::vector<int>{0, 1}));
}

}  // namespace
}  // namespace pfsp
