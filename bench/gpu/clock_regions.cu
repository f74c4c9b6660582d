// In-kernel clock64() per divergent region of the children kernel (issue 3; CCPE 2013 section
// 6.3.3, Fig. 3: "sampling this counter at the beginning and at the end of all conditional
// instructions"). A separate translation unit with its own instrumented copy of
// bound_children_kernel (bound_kernels.cuh), built from the same device functions, so the
// production kernels carry no instrumentation. Regions, in kernel order:
//   overhead  an empty region: the cost of one begin/end pair (subtract mentally from small regions)
//   front     schedule_front: limit1 + 1 iterations, or the heads minimum when the prefix is empty
//   back      schedule_back: n - limit2 iterations, or the tails minimum        (termination
//   remain    sum_unscheduled: limit2 - limit1 - 1 iterations                    divergence)
//   set       the scheduled-set build (Variant::build: flags, or a bit mask)
//   lb1       lb1_forward_child / lb1_backward_child: the direction branch (branch divergence)
//   lb2       front_after + lb2_pairs, early exit at ub (termination divergence)
//   total     first sample to last, instrumentation included
// node_parts (regions front + back + remain) is printed as a sum.
//
// Per region it reports, over the pool: work = mean cycles of a child alone on a converged warp
// (the replay below), lane = mean of each lane's own elapsed cycles, warp = mean cycles the warp
// spent in the region, and simt = sum of the lanes' work / sum of (lanes x warp cycles), the
// share of the warp's lane-cycles that did useful work (1 = no divergence loss). Every bound is
// checked against child_bound on the CPU; ctest runs that check for every variant, placement,
// sort and bound kind (GpuClock.*, tests/gpu/CMakeLists.txt, label gpu).
//
//   pfsp_gpu_clock [--instances ta021,ta051] [--bound lb2|lb1|lb1-lb2] [--children 65536]
//                  [--kernels plain,branchless] [--memory shared|global] [--sort none,host]
//                  [--ub opt,none] [--tpb 128] [--reps 3] [--seed 1]
// Comma lists run every combination; --ub takes opt (the best known makespan), none, or N
// (tool_options.hpp). The enum options take the product's names (base/enum_names.hpp,
// registered by app/enum_options.hpp), as pfsp does.
// Exit 2: bad option; 1: no device, CUDA error, or a bound differing from the CPU's.
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <optional>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "app/enum_options.hpp"
#include "base/cuda_check.cuh"
#include "base/device_buffer.cuh"
#include "base/error.hpp"
#include "bound/bound_data.hpp"
#include "bound/lb2.hpp"
#include "bound/node_parts.hpp"
#include "gpu/bound_kernels.cuh"
#include "gpu/policy.hpp"  // the names of --kernels and --memory
#include "gpu/pool_layout.hpp"
#include "problem/io.hpp"
#include "random_parents.hpp"
#include "tool_options.hpp"

#ifndef PFSP_GIT_COMMIT
#define PFSP_GIT_COMMIT "unknown"
#endif

namespace {

using namespace pfsp;
using namespace pfsp::gpu;

constexpr unsigned kFullMask = 0xffffffffu;

enum region : int { r_overhead, r_front, r_back, r_remain, r_set, r_lb1, r_lb2, r_total, kRegions };
const char* const kRegionNames[kRegions] = {"overhead", "front", "back", "remain", "set", "lb1", "lb2", "total"};

// --- Device side --------------------------------------------------------------------------------

// The SM's cycle counter. asm volatile with a memory clobber keeps the compiler's memory accesses
// on their side of the sample; ptxas may still schedule arithmetic across it (check the SASS:
// cuobjdump -sass, CS2R ... SR_CLOCKLO around each region).
__device__ __forceinline__ std::uint64_t clock_sample() {
  std::uint64_t t;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(t)::"memory");
  return t;
}

// pin: the region's result must exist before the closing sample (volatile asm are not reordered
// among themselves). A pointer pinned with a memory clobber makes its array escape, so the
// sample's memory clobber orders the stores into it.
__device__ __forceinline__ void pin(int v) { asm volatile("" ::"r"(v)); }
__device__ __forceinline__ void pin(std::uint64_t v) { asm volatile("" ::"l"(v)); }
__device__ __forceinline__ void pin(const void* p) { asm volatile("" ::"l"(p) : "memory"); }
__device__ __forceinline__ void pin(flags_set s) { pin(static_cast<const void*>(s.flags)); }
__device__ __forceinline__ void pin(mask64_set s) { pin(s.mask); }
__device__ __forceinline__ void pin(mask_words_set s) { pin(static_cast<const void*>(s.words)); }

