#include "search/checkpoint.hpp"

#include <algorithm>
#include <charconv>
#include <climits>
#include <fstream>
#include <sstream>

#include "base/error.hpp"
#include "problem/makespan.hpp"

namespace pfsp {

void search_state::add_stack(const dfs_pool& pool) {
  const std::size_t count = pool.size();
  stack_sizes.push_back(count);
  nodes.reserve(nodes.size() + count);
  perms.reserve(perms.size() + count * static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < count; ++i) {
    nodes.push_back(pool.meta(i));
    perms.resize(perms.size() + static_cast<std::size_t>(n));
    pool.copy_perm(i, perms.data() + perms.size() - static_cast<std::size_t>(n));
  }
}

namespace {

constexpr std::uint64_t fnv_offset = 14695981039346656037ull;
constexpr std::uint64_t fnv_prime = 1099511628211ull;

std::uint64_t fnv1a(std::uint64_t h, const void* data, std::size_t len) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (std::size_t i = 0; i < len; ++i) {
    h ^= p[i];
    h *= fnv_prime;
  }
  return h;
}

std::uint64_t fnv1a_word(std::uint64_t h, std::uint32_t w) {
  const unsigned char b[4] = {static_cast<unsigned char>(w), static_cast<unsigned char>(w >> 8),
                              static_cast<unsigned char>(w >> 16), static_cast<unsigned char>(w >> 24)};
  return fnv1a(h, b, 4);
}

std::string hex64(std::uint64_t v) {
  char buf[17];
  const auto r = std::to_chars(buf, buf + 16, v, 16);
  std::string s(buf, r.ptr);
  return std::string(16 - s.size(), '0') + s;
}

// Shortest text that reads back to the same double.
std::string exact(double v) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

}  // namespace

std::uint64_t times_hash(const instance_view& inst) {
  std::uint64_t h = fnv_offset;
  h = fnv1a_word(h, static_cast<std::uint32_t>(inst.n));
  h = fnv1a_word(h, static_cast<std::uint32_t>(inst.m));
  const std::size_t count = static_cast<std::size_t>(inst.n) * static_cast<std::size_t>(inst.m);
  for (std::size_t i = 0; i < count; ++i) h = fnv1a_word(h, static_cast<std::uint32_t>(inst.p[i]));
  return h;
}

solve_stats cumulative_stats(const solve_options& opt, const solve_stats& piece, double piece_seconds) {
  solve_stats st;
  if (opt.resume) st = opt.resume->stats;
  const double before = st.total_seconds;
  st += piece;
  st.total_seconds = before + piece_seconds;
  return st;
}

search_state make_search_state(const instance& inst, const solve_options& opt, int threshold, const incumbent& best,
                               const solve_stats& piece, double piece_seconds, std::string_view backend) {
  search_state s;
  s.instance_name = inst.name;
  s.n = inst.n;
  s.m = inst.m;
  s.times_hash = times_hash(inst.view());
  s.bound = opt.bound;
  s.branch = opt.branch;
  s.ub_option = opt.resume ? opt.resume->ub_option : opt.initial_ub;
  s.threshold = threshold;
  s.best_schedule = best.schedule();
  s.best_makespan = s.best_schedule.empty() ? 0 : best.value();
  s.stats = cumulative_stats(opt, piece, piece_seconds);
  s.backend = std::string(backend);
  return s;
}

search_state make_search_state(const bound_data& data, const solve_options& opt, int threshold, const incumbent& best,
                               const solve_stats& piece, double piece_seconds, std::string_view backend) {
  search_state s = make_search_state(data.problem(), opt, threshold, best, piece, piece_seconds, backend);
  s.lb2_pairs = lb2_pairs_of(data, opt.bound);
  return s;
}

std::vector<std::pair<int, int>> lb2_pairs_of(const bound_data& data, bound_kind bound) {
  std::vector<std::pair<int, int>> pairs;
  if (bound == bound_kind::lb1) return pairs;
  const int m = data.problem().m;
  const std::vector<int>& first = data.pair_first();
  const std::vector<int>& second = data.pair_second();
  bool all = first.size() == static_cast<std::size_t>(m) * static_cast<std::size_t>(m - 1) / 2;
  std::size_t p = 0;
  for (int k = 0; all && k < m; ++k)
    for (int l = k + 1; all && l < m; ++l, ++p) all = first[p] == k && second[p] == l;
  if (all) return pairs;
  for (std::size_t i = 0; i < first.size(); ++i) pairs.emplace_back(first[i], second[i]);
  return pairs;
}

