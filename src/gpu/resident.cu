// The whole branch-and-bound loop on the GPU (`--gpu-loop device`): the open nodes live in a
// depth-first stack in device memory, and one iteration (pop a pool of parents from the top,
// expand, bound, choose directions, prune, push the survivors, keep the best leaf) is a fixed
// sequence of kernels and CUB scans captured once in a CUDA graph. The host launches the graph
// a few times, then reads a small state block (stack size, incumbent, counters) to check
// limits and report progress: no node crosses the bus during the search.
//
// Same bounds as every other path: the bounding kernels are the bounder's (bound_kernels.cuh),
// the direction choice is search/direction.hpp and the per-parent step is resident_step.hpp,
// both shared with the host.
#include <algorithm>
#include <chrono>
#include <climits>
#include <cub/block/block_reduce.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <numeric>
#include <sstream>
#include <vector>

#include "gpu/bounder.hpp"
#include "gpu/bounder_access.cuh"
#include "gpu/cuda_check.cuh"
#include "gpu/device_buffer.cuh"
#include "gpu/resident.hpp"
#include "gpu/resident_step.hpp"
#include "problem/error.hpp"
#include "problem/makespan.hpp"
#include "search/checkpoint.hpp"
#include "search/expander.hpp"

namespace pfsp::gpu {
namespace {

constexpr unsigned kBlock = 128;  // threads a block of the loop's own kernels
constexpr std::size_t kDefaultPool = std::size_t{1} << 22;  // children an iteration

// The state block: written by the kernels, read by the host between graph launches.
struct loop_state {
  unsigned long long branched = 0, bounds = 0, pruned = 0, leaves = 0;
  double explored = 0;
  unsigned long long leaf_key = ~0ull;  // best leaf of the iteration: makespan << 32 | child index
  std::uint32_t top = 0;                // nodes on the stack
  std::uint32_t parents = 0;            // this iteration's pool: popped nodes
  std::uint32_t children = 0;           // and their children
  std::uint32_t overflow = 0;           // a push did not fit the stack: the search is incomplete
  int best = INT_MAX;                   // pruning threshold: the incumbent or --ub, lowered by leaves
  int found = 0;                        // leaves that improved the threshold (best_perm holds the last)
  unsigned long long iterations = 0;
};

// Device buffers of the loop, passed by value to every kernel.
template <class Job>
struct loop_view {
  loop_state* state;
  Job* stack_perms;
  std::uint32_t* stack_limits;
  int* stack_lbs;
  Job* pool_perms;
  std::uint32_t* pool_limits;
  std::uint32_t* counts;    // children per popped parent (0: pruned at pop time)
  std::uint32_t* incl;      // inclusive scan of counts
  std::uint32_t* offsets;   // first child of each parent
  std::uint32_t* desc;      // children: make_child
  std::uint32_t* keys;      // children: child_key (device sort), padded
  std::uint32_t* values;    // children: identity, padded
  int* bounds;              // children, natural order
  int* rank;                // children: rank among the kept, -1 otherwise
  std::uint32_t* kept;      // per parent: children kept
  std::uint32_t* kept_incl; // inclusive scan of kept
  Job* best_perm;
  const double* weights;    // (n - d)! / n!
  std::size_t capacity;     // stack nodes
  std::uint32_t max_parents;
  std::uint32_t max_children;
  std::uint32_t pad_key;    // above every child_key, below 2^key_bits
  int n;
  int dirs;
  bool backward_only;
  branching rule;
};

// Number of nodes this iteration pops: all of [0, min(top, max_parents)) whose children fit.
template <class Job>
__device__ __forceinline__ std::uint32_t popped(const loop_view<Job>& v) {
  const std::uint32_t top = v.state->top;
  std::uint32_t lo = 0, hi = top < v.max_parents ? top : v.max_parents;  // incl[lo-1] <= max_children
  while (lo < hi) {
    const std::uint32_t mid = (lo + hi + 1) / 2;
    if (v.incl[mid - 1] <= v.max_children)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

// Pool slot p is stack node top-1-p. Its children: dirs x unscheduled jobs, or none when its
// bound already reaches the threshold (pruned at pop time, as the host store does).
template <class Job>
__global__ void count_kernel(loop_view<Job> v) {
  const std::uint32_t p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= v.max_parents) return;
  const std::uint32_t top = v.state->top;
  std::uint32_t c = 0;
  if (p < top) {
    const std::uint32_t s = top - 1 - p;
    const std::uint32_t lim = v.stack_limits[s];
    if (v.stack_lbs[s] < v.state->best)
      c = static_cast<std::uint32_t>(v.dirs * (limit2_of(lim) - limit1_of(lim) - 1));
  }
  v.counts[p] = c;
}

// Copies the popped nodes into the pool and writes their children's descriptors (and sort keys).
template <class Job>
__global__ void gather_kernel(loop_view<Job> v) {
  const std::uint32_t P = popped(v);
  const std::uint32_t p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p == 0) {
    v.state->parents = P;
    v.state->children = P ? v.incl[P - 1] : 0;
  }
  if (v.keys) {  // pad the sort's tail: keys sort last, values point past the live children
    const std::uint32_t live = P ? v.incl[P - 1] : 0;
    for (std::uint32_t i = live + p; i < v.max_children; i += gridDim.x * blockDim.x) {
      v.keys[i] = v.pad_key;
      v.values[i] = i;
    }
  }
  if (p >= P) return;
  const std::uint32_t s = v.state->top - 1 - p;
  const int n = v.n;
  const Job* src = v.stack_perms + static_cast<std::size_t>(s) * n;
  Job* dst = v.pool_perms + static_cast<std::size_t>(p) * n;
  for (int i = 0; i < n; ++i) dst[i] = src[i];
  const std::uint32_t lim = v.stack_limits[s];
  v.pool_limits[p] = lim;
  const std::uint32_t first = v.incl[p] - v.counts[p];
  v.offsets[p] = first;
  if (v.counts[p] == 0) return;
  const int limit1 = limit1_of(lim), limit2 = limit2_of(lim);
  const int count = limit2 - limit1 - 1;
  std::uint32_t idx = first;
  for (int dir = 0; dir < v.dirs; ++dir) {
    const bool backward = v.dirs == 2 ? dir == 1 : v.backward_only;
    const std::uint32_t key = child_key(n, limit1, limit2, backward);
    for (int c = 0; c < count; ++c, ++idx) {
      v.desc[idx] = make_child(p, c, backward);
      if (v.keys) {
        v.keys[idx] = key;
        v.values[idx] = idx;
      }
    }
  }
}

// One thread per popped parent: direction, pruning, leaves, ranks of the kept children
// (resident_step.hpp); counters reduced per block.
template <class Job>
__global__ void decide_kernel(loop_view<Job> v) {
  const std::uint32_t P = v.state->parents;
  if (blockIdx.x * blockDim.x >= P) return;  // whole block: nothing popped here
  const std::uint32_t p = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned long long branched = 0, pruned = 0, leaves = 0, bounds = 0;
  double explored = 0;
  std::uint32_t kept = 0;
  if (p < P) {
    const std::uint32_t lim = v.pool_limits[p];
    const int limit1 = limit1_of(lim), limit2 = limit2_of(lim);
    const int count = limit2 - limit1 - 1;
    const int parent_depth = (limit1 + 1) + (v.n - limit2);
    if (v.counts[p] == 0) {  // pruned when popped
      pruned = 1;
      explored = v.weights[parent_depth];
    } else {
      const std::uint32_t off = v.offsets[p];
      const int ub = *static_cast<volatile int*>(&v.state->best);
      const parent_step st = decide_parent(v.rule, v.bounds + off, count, v.dirs, ub, v.rank + off);
      branched = 1;
      bounds = static_cast<unsigned long long>(count) * static_cast<unsigned>(v.dirs);
      pruned = static_cast<unsigned long long>(st.pruned);
      leaves = static_cast<unsigned long long>(st.leaves);
      explored = static_cast<double>(st.pruned + st.leaves) * v.weights[parent_depth + 1];
      kept = static_cast<std::uint32_t>(st.survivors);
      if (st.leaves) {
        atomicMin(&v.state->best, st.leaf_makespan);
        const std::uint32_t child = off + static_cast<std::uint32_t>((v.dirs == 2 && !st.forward ? count : 0) + st.leaf_position);
        atomicMin(&v.state->leaf_key, (static_cast<unsigned long long>(st.leaf_makespan) << 32) | child);
      }
    }
  }
  if (p < v.max_parents) v.kept[p] = kept;
  using reduce_u = cub::BlockReduce<unsigned long long, kBlock>;
  using reduce_d = cub::BlockReduce<double, kBlock>;
  __shared__ typename reduce_u::TempStorage tu;
  __shared__ typename reduce_d::TempStorage td;
  const unsigned long long b_branched = reduce_u(tu).Sum(branched);
  __syncthreads();
  const unsigned long long b_pruned = reduce_u(tu).Sum(pruned);
  __syncthreads();
  const unsigned long long b_leaves = reduce_u(tu).Sum(leaves);
  __syncthreads();
  const unsigned long long b_bounds = reduce_u(tu).Sum(bounds);
  const double b_explored = reduce_d(td).Sum(explored);
  if (threadIdx.x == 0) {
    atomicAdd(&v.state->branched, b_branched);
    atomicAdd(&v.state->pruned, b_pruned);
    atomicAdd(&v.state->leaves, b_leaves);
    atomicAdd(&v.state->bounds, b_bounds);
    atomicAdd(&v.state->explored, b_explored);
  }
}

// Zeroes `kept` past the popped parents (decide_kernel's blocks past them returned early).
template <class Job>
__global__ void clear_kept_kernel(loop_view<Job> v) {
  const std::uint32_t P = v.state->parents;
  for (std::uint32_t p = P + blockIdx.x * blockDim.x + threadIdx.x; p < v.max_parents; p += gridDim.x * blockDim.x)
    v.kept[p] = 0;
}

// One thread per child: a kept child is written onto the stack. Parent p's kept children go to
// a segment mirrored in parent order (the parent popped first, from the top, gets the highest
// segment), in rank order inside it: the stack pops the pool's best child of its first parent
// first, as the sequential depth-first search would.
template <class Job>
__global__ void push_kernel(loop_view<Job> v) {
  const std::uint32_t C = v.state->children;
  const std::uint32_t idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= C) return;
  const int r = v.rank[idx];
  if (r < 0) return;
  const std::uint32_t P = v.state->parents;
  const std::uint32_t base = v.state->top - P;
  const std::uint32_t total = v.kept_incl[v.max_parents - 1];
  if (static_cast<std::size_t>(base) + total > v.capacity) {
    v.state->overflow = 1;
    return;
  }
  const std::uint32_t d = v.desc[idx];
  const std::uint32_t p = child_parent(d);
  const std::uint32_t dest = base + total - v.kept_incl[p] + static_cast<std::uint32_t>(r);
  const std::uint32_t lim = v.pool_limits[p];
  const int limit1 = limit1_of(lim), limit2 = limit2_of(lim);
  const int first = limit1 + 1;
  const bool backward = child_backward(d);
  const int from = first + child_position(d);
  const int to = backward ? limit2 - 1 : first;
  const int n = v.n;
  const Job* src = v.pool_perms + static_cast<std::size_t>(p) * n;
  Job* dst = v.stack_perms + static_cast<std::size_t>(dest) * n;
  for (int i = 0; i < n; ++i) dst[i] = src[i];
  const Job t = dst[from];
  dst[from] = dst[to];
  dst[to] = t;
  v.stack_limits[dest] = backward ? pack_limits(limit1, limit2 - 1) : pack_limits(limit1 + 1, limit2);
  v.stack_lbs[dest] = v.bounds[idx];
}

// One block: the new stack size and, when a leaf improved the threshold, its schedule.
template <class Job>
__global__ void finish_kernel(loop_view<Job> v) {
  __shared__ unsigned long long key;
  if (threadIdx.x == 0) key = v.state->leaf_key;
  __syncthreads();
  if (key != ~0ull) {
    const std::uint32_t idx = static_cast<std::uint32_t>(key & 0xFFFFFFFFu);
    const std::uint32_t d = v.desc[idx];
    const std::uint32_t p = child_parent(d);
    const std::uint32_t lim = v.pool_limits[p];
    const int first = limit1_of(lim) + 1;
    const int from = first + child_position(d);
    const int to = child_backward(d) ? limit2_of(lim) - 1 : first;
    const Job* src = v.pool_perms + static_cast<std::size_t>(p) * v.n;
    for (int i = static_cast<int>(threadIdx.x); i < v.n; i += static_cast<int>(blockDim.x)) {
      const int j = i == from ? to : (i == to ? from : i);
      v.best_perm[i] = src[j];
    }
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    loop_state& s = *v.state;
    if (key != ~0ull) {
      ++s.found;
      s.leaf_key = ~0ull;
    }
    if (!s.overflow) s.top = s.top - s.parents + v.kept_incl[v.max_parents - 1];
    if (s.parents) ++s.iterations;
  }
}

unsigned blocks_for(std::size_t threads, unsigned block) {
  return static_cast<unsigned>(std::max<std::size_t>(1, (threads + block - 1) / block));
}

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

template <class Job>
solve_result run(const bound_data& data, const solve_options& opt, const gpu_policy& policy_in,
                 const incumbent& start) {
  using steady = std::chrono::steady_clock;
  run_control ctl(opt);
  const bound_view bv = data.view();
  const int n = bv.inst.n;
  incumbent best(start);
  // A resumed search keeps its first run's threshold; its incumbent comes in `start`.
  const int threshold = opt.resume ? opt.resume->threshold : initial_threshold(opt, best);

  gpu_policy policy = policy_in;
  if (policy.strategy.kind != gpu_strategy::plain)
    throw input_error("--gpu-loop device runs the plain bounding kernel: drop --gpu-strategy " +
                      std::string(to_string(policy.strategy.kind)) + " (it needs --gpu-loop host)");
  if (policy.sort == pool_sort::host)
    throw input_error("--gpu-loop device sorts on the device or not at all: --sort device or none");
  // Defaults: the fastest measured (H100, ta021/ta022/ta029/ta030, docs/gpu_backend.md): the
  // bounding kernel is 88-93 % of an iteration, and a few waves of blocks amortise its tail.
  const std::size_t pool = policy.pool_size ? policy.pool_size : kDefaultPool;
  if (pool < 2 * static_cast<std::size_t>(n))
    throw input_error("--pool-size must hold at least one parent's children (2 n = " + std::to_string(2 * n) + ")");
  const int tpb = policy.threads_per_block ? policy.threads_per_block : 256;
  const bool sort = policy.sort == pool_sort::device;

  const double setup_start = ctl.elapsed();
  gpu_policy table_policy = policy;
  table_policy.streams = 1;
  table_policy.sort = pool_sort::none;
  bounder bd(data, opt.bound, opt.branch, table_policy, 2 * static_cast<std::size_t>(n));
  const bounder_device_side ds = bounder_access::device_side(bd);
  const int dirs = bd.directions();

  // Pool: max_children children bounded per iteration, at most max_parents popped nodes (a
  // parent has at least dirs children). Stack: the depth-first bound (each level holds at most
  // one pool's survivors, max_children / dirs, over n levels), within half the free memory.
  const auto max_children = static_cast<std::uint32_t>(pool);
  const auto max_parents =
      static_cast<std::uint32_t>(std::min<std::size_t>(pool / static_cast<std::size_t>(dirs), kMaxParentsPerPool));
  std::size_t free_b = 0, total_b = 0;
  PFSP_CUDA_TRY(cudaMemGetInfo(&free_b, &total_b));
  const std::size_t node_bytes = static_cast<std::size_t>(n) * sizeof(Job) + 2 * sizeof(std::uint32_t);
  std::size_t capacity = (static_cast<std::size_t>(n) + 2) * (pool / static_cast<std::size_t>(dirs));
  capacity = std::min<std::size_t>(capacity, free_b / 2 / node_bytes);
  capacity = std::min<std::size_t>(capacity, 0xFFFFFFFFu);

  device_buffer<loop_state> d_state(1);
  device_buffer<Job> stack_perms(capacity * static_cast<std::size_t>(n)), pool_perms(
                                                                               static_cast<std::size_t>(max_parents) * n),
      best_perm(static_cast<std::size_t>(n));
  device_buffer<std::uint32_t> stack_limits(capacity), pool_limits(max_parents), counts(max_parents),
      incl(max_parents), offsets(max_parents), desc(max_children), kept(max_parents), kept_incl(max_parents);
  device_buffer<int> stack_lbs(capacity), bounds(max_children), rank(max_children);
  device_buffer<std::uint32_t> keys, keys_sorted, values, order;
  if (sort) {
    keys = device_buffer<std::uint32_t>(max_children);
    keys_sorted = device_buffer<std::uint32_t>(max_children);
    values = device_buffer<std::uint32_t>(max_children);
    order = device_buffer<std::uint32_t>(max_children);
  }
  const std::vector<double> weights = subtree_weights(n);
  device_buffer<double> d_weights(weights.size());
  PFSP_CUDA_TRY(cudaMemcpy(d_weights.data(), weights.data(), weights.size() * sizeof(double), cudaMemcpyHostToDevice));

  // CUB temporary storage: the largest of the two scans and the sort.
  std::size_t scan_bytes = 0, sort_bytes = 0;
  PFSP_CUDA_TRY(cub::DeviceScan::InclusiveSum(nullptr, scan_bytes, counts.data(), incl.data(),
                                              static_cast<int>(max_parents)));
  const int key_bits = child_key_bits(n);
  if (sort)
    PFSP_CUDA_TRY(cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, keys.data(), keys_sorted.data(), values.data(),
                                                  order.data(), static_cast<int>(max_children), 0, key_bits));
  device_buffer<unsigned char> temp(std::max<std::size_t>({scan_bytes, sort_bytes, 1}));

