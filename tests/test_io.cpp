// Instance files: round trips through both formats, Taillard's original header, and the error
// message for every kind of bad input (origin, line number, what was expected).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <sstream>
#include <streambuf>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "problem/io.hpp"
#include "problem/taillard.hpp"
#include "support.hpp"

namespace pfsp {
namespace {

const char* format_name(file_format f) { return f == file_format::taillard ? "taillard" : "job_rows"; }

instance parse_text(const std::string& text, const std::string& origin = "mem.txt") {
  std::istringstream in(text);
  return parse_instance(in, origin);
}

void expect_same(const instance& a, const instance& b) {
  EXPECT_EQ(a.n, b.n);
  EXPECT_EQ(a.m, b.m);
  EXPECT_EQ(a.p, b.p);
}

void round_trip(const instance& inst, const std::string& what) {
  for (file_format f : {file_format::taillard, file_format::job_rows}) {
    SCOPED_TRACE(what + ", format " + format_name(f));
    std::ostringstream out;
    write_instance(out, inst, f);
    instance back;
    try {
      back = parse_text(out.str(), "roundtrip.txt");
    } catch (const std::exception& e) {
      ADD_FAILURE() << "parse failed: " << e.what() << "\nfile:\n" << out.str();
      continue;
    }
    expect_same(back, inst);
    if (back.p != inst.p) ADD_FAILURE() << "file:\n" << out.str();
  }
}

// The message of the input_error thrown for `text`, or a test failure if none (or another type) is thrown.
std::string error_of(const std::string& text, const std::string& origin) {
  try {
    parse_text(text, origin);
  } catch (const input_error& e) {
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "expected pfsp::input_error, got another exception: " << e.what();
    return {};
  }
  ADD_FAILURE() << "no error for:\n" << text;
  return {};
}

// Checks that parsing `text` fails with "origin:line: ..." and that the message contains each of
// `expected` (what was expected, what was found).
void expect_error(const std::string& text, int line, std::initializer_list<const char*> expected) {
  SCOPED_TRACE("input:\n" + text);
  const std::string origin = "bad_input.txt";
  const std::string msg = error_of(text, origin);
  if (msg.empty()) return;
  const std::string prefix = origin + ":" + std::to_string(line) + ": ";
  EXPECT_EQ(msg.rfind(prefix, 0), 0u) << "message should start with '" << prefix << "': " << msg;
  for (const char* s : expected) EXPECT_NE(msg.find(s), std::string::npos) << "message lacks '" << s << "': " << msg;
}

// Whole-file errors (no line to name): "origin: ...".
void expect_file_error(const std::string& text, std::initializer_list<const char*> expected) {
  SCOPED_TRACE("input:\n" + text);
  const std::string origin = "bad_input.txt";
  const std::string msg = error_of(text, origin);
  if (msg.empty()) return;
  EXPECT_EQ(msg.rfind(origin + ": ", 0), 0u) << msg;
  for (const char* s : expected) EXPECT_NE(msg.find(s), std::string::npos) << "message lacks '" << s << "': " << msg;
}

// ---------------------------------------------------------------------------------------------
// Round trips

TEST(io_round_trip, random_instances_of_many_shapes) {
  const int shapes[][2] = {{1, 1}, {1, 2}, {1, 5},  {2, 1}, {3, 1}, {7, 1},   {4, 2},  {6, 3},  {10, 5},
                           {2, 2}, {5, 5}, {20, 5}, {8, 2}, {3, 7}, {40, 20}, {50, 3}, {12, 6}, {100, 1}};
  std::uint32_t seed = 100;
  for (const auto& s : shapes) {
    for (int rep = 0; rep < 3; ++rep) {
      ++seed;
      const int lo = rep == 2 ? 1 : 1, hi = rep == 0 ? 99 : (rep == 1 ? 3 : 1000000);
      const instance inst = test::random_instance(s[0], s[1], seed, lo, hi);
      round_trip(inst, "random_instance(" + std::to_string(s[0]) + ", " + std::to_string(s[1]) + ", seed " +
                           std::to_string(seed) + ", times 1.." + std::to_string(hi) + ")");
    }
    const instance t = generate_taillard(s[0], s[1], seed);
    round_trip(t, "generate_taillard(" + std::to_string(s[0]) + ", " + std::to_string(s[1]) + ", " +
                      std::to_string(seed) + ")");
  }
}

// n == 2m: a Taillard row has as many numbers as a job row (m "machine time" pairs). Instances
// whose first machine row reads like machine indices (1, x, 2, y, ...) must still round-trip.
TEST(io_round_trip, n_equals_2m_first_row_looks_like_machine_indices) {
  for (int m : {1, 2, 3, 5}) {
    const int n = 2 * m;
    for (std::uint32_t seed = 1; seed <= 4; ++seed) {
      instance inst = test::random_instance(n, m, seed * 7919, 1, 9);
      for (int k = 0; k < m; ++k) inst.p[static_cast<std::size_t>(2 * k)] = k + 1;  // row 1 = 1 x 2 y 3 z ...
      round_trip(inst, "n=2m, first row '1 x 2 y ..', n=" + std::to_string(n) + " m=" + std::to_string(m) + " seed " +
                           std::to_string(seed * 7919));
    }
  }
}

TEST(io_round_trip, job_rows_with_one_based_machines) {
  const instance want = test::random_instance(3, 2, 5, 1, 99);
  std::ostringstream s;
  s << "3 2\n";
  for (int j = 0; j < 3; ++j) s << "1 " << want.time(0, j) << " 2 " << want.time(1, j) << "\n";
  expect_same(parse_text(s.str()), want);
}

TEST(instance_layout, job_major_times_transposes_the_machine_major_table) {
  const instance inst = test::random_instance(7, 3, 11, 1, 99);
  const std::vector<int> p = job_major_times(inst);
  ASSERT_EQ(p.size(), static_cast<std::size_t>(7 * 3));
  for (int j = 0; j < 7; ++j)
    for (int k = 0; k < 3; ++k) EXPECT_EQ(p[static_cast<std::size_t>(j) * 3 + k], inst.time(k, j)) << j << " " << k;
}

TEST(io_round_trip, taillard_original_header_format) {
  const instance ta001 = taillard_instance("ta001");
  std::ostringstream s;
  s << "number of jobs, number of machines, initial seed, upper bound and lower bound :\n"
    << "          20           5   873654221        1278        1232\n"
    << "processing times :\n";
  for (int k = 0; k < 5; ++k) {
    for (int j = 0; j < 20; ++j) s << ' ' << (ta001.time(k, j) < 10 ? " " : "") << ta001.time(k, j);
    s << '\n';
  }
  const instance got = parse_text(s.str(), "tai20_5_0.txt");
  expect_same(got, ta001);
  EXPECT_EQ(got.name, "tai20_5_0");
}

TEST(io_round_trip, files_and_load_instance) {
  const instance inst = generate_taillard(9, 4, 4242);
  const auto dir = std::filesystem::temp_directory_path() / ("pfsp_test_io_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  for (file_format f : {file_format::taillard, file_format::job_rows}) {
    SCOPED_TRACE(format_name(f));
    const auto path = dir / (std::string("inst_") + format_name(f) + ".txt");
    {
      std::ofstream out(path);
      write_instance(out, inst, f);
    }
    expect_same(read_instance_file(path.string()), inst);
    expect_same(load_instance(path.string()), inst);
    EXPECT_EQ(load_instance(path.string()).name, std::string("inst_") + format_name(f));
  }
  // A directory is not an instance file.
  try {
    read_instance_file(dir.string());
    ADD_FAILURE() << "no error for a directory";
  } catch (const input_error& e) {
    EXPECT_NE(std::string(e.what()).find(dir.string()), std::string::npos) << e.what();
  }
  std::filesystem::remove_all(dir);
}

TEST(io_round_trip, load_instance_names) {
  const instance a = load_instance("ta001");
  expect_same(a, taillard_instance("ta001"));
  ASSERT_TRUE(a.known.has_value());
  EXPECT_EQ(a.known->ub, 1278);
  expect_same(load_instance("random:5,3,1"), generate_taillard(5, 3, 1));
  expect_same(load_instance("random:12,4,873654221"), generate_taillard(12, 4, 873654221U));
}

// Line ends, tabs and a byte order mark (README, "Input files").
TEST(io_round_trip, crlf_tabs_and_bom_are_accepted) {
  const std::string lf = "number of jobs, number of machines\n3 2\nprocessing times :\n1 2 3\n4 5 6\n";
  const instance want = parse_text(lf);
  std::string crlf;
  for (char c : lf) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
  expect_same(parse_text(crlf), want);
  expect_same(parse_text("\xEF\xBB\xBF" + crlf), want);
  expect_same(parse_text("\xEF\xBB\xBF" + lf), want);
  expect_same(parse_text("3\t2\n\t1\t2  3\t\n4 5\t6"), want);  // tabs, no newline at the end
  expect_same(parse_text("3 2\r\n1 2 3\r\n4 5 6\r"), want);    // CR at the very end
  expect_same(parse_text("3 2\n0 1 1 4\n0 2 1 5\n0 3 1 6\n"), want);
  expect_same(parse_text("3 2\r\n0 1 1 4\r\n0 2 1 5\r\n0 3 1 6\r\n"), want);
}

TEST(io_errors, lone_carriage_returns) {
  expect_error("3 2\r1 2 3\r4 5 6\r", 1, {"carriage return without a line feed", "LF or CRLF"});
  expect_error("3 2\n1 2 3\n4 5\r6\n", 3, {"carriage return without a line feed"});
  expect_error("3 2\r\n1 2 3\r\r\n4 5 6\r\n", 2, {"carriage return without a line feed"});
}

TEST(io_errors, binary_bytes_are_shown_escaped) {
  const std::string msg = error_of(std::string("3 2\n1 \x01\xff\0 3\n4 5 6\n", 17), "bin.txt");
  EXPECT_EQ(msg.rfind("bin.txt:2: ", 0), 0u) << msg;
  EXPECT_NE(msg.find("\\x01\\xff\\x00"), std::string::npos) << msg;
  // A BOM anywhere but at the start is no whitespace.
  expect_error(
      "3 2\n\xEF\xBB\xBF"
      "1 2 3\n4 5 6\n",
      2, {"expected an integer", "\\xef\\xbb\\xbf1"});
}

// Limits (instance.hpp): sizes refused on the sizes line before the times are allocated, and
// times such that every makespan fits 32 bits.
TEST(io_errors, size_and_time_limits) {
  expect_error("65536 2\n", 1, {"number of jobs", "1..65535", "65536"});
  expect_error("3 1001\n", 1, {"number of machines", "1..1000", "1001"});
  expect_error("99999999999999999999 3\n", 1, {"number of jobs", "out of range"});
  expect_error("3 -99999999999999999999\n", 1, {"number of machines", "out of range"});
  // LB2's tables: n m (m - 1) / 2 entries; 1000 x 1000 would be 499500000.
  expect_error("# huge\n1000 1000\n1 2 3\n", 2, {"too large", "499500000", "33554432"});
  expect_error("65535 20\n", 1, {"truncated"});  // 12.4 M entries: allowed, and truncated
  // (n + m - 1) x max p <= INT32_MAX: 3000 + 2 - 1 = 3001 cells, times at most 715589.
  std::string row1, row2;
  for (int j = 0; j < 3000; ++j) {
    row1 += " 715589";
    row2 += j == 2999 ? " 715590" : " 1";
  }
  EXPECT_NO_THROW(parse_text("3000 2\n" + row1 + "\n" + row1 + "\n"));
  expect_error("3000 2\n" + row1 + "\n" + row2 + "\n", 3, {"too large", "32 bits", "at most 715589"});
  expect_error("3 2\n1 2 3\n4 5 2147483648\n", 3, {"too large", "at most 1000000"});
  EXPECT_EQ(time_limit(3, 2), max_time);
  EXPECT_EQ(time_limit(65535, 20), 2147483647 / 65554);
}

// Endless "1 1 1 ..." (like /dev/zero): the reader stops at max_input_bytes.
class endless_ones : public std::streambuf {
 public:
  endless_ones() : buf_(1 << 16) {
    for (std::size_t i = 0; i < buf_.size(); ++i) buf_[i] = i % 2 ? ' ' : '1';
  }

