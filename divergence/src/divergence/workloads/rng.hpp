// Counter-based random numbers: a value depends only on (key, counter), never on which thread
// or in which order it is drawn, so every scheduling strategy computes bit-identical results.
// (Frey et al. used CURAND's Sobol32; a stateless hash keeps task contexts small and makes
// order-independence trivial.)
#pragma once

#include <cstdint>

#include "divergence/hd.hpp"

namespace pfsp::divergence {

// 64-bit finaliser of MurmurHash3 over (key, counter), upper word. Uniform in [0, 2^32).
PFSP_HD std::uint32_t hash_draw(std::uint32_t key, std::uint32_t counter) {
  std::uint64_t x = (static_cast<std::uint64_t>(key) << 32) | counter;
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  x ^= x >> 33;
  return static_cast<std::uint32_t>(x >> 32) ^ static_cast<std::uint32_t>(x);
}

// Probability p in [0, 1] as a threshold on a 32-bit draw: P(draw < threshold) = p.
inline std::uint32_t probability_threshold(double p) {
  if (p <= 0.0) return 0;
  if (p >= 1.0) return 0xffffffffu;
  return static_cast<std::uint32_t>(p * 4294967296.0);
}

}  // namespace pfsp::divergence