  loop_view<Job> v{};
  v.state = d_state.data();
  v.stack_perms = stack_perms.data();
  v.stack_limits = stack_limits.data();
  v.stack_lbs = stack_lbs.data();
  v.pool_perms = pool_perms.data();
  v.pool_limits = pool_limits.data();
  v.counts = counts.data();
  v.incl = incl.data();
  v.offsets = offsets.data();
  v.desc = desc.data();
  v.keys = sort ? keys.data() : nullptr;
  v.values = sort ? values.data() : nullptr;
  v.bounds = bounds.data();
  v.rank = rank.data();
  v.kept = kept.data();
  v.kept_incl = kept_incl.data();
  v.best_perm = best_perm.data();
  v.weights = d_weights.data();
  v.capacity = capacity;
  v.max_parents = max_parents;
  v.max_children = max_children;
  v.pad_key = (1u << key_bits) - 1u;
  v.n = n;
  v.dirs = dirs;
  v.backward_only = bd.backward_only();
  v.rule = opt.branch;

  pool_view pv;
  pv.perms = pool_perms.data();
  pv.limits = pool_limits.data();
  pv.offsets = offsets.data();
  pv.desc = desc.data();
  pv.order = sort ? order.data() : nullptr;
  pv.bounds = bounds.data();
  pv.parents = max_parents;
  pv.children = max_children;
  pv.ub = INT_MAX;
  pv.directions = dirs;
  pv.backward_only = bd.backward_only();
  pv.live_children = &d_state.data()->children;
  pv.live_ub = &d_state.data()->best;

