#include "heuristic/insertion.hpp"

#include <algorithm>
#include <climits>

namespace pfsp {

insertion_kernel::insertion_kernel(const instance& inst)
    : n_(inst.n), m_(inst.m), p_(static_cast<std::size_t>(inst.n) * inst.m) {
  for (int j = 0; j < n_; ++j)
    for (int k = 0; k < m_; ++k) p_[static_cast<std::size_t>(j) * m_ + k] = inst.time(k, j);
  const std::size_t rows = static_cast<std::size_t>(n_ + 1) * m_;
  e_.assign(rows, 0);
  q_.assign(rows, 0);
  values_.assign(static_cast<std::size_t>(n_) + 1, 0);
}

void insertion_kernel::load(const int* seq, int len) {
  len_ = len;
  const int m = m_;
  // Heads: row i is the completion of seq[i - 1]; row 0 stays zero.
  for (int i = 1; i <= len; ++i) {
    const int* pj = &p_[static_cast<std::size_t>(seq[i - 1]) * m];
    const int* prev = &e_[static_cast<std::size_t>(i - 1) * m];
    int* row = &e_[static_cast<std::size_t>(i) * m];
    int t = prev[0] + pj[0];
    row[0] = t;
    for (int k = 1; k < m; ++k) {
      t = std::max(t, prev[k]) + pj[k];
      row[k] = t;
    }
  }
  // Tails: row i is the time from the start of seq[i] on machine k to the end; row len is zero.
  int* last = &q_[static_cast<std::size_t>(len) * m];
  std::fill(last, last + m, 0);
  for (int i = len - 1; i >= 0; --i) {
    const int* pj = &p_[static_cast<std::size_t>(seq[i]) * m];
    const int* next = &q_[static_cast<std::size_t>(i + 1) * m];
    int* row = &q_[static_cast<std::size_t>(i) * m];
    int t = next[m - 1] + pj[m - 1];
    row[m - 1] = t;
    for (int k = m - 2; k >= 0; --k) {
      t = std::max(t, next[k]) + pj[k];
      row[k] = t;
    }
  }
}

void insertion_kernel::remember_full() {
  full_e_.assign(e_.begin(), e_.begin() + static_cast<std::ptrdiff_t>(len_ + 1) * m_);
  full_q_.assign(q_.begin(), q_.begin() + static_cast<std::ptrdiff_t>(len_ + 1) * m_);
}

void insertion_kernel::load_removed(const int* seq, int len, int r) {
  const int m = m_;
  const auto row = [m](int i) { return static_cast<std::ptrdiff_t>(i) * m; };
  len_ = len - 1;
  // Heads: rows 0..r are the full sequence's; rows r+1..len-1 follow positions r+1..len-1 of seq.
  std::copy(full_e_.begin(), full_e_.begin() + row(r + 1), e_.begin());
  for (int i = r + 1; i < len; ++i) {
    const int* pj = &p_[static_cast<std::size_t>(seq[i]) * m];
    const int* prev = &e_[static_cast<std::size_t>(row(i - 1))];
    int* out = &e_[static_cast<std::size_t>(row(i))];
    int t = prev[0] + pj[0];
    out[0] = t;
    for (int k = 1; k < m; ++k) {
      t = std::max(t, prev[k]) + pj[k];
      out[k] = t;
    }
  }
  // Tails: rows r..len-1 are the full sequence's rows r+1..len; rows r-1..0 follow positions
  // r-1..0 of seq.
  std::copy(full_q_.begin() + row(r + 1), full_q_.begin() + row(len + 1), q_.begin() + row(r));
  for (int i = r - 1; i >= 0; --i) {
    const int* pj = &p_[static_cast<std::size_t>(seq[i]) * m];
    const int* next = &q_[static_cast<std::size_t>(row(i + 1))];
    int* out = &q_[static_cast<std::size_t>(row(i))];
    int t = next[m - 1] + pj[m - 1];
    out[m - 1] = t;
    for (int k = m - 2; k >= 0; --k) {
      t = std::max(t, next[k]) + pj[k];
      out[k] = t;
    }
  }
}

int insertion_kernel::loaded_makespan() const {
  return len_ == 0 ? 0 : e_[static_cast<std::size_t>(len_) * m_ + m_ - 1];
}

void insertion_kernel::insertion_values(int job, int* out) const {
  const int m = m_;
  const int* pj = &p_[static_cast<std::size_t>(job) * m];
  for (int i = 0; i <= len_; ++i) {
    // The job after position i - 1 (head row i) and before position i (tail row i).
    const int* head = &e_[static_cast<std::size_t>(i) * m];
    const int* tail = &q_[static_cast<std::size_t>(i) * m];
    int f = head[0] + pj[0];
    int cmax = f + tail[0];
    for (int k = 1; k < m; ++k) {
      f = std::max(f, head[k]) + pj[k];
      cmax = std::max(cmax, f + tail[k]);
    }
    out[i] = cmax;
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
