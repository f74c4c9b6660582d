// One device's part of the device loop (`loop_engine`): its tables (a device_tables it owns),
// its node stack, pool buffers and the iteration captured into CUDA graphs, one per candidate
// block size. Every method makes the engine's device current; the coordinator (coordinator.cu)
// drives one engine per --devices entry from its own host thread.
#pragma once

#include <thrust/iterator/counting_iterator.h>

#include <algorithm>
#include <climits>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "base/cuda_check.cuh"
#include "base/device_buffer.cuh"
#include "base/error.hpp"
#include "gpu/bounder.hpp"  // device_count, query_device
#include "gpu/device_tables.cuh"
#include "gpu/loop_bound.cuh"
#include "gpu/loop_iteration.cuh"
#include "gpu/node_spill.hpp"
#include "gpu/pool_layout.hpp"
#include "search/expander.hpp"
#include "search/tree_estimate.hpp"

namespace pfsp::gpu::device_loop {

// Settings shared by every device's engine (checked before: check_device_loop, plan.hpp).
struct loop_settings {
  std::size_t pool = 0;  // children an iteration
  int tpb = 0;           // 0: tuned
  bool sort = false;
  bool parts = true;  // --loop-bound parts
  // Bytes an engine's buffers may take, the node stack growing into what the others leave
  // (--gpu-memory; 0: the stack takes at most loop_tuning::stack_memory_share of the free memory).
  std::size_t memory_cap = 0;
};

inline loop_settings settings_of(const gpu_policy& policy, int jobs, int machines) {
  loop_settings s;
  s.pool = policy.pool_size ? policy.pool_size : policy.loop.pool_for(jobs, machines);
  s.tpb = policy.threads_per_block;  // 0: tuned at run time (loop_engine::candidates)
  s.parts = policy.bound_step == loop_bound::parts;
  // The sort groups children by their parents' loop lengths, which only the recompute kernel has.
  s.sort = policy.sort == pool_sort::device && !s.parts;
  s.memory_cap = policy.memory_cap;
  return s;
}

// One device's loop: its tables, node stack, pool buffers and graph. Every method first makes
// its device current, so that a coordinator can drive engines of several devices from any thread
// (one thread at a time per engine). Between run() calls the engine's stream is idle.
template <class Job>
class loop_engine {
 public:
  loop_engine(const bound_data& data, const solve_options& opt, const gpu_policy& policy, const loop_settings& ls,
              int device, double memory_share)
      : n_(data.view().inst.n), device_(device), profile_(opt.profile), tuning_(policy.loop), stream_(device) {
    make_tables(data, opt, policy);  // makes the device current
    pack_limit_ = pack_limit_of(data);
    if (pack_limit_ > 0 && n_ <= 64) pack_ranks_ = device_buffer<uint4>(pack_ranks_of(data));
    choose_blocks(ls, policy);
    sort_ = ls.sort;
    parts_ = ls.parts;
    size_pool(ls);
    std::size_t free_before = 0, total_b = 0;
    PFSP_CUDA_TRY(cudaMemGetInfo(&free_before, &total_b));
    allocate(opt, policy);
    size_stack(ls, memory_share, free_before);
    allocate_stack(capacity_);
    point_views(opt);
    capture_graphs();
    select(0);
  }
  ~loop_engine() {
    (void)cudaSetDevice(device_);
    destroy_graphs();
  }

  // The candidate block sizes of the bounding kernel, and which one run() uses.
  const std::vector<int>& candidates() const { return tpbs_; }
  void select(std::size_t i) {
    current_ = i;
    tpb_ = tpbs_[i];
  }
  std::size_t selected() const { return current_; }
  loop_engine(const loop_engine&) = delete;
  loop_engine& operator=(const loop_engine&) = delete;

  const loop_state& state() const { return host_; }  // as of the last run() or change
  std::size_t capacity() const { return capacity_; }
  // The most nodes the stack may grow to (the memory cap), and the largest it has been.
  std::size_t max_capacity() const { return max_capacity_; }
  std::size_t peak_capacity() const { return peak_capacity_; }
  // The stack's first size (what a few full pools can push; size_stack).
  std::size_t first_capacity() const { return first_capacity_; }
  // Nodes the stack keeps free for one-parent iterations (pool_limit, loop_iteration.cuh).
  std::size_t reserve() const { return reserve_; }
  // Nodes an iteration may push at most (its children over the directions).
  std::size_t max_push() const { return child_cap_ / static_cast<std::size_t>(dirs_); }
  std::size_t max_parents() const { return max_parents_; }
  // Children an iteration may bound: at most max_children(), at least a root's.
  std::uint32_t child_cap() const { return child_cap_; }
  std::uint32_t min_child_cap() const { return static_cast<std::uint32_t>(dirs_ * n_); }
  void set_child_cap(std::uint32_t c) {
    c = std::clamp(c, min_child_cap(), max_children_);
    if (c == child_cap_) return;
    use();
    child_cap_ = c;
    PFSP_CUDA_TRY(cudaMemcpyAsync(d_child_cap_.data(), &c, sizeof c, cudaMemcpyHostToDevice, stream_.get()));
    settle();
  }

  // Grows the stack to hold at least `want` nodes (doubling, within max_capacity()); false when
  // it cannot grow (at the cap, or the device is out of memory: the cap then drops to the
  // stack's size). Between runs.
  bool grow(std::size_t want) {
    if (want <= capacity_) return true;
    if (capacity_ >= max_capacity_) return false;
    use();
    const std::size_t to = std::min(max_capacity_, std::max(want, 2 * capacity_));
    stack_buffers old{std::move(stack_perms_), std::move(stack_limits_), std::move(stack_lbs_), std::move(stack_w_)};
    try {
      allocate_stack(to);
    } catch (const cuda_error&) {
      (void)cudaGetLastError();  // out of memory is not sticky: the engine goes on with its stack
      restore(std::move(old));
      max_capacity_ = capacity_;
      return false;
    }
    copy_nodes(old, 0, 0, host_.top);
    settle();  // before `old` is freed
    point_stack();
    capture_graphs();
    return to >= want;
  }
  std::size_t node_bytes() const { return node_bytes_; }
  int device() const { return device_; }
  std::uint32_t max_children() const { return max_children_; }
  int threads_per_block() const { return tpb_; }
  const device_info& device_properties() const { return dev_; }
  // "lb1-lb2 branchless kernel, tables in shared memory (5 KiB per block)", for the backend's
  // description.
  std::string describe_tables() const {
    return std::string(to_string(kind_)) + ' ' + std::string(to_string(kernel_)) + " kernel, " + dt_->describe();
  }
  // What the bounding step runs, for the backend's description.
  std::string bound_step() const {
    if (!parts_)
      return std::string("bound step: recompute (each child's thread rebuilds its parent's parts), ") +
             (sort_ ? "children sorted by (limit1, limit2) on the device" : "children unsorted");
    std::string s = "bound step: parts once per parent";
    if (pk_.fused) s += ", LB1 in the parents kernel (a thread a parent";
    if (pk_.fused) s += pk_.decides ? ", which decides)" : ")";
    if (dominance_) s += ", swap dominance";
    if (dominance_asked_ && !dominance_) s += ", no swap dominance (LB1 parents kernels only)";
    if (pk_.table)
      s += ", LB1 then LB2 from each parent's table (a warp a parent, " +
           std::string(second_smem_ ? "tables and rows" : "rows") + " in shared memory)";
    else if (pk_.second)
      s += ", LB1 then LB2 on the compacted survivors";
    if (pk_.second && !pk_.table && lb2_lanes_ > 1) s += " (" + std::to_string(lb2_lanes_) + " lanes a child)";
    if (pk_.pack) s += " (two children a thread in 16-bit halves)";
    s += first_smem_ ? ", its tables in shared memory" : ", tables in global memory";
    return s;
  }
  const double* phase_ms() const { return phase_ms_; }