// Cycles of consecutive regions, per lane and per warp.
//
// What a warp-level time means under Volta+ independent thread scheduling: the lanes of a warp
// have their own program counters and need not be converged anywhere, so "the warp's time in a
// region" needs a definition. Each region starts with __syncwarp(active), so every lane enters it
// together (and the region does not absorb the tail of the previous region's divergence); each
// lane then takes its own stop sample right after the region's last call, and the warp time is
// max over lanes (stop) - min over lanes (start), reduced with __reduce_max_sync /
// __reduce_min_sync: the time from the warp entering the region to its last lane leaving it,
// which is what the warp paid. We prefer this to lane 0's sample after a closing __syncwarp: that
// one also counts the barrier and whatever the scheduler did after the last lane finished, and
// it uses different samples than the lanes' own, so lane <= warp would not hold by construction.
//
// A lane's own elapsed cycles are NOT its work. nvcc reconverges a warp (BSSY/BSYNC) at the join
// of a divergent branch or loop, which for these inlined device functions lies before the stop
// sample: lanes that left a loop early wait there and then read the same clock as the slowest.
// Where a warp does not reconverge, a lane's elapsed time includes the serialized execution of
// the other lanes' path. So the lane column is a diagnostic (lane / warp near 1: the warp had
// reconverged before the sample), and the work comes from a replay (clock_pool::replay_lane):
// the same grid as the real launch, run 32 times; in pass k every warp evaluates the child of its
// lane k on all 32 lanes, converged by construction, so the warp's cycles are that child's cost
// with no divergence. Same grid, same order, same block size: the SMs hold the same number of
// warps as in the real launch, which matters because clock64 counts wall cycles, and a warp's
// cycles grow with the warps it shares the SM's issue slots with (a first version replayed one
// child per warp over a 32 times larger grid: full occupancy made every region 2-4 times slower
// than in the real launch). Caveat: in the replay the 32 lanes read the same
// addresses (broadcast) where the real pool's lanes read 32 parents' permutations; regions with
// per-lane addresses (front, back, remain: perm[i] and p(k, perm[i])) get a work that omits the
// memory divergence, so their simt efficiency counts memory divergence as well. LB2's table reads
// are warp-uniform in both runs.
struct region_clock {
  unsigned active;  // lanes of the warp with a child
  int leader;       // the lowest of them: writes the warp's cycles
  std::uint64_t start = 0, stop = 0;
  std::uint32_t lane[kRegions] = {};
  std::uint32_t warp[kRegions] = {};

  __device__ __forceinline__ void begin() {
    __syncwarp(active);
    start = clock_sample();
  }
  template <int R>
  __device__ __forceinline__ void end() {
    stop = clock_sample();
    record<R>(start, stop);
  }
  // Region R from `from` to the last stop sample (total).
  template <int R>
  __device__ __forceinline__ void record(std::uint64_t from, std::uint64_t to) {
    lane[R] = static_cast<std::uint32_t>(to - from);
    // 32-bit offsets from the leader's start: no wrap-around trouble within one region.
    const auto base = __shfl_sync(active, static_cast<std::uint32_t>(from), leader);
    const int s = static_cast<int>(static_cast<std::uint32_t>(from) - base);
    const int e = static_cast<int>(static_cast<std::uint32_t>(to) - base);
    warp[R] = static_cast<std::uint32_t>(__reduce_max_sync(active, e) - __reduce_min_sync(active, s));
  }
};

struct clock_pool {
  const void* perms = nullptr;            // parents x n jobs
  const std::uint32_t* limits = nullptr;  // pack_limits, per parent
  const std::uint32_t* desc = nullptr;    // children, natural order (make_child)
  const std::uint32_t* order = nullptr;   // slot -> child (host sort); null = identity
  int* bounds = nullptr;                  // children, natural order
  std::uint32_t* lane_cycles = nullptr;   // kRegions x children, by child (replay: the warp's cycles)
  std::uint32_t* warp_cycles = nullptr;   // kRegions x warps
  std::uint32_t* warp_lanes = nullptr;    // warps: lanes with a child
  std::uint32_t children = 0;
  std::uint32_t warps = 0;
  int ub = 0;
  bound_kind kind = bound_kind::lb2;
  int replay_lane = -1;  // -1: one child per thread; k in [0, 32): every warp on the child of its lane k
};

