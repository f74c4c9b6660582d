#include "problem/instance.hpp"

#include "base/error.hpp"

namespace pfsp {

void validate(const instance& inst, const std::string& origin) {
  if (inst.n <= 0) throw file_error(origin, 0, "number of jobs must be positive, got " + std::to_string(inst.n));
  if (inst.m <= 0) throw file_error(origin, 0, "number of machines must be positive, got " + std::to_string(inst.m));
  if (inst.n > 65535) throw file_error(origin, 0, "at most 65535 jobs are supported, got " + std::to_string(inst.n));
  if (inst.p.size() != static_cast<std::size_t>(inst.n) * inst.m)
    throw file_error(
        origin, 0,
        "expected " + std::to_string(inst.n * inst.m) + " processing times, got " + std::to_string(inst.p.size()));
  for (std::size_t i = 0; i < inst.p.size(); ++i)
    if (inst.p[i] <= 0)
      throw file_error(origin, 0,
                       "processing time of job " + std::to_string(i % inst.n + 1) + " on machine " +
                           std::to_string(i / inst.n + 1) + " must be a positive integer, got " +
                           std::to_string(inst.p[i]));
}

}  // namespace pfsp