  // Whether the block-size tuning has run on this engine (a kept engine does not repeat it).
  bool tuned() const { return tuned_; }
  void mark_tuned() { tuned_ = true; }

  // Back to a new engine's state for another search on the same tables (engine_cache): an empty
  // stack (its grown capacity kept), zero counters, no threshold, the full pool. The graphs stay
  // valid: no buffer moves.
  void reset() {
    use();
    host_ = loop_state{};
    child_cap_ = max_children_;
    std::fill(std::begin(phase_ms_), std::end(phase_ms_), 0.0);
    const std::size_t d = static_cast<std::size_t>(n_) + 1;
    PFSP_CUDA_TRY(cudaMemsetAsync(depth_popped_.data(), 0, d * sizeof(unsigned long long), stream_.get()));
    PFSP_CUDA_TRY(cudaMemsetAsync(depth_kept_.data(), 0, d * sizeof(unsigned long long), stream_.get()));
    PFSP_CUDA_TRY(
        cudaMemcpyAsync(d_child_cap_.data(), &child_cap_, sizeof child_cap_, cudaMemcpyHostToDevice, stream_.get()));
    PFSP_CUDA_TRY(cudaMemcpyAsync(d_state_.data(), &host_, sizeof host_, cudaMemcpyHostToDevice, stream_.get()));
    clear_guide();
    settle();
  }

  // child_order::incumbent: from the next run the push kernel orders children by `best`'s
  // schedule, uploaded when its makespan dropped since the last upload (the engine's own improving
  // leaves rewrite the guide on the device as they are found). No schedule yet (a bare --ub):
  // the bound's order.
  void follow(const incumbent& best) {
    if (!v_.guide || best.value() >= guide_value_) return;
    auto [value, schedule] = best.snapshot();
    if (schedule.size() != static_cast<std::size_t>(n_)) return;
    std::vector<int>& pos = h_guide_;
    for (int i = 0; i < n_; ++i) pos[static_cast<std::size_t>(schedule[static_cast<std::size_t>(i)])] = i;
    guide_value_ = value;
    use();
    PFSP_CUDA_TRY(
        cudaMemcpyAsync(guide_.data(), pos.data(), pos.size() * sizeof(int), cudaMemcpyHostToDevice, stream_.get()));
    settle();
  }

  // Starts the counters at these values (the root's bound and prune, on one engine).
  void set_counters(const loop_state& s) {
    use();
    const std::uint32_t top = host_.top;
    const int best = host_.best;
    host_ = s;
    host_.top = top;
    host_.best = std::min(best, s.best);
    PFSP_CUDA_TRY(cudaMemcpyAsync(d_state_.data(), &host_, sizeof host_, cudaMemcpyHostToDevice, stream_.get()));
    settle();
  }

  // Lowers the device's pruning threshold (a better incumbent found elsewhere).
  void lower_best(int value) {
    if (value >= host_.best) return;
    use();
    host_.best = value;
    *h_best_.data() = value;
    PFSP_CUDA_TRY(
        cudaMemcpyAsync(&d_state_.data()->best, h_best_.data(), sizeof(int), cudaMemcpyHostToDevice, stream_.get()));
    PFSP_CUDA_TRY(cudaStreamSynchronize(stream_.get()));
  }

  // Pushes nodes (bottom first) onto the top of the stack.
  void push(const node_batch<Job>& b) {
    if (b.empty()) return;
    use();
    const std::size_t top = host_.top, k = b.size(), nn = static_cast<std::size_t>(n_);
    PFSP_EXPECTS(top + k <= capacity_, "device loop: a push beyond the stack's capacity (the coordinator makes room)");
    PFSP_CUDA_TRY(cudaMemcpy2DAsync(stack_perms_.data() + top * ld_, ld_ * sizeof(Job), b.perms.data(),
                                    nn * sizeof(Job), nn * sizeof(Job), k, cudaMemcpyHostToDevice, stream_.get()));
    PFSP_CUDA_TRY(cudaMemcpyAsync(stack_limits_.data() + top, b.limits.data(), k * sizeof(std::uint32_t),
                                  cudaMemcpyHostToDevice, stream_.get()));
    PFSP_CUDA_TRY(
        cudaMemcpyAsync(stack_lbs_.data() + top, b.lbs.data(), k * sizeof(int), cudaMemcpyHostToDevice, stream_.get()));
    PFSP_CUDA_TRY(
        cudaMemcpyAsync(stack_w_.data() + top, b.w.data(), k * sizeof(float), cudaMemcpyHostToDevice, stream_.get()));
    host_.top = static_cast<std::uint32_t>(top + k);
    PFSP_CUDA_TRY(
        cudaMemcpyAsync(&d_state_.data()->top, &host_.top, sizeof host_.top, cudaMemcpyHostToDevice, stream_.get()));
    settle();
  }

  // Puts nodes (bottom first) under the stack's nodes: those slide up by b.size() (in chunks of
  // that many, the highest first, so that no copy overlaps itself).
  void push_under(const node_batch<Job>& b) {
    if (b.empty()) return;
    use();
    const std::size_t top = host_.top, k = b.size();
    PFSP_EXPECTS(top + k <= capacity_, "device loop: a push beyond the stack's capacity (the coordinator makes room)");
    for (std::size_t end = top; end > 0;) {
      const std::size_t len = std::min(k, end), at = end - len;
      move_nodes(at, at + k, len);
      end = at;
    }
    host_.top = 0;
    PFSP_CUDA_TRY(
        cudaMemcpyAsync(&d_state_.data()->top, &host_.top, sizeof host_.top, cudaMemcpyHostToDevice, stream_.get()));
    push(b);
    host_.top = static_cast<std::uint32_t>(top + k);
    PFSP_CUDA_TRY(
        cudaMemcpyAsync(&d_state_.data()->top, &host_.top, sizeof host_.top, cudaMemcpyHostToDevice, stream_.get()));
    settle();
  }

