// The divergence strategies of the bounding step (strategy.hpp), as pfsp workloads of the
// divergence library (src/divergence: task_pool_kernel, context_switch_kernel; the library knows
// no flow-shop type, these adapters do) and as the two kernels of the split LB1 -> LB2 chain.
//
// Exactness: every path computes what bound_children_kernel computes, with the same functions
// of src/bound. The persistent workload steps LB2 one machine pair at a time through lb2_pairs
// itself (a one-pair view of the tables), keeps lb2_pairs' running maximum and stops at the
// same pair with the same value (lb >= ub), so its bounds equal the plain kernel's bit for bit,
// partial values above ub included. The context-switch and split paths call child_bound itself
// for the children that need the pair loop and return LB1 for the others, which is what
// child_bound returns for them (lb1 kind; lb1-lb2 with LB1 >= ub; and leaves, where the pair
// loop cannot exceed LB1 = the makespan: every pair's value is front[k] + back[k] of the complete
// schedule, which LB1's chain already bounds; tests/gpu/test_gpu_strategies.cpp checks it).
//
// Scheduled sets are built like the branchless variant's (bit masks); the strategies run that
// variant only (strategy.hpp). Tables are staged in shared memory when the bounder placed them
// there (a runtime flag, to keep the instantiations few).
#pragma once

#include <algorithm>
#include <climits>
#include <cub/device/device_select.cuh>
#include <sstream>

#include "base/device_buffer.cuh"
#include "base/error.hpp"
#include "divergence/gpu/context_switch.cuh"
#include "divergence/gpu/task_pool.cuh"
#include "gpu/bound_kernels.cuh"
#include "gpu/strategy_runner.cuh"

namespace pfsp::gpu {

// --- pieces shared by the strategy kernels ----------------------------------------------------

// The bound_view of a block; the tables are staged in shared memory when `shared`. Every thread
// of the block calls it (it synchronises the block when staging). Generic over the view type so
// that other table layouts can add an overload.
template <class View>
__device__ __forceinline__ View load_view(const tables_view& t, bool shared, int* smem);
template <>
__device__ __forceinline__ bound_view load_view<bound_view>(const tables_view& t, bool shared, int* smem) {
  return shared ? load_tables<true>(t, smem) : load_tables<false>(t, smem);
}

// A child located in its pool: its parent's permutation and limits, job and direction.
template <class SC>
struct child_ref {
  const typename SC::job* perm;
  int limit1, limit2, job;
  bool forward;
};

template <class SC>
__device__ __forceinline__ child_ref<SC> locate_child(const pool_view& pool, int n, std::uint32_t idx) {
  const std::uint32_t d = pool.desc[idx];
  const std::uint32_t parent = child_parent(d);
  const std::uint32_t lim = pool.limits[parent];
  child_ref<SC> c;
  c.perm = static_cast<const typename SC::job*>(pool.perms) + static_cast<std::size_t>(parent) * n;
  c.limit1 = limit1_of(lim);
  c.limit2 = limit2_of(lim);
  c.job = c.perm[c.limit1 + 1 + child_position(d)];
  c.forward = branchless_variant::forward(d);
  return c;
}

// LB1 of the child from its parent's parts; child_back receives the child's back[] (backward).
template <class View>
__device__ __forceinline__ int child_lb1(const View& b, const int* front, const int* back, const int* remain, int job,
                                         bool forward, int* child_back) {
  return forward ? lb1_forward_child(b.inst, front, back, remain, job)
                 : lb1_backward_child(b.inst, front, back, remain, job, child_back);
}

// Whether child_bound runs the pair loop for this child, given its LB1; false at leaves (no
// unscheduled job left in the child), where the loop's value is at most LB1 (see the header).
__device__ __forceinline__ bool needs_pairs(bound_kind kind, int lb1, int ub, int limit1, int limit2) {
  const bool leaf = limit2 - limit1 - 1 <= 1;
  return kind != bound_kind::lb1 && !leaf && (kind == bound_kind::lb2 || lb1 < ub);
}

// The value of machine pair q alone, through lb2_pairs on a one-pair view of the tables (so the
// pair's code is lb2_pairs' own). With ub = INT_MAX and values >= 0 it returns the pair's value.
template <class View, class Set>
__device__ __forceinline__ int one_pair(View b, int q, const int* front, const int* back, Set set) {
  const std::size_t off = static_cast<std::size_t>(q) * static_cast<std::size_t>(b.inst.n);
  b.npairs = 1;
  b.pair_first += q;
  b.pair_second += q;
  b.johnson += off;
  b.lags += off;
  return lb2_pairs(b, front, back, set, INT_MAX);
}

// The child's scheduled set (parent's prefix and suffix plus the child's job), stored by value in
// a task's state: a 64-bit mask for n <= 64, words otherwise. Built as branchless_variant does.
template <class SC, bool InRegister = (SC::max_n <= 64)>
struct child_set {
  branchless_variant::storage<SC> st;
  template <class Job>
  __device__ void build(const Job* perm, int n, int first, int limit2, int job) {
    (void)branchless_variant::build<SC>(st, perm, n, first, limit2);
    st.words[job >> 5] |= 1u << (job & 31);
  }
  __device__ mask_words_set view() const { return {st.words}; }
};
template <class SC>
struct child_set<SC, true> {
  std::uint64_t mask;
  template <class Job>
  __device__ void build(const Job* perm, int n, int first, int limit2, int job) {
    branchless_variant::storage<SC> unused;
    mask = branchless_variant::build<SC>(unused, perm, n, first, limit2).mask | (std::uint64_t{1} << job);
  }
  __device__ mask64_set view() const { return {mask}; }
};

// Fields every workload carries; bind_block stages the tables (divergence/gpu/warp.cuh).
template <class View>
struct workload_base {
  tables_view t;
  pool_view pool;
  bound_kind kind = bound_kind::lb2;
  bool shared = false;
  View b{};

