#include "problem/io.hpp"

#include <cctype>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <istream>
#include <ostream>
#include <sstream>
#include <vector>

#include "base/error.hpp"
#include "problem/taillard.hpp"

namespace pfsp {
namespace {

struct data_line {
  int number;                       // 1-based line number in the source
  std::vector<std::string> tokens;  // whitespace-separated tokens
};

bool is_text_line(const std::string& first_token) {
  return std::isalpha(static_cast<unsigned char>(first_token[0])) != 0 || first_token[0] == '#' ||
         first_token[0] == '+';
}

long long parse_int(const std::string& tok, const std::string& origin, int line, const char* what) {
  long long v = 0;
  const auto* b = tok.data();
  const auto* e = tok.data() + tok.size();
  auto [ptr, ec] = std::from_chars(b, e, v);
  if (ec != std::errc() || ptr != e)
    throw file_error(origin, line, std::string("expected an integer ") + what + ", got '" + tok + "'");
  return v;
}

int checked_time(const std::string& tok, const std::string& origin, int line) {
  const long long v = parse_int(tok, origin, line, "processing time");
  if (v <= 0) throw file_error(origin, line, "processing times must be positive integers, got " + tok);
  if (v > 1'000'000) throw file_error(origin, line, "processing time " + tok + " is too large (at most 1000000)");
  return static_cast<int>(v);
}

}  // namespace

instance parse_instance(std::istream& in, const std::string& origin) {
  // Split into lines; text lines (starting with a letter, '#' or '+') are headers and skipped
  // before the sizes line and between it and the matrix.
  std::vector<data_line> lines;
  std::string raw;
  int number = 0;
  bool any_data = false;
  while (std::getline(in, raw)) {
    ++number;
    std::istringstream ss(raw);
    data_line dl{number, {}};
    for (std::string t; ss >> t;) dl.tokens.push_back(t);
    if (dl.tokens.empty()) continue;
    if (is_text_line(dl.tokens[0])) {
      if (any_data && lines.size() > 1)
        throw file_error(origin, number, "unexpected text inside the processing-time matrix: '" + raw + "'");
      // After the sizes line, a header line ("processing times :") holds no number; a line that
      // does is a damaged matrix row, reported here rather than as a truncation further on.
      if (any_data) {
        for (std::size_t t = 1; t < dl.tokens.size(); ++t) {
          long long v = 0;
          const auto& tok = dl.tokens[t];
          if (std::from_chars(tok.data(), tok.data() + tok.size(), v).ptr == tok.data() + tok.size())
            throw file_error(origin, number, "expected a row of integer processing times, got '" + dl.tokens[0] + "'");
        }
      }
      continue;
    }
    any_data = true;
    lines.push_back(std::move(dl));
  }
  if (lines.empty()) throw file_error(origin, 0, "empty file: expected a line 'n m' followed by processing times");

  const auto& head = lines[0];
  if (head.tokens.size() < 2)
    throw file_error(origin, head.number, "expected 'n m' (number of jobs and machines), got one number");
  const long long n = parse_int(head.tokens[0], origin, head.number, "number of jobs");
  const long long m = parse_int(head.tokens[1], origin, head.number, "number of machines");
  if (n <= 0 || n > 65535)
    throw file_error(origin, head.number, "number of jobs must be in 1..65535, got " + head.tokens[0]);
  if (m <= 0 || m > 10000)
    throw file_error(origin, head.number, "number of machines must be in 1..10000, got " + head.tokens[1]);

  instance inst;
  inst.name = std::filesystem::path(origin).stem().string();
  inst.n = static_cast<int>(n);
  inst.m = static_cast<int>(m);
  inst.p.assign(static_cast<std::size_t>(n * m), 0);

  const std::size_t rows = lines.size() - 1;
  if (rows == 0)
    throw file_error(origin, head.number,
                     "truncated: expected " + std::to_string(m) + " rows of " + std::to_string(n) +
                         " times (Taillard) or " + std::to_string(n) + " rows of " + std::to_string(m) +
                         " machine-time pairs after this line");
  const auto& first = lines[1];
  // Job-per-row if the first row has 2m tokens whose even positions count machines in order.
  bool job_rows = false;
  if (first.tokens.size() == static_cast<std::size_t>(2 * m)) {
    // Detection only: a first token that is no integer is reported by the parser of the layout.
    auto whole_int = [](const std::string& t, long long& v) {
      auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
      return ec == std::errc() && p == t.data() + t.size();
    };
    long long base = -1;
    if (whole_int(first.tokens[0], base) && (base == 0 || base == 1)) {
      job_rows = true;
      for (long long k = 0; k < m && job_rows; ++k) {
        long long idx = 0;
        if (!whole_int(first.tokens[2 * k], idx) || idx != base + k) job_rows = false;
      }
    }
    // n == 2m: a Taillard machine row also has 2m numbers and may read "1 x 2 y ..."; then the
    // row count decides (m rows for Taillard, n != m rows for job rows).
    if (job_rows && n == 2 * m && rows == static_cast<std::size_t>(m)) job_rows = false;
  }
  if (job_rows) {
    const long long base = parse_int(first.tokens[0], origin, first.number, "machine index");
    if (rows < static_cast<std::size_t>(n))
      throw file_error(origin, lines.back().number,
                       "truncated: expected " + std::to_string(n) + " job rows, found " + std::to_string(rows));
    if (rows > static_cast<std::size_t>(n))
      throw file_error(origin, lines[n + 1].number,
                       "unexpected data after the " + std::to_string(n) + " job rows (one instance per file)");
    for (long long j = 0; j < n; ++j) {
      const auto& row = lines[j + 1];
      if (row.tokens.size() != static_cast<std::size_t>(2 * m))
        throw file_error(origin, row.number,
                         "expected " + std::to_string(m) + " 'machine time' pairs (" + std::to_string(2 * m) +
                             " integers) for job " + std::to_string(j + 1) + ", got " +
                             std::to_string(row.tokens.size()));
      for (long long k = 0; k < m; ++k) {
        const long long idx = parse_int(row.tokens[2 * k], origin, row.number, "machine index");
        if (idx != base + k)
          throw file_error(origin, row.number,
                           "expected machine " + std::to_string(base + k) + " in position " + std::to_string(k + 1) +
                               " (a flow shop visits machines in order), got " + row.tokens[2 * k]);
        inst.p[static_cast<std::size_t>(k * n + j)] = checked_time(row.tokens[2 * k + 1], origin, row.number);
      }
    }
  } else {
    if (rows < static_cast<std::size_t>(m))
      throw file_error(origin, lines.back().number,
                       "truncated: expected " + std::to_string(m) + " rows of " + std::to_string(n) +
                           " processing times (one per machine), found " + std::to_string(rows));
    if (rows > static_cast<std::size_t>(m))
      throw file_error(origin, lines[m + 1].number,
                       "unexpected data after the " + std::to_string(m) + " machine rows (one instance per file)");
    for (long long k = 0; k < m; ++k) {
      const auto& row = lines[k + 1];
      if (row.tokens.size() != static_cast<std::size_t>(n))
        throw file_error(origin, row.number,
                         "expected " + std::to_string(n) + " processing times for machine " + std::to_string(k + 1) +
                             ", got " + std::to_string(row.tokens.size()));
      for (long long j = 0; j < n; ++j)
        inst.p[static_cast<std::size_t>(k * n + j)] = checked_time(row.tokens[j], origin, row.number);
    }
  }
  validate(inst, origin);
  return inst;
}

instance read_instance_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw file_error(path, 0, "is a directory, expected an instance file");
  std::ifstream in(path);
  if (!in) throw file_error(path, 0, "cannot open file (and it is not an instance name like ta001)");
  return parse_instance(in, path);
}