  // Copies the stack's nodes [from, from + k) out.
  node_batch<Job> read(std::size_t from, std::size_t k) {
    use();
    node_batch<Job> b;
    const std::size_t nn = static_cast<std::size_t>(n_);
    b.perms.resize(k * nn);
    b.limits.resize(k);
    b.lbs.resize(k);
    b.w.resize(k);
    if (k == 0) return b;
    PFSP_CUDA_TRY(cudaMemcpy2DAsync(b.perms.data(), nn * sizeof(Job), stack_perms_.data() + from * ld_,
                                    ld_ * sizeof(Job), nn * sizeof(Job), k, cudaMemcpyDeviceToHost, stream_.get()));
    PFSP_CUDA_TRY(cudaMemcpyAsync(b.limits.data(), stack_limits_.data() + from, k * sizeof(std::uint32_t),
                                  cudaMemcpyDeviceToHost, stream_.get()));
    PFSP_CUDA_TRY(cudaMemcpyAsync(b.lbs.data(), stack_lbs_.data() + from, k * sizeof(int), cudaMemcpyDeviceToHost,
                                  stream_.get()));
    PFSP_CUDA_TRY(
        cudaMemcpyAsync(b.w.data(), stack_w_.data() + from, k * sizeof(float), cudaMemcpyDeviceToHost, stream_.get()));
    settle();
    return b;
  }

  // Removes the k bottom nodes (the shallowest: the largest subtrees) and returns them; the rest
  // slide down in chunks of k, so that no copy overlaps itself.
  node_batch<Job> take_bottom(std::size_t k) {
    node_batch<Job> b = read(0, k);
    drop_bottom(k);
    return b;
  }

  // Removes the k bottom nodes (already read out): the rest slide down in chunks of k.
  void drop_bottom(std::size_t k) {
    use();
    const std::size_t top = host_.top;
    k = std::min(k, top);
    if (k == 0) return;  // (a step of 0 would never end the slide)
    for (std::size_t at = k; at < top; at += k) move_nodes(at, at - k, std::min(k, top - at));
    host_.top = static_cast<std::uint32_t>(top - k);
    PFSP_CUDA_TRY(
        cudaMemcpyAsync(&d_state_.data()->top, &host_.top, sizeof host_.top, cudaMemcpyHostToDevice, stream_.get()));
    settle();
  }

  // Runs `batch` iterations and returns the state after them.
  const loop_state& run(int batch) {
    use();
    const cudaStream_t st = stream_.get();
    for (int i = 0; i < batch; ++i) {
      if (!profile_) {
        PFSP_CUDA_TRY(cudaGraphLaunch(execs_[current_], st));
        continue;
      }
      // --profile: the same kernels launched one by one, with events between the phases.
      iteration(events_.data());
      events_[kPhases].synchronize();
      for (int k = 0; k < kPhases; ++k) phase_ms_[k] += events_[k + 1].since(events_[k]);
    }
    PFSP_CUDA_TRY(cudaMemcpyAsync(h_state_.data(), d_state_.data(), sizeof(loop_state), cudaMemcpyDeviceToHost, st));
    PFSP_CUDA_TRY(cudaStreamSynchronize(st));
    host_ = *h_state_.data();
    if (host_.overflow)  // pool_limit keeps room for every push: a bug
      throw error("--gpu-loop device: a push overflowed the node stack (" + std::to_string(capacity_) + " nodes)");
    return host_;
  }

  // The schedule of the last improving leaf (valid when state().found).
  std::vector<Job> best_leaf() {
    use();
    std::vector<Job> perm(static_cast<std::size_t>(n_));
    PFSP_CUDA_TRY(cudaMemcpyAsync(perm.data(), best_perm_.data(), perm.size() * sizeof(Job), cudaMemcpyDeviceToHost,
                                  stream_.get()));
    settle();
    return perm;
  }

  // The open nodes' smallest bound, depths and tree weight, and the per-depth counts so far,
  // added into p (sized n + 1); returns the smallest bound (INT_MAX when the stack is empty).
  // Between runs.
  int collect(depth_profile& p, double& open_weight) {
    use();
    const cudaStream_t st = stream_.get();
    const std::size_t d = static_cast<std::size_t>(n_) + 1;
    const int big = INT_MAX;
    PFSP_CUDA_TRY(cudaMemcpyAsync(open_min_.data(), &big, sizeof big, cudaMemcpyHostToDevice, st));
    PFSP_CUDA_TRY(cudaMemsetAsync(open_depths_.data(), 0, d * sizeof(unsigned long long), st));
    PFSP_CUDA_TRY(cudaMemsetAsync(open_w_.data(), 0, sizeof(double), st));
    if (host_.top > 0)
      open_stats_kernel<Job>
          <<<std::min(blocks_for(host_.top, loop_tuning::stats_block), tuning_.stats_grid_max),
             loop_tuning::stats_block, 0, st>>>(v_, open_min_.data(), open_depths_.data(), open_w_.data());
    PFSP_CUDA_CHECK_LAUNCH("the open nodes' statistics");
    std::vector<unsigned long long> a(d), b(d), c(d);
    int mn = INT_MAX;
    PFSP_CUDA_TRY(cudaMemcpyAsync(a.data(), depth_popped_.data(), d * sizeof a[0], cudaMemcpyDeviceToHost, st));
    PFSP_CUDA_TRY(cudaMemcpyAsync(b.data(), depth_kept_.data(), d * sizeof b[0], cudaMemcpyDeviceToHost, st));
    PFSP_CUDA_TRY(cudaMemcpyAsync(c.data(), open_depths_.data(), d * sizeof c[0], cudaMemcpyDeviceToHost, st));
    PFSP_CUDA_TRY(cudaMemcpyAsync(&mn, open_min_.data(), sizeof mn, cudaMemcpyDeviceToHost, st));
    PFSP_CUDA_TRY(cudaMemcpyAsync(&open_weight, open_w_.data(), sizeof open_weight, cudaMemcpyDeviceToHost, st));
    PFSP_CUDA_TRY(cudaStreamSynchronize(st));
    for (std::size_t i = 0; i < d; ++i) {
      p.popped[i] += a[i];
      p.kept[i] += b[i];
      p.open[i] += c[i];
    }
    return mn;
  }

  static constexpr int kPhases = 5;

 private:
  // --- construction steps, in this order ---

  // The engine's own tables on its device (device_tables.cuh); makes the device current.
  void make_tables(const bound_data& data, const solve_options& opt, const gpu_policy& policy) {
    const int m = data.view().inst.m;
    if (n_ > kMaxJobs || m > kMaxMachines)
      throw input_error("the GPU backend handles up to " + std::to_string(kMaxJobs) + " jobs and " +
                        std::to_string(kMaxMachines) + " machines; use --backend cpu-mt");
    if (device_count() <= device_) throw cuda_error("no CUDA device " + std::to_string(device_));
    PFSP_CUDA_TRY(cudaSetDevice(device_));
    dev_ = query_device(device_);
    kind_ = opt.bound;
    kernel_ = policy.kernel;
    dirs_ = (opt.branch == branching::forward || opt.branch == branching::backward) ? 1 : 2;
    backward_only_ = opt.branch == branching::backward;
    dominance_asked_ = opt.dominance;
    dt_ = std::make_unique<device_tables>(data, opt.bound, policy, dev_);
    ds_ = dt_->view();
  }