 protected:
  int_type underflow() override {
    setg(buf_.data(), buf_.data(), buf_.data() + buf_.size());
    return traits_type::to_int_type(buf_[0]);
  }

 private:
  std::vector<char> buf_;
};

// Huge inputs are refused without memory beyond the input itself (a token is kept only where a
// row needs it; rows beyond the sizes' are not read).
TEST(io_errors, huge_rows_and_inputs) {
  std::string many(2'000'000, ' ');
  for (std::size_t i = 0; i < many.size(); i += 2) many[i] = '1';
  expect_error("3 2\n" + many + "\n4 5 6\n", 2, {"expected 3 processing times for machine 1", "got 1000000"});
  std::string rows = "2 2\n";
  for (int i = 0; i < 200000; ++i) rows += "1 2\n";
  expect_error(rows, 4, {"unexpected data after the 2 machine rows"});
  expect_error("2 2\nheader " + many + "\n", 2, {"expected a row of integer processing times", "'header'"});
  endless_ones ones;
  std::istream in(&ones);
  try {
    parse_instance(in, "endless");
    ADD_FAILURE() << "no error";
  } catch (const input_error& e) {
    EXPECT_NE(std::string(e.what()).find("endless: larger than 256 MiB"), std::string::npos) << e.what();
  }
}

// ---------------------------------------------------------------------------------------------
// Bad input

TEST(io_errors, missing_file) {
  const std::string path = "/nonexistent_dir_pfsp/no_such_instance.txt";
  try {
    read_instance_file(path);
    ADD_FAILURE() << "no error";
  } catch (const input_error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find(path), std::string::npos) << msg;
    EXPECT_NE(msg.find("cannot open"), std::string::npos) << msg;
  }
  try {
    load_instance("nosuchfile.txt");
    ADD_FAILURE() << "no error";
  } catch (const input_error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("nosuchfile.txt"), std::string::npos) << msg;
    EXPECT_NE(msg.find("no such file"), std::string::npos) << msg;
  }
}

