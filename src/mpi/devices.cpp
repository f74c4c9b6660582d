#include "mpi/devices.hpp"

#include <string>

#include "base/error.hpp"

namespace pfsp::dist {
namespace {

std::vector<int> block_of(rank_place p, int devices) {
  if (p.count > devices) return {p.index % devices};  // more ranks than devices: they share
  std::vector<int> out;
  for (int d = p.index * devices / p.count; d < (p.index + 1) * devices / p.count; ++d) out.push_back(d);
  return out;
}

}  // namespace

std::vector<int> rank_devices(device_share share, const std::vector<int>& list, rank_place place, int device_count) {
  if (device_count <= 0) throw input_error("--backend gpu: no CUDA device on this rank's machine");
  switch (share) {
    case device_share::one:
      return {place.index % device_count};
    case device_share::all: {
      std::vector<int> out;
      for (int d = 0; d < device_count; ++d) out.push_back(d);
      return out;
    }
    case device_share::local:
      return block_of(place, device_count);
    case device_share::list:
      break;
  }
  for (int d : list)
    if (d < 0 || d >= device_count)
      throw input_error("--devices: device " + std::to_string(d) + " does not exist (this rank's machine has " +
                        std::to_string(device_count) + ")");
  return list;
}

}  // namespace pfsp::dist