  void choose_blocks(const loop_settings& ls, const gpu_policy& policy) {
    // Block sizes to try: policy.loop.first_block (256, the best measured where the tables leave
    // room for several blocks an SM: 20x20), and the block size of highest occupancy for the
    // tables' shared memory (one block an SM above 114 KiB: 50x20 and larger measured best there
    // in the host loop).
    if (ls.tpb) {
      tpbs_ = {ls.tpb};
    } else {
      tpbs_ = {policy.loop.first_block};
      const int occ = dt_->occupancy_threads_per_block();
      if (occ != policy.loop.first_block) tpbs_.push_back(occ);
    }
  }

  void size_pool(const loop_settings& ls) {
    const int dirs = dirs_;
    // Permutations: padded to 16 bytes and copied as words by the parts path; the recompute
    // kernel reads parents at a stride of n jobs.
    ld_ = parts_ ? static_cast<int>((static_cast<std::size_t>(n_) * sizeof(Job) + 15) / 16 * 16 / sizeof(Job)) : n_;
    // Pool: max_children children bounded an iteration, at most max_parents popped nodes (a
    // parent has at least dirs children).
    // The per-parent passes run over max_parents slots (policy.loop.parents_share: a quarter of
    // the most parents a pool could take, pool / dirs, all with one unscheduled job).
    max_children_ = static_cast<std::uint32_t>(ls.pool);
    child_cap_ = max_children_;
    const std::size_t share = static_cast<std::size_t>(tuning_.parents_share) * static_cast<std::size_t>(dirs);
    max_parents_ = static_cast<std::uint32_t>(
        std::max<std::size_t>(1, std::min<std::size_t>(ls.pool / share, kMaxParentsPerPool)));
    node_bytes_ = static_cast<std::size_t>(ld_) * sizeof(Job) + 2 * sizeof(std::uint32_t);
  }

  // The stack's bounds, after the other buffers are allocated (free_before: the device's free
  // memory before them). Most: the depth-first bound (each level holds at most one pool's
  // survivors, max_children / dirs, over n levels), within --gpu-memory less the other buffers,
  // or within `memory_share` of the free memory. First: what a few iterations can push
  // (loop_tuning::initial_stack_pools full pools' survivors); it grows on demand (grow()).
  // Reserve: enough for one-parent iterations to dive from any node to the leaves.
  void size_stack(const loop_settings& ls, double memory_share, std::size_t free_before) {
    std::size_t free_b = 0, total_b = 0;
    PFSP_CUDA_TRY(cudaMemGetInfo(&free_b, &total_b));
    const std::size_t nn = static_cast<std::size_t>(n_), push = ls.pool / static_cast<std::size_t>(dirs_);
    reserve_ = (nn + 2) * (nn + 1) / 2;
    std::size_t bytes = static_cast<std::size_t>(static_cast<double>(free_b) * memory_share);
    if (ls.memory_cap) {
      const std::size_t others = free_before > free_b ? free_before - free_b : 0;
      const std::size_t least = others + 2 * (reserve_ + nn + 2) * node_bytes_;
      if (ls.memory_cap < least)
        throw input_error("--gpu-memory " + std::to_string(ls.memory_cap >> 20) + " MiB: the device loop needs " +
                          std::to_string((least + (1 << 20) - 1) >> 20) + " MiB at least on this instance (" +
                          std::to_string(others >> 20) + " MiB of pool buffers at --pool-size " +
                          std::to_string(ls.pool) + "; a smaller pool needs less)");
      bytes = std::min(ls.memory_cap - others, free_b);
    }
    max_capacity_ = std::min<std::size_t>((nn + 2) * push, bytes / node_bytes_);
    max_capacity_ = std::min<std::size_t>(max_capacity_, 0xFFFFFFFFu);
    if (tuning_.max_stack_nodes) max_capacity_ = std::min(max_capacity_, tuning_.max_stack_nodes);
    max_capacity_ = std::max(max_capacity_, 2 * (reserve_ + nn + 2));
    const std::size_t pools = std::min(static_cast<std::size_t>(tuning_.initial_stack_pools) * push,
                                       std::max(push, tuning_.batch_room_bytes / node_bytes_));
    const std::size_t first = std::max<std::size_t>(pools + reserve_, tuning_.initial_stack_nodes);
    capacity_ = std::min(max_capacity_, first);
    first_capacity_ = capacity_;
  }

  // The node stack's four arrays, `nodes` long.
  void allocate_stack(std::size_t nodes) {
    const std::size_t ld = static_cast<std::size_t>(ld_);
    stack_perms_ = device_buffer<Job>(nodes * ld);
    stack_limits_ = device_buffer<std::uint32_t>(nodes);
    stack_lbs_ = device_buffer<int>(nodes);
    stack_w_ = device_buffer<float>(nodes);
    capacity_ = nodes;
    peak_capacity_ = std::max(peak_capacity_, nodes);
  }
  struct stack_buffers {
    device_buffer<Job> perms;
    device_buffer<std::uint32_t> limits;
    device_buffer<int> lbs;
    device_buffer<float> w;
  };
  void restore(stack_buffers&& old) {
    stack_perms_ = std::move(old.perms);
    stack_limits_ = std::move(old.limits);
    stack_lbs_ = std::move(old.lbs);
    stack_w_ = std::move(old.w);
    capacity_ = stack_limits_.size();
  }
  // Every copy and set of the engine's buffers runs on its stream (cudaMemcpyAsync), where the
  // iterations' graphs run: the stream is non-blocking, so a plain cudaMemcpy (the legacy default
  // stream; from pageable memory it returns before its DMA lands) would race the next graph, which
  // then read stale nodes (issue 22: chunks resumed by pfsp-mpi branched other nodes than the ones
  // sent). settle() waits for them where the host reuses or frees what they touch.
  void settle() { PFSP_CUDA_TRY(cudaStreamSynchronize(stream_.get())); }

  // No schedule to follow: every position 0, so all children of a parent are equally far from
  // it and the bound orders them.
  void clear_guide() {
    guide_value_ = INT_MAX;
    if (guide_.size() > 0) PFSP_CUDA_TRY(cudaMemsetAsync(guide_.data(), 0, guide_.size() * sizeof(int), stream_.get()));
  }