// bound_children_kernel with samples between the calls of child_bound's body (lb2.hpp): the
// same functions in the same order, so the bounds are child_bound's, which the host checks.
// The __syncwarp at every region start reconverges the warp more often than the production
// kernel, whose warps reconverge only where nvcc puts BSYNC (mostly the same joins).
template <class Variant, bool Shared, class SC>
__global__ void clocked_children_kernel(tables_view t, clock_pool pool) {
  extern __shared__ int4 smem4[];
  const bound_view b = load_tables<Shared, bound_view>(t, reinterpret_cast<int*>(smem4));
  const std::uint32_t gtid = blockIdx.x * blockDim.x + threadIdx.x;
  const bool replay = pool.replay_lane >= 0;
  const std::uint32_t slot = replay ? (gtid & ~31u) + static_cast<std::uint32_t>(pool.replay_lane) : gtid;
  const unsigned active = __ballot_sync(kFullMask, slot < pool.children);
  if (slot >= pool.children) return;
  using Job = typename SC::job;
  const std::uint32_t idx = pool.order ? pool.order[slot] : slot;
  const std::uint32_t d = pool.desc[idx];
  const std::uint32_t parent = child_parent(d);
  const std::uint32_t lim = pool.limits[parent];
  const int limit1 = limit1_of(lim), limit2 = limit2_of(lim);
  const Job* perm = static_cast<const Job*>(pool.perms) + static_cast<std::size_t>(parent) * t.n;
  int front[kMaxMachines], back[kMaxMachines], remain[kMaxMachines], scratch[kMaxMachines];

  region_clock clk{active, __ffs(static_cast<int>(active)) - 1};
  clk.begin();
  clk.end<r_overhead>();
  const std::uint64_t first_sample = clk.start;

  clk.begin();
  schedule_front(b, perm, limit1, limit2, front);
  pin(front);
  clk.end<r_front>();

  clk.begin();
  schedule_back(b, perm, limit1, limit2, back);
  pin(back);
  clk.end<r_back>();

  clk.begin();
  sum_unscheduled(b.inst, perm, limit1, limit2, remain);
  pin(remain);
  clk.end<r_remain>();

  const int first = limit1 + 1;
  const int job = perm[first + child_position(d)];
  const bool forward = Variant::forward(d);
  pin(job);
  pin(static_cast<int>(forward));

  typename Variant::template storage<SC, Shared> st;
  decltype(Variant::template build<SC, Shared>(st, perm, 0, 0, 0)) set{};
  clk.begin();
  if (pool.kind != bound_kind::lb1) set = Variant::template build<SC, Shared>(st, perm, t.n, first, limit2);
  pin(set);
  clk.end<r_set>();

  clk.begin();
  int lb1;
  if (forward) {
    lb1 = lb1_forward_child(b.inst, front, back, remain, job);
  } else {
    lb1 = lb1_backward_child(b.inst, front, back, remain, job, scratch);
  }
  pin(lb1);
  pin(scratch);
  clk.end<r_lb1>();

  clk.begin();
  int lb = lb1;
  if (pool.kind == bound_kind::lb2 || (pool.kind == bound_kind::lb1_lb2 && lb1 < pool.ub)) {
    auto sched = [&](int j) { return j == job || set(j); };
    int pairs;
    if (forward) {
      front_after(b.inst, front, job, scratch);
      pairs = lb2_pairs(b, scratch, back, sched, pool.ub);
    } else {
      pairs = lb2_pairs(b, front, scratch, sched, pool.ub);
    }
    lb = pairs > lb1 ? pairs : lb1;
  }
  pin(lb);
  clk.end<r_lb2>();
  clk.record<r_total>(first_sample, clk.stop);

  const std::uint32_t lane_id = threadIdx.x & 31u;
  const std::uint32_t w = gtid / 32;
  if (!replay || static_cast<int>(lane_id) == clk.leader) {
    pool.bounds[idx] = lb;
#pragma unroll
    for (int r = 0; r < kRegions; ++r)
      pool.lane_cycles[static_cast<std::size_t>(r) * pool.children + idx] = replay ? clk.warp[r] : clk.lane[r];
  }
  if (!replay && static_cast<int>(lane_id) == clk.leader) {
#pragma unroll
    for (int r = 0; r < kRegions; ++r) pool.warp_cycles[static_cast<std::size_t>(r) * pool.warps + w] = clk.warp[r];
    pool.warp_lanes[w] = static_cast<std::uint32_t>(__popc(active));
  }
}

using clock_kernel_fn = void (*)(tables_view, clock_pool);

// variant: bound_kernels.cuh's; size_class_id: 0 small, 1 medium, 2 large.
clock_kernel_fn clock_kernel(gpu::kernel_variant variant, bool shared, int size_class_id) {
  auto by_size = [&](auto variant_tag, auto shared_tag) -> clock_kernel_fn {
    using V = decltype(variant_tag);
    constexpr bool S = decltype(shared_tag)::value;
    switch (size_class_id) {
      case 0:
        return clocked_children_kernel<V, S, size_small>;
      case 1:
        return clocked_children_kernel<V, S, size_medium>;
      default:
        return clocked_children_kernel<V, S, size_large>;
    }
  };
  auto by_shared = [&](auto variant_tag) -> clock_kernel_fn {
    if (shared) return by_size(variant_tag, std::true_type{});
    return by_size(variant_tag, std::false_type{});
  };
  switch (variant) {
    case gpu::kernel_variant::plain:
      return by_shared(plain_variant{});
    case gpu::kernel_variant::refactored:
      return by_shared(refactored_variant{});
    default:
      return by_shared(branchless_variant{});
  }
}