  __host__ __device__ std::uint32_t size() const { return pool.children; }
  __host__ __device__ std::size_t block_shared_bytes() const {
    return shared ? static_cast<std::size_t>(t.shared_ints) * sizeof(int) : 0;
  }
  __device__ std::uint32_t child_of(std::uint32_t task) const { return pool.order ? pool.order[task] : task; }
};

// --- persistent: termination workload (Frey 4) ------------------------------------------------
// A task is a child; init = its parent's parts, LB1, the child's front/back and scheduled set;
// one step = one machine pair of LB2; the task ends after the last pair or as soon as the running
// maximum reaches ub (lb2_pairs' exit rule); finish writes max(pairs, LB1) at the natural index.
// Lanes whose LB1 ends the child (lb1 kind, or LB1 >= ub in the chain) are done after init.
template <class SC, class View>
struct pair_tasks : workload_base<View> {
  struct state {
    std::uint32_t child;  // natural index
    int q;                // next machine pair; npairs once done
    int lb;               // lb2_pairs' running maximum
    int lb1;
    child_set<SC> set;
    int front[kMaxMachines];  // the child's (forward) or the parent's
    int back[kMaxMachines];   // the parent's (forward) or the child's
  };

  __device__ pair_tasks bind_block(unsigned char* smem) const {
    pair_tasks w = *this;
    w.b = load_view<View>(this->t, this->shared, reinterpret_cast<int*>(smem));
    return w;
  }

  __device__ state init(std::uint32_t task) const {
    const View& b = this->b;
    state s;
    s.child = this->child_of(task);
    const child_ref<SC> c = locate_child<SC>(this->pool, this->t.n, s.child);
    int remain[kMaxMachines], scratch[kMaxMachines];
    node_parts(b, c.perm, c.limit1, c.limit2, s.front, s.back, remain);
    s.lb1 = child_lb1(b, s.front, s.back, remain, c.job, c.forward, scratch);
    s.lb = 0;
    s.q = 0;
    if (this->kind == bound_kind::lb1 || (this->kind == bound_kind::lb1_lb2 && s.lb1 >= this->pool.ub)) {
      s.q = b.npairs;
      return s;
    }
    const int m = b.inst.m;
    if (c.forward) {
      front_after(b.inst, s.front, c.job, scratch);
      for (int k = 0; k < m; ++k) s.front[k] = scratch[k];
    } else {
      for (int k = 0; k < m; ++k) s.back[k] = scratch[k];
    }
    s.set.build(c.perm, this->t.n, c.limit1 + 1, c.limit2, c.job);
    return s;
  }