  // len nodes from `from` of `src` to `to` of the stack.
  void copy_nodes(const stack_buffers& src, std::size_t from, std::size_t to, std::size_t len) {
    if (len == 0) return;
    const std::size_t ld = static_cast<std::size_t>(ld_);
    PFSP_CUDA_TRY(cudaMemcpyAsync(stack_perms_.data() + to * ld, src.perms.data() + from * ld, len * ld * sizeof(Job),
                                  cudaMemcpyDeviceToDevice, stream_.get()));
    PFSP_CUDA_TRY(cudaMemcpyAsync(stack_limits_.data() + to, src.limits.data() + from, len * sizeof(std::uint32_t),
                                  cudaMemcpyDeviceToDevice, stream_.get()));
    PFSP_CUDA_TRY(cudaMemcpyAsync(stack_lbs_.data() + to, src.lbs.data() + from, len * sizeof(int),
                                  cudaMemcpyDeviceToDevice, stream_.get()));
    PFSP_CUDA_TRY(cudaMemcpyAsync(stack_w_.data() + to, src.w.data() + from, len * sizeof(float),
                                  cudaMemcpyDeviceToDevice, stream_.get()));
  }
  // len nodes of the stack from `from` to `to` (the ranges must not overlap).
  void move_nodes(std::size_t from, std::size_t to, std::size_t len) {
    const std::size_t ld = static_cast<std::size_t>(ld_);
    PFSP_CUDA_TRY(cudaMemcpyAsync(stack_perms_.data() + to * ld, stack_perms_.data() + from * ld,
                                  len * ld * sizeof(Job), cudaMemcpyDeviceToDevice, stream_.get()));
    PFSP_CUDA_TRY(cudaMemcpyAsync(stack_limits_.data() + to, stack_limits_.data() + from, len * sizeof(std::uint32_t),
                                  cudaMemcpyDeviceToDevice, stream_.get()));
    PFSP_CUDA_TRY(cudaMemcpyAsync(stack_lbs_.data() + to, stack_lbs_.data() + from, len * sizeof(int),
                                  cudaMemcpyDeviceToDevice, stream_.get()));
    PFSP_CUDA_TRY(cudaMemcpyAsync(stack_w_.data() + to, stack_w_.data() + from, len * sizeof(float),
                                  cudaMemcpyDeviceToDevice, stream_.get()));
  }

  // The stack, pool and statistics buffers, CUB's scratch, and the parts path's (setup_parts).
  void allocate(const solve_options& opt, const gpu_policy& policy) {
    const std::size_t nn = static_cast<std::size_t>(n_), ld = static_cast<std::size_t>(ld_);
    d_state_ = device_buffer<loop_state>(1);
    d_child_cap_ = device_buffer<std::uint32_t>(1);
    PFSP_CUDA_TRY(
        cudaMemcpyAsync(d_child_cap_.data(), &child_cap_, sizeof child_cap_, cudaMemcpyHostToDevice, stream_.get()));
    pool_perms_ = device_buffer<Job>(static_cast<std::size_t>(max_parents_) * ld);
    best_perm_ = device_buffer<Job>(nn);
    if (opt.order == child_order::incumbent) {
      guide_ = device_buffer<int>(nn);
      h_guide_.assign(nn, 0);
      clear_guide();
    }
    pool_limits_ = device_buffer<std::uint32_t>(max_parents_);
    counts_ = device_buffer<std::uint32_t>(max_parents_);
    incl_ = device_buffer<std::uint32_t>(max_parents_);
    offsets_ = device_buffer<std::uint32_t>(max_parents_);
    desc_ = device_buffer<std::uint32_t>(max_children_);
    kept_ = device_buffer<std::uint32_t>(max_parents_);
    kept_incl_ = device_buffer<std::uint32_t>(max_parents_);
    pool_w_ = device_buffer<float>(max_parents_);
    bounds_ = device_buffer<int>(max_children_);
    forward_ = device_buffer<std::uint8_t>(max_parents_);
    if (sort_) {
      keys_ = device_buffer<std::uint32_t>(max_children_);
      keys_sorted_ = device_buffer<std::uint32_t>(max_children_);
      values_ = device_buffer<std::uint32_t>(max_children_);
      order_ = device_buffer<std::uint32_t>(max_children_);
    }
    depth_popped_ = device_buffer<unsigned long long>(nn + 1);
    depth_kept_ = device_buffer<unsigned long long>(nn + 1);
    open_depths_ = device_buffer<unsigned long long>(nn + 1);
    open_min_ = device_buffer<int>(1);
    open_w_ = device_buffer<double>(1);
    PFSP_CUDA_TRY(cudaMemsetAsync(depth_popped_.data(), 0, (nn + 1) * sizeof(unsigned long long), stream_.get()));
    PFSP_CUDA_TRY(cudaMemsetAsync(depth_kept_.data(), 0, (nn + 1) * sizeof(unsigned long long), stream_.get()));
    const std::vector<double> weights = subtree_weights(n_);
    d_weights_ = device_buffer<double>(weights.size());
    PFSP_CUDA_TRY(cudaMemcpyAsync(d_weights_.data(), weights.data(), weights.size() * sizeof(double),
                                  cudaMemcpyHostToDevice, stream_.get()));
    settle();
    std::size_t scan_bytes = 0, sort_bytes = 0;
    PFSP_CUDA_TRY(cub::DeviceScan::InclusiveSum(nullptr, scan_bytes, counts_.data(), incl_.data(),
                                                static_cast<int>(max_parents_)));
    key_bits_ = child_key_bits(n_);
    if (sort_)
      PFSP_CUDA_TRY(cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, keys_.data(), keys_sorted_.data(),
                                                    values_.data(), order_.data(), static_cast<int>(max_children_), 0,
                                                    key_bits_));
    std::size_t select_bytes = 0;
    if (parts_) setup_parts(opt.bound, policy, select_bytes);
    temp_ = device_buffer<unsigned char>(std::max<std::size_t>({scan_bytes, sort_bytes, select_bytes, 1}));
  }

  // The kernels' views of the buffers (loop_view, pool_view for the recompute kernel).
  void point_views(const solve_options& opt) {
    const int dirs = dirs_;
    v_.state = d_state_.data();
    point_stack();
    v_.child_cap = d_child_cap_.data();
    v_.reserve = reserve_;
    v_.pool_w = pool_w_.data();
    v_.pool_perms = pool_perms_.data();
    v_.pool_limits = pool_limits_.data();
    v_.counts = counts_.data();
    v_.incl = incl_.data();
    v_.offsets = offsets_.data();
    v_.desc = desc_.data();
    v_.keys = sort_ ? keys_.data() : nullptr;
    v_.values = sort_ ? values_.data() : nullptr;
    v_.bounds = bounds_.data();
    v_.forward = forward_.data();
    v_.kept = kept_.data();
    v_.kept_incl = kept_incl_.data();
    v_.best_perm = best_perm_.data();
    v_.guide = opt.order == child_order::incumbent ? guide_.data() : nullptr;
    v_.depth_popped = depth_popped_.data();
    v_.depth_kept = depth_kept_.data();
    v_.weights = d_weights_.data();
    v_.max_parents = max_parents_;
    v_.max_children = max_children_;
    v_.pad_key = (1u << key_bits_) - 1u;
    v_.n = n_;
    v_.ld = ld_;
    v_.vec = parts_;
    v_.dirs = dirs;
    v_.backward_only = backward_only_;
    v_.rule = opt.branch;

    pv_.perms = pool_perms_.data();
    pv_.limits = pool_limits_.data();
    pv_.offsets = offsets_.data();
    pv_.desc = desc_.data();
    pv_.order = sort_ ? order_.data() : nullptr;
    pv_.bounds = bounds_.data();
    pv_.parents = max_parents_;
    pv_.children = max_children_;
    pv_.ub = INT_MAX;
    pv_.directions = dirs;
    pv_.backward_only = backward_only_;
    pv_.live_children = &d_state_.data()->children;
    pv_.live_ub = &d_state_.data()->best;
    if (parts_) point_parents_kernel();
  }
  // The children's directions (the LB1 parents kernels), and what the one that decides
  // (pk_.decides) writes in decide_warp_kernel's stead.
  void point_parents_kernel() {
    parts_v_.state = v_.state;
    parts_v_.forward = v_.forward;
    parts_v_.kept = v_.kept;
    parts_v_.leaf_desc = v_.desc;
    parts_v_.depth_popped = v_.depth_popped;
    parts_v_.depth_kept = v_.depth_kept;
    parts_v_.weights = v_.weights;
    parts_v_.dirs = v_.dirs;
    parts_v_.backward_only = v_.backward_only;
    parts_v_.rule = v_.rule;
    parts_v_.dominance = dominance_;
  }