// --- Host side ----------------------------------------------------------------------------------

using tools::make_parents;
using tools::parent;
using tools::ub_choice;

// The int tables in one blob as bounder.cu lays them out (each array on a 16-byte boundary; the
// shared placement copies [0, shared_ints)).
struct device_tables {
  device_buffer<int> blob;
  tables_view view;
};
device_tables make_tables(const bound_data& d) {
  const bound_view bv = d.view();
  const int n = bv.inst.n, m = bv.inst.m, np = bv.npairs;
  device_tables out;
  tables_view& t = out.view;
  t.n = n;
  t.m = m;
  t.npairs = np;
  int off = 0;
  auto place = [&](int count) {
    const int at = off;
    off += (count + 3) & ~3;
    return at;
  };
  t.off_p = place(n * m);
  t.off_pair_first = place(np);
  t.off_pair_second = place(np);
  t.off_johnson = place(np * n);
  t.off_lags = place(np * n);
  t.shared_ints = off;
  t.off_heads = place(n * m);
  t.off_tails = place(n * m);
  std::vector<int> blob(static_cast<std::size_t>(off), 0);
  auto put = [&](int at, const std::vector<int>& v) { std::copy(v.begin(), v.end(), blob.begin() + at); };
  put(t.off_p, d.problem().p);
  put(t.off_pair_first, d.pair_first());
  put(t.off_pair_second, d.pair_second());
  put(t.off_johnson, d.johnson());
  put(t.off_lags, d.lags());
  put(t.off_heads, d.heads());
  put(t.off_tails, d.tails());
  out.blob = device_buffer<int>(blob.size());
  PFSP_CUDA_TRY(cudaMemcpy(out.blob.data(), blob.data(), blob.size() * sizeof(int), cudaMemcpyHostToDevice));
  t.blob = out.blob.data();
  return out;
}

// One pool on the host and the device: children in natural order (per parent, forward then
// backward), their CPU bounds, and the thread-data reordering (CCPE 5.2) as a stable counting
// sort on child_key, the bounder's host sort.
struct pool_data {
  std::vector<parent> parents;
  std::vector<std::uint32_t> desc, sorted;
  std::vector<int> cpu;
  device_buffer<unsigned char> perms;
  device_buffer<std::uint32_t> limits, desc_d, sorted_d;
};

pool_data make_pool(const bound_data& data, bound_kind kind, int ub, std::size_t target, std::uint32_t seed) {
  const bound_view b = data.view();
  const int n = b.inst.n, m = b.inst.m;
  const int jb = n <= 256 ? 1 : 2;
  pool_data p;
  p.parents = make_parents(n, target, seed);
  std::vector<unsigned char> perms(p.parents.size() * static_cast<std::size_t>(n) * jb);
  std::vector<std::uint32_t> limits, keys;
  std::vector<int> front(m), back(m), remain(m), scratch(m);
  std::vector<unsigned char> flags(static_cast<std::size_t>(n));
  for (std::size_t q = 0; q < p.parents.size(); ++q) {
    const parent& pa = p.parents[q];
    for (int i = 0; i < n; ++i) {
      const int j = pa.perm[static_cast<std::size_t>(i)];
      const std::size_t at = q * static_cast<std::size_t>(n) + static_cast<std::size_t>(i);
      if (jb == 1)
        perms[at] = static_cast<unsigned char>(j);
      else
        std::memcpy(perms.data() + 2 * at, &j, 2);  // little-endian low half: the uint16 job
    }
    limits.push_back(pack_limits(pa.limit1, pa.limit2));
    node_parts(b, pa.perm.data(), pa.limit1, pa.limit2, front.data(), back.data(), remain.data());
    const int first = pa.limit1 + 1, count = pa.limit2 - first;
    for (int i = 0; i < n; ++i)
      flags[static_cast<std::size_t>(pa.perm[static_cast<std::size_t>(i)])] = (i < first || i >= pa.limit2) ? 1 : 0;
    const unsigned char* f = flags.data();
    auto sched = [f](int j) { return f[j] != 0; };
    for (int dir = 0; dir < 2; ++dir)
      for (int c = 0; c < count; ++c) {
        const bool backward = dir == 1;
        const int job = pa.perm[static_cast<std::size_t>(first + c)];
        p.desc.push_back(make_child(static_cast<std::uint32_t>(q), c, backward));
        keys.push_back(child_key(n, pa.limit1, pa.limit2, backward));
        p.cpu.push_back(
            child_bound(kind, b, front.data(), back.data(), remain.data(), sched, job, !backward, ub, scratch.data()));
      }
  }
  std::vector<std::uint32_t> start((std::size_t{1} << child_key_bits(n)) + 1, 0);
  for (std::uint32_t k : keys) ++start[k + 1];
  for (std::size_t k = 1; k < start.size(); ++k) start[k] += start[k - 1];
  p.sorted.resize(keys.size());
  for (std::size_t c = 0; c < keys.size(); ++c) p.sorted[start[keys[c]]++] = static_cast<std::uint32_t>(c);

  p.perms = device_buffer<unsigned char>(perms.size());
  p.limits = device_buffer<std::uint32_t>(limits.size());
  p.desc_d = device_buffer<std::uint32_t>(p.desc.size());
  p.sorted_d = device_buffer<std::uint32_t>(p.sorted.size());
  PFSP_CUDA_TRY(cudaMemcpy(p.perms.data(), perms.data(), perms.size(), cudaMemcpyHostToDevice));
  PFSP_CUDA_TRY(cudaMemcpy(p.limits.data(), limits.data(), limits.size() * 4, cudaMemcpyHostToDevice));
  PFSP_CUDA_TRY(cudaMemcpy(p.desc_d.data(), p.desc.data(), p.desc.size() * 4, cudaMemcpyHostToDevice));
  PFSP_CUDA_TRY(cudaMemcpy(p.sorted_d.data(), p.sorted.data(), p.sorted.size() * 4, cudaMemcpyHostToDevice));
  return p;
}

