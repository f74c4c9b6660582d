// The beam search's pass (heuristic/beam.hpp) on the GPU: the same bidirectional beam, the same
// one-machine bound, guide and tie-breaking, so a pass of a given width and target returns the
// schedule the CPU's pass returns (tested), tens of times faster at wide beams.
// - Per depth, one thread block per node bounds the node's children in both directions and
//   chooses the direction (fewer children under the target, then the larger sum of bounds, then
//   the opposite of the node's own); a second pass writes the surviving children's guides, in
//   (node, job) order, compacted by a block scan; a stable radix sort on the guide's bits (CUB)
//   keeps the `width` best in the CPU's candidate order (guide, parent, job); one warp per kept
//   child builds it. The guide is computed with round-to-nearest double operations and no fused
//   multiply-add, as the host computes it.
// - Used by the incumbent engine's bisecting beam (heuristic/aspiration.hpp) on the gpu backend
//   (app binds it), on its own stream beside the device loop.
// Plain C++ interface.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "problem/instance.hpp"

namespace pfsp::gpu {

class device_beam {
 public:
  // Whether a device beam can run this instance (n < 65536: a link packs the job in 16 bits; a
  // node's values fit a block's shared memory).
  static bool available(const instance& inst);
  // Reserves nothing yet; a pass allocates what its width needs (kept for the next pass).
  device_beam(const instance& inst, int device, bool bidirectional = true);
  ~device_beam();
  device_beam(const device_beam&) = delete;
  device_beam& operator=(const device_beam&) = delete;

  // As beam_search::pass: a schedule of makespan below `target`, or empty when the pass found none
  // or *stop rose (checked at each depth); `outside` (optional) lowers the target at each depth.
  std::vector<int> pass(int width, int target, const std::atomic<bool>* stop, const std::function<int()>& outside = {});

  // The widest pass within the memory budget (a quarter of the device's free memory when this
  // object was made, at most 8 GiB), a power of two.
  int width_cap() const;
  std::uint64_t children() const;  // children bounded over all passes

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

}  // namespace pfsp::gpu
