// The binary checkpoint format, version 2 (docs/decisions/006-binary-checkpoints.md).
//
//   offset  bytes  field (little-endian; i32/u32/u64 fixed width; f64 IEEE-754 binary64)
//   0       8      magic 89 50 46 53 50 43 4b 0a ("\x89PFSPCK\n")
//   8       4      u32 format version (2)
//   12      4      u32 n (1..65535)
//   16      4      u32 m (1..1000000)
//   20      1      u8 bound (0 lb1, 1 lb2, 2 lb1-lb2)
//   21      1      u8 branching (0 forward, 1 backward, 2 min-branch, 3 min-min)
//   22      1      u8 flags: 1 --ub given, 2 incumbent present, 4 complete
//   23      1      u8 job width w: 1 if n <= 255, else 2
//   24      1      u8 bound width b: 1, 2 or 4 (bytes of lb - lb base)
//   25      3      zero
//   28      4      i32 --ub of the first run (0: none)
//   32      4      i32 threshold
//   36      4      i32 incumbent makespan (0: none)
//   40      4      i32 lb base (the smallest bound of the open nodes; 0 if none)
//   44      8      u64 times hash
//   52      32     u64 branched, bounds, pruned, leaves
//   84      24     f64 explored, elapsed seconds, bound seconds
//   108     4      u32 instance name bytes A
//   112     4      u32 backend bytes B
//   116     4      u32 LB2 pair count P (0: all pairs, or bound lb1)
//   120     4      u32 stack count S
//   124     8      u64 open node count N
//   132            name (A bytes), backend (B bytes), P x (u32 k, u32 l), the incumbent (n x w
//                  bytes, if present), S x u64 stack sizes, then N nodes of 2w + b + n w bytes:
//                  limit1 + 1 (w), limit2 (w), lb - lb base (b), the n jobs (w each)
//   size - 8 8     u64 block_checksum of bytes [0, size - 8)
//
// Reading checks, in this order and before allocating anything sized by the file: the magic, the
// version, the header's fields and widths, that the counts add up to the file's size exactly, the
// checksum, then every field's range, each permutation, and that the stack sizes add up to N.
#include <algorithm>
#include <bit>
#include <climits>
#include <cmath>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "base/error.hpp"
#include "search/checkpoint.hpp"