TEST(io_errors, empty_file) {
  expect_file_error("", {"empty", "'n m'"});
  expect_file_error("\n\n   \n\t\n", {"empty", "'n m'"});
  expect_file_error("number of jobs, number of machines\n", {"empty", "'n m'"});
}

TEST(io_errors, sizes_line) {
  expect_error("5\n1 2 3 4 5\n", 1, {"expected 'n m'"});
  expect_error("0 3\n", 1, {"number of jobs", "got 0"});
  expect_error("-2 3\n1 2\n", 1, {"number of jobs", "got -2"});
  expect_error("3 0\n", 1, {"number of machines", "got 0"});
  expect_error("3 -1\n1 2 3\n", 1, {"number of machines", "got -1"});
  expect_error("3.5 2\n1 2 3\n4 5 6\n", 1, {"expected an integer number of jobs", "'3.5'"});
  expect_error("3 2x\n1 2 3\n4 5 6\n", 1, {"expected an integer number of machines", "'2x'"});
  expect_error("header\n\n70000 2\n", 3, {"number of jobs", "1..65535"});
}

TEST(io_errors, truncated_matrix) {
  expect_error("3 2\n", 1, {"truncated", "expected"});
  expect_error("3 2\n1 2 3\n", 2, {"truncated", "expected 2 rows of 3"});
  expect_error("4 3\n1 2 3 4\n5 6 7 8\n", 3, {"truncated", "expected 3 rows of 4", "found 2"});
  // Job rows: 3 jobs of 2 "machine time" pairs, only 2 rows.
  expect_error("3 2\n0 5 1 6\n0 7 1 8\n", 3, {"truncated", "expected 3 job rows", "found 2"});
}