// Cycles of one launch configuration, summed over the repetitions.
struct cycles {
  std::vector<double> lane, warp;    // kRegions x children (lane; replay: work), kRegions x warps (warp)
  std::vector<std::uint32_t> lanes;  // warps
  std::vector<double> kernel_ms;
};

// Launches `reps` + 1 times (the first warms caches and is dropped); returns the cycles and
// checks every bound against the CPU's (throws on the first difference). The replay is 32
// launches of the same grid (passes k = 0..31, clock_pool::replay_lane); its lane cycles are the
// children's work, its kernel time the sum of the passes.
cycles run(clock_kernel_fn kernel, const tables_view& t, std::size_t smem, const pool_data& p, const clock_pool& base,
           bool sorted, bool replay, int tpb, int reps) {
  const std::uint32_t children = static_cast<std::uint32_t>(p.desc.size());
  clock_pool pool = base;
  pool.children = children;
  pool.order = sorted ? p.sorted_d.data() : nullptr;
  pool.warps = (children + 31) / 32;
  const unsigned grid = static_cast<unsigned>((children + static_cast<unsigned>(tpb) - 1) / static_cast<unsigned>(tpb));
  cycles out;
  out.lane.assign(static_cast<std::size_t>(kRegions) * children, 0.0);
  out.warp.assign(static_cast<std::size_t>(kRegions) * pool.warps, 0.0);
  std::vector<std::uint32_t> lane(out.lane.size()), warp(out.warp.size());
  std::vector<int> bounds(children);
  cuda_event before, after;
  for (int r = 0; r <= reps; ++r) {
    PFSP_CUDA_TRY(cudaMemset(pool.bounds, 0xff, static_cast<std::size_t>(children) * sizeof(int)));
    double ms = 0;
    for (int pass = 0; pass < (replay ? 32 : 1); ++pass) {
      pool.replay_lane = replay ? pass : -1;
      before.record(nullptr);
      kernel<<<grid, static_cast<unsigned>(tpb), smem>>>(t, pool);
      PFSP_CUDA_CHECK_LAUNCH("clocked_children_kernel");
      after.record(nullptr);
      PFSP_CUDA_TRY(cudaDeviceSynchronize());
      ms += after.since(before);
    }
    if (r == 0) continue;
    out.kernel_ms.push_back(ms);
    PFSP_CUDA_TRY(cudaMemcpy(bounds.data(), pool.bounds, bounds.size() * sizeof(int), cudaMemcpyDeviceToHost));
    for (std::uint32_t c = 0; c < children; ++c)
      if (bounds[c] != p.cpu[c]) {
        const std::uint32_t d = p.desc[c];
        throw error("BOUND MISMATCH (" + std::string(replay ? "replay" : "pool") + "): child " + std::to_string(c) +
                    " (parent " + std::to_string(child_parent(d)) + ", position " + std::to_string(child_position(d)) +
                    (child_backward(d) ? ", backward" : ", forward") + "): GPU " + std::to_string(bounds[c]) +
                    ", CPU child_bound " + std::to_string(p.cpu[c]));
      }
    PFSP_CUDA_TRY(cudaMemcpy(lane.data(), pool.lane_cycles, lane.size() * 4, cudaMemcpyDeviceToHost));
    for (std::size_t i = 0; i < lane.size(); ++i) out.lane[i] += lane[i];
    if (replay) continue;
    PFSP_CUDA_TRY(cudaMemcpy(warp.data(), pool.warp_cycles, warp.size() * 4, cudaMemcpyDeviceToHost));
    for (std::size_t i = 0; i < warp.size(); ++i) out.warp[i] += warp[i];
  }
  out.lanes.resize(pool.warps);
  if (!replay)
    PFSP_CUDA_TRY(cudaMemcpy(out.lanes.data(), pool.warp_lanes, out.lanes.size() * 4, cudaMemcpyDeviceToHost));
  for (double& v : out.lane) v /= reps;
  for (double& v : out.warp) v /= reps;
  return out;
}