namespace pfsp {
namespace {

constexpr unsigned char magic[8] = {0x89, 'P', 'F', 'S', 'P', 'C', 'K', '\n'};
constexpr std::size_t header_bytes = 132;
constexpr std::size_t checksum_bytes = 8;
constexpr std::uint8_t flag_ub = 1, flag_incumbent = 2, flag_complete = 4;
constexpr std::uint64_t max_stacks = 1u << 20;  // as the text format
constexpr std::uint32_t max_text_bytes = 1u << 20;

constexpr std::uint64_t fnv_offset = 14695981039346656037ull;
constexpr std::uint64_t fnv_prime = 1099511628211ull;

template <class T>
void store(unsigned char* p, T v) {
  static_assert(std::is_integral_v<T>);
  if constexpr (std::endian::native == std::endian::little) {
    std::memcpy(p, &v, sizeof v);
  } else {
    using U = std::make_unsigned_t<T>;
    const U u = static_cast<U>(v);
    for (std::size_t i = 0; i < sizeof(T); ++i) p[i] = static_cast<unsigned char>(u >> (8 * i));
  }
}

template <class T>
T load(const unsigned char* p) {
  static_assert(std::is_integral_v<T>);
  if constexpr (std::endian::native == std::endian::little) {
    T v;
    std::memcpy(&v, p, sizeof v);
    return v;
  } else {
    using U = std::make_unsigned_t<T>;
    U u = 0;
    for (std::size_t i = 0; i < sizeof(T); ++i) u |= static_cast<U>(static_cast<U>(p[i]) << (8 * i));
    return static_cast<T>(u);
  }
}

void store_f64(unsigned char* p, double v) { store(p, std::bit_cast<std::uint64_t>(v)); }
double load_f64(const unsigned char* p) { return std::bit_cast<double>(load<std::uint64_t>(p)); }

std::string hex_bytes(const unsigned char* p, std::size_t len) {
  static const char digits[] = "0123456789abcdef";
  std::string s;
  for (std::size_t i = 0; i < len; ++i) {
    if (i) s += ' ';
    s += digits[p[i] >> 4];
    s += digits[p[i] & 15];
  }
  return s;
}

std::string hex64(std::uint64_t v) {
  static const char digits[] = "0123456789abcdef";
  std::string s(16, '0');
  for (int i = 15; i >= 0; --i, v >>= 4) s[static_cast<std::size_t>(i)] = digits[v & 15];
  return s;
}

int lb_width(std::uint64_t range) { return range <= 0xff ? 1 : range <= 0xffff ? 2 : 4; }

// Writes N nodes; Job = the stored job id type, Lb = the stored bound offset type.
template <class Job, class Lb>
unsigned char* encode_nodes(const search_state& s, std::int32_t lb_base, unsigned char* out) {
  const std::size_t n = static_cast<std::size_t>(s.n);
  const job_t* perm = s.perms.data();
  for (const node_meta& nm : s.nodes) {
    store(out, static_cast<Job>(nm.limit1 + 1));
    store(out + sizeof(Job), static_cast<Job>(nm.limit2));
    store(out + 2 * sizeof(Job), static_cast<Lb>(nm.lb - lb_base));
    out += 2 * sizeof(Job) + sizeof(Lb);
    if constexpr (std::is_same_v<Job, job_t> && std::endian::native == std::endian::little) {
      std::memcpy(out, perm, n * sizeof(Job));
    } else {
      for (std::size_t k = 0; k < n; ++k) store(out + k * sizeof(Job), static_cast<Job>(perm[k]));
    }
    out += n * sizeof(Job);
    perm += n;
  }
  return out;
}

// Reads the binary format front to back; every error names the file and the byte offset.
class byte_reader {
 public:
  byte_reader(std::string_view bytes, const std::string& file)
      : p_(reinterpret_cast<const unsigned char*>(bytes.data())), size_(bytes.size()), file_(file) {}

  [[noreturn]] void fail(std::size_t offset, const std::string& what) const {
    throw file_error(file_, 0, "byte offset " + std::to_string(offset) + ": " + what);
  }
  [[noreturn]] void fail(const std::string& what) const { throw file_error(file_, 0, what); }

  const unsigned char* at(std::size_t offset) const { return p_ + offset; }
  std::size_t size() const { return size_; }

  template <class T>
  T get(std::size_t offset) const {
    return load<T>(p_ + offset);
  }

  // An integer field that must lie in lo..hi.
  template <class T>
  long long field(std::size_t offset, const char* what, long long lo, long long hi) const {
    const long long v = static_cast<long long>(get<T>(offset));
    if (v < lo || v > hi)
      fail(offset, std::string(what) + " " + std::to_string(v) + " is out of range " + std::to_string(lo) + ".." +
                       std::to_string(hi));
    return v;
  }

  double non_negative(std::size_t offset, const char* what) const {
    const double v = load_f64(p_ + offset);
    if (!(v >= 0) || !std::isfinite(v))
      fail(offset, std::string(what) + " must be a finite non-negative number, found " + std::to_string(v));
    return v;
  }

 private:
  const unsigned char* p_;
  std::size_t size_;
  const std::string& file_;
};

// A permutation check of n job ids at memory speed: OR one bit per id into a bitset and compare
// it with the full set (n ids below n set n bits only if they are distinct). O(n).
class permutation_check {
 public:
  explicit permutation_check(int n) : n_(n), bits_((static_cast<std::size_t>(n) + 63) / 64) {}

