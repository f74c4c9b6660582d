// Loop trip-count divergence in the style of Zhang et al.'s GAFORT case (Section 5.3, Figure 1):
// each thread builds one child gene; with some probability it performs a crossover whose loop
// runs over a random number of gene positions (no crossover = trip count 0, the paper's folding
// of the two divergences into one). Genes are stored position-major, genes[k * n + i], so the
// plain kernel's loads are coalesced -- which is exactly what reference redirection would break
// and why Section 3.3 picks layout transformation here.
#pragma once

#include <cstdint>

#include "divergence/hd.hpp"

namespace pfsp::divergence {

struct gafort_view {
  std::uint32_t n = 0;                   // children
  std::uint32_t gene_length = 0;         // positions stored per gene; a crossover longer than that wraps
  std::uint32_t work = 16;               // multiply-adds per position visited ("compute2")
  const std::uint32_t* trips = nullptr;  // crossover length per child (the loop's trip count)
  const float* fitness = nullptr;        // per child
  const float* genes = nullptr;          // gene_length x n, position-major
  float* out = nullptr;                  // per child
};

// The child of element i; reads column i of genes. Identical on host and device (fma_rn only).
PFSP_HD float gafort_child(const gafort_view& v, std::uint32_t i) {
  float acc = v.fitness[i];
  const std::uint32_t trips = v.trips[i];
  std::uint32_t pos = 0;
  for (std::uint32_t k = 0; k < trips; ++k) {
    const float g = v.genes[static_cast<std::uint64_t>(pos) * v.n + i];
    for (std::uint32_t r = 0; r < v.work; ++r) acc = fma_rn(acc, 0.999f, g);
    if (++pos == v.gene_length) pos = 0;
  }
  return acc;
}

}  // namespace pfsp::divergence
