// Host entry points of the GPU strategies. No CUDA header: the bench driver and the GPU tests are
// plain C++ that link pfsp_divergence_gpu. Every strategy of a family computes the same outputs
// as the family's plain kernel; only the mapping of work to threads differs. Each run_* function
// is the one switch at the host boundary that picks a kernel instantiation.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "divergence/context_switch.hpp"
#include "divergence/pipeline.hpp"
#include "divergence/remap.hpp"
#include "divergence/task_pool.hpp"

namespace pfsp::divergence::gpu {

struct device_info {
  std::string name;
  int multiprocessors = 0;
  int major = 0, minor = 0;
};
device_info current_device();
// True when a CUDA device can be used (never throws); tests skip without one.
bool device_available() noexcept;

struct timing_options {
  int warmups = 1;
  int repeats = 5;                  // the median of these is reported
  std::uint32_t blocks_per_sm = 0;  // persistent grids: 0 = as many blocks as fit (occupancy)
};

struct timing {
  double median_ms = 0.0, min_ms = 0.0, max_ms = 0.0;
  int repeats = 0;
};

// --- Frey: termination divergence --------------------------------------------------------------

struct mc_termination_spec {
  std::uint32_t tasks = 1u << 22;
  double kill = 0.01;  // per-iteration kill probability
};
struct julia_spec {
  std::uint32_t width = 2048, height = 2048;
  int offset = 0;  // 0 strongly divergent, 1 less, 2 constant
  std::uint32_t crunch = 1000;
};
using termination_spec = std::variant<mc_termination_spec, julia_spec>;

struct run_result {
  timing time;
  std::vector<std::uint32_t> output;  // the workload's outputs, concatenated (keep_output only)
};

// strategy == nullopt: the plain kernel. Persistent runs with All whatever `control` says.
run_result run_termination(const termination_spec& spec, const std::optional<task_pool_params>& strategy,
                           const timing_options& opt, bool keep_output = false);

// --- Frey: branch divergence -------------------------------------------------------------------

struct mc_branch_spec {
  std::uint32_t tasks = 1u << 18;
  double branch = 0.05;  // probability of entering the managed branch per iteration
  std::uint32_t outer = 200, inner = 200;
};
// strategy == nullopt: the plain kernel. pool_contexts: a multiple of 32, at most 2048.
run_result run_branch(const mc_branch_spec& spec, const std::optional<context_switch_params>& strategy,
                      const timing_options& opt, bool keep_output = false);

// --- Zhang: runtime thread-data remapping ------------------------------------------------------

enum class remap_workload { gafort, black_scholes };
enum class remap_plan_kind { lam, sort };
const char* to_string(remap_workload w);
const char* to_string(remap_plan_kind p);

struct remap_spec {
  remap_workload workload = remap_workload::gafort;
  std::uint32_t chunk_elements = 1u << 19;
  std::uint32_t chunks = 12;
  std::uint32_t seed = 1;
  std::uint32_t lam_classes = lam_default_classes;
  double skip_ratio = 0.95;  // a plan predicting lockstep cost above this share of the plain one is skipped
  // GAFORT-like: crossover probability, crossover lengths uniform in [1, max_trips].
  double crossover = 0.7;
  std::uint32_t max_trips = 256;
  std::uint32_t gene_length = 32;
  std::uint32_t work = 1024;
  // BlackScholes: pricing passes per chunk (the SDK sample prices each batch many times).
  std::uint32_t bs_passes = 16;
};

struct remap_strategy {
  remap_plan_kind plan = remap_plan_kind::lam;
  remap_mechanism mechanism = remap_mechanism::layout_transformation;
};

struct remap_result {
  pipeline_report report;
  double kernel_ms = 0.0;     // the workload's kernels alone, summed over chunks (events)
  double moves_ms = 0.0;      // D[] upload and layout moves, summed over chunks (events)
  std::vector<float> output;  // all chunks' outputs, original order (keep_output only)
};

// The CPU-GPU pipeline over spec.chunks chunks (Section 4.1). options.remap == false: plain.
// Efficiency control on (options.efficiency.enabled) also means plans predicting no gain are
// skipped; off means every plan is applied, as in Zhang's Figure 6 middle bars.
remap_result run_remap_pipeline(const remap_spec& spec, const remap_strategy& strategy, const pipeline_options& options,
                                bool keep_output = false);

// One chunk, plan computed beforehand, no pipeline: the kernel-level trade-off of Section 3.3.
struct remap_kernel_times {
  timing plain;            // plain kernel
  timing redirected;       // reads and writes through D[]
  timing layout_kernel;    // plain kernel on moved data
  timing layout_total;     // D[] upload, gather, kernel, scatter
  double plan_ms = 0.0;    // CPU time to compute the plan
  double predicted = 1.0;  // lockstep cost after / before (Zhang's T)
  std::size_t moved = 0;
};
remap_kernel_times time_remap_kernels(const remap_spec& spec, remap_plan_kind plan, const timing_options& opt);

}  // namespace pfsp::divergence::gpu