  template <class Job>
  bool ok(const unsigned char* p) {
    constexpr std::size_t w = sizeof(Job);
    if (n_ <= 64) {
      std::uint64_t mask = 0;
      unsigned bad = 0;
      for (int k = 0; k < n_; ++k) {
        const unsigned j = load<Job>(p + static_cast<std::size_t>(k) * w);
        bad |= static_cast<unsigned>(j >= static_cast<unsigned>(n_));
        mask |= std::uint64_t{1} << (j & 63);
      }
      return !bad && mask == (n_ == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << n_) - 1);
    }
    std::fill(bits_.begin(), bits_.end(), 0);
    for (int k = 0; k < n_; ++k) {
      const unsigned j = load<Job>(p + static_cast<std::size_t>(k) * w);
      if (j >= static_cast<unsigned>(n_)) return false;
      bits_[j >> 6] |= std::uint64_t{1} << (j & 63);
    }
    for (std::size_t i = 0; i + 1 < bits_.size(); ++i)
      if (bits_[i] != ~std::uint64_t{0}) return false;
    const int rest = n_ - 64 * static_cast<int>(bits_.size() - 1);
    return bits_.back() == (rest == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << rest) - 1);
  }

  // Why p is not a permutation (the slow path, for the message).
  template <class Job>
  std::string why(const unsigned char* p) const {
    std::vector<unsigned char> seen(static_cast<std::size_t>(n_));
    for (int k = 0; k < n_; ++k) {
      const unsigned j = load<Job>(p + static_cast<std::size_t>(k) * sizeof(Job));
      if (j >= static_cast<unsigned>(n_))
        return "job " + std::to_string(j) + " at position " + std::to_string(k) + " is out of range 0.." +
               std::to_string(n_ - 1);
      if (seen[j]) return "job " + std::to_string(j) + " appears twice";
      seen[j] = 1;
    }
    return "not a permutation";
  }

 private:
  int n_;
  std::vector<std::uint64_t> bits_;
};

// `node`: the open node's index, or -1 for the incumbent (named only when the check fails).
template <class Job>
void read_permutation(const byte_reader& r, std::size_t offset, permutation_check& check, int n, job_t* out,
                      long long node) {
  const unsigned char* p = r.at(offset);
  if (!check.ok<Job>(p))
    r.fail(offset, (node < 0 ? std::string("incumbent") : "open node " + std::to_string(node)) + ": " +
                       check.why<Job>(p) + "; expected a permutation of 0.." + std::to_string(n - 1));
  if constexpr (std::is_same_v<Job, job_t> && std::endian::native == std::endian::little) {
    std::memcpy(out, p, static_cast<std::size_t>(n) * sizeof(Job));
  } else {
    for (int k = 0; k < n; ++k) out[k] = static_cast<job_t>(load<Job>(p + static_cast<std::size_t>(k) * sizeof(Job)));
  }
}

template <class Job, class Lb>
void decode_nodes(const byte_reader& r, std::size_t offset, std::int32_t lb_base, search_state& s) {
  const int n = s.n;
  const std::size_t count = s.nodes.size();
  const std::size_t record = 2 * sizeof(Job) + sizeof(Lb) + static_cast<std::size_t>(n) * sizeof(Job);
  permutation_check check(n);
  for (std::size_t i = 0; i < count; ++i, offset += record) {
    const unsigned char* p = r.at(offset);
    const int limit1 = static_cast<int>(load<Job>(p)) - 1;
    const int limit2 = static_cast<int>(load<Job>(p + sizeof(Job)));
    const long long lb = static_cast<long long>(lb_base) + static_cast<long long>(load<Lb>(p + 2 * sizeof(Job)));
    if (limit1 > n - 1)
      r.fail(offset, "open node " + std::to_string(i) + ": limit1 " + std::to_string(limit1) + " is out of range -1.." +
                         std::to_string(n - 1));
    if (limit2 < limit1 + 2 || limit2 > n)
      r.fail(offset + sizeof(Job), "open node " + std::to_string(i) + ": limit2 " + std::to_string(limit2) +
                                       " is out of range " + std::to_string(limit1 + 2) + ".." + std::to_string(n));
    if (lb > INT_MAX)
      r.fail(offset + 2 * sizeof(Job), "open node " + std::to_string(i) + ": lb " + std::to_string(lb) +
                                           " is out of range 0.." + std::to_string(INT_MAX));
    s.nodes[i] = node_meta{limit1, limit2, static_cast<std::int32_t>(lb)};
    read_permutation<Job>(r, offset + 2 * sizeof(Job) + sizeof(Lb), check, n,
                          s.perms.data() + i * static_cast<std::size_t>(n), static_cast<long long>(i));
  }
}

