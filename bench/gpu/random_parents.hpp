// What the GPU tools (pfsp_gpu_bench, pfsp_gpu_clock) bound: a pool of random parents at random
// depths, the same pool for the same seed in both tools, so their figures refer to one pool.
// Host code only.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace pfsp::gpu::tools {

struct parent {
  std::vector<int> perm;
  int limit1, limit2;
};

// Random parents, depths uniform in [0, n - 2] (at least two children per direction), until the
// next one's children (both directions) would exceed children_target.
inline std::vector<parent> make_parents(int n, std::size_t children_target, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<parent> out;
  std::size_t kids = 0;
  while (true) {
    parent p;
    p.perm.resize(static_cast<std::size_t>(n));
    for (int j = 0; j < n; ++j) p.perm[static_cast<std::size_t>(j)] = j;
    std::shuffle(p.perm.begin(), p.perm.end(), rng);
    const int depth = static_cast<int>(rng() % static_cast<unsigned>(std::max(1, n - 1)));
    const int a = static_cast<int>(rng() % static_cast<unsigned>(depth + 1));
    p.limit1 = a - 1;
    p.limit2 = n - (depth - a);
    const std::size_t c = 2 * static_cast<std::size_t>(p.limit2 - p.limit1 - 1);
    if (kids + c > children_target) break;
    kids += c;
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace pfsp::gpu::tools