// Sums over the pool for one region (or several: node_parts); the printed numbers are ratios.
struct region_sums {
  double work = 0, lane = 0;  // over children
  double warp = 0;            // over warps
  double lane_cycles = 0;     // over warps: lanes x warp cycles, the lane-cycles the warps paid
  void add(const region_sums& o) {
    work += o.work;
    lane += o.lane;
    warp += o.warp;
    lane_cycles += o.lane_cycles;
  }
};

region_sums sums_of(int r, const cycles& real, const cycles& replay, std::size_t children) {
  region_sums s;
  const std::size_t warps = real.lanes.size();
  for (std::size_t c = 0; c < children; ++c) {
    s.work += replay.lane[static_cast<std::size_t>(r) * children + c];  // the child's converged-warp cycles
    s.lane += real.lane[static_cast<std::size_t>(r) * children + c];
  }
  for (std::size_t w = 0; w < warps; ++w) {
    const double cyc = real.warp[static_cast<std::size_t>(r) * warps + w];
    s.warp += cyc;
    s.lane_cycles += cyc * real.lanes[w];
  }
  return s;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

struct options {
  std::vector<std::string> instances{"ta021", "ta051"};
  bound_kind kind = bound_kind::lb2;
  std::size_t children = 65536;
  std::vector<gpu::kernel_variant> kernels{gpu::kernel_variant::plain, gpu::kernel_variant::branchless};
  std::vector<gpu::memory_placement> memory{gpu::memory_placement::shared};
  std::vector<gpu::pool_sort> sorts{gpu::pool_sort::none, gpu::pool_sort::host};  // no device sort here
  std::vector<ub_choice> ubs{ub_choice{}, ub_choice{ub_choice::mode::none, 0}};
  int tpb = 128, reps = 3;
  std::uint32_t seed = 1;
};

// The command line into o. nullopt: run; otherwise the exit code (tool_options.hpp).
std::optional<int> parse(int argc, char** argv, options& o) {
  CLI::App app{"pfsp_gpu_clock: in-kernel clock64() cycles per divergent region of the children kernel"};
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);  // a later --reps wins
  app.add_option("--instances", o.instances, "comma list of instances (ta001..ta120, files)")
      ->delimiter(',')
      ->default_str("ta021,ta051");
  add_enum_option(app, "--bound", o.kind, "lower bound");
  app.add_option("--children", o.children,
                 "children per pool: random parents are drawn until the next one's children would exceed it")
      ->check(CLI::Range(std::size_t{64}, std::size_t{1} << 22))
      ->capture_default_str();
  add_enum_list_option(app, "--kernels", o.kernels, "kernel variants");
  add_enum_list_option(app, "--memory", o.memory, "table placements requested; global where they do not fit");
  add_enum_list_option(app, "--sort", o.sorts, "pool sorts (host: the bounder's host sort)",
                       {gpu::pool_sort::none, gpu::pool_sort::host});
  tools::add_ub_list_option(app, o.ubs, "initial upper bounds: opt (the best known makespan), none, or a makespan");
  app.add_option("--tpb", o.tpb, "threads per block, whole warps")
      ->check(CLI::Range(32, 1024))
      ->check(CLI::Validator(
          [](std::string& v) { return std::stoi(v) % 32 == 0 ? std::string() : "not a multiple of 32 (whole warps)"; },
          "multiple of 32"))
      ->capture_default_str();
  app.add_option("--reps", o.reps, "launches of each kernel; the median kernel time is reported")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  app.add_option("--seed", o.seed, "seed of the random parents (pfsp_gpu_bench draws the same pool)")
      ->capture_default_str();
  return tools::parse_command_line(app, argc, argv);
}

