// The real pfsp binary: output, JSON report, exit codes, error messages on stderr, and Ctrl-C.
// Exit codes: 0 optimal/proven bound, 2 bad input or option, 3 time limit, 4 node limit,
// 130 interrupted.
#include <gtest/gtest.h>

#include <algorithm>
#if defined(__linux__)
#include <sched.h>
#endif
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "app/options.hpp"
#include "base/cores.hpp"
#include "heuristic/neh.hpp"
#include "problem/taillard.hpp"
#include "run_process.hpp"
#include "support.hpp"

namespace pfsp {
namespace {

using test::run_pfsp;

bool contains(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

// The numbers after "schedule" on the human-readable report (1-based jobs).
std::vector<int> schedule_line(const std::string& out) {
  std::vector<int> jobs;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("schedule", 0) != 0) continue;
    std::istringstream s(line.substr(8));
    for (int j; s >> j;) jobs.push_back(j);
  }
  return jobs;
}

// The first integer after "lower bound" on the report, or -1.
int lower_bound_line(const std::string& out) {
  std::smatch m;
  if (std::regex_search(out, m, std::regex("lower bound +([0-9]+)"))) return std::stoi(m[1]);
  return -1;
}

void expect_one_based_permutation(const std::vector<int>& s, int n) {
  ASSERT_EQ(static_cast<int>(s.size()), n) << test::to_text(s);
  std::vector<int> sorted(s);
  std::sort(sorted.begin(), sorted.end());
  for (int j = 0; j < n; ++j) ASSERT_EQ(sorted[j], j + 1) << "not a 1-based permutation: " << test::to_text(s);
}

// Makespan of a 1-based schedule of a named instance, recomputed here.
int makespan_of(const std::string& name, const std::vector<int>& one_based) {
  std::vector<int> s;
  for (int j : one_based) s.push_back(j - 1);
  return evaluate_schedule(taillard_instance(name), s);
}

TEST(cli, solve_ta001_prints_the_optimum) {
  const auto r = run_pfsp({"solve", "ta001", "--no-progress"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_TRUE(std::regex_search(r.out, std::regex("status +optimal"))) << r.describe();
  EXPECT_TRUE(std::regex_search(r.out, std::regex("makespan +1278\\b"))) << r.describe();
  EXPECT_EQ(lower_bound_line(r.out), 1278) << r.describe();
  const auto s = schedule_line(r.out);
  ASSERT_NO_FATAL_FAILURE(expect_one_based_permutation(s, 20)) << r.describe();
  EXPECT_EQ(makespan_of("ta001", s), 1278);
}

TEST(cli, solve_with_every_backend_and_bound) {
  for (const char* backend : {"cpu", "cpu-mt"})
    for (const char* bound : {"lb1", "lb2", "lb1-lb2"}) {
      const auto r = run_pfsp({"solve", "ta003", "--backend", backend, "--bound", bound, "--threads", "2", "-q"});
      EXPECT_EQ(r.exit_code, 0) << r.describe();
      EXPECT_EQ(r.out, "optimal 1081 1081\n") << r.describe();
    }
}

#if defined(__linux__)
// The engine sizes its threads by the cores the process may run on (its affinity mask), not the
// machine's: pinned to one core, `--backend cpu` keeps that core for the search and runs no
// walker; unpinned, it takes the cores but one.
TEST(cli, engine_threads_follow_the_affinity_mask) {
  cpu_set_t saved;
  ASSERT_EQ(sched_getaffinity(0, sizeof(saved), &saved), 0);
  const int all = usable_cores();
  EXPECT_EQ(all, CPU_COUNT(&saved));
  test::temp_dir dir;
  const auto engine_threads = [&](const std::string& name) {
    const std::string path = dir.file(name + ".json");
    const auto r = run_pfsp({"solve", "ta081", "--backend", "cpu", "--time-limit", "0.5", "--json", path, "-q"});
    EXPECT_EQ(r.exit_code, 3) << r.describe();
    return nlohmann::json::parse(test::slurp(path)).at("engine_threads").get<int>();
  };
  EXPECT_EQ(engine_threads("all"), std::min(all - 1, 8));
  int first = 0;
  while (!CPU_ISSET(first, &saved)) ++first;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(first, &one);
  ASSERT_EQ(sched_setaffinity(0, sizeof(one), &one), 0);
  EXPECT_EQ(usable_cores(), 1);
  const int pinned = engine_threads("one");
  ASSERT_EQ(sched_setaffinity(0, sizeof(saved), &saved), 0);
  EXPECT_EQ(pinned, 0);
}
#endif

// --estimate-seconds: the tree-size estimate before the search gives the log's "left" column its
// target, which the header states; a negative value is a bad option.
TEST(cli, estimate_seconds_gives_the_log_a_tree_size) {
  test::temp_dir dir;
  const std::string log = dir.file("solve.log");
  const auto r =
      run_pfsp({"solve", "ta014", "--backend", "cpu", "--ub", "1377", "--estimate-seconds", "0.3", "--log", log, "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_NE(test::slurp(log).find("tree-size estimate of"), std::string::npos) << test::slurp(log);
  const auto none = run_pfsp({"solve", "ta014", "--backend", "cpu", "--ub", "1377", "--log", log, "-q"});
  ASSERT_EQ(none.exit_code, 0) << none.describe();
  EXPECT_EQ(test::slurp(log).find("tree-size estimate of"), std::string::npos) << test::slurp(log);
  const auto bad = run_pfsp({"solve", "ta014", "--estimate-seconds", "-1"});
  EXPECT_EQ(bad.exit_code, 2) << bad.describe();
}

TEST(cli, json_report) {
  test::temp_dir dir;
  const std::string path = dir.file("result.json");
  const auto r = run_pfsp({"solve", "ta001", "--json", path, "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  const std::string text = test::slurp(path);
  ASSERT_FALSE(text.empty()) << "no JSON written to " << path << "\n" << r.describe();
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const std::exception& e) {
    FAIL() << "invalid JSON (" << e.what() << "):\n" << text;
  }
  EXPECT_EQ(j.at("status"), "optimal") << text;
  EXPECT_EQ(j.at("makespan"), 1278) << text;
  EXPECT_EQ(j.at("lower_bound"), 1278) << text;
  ASSERT_TRUE(j.at("schedule").is_array()) << text;
  const auto s = j.at("schedule").get<std::vector<int>>();
  ASSERT_NO_FATAL_FAILURE(expect_one_based_permutation(s, 20)) << text;
  EXPECT_EQ(makespan_of("ta001", s), 1278);
  EXPECT_EQ(j.at("instance").at("name"), "ta001");
  EXPECT_EQ(j.at("instance").at("n"), 20);
  EXPECT_EQ(j.at("instance").at("m"), 5);
  EXPECT_FALSE(std::ifstream(path + ".tmp").good()) << "temporary file left behind";
}

// The fixed cost's parts (issue 21 item 5): no GPU context to wait for on a CPU backend; the time
// before the solve's clock is reported.
TEST(cli, json_reports_the_fixed_cost) {
  test::temp_dir dir;
  const std::string path = dir.file("result.json");
  const auto r = run_pfsp({"solve", "ta001", "--backend", "cpu", "--json", path, "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  const auto j = nlohmann::json::parse(test::slurp(path));
  EXPECT_EQ(j.at("context_wait_seconds").get<double>(), 0.0);
  const double before = j.at("before_clock_seconds").get<double>();
  EXPECT_GT(before, 0.0);
  EXPECT_LT(before, 60.0);
  // The wall time's steps add up to the wall time (the last mark is taken just before it).
  const auto& phases = j.at("wall_phases");
  double sum = 0;
  for (const char* name : {"start", "pairs", "engine", "context", "floor", "search", "finish"}) {
    ASSERT_TRUE(phases.contains(name)) << name << " in " << phases.dump();
    EXPECT_GE(phases.at(name).get<double>(), 0.0) << name;
    sum += phases.at(name).get<double>();
  }
  EXPECT_EQ(phases.size(), 7u) << phases.dump();
  const double wall = j.at("wall_seconds").get<double>();
  EXPECT_LE(sum, wall + 1e-9);
  EXPECT_GE(sum, 0.9 * wall) << phases.dump();
}

TEST(cli, quiet_mode_prints_one_line) {
  const auto r = run_pfsp({"solve", "ta001", "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_EQ(r.out, "optimal 1278 1278\n") << r.describe();
  EXPECT_EQ(r.err, "") << r.describe();
  const auto q = run_pfsp({"solve", "ta001", "--quiet", "--no-neh", "--backend", "cpu"});
  EXPECT_EQ(q.exit_code, 0) << q.describe();
  EXPECT_EQ(q.out, "optimal 1278 1278\n") << q.describe();
}

void expect_input_error_early(const std::vector<std::string>& args, const std::vector<std::string>& needles) {
  const auto r = run_pfsp(args);
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  for (const auto& n : needles) EXPECT_TRUE(contains(r.err, n)) << "stderr lacks '" << n << "'\n" << r.describe();
}

// --ub at the optimum proves that nothing shorter exists (exit 0, proven_bound); just above it
// finds the optimum.
TEST(cli, initial_upper_bound) {
  const auto at = run_pfsp({"solve", "ta001", "--ub", "1278", "--no-neh", "-q"});
  EXPECT_EQ(at.exit_code, 0) << at.describe();
  EXPECT_EQ(at.out, "proven_bound 0 1278\n") << at.describe();
  const auto neh_start = run_pfsp({"solve", "ta001", "--ub", "1278", "--heuristic", "neh", "-q"});
  EXPECT_EQ(neh_start.exit_code, 0) << neh_start.describe();
  EXPECT_EQ(neh_start.out, "proven_bound 1286 1278\n") << neh_start.describe();
  const auto above = run_pfsp({"solve", "ta001", "--ub", "1279", "--no-neh", "-q", "--backend", "cpu"});
  EXPECT_EQ(above.exit_code, 0) << above.describe();
  EXPECT_EQ(above.out, "optimal 1278 1278\n") << above.describe();
}

// --ub best-known takes Taillard's best known makespan (ta001: the optimum 1278): the same
// search as --ub 1278; instances without one are refused.
TEST(cli, best_known_upper_bound) {
  const auto r = run_pfsp({"solve", "ta001", "--ub", "best-known", "--no-neh", "-q", "--backend", "cpu"});
  EXPECT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_EQ(r.out, "proven_bound 0 1278\n") << r.describe();
  expect_input_error_early({"solve", "random:6,3,1", "--ub", "best-known"}, {"--ub best-known", "random:6,3,1"});
  expect_input_error_early({"solve", "ta001", "--ub", "12x"}, {"--ub 12x", "best-known"});
}

// LB2 over machine-pair subsets from the CLI: each proves ta001's optimum; bad values exit 2.
TEST(cli, lb2_pair_subsets) {
  for (const char* pairs : {"adjacent", "learn", "learn:3"}) {
    const auto r = run_pfsp({"solve", "ta001", "--bound", "lb2", "--lb2-pairs", pairs, "-q", "--backend", "cpu"});
    EXPECT_EQ(r.exit_code, 0) << r.describe();
    EXPECT_EQ(r.out, "optimal 1278 1278\n") << r.describe();
  }
  expect_input_error_early({"solve", "ta001", "--bound", "lb2", "--lb2-pairs", "some"}, {"--lb2-pairs", "some"});
  expect_input_error_early({"solve", "ta001", "--bound", "lb2", "--lb2-pairs", "learn:99"}, {"learn:99", "1..10"});
  // ta031 (50x5): --bound auto is LB1 there on the CPU (ta001, 20x5, gets the chain: default_cpu_bound).
  expect_input_error_early({"solve", "ta031", "--lb2-pairs", "adjacent"}, {"--lb2-pairs", "lb1"});
  expect_input_error_early({"solve", "ta001", "--heuristic-share", "1.5"}, {"--heuristic-share"});
  expect_input_error_early({"solve", "ta001", "--seed", "-1"}, {"--seed"});
  expect_input_error_early({"solve", "ta001", "--beam-target", "widest"}, {"--beam-target"});
  expect_input_error_early({"solve", "ta001", "--beam-device", "tpu"}, {"--beam-device"});
  expect_input_error_early({"solve", "ta001", "--backend", "cpu", "--beam-device", "gpu"},
                           {"--beam-device gpu", "gpu backend"});
}

// The bisecting beam's probes (sequential searches that close their trees below a value) raise the
// reported lower bound above what the search alone proves in the time: on ta111 (500 x 20) the
// cpu search from NEH proves about 25950 in 20 s, the probes 26000 or more (the optimum is 26040)
// within seconds.
TEST(cli, the_engines_probes_raise_the_reported_lower_bound) {
  const auto r = run_pfsp({"solve", "ta111", "--backend", "cpu", "--improver-threads", "2", "--beam", "1",
                           "--time-limit", "8", "--no-progress"});
  ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 3) << r.describe();
  const auto at = r.out.find("lower bound");
  ASSERT_NE(at, std::string::npos) << r.describe();
  const int lower = std::stoi(r.out.substr(at + std::string("lower bound").size()));
  EXPECT_GE(lower, 26000) << r.describe();
  EXPECT_LE(lower, 26040) << r.describe();
  // The engine's own bound (its probes'), in its note, in either outcome.
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.out, m, std::regex("targets bisected, lower bound ([0-9]+)"))) << r.describe();
  EXPECT_GE(std::stoi(m[1]), 26000) << r.describe();
  EXPECT_LE(std::stoi(m[1]), 26040) << r.describe();
  // Stopped by the limit, the report takes the probes' bound (the search's own is lower). Where the
  // engine finds the optimum in time (ta111's root bound is the optimum), the search proves it
  // at once and the bound is the search's.
  if (r.exit_code == 3) {
    EXPECT_TRUE(contains(r.out, "from the incumbent engine's probes")) << r.describe();
  } else {
    EXPECT_TRUE(contains(r.out, "status       optimal")) << r.describe();
    EXPECT_EQ(lower, 26040) << r.describe();
  }
}

TEST(cli, info_ta001) {
  const auto r = run_pfsp({"info", "ta001"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_TRUE(contains(r.out, "ta001")) << r.describe();
  EXPECT_TRUE(contains(r.out, "20 jobs x 5 machines")) << r.describe();
  EXPECT_TRUE(std::regex_search(r.out, std::regex("NEH +1286\\b"))) << r.describe();
  EXPECT_TRUE(std::regex_search(r.out, std::regex("root LB1 +[0-9]+"))) << r.describe();
  EXPECT_TRUE(std::regex_search(r.out, std::regex("root LB2 +[0-9]+"))) << r.describe();
  EXPECT_TRUE(contains(r.out, "1278")) << r.describe();
}

// Bad input: exit code 2, nothing solved, and stderr names the problem.
void expect_input_error(const std::vector<std::string>& args, const std::vector<std::string>& needles) {
  const auto r = run_pfsp(args);
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_FALSE(r.err.empty()) << r.describe();
  for (const auto& n : needles) EXPECT_TRUE(contains(r.err, n)) << "stderr lacks '" << n << "'\n" << r.describe();
  EXPECT_FALSE(contains(r.out, "status")) << r.describe();
}

// `pfsp solve --help` prints the solve options once, with the footer; `pfsp --help` lists the
// subcommands.
TEST(cli, help_is_printed_once) {
  const auto r = run_pfsp({"solve", "--help"});
  EXPECT_EQ(r.exit_code, 0);
  const auto count = [&](const std::string& what) {
    std::size_t c = 0;
    for (std::size_t at = r.out.find(what); at != std::string::npos; at = r.out.find(what, at + 1)) ++c;
    return c;
  };
  EXPECT_EQ(count("--time-limit"), 1u) << r.out;
  EXPECT_EQ(count("Solve an instance to proven optimality"), 1u) << r.out;
  EXPECT_EQ(count("Exit codes:"), 1u) << r.out;
  const auto top = run_pfsp({"--help"});
  EXPECT_EQ(top.exit_code, 0);
  EXPECT_TRUE(contains(top.out, "solve")) << top.out;
  EXPECT_TRUE(contains(top.out, "gantt")) << top.out;
}

// `pfsp solve --help` lists the options in groups, a user's first; the benchmarking and tuning
// knobs only with --help-all.
TEST(cli, help_groups_and_help_all) {
  const auto r = run_pfsp({"solve", "--help"});
  EXPECT_EQ(r.exit_code, 0);
  std::size_t at = 0;
  for (const char* group : {help_group::search, help_group::engine, help_group::outputs, help_group::checkpoints}) {
    const std::size_t next = r.out.find(std::string(group) + ":");
    ASSERT_NE(next, std::string::npos) << group << '\n' << r.out;
    EXPECT_GT(next, at) << group << " out of order\n" << r.out;
    at = next;
  }
  EXPECT_FALSE(contains(r.out, "\n  --profile ")) << r.out;
  EXPECT_FALSE(contains(r.out, "\n  --gpu-strategy ")) << r.out;
  EXPECT_TRUE(contains(r.out, "--help-all")) << r.out;
  const auto all = run_pfsp({"solve", "--help-all"});
  EXPECT_EQ(all.exit_code, 0);
  EXPECT_TRUE(contains(all.out, std::string(help_group::tuning) + ":")) << all.out;
  EXPECT_TRUE(contains(all.out, "\n  --profile ")) << all.out;
  EXPECT_TRUE(contains(all.out, "\n  --gpu-strategy ")) << all.out;
  EXPECT_TRUE(contains(all.out, "--time-limit")) << all.out;
}

TEST(cli, bad_options_exit_2) {
  expect_input_error({"solve", "ta001", "--ub", "-5"}, {"--ub", "-5"});
  expect_input_error({"solve", "ta001", "--bound", "lb9"}, {"--bound", "lb9"});
  expect_input_error({"solve", "ta001", "--threads", "0"}, {"--threads", "0"});
  expect_input_error({"solve", "ta001", "--time-limit", "-1"}, {"--time-limit", "-1"});
  expect_input_error({"solve", "ta001", "--frobnicate"}, {"--frobnicate"});
  expect_input_error({"solve", "ta001", "--branching", "sideways"}, {"--branching", "sideways"});
  expect_input_error({"solve", "ta001", "--backend", "tpu"}, {"--backend", "tpu"});
  expect_input_error({"solve", "ta001", "--node-limit", "many"}, {"--node-limit", "many"});
  expect_input_error({"solve", "ta001", "--ub", "0"}, {"--ub", "0"});
  expect_input_error({"solve", "ta001", "--selection", "random"}, {"--selection", "random"});
  expect_input_error({"solve"}, {"instance"});
  expect_input_error({}, {"subcommand"});
}

#if defined(PFSP_HAVE_GPU)
// The GPU options exist in CUDA builds (CI compiles them without a GPU): bad values are exit 2
// before any device is looked for.
TEST(cli, bad_gpu_options_exit_2) {
  expect_input_error({"solve", "ta001", "--gpu-loop", "sideways"}, {"--gpu-loop", "sideways"});
  expect_input_error({"solve", "ta001", "--pool-size", "-5"}, {"--pool-size", "-5"});
  expect_input_error({"solve", "ta001", "--threads-per-block", "100"}, {"--threads-per-block", "100"});
}
#endif

TEST(cli, unknown_instances_exit_2) {
  expect_input_error({"solve", "ta121"}, {"ta121", "ta001 .. ta120"});
  expect_input_error({"solve", "nosuchfile.txt"}, {"nosuchfile.txt", "no such file"});
  expect_input_error({"info", "ta000"}, {"ta000"});
  expect_input_error({"solve", "random:5,3"}, {"random:5,3", "random:N,M,SEED"});
}

TEST(cli, malformed_file_exit_2_names_file_and_line) {
  test::temp_dir dir;
  const std::string path = dir.file("broken.txt");
  std::ofstream(path) << "3 2\n1 2 3\n4 x 6\n";
  expect_input_error({"solve", path}, {path + ":3:", "'x'"});
  const std::string path2 = dir.file("short.txt");
  std::ofstream(path2) << "number of jobs, number of machines\n3 2\n1 2 3\n";
  expect_input_error({"solve", path2}, {path2 + ":3:", "truncated"});
  const std::string empty = dir.file("empty.txt");
  std::ofstream(empty) << "";
  expect_input_error({"info", empty}, {empty, "empty"});
}

TEST(cli, solves_a_file) {
  test::temp_dir dir;
  const std::string path = dir.file("small.txt");
  std::ofstream(path) << "number of jobs, number of machines\n4 2\nprocessing times :\n5 1 3 2\n2 4 3 1\n";
  instance small;
  small.n = 4;
  small.m = 2;
  small.p = {5, 1, 3, 2, 2, 4, 3, 1};
  const int opt = test::brute_force_optimum(small);
  const auto r = run_pfsp({"solve", path, "-q", "--backend", "cpu"});
  EXPECT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_EQ(r.out, "optimal " + std::to_string(opt) + " " + std::to_string(opt) + "\n") << r.describe();
}

TEST(cli, node_limit_exit_4) {
  const auto r = run_pfsp({"solve", "ta021", "--node-limit", "10", "--no-progress"});
  EXPECT_EQ(r.exit_code, 4) << r.describe();
  EXPECT_TRUE(std::regex_search(r.out, std::regex("status +node_limit"))) << r.describe();
  const int lb = lower_bound_line(r.out);
  EXPECT_GT(lb, 0) << r.describe();
  EXPECT_LE(lb, 2297) << r.describe();
  const auto q = run_pfsp({"solve", "ta021", "--node-limit", "10", "-q"});
  EXPECT_EQ(q.exit_code, 4) << q.describe();
  EXPECT_EQ(q.out.rfind("node_limit ", 0), 0u) << q.describe();
}

TEST(cli, time_limit_exit_3) {
  const auto r = run_pfsp({"solve", "ta021", "--time-limit", "0.5", "--no-progress"});
  EXPECT_EQ(r.exit_code, 3) << r.describe();
  EXPECT_TRUE(std::regex_search(r.out, std::regex("status +time_limit"))) << r.describe();
  const int lb = lower_bound_line(r.out);
  EXPECT_GT(lb, 0) << r.describe();
  EXPECT_LE(lb, 2297) << r.describe();
  const auto s = schedule_line(r.out);
  ASSERT_NO_FATAL_FAILURE(expect_one_based_permutation(s, 20)) << r.describe();
  EXPECT_GE(makespan_of("ta021", s), 2297);
}

TEST(cli, sigint_prints_the_best_schedule_and_exits_130) {
  const auto r = run_pfsp({"solve", "ta021", "--backend", "cpu"}, /*sigint_after_s=*/1.0, /*deadline_s=*/60);
  ASSERT_FALSE(r.timed_out) << "pfsp did not stop within 59 s of SIGINT\n" << r.describe();
  EXPECT_EQ(r.signal, 0) << r.describe();
  EXPECT_EQ(r.exit_code, 130) << r.describe();
  // The solver log on stderr: stdout has --quiet's line first, then the schedule.
  std::istringstream first(r.out);
  std::string status;
  int stated = 0, lb = -1;
  first >> status >> stated >> lb;
  EXPECT_EQ(status, "interrupted") << r.describe();
  const auto s = schedule_line(r.out);
  ASSERT_NO_FATAL_FAILURE(expect_one_based_permutation(s, 20)) << r.describe();
  const int mk = makespan_of("ta021", s);
  EXPECT_GE(mk, 2297);
  EXPECT_EQ(stated, mk) << r.describe();
  EXPECT_GT(lb, 0) << r.describe();
  EXPECT_LE(lb, 2297) << r.describe();
  EXPECT_TRUE(contains(r.err, "summary")) << r.describe();
}

// Each field once: with the solver log on stderr (the default), its header and summary carry the
// instance, options, status, bounds, nodes and times, and stdout only --quiet's line, the
// schedule and what the summary lacks; --no-progress prints the whole report on stdout; --quiet
// the one line.
TEST(cli, each_field_once) {
  const auto r = run_pfsp({"solve", "ta001", "--backend", "cpu"});
  EXPECT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_EQ(r.out.rfind("optimal 1278 1278\nschedule ", 0), 0u) << r.describe();
  for (const char* twice : {"status", "lower bound", "nodes", "explored", "time ", "wall", "instance", "options"})
    EXPECT_FALSE(contains(r.out, twice)) << twice << '\n' << r.describe();
  for (const char* once : {"\nstatus          optimal", "\nmakespan        1278", "\nnodes "})
    EXPECT_TRUE(contains(r.err, once)) << once << '\n' << r.describe();
  ASSERT_NO_FATAL_FAILURE(expect_one_based_permutation(schedule_line(r.out), 20)) << r.describe();
  const auto whole = run_pfsp({"solve", "ta001", "--backend", "cpu", "--no-progress"});
  EXPECT_EQ(whole.err, "") << whole.describe();
  for (const char* field : {"instance", "status       optimal", "lower bound  1278", "nodes", "time", "schedule"})
    EXPECT_TRUE(contains(whole.out, field)) << field << '\n' << whole.describe();
  const auto quiet = run_pfsp({"solve", "ta001", "--backend", "cpu", "-q"});
  EXPECT_EQ(quiet.out, "optimal 1278 1278\n") << quiet.describe();
  EXPECT_EQ(quiet.err, "") << quiet.describe();
}

// A wide shop stopped by its time limit reports at least the root's two-machine bound over every
// machine pair (`pfsp info`'s root LB2): the search runs LB2 over m - 1 learned pairs only, and on
// random:100,60,1 its own bound after 3 s stays at LB1's 7707 where the all-pairs bound is 7831.
TEST(cli, a_wide_shop_reports_at_least_the_root_bound_over_every_pair) {
  const auto info = run_pfsp({"info", "random:100,60,1"});
  ASSERT_EQ(info.exit_code, 0) << info.describe();
  const auto at = info.out.find("root LB2");
  ASSERT_NE(at, std::string::npos) << info.describe();
  const int root_lb2 = std::stoi(info.out.substr(at + 8));
  const auto r = run_pfsp({"solve", "random:100,60,1", "--backend", "cpu", "--time-limit", "3", "-q"});
  ASSERT_EQ(r.exit_code, 3) << r.describe();
  std::istringstream words(r.out);
  std::string status;
  int makespan = 0, lower = 0;
  words >> status >> makespan >> lower;
  EXPECT_EQ(status, "time_limit") << r.describe();
  EXPECT_GE(lower, root_lb2) << r.describe();
  EXPECT_LE(lower, makespan) << r.describe();
}

}  // namespace
}  // namespace pfsp
