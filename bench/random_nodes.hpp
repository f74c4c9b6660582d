// Fixed-seed pools of random B&B nodes, the inputs of the bounding benchmarks. Header-only and
// free of <random>'s implementation-defined distributions, so that the CPU benchmark
// (bench_bounds.cpp) and a GPU benchmark built by nvcc draw exactly the same nodes and can
// compare checksums of the bounds.
//
// A node is the papers' subproblem: a permutation with `prefix` jobs scheduled at the front
// (limit1 = prefix - 1) and `suffix` jobs at the back (limit2 = n - suffix).
// Node i of pool (n, prefix, suffix, seed) is a uniform random permutation drawn by
// Fisher-Yates with splitmix64 seeded by pool_seed(seed, n, prefix, suffix) (modulo bias is
// negligible for n << 2^64 and, above all, reproducible).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace pfsp::bench {

struct splitmix64 {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
};

inline std::uint64_t pool_seed(std::uint64_t seed, int n, int prefix, int suffix) {
  return seed ^ (static_cast<std::uint64_t>(n) << 40) ^ (static_cast<std::uint64_t>(prefix) << 20) ^
         static_cast<std::uint64_t>(suffix);
}

struct node_pool_spec {
  int n = 0;
  int prefix = 0;  // jobs scheduled at the front
  int suffix = 0;  // jobs scheduled at the back
  int count = 0;   // nodes in the pool
  std::uint64_t seed = 0;
};

struct random_node_pool {
  node_pool_spec spec;
  std::vector<int> perms;  // count * n, node i at [i * n, (i + 1) * n)
  int limit1() const { return spec.prefix - 1; }
  int limit2() const { return spec.n - spec.suffix; }
  const int* perm(int i) const { return perms.data() + static_cast<std::size_t>(i) * spec.n; }
};

inline random_node_pool make_node_pool(const node_pool_spec& s) {
  random_node_pool pool{s, std::vector<int>(static_cast<std::size_t>(s.count) * s.n)};
  splitmix64 rng{pool_seed(s.seed, s.n, s.prefix, s.suffix)};
  for (int i = 0; i < s.count; ++i) {
    int* p = pool.perms.data() + static_cast<std::size_t>(i) * s.n;
    for (int j = 0; j < s.n; ++j) p[j] = j;
    for (int j = s.n - 1; j > 0; --j) {
      const int r = static_cast<int>(rng.next() % static_cast<std::uint64_t>(j + 1));
      const int t = p[j];
      p[j] = p[r];
      p[r] = t;
    }
  }
  return pool;
}

// Scheduled jobs for a depth fraction and a split variant:
//   prefix: all at the front (forward branching's nodes)
//   suffix: all at the back (backward branching's nodes)
//   split:  half and half, front gets the odd one (bidirectional branching's nodes)
// At least one job is always left unscheduled.
inline node_pool_spec depth_spec(int n, double fraction, const std::string& variant, int count, std::uint64_t seed) {
  int d = static_cast<int>(fraction * n + 0.5);
  if (d > n - 1) d = n - 1;
  if (d < 0) d = 0;
  node_pool_spec s{n, d, 0, count, seed};
  if (variant == "suffix") {
    s.prefix = 0;
    s.suffix = d;
  } else if (variant == "split") {
    s.prefix = (d + 1) / 2;
    s.suffix = d / 2;
  }
  return s;
}

}  // namespace pfsp::bench