// The instances named on the command line, checked against the kernels' limits; throws.
std::vector<instance> load_instances(const std::vector<std::string>& names) {
  std::vector<instance> instances;
  for (const std::string& name : names) {
    instances.push_back(load_instance(name));
    const instance& inst = instances.back();
    if (inst.n > kMaxJobs || inst.m > kMaxMachines)
      throw input_error(name + ": the kernels handle up to " + std::to_string(kMaxJobs) + " jobs and " +
                        std::to_string(kMaxMachines) + " machines");
    if (inst.n < 2) throw input_error(name + ": needs at least 2 jobs");
  }
  return instances;
}

// Device 0, made current, and what the table and the JSON say of it.
struct device_facts {
  std::string name;
  int sms = 0;
  int clock_khz = 0;
  std::size_t smem_optin = 0;
};

device_facts open_device() {
  PFSP_CUDA_TRY(cudaSetDevice(0));
  cudaDeviceProp prop{};
  PFSP_CUDA_TRY(cudaGetDeviceProperties(&prop, 0));
  device_facts d{prop.name, prop.multiProcessorCount, 0, prop.sharedMemPerBlockOptin};
  if (cudaDeviceGetAttribute(&d.clock_khz, cudaDevAttrClockRate, 0) != cudaSuccess) d.clock_khz = 0;
  (void)cudaGetLastError();
  return d;
}

void print_header(const device_facts& d) {
  std::printf("device %s, %d SMs, %.0f MHz; commit %s\n", d.name.c_str(), d.sms, d.clock_khz / 1000.0, PFSP_GIT_COMMIT);
  std::printf(
      "cycles per region, means over the pool; work: the child alone on a converged warp (replay); lane: the"
      " lane's own elapsed; warp: what the warp paid; simt = sum work / sum (lanes x warp)\n");
  std::printf("%-8s %-6s %-7s %-10s %-6s %-4s %-11s %-10s %10s %10s %10s %6s %9s %9s\n", "instance", "size", "bound",
              "kernel", "memory", "sort", "ub", "region", "work", "lane", "warp", "simt", "lane/warp", "kernel_ms");
}

// One pool (an instance at one initial upper bound) on the device, with its counters.
struct pool_run {
  const instance* inst = nullptr;
  std::string ub_text;  // what was typed (opt, none, N)
  int ub = INT_MAX;
  pool_data pool;
  std::size_t children = 0;
  device_buffer<int> bounds;
  device_buffer<std::uint32_t> lane_cycles, warp_cycles, warp_lanes;
  clock_pool base;

  pool_run(const instance& i, const bound_data& data, const options& o, const ub_choice& u)
      : inst(&i), ub_text(u.text()), ub(u.value(i)), pool(make_pool(data, o.kind, ub, o.children, o.seed)) {
    children = pool.desc.size();
    if (children == 0) throw error("--children " + std::to_string(o.children) + " draws no parent");
    const std::size_t cap = std::max(children, (children + 31) / 32);
    bounds = device_buffer<int>(children);
    lane_cycles = device_buffer<std::uint32_t>(static_cast<std::size_t>(kRegions) * children);
    warp_cycles = device_buffer<std::uint32_t>(static_cast<std::size_t>(kRegions) * cap);
    warp_lanes = device_buffer<std::uint32_t>(cap);
    base.perms = pool.perms.data();
    base.limits = pool.limits.data();
    base.desc = pool.desc_d.data();
    base.bounds = bounds.data();
    base.lane_cycles = lane_cycles.data();
    base.warp_cycles = warp_cycles.data();
    base.warp_lanes = warp_lanes.data();
    base.ub = ub;
    base.kind = o.kind;
  }
};