  // The stack's arrays and size in the kernels' view.
  void point_stack() {
    v_.stack_perms = stack_perms_.data();
    v_.stack_limits = stack_limits_.data();
    v_.stack_lbs = stack_lbs_.data();
    v_.stack_w = stack_w_.data();
    v_.capacity = capacity_;
  }

  void destroy_graphs() {
    for (cudaGraphExec_t e : execs_) PFSP_CUDA_TRY_NOTHROW(cudaGraphExecDestroy(e));
    for (cudaGraph_t g : graphs_) PFSP_CUDA_TRY_NOTHROW(cudaGraphDestroy(g));
    execs_.clear();
    graphs_.clear();
  }

  // The state block on the device and the host's pinned copies (once), and one iteration
  // captured into a graph per candidate block size (again after the stack grows: the kernels'
  // arguments hold its pointers).
  void capture_graphs() {
    if (!h_state_.data()) {
      PFSP_CUDA_TRY(cudaMemcpyAsync(d_state_.data(), &host_, sizeof host_, cudaMemcpyHostToDevice, stream_.get()));
      settle();
      h_state_ = pinned_buffer<loop_state>(1);
      h_best_ = pinned_buffer<int>(1);
      if (profile_) events_ = std::vector<cuda_event>(kPhases + 1);
    }
    destroy_graphs();
    const int keep_tpb = tpb_;
    const cudaStream_t st = stream_.get();
    for (int tpb : tpbs_) {
      tpb_ = tpb;
      cudaGraph_t graph = nullptr;
      cudaGraphExec_t exec = nullptr;
      PFSP_CUDA_TRY(cudaStreamBeginCapture(st, cudaStreamCaptureModeThreadLocal));
      iteration(nullptr);
      PFSP_CUDA_TRY(cudaStreamEndCapture(st, &graph));
      graphs_.push_back(graph);
      PFSP_CUDA_CHECK_LAUNCH("the device-resident loop's kernels");
      PFSP_CUDA_TRY(cudaGraphInstantiate(&exec, graph, 0));
      execs_.push_back(exec);
    }
    tpb_ = keep_tpb;
  }

  void use() const { PFSP_CUDA_TRY(cudaSetDevice(device_)); }
  // A parts kernel's block: the candidate size, within what its registers allow.
  static int parts_block(parts_kernel_fn fn, int tpb) {
    cudaFuncAttributes a{};
    PFSP_CUDA_TRY(cudaFuncGetAttributes(&a, reinterpret_cast<const void*>(fn)));
    return std::max(32, std::min(tpb, a.maxThreadsPerBlock / 32 * 32));
  }
  std::size_t tpb_index() const {
    return static_cast<std::size_t>(std::find(tpbs_.begin(), tpbs_.end(), tpb_) - tpbs_.begin());
  }

  // The parts path (loop_bound.cuh): kernels, their shared memory and grids (one wave of
  // resident blocks per candidate block size), the parts buffers and, for the LB1->LB2 chain,
  // the survivors' list.
  void setup_parts(bound_kind kind, const gpu_policy& policy, std::size_t& select_bytes) {
    choose_parts_kernels(kind, policy);
    if (pk_.fused)  // the parents kernel reads the processing times from shared memory
      one_wave_of(pk_.parents, first_smem_, kBlock);  // raises its limit where it needs more than 48 KiB
    else
      first_grid_ = one_wave(pk_.first, first_smem_);
    if (pk_.table)
      table_grid_ = one_wave_of(pk_.second, table_smem(), kTableBlock);
    else if (pk_.second)
      second_grid_ = one_wave(pk_.second, second_smem_);
    parents_grid_ = std::min(blocks_for(max_parents_, kBlock),
                             static_cast<unsigned>(tuning_.parents_grid_per_sm * std::max(1, dev_.sm_count)));
    allocate_parts(kind);
    if (pk_.second && !pk_.table) allocate_survivor_list(select_bytes);
  }

  // The chain's LB2 pass from the parents' tables (lb2_table_kernel): its block (4 warps, 4
  // parents at a time) and its shared memory, the instance's tables (where they fit) and each
  // warp's rows.
  static constexpr int kTableBlock = 128;
  std::size_t table_rows_bytes() const {
    const tables_view& t = ds_.tables;
    return static_cast<std::size_t>(kTableBlock / 32) *
           static_cast<std::size_t>(lb2_table_warp_ints(t.n, t.m, t.npairs)) * sizeof(int);
  }
  std::size_t table_smem() const { return second_smem_ + table_rows_bytes(); }
  // Whether the table pass runs: asked for (on) and its rows fit beside the tables (else beside
  // nothing, the tables read from global memory; else the walk).
  bool choose_lb2_table(const gpu_policy& policy, bool& shared_tables) const {
    if (policy.lb2_table == lb2_table_mode::off) return false;
    const std::size_t rows = table_rows_bytes(), limit = dev_.shared_per_block_optin;
    if (shared_tables && second_smem_bytes(true) + rows <= limit) return true;
    shared_tables = false;
    return rows <= limit;
  }
  std::size_t second_smem_bytes(bool shared) const {
    return shared ? static_cast<std::size_t>(ds_.tables.shared_ints) * sizeof(int) : 0;
  }