template <class Job>
void decode_nodes(const byte_reader& r, std::size_t offset, std::int32_t lb_base, int lb_bytes, search_state& s) {
  if (lb_bytes == 1)
    decode_nodes<Job, std::uint8_t>(r, offset, lb_base, s);
  else if (lb_bytes == 2)
    decode_nodes<Job, std::uint16_t>(r, offset, lb_base, s);
  else
    decode_nodes<Job, std::uint32_t>(r, offset, lb_base, s);
}

}  // namespace

std::uint64_t block_checksum(const void* data, std::size_t len) {
  const auto* p = static_cast<const unsigned char*>(data);
  std::uint64_t lane[4] = {fnv_offset, fnv_offset ^ 1, fnv_offset ^ 2, fnv_offset ^ 3};
  std::size_t i = 0;
  for (; i + 32 <= len; i += 32)
    for (int k = 0; k < 4; ++k) lane[k] = (lane[k] ^ load<std::uint64_t>(p + i + 8 * k)) * fnv_prime;
  // The tail: whole words to the next lanes, then the last bytes zero-padded into one more word.
  int k = 0;
  for (; i + 8 <= len; i += 8, ++k) lane[k] = (lane[k] ^ load<std::uint64_t>(p + i)) * fnv_prime;
  if (i < len) {
    unsigned char last[8] = {};
    std::memcpy(last, p + i, len - i);
    lane[k] = (lane[k] ^ load<std::uint64_t>(last)) * fnv_prime;
  }
  // Byte-wise FNV-1a over the lanes and the length mixes the lanes' high bits into every bit.
  std::uint64_t h = fnv_offset;
  auto mix = [&h](std::uint64_t w) {
    for (int b = 0; b < 8; ++b, w >>= 8) h = (h ^ (w & 0xff)) * fnv_prime;
  };
  for (std::uint64_t v : lane) mix(v);
  mix(static_cast<std::uint64_t>(len));
  return h;
}

