// Black-Scholes pricing of European options (the CUDA SDK sample, Zhang et al. Section 5.6): the
// cumulative normal has a condition (d > 0) that compiles to a select, so warps never diverge on
// it. It is the case where remapping can only cost, and efficiency control must switch it off.
#pragma once

#include <math.h>

#include <cstdint>

#include "divergence/hd.hpp"

namespace pfsp::divergence {

struct black_scholes_view {
  std::uint32_t n = 0;
  float riskfree = 0.02f;
  float volatility = 0.30f;
  const float* price = nullptr;   // S
  const float* strike = nullptr;  // X
  const float* years = nullptr;   // T
  float* call = nullptr;
  float* put = nullptr;
};

// Polynomial approximation of the cumulative normal distribution (Abramowitz-Stegun 26.2.17).
PFSP_HD float cnd(float d) {
  const float k = 1.0f / fma_rn(0.2316419f, fabsf(d), 1.0f);
  float poly = fma_rn(k, 1.330274429f, -1.821255978f);
  poly = fma_rn(k, poly, 1.781477937f);
  poly = fma_rn(k, poly, -0.356563782f);
  poly = fma_rn(k, poly, 0.31938153f);
  float c = 0.39894228040143267794f * expf(-0.5f * d * d) * (k * poly);  // products only: no contraction
  if (d > 0.0f) c = 1.0f - c;
  return c;
}

// d1 of option i: the value of the kernel's only condition (remappers classify by d1 > 0).
// Every multiply-add is an fma_rn, so the plain and the redirected kernels (compiled separately)
// give bit-identical prices.
PFSP_HD float black_scholes_d1(const black_scholes_view& v, std::uint32_t i) {
  const float t = v.years[i];
  const float drift = fma_rn(0.5f * v.volatility, v.volatility, v.riskfree);
  return fma_rn(drift, t, logf(v.price[i] / v.strike[i])) / (v.volatility * sqrtf(t));
}

PFSP_HD void black_scholes_option(const black_scholes_view& v, std::uint32_t i) {
  const float s = v.price[i], x = v.strike[i], t = v.years[i];
  const float sqrt_t = sqrtf(t);
  const float d1 = black_scholes_d1(v, i);
  const float d2 = fma_rn(-v.volatility, sqrt_t, d1);
  const float cnd1 = cnd(d1), cnd2 = cnd(d2);
  const float xd = x * expf(-v.riskfree * t);
  v.call[i] = fma_rn(s, cnd1, -(xd * cnd2));
  v.put[i] = fma_rn(xd, 1.0f - cnd2, -(s * (1.0f - cnd1)));
}

}  // namespace pfsp::divergence
