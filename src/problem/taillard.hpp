// Taillard's benchmark (EJOR 64, 1993): the generator and the table of the 120 instances.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "problem/instance.hpp"

namespace pfsp {

struct taillard_entry {
  const char* name;  // "ta001" ... "ta120"
  int n;
  int m;
  std::uint32_t time_seed;
  int lb;  // best lower bound known (shared/data/taillard_pfsp.csv)
  int ub;  // best makespan known
  bool optimal;
};

// All 120 entries, in order.
std::span<const taillard_entry> taillard_table();

// Entry for "ta001".."ta120" (also accepts "TA1", "ta1"); nullopt for anything else.
std::optional<taillard_entry> find_taillard(std::string_view name);

// Taillard's generator: Park-Miller LCG (a = 16807, m = 2^31 - 1, Schrage's 127773 / 2836),
// times 1 + floor(u * 99), machine loop outside, job loop inside.
instance generate_taillard(int n, int m, std::uint32_t seed, std::string name = {});

// The named instance with its known bounds attached. Throws input_error if unknown.
instance taillard_instance(std::string_view name);

}  // namespace pfsp