  __device__ bool step(state& s) const {
    const int npairs = this->b.npairs;
    if (s.q >= npairs) return false;
    const int v = one_pair(this->b, s.q, s.front, s.back, s.set.view());
    if (v > s.lb) {
      s.lb = v;
      if (s.lb >= this->pool.ub) {
        s.q = npairs;
        return false;
      }
    }
    return ++s.q < npairs;
  }

  __device__ void finish(const state& s) const { this->pool.bounds[s.child] = s.lb > s.lb1 ? s.lb : s.lb1; }
};

// --- context-switch: branch workload (Frey 3) -------------------------------------------------
// Context {child, LB1} (8 bytes in shared memory); the managed branch is the pair loop: decide =
// the child needs it (needs_pairs), branch = child_bound recomputed from the parent's parts (the
// context stays small), one iteration per task.
template <class SC, class View>
struct chain_contexts : workload_base<View> {
  static constexpr std::uint32_t kNeedsPairs = 0x80000000u;  // children < 2^31
  struct context {
    std::uint32_t child;  // natural index | kNeedsPairs
    int lb;               // LB1, then the bound
  };

  __device__ chain_contexts bind_block(unsigned char* smem) const {
    chain_contexts w = *this;
    w.b = load_view<View>(this->t, this->shared, reinterpret_cast<int*>(smem));
    return w;
  }

  __device__ context init(std::uint32_t task) const {
    const View& b = this->b;
    const std::uint32_t idx = this->child_of(task);
    const child_ref<SC> c = locate_child<SC>(this->pool, this->t.n, idx);
    int front[kMaxMachines], back[kMaxMachines], remain[kMaxMachines], scratch[kMaxMachines];
    node_parts(b, c.perm, c.limit1, c.limit2, front, back, remain);
    const int lb1 = child_lb1(b, front, back, remain, c.job, c.forward, scratch);
    const bool need = needs_pairs(this->kind, lb1, this->pool.ub, c.limit1, c.limit2);
    return {idx | (need ? kNeedsPairs : 0u), lb1};
  }
  __device__ bool decide(context& c) const { return (c.child & kNeedsPairs) != 0; }
  __device__ void branch(context& ctx) const {
    const View& b = this->b;
    const std::uint32_t idx = ctx.child & ~kNeedsPairs;
    const child_ref<SC> c = locate_child<SC>(this->pool, this->t.n, idx);
    int front[kMaxMachines], back[kMaxMachines], remain[kMaxMachines], scratch[kMaxMachines];
    node_parts(b, c.perm, c.limit1, c.limit2, front, back, remain);
    typename branchless_variant::template storage<SC> st;
    const auto set = branchless_variant::build<SC>(st, c.perm, this->t.n, c.limit1 + 1, c.limit2);
    ctx.lb = child_bound(this->kind, b, front, back, remain, set, c.job, c.forward, this->pool.ub, scratch);
    ctx.child = idx;
  }
  __device__ bool advance(context&) const { return false; }
  __device__ void finish(const context& c) const { this->pool.bounds[c.child & ~kNeedsPairs] = c.lb; }
};

// --- split: the chain as two kernels around a compaction (Zhang's layout transformation) -------

// Kernel 1, one thread per child (order[t] or t): LB1 at the natural index, and whether the child
// needs the pair loop, at the thread's position (so the survivors keep the sort's order).
template <class SC, class View>
__global__ void split_lb1_kernel(tables_view t, pool_view pool, bound_kind kind, bool shared, unsigned char* flags,
                                 std::uint32_t* items) {
  extern __shared__ int4 split_smem[];
  const View b = load_view<View>(t, shared, reinterpret_cast<int*>(split_smem));
  const std::uint32_t tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid >= pool.children) return;
  const std::uint32_t idx = pool.order ? pool.order[tid] : tid;
  const child_ref<SC> c = locate_child<SC>(pool, t.n, idx);
  int front[kMaxMachines], back[kMaxMachines], remain[kMaxMachines], scratch[kMaxMachines];
  node_parts(b, c.perm, c.limit1, c.limit2, front, back, remain);
  const int lb1 = child_lb1(b, front, back, remain, c.job, c.forward, scratch);
  pool.bounds[idx] = lb1;
  flags[tid] = needs_pairs(kind, lb1, pool.ub, c.limit1, c.limit2) ? 1 : 0;
  items[tid] = idx;
}