  loop_state init;
  init.best = std::min(threshold, best.value());
  if (opt.resume) {
    // The checkpoint's open nodes, its stacks one above the other, become the device stack.
    const search_state& rs = *opt.resume;
    PFSP_EXPECTS(rs.n == n, "checkpoint for another instance size");
    if (rs.open() > capacity)
      throw input_error("--resume: " + std::to_string(rs.open()) + " open nodes do not fit the device stack (" +
                        std::to_string(capacity) + " nodes); use a larger --pool-size or --backend cpu-mt");
    std::vector<Job> perms(rs.open() * static_cast<std::size_t>(n));
    std::vector<std::uint32_t> lims(rs.open());
    std::vector<int> lbs(rs.open());
    for (std::size_t i = 0; i < rs.open(); ++i) {
      std::copy_n(rs.perm(i), n, perms.data() + i * static_cast<std::size_t>(n));
      lims[i] = pack_limits(rs.nodes[i].limit1, rs.nodes[i].limit2);
      lbs[i] = rs.nodes[i].lb;
    }
    if (!lims.empty()) {
      PFSP_CUDA_TRY(cudaMemcpy(stack_perms.data(), perms.data(), perms.size() * sizeof(Job), cudaMemcpyHostToDevice));
      PFSP_CUDA_TRY(cudaMemcpy(stack_limits.data(), lims.data(), lims.size() * sizeof(std::uint32_t),
                               cudaMemcpyHostToDevice));
      PFSP_CUDA_TRY(cudaMemcpy(stack_lbs.data(), lbs.data(), lbs.size() * sizeof(int), cudaMemcpyHostToDevice));
    }
    init.top = static_cast<std::uint32_t>(rs.open());
  } else {
    // The root, bounded on the host by the same code.
    std::vector<job_t> identity(static_cast<std::size_t>(n));
    std::iota(identity.begin(), identity.end(), 0);
    expander root_ex(data, opt.bound, opt.branch);
    const int root_lb = root_ex.root_bound(identity.data(), -1, n, init.best);
    init.bounds = 1;
    if (root_lb < init.best) {
      std::vector<Job> root(static_cast<std::size_t>(n));
      std::iota(root.begin(), root.end(), Job{0});
      PFSP_CUDA_TRY(cudaMemcpy(stack_perms.data(), root.data(), root.size() * sizeof(Job), cudaMemcpyHostToDevice));
      const std::uint32_t lim = pack_limits(-1, n);
      PFSP_CUDA_TRY(cudaMemcpy(stack_limits.data(), &lim, sizeof lim, cudaMemcpyHostToDevice));
      PFSP_CUDA_TRY(cudaMemcpy(stack_lbs.data(), &root_lb, sizeof root_lb, cudaMemcpyHostToDevice));
      init.top = 1;
    } else {
      init.pruned = 1;
      init.explored = 1.0;
    }
  }
  PFSP_CUDA_TRY(cudaMemcpy(d_state.data(), &init, sizeof init, cudaMemcpyHostToDevice));

