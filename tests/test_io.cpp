// Instance files: round trips through both formats, Taillard's original header, and the error
// message for every kind of bad input (origin, line number, what was expected).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <sstream>
#include <string>

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
  for (const expectation& x : {expectation{"ta999", "ta001 .. ta120"}, expectation{"ta121", "ta001 .. ta120"},
                               expectation{"ta000", "ta001 .. ta120"}, expectation{"random:5,3", "random:N,M,SEED"},
                               expectation{"random:5,3,1,7", "random:N,M,SEED"},
                               expectation{"random:0,3,1", "N must be"}, expectation{"random:5,0,1", "M in"},
                               expectation{"random:-5,3,1", "N must be"}, expectation{"random:5,3,0", "SEED"},
                               expectation{"random:5,3,2147483647", "SEED"}, expectation{"random:a,3,1", "integer"},
                               expectation{"random:", "random:"}, expectation{"nosuchfile.txt", "no such file"}}) {
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
}

}  // namespace
}  // namespace pfsp
