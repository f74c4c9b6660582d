// Helpers shared by the CPU tests: small random instances, a naive makespan, brute force over
// all permutations, and where the shared data lives. Everything here is deliberately simple
// (no incremental tricks) so that it can serve as the reference the solver is checked against.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <fstream>
#include <map>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "problem/instance.hpp"
#include "problem/taillard.hpp"
#include "search/types.hpp"

namespace pfsp::test {

// Two searches branched the same tree: the same branched, bounded, pruned and leaf counts (the
// papers' protocol: with the optimum as the initial upper bound the tree is fixed).
inline void expect_same_tree(const solve_result& a, const solve_result& b, const std::string& what) {
  EXPECT_EQ(a.stats.branched, b.stats.branched) << what;
  EXPECT_EQ(a.stats.bounds, b.stats.bounds) << what;
  EXPECT_EQ(a.stats.pruned, b.stats.pruned) << what;
  EXPECT_EQ(a.stats.leaves, b.stats.leaves) << what;
}

// Instance with times drawn uniformly from [lo, hi] (std::mt19937, reproducible from `seed`).
inline instance random_instance(int n, int m, std::uint32_t seed, int lo, int hi) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> d(lo, hi);
  instance inst;
  inst.name = "rand_" + std::to_string(n) + "x" + std::to_string(m) + "_" + std::to_string(seed);
  inst.n = n;
  inst.m = m;
  inst.p.resize(static_cast<std::size_t>(n) * m);
  for (auto& v : inst.p) v = d(rng);
  return inst;
}

// A test case: an instance and a description that says how to rebuild it.
struct sample {
  instance inst;
  std::string what;
};

// A varied set of small instances: Taillard's generator, and times over narrow ranges (many
// ties), wide ranges and very uneven ranges. Sizes n in [n_lo, n_hi], m in [m_lo, m_hi].
inline std::vector<sample> small_samples(int n_lo, int n_hi, int m_lo, int m_hi, int per_size,
                                         std::uint32_t base_seed) {
  std::vector<sample> out;
  static const int ranges[][2] = {{1, 99}, {1, 3}, {1, 1000}, {1, 100000}, {50, 60}};
  std::uint32_t s = base_seed;
  for (int n = n_lo; n <= n_hi; ++n)
    for (int m = m_lo; m <= m_hi; ++m)
      for (int r = 0; r < per_size; ++r) {
        ++s;
        if (r % 2 == 0) {
          out.push_back({generate_taillard(n, m, s), "generate_taillard(" + std::to_string(n) + ", " +
                                                         std::to_string(m) + ", " + std::to_string(s) + ")"});
        } else {
          const auto& rg = ranges[(r / 2) % 5];
          out.push_back({random_instance(n, m, s, rg[0], rg[1]), "random_instance(" + std::to_string(n) + ", " +
                                                                     std::to_string(m) + ", seed " + std::to_string(s) +
                                                                     ", times " + std::to_string(rg[0]) + ".." +
                                                                     std::to_string(rg[1]) + ")"});
        }
      }
  return out;
}

// Completion times by the textbook recurrence on a full (len+1) x (m+1) table. O(len m).
// Returns C(last job, k) for every machine k.
template <class Job>
std::vector<int> naive_completion(const instance& inst, const std::vector<Job>& perm) {
  const int m = inst.m, len = static_cast<int>(perm.size());
  std::vector<std::vector<long long>> c(static_cast<std::size_t>(len) + 1, std::vector<long long>(m + 1, 0));
  for (int i = 1; i <= len; ++i)
    for (int k = 1; k <= m; ++k)
      c[i][k] = std::max(c[i - 1][k], c[i][k - 1]) + inst.time(k - 1, static_cast<int>(perm[i - 1]));
  std::vector<int> out(m);
  for (int k = 0; k < m; ++k) out[k] = static_cast<int>(c[len][k + 1]);
  return out;
}

template <class Job>
int naive_makespan(const instance& inst, const std::vector<Job>& perm) {
  if (perm.empty()) return 0;
  return naive_completion(inst, perm).back();
}