std::string describe_lb2_pairs(const std::vector<std::pair<int, int>>& pairs, int m) {
  const long long all = static_cast<long long>(m) * (m - 1) / 2;
  if (pairs.empty()) return "all (" + std::to_string(all) + " pairs)";
  std::string list;
  for (std::size_t i = 0; i < pairs.size() && i < 40; ++i) {
    if (i) list += ' ';
    list += std::to_string(pairs[i].first + 1);
    list += '-';
    list += std::to_string(pairs[i].second + 1);
  }
  if (pairs.size() > 40) list += " ...";
  if (pairs == bound_data::adjacent_pairs(m))
    return "adjacent (" + std::to_string(pairs.size()) + " pairs: " + list + ")";
  return std::to_string(pairs.size()) + " of " + std::to_string(all) + " pairs: " + list;
}

void check_lb2_pairs(const search_state& s, const bound_data& data, const std::string& file) {
  const std::vector<std::pair<int, int>> here = lb2_pairs_of(data, s.bound);
  if (here != s.lb2_pairs)
    throw file_error(file, 0,
                     "cannot resume: the checkpoint was made with LB2 machine pairs " +
                         describe_lb2_pairs(s.lb2_pairs, s.m) + "; this run evaluates " +
                         describe_lb2_pairs(here, data.problem().m));
}

void restore_stacks(const search_state& s, const std::vector<dfs_pool*>& pools) {
  PFSP_EXPECTS(!pools.empty(), "restore_stacks needs at least one pool");
  std::size_t first = 0;
  for (std::size_t k = 0; k < s.stack_sizes.size(); ++k) {
    dfs_pool& to = *pools[k % pools.size()];
    for (std::size_t i = first; i < first + s.stack_sizes[k]; ++i)
      to.push_root(s.perm(i), s.nodes[i].limit1, s.nodes[i].limit2, s.nodes[i].lb);
    first += s.stack_sizes[k];
  }
}

// ---------------------------------------------------------------------------------------------
// Text format, version 1:
//
//   pfsp-checkpoint 1
//   instance <name>              informative (rest of the line)
//   n <jobs>
//   m <machines>
//   times-fnv1a <16 hex digits>  times_hash
//   bound lb1|lb2|lb1-lb2
//   branching forward|backward|min-branch|min-min
//   ub <value>|none              --ub of the first run
//   threshold <value>            pruning threshold at the start of the first run
//   incumbent <makespan> <j0> .. <j(n-1)>   or `incumbent none` (0-based jobs)
//   complete 0|1
//   branched|bounds|pruned|leaves <count>
//   explored <double>            fraction of the search space closed (shortest exact form)
//   elapsed <double>             seconds, all runs together
//   bound-seconds <double>
//   backend <text>               informative
//   stacks <count>
//   stack <size>                 then <size> lines:
//   node <limit1> <limit2> <lb> <j0> .. <j(n-1)>
//   end <16 hex digits>          FNV-1a of every byte before this line
// ---------------------------------------------------------------------------------------------