TEST(io_errors, wrong_count_on_a_row) {
  expect_error("3 2\n1 2 3\n4 5\n", 3, {"expected 3 processing times for machine 2", "got 2"});
  expect_error("3 2\n1 2 3\n4 5 6 7\n", 3, {"expected 3 processing times for machine 2", "got 4"});
  expect_error("3 2\n1 2\n4 5 6\n", 2, {"expected 3 processing times for machine 1", "got 2"});
  expect_error("3 3\n1 2 3 4 5\n4 5 6\n7 8 9\n", 2, {"expected 3 processing times for machine 1", "got 5"});
  // Job rows: a row with one pair too few / too many.
  expect_error("3 2\n0 5 1 6\n0 7\n0 1 1 2\n", 3, {"expected 2 'machine time' pairs", "job 2", "got 2"});
  expect_error("3 2\n0 5 1 6\n0 7 1 8\n0 1 1 2 2 3\n", 4, {"expected 2 'machine time' pairs", "job 3", "got 6"});
}

TEST(io_errors, bad_processing_times) {
  expect_error("3 2\n1 0 3\n4 5 6\n", 2, {"positive", "got 0"});
  expect_error("3 2\n1 2 3\n4 -5 6\n", 3, {"positive", "got -5"});
  expect_error("3 2\n1 12.5 3\n4 5 6\n", 2, {"expected an integer processing time", "'12.5'"});
  expect_error("3 2\n1 abc 3\n4 5 6\n", 2, {"expected an integer processing time", "'abc'"});
  // n == 2m: a bad first time must not be reported as a bad machine index.
  expect_error("4 2\n12.5 2 3 4\n5 6 7 8\n", 2, {"expected an integer processing time", "'12.5'"});
  // A word at the start of a matrix row is a damaged row, not a header line.
  expect_error("3 2\nabc 2 3\n4 5 6\n", 2, {"expected a row of integer processing times", "'abc'"});
  expect_error("4 2\n-1 2 3 4\n5 6 7 8\n", 2, {"positive", "got -1"});
  expect_error("4 2\n1.5 2 2 4\n5 6 7 8\n", 2, {"expected an integer processing time", "'1.5'"});
  expect_error("3 2\n1 2 3\n4 5 6e1\n", 3, {"expected an integer processing time", "'6e1'"});
  expect_error("3 2\n1 2 3\n4 5 99999999999999999999\n", 3, {"expected an integer processing time"});
  expect_error("3 2\n1 2 3\n4 5 1000001\n", 3, {"too large"});
  // A row of text inside the matrix.
  expect_error("3 3\n1 2 3\nabc 5 6\n7 8 9\n", 3, {"unexpected text", "abc"});
  // The same in job rows.
  expect_error("2 2\n0 5 1 0\n0 7 1 8\n", 2, {"positive", "got 0"});
  expect_error("2 2\n0 5 1 6\n0 7 1 -8\n", 3, {"positive", "got -8"});
  expect_error("2 2\n0 5 1 6\n0 7 1 8.5\n", 3, {"expected an integer processing time", "'8.5'"});
}