void write_instance(std::ostream& out, const instance& inst, file_format format) {
  if (format == file_format::taillard) {
    out << "number of jobs, number of machines\n" << inst.n << ' ' << inst.m << "\nprocessing times :\n";
    for (int k = 0; k < inst.m; ++k) {
      for (int j = 0; j < inst.n; ++j) out << (j ? " " : "") << inst.time(k, j);
      out << '\n';
    }
  } else {
    out << inst.n << ' ' << inst.m << '\n';
    for (int j = 0; j < inst.n; ++j) {
      for (int k = 0; k < inst.m; ++k) out << (k ? " " : "") << k << ' ' << inst.time(k, j);
      out << '\n';
    }
  }
}

instance load_instance(const std::string& spec) {
  if (spec.rfind("random:", 0) == 0) {
    const std::string args = spec.substr(7);
    std::vector<long long> v;
    std::stringstream ss(args);
    for (std::string t; std::getline(ss, t, ',');) v.push_back(parse_int(t, "instance '" + spec + "'", 0, "value"));
    if (v.size() != 3) throw input_error("instance '" + spec + "': expected random:N,M,SEED");
    if (v[0] <= 0 || v[0] > 65535 || v[1] <= 0 || v[1] > 10000)
      throw input_error("instance '" + spec + "': N must be in 1..65535 and M in 1..10000");
    if (v[2] <= 0 || v[2] >= 2147483647LL) throw input_error("instance '" + spec + "': SEED must be in 1..2147483646");
    return generate_taillard(static_cast<int>(v[0]), static_cast<int>(v[1]), static_cast<std::uint32_t>(v[2]));
  }
  if (find_taillard(spec)) return taillard_instance(spec);
  std::error_code ec;
  if (!std::filesystem::exists(spec, ec)) {
    if (spec.size() >= 2 && (spec[0] == 't' || spec[0] == 'T') && (spec[1] == 'a' || spec[1] == 'A') &&
        spec.find('/') == std::string::npos && spec.find('.') == std::string::npos)
      throw input_error("unknown instance name '" + spec + "' (Taillard's instances are ta001 .. ta120)");
    throw input_error("'" + spec + "': no such file, and not an instance name (ta001 .. ta120) or random:N,M,SEED");
  }
  return read_instance_file(spec);
}

}  // namespace pfsp