namespace {

std::string one_line(std::string text) {
  for (char& c : text)
    if (c == '\n' || c == '\r') c = ' ';
  return text;
}

// The header, the incumbent and the counters: everything before the stacks.
void write_text_head(std::ostringstream& o, const search_state& s) {
  o << "pfsp-checkpoint " << search_state::format_version << '\n';
  o << "instance " << one_line(s.instance_name) << '\n';
  o << "n " << s.n << '\n' << "m " << s.m << '\n';
  o << "times-fnv1a " << hex64(s.times_hash) << '\n';
  o << "bound " << to_string(s.bound) << '\n';
  o << "branching " << to_string(s.branch) << '\n';
  o << "ub ";
  if (s.ub_option)
    o << *s.ub_option;
  else
    o << "none";
  o << '\n';
  o << "threshold " << s.threshold << '\n';
  o << "incumbent ";
  if (s.best_schedule.empty()) {
    o << "none";
  } else {
    o << s.best_makespan;
    for (int j : s.best_schedule) o << ' ' << j;
  }
  o << '\n';
  o << "complete " << (s.complete ? 1 : 0) << '\n';
  o << "branched " << s.stats.branched << '\n';
  o << "bounds " << s.stats.bounds << '\n';
  o << "pruned " << s.stats.pruned << '\n';
  o << "leaves " << s.stats.leaves << '\n';
  o << "explored " << exact(s.stats.explored) << '\n';
  o << "elapsed " << exact(s.stats.total_seconds) << '\n';
  o << "bound-seconds " << exact(s.stats.bound_seconds) << '\n';
  o << "backend " << one_line(s.backend) << '\n';
}

// The stacks of open nodes, a line a node.
void write_text_stacks(std::ostringstream& o, const search_state& s) {
  o << "stacks " << s.stack_sizes.size() << '\n';
  std::size_t i = 0;
  std::string line;
  for (std::size_t size : s.stack_sizes) {
    o << "stack " << size << '\n';
    for (std::size_t e = i + size; i < e; ++i) {
      const node_meta& nm = s.nodes[i];
      line = "node " + std::to_string(nm.limit1) + ' ' + std::to_string(nm.limit2) + ' ' + std::to_string(nm.lb);
      const job_t* p = s.perm(i);
      char buf[8];
      for (int k = 0; k < s.n; ++k) {
        buf[0] = ' ';
        const auto r = std::to_chars(buf + 1, buf + sizeof buf, static_cast<unsigned>(p[k]));
        line.append(buf, r.ptr);
      }
      line += '\n';
      o << line;
    }
  }
}

}  // namespace

std::string to_text(const search_state& s) {
  if (!s.lb2_pairs.empty())
    throw input_error("the text checkpoint format (version 1) cannot record LB2 machine pairs (" +
                      describe_lb2_pairs(s.lb2_pairs, s.m) + "); use the binary format");
  std::ostringstream o;
  write_text_head(o, s);
  write_text_stacks(o, s);
  std::string body = o.str();
  const std::uint64_t sum = fnv1a(fnv_offset, body.data(), body.size());
  body += "end " + hex64(sum) + '\n';
  return body;
}

namespace {

// Reads the text line by line; every error names the file and the line.
class reader {
 public:
  reader(std::string_view text, const std::string& file) : text_(text), file_(file) {}

  int line_number() const { return line_no_; }
  std::size_t offset() const { return line_start_; }

  [[noreturn]] void fail(const std::string& what) const { throw file_error(file_, line_no_, what); }

  // Next line, which must start with `key` followed by a space (or end there); returns the rest.
  std::string_view expect(std::string_view key) {
    if (pos_ >= text_.size()) {
      ++line_no_;
      fail("file ends here (truncated?); expected a line '" + std::string(key) + " ...'");
    }
    line_start_ = pos_;
    std::size_t e = text_.find('\n', pos_);
    ++line_no_;
    if (e == std::string_view::npos)
      fail("last line has no newline (truncated?); expected '" + std::string(key) + " ...'");
    std::string_view line = text_.substr(pos_, e - pos_);
    pos_ = e + 1;
    if (!line.empty() && line.back() == '\r')
      fail("line ends in CR LF; checkpoints are written with LF line ends (was the file converted?)");
    if (line.substr(0, key.size()) != key || (line.size() > key.size() && line[key.size()] != ' ')) {
      std::string shown(line.substr(0, 40));
      fail("expected a line '" + std::string(key) + " ...', found '" + shown + (line.size() > 40 ? "...'" : "'"));
    }
    return line.size() > key.size() ? line.substr(key.size() + 1) : std::string_view();
  }

  bool at_end() const { return pos_ >= text_.size(); }

  // An error on the line after the current one.
  [[noreturn]] void fail_after(const std::string& what) const { throw file_error(file_, line_no_ + 1, what); }

 private:
  std::string_view text_;
  const std::string& file_;
  std::size_t pos_ = 0;
  std::size_t line_start_ = 0;
  int line_no_ = 0;
};

// Space-separated integers of one line.
class fields {
 public:
  fields(std::string_view s, const reader& r, std::string_view key) : s_(s), r_(r), key_(key) {}

