// The fuzz corpus (tests/fuzz/, written by scripts/make_fuzz_corpus.py; issue 13) through the
// real pfsp binary, one test per file: malformed instance and checkpoint files and random:N,M,SEED
// specs must end with exit 2 and one message naming the file, the line and what was expected;
// valid ones (CRLF, tabs, a byte order mark, times at the 32-bit limit) must solve to the optimum.
// Never a crash, a hang or a sanitizer report (this test runs the asan preset's binary there).
#include <gtest/gtest.h>

#include <fstream>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "run_process.hpp"

namespace pfsp {
namespace {

const std::string corpus = std::string(PFSP_SOURCE_DIR) + "/tests/fuzz";

struct corpus_case {
  std::string kind;  // instance, checkpoint or spec
  std::string name;  // file name under corpus/kind, or the spec
  int exit_code = 0;
  std::string expect;  // exit 0: makespan; exit 2: line (0: whole file), - for a spec
  std::string needle;
};

// gtest prints a parameter by its bytes unless told otherwise (the ctest names would carry them).
void PrintTo(const corpus_case& c, std::ostream* os) { *os << c.kind << '/' << c.name; }

std::vector<corpus_case> read_cases() {
  std::vector<corpus_case> cases;
  std::ifstream in(corpus + "/expected.tsv");
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> f;
    std::istringstream s(line);
    for (std::string x; std::getline(s, x, '\t');) f.push_back(x);
    f.resize(5);
    cases.push_back({f[0], f[1], std::stoi(f[2]), f[3], f[4]});
  }
  return cases;
}

class fuzz_corpus : public testing::TestWithParam<corpus_case> {};

TEST_P(fuzz_corpus, ends_as_expected) {
  const corpus_case& c = GetParam();
  const std::string path = corpus + "/" + c.kind + "/" + c.name;
  std::vector<std::string> args{"solve"};
  if (c.kind == "checkpoint")
    args.insert(args.end(), {corpus + "/checkpoint_instance.txt", "--resume", path});
  else
    args.push_back(c.kind == "spec" ? c.name : path);
  args.insert(args.end(), {"--backend", "cpu", "-q", "--no-progress"});
  const auto r = test::run_pfsp(args, -1, 60);
  ASSERT_FALSE(r.timed_out) << r.describe();
  ASSERT_EQ(r.signal, 0) << r.describe();
  for (const char* report : {"runtime error:", "AddressSanitizer", "LeakSanitizer"})
    EXPECT_EQ(r.err.find(report), std::string::npos) << r.describe();
  ASSERT_EQ(r.exit_code, c.exit_code) << r.describe();
  if (c.exit_code == 0) {
    EXPECT_EQ(r.out, "optimal " + c.expect + " " + c.expect + "\n") << r.describe();
    return;
  }
  // One message on stderr: "pfsp: FILE:LINE: what was expected" (FILE: for the whole file).
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "one line expected\n" << r.describe();
  if (c.kind == "spec") {
    EXPECT_NE(r.err.find("'" + c.name + "'"), std::string::npos) << "message should name the spec\n" << r.describe();
  } else {
    const std::string prefix = "pfsp: " + path + (c.expect == "0" ? "" : ":" + c.expect) + ": ";
    EXPECT_EQ(r.err.rfind(prefix, 0), 0u) << "message should start with '" << prefix << "'\n" << r.describe();
  }
  EXPECT_NE(r.err.find(c.needle), std::string::npos) << "message lacks '" << c.needle << "'\n" << r.describe();
}

std::string case_name(const testing::TestParamInfo<corpus_case>& info) {
  std::string s = info.param.kind + "_" + info.param.name;
  for (char& ch : s)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return s + "_" + std::to_string(info.index);
}

INSTANTIATE_TEST_SUITE_P(corpus, fuzz_corpus, testing::ValuesIn(read_cases()), case_name);

// The corpus is there (expected.tsv read, every kind present): an empty list would pass silently.
TEST(fuzz_corpus_list, is_not_empty) {
  const auto cases = read_cases();
  int kinds[3] = {0, 0, 0};
  for (const auto& c : cases) ++kinds[c.kind == "instance" ? 0 : c.kind == "checkpoint" ? 1 : 2];
  EXPECT_GT(kinds[0], 20) << corpus << "/expected.tsv: run scripts/make_fuzz_corpus.py";
  EXPECT_GT(kinds[1], 10);
  EXPECT_GT(kinds[2], 5);
}

}  // namespace
}  // namespace pfsp
