// Whole-run checkpoints and lost ranks of pfsp-mpi under mpiexec (issue 22, items 1 and 2): with
// --ub at the optimum, runs stopped at random points (time limits, SIGTERM to mpirun or to one
// worker, kill -9 of a worker) and resumed on 1 to 4 ranks, or by pfsp solve, branch and bound
// exactly what one uninterrupted sequential run does. The seed of the random points is printed.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <random>
#include <regex>
#include <thread>

#include "run_process.hpp"

namespace pfsp::test {
namespace {

void mpi_environment() {
  ::setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
  ::setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
  ::setenv("OMPI_MCA_btl_vader_single_copy_mechanism", "none", 1);
  ::setenv("OMPI_MCA_rmaps_base_oversubscribe", "1", 1);
}

std::vector<std::string> mpiexec_args(int ranks, const std::vector<std::string>& launcher,
                                      const std::vector<std::string>& args) {
  std::vector<std::string> all = launcher;
  all.insert(all.end(), {"-n", std::to_string(ranks), PFSP_MPI_BINARY});
  all.insert(all.end(), args.begin(), args.end());
  return all;
}

process_result run_ranks(int ranks, const std::vector<std::string>& args) {
  mpi_environment();
  return run_binary(PFSP_MPIEXEC, mpiexec_args(ranks, {}, args), -1, 240);
}

std::uint64_t field(const std::string& out, const std::string& what) {
  std::smatch m;
  if (!std::regex_search(out, m, std::regex("([0-9]+) " + what))) return 0;
  return std::stoull(m[1]);
}

struct counts {
  std::uint64_t branched = 0, bounds = 0;
  bool operator==(const counts&) const = default;
};
counts counts_of(const process_result& r) { return {field(r.out, "branched"), field(r.out, "bounds,")}; }

// The tree of `instance` with --ub at its optimum, branched by pfsp solve in one process.
counts sequential(const std::vector<std::string>& tree) {
  // --memo 0: pfsp-mpi's chunk searches use the swap rule, not the memo (on in pfsp solve up to 50x10).
  std::vector<std::string> args{"solve", "--backend", "cpu", "--memo", "0", "--no-progress", "--heuristic", "none"};
  args.insert(args.end(), tree.begin(), tree.end());
  const process_result r = run_binary(PFSP_BINARY, args);
  EXPECT_EQ(r.exit_code, 0) << r.describe();
  return counts_of(r);
}

// ta020 (20x10): 268,815 nodes branched, about 0.3 s on one core.
const std::vector<std::string> kSmall{"ta020", "--bound", "lb1", "--branching", "min-branch", "--ub", "1591"};
// ta013 with forward branching: 4 M nodes, about 4 s on one core: long enough to signal mid-run.
const std::vector<std::string> kLong{"ta013", "--bound", "lb1", "--branching", "forward", "--ub", "1496"};

std::vector<std::string> with(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// Resumes `ck` on `ranks` ranks until the proof ends (at most 40 runs); returns the last run.
process_result resume_to_the_end(const std::string& ck, int ranks) {
  process_result r;
  for (int i = 0; i < 40; ++i) {
    r = run_ranks(ranks, {"ta020", "--backend", "cpu", "--resume", ck, "--checkpoint", ck});
    if (r.exit_code != 3) break;
  }
  return r;
}

TEST(mpi_checkpoint, runs_stopped_at_random_times_and_resumed_on_1_to_4_ranks_branch_the_sequential_tree) {
  const counts seq = sequential(kSmall);
  ASSERT_GT(seq.branched, 100000u);
  const unsigned seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  temp_dir dir;
  for (int round = 0; round < 3; ++round) {
    const std::string ck = dir.file("run" + std::to_string(round) + ".ck");
    std::uniform_int_distribution<int> ranks(1, 4);
    std::uniform_real_distribution<double> seconds(0.005, 0.05);
    process_result r;
    int runs = 0;
    for (int run = 0; run < 40; ++run, ++runs) {
      char limit[32];
      std::snprintf(limit, sizeof limit, "%.3f", seconds(rng) * (1 + run));
      std::vector<std::string> args =
          run == 0 ? with(kSmall, {"--heuristic", "none"}) : std::vector<std::string>{"ta020", "--resume", ck};
      args = with(args, {"--backend", "cpu", "--checkpoint", ck, "--time-limit", limit, "--frontier-per-worker", "8",
                         "--chunk-nodes", "2", "--split-after", "0.02"});
      const int k = ranks(rng);
      SCOPED_TRACE("round " + std::to_string(round) + ", run " + std::to_string(run) + ", " + std::to_string(k) +
                   " ranks, time limit " + limit);
      r = run_ranks(k, args);
      ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 3) << r.describe();
      ASSERT_TRUE(std::filesystem::exists(ck)) << r.describe();
      if (r.exit_code == 0) break;
    }
    ASSERT_EQ(r.exit_code, 0) << r.describe();
    EXPECT_GE(runs, 1) << "the first run was not interrupted: the test checks nothing";
    EXPECT_NE(r.out.find("proven_bound"), std::string::npos) << r.describe();
    EXPECT_EQ(counts_of(r), seq) << r.describe();
    std::printf("round %d: %d interrupted runs, then the end\n", round, runs);
  }
}

TEST(mpi_checkpoint, pfsp_solve_resumes_a_pfsp_mpi_checkpoint_and_back) {
  const counts seq = sequential(kSmall);
  temp_dir dir;
  const std::string ck = dir.file("run.ck");
  const process_result first = run_ranks(
      3, with(kSmall, {"--heuristic", "none", "--backend", "cpu", "--checkpoint", ck, "--time-limit", "0.05"}));
  ASSERT_EQ(first.exit_code, 3) << first.describe();
  const process_result second =
      run_binary(PFSP_BINARY, {"solve", "ta020", "--resume", ck, "--checkpoint", ck, "--backend", "cpu-mt", "--threads",
                               "2", "--memo", "0", "--time-limit", "0.05", "--no-progress"});
  ASSERT_TRUE(second.exit_code == 0 || second.exit_code == 3) << second.describe();
  const process_result last = resume_to_the_end(ck, 2);
  ASSERT_EQ(last.exit_code, 0) << last.describe();
  EXPECT_EQ(counts_of(last), seq) << first.describe() << second.describe() << last.describe();
}

// A running mpirun: `signal_at` is called once after `delay` seconds with mpirun's pid.
process_result run_and_signal(const std::vector<std::string>& argv, double delay,
                              const std::function<void(pid_t)>& signal_at) {
  mpi_environment();
  temp_dir dir;
  const std::string out = dir.file("out"), err = dir.file("err");
  std::string cmd = std::string("'") + PFSP_MPIEXEC + "' ";
  for (const std::string& a : argv) cmd += "'" + a + "' ";
  const pid_t pid = ::fork();
  if (pid < 0) return process_result{};
  if (pid == 0) {
    ::execl("/bin/sh", "sh", "-c", ("exec " + cmd + ">'" + out + "' 2>'" + err + "' </dev/null").c_str(), nullptr);
    ::_exit(127);
  }
  std::this_thread::sleep_for(std::chrono::duration<double>(delay));
  signal_at(pid);
  int status = 0;
  const auto start = std::chrono::steady_clock::now();
  while (::waitpid(pid, &status, WNOHANG) != pid) {
    if (std::chrono::steady_clock::now() - start > std::chrono::seconds(120)) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  process_result r;
  r.command = cmd;
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

// The pid of mpirun's child running rank `rank` (its environment says OMPI_COMM_WORLD_RANK), or
// -1; waits up to 10 s for it to start.
pid_t find_rank_pid(pid_t mpirun, int rank) {
  for (const auto& e : std::filesystem::directory_iterator("/proc")) {
    const std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    const std::string stat = slurp(e.path().string() + "/stat");
    const auto close = stat.rfind(')');
    if (close == std::string::npos) continue;
    int ppid = 0;
    if (std::sscanf(stat.c_str() + close + 2, "%*c %d", &ppid) != 1 || ppid != mpirun) continue;
    const std::string env = slurp(e.path().string() + "/environ");
    const std::string key = "OMPI_COMM_WORLD_RANK=" + std::to_string(rank);
    if (env.find(key + std::string(1, '\0')) != std::string::npos) return std::stoi(name);
  }
  return -1;
}

// Sends `sig` to rank `rank` of the job under `mpirun`; a rank not found fails the test (never
// kill(-1, ...)).
void signal_rank(pid_t mpirun, int rank, int sig) {
  pid_t pid = -1;
  for (int i = 0; i < 100 && pid <= 0; ++i) {
    pid = find_rank_pid(mpirun, rank);
    if (pid <= 0) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_GT(pid, 1) << "rank " << rank << " of mpirun " << mpirun << " not found";
  ::kill(pid, sig);
}

// Long runs signalled after about a second, then resumed to the end on 2 ranks.
void stop_and_resume(const std::string& what, const std::vector<std::string>& launcher, int expect_first,
                     const std::function<void(pid_t)>& signal_at) {
  SCOPED_TRACE(what);
  const counts seq = sequential(kLong);
  temp_dir dir;
  const std::string ck = dir.file("run.ck");
  const std::vector<std::string> args =
      with(kLong, {"--heuristic", "none", "--backend", "cpu", "--checkpoint", ck, "--checkpoint-interval", "0.5",
                   "--frontier-per-worker", "4", "--chunk-nodes", "1", "--worker-timeout", "2"});
  const process_result first = run_and_signal(mpiexec_args(3, launcher, args), 1.2, signal_at);
  if (expect_first >= 0) {
    EXPECT_EQ(first.exit_code, expect_first) << first.describe();
  }
  if (first.exit_code == 0) {
    EXPECT_EQ(counts_of(first), seq) << first.describe();
    return;
  }
  ASSERT_TRUE(std::filesystem::exists(ck)) << first.describe();
  process_result r;
  for (int i = 0; i < 5 && r.exit_code != 0; ++i)
    r = run_ranks(2, {"ta013", "--backend", "cpu", "--resume", ck, "--checkpoint", ck});
  ASSERT_EQ(r.exit_code, 0) << first.describe() << r.describe();
  EXPECT_EQ(counts_of(r), seq) << first.describe() << r.describe();
}

TEST(mpi_checkpoint, sigterm_to_mpirun_saves_the_run_and_a_resume_finishes_it) {
  // mpirun forwards SIGTERM to every rank about a second later, and kills them a second after.
  stop_and_resume("SIGTERM to mpirun", {}, -1, [](pid_t mpirun) { ::kill(mpirun, SIGTERM); });
}

TEST(mpi_checkpoint, sigterm_to_one_worker_stops_the_run_with_a_checkpoint) {
  stop_and_resume("SIGTERM to rank 2", {}, 130, [](pid_t mpirun) { signal_rank(mpirun, 2, SIGTERM); });
}

TEST(mpi_checkpoint, kill_9_of_a_worker_under_plain_mpirun_ends_with_a_checkpoint_that_resumes) {
  // Open MPI 4.1 ends the job (SIGTERM to the other ranks, then SIGKILL): rank 0 saves at once.
  stop_and_resume("kill -9 of rank 1, mpirun", {}, -1, [](pid_t mpirun) { signal_rank(mpirun, 1, SIGKILL); });
}

TEST(mpi_checkpoint, kill_9_of_a_worker_under_enable_recovery_and_the_run_goes_on) {
  // mpirun --enable-recovery lets the other ranks live: rank 0 gives the lost chunk to rank 2.
  stop_and_resume("kill -9 of rank 1, --enable-recovery", {"--enable-recovery"}, 0,
                  [](pid_t mpirun) { signal_rank(mpirun, 1, SIGKILL); });
}

TEST(mpi_checkpoint, a_lost_workers_progress_is_kept_and_the_resume_branches_only_the_rest) {
  // One worker holds the whole tree as one chunk (a frontier of the root alone) and reports its
  // progress every 0.3 s; kill -9 of it after 0.8 s (the whole tree takes 1.7 s on one core of
  // the 2-core machine: killed at 2 s, the run had ended first; --enable-recovery: rank 0 lives on and drops
  // it after 2 s of silence). What it branched before its last report is kept (counted, its open
  // nodes back in the frontier), not redone: the first run counts it, and the resume branches
  // exactly the rest. With the chunk saved as sent, the first run would count the root only.
  const counts seq = sequential(kLong);
  temp_dir dir;
  const std::string ck = dir.file("run.ck");
  const std::vector<std::string> args =
      with(kLong, {"--heuristic", "none", "--backend", "cpu", "--checkpoint", ck, "--checkpoint-interval", "0.3",
                   "--frontier-per-worker", "1", "--chunk-nodes", "1", "--worker-timeout", "2"});
  const process_result first = run_and_signal(mpiexec_args(2, {"--enable-recovery"}, args), 0.8,
                                              [](pid_t mpirun) { signal_rank(mpirun, 1, SIGKILL); });
  // (mpirun --enable-recovery exits 0 here whatever rank 0 returns: the status line says it.)
  ASSERT_NE(first.out.find("status       interrupted"), std::string::npos) << first.describe();
  ASSERT_TRUE(std::filesystem::exists(ck)) << first.describe();
  EXPECT_GT(counts_of(first).branched, 50000u) << first.describe();
  EXPECT_LT(counts_of(first).branched, seq.branched) << first.describe();
  const process_result r = run_ranks(2, {"ta013", "--backend", "cpu", "--resume", ck});
  ASSERT_EQ(r.exit_code, 0) << first.describe() << r.describe();
  EXPECT_EQ(counts_of(r), seq) << first.describe() << r.describe();
}

}  // namespace
}  // namespace pfsp::test