  // The parts kernels for the bound, the tables' layout and where each kernel's tables fit: the
  // first kernel (LB1, or LB2 alone) reads only the processing times unless the bound is lb2.
  void choose_parts_kernels(bound_kind kind, const gpu_policy& policy) {
    const tables_view& t = ds_.tables;
    const int size_class = n_ <= 64 ? 0 : (n_ <= 256 ? 1 : 2);
    first_tables_ = t;
    // LB1 reads only the processing times, which the layout places first.
    if (kind != bound_kind::lb2) first_tables_.shared_ints = t.off_pair_first;
    auto fits = [&](int ints) {
      return policy.memory == memory_placement::shared &&
             static_cast<std::size_t>(ints) * sizeof(int) <= dev_.shared_per_block_optin;
    };
    const bool s1 = fits(first_tables_.shared_ints);
    bool s2 = fits(t.shared_ints);
    lb2_lanes_ = policy.lb2_lanes;
    const bool table = kind == bound_kind::lb1_lb2 && choose_lb2_table(policy, s2);
    // --lb2-pack auto: on from 33 jobs or 20 machines (measured faster at 50x20 and on the 20x20
    // proofs since options N and O; 20x5 and 20x10 not measured since, so left on the one-child
    // pass; decision 013).
    const bool pack_asked =
        policy.lb2_pack == lb2_pack_mode::on || (policy.lb2_pack == lb2_pack_mode::auto_ && (n_ > 32 || t.m >= 20));
    // The packed pass keeps its rank table in shared memory, after the instance's tables.
    const std::size_t ranks_bytes = pack_ranks_.size() * sizeof(uint4);
    const bool pack = kind == bound_kind::lb1_lb2 && !table && pack_asked && pack_limit_ > 0 && ranks_bytes > 0 &&
                      second_smem_bytes(s2) + ranks_bytes <= dev_.shared_per_block_optin;
    // --lb1-fused: LB1 in the parents kernel, which then reads the processing times from shared
    // memory (where they fit; the kernels for 5, 10 and 20 machines and int tables).
    const bool fused_asked = policy.lb1_fused == lb1_fused_mode::on ||
                             (policy.lb1_fused == lb1_fused_mode::auto_ && fuse_by_default(kind, t.m, n_));
    const bool fused = fused_asked && kind != bound_kind::lb2 && s1;
    pk_ = select_parts_kernels(kind, t.m, size_class, t.compact, s1, s2, lb2_lanes_, table, pack, fused);
    // Swap dominance runs in the LB1 parents kernels only; elsewhere the engine branches without it
    // (still exact: the rule only removes nodes) and its description says so.
    dominance_ = dominance_asked_ && pk_.fused;
    first_smem_ = s1 ? static_cast<std::size_t>(first_tables_.shared_ints) * sizeof(int) : 0;
    second_smem_ = second_smem_bytes(s2) + (pk_.pack ? ranks_bytes : 0);
  }

  // --lb1-fused auto: where the fused kernel was measured faster (H200; decision 013). The chain
  // (option Q): at 20 machines up to 50 jobs. LB1 alone, which then decides in that kernel too
  // (option S): at 10 and 20 machines up to n m = 2000 (1.6x at 50x20, 2.7x at 100x10, 1.18x at
  // 100x20, 1.27x at 200x10; 200x20 even, 500x20 0.80x; the 20x10, 50x10 and 5-machine Taillard
  // trees end too soon to tell, so 20x10 and 50x10 follow the rule unmeasured).
  static bool fuse_by_default(bound_kind kind, int m, int n) {
    if (kind == bound_kind::lb1) return m >= 10 && n * m <= 2000;
    return m >= 20 && n <= 50;
  }