// Kernel 2, one thread per survivor (full warps): child_bound at the natural index. Blocks past
// the survivors leave before staging the tables.
template <class SC, class View>
__global__ void split_pairs_kernel(tables_view t, pool_view pool, bound_kind kind, bool shared,
                                   const std::uint32_t* survivors, const int* selected) {
  extern __shared__ int4 split_smem[];
  const std::uint32_t count = static_cast<std::uint32_t>(*selected);
  if (blockIdx.x * blockDim.x >= count) return;  // block-uniform: no thread reaches the barrier
  const View b = load_view<View>(t, shared, reinterpret_cast<int*>(split_smem));
  const std::uint32_t tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid >= count) return;
  const std::uint32_t idx = survivors[tid];
  const child_ref<SC> c = locate_child<SC>(pool, t.n, idx);
  int front[kMaxMachines], back[kMaxMachines], remain[kMaxMachines], scratch[kMaxMachines];
  node_parts(b, c.perm, c.limit1, c.limit2, front, back, remain);
  typename branchless_variant::template storage<SC> st;
  const auto set = branchless_variant::build<SC>(st, c.perm, t.n, c.limit1 + 1, c.limit2);
  pool.bounds[idx] = child_bound(kind, b, front, back, remain, set, c.job, c.forward, pool.ub, scratch);
}

// --- the runner ---------------------------------------------------------------------------------

template <class SC, class View = bound_view>
class strategy_runner_impl final : public strategy_runner {
 public:
  using tasks = pair_tasks<SC, View>;
  using contexts = chain_contexts<SC, View>;
  using pool_kernel_fn = void (*)(tasks, std::uint32_t*, std::uint32_t, std::uint32_t, std::uint32_t);

  explicit strategy_runner_impl(const strategy_setup& s) : s_(s) {
    const std::size_t n = std::max<std::size_t>(s.max_children, 1);
    for (int i = 0; i < s.slots; ++i) {
      scratch& sc = slots_.emplace_back();
      sc.counter = device_buffer<std::uint32_t>(1);
      if (s.params.kind == gpu_strategy::split) {
        sc.flags = device_buffer<unsigned char>(n);
        sc.items = device_buffer<std::uint32_t>(n);
        sc.survivors = device_buffer<std::uint32_t>(n);
        sc.selected = device_buffer<int>(1);
      }
    }
    switch (s.params.kind) {
      case gpu_strategy::persistent:
        setup_persistent();
        break;
      case gpu_strategy::context_switch:
        setup_context_switch();
        break;
      case gpu_strategy::split:
        setup_split(n);
        break;
      default:
        throw error("strategy_runner: strategy " + std::string(to_string(s.params.kind)) + " runs the plain kernel");
    }
  }

