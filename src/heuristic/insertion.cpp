#include "heuristic/insertion.hpp"

#include <algorithm>
#include <climits>

namespace pfsp {

insertion_kernel::insertion_kernel(const instance& inst)
    : n_(inst.n), m_(inst.m), p_(static_cast<std::size_t>(inst.n) * inst.m) {
  for (int j = 0; j < n_; ++j)
    for (int k = 0; k < m_; ++k) p_[static_cast<std::size_t>(j) * m_ + k] = inst.time(k, j);
  const std::size_t cells = static_cast<std::size_t>(n_ + 1) * m_;
  e_.assign(cells, 0);
  q_.assign(cells, 0);
  values_.assign(static_cast<std::size_t>(n_) + 1, 0);
  f_.assign(static_cast<std::size_t>(n_) + 1, 0);
  idle_.assign(static_cast<std::size_t>(n_) + 1, 0);
}

// Heads rows from..len of seq (row i: completion of seq[i - 1]; row from - 1 must be set).
void insertion_kernel::heads_from(const int* seq, int from, int len) {
  const std::size_t cap = static_cast<std::size_t>(n_) + 1;
  for (int i = from; i <= len; ++i) {
    const int* pj = &p_[static_cast<std::size_t>(seq[i - 1]) * m_];
    int* col = &e_[static_cast<std::size_t>(i)];
    int t = col[-1] + pj[0];
    col[0] = t;
    for (int k = 1; k < m_; ++k) {
      t = std::max(t, col[k * cap - 1]) + pj[k];
      col[k * cap] = t;
    }
  }
}

// Tails rows to..0 of seq (row i: from the start of seq[i] to the end; row to + 1 must be set).
void insertion_kernel::tails_down_from(const int* seq, int to) {
  const std::size_t cap = static_cast<std::size_t>(n_) + 1;
  const std::size_t last = static_cast<std::size_t>(m_ - 1) * cap;
  for (int i = to; i >= 0; --i) {
    const int* pj = &p_[static_cast<std::size_t>(seq[i]) * m_];
    int* col = &q_[static_cast<std::size_t>(i)];
    int t = col[last + 1] + pj[m_ - 1];
    col[last] = t;
    for (int k = m_ - 2; k >= 0; --k) {
      t = std::max(t, col[k * cap + 1]) + pj[k];
      col[k * cap] = t;
    }
  }
}

void insertion_kernel::load(const int* seq, int len) {
  len_ = len;
  const std::size_t cap = static_cast<std::size_t>(n_) + 1;
  for (int k = 0; k < m_; ++k) {
    e_[k * cap] = 0;                                  // row 0: nothing before
    q_[k * cap + static_cast<std::size_t>(len)] = 0;  // row len: nothing after
  }
  heads_from(seq, 1, len);
  tails_down_from(seq, len - 1);
}

void insertion_kernel::remember_full() {
  full_e_ = e_;
  full_q_ = q_;
}

void insertion_kernel::load_removed(const int* seq, int len, int r) {
  const std::size_t cap = static_cast<std::size_t>(n_) + 1;
  len_ = len - 1;
  // Heads: rows 0..r are the full sequence's; rows r+1..len-1 follow positions r+1..len-1 of seq.
  // Tails: rows r..len-1 are the full sequence's rows r+1..len; rows r-1..0 follow positions
  // r-1..0 of seq.
  for (int k = 0; k < m_; ++k) {
    const std::size_t row = static_cast<std::size_t>(k) * cap;
    std::copy_n(&full_e_[row], r + 1, &e_[row]);
    std::copy_n(&full_q_[row + static_cast<std::size_t>(r) + 1], len - r, &q_[row + static_cast<std::size_t>(r)]);
  }
  // Position i of the reduced sequence is seq[i + 1] for i >= r: heads_from reads seq[i - 1], so
  // it gets seq shifted by one.
  heads_from(seq + 1, r + 1, len - 1);
  tails_down_from(seq, r - 1);
}

int insertion_kernel::loaded_makespan() const {
  const std::size_t cap = static_cast<std::size_t>(n_) + 1;
  return len_ == 0 ? 0 : e_[static_cast<std::size_t>(m_ - 1) * cap + static_cast<std::size_t>(len_)];
}

namespace {

#if defined(__GNUC__)
#define PFSP_ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define PFSP_ALWAYS_INLINE inline
#endif

// The makespan of inserting the job of times pj before every position 0..count-1, machine by
// machine over all positions at once (the loops over i vectorise); with Idle, also the idle time
// the job meets (the sum over machines 2..m of its start minus the completion of the job before
// it). e and q: the machine-major heads and tails, rows of cap; f: scratch of count.
template <bool Idle>
PFSP_ALWAYS_INLINE void insertion_row_values(const int* pj, int m, const int* e_all, const int* q_all, std::size_t cap,
                                             int count, int* f, int* out, int* idle) {
  for (int i = 0; i < count; ++i) {
    f[i] = e_all[i] + pj[0];
    out[i] = f[i] + q_all[i];
    if constexpr (Idle) idle[i] = 0;
  }
  for (int k = 1; k < m; ++k) {
    const int* e = e_all + static_cast<std::size_t>(k) * cap;
    const int* q = q_all + static_cast<std::size_t>(k) * cap;
    const int p = pj[k];
    for (int i = 0; i < count; ++i) {
      const int start = std::max(f[i], e[i]);
      if constexpr (Idle) idle[i] += start - e[i];
      f[i] = start + p;
      out[i] = std::max(out[i], f[i] + q[i]);
    }
  }
}

// A position of the least value among values[0..count): the first, or with rng_state a uniformly
// random one of the tied positions (reservoir sampling: each kept with probability 1/ties); with
// idle, ties in value go first to the least idle time.
std::pair<int, int> pick_position(const int* values, const int* idle, int count, std::uint64_t* rng_state) {
  int best = INT_MAX, best_idle = INT_MAX, pos = 0, ties = 0;
  for (int i = 0; i < count; ++i) {
    const int v = values[i], w = idle ? idle[i] : 0;
    if (v < best || (v == best && w < best_idle)) {
      best = v;
      best_idle = w;
      pos = i;
      ties = 1;
    } else if (v == best && w == best_idle && rng_state) {
      ++ties;
      if (random_below(*rng_state, ties) == 0) pos = i;
    }
  }
  return {pos, best};
}

}  // namespace

// On x86-64 an AVX2 clone of each is chosen at load time where the processor has it.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("avx2", "default")))
#endif
void insertion_kernel::insertion_values(int job, int* out) const {
  insertion_row_values<false>(&p_[static_cast<std::size_t>(job) * m_], m_, e_.data(), q_.data(),
                              static_cast<std::size_t>(n_) + 1, len_ + 1, f_.data(), out, nullptr);
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("avx2", "default")))
#endif
void insertion_kernel::insertion_values_idle(int job, int* out, int* idle) const {
  insertion_row_values<true>(&p_[static_cast<std::size_t>(job) * m_], m_, e_.data(), q_.data(),
                             static_cast<std::size_t>(n_) + 1, len_ + 1, f_.data(), out, idle);
}

std::pair<int, int> insertion_kernel::best_insertion(int job, std::uint64_t* rng_state) const {
  insertion_values(job, values_.data());
  return pick_position(values_.data(), nullptr, len_ + 1, rng_state);
}

std::pair<int, int> insertion_kernel::best_insertion_idle(int job, std::uint64_t* rng_state) const {
  insertion_values_idle(job, values_.data(), idle_.data());
  return pick_position(values_.data(), idle_.data(), len_ + 1, rng_state);
}

int insertion_kernel::makespan(const int* seq, int len) const {
  std::vector<int> front(static_cast<std::size_t>(m_), 0);
  for (int i = 0; i < len; ++i) {
    const int* pj = &p_[static_cast<std::size_t>(seq[i]) * m_];
    int t = front[0] + pj[0];
    front[0] = t;
    for (int k = 1; k < m_; ++k) {
      t = std::max(t, front[static_cast<std::size_t>(k)]) + pj[k];
      front[static_cast<std::size_t>(k)] = t;
    }
  }
  return len == 0 ? 0 : front[static_cast<std::size_t>(m_) - 1];
}

}  // namespace pfsp
