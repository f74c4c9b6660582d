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

// Machine by machine over all positions at once (the loops over i vectorise; on x86-64 an AVX2
// clone is chosen at load time where the processor has it).
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("avx2", "default")))
#endif
void insertion_kernel::insertion_values(int job, int* out) const {
  const std::size_t cap = static_cast<std::size_t>(n_) + 1;
  const int* pj = &p_[static_cast<std::size_t>(job) * m_];
  int* f = f_.data();
  const int count = len_ + 1;
  for (int i = 0; i < count; ++i) {
    f[i] = e_[static_cast<std::size_t>(i)] + pj[0];
    out[i] = f[i] + q_[static_cast<std::size_t>(i)];
  }
  for (int k = 1; k < m_; ++k) {
    const int* e = &e_[static_cast<std::size_t>(k) * cap];
    const int* q = &q_[static_cast<std::size_t>(k) * cap];
    const int p = pj[k];
    for (int i = 0; i < count; ++i) {
      f[i] = std::max(f[i], e[i]) + p;
      out[i] = std::max(out[i], f[i] + q[i]);
    }
  }
}

std::pair<int, int> insertion_kernel::best_insertion(int job, std::uint64_t* rng_state) const {
  insertion_values(job, values_.data());
  int best = INT_MAX, pos = 0, ties = 0;
  for (int i = 0; i <= len_; ++i) {
    const int v = values_[static_cast<std::size_t>(i)];
    if (v < best) {
      best = v;
      pos = i;
      ties = 1;
    } else if (v == best && rng_state) {
      // Reservoir sampling over the tied positions: each is kept with probability 1/ties.
      ++ties;
      if (random_below(*rng_state, ties) == 0) pos = i;
    }
  }
  return {pos, best};
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("avx2", "default")))
#endif
void insertion_kernel::insertion_values_idle(int job, int* out, int* idle) const {
  const std::size_t cap = static_cast<std::size_t>(n_) + 1;
  const int* pj = &p_[static_cast<std::size_t>(job) * m_];
  int* f = f_.data();
  const int count = len_ + 1;
  for (int i = 0; i < count; ++i) {
    f[i] = e_[static_cast<std::size_t>(i)] + pj[0];
    out[i] = f[i] + q_[static_cast<std::size_t>(i)];
    idle[i] = 0;
  }
  for (int k = 1; k < m_; ++k) {
    const int* e = &e_[static_cast<std::size_t>(k) * cap];
    const int* q = &q_[static_cast<std::size_t>(k) * cap];
    const int p = pj[k];
    for (int i = 0; i < count; ++i) {
      const int start = std::max(f[i], e[i]);
      idle[i] += start - e[i];
      f[i] = start + p;
      out[i] = std::max(out[i], f[i] + q[i]);
    }
  }
}

std::pair<int, int> insertion_kernel::best_insertion_idle(int job, std::uint64_t* rng_state) const {
  insertion_values_idle(job, values_.data(), idle_.data());
  int best = INT_MAX, best_idle = INT_MAX, pos = 0, ties = 0;
  for (int i = 0; i <= len_; ++i) {
    const int v = values_[static_cast<std::size_t>(i)], w = idle_[static_cast<std::size_t>(i)];
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