// A search from ub = optimum + slack (slack 0 or 1): with slack 1 it must find an optimal schedule
// (its makespan recomputed here), with 0 prove that none is shorter; either way its lower bound is
// the optimum. For the exactness checks of the dominance rules against brute force.
inline void expect_proves_optimum(const instance& inst, const solve_result& r, int optimum, int slack,
                                  const std::string& what) {
  EXPECT_EQ(r.lower_bound, optimum) << what;
  if (slack == 0) {
    EXPECT_EQ(r.status, solve_status::proven_bound) << what;
    return;
  }
  ASSERT_EQ(r.status, solve_status::optimal) << what << ": no optimal schedule found";
  EXPECT_EQ(r.makespan, optimum) << what;
  EXPECT_EQ(naive_makespan(inst, r.schedule), optimum) << what;
}

// Optimum over all n! permutations (n <= 10), by depth-first enumeration with the completion
// times of the prefix kept per depth (so each permutation costs O(m), not O(n m)).
inline int brute_force_optimum(const instance& inst, std::vector<int>* best_perm = nullptr) {
  const int n = inst.n, m = inst.m;
  std::vector<std::vector<int>> front(static_cast<std::size_t>(n) + 1, std::vector<int>(m, 0));
  std::vector<int> perm(n), best_seq;
  std::vector<char> used(n, 0);
  int best = INT_MAX;
  auto rec = [&](auto&& self, int depth) -> void {
    if (depth == n) {
      if (front[n][m - 1] < best) {
        best = front[n][m - 1];
        best_seq = perm;
      }
      return;
    }
    for (int j = 0; j < n; ++j) {
      if (used[j]) continue;
      used[j] = 1;
      perm[depth] = j;
      int t = 0;
      for (int k = 0; k < m; ++k) {
        t = std::max(t, front[depth][k]) + inst.time(k, j);
        front[depth + 1][k] = t;
      }
      self(self, depth + 1);
      used[j] = 0;
    }
  };
  rec(rec, 0);
  if (best_perm) *best_perm = best_seq;
  return best;
}

inline std::string shared_csv_path() { return std::string(PFSP_SHARED_DATA) + "/taillard_pfsp.csv"; }

// One row of shared/data/taillard_pfsp.csv.
struct csv_row {
  int line = 0;
  std::string name;
  int n = 0, m = 0;
  long long time_seed = 0;
  int lb = 0, ub = 0;
  bool optimal = false;
};

inline std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::string> out;
  std::string cell;
  std::istringstream s(line);
  while (std::getline(s, cell, ',')) out.push_back(cell);
  if (!line.empty() && line.back() == ',') out.emplace_back();
  return out;
}

// Reads shared/data/taillard_pfsp.csv; fails the calling test (fatally) with a clear message if it is missing or
// malformed.
inline void read_taillard_csv(std::vector<csv_row>& rows) {
  const std::string path = shared_csv_path();
  std::ifstream in(path);
  ASSERT_TRUE(in.good()) << "cannot open " << path
                         << ": the Taillard CSV must be in ../shared/data beside the checkout (or configure with "
                            "-DPFSP_SHARED_DATA_DIR=DIR)";
  std::string line;
  ASSERT_TRUE(std::getline(in, line)) << path << ": empty file";
  if (!line.empty() && line.back() == '\r') line.pop_back();
  const auto header = split_csv(line);
  std::map<std::string, std::size_t> col;
  for (std::size_t i = 0; i < header.size(); ++i) col[header[i]] = i;
  for (const char* c : {"name", "n", "m", "time_seed", "lb", "ub", "optimal"})
    ASSERT_TRUE(col.count(c)) << path << ": header has no column '" << c << "': " << line;
  int number = 1;
  while (std::getline(in, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    const auto cells = split_csv(line);
    ASSERT_EQ(cells.size(), header.size()) << path << ":" << number << ": wrong number of columns: " << line;
    csv_row r;
    r.line = number;
    r.name = cells[col["name"]];
    r.n = std::stoi(cells[col["n"]]);
    r.m = std::stoi(cells[col["m"]]);
    r.time_seed = std::stoll(cells[col["time_seed"]]);
    r.lb = std::stoi(cells[col["lb"]]);
    r.ub = std::stoi(cells[col["ub"]]);
    r.optimal = std::stoi(cells[col["optimal"]]) != 0;
    rows.push_back(r);
  }
}

inline std::string to_text(const std::vector<int>& v) {
  std::ostringstream s;
  for (std::size_t i = 0; i < v.size(); ++i) s << (i ? " " : "") << v[i];
  return s.str();
}

}  // namespace pfsp::test