// One cell (kernel variant, placement, sort) of a pool: the replay and the real launch, a table
// row per region, and the cell's JSON line.
std::string run_cell(const pool_run& pr, const device_tables& tables, const device_facts& dev, const options& o,
                     gpu::kernel_variant kv, gpu::memory_placement mp, gpu::pool_sort sort) {
  const instance& inst = *pr.inst;
  const std::string bound(to_string(o.kind)), ks(to_string(kv)), ms(to_string(mp)), ss(to_string(sort));
  const int size_class = inst.n <= 64 ? 0 : (inst.n <= 256 ? 1 : 2);
  const std::size_t table_bytes = static_cast<std::size_t>(tables.view.shared_ints) * sizeof(int);
  const bool shared = mp == gpu::memory_placement::shared && table_bytes <= dev.smem_optin;
  const std::size_t smem = shared ? table_bytes : 0;
  const clock_kernel_fn kernel = clock_kernel(kv, shared, size_class);
  if (smem > 48 * 1024)
    PFSP_CUDA_TRY(cudaFuncSetAttribute(reinterpret_cast<const void*>(kernel),
                                       cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
  const bool host_sort = sort == gpu::pool_sort::host;
  // The replay in the same order as the real launch: the same warps share the SMs.
  const cycles replay = run(kernel, tables.view, smem, pr.pool, pr.base, host_sort, true, o.tpb, o.reps);
  const cycles real = run(kernel, tables.view, smem, pr.pool, pr.base, host_sort, false, o.tpb, o.reps);
  const double kernel_ms = median(real.kernel_ms);
  std::vector<region_sums> sums;
  for (int r = 0; r < kRegions; ++r) sums.push_back(sums_of(r, real, replay, pr.children));
  region_sums parts;
  for (int r : {r_front, r_back, r_remain}) parts.add(sums[static_cast<std::size_t>(r)]);
  const double nc = static_cast<double>(pr.children), nw = static_cast<double>(real.lanes.size());
  const std::string& us = pr.ub_text;
  const std::string ub_shown = us + (us == "opt" ? "=" + (pr.ub == INT_MAX ? "none" : std::to_string(pr.ub)) : "");
  std::ostringstream regions;
  auto report = [&](const char* name, const region_sums& s) {
    const double simt = s.lane_cycles > 0 ? s.work / s.lane_cycles : 1.0;
    const double lane_ratio = s.lane_cycles > 0 ? s.lane / s.lane_cycles : 1.0;
    std::printf("%-8s %3dx%-2d %-7s %-10s %-6s %-4s %-11s %-10s %10.1f %10.1f %10.1f %6.3f %9.3f %9.3f\n",
                inst.name.c_str(), inst.n, inst.m, bound.c_str(), ks.c_str(), shared ? "shared" : "global", ss.c_str(),
                ub_shown.c_str(), name, s.work / nc, s.lane / nc, s.warp / nw, simt, lane_ratio, kernel_ms);
    regions << (regions.tellp() > 0 ? "," : "") << "\"" << name << "\":{\"work\":" << s.work / nc
            << ",\"lane\":" << s.lane / nc << ",\"warp\":" << s.warp / nw << ",\"simt_efficiency\":" << simt
            << ",\"lane_over_warp\":" << lane_ratio << "}";
  };
  for (int r = 0; r < kRegions; ++r) {
    report(kRegionNames[r], sums[static_cast<std::size_t>(r)]);
    if (r == r_remain) report("node_parts", parts);
  }
  std::ostringstream j;
  j << "{\"tool\":\"pfsp_gpu_clock\",\"instance\":\"" << inst.name << "\",\"n\":" << inst.n << ",\"m\":" << inst.m
    << ",\"bound\":\"" << bound << "\",\"kernel\":\"" << ks << "\",\"memory\":\"" << (shared ? "shared" : "global")
    << "\",\"memory_requested\":\"" << ms << "\",\"tables\":\"int\",\"sort\":\"" << ss << "\",\"ub\":\"" << us
    << "\",\"ub_value\":" << (pr.ub == INT_MAX ? std::string("null") : std::to_string(pr.ub)) << ",\"tpb\":" << o.tpb
    << ",\"children\":" << pr.children << ",\"parents\":" << pr.pool.parents.size()
    << ",\"warps\":" << real.lanes.size() << ",\"reps\":" << o.reps << ",\"seed\":" << o.seed
    << ",\"kernel_ms_median\":" << kernel_ms << ",\"replay_kernel_ms_median\":" << median(replay.kernel_ms)
    << ",\"regions\":{" << regions.str() << "},\"check\":\"ok\",\"device\":\"" << dev.name
    << "\",\"sm_clock_mhz\":" << dev.clock_khz / 1000.0 << ",\"commit\":\"" << PFSP_GIT_COMMIT << "\"}";
  return j.str();
}

}  // namespace

int main(int argc, char** argv) {
  options o;
  std::vector<instance> instances;
  if (const auto rc = parse(argc, argv, o)) return *rc;
  try {
    instances = load_instances(o.instances);
  } catch (const std::exception& e) {
    std::cerr << "pfsp_gpu_clock: " << e.what() << "\n";
    return 2;
  }
  try {
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
      std::cerr << "pfsp_gpu_clock: no CUDA device\n";
      return 1;
    }
    const device_facts dev = open_device();
    print_header(dev);
    std::vector<std::string> json;
    for (const instance& inst : instances) {
      const bound_data data(inst);
      const device_tables tables = make_tables(data);
      for (const ub_choice& u : o.ubs) {
        const pool_run pr(inst, data, o, u);
        for (const gpu::kernel_variant kv : o.kernels)
          for (const gpu::memory_placement mp : o.memory)
            for (const gpu::pool_sort sort : o.sorts) json.push_back(run_cell(pr, tables, dev, o, kv, mp, sort));
      }
    }
    for (const std::string& line : json) std::cout << line << "\n";
  } catch (const std::exception& e) {
    std::cerr << "pfsp_gpu_clock: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
