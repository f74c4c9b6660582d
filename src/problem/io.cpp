#include "problem/io.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <istream>
#include <limits>
#include <ostream>
#include <sstream>
#include <string_view>
#include <vector>

#include "base/error.hpp"
#include "problem/taillard.hpp"

namespace pfsp {
namespace {

struct data_line {
  int number;                       // 1-based line number in the source
  std::vector<std::string> tokens;  // the first whitespace-separated tokens (see `keep`)
  std::size_t count;                // all of them
};

bool is_text_line(const std::string& first_token) {
  return std::isalpha(static_cast<unsigned char>(first_token[0])) != 0 || first_token[0] == '#' ||
         first_token[0] == '+';
}

// Text of the input as shown in a message: at most 40 bytes, anything but printable ASCII as \xHH
// (the input may be binary).
std::string shown(std::string_view text) {
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (std::size_t i = 0; i < text.size() && i < 40; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  if (text.size() > 40) out += "...";
  return out;
}

long long parse_int(const std::string& tok, const std::string& origin, int line, const char* what) {
  long long v = 0;
  const auto* b = tok.data();
  const auto* e = tok.data() + tok.size();
  auto [ptr, ec] = std::from_chars(b, e, v);
  if (ec == std::errc::result_out_of_range && ptr == e)
    throw file_error(origin, line,
                     std::string("expected an integer ") + what + ", got '" + shown(tok) + "', which is out of range");
  if (ec != std::errc() || ptr != e)
    throw file_error(origin, line, std::string("expected an integer ") + what + ", got '" + shown(tok) + "'");
  return v;
}

// A processing time in 1..limit (limit = time_limit(n, m), instance.hpp).
int checked_time(const std::string& tok, const std::string& origin, int line, int limit) {
  const long long v = parse_int(tok, origin, line, "processing time");
  if (v <= 0) throw file_error(origin, line, "processing times must be positive integers, got " + shown(tok));
  if (v > limit) {
    if (limit == max_time)
      throw file_error(
          origin, line,
          "processing time " + std::to_string(v) + " is too large (at most " + std::to_string(max_time) + ")");
    throw file_error(origin, line,
                     "processing time " + std::to_string(v) +
                         " is too large for this instance: a makespan spans n + m - 1 times " +
                         "and must fit 32 bits (2147483647), so times are at most " + std::to_string(limit));
  }
  return static_cast<int>(v);
}

// Whitespace is space, tab, CR (of a CRLF line end), vertical tab and form feed.
bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

// The whole input, at most max_input_bytes of it.
std::string read_all(std::istream& in, const std::string& origin) {
  std::string text;
  std::vector<char> buf(1 << 16);
  while (in.read(buf.data(), static_cast<std::streamsize>(buf.size())) || in.gcount() > 0) {
    text.append(buf.data(), static_cast<std::size_t>(in.gcount()));
    if (text.size() > max_input_bytes)
      throw file_error(origin, 0,
                       "larger than " + std::to_string(max_input_bytes >> 20) +
                           " MiB: no instance within the limits needs that much (README, \"Input files\")");
  }
  if (in.bad()) throw file_error(origin, 0, "error while reading");
  return text;
}

// One line's tokens (the first `keep` kept, all counted); `text_line` says whether it is a header.
// After the sizes line (`any_data`), a header line holds no number: one that does is a damaged
// matrix row, reported here rather than as a truncation further on; and text inside the matrix
// (after its first row: `rows` > 1) is refused.
data_line tokenize(std::string_view raw, int number, std::size_t keep, bool any_data, std::size_t rows,
                   const std::string& origin, bool& text_line) {
  data_line dl{number, {}, 0};
  text_line = false;
  for (std::size_t i = 0; i < raw.size();) {
    if (is_blank(raw[i])) {
      ++i;
      continue;
    }
    std::size_t e = i;
    while (e < raw.size() && !is_blank(raw[e])) ++e;
    const std::string_view tok = raw.substr(i, e - i);
    i = e;
    if (dl.count == 0) text_line = is_text_line(std::string(tok.substr(0, 1)));
    if (text_line && any_data && dl.count > 0) {
      long long v = 0;
      if (std::from_chars(tok.data(), tok.data() + tok.size(), v).ptr == tok.data() + tok.size())
        throw file_error(origin, number,
                         "expected a row of integer processing times, got '" + shown(dl.tokens[0]) + "'");
    }
    if (dl.count < keep || (text_line && dl.count == 0)) dl.tokens.emplace_back(tok);
    ++dl.count;
    if (text_line && any_data && rows > 1)
      throw file_error(origin, number, "unexpected text inside the processing-time matrix: '" + shown(raw) + "'");
  }
  return dl;
}

// The data lines of `text` (header lines skipped). Accepted: LF or CRLF line ends, tabs as
// spaces, a UTF-8 byte order mark. Refused: a CR not followed by LF (classic Mac OS line ends),
// with its line. Memory stays proportional to what an instance within the limits can need: once
// the sizes line reads as sizes, at most max(n, m) + 2 data lines and max(n, 2m) tokens a line
// are kept. O(size of the input).
std::vector<data_line> data_lines(std::string_view rest, const std::string& origin) {
  if (rest.substr(0, 3) == "\xEF\xBB\xBF") rest.remove_prefix(3);
  std::vector<data_line> lines;
  std::size_t keep = 2;                                             // tokens kept a line: 2 for the sizes line
  std::size_t max_lines = std::numeric_limits<std::size_t>::max();  // data lines worth reading
  int number = 0;
  while (!rest.empty() && lines.size() < max_lines) {
    const std::size_t eol = rest.find('\n');
    const std::string_view raw = rest.substr(0, eol);
    rest.remove_prefix(eol == std::string_view::npos ? rest.size() : eol + 1);
    ++number;
    const std::size_t cr = raw.find('\r');
    if (cr != std::string_view::npos && cr + 1 != raw.size())
      throw file_error(origin, number,
                       "carriage return without a line feed (classic Mac OS line ends); expected LF or CRLF "
                       "line ends");
    bool text_line = false;
    data_line dl = tokenize(raw, number, keep, !lines.empty(), lines.size(), origin, text_line);
    if (dl.count == 0 || text_line) continue;
    lines.push_back(std::move(dl));
    if (lines.size() == 1 && lines[0].count >= 2) {
      // The sizes, if they read as such (errors are reported by the caller): the rows to keep.
      long long n = 0, m = 0;
      const auto& t = lines[0].tokens;
      const bool ok = std::from_chars(t[0].data(), t[0].data() + t[0].size(), n).ec == std::errc() &&
                      std::from_chars(t[1].data(), t[1].data() + t[1].size(), m).ec == std::errc();
      if (ok && n >= 1 && n <= max_jobs && m >= 1 && m <= max_machines) {
        keep = static_cast<std::size_t>(std::max(n, 2 * m));
        max_lines = static_cast<std::size_t>(std::max(n, m)) + 2;
      }
    }
  }
  return lines;
}

// Job-per-row if the first row has 2m tokens whose even positions count machines in order (from
// 0 or 1). Detection only: a first token that is no integer is reported by the parser of the
// layout. n == 2m: a Taillard machine row also has 2m numbers and may read "1 x 2 y ..."; then
// the row count decides (m rows for Taillard, n != m rows for job rows).
bool job_per_row(const data_line& first, long long n, long long m, std::size_t rows) {
  if (first.count != static_cast<std::size_t>(2 * m)) return false;
  auto whole_int = [](const std::string& t, long long& v) {
    auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    return ec == std::errc() && p == t.data() + t.size();
  };
  long long base = -1;
  if (!whole_int(first.tokens[0], base) || (base != 0 && base != 1)) return false;
  for (long long k = 0; k < m; ++k) {
    long long idx = 0;
    if (!whole_int(first.tokens[2 * k], idx) || idx != base + k) return false;
  }
  return !(n == 2 * m && rows == static_cast<std::size_t>(m));
}

// The matrix's rows after the sizes line: exactly `expected` (`truncated` names the shortfall at
// the last line; a surplus is reported at the first row too many, after `rows_named`).
void check_row_count(const std::vector<data_line>& lines, const std::string& origin, std::size_t expected,
                     const std::string& truncated, const std::string& rows_named) {
  const std::size_t rows = lines.size() - 1;
  if (rows < expected) throw file_error(origin, lines.back().number, truncated);
  if (rows > expected)
    throw file_error(origin, lines[expected + 1].number,
                     "unexpected data after the " + rows_named + " (one instance per file)");
}

// n rows of m "machine time" pairs.
void read_job_rows(const std::vector<data_line>& lines, instance& inst, const std::string& origin, int limit) {
  const long long n = inst.n, m = inst.m;
  const std::size_t rows = lines.size() - 1;
  const long long base = parse_int(lines[1].tokens[0], origin, lines[1].number, "machine index");
  check_row_count(lines, origin, static_cast<std::size_t>(n),
                  "truncated: expected " + std::to_string(n) + " job rows, found " + std::to_string(rows),
                  std::to_string(n) + " job rows");
  inst.p.assign(static_cast<std::size_t>(n * m), 0);
  for (long long j = 0; j < n; ++j) {
    const auto& row = lines[j + 1];
    if (row.count != static_cast<std::size_t>(2 * m))
      throw file_error(origin, row.number,
                       "expected " + std::to_string(m) + " 'machine time' pairs (" + std::to_string(2 * m) +
                           " integers) for job " + std::to_string(j + 1) + ", got " + std::to_string(row.count));
    for (long long k = 0; k < m; ++k) {
      const long long idx = parse_int(row.tokens[2 * k], origin, row.number, "machine index");
      if (idx != base + k)
        throw file_error(origin, row.number,
                         "expected machine " + std::to_string(base + k) + " in position " + std::to_string(k + 1) +
                             " (a flow shop visits machines in order), got " + shown(row.tokens[2 * k]));
      inst.p[static_cast<std::size_t>(k * n + j)] = checked_time(row.tokens[2 * k + 1], origin, row.number, limit);
    }
  }
}

// m rows of n processing times (Taillard's layout).
void read_machine_rows(const std::vector<data_line>& lines, instance& inst, const std::string& origin, int limit) {
  const long long n = inst.n, m = inst.m;
  const std::size_t rows = lines.size() - 1;
  check_row_count(lines, origin, static_cast<std::size_t>(m),
                  "truncated: expected " + std::to_string(m) + " rows of " + std::to_string(n) +
                      " processing times (one per machine), found " + std::to_string(rows),
                  std::to_string(m) + " machine rows");
  inst.p.assign(static_cast<std::size_t>(n * m), 0);
  for (long long k = 0; k < m; ++k) {
    const auto& row = lines[k + 1];
    if (row.count != static_cast<std::size_t>(n))
      throw file_error(origin, row.number,
                       "expected " + std::to_string(n) + " processing times for machine " + std::to_string(k + 1) +
                           ", got " + std::to_string(row.count));
    for (long long j = 0; j < n; ++j)
      inst.p[static_cast<std::size_t>(k * n + j)] = checked_time(row.tokens[j], origin, row.number, limit);
  }
}

}  // namespace

// Text lines (starting with a letter, '#' or '+') are headers, skipped before the sizes line and
// between it and the matrix; the matrix is Taillard's (m rows of n times) or job rows (n rows of
// m machine-time pairs).
instance parse_instance(std::istream& in, const std::string& origin) {
  const std::string text = read_all(in, origin);
  const std::vector<data_line> lines = data_lines(text, origin);
  if (lines.empty()) throw file_error(origin, 0, "empty file: expected a line 'n m' followed by processing times");

  const auto& head = lines[0];
  if (head.count < 2)
    throw file_error(origin, head.number, "expected 'n m' (number of jobs and machines), got one number");
  const long long n = parse_int(head.tokens[0], origin, head.number, "number of jobs");
  const long long m = parse_int(head.tokens[1], origin, head.number, "number of machines");
  check_sizes(n, m, origin, head.number);
  const int limit = time_limit(static_cast<int>(n), static_cast<int>(m));

  // The times are allocated only once the rows are there (the sizes line alone could ask for
  // anything up to the limits).
  instance inst;
  inst.name = std::filesystem::path(origin).stem().string();
  inst.n = static_cast<int>(n);
  inst.m = static_cast<int>(m);
  const std::size_t rows = lines.size() - 1;
  if (rows == 0)
    throw file_error(origin, head.number,
                     "truncated: expected " + std::to_string(m) + " rows of " + std::to_string(n) +
                         " times (Taillard) or " + std::to_string(n) + " rows of " + std::to_string(m) +
                         " machine-time pairs after this line");
  if (job_per_row(lines[1], n, m, rows))
    read_job_rows(lines, inst, origin, limit);
  else
    read_machine_rows(lines, inst, origin, limit);
  validate(inst, origin);
  return inst;
}

instance read_instance_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw file_error(path, 0, "is a directory, expected an instance file");
  std::ifstream in(path, std::ios::binary);
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
    const std::string origin = "instance '" + shown(spec) + "'";
    const std::string_view args = std::string_view(spec).substr(7);
    std::vector<long long> v;
    for (std::size_t b = 0;;) {
      const std::size_t e = args.find(',', b);
      v.push_back(parse_int(std::string(args.substr(b, e == std::string_view::npos ? e : e - b)), origin, 0, "value"));
      if (e == std::string_view::npos || v.size() > 3) break;
      b = e + 1;
    }
    if (v.size() != 3) throw input_error(origin + ": expected random:N,M,SEED");
    if (v[0] <= 0 || v[0] > max_jobs || v[1] <= 0 || v[1] > max_machines)
      throw input_error(origin + ": N must be in 1.." + std::to_string(max_jobs) + " and M in 1.." +
                        std::to_string(max_machines));
    check_sizes(v[0], v[1], origin, 0);
    if (v[2] <= 0 || v[2] >= 2147483647LL) throw input_error(origin + ": SEED must be in 1..2147483646");
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
