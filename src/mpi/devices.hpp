// Which CUDA devices a worker rank drives (pfsp-mpi --devices, issue 22 item 4): plain C++, so
// the mapping is tested in every build. A rank drives several devices through the GPU backend's
// multi-engine device loop (one engine per device, work shared through the host), so that a
// cluster run may use one rank per node.
#pragma once

#include <vector>

namespace pfsp::dist {

// This worker rank among the worker ranks of its node (node_place in distributed.hpp finds it).
struct rank_place {
  int index = 0;
  int count = 1;
};

enum class device_share {
  one,    // --devices not given: one device, index modulo the devices
  all,    // --devices all: every visible device on every rank
  local,  // --devices local: the node's devices cut into contiguous blocks, one per worker rank
  list,   // --devices 0,1,...: these ordinals on every rank
};

// The share a rank's --devices asks for: `local` (--devices local), `all` (--devices all),
// `listed` (ordinals given), else one.
constexpr device_share share_of(bool local, bool all, bool listed) {
  return local ? device_share::local : all ? device_share::all : listed ? device_share::list : device_share::one;
}

// The ordinals this rank drives on a node of `device_count` devices; `list` for
// device_share::list. Throws input_error when the node has no device or an ordinal is missing.
std::vector<int> rank_devices(device_share share, const std::vector<int>& list, rank_place place, int device_count);

}  // namespace pfsp::dist