namespace {

// The header's sizes and encodings: what the rest of the file holds and how it is written.
struct binary_layout {
  std::size_t w = 1;  // bytes a job
  int b = 1;          // bytes a node's bound (above lb_base)
  std::uint8_t flags = 0;
  std::int32_t lb_base = 0;
  std::size_t name_bytes = 0, backend_bytes = 0, pair_count = 0, stacks = 0;
  std::uint64_t count = 0;  // open nodes
  bool has_incumbent() const { return (flags & flag_incumbent) != 0; }
};

// The layout of `s` as to_binary writes it: the widths of jobs and bounds, the flags, the sections' sizes.
binary_layout plan_layout(const search_state& s) {
  binary_layout L;
  L.w = s.n <= 255 ? 1 : 2;  // job ids and limits, 0..n
  std::int32_t lb_max = 0;
  if (!s.nodes.empty()) {
    L.lb_base = lb_max = s.nodes.front().lb;
    for (const node_meta& nm : s.nodes) {
      L.lb_base = std::min(L.lb_base, nm.lb);
      lb_max = std::max(lb_max, nm.lb);
    }
  }
  PFSP_EXPECTS(L.lb_base >= 0, "open nodes' bounds are non-negative");
  L.b = lb_width(static_cast<std::uint64_t>(static_cast<std::int64_t>(lb_max) - L.lb_base));
  L.flags = static_cast<std::uint8_t>((s.ub_option ? flag_ub : 0) | (!s.best_schedule.empty() ? flag_incumbent : 0) |
                                      (s.complete ? flag_complete : 0));
  L.name_bytes = std::min<std::size_t>(s.instance_name.size(), max_text_bytes);
  L.backend_bytes = std::min<std::size_t>(s.backend.size(), max_text_bytes);
  L.pair_count = s.lb2_pairs.size();
  L.stacks = s.stack_sizes.size();
  L.count = s.nodes.size();
  return L;
}

std::size_t file_bytes(const binary_layout& L, std::size_t n) {
  const std::size_t record = 2 * L.w + static_cast<std::size_t>(L.b) + n * L.w;
  return header_bytes + L.name_bytes + L.backend_bytes + 8 * L.pair_count + (L.has_incumbent() ? n * L.w : 0) +
         8 * L.stacks + record * L.count + checksum_bytes;
}

void write_header(unsigned char* out, const search_state& s, const binary_layout& L) {
  std::memcpy(out, magic, sizeof magic);
  store<std::uint32_t>(out + 8, search_state::binary_format_version);
  store<std::uint32_t>(out + 12, static_cast<std::uint32_t>(s.n));
  store<std::uint32_t>(out + 16, static_cast<std::uint32_t>(s.m));
  out[20] = static_cast<unsigned char>(s.bound);
  out[21] = static_cast<unsigned char>(s.branch);
  out[22] = L.flags;
  out[23] = static_cast<unsigned char>(L.w);
  out[24] = static_cast<unsigned char>(L.b);
  store<std::int32_t>(out + 28, s.ub_option ? *s.ub_option : 0);
  store<std::int32_t>(out + 32, s.threshold);
  store<std::int32_t>(out + 36, L.has_incumbent() ? s.best_makespan : 0);
  store<std::int32_t>(out + 40, L.lb_base);
  store<std::uint64_t>(out + 44, s.times_hash);
  store<std::uint64_t>(out + 52, s.stats.branched);
  store<std::uint64_t>(out + 60, s.stats.bounds);
  store<std::uint64_t>(out + 68, s.stats.pruned);
  store<std::uint64_t>(out + 76, s.stats.leaves);
  store_f64(out + 84, s.stats.explored);
  store_f64(out + 92, s.stats.total_seconds);
  store_f64(out + 100, s.stats.bound_seconds);
  store<std::uint32_t>(out + 108, static_cast<std::uint32_t>(L.name_bytes));
  store<std::uint32_t>(out + 112, static_cast<std::uint32_t>(L.backend_bytes));
  store<std::uint32_t>(out + 116, static_cast<std::uint32_t>(L.pair_count));
  store<std::uint32_t>(out + 120, static_cast<std::uint32_t>(L.stacks));
  store<std::uint64_t>(out + 124, static_cast<std::uint64_t>(L.count));
}

// The instance's name, the backend, the LB2 pairs and the incumbent, from q; returns the end.
unsigned char* write_texts_pairs_incumbent(unsigned char* q, const search_state& s, const binary_layout& L) {
  std::memcpy(q, s.instance_name.data(), L.name_bytes);
  q += L.name_bytes;
  std::memcpy(q, s.backend.data(), L.backend_bytes);
  q += L.backend_bytes;
  for (const auto& [k, l] : s.lb2_pairs) {
    store<std::uint32_t>(q, static_cast<std::uint32_t>(k));
    store<std::uint32_t>(q + 4, static_cast<std::uint32_t>(l));
    q += 8;
  }
  if (!L.has_incumbent()) return q;
  PFSP_EXPECTS(s.best_schedule.size() == static_cast<std::size_t>(s.n), "the incumbent has n jobs");
  for (int j : s.best_schedule) {
    if (L.w == 1)
      *q = static_cast<unsigned char>(j);
    else
      store<std::uint16_t>(q, static_cast<std::uint16_t>(j));
    q += L.w;
  }
  return q;
}

unsigned char* write_stacks(unsigned char* q, const search_state& s) {
  std::size_t total = 0;
  for (std::size_t size_k : s.stack_sizes) {
    store<std::uint64_t>(q, static_cast<std::uint64_t>(size_k));
    q += 8;
    total += size_k;
  }
  PFSP_EXPECTS(total == s.nodes.size(), "the stack sizes add up to the open nodes");
  return q;
}

unsigned char* write_nodes(unsigned char* q, const search_state& s, const binary_layout& L) {
  if (L.w == 1)
    return L.b == 1   ? encode_nodes<std::uint8_t, std::uint8_t>(s, L.lb_base, q)
           : L.b == 2 ? encode_nodes<std::uint8_t, std::uint16_t>(s, L.lb_base, q)
                      : encode_nodes<std::uint8_t, std::uint32_t>(s, L.lb_base, q);
  return L.b == 1   ? encode_nodes<std::uint16_t, std::uint8_t>(s, L.lb_base, q)
         : L.b == 2 ? encode_nodes<std::uint16_t, std::uint16_t>(s, L.lb_base, q)
                    : encode_nodes<std::uint16_t, std::uint32_t>(s, L.lb_base, q);
}

}  // namespace

