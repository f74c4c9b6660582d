// pfsp-mpi's worker ranks: CUDA_VISIBLE_DEVICES narrowed to the GPUs a worker drives (issue 22,
// item 6), planned here without CUDA so that the mapping is tested in every build; main.cpp sets
// the variable before the worker's first CUDA call. Every worker's CUDA runtime otherwise maps
// every GPU of its node (app/visible_devices.hpp measured that cost for pfsp).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "app/visible_devices.hpp"
#include "mpi/devices.hpp"

namespace pfsp::dist {

// What a worker sets: the variable's text (physical ordinals, each once, in first use) and its
// --devices as positions in that list (a list share: every rank reads them as they are).
struct worker_devices {
  std::string visible;
  gpu::device_selection selection;
};

// The plan for a worker at `place` whose --devices are `given` (`local`: --devices local) on a
// node whose driver lists driver_gpus GPUs; nullopt where nothing is narrowed: the variable is
// already set (by the user or the batch system), --devices all, the driver's GPUs unknown, the
// rank's devices are every GPU in order, or they are wrong (the error shows when the rank sets up).
inline std::optional<worker_devices> plan_worker_devices(const gpu::device_selection& given, bool local,
                                                         rank_place place, int driver_gpus, bool variable_set) {
  if (variable_set || driver_gpus <= 0 || given.all) return std::nullopt;
  const device_share share = share_of(local, false, !given.ordinals.empty());
  gpu::device_selection used;
  try {
    used.ordinals = rank_devices(share, given.ordinals, place, driver_gpus);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  const std::optional<visible_devices> v = plan_visible_devices(used.ordinals.front(), used, driver_gpus, false);
  if (!v) return std::nullopt;
  worker_devices w;
  w.visible = v->text;
  w.selection.ordinals = v->ordinals;
  return w;
}

}  // namespace pfsp::dist
