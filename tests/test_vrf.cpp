// The VRF benchmark (Vallada, Ruiz & Framinan, EJOR 240(3):666-677, 2015; data/vrf/README.md), as
// tests/CMakeLists.txt extracts it into the build tree: every one of the 480 files parses with the
// size its name says and positive times; vrf_bounds.csv has one row per file with
// lb <= best_ub <= ub; every best_ub below the VRF upper bound recomputes from its permutation
// (vrf_best_permutations.csv); and the smallest instances (10 jobs, never instance 1, which is kept
// for an outside check) solve exactly to the brute-force optimum, inside the table's bounds, with a
// schedule whose makespan recomputes to it. Without the data the tests skip and say where to put it.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "bound/bound_data.hpp"
#include "heuristic/neh.hpp"
#include "problem/io.hpp"
#include "search/control.hpp"
#include "search/sequential.hpp"
#include "search/types.hpp"
#include "support.hpp"

namespace pfsp {
namespace {

namespace fs = std::filesystem;

const std::string data_dir = PFSP_VRF_DATA;           // the archives and the CSV files
const std::string instance_dir = PFSP_VRF_INSTANCES;  // where configure extracted the archives

#define PFSP_SKIP_WITHOUT_VRF()                                                                                  \
  if (instance_dir.empty())                                                                                      \
  GTEST_SKIP() << "VRF data not found: put vrf_small.tar.xz, vrf_large.tar.xz, vrf_bounds.csv and "              \
                  "vrf_best_permutations.csv in ../shared/data/vrf (or configure with -DPFSP_VRF_DATA_DIR=DIR) " \
                  "and re-run cmake; data/vrf/README.md says where they come from"

struct vrf_name {
  int n = 0, m = 0, index = 0;
};

// "VFR{n}_{m}_{i}" (the benchmark's own spelling, VFR, not VRF).
bool parse_name(const std::string& s, vrf_name& out) {
  static const std::regex re("VFR([0-9]+)_([0-9]+)_([0-9]+)");
  std::smatch mt;
  if (!std::regex_match(s, mt, re)) return false;
  out = {std::stoi(mt[1]), std::stoi(mt[2]), std::stoi(mt[3])};
  return true;
}

// Small: up to 60 jobs, in Small/; large: 100 jobs and more, in Large/.
std::string instance_path(const std::string& name) {
  vrf_name v;
  if (!parse_name(name, v)) return {};
  return instance_dir + (v.n <= 60 ? "/Small/" : "/Large/") + name + "_Gap.txt";
}

// A CSV with a header; rows as column -> cell. Fails the calling test if unreadable.
void read_csv(const std::string& path, std::vector<std::map<std::string, std::string>>& rows) {
  std::ifstream in(path);
  ASSERT_TRUE(in.good()) << "cannot open " << path;
  std::string line;
  ASSERT_TRUE(std::getline(in, line)) << path << ": empty file";
  const auto header = test::split_csv(line);
  int number = 1;
  while (std::getline(in, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    const auto cells = test::split_csv(line);
    ASSERT_EQ(cells.size(), header.size()) << path << ":" << number << ": wrong number of columns";
    std::map<std::string, std::string> r;
    for (std::size_t i = 0; i < cells.size(); ++i) r[header[i]] = cells[i];
    r["#line"] = std::to_string(number);
    rows.push_back(std::move(r));
  }
}

struct bounds_row {
  vrf_name size;
  int lb = 0, ub = 0, best_ub = 0;
  std::string best_ub_source;
  bool optimal = false;
};

void read_bounds(std::map<std::string, bounds_row>& out) {
  std::vector<std::map<std::string, std::string>> rows;
  const std::string path = data_dir + "/vrf_bounds.csv";
  ASSERT_NO_FATAL_FAILURE(read_csv(path, rows));
  for (auto& r : rows) {
    const std::string where = path + ":" + r["#line"];
    for (const char* c : {"name", "jobs", "machines", "lb", "ub", "source", "best_ub", "best_ub_source", "optimal"})
      ASSERT_TRUE(r.count(c)) << path << ": no column " << c;
    bounds_row b;
    ASSERT_TRUE(parse_name(r["name"], b.size)) << where << ": name " << r["name"];
    EXPECT_EQ(std::stoi(r["jobs"]), b.size.n) << where;
    EXPECT_EQ(std::stoi(r["machines"]), b.size.m) << where;
    b.lb = std::stoi(r["lb"]);
    b.ub = std::stoi(r["ub"]);
    b.best_ub = std::stoi(r["best_ub"]);
    b.best_ub_source = r["best_ub_source"];
    b.optimal = std::stoi(r["optimal"]) != 0;
    EXPECT_FALSE(r["source"].empty()) << where;
    EXPECT_FALSE(b.best_ub_source.empty()) << where;
    EXPECT_TRUE(out.emplace(r["name"], b).second) << where << ": " << r["name"] << " twice";
  }
}

TEST(vrf, every_file_parses_with_the_size_its_name_says) {
  PFSP_SKIP_WITHOUT_VRF();
  int small = 0, large = 0;
  std::set<std::string> seen;
  for (const char* part : {"Small", "Large"}) {
    const fs::path dir = fs::path(instance_dir) / part;
    ASSERT_TRUE(fs::is_directory(dir)) << dir;
    for (const auto& e : fs::directory_iterator(dir)) {
      const std::string file = e.path().filename().string();
      SCOPED_TRACE(e.path().string());
      ASSERT_TRUE(file.size() > 8 && file.ends_with("_Gap.txt")) << "unexpected file";
      const std::string name = file.substr(0, file.size() - 8);
      vrf_name v;
      ASSERT_TRUE(parse_name(name, v)) << "unexpected name";
      EXPECT_GE(v.index, 1);
      EXPECT_LE(v.index, 10);
      EXPECT_EQ(std::string(part), v.n <= 60 ? "Small" : "Large");
      const instance inst = read_instance_file(e.path().string());
      EXPECT_EQ(inst.n, v.n);
      EXPECT_EQ(inst.m, v.m);
      ASSERT_EQ(inst.p.size(), static_cast<std::size_t>(v.n) * v.m);
      int nonpositive = 0;
      for (int t : inst.p) nonpositive += t <= 0;
      EXPECT_EQ(nonpositive, 0);
      seen.insert(name);
      ++(v.n <= 60 ? small : large);
    }
  }
  EXPECT_EQ(small, 240);
  EXPECT_EQ(large, 240);
  EXPECT_EQ(seen.size(), 480u);
}

TEST(vrf, bounds_table_has_one_row_per_file) {
  PFSP_SKIP_WITHOUT_VRF();
  std::map<std::string, bounds_row> bounds;
  ASSERT_NO_FATAL_FAILURE(read_bounds(bounds));
  EXPECT_EQ(bounds.size(), 480u);
  for (const auto& [name, b] : bounds) {
    SCOPED_TRACE(name);
    EXPECT_TRUE(fs::exists(instance_path(name))) << "no file " << instance_path(name);
    EXPECT_GT(b.lb, 0);
    EXPECT_LE(b.lb, b.best_ub);
    EXPECT_LE(b.best_ub, b.ub);
  }
}

// Every best_ub other than the VRF paper's own comes with a permutation that recomputes to it.
TEST(vrf, improved_upper_bounds_recompute_from_their_permutations) {
  PFSP_SKIP_WITHOUT_VRF();
  std::map<std::string, bounds_row> bounds;
  ASSERT_NO_FATAL_FAILURE(read_bounds(bounds));
  std::vector<std::map<std::string, std::string>> rows;
  ASSERT_NO_FATAL_FAILURE(read_csv(data_dir + "/vrf_best_permutations.csv", rows));
  std::set<std::string> with_permutation;
  for (auto& r : rows) {
    const std::string name = r["name"];
    SCOPED_TRACE("vrf_best_permutations.csv:" + r["#line"] + " " + name);
    ASSERT_TRUE(bounds.count(name));
    const instance inst = read_instance_file(instance_path(name));
    std::vector<int> perm;
    std::istringstream s(r["permutation"]);
    for (int j; s >> j;) perm.push_back(j);
    std::vector<int> sorted(perm);
    std::sort(sorted.begin(), sorted.end());
    ASSERT_EQ(static_cast<int>(sorted.size()), inst.n);
    for (int j = 0; j < inst.n; ++j) ASSERT_EQ(sorted[j], j) << "not a permutation of 0..n-1";
    const int c = evaluate_schedule(inst, perm);
    EXPECT_EQ(c, test::naive_makespan(inst, perm));
    EXPECT_EQ(c, std::stoi(r["makespan"]));
    EXPECT_EQ(c, bounds[name].best_ub);
    EXPECT_EQ(r["source"], bounds[name].best_ub_source);
    with_permutation.insert(name);
  }
  for (const auto& [name, b] : bounds)
    if (b.best_ub < b.ub) {
      EXPECT_TRUE(with_permutation.count(name)) << name << ": best_ub without a permutation";
    }
}

// 10 jobs: brute force over 10! orders is the independent reference (the VRF lower bounds are far
// from tight, so the table holds no proven optimum to compare with).
TEST(vrf, smallest_instances_solve_to_the_brute_force_optimum) {
  PFSP_SKIP_WITHOUT_VRF();
  std::map<std::string, bounds_row> bounds;
  ASSERT_NO_FATAL_FAILURE(read_bounds(bounds));
  for (const char* name : {"VFR10_5_2", "VFR10_5_3", "VFR10_5_4", "VFR10_5_5", "VFR10_10_2"}) {
    SCOPED_TRACE(name);
    ASSERT_TRUE(bounds.count(name));
    const bounds_row& b = bounds[name];
    const instance inst = read_instance_file(instance_path(name));
    const int optimum = test::brute_force_optimum(inst);
    EXPECT_GE(optimum, b.lb);
    EXPECT_LE(optimum, b.best_ub);
    if (b.optimal) {
      EXPECT_EQ(optimum, b.best_ub);
    }
    const bound_data data(inst);
    solve_options o;
    o.bound = bound_kind::lb1_lb2;
    const solve_result r = solve_sequential(data, o, incumbent{});
    EXPECT_EQ(r.status, solve_status::optimal) << to_string(r.status);
    EXPECT_EQ(r.makespan, optimum);
    EXPECT_EQ(r.lower_bound, optimum);
    ASSERT_EQ(static_cast<int>(r.schedule.size()), inst.n);
    EXPECT_EQ(evaluate_schedule(inst, r.schedule), optimum) << test::to_text(r.schedule);
    EXPECT_EQ(test::naive_makespan(inst, r.schedule), optimum);
  }
}

}  // namespace
}  // namespace pfsp
