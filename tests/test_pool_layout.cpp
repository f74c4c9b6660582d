// The pool layout both GPU loops share (src/gpu/pool_layout.hpp, host+device, plain C++): the
// child descriptors and sort keys `write_children` writes, checked on the host in every build.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "gpu/pool_layout.hpp"

namespace pfsp::gpu {
namespace {

TEST(pool_layout, write_children_in_natural_order_with_keys) {
  const int n = 9;
  // Parent 5 with 2 jobs in the prefix and 3 in the suffix: 4 unscheduled.
  const int limit1 = 1, limit2 = 6, count = 4;
  for (int dirs : {1, 2})
    for (bool backward_only : {false, true}) {
      if (dirs == 2 && backward_only) continue;
      std::vector<std::uint32_t> desc(20, 0xdeadbeef), keys(20, 0), values(20, 0);
      const std::uint32_t end =
          write_children(5, n, limit1, limit2, dirs, backward_only, 3, desc.data(), keys.data(), values.data());
      ASSERT_EQ(end, 3u + static_cast<std::uint32_t>(dirs * count));
      EXPECT_EQ(desc[2], 0xdeadbeefu);
      EXPECT_EQ(desc[end], 0xdeadbeefu);
      for (std::uint32_t i = 3; i < end; ++i) {
        const int k = static_cast<int>(i - 3);
        const bool backward = dirs == 2 ? k >= count : backward_only;
        EXPECT_EQ(child_parent(desc[i]), 5u);
        EXPECT_EQ(child_position(desc[i]), k % count);
        EXPECT_EQ(child_backward(desc[i]), backward);
        EXPECT_EQ(keys[i], child_key(n, limit1, limit2, backward));
        EXPECT_EQ(values[i], i);
      }
    }
  // Without keys only the descriptors are written: the root's n children, one direction.
  std::vector<std::uint32_t> desc(static_cast<std::size_t>(n) + 1, 0xdeadbeef);
  EXPECT_EQ(write_children(0, n, -1, n, 1, false, 0, desc.data(), nullptr, nullptr), static_cast<std::uint32_t>(n));
  for (int c = 0; c < n; ++c) EXPECT_EQ(desc[static_cast<std::size_t>(c)], make_child(0, c, false));
  EXPECT_EQ(desc[static_cast<std::size_t>(n)], 0xdeadbeefu);
}

TEST(pool_layout, child_keys_order_children_by_their_own_limits) {
  const int n = 7;
  // The forward child of parent (0, 5) and the backward child of parent (1, 6) both have limits
  // (1, 5); the key still tells their directions apart (they take different code paths).
  EXPECT_NE(child_key(n, 0, 5, false), child_key(n, 1, 6, true));
  EXPECT_LT(child_key(n, 3, 5, true), std::uint32_t{1} << child_key_bits(n));
}

}  // namespace
}  // namespace pfsp::gpu