  template <class Int>
  Int next(const char* what, long long lo, long long hi) {
    while (p_ < s_.size() && s_[p_] == ' ') ++p_;
    if (p_ >= s_.size()) r_.fail("'" + std::string(key_) + "': missing " + what);
    long long v = 0;
    const char* b = s_.data() + p_;
    const char* e = s_.data() + s_.size();
    const auto res = std::from_chars(b, e, v);
    if (res.ec != std::errc() || (res.ptr != e && *res.ptr != ' '))
      r_.fail("'" + std::string(key_) + "': " + what + " must be an integer, found '" + token(b, e) + "'");
    if (v < lo || v > hi)
      r_.fail("'" + std::string(key_) + "': " + what + " " + std::to_string(v) + " is out of range " +
              std::to_string(lo) + ".." + std::to_string(hi));
    p_ = static_cast<std::size_t>(res.ptr - s_.data());
    return static_cast<Int>(v);
  }
  void done() {
    while (p_ < s_.size() && s_[p_] == ' ') ++p_;
    if (p_ < s_.size())
      r_.fail("'" + std::string(key_) + "': unexpected '" + token(s_.data() + p_, s_.data() + s_.size()) +
              "' at the end");
  }

 private:
  static std::string token(const char* b, const char* e) {
    const char* t = b;
    while (t < e && *t != ' ') ++t;
    return std::string(b, std::min<std::size_t>(static_cast<std::size_t>(t - b), 20));
  }
  std::string_view s_;
  std::size_t p_ = 0;
  const reader& r_;
  std::string_view key_;
};

std::uint64_t read_count(reader& r, std::string_view key) {
  const std::string_view v = r.expect(key);
  std::uint64_t x = 0;
  const auto res = std::from_chars(v.data(), v.data() + v.size(), x);
  if (v.empty() || res.ec != std::errc() || res.ptr != v.data() + v.size())
    r.fail("'" + std::string(key) + "': expected a non-negative integer, found '" + std::string(v.substr(0, 30)) + "'");
  return x;
}

double read_double(reader& r, std::string_view key) {
  const std::string_view v = r.expect(key);
  double x = 0;
  const auto res = std::from_chars(v.data(), v.data() + v.size(), x);
  if (v.empty() || res.ec != std::errc() || res.ptr != v.data() + v.size() || !(x >= 0))
    r.fail("'" + std::string(key) + "': expected a non-negative number, found '" + std::string(v.substr(0, 30)) + "'");
  return x;
}

std::uint64_t read_hex(reader& r, std::string_view key) {
  const std::string_view v = r.expect(key);
  std::uint64_t x = 0;
  const auto res = std::from_chars(v.data(), v.data() + v.size(), x, 16);
  if (v.size() != 16 || res.ec != std::errc() || res.ptr != v.data() + v.size())
    r.fail("'" + std::string(key) + "': expected 16 hexadecimal digits, found '" + std::string(v.substr(0, 30)) + "'");
  return x;
}

template <class Enum>
Enum read_enum(reader& r, std::string_view key, std::initializer_list<Enum> values) {
  const std::string_view v = r.expect(key);
  std::string allowed;
  for (Enum e : values) {
    if (to_string(e) == v) return e;
    allowed += (allowed.empty() ? "" : ", ") + std::string(to_string(e));
  }
  r.fail("'" + std::string(key) + "': expected one of " + allowed + ", found '" + std::string(v.substr(0, 30)) + "'");
}

// Reads n job indices into out and checks that they form a permutation of 0..n-1. O(n).
void read_permutation(fields& f, reader& r, int n, std::vector<unsigned char>& seen, job_t* out) {
  std::fill(seen.begin(), seen.end(), 0);
  for (int k = 0; k < n; ++k) {
    const int j = f.next<int>("job", 0, n - 1);
    if (seen[j])
      r.fail("job " + std::to_string(j) + " appears twice; expected a permutation of 0.." + std::to_string(n - 1));
    seen[j] = 1;
    out[k] = static_cast<job_t>(j);
  }
  f.done();
}

}  // namespace