  // One iteration, captured into a graph.
  cuda_stream stream;
  const cudaStream_t st = stream.get();
  const unsigned pgrid = blocks_for(max_parents, kBlock), cgrid = blocks_for(max_children, kBlock);
  const unsigned bgrid = blocks_for(max_children, static_cast<unsigned>(tpb));
  // ev: null (graph capture), or kPhases + 1 events marking the phases (--profile).
  constexpr int kPhases = 5;
  auto iteration = [&](cuda_event* ev) {
    auto mark = [&](int i) {
      if (ev) ev[i].record(st);
    };
    mark(0);
    count_kernel<Job><<<pgrid, kBlock, 0, st>>>(v);
    std::size_t tb = temp.size();
    PFSP_CUDA_TRY(cub::DeviceScan::InclusiveSum(temp.data(), tb, counts.data(), incl.data(),
                                                static_cast<int>(max_parents), st));
    gather_kernel<Job><<<pgrid, kBlock, 0, st>>>(v);
    mark(1);
    if (sort) {
      tb = temp.size();
      PFSP_CUDA_TRY(cub::DeviceRadixSort::SortPairs(temp.data(), tb, keys.data(), keys_sorted.data(), values.data(),
                                                    order.data(), static_cast<int>(max_children), 0, key_bits, st));
    }
    mark(2);
    ds.kernels.children<<<bgrid, static_cast<unsigned>(tpb), ds.smem_bytes, st>>>(ds.tables, pv);
    mark(3);
    decide_kernel<Job><<<pgrid, kBlock, 0, st>>>(v);
    clear_kept_kernel<Job><<<std::min(pgrid, 1024u), kBlock, 0, st>>>(v);
    tb = temp.size();
    PFSP_CUDA_TRY(cub::DeviceScan::InclusiveSum(temp.data(), tb, kept.data(), kept_incl.data(),
                                                static_cast<int>(max_parents), st));
    mark(4);
    push_kernel<Job><<<cgrid, kBlock, 0, st>>>(v);
    finish_kernel<Job><<<1, 256, 0, st>>>(v);
    mark(5);
  };
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  PFSP_CUDA_TRY(cudaStreamBeginCapture(st, cudaStreamCaptureModeThreadLocal));
  iteration(nullptr);
  PFSP_CUDA_TRY(cudaStreamEndCapture(st, &graph));
  PFSP_CUDA_CHECK_LAUNCH("the device-resident loop's kernels");
  PFSP_CUDA_TRY(cudaGraphInstantiate(&exec, graph, 0));
  struct graph_guard {
    cudaGraph_t g;
    cudaGraphExec_t e;
    ~graph_guard() {
      if (e) (void)cudaGraphExecDestroy(e);
      if (g) (void)cudaGraphDestroy(g);
    }
  } guard{graph, exec};
  pinned_buffer<loop_state> h_state(1);
  std::vector<cuda_event> events(opt.profile ? kPhases + 1 : 0);
  double phase_ms[kPhases] = {};
  const double setup_seconds = ctl.elapsed() - setup_start;

