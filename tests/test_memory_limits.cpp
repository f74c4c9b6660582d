// A host with little memory (issue 46, item 1): what the process may still take is the least of
// the host's available memory, its ulimit -v and its cgroup (base/host_memory.hpp), and pfsp runs
// to its time limit in 512 MiB of address space where the bound prunes nothing: the cpu-mt
// stacks (frames, search/node_pool.hpp) and the sequential best- and breadth-first pools (a
// budget of half that room, then depth-first dives).
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <string>
#include <vector>

#include "base/host_memory.hpp"
#include "run_process.hpp"

namespace pfsp {
namespace {

TEST(host_memory, the_least_room_decides) {
  EXPECT_EQ(room_under(std::nullopt, 5), std::nullopt);
  EXPECT_EQ(room_under(std::size_t{100}, 30), std::size_t{70});
  EXPECT_EQ(room_under(std::size_t{100}, 130), std::size_t{0});
  EXPECT_EQ(least_room(1000, std::nullopt, std::nullopt), std::size_t{1000});
  EXPECT_EQ(least_room(1000, std::size_t{300}, std::nullopt), std::size_t{300});
  EXPECT_EQ(least_room(1000, std::size_t{300}, std::size_t{200}), std::size_t{200});
  EXPECT_EQ(least_room(100, std::size_t{300}, std::size_t{200}), std::size_t{100});
}

TEST(host_memory, cgroup_limits_parse) {
  EXPECT_EQ(parse_cgroup_limit("max"), std::nullopt);                  // v2: no limit
  EXPECT_EQ(parse_cgroup_limit("9223372036854771712"), std::nullopt);  // v1: no limit
  EXPECT_EQ(parse_cgroup_limit(""), std::nullopt);                     // no such file
  EXPECT_EQ(parse_cgroup_limit("4294967296"), std::size_t{4294967296});
  EXPECT_EQ(parse_cgroup_limit("junk"), std::nullopt);
}

// The room follows this process's own address-space limit, set and restored here.
TEST(host_memory, the_room_follows_the_address_space_limit) {
  rlimit before{};
  ASSERT_EQ(getrlimit(RLIMIT_AS, &before), 0);
  const std::size_t free_room = process_memory_room();
  EXPECT_GT(free_room, std::size_t{0});
  rlimit tight = before;
  tight.rlim_cur = rlim_t{8} << 30;  // 8 GiB of address space (a test process uses far less)
  if (before.rlim_cur != RLIM_INFINITY && before.rlim_cur < tight.rlim_cur) GTEST_SKIP() << "already limited";
  ASSERT_EQ(setrlimit(RLIMIT_AS, &tight), 0);
  const std::size_t room = process_memory_room();
  ASSERT_EQ(setrlimit(RLIMIT_AS, &before), 0);
  EXPECT_LT(room, std::size_t{8} << 30);
  EXPECT_LE(room, free_room);
}

test::process_result solve_in_512_mib(const std::vector<std::string>& options) {
  std::vector<std::string> args{"-c",
                                "ulimit -v 524288 && exec \"$0\" \"$@\"",
                                PFSP_BINARY,
                                "solve",
                                "random:800,60,7",
                                "--time-limit",
                                "2",
                                "--no-progress"};
  args.insert(args.end(), options.begin(), options.end());
  return test::run_binary("/bin/sh", args);
}

// Before the stack kept frames, each cpu-mt thread's stack grew toward 512 MB on this shop and
// the run ended in std::bad_alloc (exit 1) or, with the engine off, an abort.
TEST(memory_limits, cpu_mt_runs_to_its_time_limit_in_512_mib) {
  for (const char* engine : {"-1", "0"}) {
    SCOPED_TRACE(std::string("--improver-threads ") + engine);
    const test::process_result r =
        solve_in_512_mib({"--backend", "cpu-mt", "--threads", "2", "--improver-threads", engine});
    EXPECT_EQ(r.exit_code, 3) << r.describe();
    EXPECT_EQ(r.signal, 0) << r.describe();
    EXPECT_NE(r.out.find("time_limit"), std::string::npos) << r.describe();
  }
}

// Before the pool's budget followed the room, best- and breadth-first grew their pools toward
// the default 2 GiB and ended out of memory (exit code 5).
TEST(memory_limits, best_and_breadth_first_run_to_their_time_limit_in_512_mib) {
  for (const char* sel : {"best-first", "breadth-first"}) {
    SCOPED_TRACE(sel);
    const test::process_result r = solve_in_512_mib({"--backend", "cpu", "--selection", sel});
    EXPECT_EQ(r.exit_code, 3) << r.describe();
    EXPECT_NE(r.out.find("time_limit"), std::string::npos) << r.describe();
  }
}

}  // namespace
}  // namespace pfsp