namespace {

// The header: version, instance, sizes, the times' hash, bound, branching, ub and threshold.
void read_text_header(reader& r, search_state& s) {
  {
    const std::string_view v = r.expect("pfsp-checkpoint");
    if (v != std::to_string(search_state::format_version))
      r.fail("checkpoint format version '" + std::string(v.substr(0, 20)) +
             "' is not supported; this pfsp reads version " + std::to_string(search_state::format_version));
  }
  s.instance_name = std::string(r.expect("instance"));
  {
    fields f(r.expect("n"), r, "n");
    s.n = f.next<int>("job count", 1, 65535);
    f.done();
  }
  {
    fields f(r.expect("m"), r, "m");
    s.m = f.next<int>("machine count", 1, 1000000);
    f.done();
  }
  s.times_hash = read_hex(r, "times-fnv1a");
  s.bound = read_enum(r, "bound", {bound_kind::lb1, bound_kind::lb2, bound_kind::lb1_lb2});
  s.branch =
      read_enum(r, "branching", {branching::forward, branching::backward, branching::min_branch, branching::min_min});
  {
    const std::string_view v = r.expect("ub");
    if (v != "none") {
      fields f(v, r, "ub");
      s.ub_option = f.next<int>("value", 1, INT_MAX);
      f.done();
    }
  }
  {
    fields f(r.expect("threshold"), r, "threshold");
    s.threshold = f.next<int>("value", 0, INT_MAX);
    f.done();
  }
}

// The incumbent (or none) and the completion flag.
void read_text_incumbent(reader& r, search_state& s, std::vector<unsigned char>& seen) {
  const int n = s.n;
  {
    const std::string_view v = r.expect("incumbent");
    if (v != "none") {
      fields f(v, r, "incumbent");
      s.best_makespan = f.next<int>("makespan", 1, INT_MAX);
      std::vector<job_t> perm(static_cast<std::size_t>(n));
      read_permutation(f, r, n, seen, perm.data());
      s.best_schedule.assign(perm.begin(), perm.end());
    }
  }
  {
    fields f(r.expect("complete"), r, "complete");
    s.complete = f.next<int>("flag", 0, 1) == 1;
    f.done();
  }
}

// The counters, the elapsed and bounding seconds, and the backend that wrote the file.
void read_text_stats(reader& r, search_state& s) {
  s.stats.branched = read_count(r, "branched");
  s.stats.bounds = read_count(r, "bounds");
  s.stats.pruned = read_count(r, "pruned");
  s.stats.leaves = read_count(r, "leaves");
  s.stats.explored = read_double(r, "explored");
  s.stats.total_seconds = read_double(r, "elapsed");
  s.stats.bound_seconds = read_double(r, "bound-seconds");
  s.backend = std::string(r.expect("backend"));
}

// The stacks of open nodes. The file's size bounds the node count (`text_bytes`).
void read_text_stacks(reader& r, search_state& s, std::vector<unsigned char>& seen, std::size_t text_bytes) {
  const int n = s.n;
  const std::uint64_t stacks = read_count(r, "stacks");
  if (stacks > (1u << 20)) r.fail("'stacks': " + std::to_string(stacks) + " is more than this pfsp accepts (1048576)");
  // The file's size bounds the node count: reserve only what the remaining text can hold.
  for (std::uint64_t k = 0; k < stacks; ++k) {
    const std::uint64_t size = read_count(r, "stack");
    if (size > text_bytes)
      r.fail("'stack': " + std::to_string(size) + " nodes cannot fit in the rest of the file (truncated?)");
    s.stack_sizes.push_back(static_cast<std::size_t>(size));
    for (std::uint64_t i = 0; i < size; ++i) {
      fields f(r.expect("node"), r, "node");
      node_meta nm{};
      nm.limit1 = f.next<std::int32_t>("limit1", -1, n - 1);
      nm.limit2 = f.next<std::int32_t>("limit2", nm.limit1 + 2, n);
      nm.lb = f.next<std::int32_t>("lb", 0, INT_MAX);
      s.nodes.push_back(nm);
      const std::size_t off = s.perms.size();
      s.perms.resize(off + static_cast<std::size_t>(n));
      read_permutation(f, r, n, seen, s.perms.data() + off);
    }
  }
}

}  // namespace