  // The device's best leaf into `best`, its makespan recomputed here (the device stream is idle).
  std::string backend_name;
  auto take_leaf = [&](const loop_state& ls) {
    if (!ls.found || ls.best >= best.value()) return;
    std::vector<Job> perm(static_cast<std::size_t>(n));
    best_perm.copy_to_host(perm.data(), perm.size(), st);
    PFSP_CUDA_TRY(cudaStreamSynchronize(st));
    std::vector<int> scratch(static_cast<std::size_t>(bv.inst.m));
    const int cmax = makespan(bv.inst, perm.data(), scratch.data());
    if (cmax != ls.best)
      throw error("--gpu-loop device: the best leaf's makespan " + std::to_string(cmax) + " differs from its bound " +
                  std::to_string(ls.best));
    best.offer(cmax, perm.data(), n);
  };
  auto piece_stats = [](const loop_state& ls) {
    solve_stats t;
    t.branched = ls.branched;
    t.bounds = ls.bounds;
    t.pruned = ls.pruned;
    t.leaves = ls.leaves;
    t.explored = ls.explored;
    return t;
  };
  // A checkpoint between two iterations: the device stack, bottom first, as one stack.
  auto state = [&](const loop_state& ls, bool complete) {
    take_leaf(ls);
    search_state cs =
        make_search_state(data.problem(), opt, threshold, best, piece_stats(ls), ctl.elapsed(), backend_name);
    cs.complete = complete;
    const std::size_t open = ls.top;
    std::vector<Job> perms(open * static_cast<std::size_t>(n));
    std::vector<std::uint32_t> lims(open);
    std::vector<int> lbs(open);
    if (open) {
      stack_perms.copy_to_host(perms.data(), perms.size(), st);
      stack_limits.copy_to_host(lims.data(), open, st);
      stack_lbs.copy_to_host(lbs.data(), open, st);
      PFSP_CUDA_TRY(cudaStreamSynchronize(st));
    }
    cs.stack_sizes = {open};
    cs.nodes.resize(open);
    cs.perms.assign(perms.begin(), perms.end());
    for (std::size_t i = 0; i < open; ++i) cs.nodes[i] = {limit1_of(lims[i]), limit2_of(lims[i]), lbs[i]};
    return cs;
  };
  {
    std::ostringstream b;
    b << "gpu (" << bd.device().name << ", device-resident loop, " << bd.describe() << ", pool " << max_children
      << " children, " << tpb << " threads a block)";
    backend_name = b.str();
  }
  const double explored_before = opt.resume ? opt.resume->stats.explored : 0.0;