std::string to_binary(const search_state& s) {
  PFSP_EXPECTS(s.n >= 1 && s.n <= 65535 && s.m >= 1, "checkpoint of an instance of 1..65535 jobs");
  PFSP_EXPECTS(s.perms.size() == s.nodes.size() * static_cast<std::size_t>(s.n), "n jobs per open node");
  PFSP_EXPECTS(s.stack_sizes.size() <= max_stacks && s.lb2_pairs.size() <= 0xFFFFFFFFu, "stack and pair counts");
  const binary_layout L = plan_layout(s);
  const std::size_t size = file_bytes(L, static_cast<std::size_t>(s.n));
  std::string bytes(size, '\0');
  auto* out = reinterpret_cast<unsigned char*>(bytes.data());
  write_header(out, s, L);
  unsigned char* q = write_texts_pairs_incumbent(out + header_bytes, s, L);
  q = write_nodes(write_stacks(q, s), s, L);
  PFSP_EXPECTS(static_cast<std::size_t>(q - out) == size - checksum_bytes, "binary checkpoint size");
  store<std::uint64_t>(q, block_checksum(out, size - checksum_bytes));
  return bytes;
}

namespace {

void check_magic_and_version(const byte_reader& r, std::size_t size) {
  const std::size_t head = std::min(size, sizeof magic);
  for (std::size_t i = 0; i < head; ++i)
    if (*r.at(i) != magic[i])
      r.fail(i, "bad magic " + hex_bytes(r.at(0), head) + "; expected " + hex_bytes(magic, sizeof magic) +
                    " (a pfsp binary checkpoint)");
  if (size < header_bytes + checksum_bytes)
    r.fail("truncated: " + std::to_string(size) + " bytes; a binary checkpoint has at least " +
           std::to_string(header_bytes + checksum_bytes) + " (its header and checksum)");
  const std::uint32_t v = r.get<std::uint32_t>(8);
  if (v != search_state::binary_format_version)
    r.fail(8, "checkpoint format version " + std::to_string(v) + " is not supported; this pfsp reads binary version " +
                  std::to_string(search_state::binary_format_version) + " and text version " +
                  std::to_string(search_state::format_version));
}

// The header's fields (byte offsets 12..131) into `s` and the layout, each checked.
binary_layout read_header(const byte_reader& r, search_state& s) {
  binary_layout L;
  s.n = static_cast<int>(r.field<std::uint32_t>(12, "n (jobs)", 1, 65535));
  s.m = static_cast<int>(r.field<std::uint32_t>(16, "m (machines)", 1, 1000000));
  const int n = s.n;
  s.bound = static_cast<bound_kind>(r.field<std::uint8_t>(20, "bound", 0, 2));
  s.branch = static_cast<branching>(r.field<std::uint8_t>(21, "branching", 0, 3));
  L.flags = static_cast<std::uint8_t>(r.field<std::uint8_t>(22, "flags", 0, 7));
  L.w = static_cast<std::size_t>(r.field<std::uint8_t>(23, "job width", 1, 2));
  if (L.w != (n <= 255 ? 1u : 2u))
    r.fail(23, "job width " + std::to_string(L.w) + " for n = " + std::to_string(n) + "; expected " +
                   (n <= 255 ? "1 (n <= 255)" : "2 (n > 255)"));
  L.b = static_cast<int>(r.field<std::uint8_t>(24, "bound width", 1, 4));
  if (L.b == 3) r.fail(24, "bound width 3; expected 1, 2 or 4");
  for (std::size_t i = 25; i < 28; ++i)
    if (*r.at(i) != 0) r.fail(i, "reserved byte is " + std::to_string(*r.at(i)) + "; expected 0");
  const std::int32_t ub = r.get<std::int32_t>(28);
  if (L.flags & flag_ub)
    s.ub_option = static_cast<int>(r.field<std::int32_t>(28, "--ub", 1, INT_MAX));
  else if (ub != 0)
    r.fail(28, "--ub " + std::to_string(ub) + " without its flag; expected 0");
  s.threshold = static_cast<int>(r.field<std::int32_t>(32, "threshold", 0, INT_MAX));
  const bool inc = L.has_incumbent();
  s.best_makespan = static_cast<int>(r.field<std::int32_t>(36, "incumbent makespan", inc ? 1 : 0, inc ? INT_MAX : 0));
  s.complete = (L.flags & flag_complete) != 0;
  L.lb_base = static_cast<std::int32_t>(r.field<std::int32_t>(40, "lb base", 0, INT_MAX));
  s.times_hash = r.get<std::uint64_t>(44);
  s.stats.branched = r.get<std::uint64_t>(52);
  s.stats.bounds = r.get<std::uint64_t>(60);
  s.stats.pruned = r.get<std::uint64_t>(68);
  s.stats.leaves = r.get<std::uint64_t>(76);
  s.stats.explored = r.non_negative(84, "explored");
  s.stats.total_seconds = r.non_negative(92, "elapsed seconds");
  s.stats.bound_seconds = r.non_negative(100, "bound seconds");
  L.name_bytes = static_cast<std::size_t>(r.field<std::uint32_t>(108, "instance name length", 0, max_text_bytes));
  L.backend_bytes = static_cast<std::size_t>(r.field<std::uint32_t>(112, "backend length", 0, max_text_bytes));
  const long long all_pairs = static_cast<long long>(s.m) * (s.m - 1) / 2;
  L.pair_count = static_cast<std::size_t>(r.field<std::uint32_t>(
      116, "LB2 pair count", 0, s.bound == bound_kind::lb1 ? 0 : std::min(all_pairs, 1LL << 32)));
  L.stacks = static_cast<std::size_t>(r.field<std::uint32_t>(120, "stack count", 0, max_stacks));
  L.count = r.get<std::uint64_t>(124);
  return L;
}

// The counts against the file's size, before anything they size is allocated, then the
// checksum. Every term of `fixed` is below 2^40, so the sums cannot overflow.
void check_size_and_checksum(const byte_reader& r, std::size_t size, const binary_layout& L, int n) {
  const std::size_t record = 2 * L.w + static_cast<std::size_t>(L.b) + static_cast<std::size_t>(n) * L.w;
  const std::size_t fixed = header_bytes + L.name_bytes + L.backend_bytes + 8 * L.pair_count +
                            (L.has_incumbent() ? static_cast<std::size_t>(n) * L.w : 0) + 8 * L.stacks + checksum_bytes;
  const std::string what_header = "the header (byte offsets 108..131) counts " + std::to_string(L.name_bytes) + "+" +
                                  std::to_string(L.backend_bytes) + " name bytes, " + std::to_string(L.pair_count) +
                                  " pairs, " + std::to_string(L.stacks) + " stacks and " + std::to_string(L.count) +
                                  " open nodes of " + std::to_string(record) + " bytes";
  if (fixed > size || L.count > (size - fixed) / record)
    r.fail("truncated or inconsistent: " + what_header + ", more than the file's " + std::to_string(size) + " bytes");
  if (fixed + L.count * record != size)
    r.fail("inconsistent: " + what_header + ", " + std::to_string(fixed + L.count * record) +
           " bytes in all; the file has " + std::to_string(size) + " (trailing bytes?)");
  const std::uint64_t stated = r.get<std::uint64_t>(size - checksum_bytes);
  const std::uint64_t actual = block_checksum(r.at(0), size - checksum_bytes);
  if (stated != actual)
    r.fail(size - checksum_bytes, "checksum " + hex64(stated) + " does not match the content (" + hex64(actual) +
                                      "): the file was modified or corrupted");
}

// The instance name, the backend, the LB2 pairs and the incumbent, from byte `at` on.
void read_texts_pairs_incumbent(const byte_reader& r, std::size_t& at, const binary_layout& L, search_state& s) {
  s.instance_name.assign(reinterpret_cast<const char*>(r.at(at)), L.name_bytes);
  at += L.name_bytes;
  s.backend.assign(reinterpret_cast<const char*>(r.at(at)), L.backend_bytes);
  at += L.backend_bytes;
  s.lb2_pairs.reserve(L.pair_count);
  for (std::size_t i = 0; i < L.pair_count; ++i, at += 8) {
    const int k = static_cast<int>(r.field<std::uint32_t>(at, "LB2 pair's first machine", 0, s.m - 2));
    const int l = static_cast<int>(r.field<std::uint32_t>(at + 4, "LB2 pair's second machine", k + 1, s.m - 1));
    s.lb2_pairs.emplace_back(k, l);
  }
  if (!L.has_incumbent()) return;
  std::vector<job_t> perm(static_cast<std::size_t>(s.n));
  permutation_check check(s.n);
  if (L.w == 1)
    read_permutation<std::uint8_t>(r, at, check, s.n, perm.data(), -1);
  else
    read_permutation<std::uint16_t>(r, at, check, s.n, perm.data(), -1);
  s.best_schedule.assign(perm.begin(), perm.end());
  at += static_cast<std::size_t>(s.n) * L.w;
}

// The stacks' sizes, which must add up to the open nodes' count.
void read_stacks(const byte_reader& r, std::size_t& at, const binary_layout& L, search_state& s) {
  std::uint64_t total = 0;
  s.stack_sizes.reserve(L.stacks);
  for (std::size_t k = 0; k < L.stacks; ++k, at += 8) {
    const std::uint64_t stack = r.get<std::uint64_t>(at);
    if (stack > L.count - total)
      r.fail(at, "stack " + std::to_string(k) + " of " + std::to_string(stack) +
                     " nodes: the stacks hold more than the " + std::to_string(L.count) + " open nodes");
    total += stack;
    s.stack_sizes.push_back(static_cast<std::size_t>(stack));
  }
  if (total != L.count)
    r.fail(at,
           "the stacks hold " + std::to_string(total) + " nodes, not the " + std::to_string(L.count) + " open nodes");
  if (s.complete && L.count != 0) r.fail(22, "marked complete but has " + std::to_string(L.count) + " open nodes");
}

}  // namespace

search_state parse_binary_search_state(std::string_view bytes, const std::string& file) {
  const byte_reader r(bytes, file);
  check_magic_and_version(r, bytes.size());
  search_state s;
  const binary_layout L = read_header(r, s);
  check_size_and_checksum(r, bytes.size(), L, s.n);
  std::size_t at = header_bytes;
  read_texts_pairs_incumbent(r, at, L, s);
  read_stacks(r, at, L, s);
  s.nodes.resize(static_cast<std::size_t>(L.count));
  s.perms.resize(static_cast<std::size_t>(L.count) * static_cast<std::size_t>(s.n));
  if (L.w == 1)
    decode_nodes<std::uint8_t>(r, at, L.lb_base, L.b, s);
  else
    decode_nodes<std::uint16_t>(r, at, L.lb_base, L.b, s);
  return s;
}

}  // namespace pfsp