TEST(io_errors, job_rows_machine_order) {
  expect_error("3 2\n0 5 1 6\n1 7 0 8\n0 1 1 2\n", 3, {"expected machine 0 in position 1", "got 1"});
  expect_error("3 2\n1 5 2 6\n1 7 2 8\n1 1 3 2\n", 4, {"expected machine 2 in position 2", "got 3"});
  expect_error("3 2\n1 5 2 6\n0 7 1 8\n1 1 2 2\n", 3, {"expected machine 1 in position 1", "got 0"});
  expect_error("3 2\n0 5 1 6\nx 7 1 8\n0 1 1 2\n", 3, {"unexpected text"});
  expect_error("3 2\n0 5 1 6\n0 7 y 8\n0 1 1 2\n", 3, {"expected an integer machine index", "'y'"});
}

TEST(io_errors, trailing_data) {
  expect_error("2 2\n1 2\n3 4\n5 6\n", 4, {"unexpected data after the 2 machine rows"});
  expect_error("2 2\n1 2\n3 4\n\n\n5 6\n7 8\n", 6, {"unexpected data after the 2 machine rows"});
  expect_error("3 2\n0 5 1 6\n0 7 1 8\n0 1 1 2\n0 3 1 4\n", 5, {"unexpected data after the 3 job rows"});
  // A second instance in Taillard's multi-instance layout.
  expect_error("2 2\n1 2\n3 4\nnumber of jobs\n2 2\n1 1\n1 1\n", 4, {"unexpected"});
}