  void launch(int slot, const pool_view& pool, int tpb, cudaStream_t stream) override {
    if (pool.children == 0) return;
    scratch& sc = slots_.at(static_cast<std::size_t>(slot));
    switch (s_.params.kind) {
      case gpu_strategy::persistent: {
        const tasks w = make<tasks>(pool);
        const divergence::task_pool_params& p = s_.params.pool;
        const unsigned grid = p.pool == divergence::pool_kind::local
                                  ? static_cast<unsigned>((pool.children + p.chunk - 1) / p.chunk)
                                  : grid_;
        PFSP_CUDA_TRY(cudaMemsetAsync(sc.counter.data(), 0, sizeof(std::uint32_t), stream));
        pool_kernel_<<<grid, divergence::gpu::pool_block_threads, smem_, stream>>>(w, sc.counter.data(), p.chunk,
                                                                                   p.idle_threshold, p.check_interval);
        PFSP_CUDA_CHECK_LAUNCH("task_pool_kernel (persistent strategy)");
        break;
      }
      case gpu_strategy::context_switch: {
        const contexts w = make<contexts>(pool);
        const divergence::context_switch_params& p = s_.params.contexts;
        PFSP_CUDA_TRY(cudaMemsetAsync(sc.counter.data(), 0, sizeof(std::uint32_t), stream));
        divergence::gpu::context_switch_kernel<contexts>
            <<<grid_, divergence::gpu::switch_block_threads, smem_, stream>>>(w, sc.counter.data(), p.pool_contexts,
                                                                              p.vote_interval, p.default_path);
        PFSP_CUDA_CHECK_LAUNCH("context_switch_kernel (context-switch strategy)");
        break;
      }
      case gpu_strategy::split: {
        const unsigned block = static_cast<unsigned>(tpb);
        const unsigned grid = (pool.children + block - 1) / block;
        split_lb1_kernel<SC, View><<<grid, block, s_.table_bytes, stream>>>(s_.tables, pool, s_.kind, s_.shared,
                                                                            sc.flags.data(), sc.items.data());
        PFSP_CUDA_CHECK_LAUNCH("split_lb1_kernel");
        if (s_.kind == bound_kind::lb1) break;  // no child needs the pair loop
        std::size_t temp = sc.select_temp.size();
        PFSP_CUDA_TRY(cub::DeviceSelect::Flagged(sc.select_temp.data(), temp, sc.items.data(), sc.flags.data(),
                                                 sc.survivors.data(), sc.selected.data(),
                                                 static_cast<std::int64_t>(pool.children), stream));
        split_pairs_kernel<SC, View><<<grid, block, s_.table_bytes, stream>>>(s_.tables, pool, s_.kind, s_.shared,
                                                                              sc.survivors.data(), sc.selected.data());
        PFSP_CUDA_CHECK_LAUNCH("split_pairs_kernel");
        break;
      }
      default:
        break;
    }
  }

  std::string describe() const override { return describe_; }

 private:
  struct scratch {
    device_buffer<std::uint32_t> counter, items, survivors;
    device_buffer<unsigned char> flags, select_temp;  // select_temp: CUB's, per slot (streams overlap)
    device_buffer<int> selected;
  };

  template <class W>
  W make(const pool_view& pool) const {
    W w;
    w.t = s_.tables;
    w.pool = pool;
    w.kind = s_.kind;
    w.shared = s_.shared;
    return w;
  }

  static pool_kernel_fn pick_pool_kernel(divergence::pool_kind pool, divergence::fetch_control control) {
    using divergence::fetch_control;
    using divergence::pool_kind;
    using divergence::gpu::task_pool_kernel;
    auto by_control = [&](auto pool_tag) -> pool_kernel_fn {
      constexpr pool_kind P = decltype(pool_tag)::value;
      switch (control) {
        case fetch_control::any:
          return task_pool_kernel<tasks, P, fetch_control::any>;
        case fetch_control::all:
          return task_pool_kernel<tasks, P, fetch_control::all>;
        case fetch_control::ballot:
          return task_pool_kernel<tasks, P, fetch_control::ballot>;
        default:
          return task_pool_kernel<tasks, P, fetch_control::atomic>;
      }
    };
    switch (pool) {
      case pool_kind::global:
        return by_control(std::integral_constant<pool_kind, pool_kind::global>{});
      case pool_kind::local:
        return by_control(std::integral_constant<pool_kind, pool_kind::local>{});
      case pool_kind::hybrid:
        return by_control(std::integral_constant<pool_kind, pool_kind::hybrid>{});
      default:
        return task_pool_kernel<tasks, pool_kind::persistent, fetch_control::all>;
    }
  }