  // One wave of resident blocks of fn per candidate block size (its shared-memory limit raised
  // first where it needs more than 48 KiB).
  std::vector<unsigned> one_wave(parts_kernel_fn fn, std::size_t smem) const {
    std::vector<unsigned> grids;
    for (int tpb : tpbs_) grids.push_back(one_wave_of(fn, smem, parts_block(fn, tpb)));
    return grids;
  }
  // One wave of resident blocks of fn at one block size.
  unsigned one_wave_of(parts_kernel_fn fn, std::size_t smem, int block) const {
    // Without the raise a launch may take 48 KiB of shared memory, static (the deciding LB1
    // kernel's per-depth counts: 8 KiB) and dynamic together.
    cudaFuncAttributes a{};
    PFSP_CUDA_TRY(cudaFuncGetAttributes(&a, reinterpret_cast<const void*>(fn)));
    if (smem + a.sharedSizeBytes > 48 * 1024)
      PFSP_CUDA_TRY(cudaFuncSetAttribute(reinterpret_cast<const void*>(fn), cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         static_cast<int>(smem)));
    int per_sm = 0;
    PFSP_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, fn, block, smem));
    return static_cast<unsigned>(std::max(1, per_sm) * std::max(1, dev_.sm_count));
  }

  // The parents' parts (front, back, remain; LB2's scheduled-job masks) and the view over them.
  void allocate_parts(bound_kind kind) {
    const std::size_t per_machine = static_cast<std::size_t>(max_parents_) * static_cast<std::size_t>(ds_.tables.m);
    front_ = device_buffer<int>(per_machine);
    back_ = device_buffer<int>(per_machine);
    remain_ = device_buffer<int>(per_machine);
    if (kind != bound_kind::lb1)
      masks_ = device_buffer<std::uint32_t>(static_cast<std::size_t>(max_parents_) * ((n_ + 31) / 32));
    parts_v_.perms = pool_perms_.data();
    parts_v_.limits = pool_limits_.data();
    parts_v_.desc = desc_.data();
    parts_v_.bounds = bounds_.data();
    parts_v_.front = front_.data();
    parts_v_.back = back_.data();
    parts_v_.remain = remain_.data();
    parts_v_.masks = kind != bound_kind::lb1 ? masks_.data() : nullptr;
    parts_v_.stride = max_parents_;
    parts_v_.ld = ld_;
    parts_v_.live_parents = &d_state_.data()->parents;
    parts_v_.live_children = &d_state_.data()->children;
    parts_v_.live_ub = &d_state_.data()->best;
    parts_v_.offsets = offsets_.data();
    parts_v_.counts = counts_.data();
    parts_v_.pack_limit = pack_limit_;
    parts_v_.pack_ranks = pack_ranks_.data();
    list_v_ = parts_v_;
  }

  // The LB1->LB2 chain: the list of LB1's survivors that the second kernel bounds
  // (cub::DeviceSelect::If), and its temporary storage's size into select_bytes.
  void allocate_survivor_list(std::size_t& select_bytes) {
    list_ = device_buffer<std::uint32_t>(max_children_);
    list_count_ = device_buffer<std::uint32_t>(1);
    list_v_.list = list_.data();
    list_v_.list_count = list_count_.data();
    PFSP_CUDA_TRY(
        cub::DeviceSelect::If(nullptr, select_bytes, thrust::counting_iterator<std::uint32_t>(0), list_.data(),
                              list_count_.data(), static_cast<std::int64_t>(max_children_),
                              survivor_pred{bounds_.data(), &d_state_.data()->children, &d_state_.data()->best}));
  }

  // ev: null (graph capture), or kPhases + 1 events marking the phases (--profile).
  void iteration(cuda_event* ev) {
    const cudaStream_t st = stream_.get();
    const unsigned pgrid = blocks_for(max_parents_, kBlock);
    const unsigned bgrid = blocks_for(max_children_, static_cast<unsigned>(tpb_));
    // The warp-a-parent kernels (describe, decide): grid-stride over the popped parents.
    const unsigned wgrid = std::min(blocks_for(static_cast<std::size_t>(max_parents_) * 32, kBlock),
                                    static_cast<unsigned>(tuning_.parents_grid_per_sm * std::max(1, dev_.sm_count)));
    auto mark = [&](int i) {
      if (ev) ev[i].record(st);
    };
    mark(0);
    count_kernel<Job><<<pgrid, kBlock, 0, st>>>(v_);
    std::size_t tb = temp_.size();
    PFSP_CUDA_TRY(cub::DeviceScan::InclusiveSum(temp_.data(), tb, counts_.data(), incl_.data(),
                                                static_cast<int>(max_parents_), st));
    gather_kernel<Job><<<pgrid, kBlock, 0, st>>>(v_);
    // The descriptors: for the sort and the children kernels; the deciding LB1 kernel writes a
    // leaf's, the only one finish_kernel reads.
    if (sort_ || !parts_ || !pk_.decides) describe_kernel<Job><<<wgrid, kBlock, 0, st>>>(v_);
    mark(1);
    if (sort_) {
      tb = temp_.size();
      PFSP_CUDA_TRY(cub::DeviceRadixSort::SortPairs(temp_.data(), tb, keys_.data(), keys_sorted_.data(), values_.data(),
                                                    order_.data(), static_cast<int>(max_children_), 0, key_bits_, st));
    }
    mark(2);
    if (parts_) {
      if (pk_.fused) {  // the parents' parts and their children's LB1 in one kernel
        pk_.parents<<<parents_grid_, kBlock, first_smem_, st>>>(first_tables_, parts_v_);
      } else {
        pk_.parents<<<parents_grid_, kBlock, 0, st>>>(ds_.tables, parts_v_);
        pk_.first<<<first_grid_[tpb_index()], static_cast<unsigned>(parts_block(pk_.first, tpb_)), first_smem_, st>>>(
            first_tables_, parts_v_);
      }
      if (pk_.table) {
        pk_.second<<<table_grid_, kTableBlock, table_smem(), st>>>(ds_.tables, parts_v_);
      } else if (pk_.second) {
        tb = temp_.size();
        PFSP_CUDA_TRY(cub::DeviceSelect::If(
            temp_.data(), tb, thrust::counting_iterator<std::uint32_t>(0), list_.data(), list_count_.data(),
            static_cast<std::int64_t>(max_children_),
            survivor_pred{bounds_.data(), &d_state_.data()->children, &d_state_.data()->best}, st));
        pk_.second<<<second_grid_[tpb_index()], static_cast<unsigned>(parts_block(pk_.second, tpb_)), second_smem_,
                     st>>>(ds_.tables, list_v_);
      }
    } else {
      ds_.kernels.children<<<bgrid, static_cast<unsigned>(tpb_), ds_.smem_bytes, st>>>(ds_.tables, pv_);
    }
    mark(3);
    if (!parts_ || !pk_.decides) decide_warp_kernel<Job><<<wgrid, kBlock, 0, st>>>(v_);
    tb = temp_.size();
    PFSP_CUDA_TRY(cub::DeviceScan::InclusiveSum(temp_.data(), tb, kept_.data(), kept_incl_.data(),
                                                static_cast<int>(max_parents_), st));
    mark(4);
    push_warp_kernel<Job><<<wgrid, kBlock, 0, st>>>(v_);
    finish_kernel<Job><<<1, 256, 0, st>>>(v_);
    mark(5);
  }

  int n_;
  int device_;
  bool profile_;
  loop_tuning tuning_;  // policy.loop
  device_info dev_;
  bound_kind kind_ = bound_kind::lb1;
  kernel_variant kernel_ = kernel_variant::branchless;
  int dirs_ = 2;
  bool backward_only_ = false;
  std::unique_ptr<device_tables> dt_;
  device_tables_view ds_;
  int tpb_ = 256;
  bool sort_ = false;
  bool parts_ = true;
  bool dominance_asked_ = false, dominance_ = false;  // solve_options::dominance; applied (the fused kernels)
  int ld_ = 0;
  parts_kernels pk_;
  int lb2_lanes_ = 1;                // lanes a child in the chain's LB2 pass (--lb2-lanes)
  int pack_limit_ = 0;               // lb2_pack_kernel's limit for this instance (pack_limit_of)
  device_buffer<uint4> pack_ranks_;  // and its rank table (pack_ranks_of; up to 64 jobs, when it packs)
  tables_view first_tables_;         // ds_.tables with shared_ints cut to what the first kernel reads
  std::size_t first_smem_ = 0, second_smem_ = 0;
  unsigned parents_grid_ = 1;
  std::vector<unsigned> first_grid_, second_grid_;  // per candidate block size: one wave
  unsigned table_grid_ = 1;                         // lb2_table_kernel: one wave of kTableBlock
  parts_view parts_v_, list_v_;
  device_buffer<int> front_, back_, remain_;
  device_buffer<std::uint32_t> masks_, list_, list_count_;
  int key_bits_ = 1;
  std::uint32_t max_children_ = 0, max_parents_ = 0;
  std::size_t capacity_ = 0, node_bytes_ = 0, max_capacity_ = 0, peak_capacity_ = 0, reserve_ = 0, first_capacity_ = 0;
  std::uint32_t child_cap_ = 0;
  device_buffer<std::uint32_t> d_child_cap_;
  device_buffer<loop_state> d_state_;
  device_buffer<Job> stack_perms_, pool_perms_, best_perm_;
  device_buffer<int> guide_;   // child_order::incumbent: loop_view::guide
  std::vector<int> h_guide_;   // follow's staging
  int guide_value_ = INT_MAX;  // the makespan of the schedule uploaded last
  device_buffer<std::uint32_t> stack_limits_, pool_limits_, counts_, incl_, offsets_, desc_, kept_, kept_incl_;
  device_buffer<int> stack_lbs_, bounds_;
  device_buffer<float> stack_w_, pool_w_;
  device_buffer<std::uint8_t> forward_;
  device_buffer<std::uint32_t> keys_, keys_sorted_, values_, order_;
  device_buffer<double> d_weights_;
  device_buffer<unsigned long long> depth_popped_, depth_kept_, open_depths_;
  device_buffer<int> open_min_;
  device_buffer<double> open_w_;
  device_buffer<unsigned char> temp_;
  loop_view<Job> v_{};
  pool_view pv_;
  // Created on device_ (a stream made while another device was current ran the graphs there, on
  // this device's pointers: illegal addresses on every engine but device 0's, found on 2 H100s).
  cuda_stream stream_;
  std::vector<int> tpbs_;
  std::vector<cudaGraph_t> graphs_;
  std::vector<cudaGraphExec_t> execs_;
  std::size_t current_ = 0;
  pinned_buffer<loop_state> h_state_;
  pinned_buffer<int> h_best_;
  std::vector<cuda_event> events_;
  double phase_ms_[kPhases] = {};
  loop_state host_;
  bool tuned_ = false;
};

}  // namespace pfsp::gpu::device_loop