TEST(io_errors, load_instance_specs) {
  auto message_of = [](const std::string& spec) -> std::string {
    try {
      load_instance(spec);
    } catch (const input_error& e) {
      return e.what();
    } catch (const std::exception& e) {
      ADD_FAILURE() << spec << ": expected input_error, got: " << e.what();
      return {};
    }
    ADD_FAILURE() << spec << ": no error";
    return {};
  };
  struct expectation {
    const char* spec;
    const char* needle;
  };
  for (const expectation& x :
       {expectation{"ta999", "ta001 .. ta120"}, expectation{"ta121", "ta001 .. ta120"},
        expectation{"ta000", "ta001 .. ta120"}, expectation{"random:5,3", "random:N,M,SEED"},
        expectation{"random:5,3,1,7", "random:N,M,SEED"}, expectation{"random:0,3,1", "N must be"},
        expectation{"random:5,0,1", "M in"}, expectation{"random:-5,3,1", "N must be"},
        expectation{"random:5,3,0", "SEED"}, expectation{"random:5,3,2147483647", "SEED"},
        expectation{"random:a,3,1", "integer"}, expectation{"random:", "random:"},
        expectation{"nosuchfile.txt", "no such file"}, expectation{"random:5,3,1,", "integer"},
        expectation{"random:,,", "integer"}, expectation{"random:99999999999999999999,3,1", "out of range"},
        expectation{"random:5,1001,1", "M in 1..1000"}, expectation{"random:1000,1000,1", "too large"}}) {
    SCOPED_TRACE(x.spec);
    const std::string msg = message_of(x.spec);
    EXPECT_NE(msg.find(x.spec), std::string::npos) << "message should name the spec: " << msg;
    EXPECT_NE(msg.find(x.needle), std::string::npos) << "message lacks '" << x.needle << "': " << msg;
  }
}

TEST(io_errors, validate_rejects_inconsistent_instances) {
  instance inst = test::random_instance(3, 2, 1, 1, 9);
  EXPECT_NO_THROW(validate(inst, "x"));
  instance bad = inst;
  bad.p[4] = 0;
  EXPECT_THROW(validate(bad, "x"), input_error);
  bad = inst;
  bad.p.pop_back();
  EXPECT_THROW(validate(bad, "x"), input_error);
  bad = inst;
  bad.n = 0;
  EXPECT_THROW(validate(bad, "x"), input_error);
  bad = inst;
  bad.p[1] = max_time + 1;
  EXPECT_THROW(validate(bad, "x"), input_error);
}

}  // namespace
}  // namespace pfsp