  // Raises the dynamic shared memory limit when needed and sizes a grid that fills the device
  // once (the persistent kinds).
  template <class Kernel>
  unsigned prepare(Kernel kernel, int threads, std::size_t smem, const char* what) {
    if (smem > s_.device.shared_per_block_optin)
      throw input_error(std::string(what) + " needs " + std::to_string((smem + 1023) / 1024) +
                        " KiB of shared memory per block, more than the device's " +
                        std::to_string(s_.device.shared_per_block_optin / 1024) +
                        " KiB (use fewer contexts or --memory global)");
    if (smem > 48 * 1024)
      PFSP_CUDA_TRY(cudaFuncSetAttribute(reinterpret_cast<const void*>(kernel),
                                         cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
    int per_sm = 0;
    PFSP_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, smem));
    if (per_sm < 1) throw error(std::string(what) + ": no block fits on a multiprocessor");
    blocks_per_sm_ = per_sm;
    return static_cast<unsigned>(per_sm * std::max(1, s_.device.sm_count));
  }

  void setup_persistent() {
    const divergence::task_pool_params& p = s_.params.pool;
    pool_kernel_ = pick_pool_kernel(p.pool, p.control);
    smem_ = s_.table_bytes;
    grid_ = prepare(pool_kernel_, divergence::gpu::pool_block_threads, smem_, "--gpu-strategy persistent");
    std::ostringstream d;
    d << "task_pool_kernel, ";
    if (p.pool == divergence::pool_kind::local)
      d << "ceil(children / " << p.chunk << ") blocks";
    else
      d << "persistent grid " << grid_ << " blocks (" << blocks_per_sm_ << " per SM)";
    d << " x " << divergence::gpu::pool_block_threads << " threads";
    describe_ = d.str();
  }

  void setup_context_switch() {
    const divergence::context_switch_params& p = s_.params.contexts;
    const contexts probe = make<contexts>(pool_view{});
    const std::size_t warps = divergence::gpu::switch_block_threads / divergence::warp_size;
    smem_ = divergence::gpu::block_shared_bytes(probe) +
            warps * divergence::gpu::switch_warp_bytes<contexts>(p.pool_contexts);
    grid_ = prepare(divergence::gpu::context_switch_kernel<contexts>, divergence::gpu::switch_block_threads, smem_,
                    "--gpu-strategy context-switch");
    std::ostringstream d;
    d << "context_switch_kernel, persistent grid " << grid_ << " blocks (" << blocks_per_sm_ << " per SM) x "
      << divergence::gpu::switch_block_threads << " threads, " << p.pool_contexts << " contexts per warp, "
      << (smem_ + 512) / 1024 << " KiB shared per block";
    describe_ = d.str();
  }

  void setup_split(std::size_t n) {
    if (s_.table_bytes > 48 * 1024) {
      for (const void* k : {reinterpret_cast<const void*>(split_lb1_kernel<SC, View>),
                            reinterpret_cast<const void*>(split_pairs_kernel<SC, View>)})
        PFSP_CUDA_TRY(
            cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(s_.table_bytes)));
    }
    std::size_t temp = 0;
    PFSP_CUDA_TRY(cub::DeviceSelect::Flagged(
        nullptr, temp, static_cast<const std::uint32_t*>(nullptr), static_cast<const unsigned char*>(nullptr),
        static_cast<std::uint32_t*>(nullptr), static_cast<int*>(nullptr), static_cast<std::int64_t>(n)));
    for (scratch& sc : slots_) sc.select_temp = device_buffer<unsigned char>(std::max<std::size_t>(temp, 1));
    describe_ = "split_lb1_kernel + cub::DeviceSelect::Flagged + split_pairs_kernel";
  }

  strategy_setup s_;
  std::vector<scratch> slots_;
  pool_kernel_fn pool_kernel_ = nullptr;
  unsigned grid_ = 0;
  int blocks_per_sm_ = 0;
  std::size_t smem_ = 0;
  std::string describe_;
};

}  // namespace pfsp::gpu