  // The host's loop: launch the graph `batch` times, read the state, check limits. The batch
  // grows while a round takes under 2 ms and shrinks above 10 ms (a launch past an empty stack
  // costs a few microseconds: every kernel returns at once).
  solve_status stop = solve_status::optimal;
  int batch = 1;
  loop_state s = init;
  double device_seconds = 0;
  for (;;) {
    const auto t0 = steady::now();
    for (int i = 0; i < batch; ++i) {
      if (!opt.profile) {
        PFSP_CUDA_TRY(cudaGraphLaunch(exec, st));
        continue;
      }
      // --profile: the same kernels launched one by one, with events between the phases.
      iteration(events.data());
      events[kPhases].synchronize();
      for (int k = 0; k < kPhases; ++k) phase_ms[k] += events[k + 1].since(events[k]);
    }
    PFSP_CUDA_TRY(cudaMemcpyAsync(h_state.data(), d_state.data(), sizeof(loop_state), cudaMemcpyDeviceToHost, st));
    PFSP_CUDA_TRY(cudaStreamSynchronize(st));
    const double dt = std::chrono::duration<double>(steady::now() - t0).count();
    device_seconds += dt;
    s = *h_state.data();
    if (s.overflow)
      throw error("--gpu-loop device: the node stack (" + std::to_string(capacity) +
                  " nodes) is full; a smaller --pool-size needs less");
    if (s.top == 0) break;
    if (dt < 0.002 && batch < 1024) batch *= 2;
    if (dt > 0.010 && batch > 1) batch /= 2;
    stop = ctl.check(s.branched);
    if (stop != solve_status::optimal) break;
    ctl.maybe_report({0, s.branched, std::min(s.best, best.value()), s.top, explored_before + s.explored});
    if (ctl.checkpoint_due()) emit_checkpoint(opt, [&] { return state(s, false); });
  }
  emit_checkpoint(opt, [&] { return state(s, s.top == 0); });

