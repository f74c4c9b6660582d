// Fail early (issue 21, item 7): every output path of `pfsp solve` (--json, --gantt, --log,
// --checkpoint) is checked before the search starts, with exit code 2 and a message naming the
// option and the path. The runs below would search ta111 (500 x 20) for 3 s if the check came
// after the search; failing first, they print no header and no result on stdout.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <string>
#include <vector>

#include "app/output_paths.hpp"
#include "base/error.hpp"
#include "run_process.hpp"

namespace pfsp {
namespace {

using test::run_pfsp;

const std::vector<std::string> options = {"--json", "--gantt", "--log", "--checkpoint"};

bool contains(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

// `pfsp solve ta111 OPTION PATH` fails with exit code 2 before the search, naming OPTION, PATH and
// `reason`.
void expect_refused_before_search(const std::string& option, const std::string& path, const std::string& reason) {
  SCOPED_TRACE(option + " " + path);
  const auto r = run_pfsp({"solve", "ta111", "--time-limit", "3", "--backend", "cpu", option, path}, -1, 60);
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_TRUE(contains(r.err, option + " " + path + ":")) << r.describe();
  EXPECT_TRUE(contains(r.err, reason)) << r.describe();
  EXPECT_EQ(r.out, "") << "the search started before the output path was checked\n" << r.describe();
}

TEST(output_paths, missing_directory) {
  test::temp_dir dir;
  for (const auto& o : options) expect_refused_before_search(o, dir.file("no/such/dir/out"), "does not exist");
}

TEST(output_paths, parent_is_a_file) {
  test::temp_dir dir;
  std::ofstream(dir.file("plain")) << "x";
  for (const auto& o : options) expect_refused_before_search(o, dir.file("plain/out"), "is not a directory");
}

TEST(output_paths, path_is_a_directory) {
  test::temp_dir dir;
  for (const auto& o : options) {
    expect_refused_before_search(o, dir.path(), "is a directory");
    expect_refused_before_search(o, dir.path() + "/", "is a directory");
  }
}

TEST(output_paths, read_only_directory) {
  if (::geteuid() == 0) GTEST_SKIP() << "root writes into a read-only directory: run as a user to check this case";
  test::temp_dir dir;
  const std::string ro = dir.file("ro");
  ASSERT_EQ(::mkdir(ro.c_str(), 0555), 0);
  for (const auto& o : options) expect_refused_before_search(o, ro + "/out", "is not writable");
  ::chmod(ro.c_str(), 0755);  // so that temp_dir can remove it
}

TEST(output_paths, read_only_log_file) {
  if (::geteuid() == 0) GTEST_SKIP() << "root writes into a read-only file: run as a user to check this case";
  test::temp_dir dir;
  const std::string log = dir.file("log.txt");
  std::ofstream(log) << "old";
  ASSERT_EQ(::chmod(log.c_str(), 0444), 0);
  expect_refused_before_search("--log", log, "not writable");
  // A result file is replaced atomically (rename): its own permissions do not matter.
  const auto r = run_pfsp({"solve", "ta001", "-q", "--json", log});
  EXPECT_EQ(r.exit_code, 0) << r.describe();
}

// Paths that can be written pass: a bare name (the current directory), an existing file, a new
// file in an existing directory.
TEST(output_paths, writable_paths_pass) {
  test::temp_dir dir;
  std::ofstream(dir.file("exists")) << "old";
  for (const std::string& o : options) {
    EXPECT_NO_THROW(check_output_path(o, dir.file("new")));
    EXPECT_NO_THROW(check_output_path(o, dir.file("exists")));
  }
  EXPECT_NO_THROW(check_output_path("--json", "bare-name.json"));
  EXPECT_NO_THROW(check_output_path("--log", dir.file("exists"), output_write::truncate));
  EXPECT_THROW(check_output_path("--json", ""), input_error);

  const std::string json = dir.file("r.json"), gantt = dir.file("r.svg"), log = dir.file("r.log"),
                    ckpt = dir.file("r.ckpt");
  const auto r =
      run_pfsp({"solve", "ta001", "-q", "--json", json, "--gantt", gantt, "--log", log, "--checkpoint", ckpt});
  EXPECT_EQ(r.exit_code, 0) << r.describe();
  for (const auto& f : {json, gantt, log, ckpt}) EXPECT_FALSE(test::slurp(f).empty()) << f << " not written";
}

}  // namespace
}  // namespace pfsp