search_state parse_search_state(std::string_view text, const std::string& file) {
  reader r(text, file);
  search_state s;
  read_text_header(r, s);
  std::vector<unsigned char> seen(static_cast<std::size_t>(s.n));
  read_text_incumbent(r, s, seen);
  read_text_stats(r, s);
  read_text_stacks(r, s, seen, text.size());
  const std::uint64_t stated = read_hex(r, "end");
  const std::uint64_t actual = fnv1a(fnv_offset, text.data(), r.offset());
  if (stated != actual)
    r.fail("checksum " + hex64(stated) + " does not match the content (" + hex64(actual) +
           "): the file was modified or corrupted");
  if (!r.at_end()) r.fail_after("unexpected text after the 'end' line");
  if (s.complete && !s.nodes.empty()) throw file_error(file, 0, "marked complete but has open nodes");
  return s;
}

bool is_binary_checkpoint(std::string_view first_bytes) {
  // The magic's first byte (0x89, not ASCII), or its letters after a damaged first byte.
  return (!first_bytes.empty() && static_cast<unsigned char>(first_bytes[0]) == 0x89) ||
         (first_bytes.size() >= 7 && first_bytes.substr(1, 6) == "PFSPCK");
}

search_state parse_checkpoint(std::string_view bytes, const std::string& file) {
  if (bytes.empty())
    throw file_error(file, 0,
                     "empty file; expected a pfsp checkpoint (binary, or text with 'pfsp-checkpoint 1' on line 1)");
  return is_binary_checkpoint(bytes) ? parse_binary_search_state(bytes, file) : parse_search_state(bytes, file);
}

search_state read_search_state(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) throw file_error(path, 0, "cannot open checkpoint file");
  // One read of the file's size: no copy through a string stream (a binary checkpoint of tens of
  // millions of nodes is gigabytes).
  const std::streamoff size = in.tellg();
  if (size < 0) throw file_error(path, 0, "cannot tell the size of the checkpoint file");
  std::string bytes(static_cast<std::size_t>(size), '\0');
  in.seekg(0);
  if (!in.read(bytes.data(), size)) throw file_error(path, 0, "error while reading checkpoint file");
  return parse_checkpoint(bytes, path);
}

void check_resumable(const search_state& s, const instance& inst, const solve_options& opt, const std::string& file) {
  auto mismatch = [&](const std::string& what) { return file_error(file, 0, "cannot resume: " + what); };
  const std::uint64_t h = times_hash(inst.view());
  if (s.n != inst.n || s.m != inst.m || s.times_hash != h) {
    std::string what = "the checkpoint is for instance '" + s.instance_name + "' (" + std::to_string(s.n) + " jobs x " +
                       std::to_string(s.m) + " machines, times hash " + hex64(s.times_hash) + "), not '" + inst.name +
                       "' (" + std::to_string(inst.n) + " x " + std::to_string(inst.m) + ", times hash " + hex64(h) +
                       ")";
    if (s.n == inst.n && s.m == inst.m) what += ": same size, different processing times";
    throw mismatch(what);
  }
  if (s.bound != opt.bound)
    throw mismatch("the checkpoint was made with --bound " + std::string(to_string(s.bound)) +
                   ", this run asks for --bound " + std::string(to_string(opt.bound)));
  if (s.branch != opt.branch)
    throw mismatch("the checkpoint was made with --branching " + std::string(to_string(s.branch)) +
                   ", this run asks for --branching " + std::string(to_string(opt.branch)));
  if (s.ub_option != opt.initial_ub) {
    auto show = [](const std::optional<int>& u) { return u ? "--ub " + std::to_string(*u) : std::string("no --ub"); };
    throw mismatch("the checkpoint was made with " + show(s.ub_option) + ", this run has " + show(opt.initial_ub));
  }
  if (opt.select != selection::depth_first)
    throw mismatch("checkpoints hold depth-first searches; this run asks for --selection " +
                   std::string(to_string(opt.select)));
  if (!s.best_schedule.empty()) {
    std::vector<int> scratch(static_cast<std::size_t>(inst.m));
    const int value = makespan(inst.view(), s.best_schedule.data(), scratch.data());
    if (value != s.best_makespan)
      throw file_error(file, 0,
                       "the incumbent's schedule has makespan " + std::to_string(value) + ", not the stated " +
                           std::to_string(s.best_makespan) + " (corrupted file?)");
  }
}

void check_resumable(const search_state& s, const bound_data& data, const solve_options& opt, const std::string& file) {
  check_resumable(s, data.problem(), opt, file);
  check_lb2_pairs(s, data, file);
}

}  // namespace pfsp