  take_leaf(s);
  int open_min = INT_MAX;
  if (s.top > 0) {
    std::vector<int> lbs(s.top);
    stack_lbs.copy_to_host(lbs.data(), lbs.size(), st);
    PFSP_CUDA_TRY(cudaStreamSynchronize(st));
    open_min = *std::min_element(lbs.begin(), lbs.end());
  }
  const solve_stats total = cumulative_stats(opt, piece_stats(s), ctl.elapsed());
  solve_result r = finish_result(s.top == 0 ? solve_status::optimal : stop, best, threshold, open_min, total,
                                 total.total_seconds);
  r.stats.setup_seconds = setup_seconds;
  if (opt.profile) {
    // Table I's bounding share: the bounding kernel's device time over the run's wall time.
    r.stats.bound_seconds = phase_ms[2] * 1e-3;
    const double wall = std::max(r.stats.total_seconds, 1e-12);
    r.notes.push_back("profile device (events, kernels launched one by one instead of the graph): pop " +
                      fixed(phase_ms[0] * 1e-3, 3) + " s, sort " + fixed(phase_ms[1] * 1e-3, 3) + " s, bounding kernel " +
                      fixed(phase_ms[2] * 1e-3, 3) + " s = " + fixed(100.0 * phase_ms[2] * 1e-3 / wall, 1) +
                      " % of the run, decide " + fixed(phase_ms[3] * 1e-3, 3) + " s, push " +
                      fixed(phase_ms[4] * 1e-3, 3) + " s; host loop and launches " +
                      fixed(std::max(0.0, device_seconds - (phase_ms[0] + phase_ms[1] + phase_ms[2] + phase_ms[3] +
                                                            phase_ms[4]) * 1e-3),
                            3) +
                      " s");
  }
  r.backend = backend_name;
  r.notes.push_back(std::to_string(s.iterations) + " iterations on the device, " +
                    fixed(s.iterations ? static_cast<double>(s.bounds) / static_cast<double>(s.iterations) : 0.0, 0) +
                    " children per iteration; stack of " + std::to_string(capacity) + " nodes (" +
                    fixed(static_cast<double>(capacity * node_bytes) / (1 << 20), 0) + " MiB)");
  return r;
}

}  // namespace

solve_result solve_resident(const bound_data& data, const solve_options& opt, const gpu_policy& policy,
                            const incumbent& start) {
  if (data.view().inst.n <= 256) return run<std::uint8_t>(data, opt, policy, start);
  return run<std::uint16_t>(data, opt, policy, start);
}

}  // namespace pfsp::gpu
