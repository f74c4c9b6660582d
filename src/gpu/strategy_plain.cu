// The strategies that bound with the plain kernel (strategy_runner.cuh): plain, one thread per
// child in natural or --sort order, and remap, Zhang's LAM (CCPE's thread-data remapping at run
// time): the host bins the pool's children into cost classes (remap_classes_of), remaps warps to
// pure classes (divergence::lam_remap) and the plain kernel reads the mapping as its order
// (reference redirection), under Zhang 5.6's efficiency control.
#include <algorithm>
#include <sstream>
#include <vector>

#include "base/cuda_check.cuh"
#include "divergence/pipeline.hpp"
#include "divergence/remap.hpp"
#include "gpu/strategy_runner.cuh"

namespace pfsp::gpu {
namespace {

class plain_runner : public strategy_runner {
 public:
  explicit plain_runner(const strategy_setup& s) : tables_(s.tables), kernels_(s.plain), smem_(s.table_bytes) {}

  void launch(int, const pool_view& pool, int tpb, cudaStream_t stream) override {
    const unsigned block = static_cast<unsigned>(tpb);
    const unsigned grid = (pool.children + block - 1) / block;
    kernels_.children<<<grid, block, smem_, stream>>>(tables_, pool);
    PFSP_CUDA_CHECK_LAUNCH("bound_children_kernel");
  }
  std::string describe() const override { return {}; }

 private:
  tables_view tables_;
  kernel_pair kernels_;
  std::size_t smem_;
};

// Zhang 5.6 for pools: after the prediction (remap_mixed_share), the first eligible pools run
// plain to measure the baseline, the next ones remapped; remapping stays on only while remapped
// pools are min_gain faster per child. Off for good otherwise. Skips are per pool (near the
// root every pool is pure, deeper ones are not), so they never switch it off.
divergence::efficiency_policy remap_efficiency() {
  divergence::efficiency_policy e;
  e.plain_probes = 2;
  e.remapped_probes = 3;
  e.max_skipped = 0;
  e.max_late = 0;
  return e;
}

class remap_runner : public plain_runner {
 public:
  explicit remap_runner(const strategy_setup& s)
      : plain_runner(s),
        params_(s.params),
        probe_(static_cast<std::size_t>(s.slots), false),
        remapped_(static_cast<std::size_t>(s.slots), false) {}

  bool replaces_sort() const override { return true; }

  bool plan_order(int slot, const host_pool& pool, std::uint32_t* order) override {
    const auto sl = static_cast<std::size_t>(slot);
    probe_[sl] = false;
    remapped_[sl] = false;
    if (params_.remap_control && !control_.remapping_wanted()) return false;
    remap_classes_of(pool.n, pool.directions, pool.backward_only, pool.limits, pool.offsets, pool.parents,
                     params_.remap_classes, classes_);
    bool go = true;
    if (params_.remap_control && remap_mixed_share(classes_) < kRemapMinMixedShare) {
      ++skipped_;
      go = false;
    } else if (params_.remap_control) {
      probe_[sl] = true;
      go = plain_probes_ >= remap_efficiency().plain_probes;
      if (!go) ++plain_probes_;
    }
    if (go) {
      const divergence::remap_plan plan = divergence::lam_remap(classes_, params_.remap_classes);
      std::copy(plan.source.begin(), plan.source.end(), order);
      ++pools_;
    }
    remapped_[sl] = go;
    return go;
  }

  void pool_done(int slot, double kernel_seconds, std::size_t children) override {
    const auto sl = static_cast<std::size_t>(slot);
    if (probe_[sl] && children > 0) control_.record(remapped_[sl], kernel_seconds / static_cast<double>(children));
    probe_[sl] = false;
  }

  std::string describe() const override {
    std::ostringstream s;
    s << pools_ << " pools remapped, " << skipped_ << " predicted pure, control "
      << divergence::to_string(control_.state());
    return s.str();
  }

 private:
  strategy_params params_;
  divergence::efficiency_control control_{remap_efficiency()};
  std::vector<std::uint32_t> classes_;
  std::vector<bool> probe_;     // the slot's pool is a probe: its kernel time goes to the control
  std::vector<bool> remapped_;  // ... and it ran with a LAM order
  std::size_t pools_ = 0, skipped_ = 0, plain_probes_ = 0;
};

}  // namespace

std::unique_ptr<strategy_runner> make_plain_runner(const strategy_setup& s) {
  return std::make_unique<plain_runner>(s);
}
std::unique_ptr<strategy_runner> make_remap_runner(const strategy_setup& s) {
  return std::make_unique<remap_runner>(s);
}

}  // namespace pfsp::gpu
