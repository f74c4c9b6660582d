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
#include <thrust/iterator/counting_iterator.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <condition_variable>
#include <cub/block/block_reduce.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>
#include <exception>
#include <memory>
#include <mutex>
#include <numeric>
#include <sstream>
#include <thread>
#include <vector>

#include "base/cuda_check.cuh"
#include "base/device_buffer.cuh"
#include "base/error.hpp"
#include "gpu/bounder.hpp"
#include "gpu/device_tables.cuh"
#include "gpu/loop_bound.cuh"
#include "gpu/plan.hpp"
#include "gpu/resident.hpp"
#include "gpu/resident_step.hpp"
#include "problem/makespan.hpp"
#include "search/checkpoint.hpp"
#include "search/expander.hpp"
#include "search/incumbent_feed.hpp"
#include "search/tree_estimate.hpp"

namespace pfsp::gpu {
namespace {

constexpr unsigned kBlock = loop_tuning::block;  // threads a block of the loop's own kernels (policy.hpp)

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
  int iteration_ub = INT_MAX;           // `best` when the iteration started: what decide prunes at
  int found = 0;                        // leaves that improved the threshold (best_perm holds the last)
  unsigned long long iterations = 0;
};
// What the host copies between graph launches (docs say 88 bytes: keep them true).
static_assert(sizeof(loop_state) == 88, "loop_state's size is documented in docs/gpu_backend.md and decision 005");

// Device buffers of the loop, passed by value to every kernel.
template <class Job>
struct loop_view {
  loop_state* state;
  Job* stack_perms;
  std::uint32_t* stack_limits;
  int* stack_lbs;
  float* stack_w;  // tree weight (tree_estimate.hpp): the root 1, a parent's split evenly among its kept children
  Job* pool_perms;
  float* pool_w;
  std::uint32_t* pool_limits;
  std::uint32_t* counts;     // children per popped parent (0: pruned at pop time)
  std::uint32_t* incl;       // inclusive scan of counts
  std::uint32_t* offsets;    // first child of each parent
  std::uint32_t* desc;       // children: make_child
  std::uint32_t* keys;       // children: child_key (device sort), padded
  std::uint32_t* values;     // children: identity, padded
  int* bounds;               // children, natural order
  std::uint8_t* forward;     // per parent: direction chosen (1 forward)
  std::uint32_t* kept;       // per parent: children kept
  std::uint32_t* kept_incl;  // inclusive scan of kept
  Job* best_perm;
  unsigned long long* depth_popped;  // [depth]: parents popped (tree_estimate.hpp), cumulative
  unsigned long long* depth_kept;    // [depth]: their children pushed, cumulative
  const double* weights;             // (n - d)! / n!
  std::size_t capacity;              // stack nodes
  std::uint32_t max_parents;
  std::uint32_t max_children;
  std::uint32_t pad_key;  // above every child_key, below 2^key_bits
  int n;
  int ld;    // jobs a stored permutation takes: n, or n padded to 16 bytes (vec)
  bool vec;  // permutations copied as 16-byte words
  int dirs;
  bool backward_only;
  branching rule;
};

// A node's permutation: ld jobs, as 16-byte words when the stride allows.
template <class Job>
__device__ __forceinline__ void copy_perm(Job* dst, const Job* src, int ld, bool vec) {
  if (vec) {
    const uint4* s = reinterpret_cast<const uint4*>(src);
    uint4* d = reinterpret_cast<uint4*>(dst);
    const int words = ld * static_cast<int>(sizeof(Job)) / 16;
    for (int i = 0; i < words; ++i) d[i] = s[i];
  } else {
    for (int i = 0; i < ld; ++i) dst[i] = src[i];
  }
}

// The LB1->LB2 chain's survivors: live children that LB1 did not prune.
struct survivor_pred {
  const int* bounds;
  const std::uint32_t* live;
  const int* ub;
  __device__ bool operator()(std::uint32_t i) const { return i < *live && bounds[i] < *ub; }
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
    if (v.stack_lbs[s] < v.state->best) c = static_cast<std::uint32_t>(v.dirs * (limit2_of(lim) - limit1_of(lim) - 1));
  }
  v.counts[p] = c;
}

// Copies the popped nodes into the pool and writes their children's descriptors (and sort keys).
// Slot p is popped iff its children end within the pool (incl is non-decreasing): each thread
// decides for itself, and the last popped slot writes the pool's size.
template <class Job>
__global__ void gather_kernel(loop_view<Job> v) {
  const std::uint32_t p = blockIdx.x * blockDim.x + threadIdx.x;
  const std::uint32_t top = v.state->top;
  const std::uint32_t lim = top < v.max_parents ? top : v.max_parents;
  const bool mine = p < lim && v.incl[p] <= v.max_children;
  if (mine && (p + 1 == lim || v.incl[p + 1] > v.max_children)) {
    v.state->parents = p + 1;
    v.state->children = v.incl[p];
  }
  if (p == 0) {
    if (!mine) {
      v.state->parents = 0;
      v.state->children = 0;
    }
    // Every parent is decided against the threshold of the iteration's start, not against leaves
    // that other threads find meanwhile: the same pool gives the same directions and children,
    // whatever the order the threads run in (the incumbent still drops at once).
    v.state->iteration_ub = v.state->best;
  }
  if (v.keys) {  // pad the sort's tail: keys sort last, values point past the live children
    const std::uint32_t P = popped(v);
    const std::uint32_t live = P ? v.incl[P - 1] : 0;
    for (std::uint32_t i = live + p; i < v.max_children; i += gridDim.x * blockDim.x) {
      v.keys[i] = v.pad_key;
      v.values[i] = i;
    }
  }
  if (!mine) return;
  const std::uint32_t s = top - 1 - p;
  const int n = v.n;
  copy_perm(v.pool_perms + static_cast<std::size_t>(p) * v.ld, v.stack_perms + static_cast<std::size_t>(s) * v.ld, v.ld,
            v.vec);
  const std::uint32_t lim1 = v.stack_limits[s];
  v.pool_limits[p] = lim1;
  v.pool_w[p] = v.stack_w[s];
  const std::uint32_t first = v.incl[p] - v.counts[p];
  v.offsets[p] = first;
  if (v.counts[p] == 0) return;
  write_children(p, n, limit1_of(lim1), limit2_of(lim1), v.dirs, v.backward_only, first, v.desc, v.keys, v.values);
}

// One thread per popped parent: direction, pruning, leaves, number of kept children (their
// ranks are computed by push_kernel, one thread a child)
// (resident_step.hpp); counters reduced per block.
template <class Job>
__global__ void decide_kernel(loop_view<Job> v) {
  const std::uint32_t P = v.state->parents;
  if (blockIdx.x * blockDim.x >= P) return;  // whole block: nothing popped here
  const std::uint32_t p = blockIdx.x * blockDim.x + threadIdx.x;
  // Per-depth counts of the estimate, gathered in shared memory, added to the global ones once
  // a block.
  __shared__ unsigned int h_popped[kMaxJobs + 1], h_kept[kMaxJobs + 1];
  for (int d = static_cast<int>(threadIdx.x); d <= v.n; d += static_cast<int>(blockDim.x)) h_popped[d] = h_kept[d] = 0;
  __syncthreads();
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
      const int ub = v.state->iteration_ub;
      const parent_step st = decide_parent_counts(v.rule, v.bounds + off, count, v.dirs, ub);
      v.forward[p] = st.forward ? 1 : 0;
      branched = 1;
      bounds = static_cast<unsigned long long>(count) * static_cast<unsigned>(v.dirs);
      pruned = static_cast<unsigned long long>(st.pruned);
      leaves = static_cast<unsigned long long>(st.leaves);
      explored = static_cast<double>(st.pruned + st.leaves) * v.weights[parent_depth + 1];
      kept = static_cast<std::uint32_t>(st.survivors);
      if (st.leaves) {
        atomicMin(&v.state->best, st.leaf_makespan);
        const std::uint32_t child =
            off + static_cast<std::uint32_t>((v.dirs == 2 && !st.forward ? count : 0) + st.leaf_position);
        atomicMin(&v.state->leaf_key, (static_cast<unsigned long long>(st.leaf_makespan) << 32) | child);
      }
    }
  }
  if (p < v.max_parents) v.kept[p] = kept;
  if (p < P) {
    const std::uint32_t lim = v.pool_limits[p];
    const int depth = (limit1_of(lim) + 1) + (v.n - limit2_of(lim));
    atomicAdd(&h_popped[depth], 1u);
    if (kept) atomicAdd(&h_kept[depth], kept);
  }
  __syncthreads();
  for (int d = static_cast<int>(threadIdx.x); d <= v.n; d += static_cast<int>(blockDim.x)) {
    if (h_popped[d]) atomicAdd(&v.depth_popped[d], static_cast<unsigned long long>(h_popped[d]));
    if (h_kept[d]) atomicAdd(&v.depth_kept[d], static_cast<unsigned long long>(h_kept[d]));
  }
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

// One thread per child: a kept child (chosen direction, bound below the iteration's threshold,
// not a leaf) is written onto the stack. Parent p's kept children go to a segment mirrored in
// parent order (the parent popped first, from the top, gets the highest segment), in rank order
// inside it (child_rank, computed here, O(count) a child): the stack pops the pool's best child
// of its first parent first, as the sequential depth-first search would.
template <class Job>
__global__ void push_kernel(loop_view<Job> v) {
  const std::uint32_t C = v.state->children;
  const std::uint32_t idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= C) return;
  const int ub = v.state->iteration_ub;
  if (v.bounds[idx] >= ub) return;
  const std::uint32_t d = v.desc[idx];
  const std::uint32_t p = child_parent(d);
  const std::uint32_t lim = v.pool_limits[p];
  const int limit1 = limit1_of(lim), limit2 = limit2_of(lim);
  const int count = limit2 - limit1 - 1;
  if (count == 1) return;  // a leaf: decide_kernel took it
  const bool backward = child_backward(d);
  if (v.dirs == 2 && backward == (v.forward[p] != 0)) return;  // the other direction
  const std::uint32_t chosen = v.offsets[p] + (v.dirs == 2 && backward ? static_cast<std::uint32_t>(count) : 0u);
  const int r = child_rank(v.bounds + chosen, count, child_position(d), ub);
  const std::uint32_t P = v.state->parents;
  const std::uint32_t base = v.state->top - P;
  const std::uint32_t total = v.kept_incl[v.max_parents - 1];
  if (static_cast<std::size_t>(base) + total > v.capacity) {
    v.state->overflow = 1;
    return;
  }
  const std::uint32_t dest = base + total - v.kept_incl[p] + static_cast<std::uint32_t>(r);
  const int first = limit1 + 1;
  const int from = first + child_position(d);
  const int to = backward ? limit2 - 1 : first;
  Job* dst = v.stack_perms + static_cast<std::size_t>(dest) * v.ld;
  copy_perm(dst, v.pool_perms + static_cast<std::size_t>(p) * v.ld, v.ld, v.vec);
  const Job t = dst[from];
  dst[from] = dst[to];
  dst[to] = t;
  v.stack_limits[dest] = backward ? pack_limits(limit1, limit2 - 1) : pack_limits(limit1 + 1, limit2);
  v.stack_lbs[dest] = v.bounds[idx];
  v.stack_w[dest] = v.pool_w[p] / static_cast<float>(v.kept[p]);
}

// Progress statistics of the open nodes (between iterations): the smallest bound, the number of
// open nodes per depth and their tree weight. out_min starts at INT_MAX, out_open and out_w at 0.
template <class Job>
__global__ void open_stats_kernel(loop_view<Job> v, int* out_min, unsigned long long* out_open, double* out_w) {
  __shared__ unsigned int h_open[kMaxJobs + 1];
  __shared__ int block_min;
  for (int d = static_cast<int>(threadIdx.x); d <= v.n; d += static_cast<int>(blockDim.x)) h_open[d] = 0;
  if (threadIdx.x == 0) block_min = INT_MAX;
  __syncthreads();
  const std::uint32_t top = v.state->top;
  int mine = INT_MAX;
  double w = 0;
  for (std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < top; i += gridDim.x * blockDim.x) {
    const std::uint32_t lim = v.stack_limits[i];
    atomicAdd(&h_open[(limit1_of(lim) + 1) + (v.n - limit2_of(lim))], 1u);
    mine = min(mine, v.stack_lbs[i]);
    w += static_cast<double>(v.stack_w[i]);
  }
  using reduce_d = cub::BlockReduce<double, loop_tuning::stats_block>;
  __shared__ typename reduce_d::TempStorage tw;
  const double block_w = reduce_d(tw).Sum(w);
  if (threadIdx.x == 0 && block_w > 0) atomicAdd(out_w, block_w);
  atomicMin(&block_min, mine);
  __syncthreads();
  for (int d = static_cast<int>(threadIdx.x); d <= v.n; d += static_cast<int>(blockDim.x))
    if (h_open[d]) atomicAdd(&out_open[d], static_cast<unsigned long long>(h_open[d]));
  if (threadIdx.x == 0 && block_min != INT_MAX) atomicMin(out_min, block_min);
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
    const Job* src = v.pool_perms + static_cast<std::size_t>(p) * v.ld;
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

// Settings shared by every device's engine, checked once.
struct loop_settings {
  std::size_t pool = 0;  // children an iteration
  int tpb = 0;           // 0: tuned
  bool sort = false;
  bool parts = true;  // --loop-bound parts
};

loop_settings settings_of(const gpu_policy& policy) {
  loop_settings s;
  s.pool = policy.pool_size ? policy.pool_size : policy.loop.default_pool;
  s.tpb = policy.threads_per_block;  // 0: tuned at run time (loop_engine::candidates)
  s.parts = policy.bound_step == loop_bound::parts;
  // The sort groups children by their parents' loop lengths, which only the recompute kernel has.
  s.sort = policy.sort == pool_sort::device && !s.parts;
  return s;
}

// Host copies of nodes in the stack's layout (bottom first).
template <class Job>
struct node_batch {
  std::vector<Job> perms;
  std::vector<std::uint32_t> limits;
  std::vector<int> lbs;
  std::vector<float> w;  // tree weights
  std::size_t size() const { return limits.size(); }
  bool empty() const { return limits.empty(); }
  double weight() const { return std::accumulate(w.begin(), w.end(), 0.0); }
  void clear() {
    perms.clear();
    limits.clear();
    lbs.clear();
    w.clear();
  }
};

// One device's loop: its tables, node stack, pool buffers and graph. Every method first makes
// its device current, so that a coordinator can drive engines of several devices from any thread
// (one thread at a time per engine). Between run() calls the engine's stream is idle.
template <class Job>
class loop_engine {
 public:
  loop_engine(const bound_data& data, const solve_options& opt, const gpu_policy& policy, const loop_settings& ls,
              int device, double memory_share)
      : n_(data.view().inst.n), device_(device), profile_(opt.profile), stream_(device) {
    gpu_policy table_policy = policy;
    table_policy.streams = 1;
    table_policy.device = device;
    table_policy.devices.clear();
    bd_ = std::make_unique<bounder>(data, opt.bound, opt.branch, table_policy, 2 * static_cast<std::size_t>(n_));
    ds_ = bd_->tables().view();
    const int dirs = bd_->directions();
    // Block sizes to try: 256 (the best measured where the tables leave room for several blocks
    // an SM: 20x20), and the block size of highest occupancy for the tables' shared memory (one
    // block an SM above 114 KiB: 50x20 and larger measured best there in the host loop).
    if (ls.tpb) {
      tpbs_ = {ls.tpb};
    } else {
      tpbs_ = {policy.loop.first_block};
      const int occ = bd_->occupancy_threads_per_block();
      if (occ != policy.loop.first_block) tpbs_.push_back(occ);
    }
    sort_ = ls.sort;
    parts_ = ls.parts;
    // Permutations: padded to 16 bytes and copied as words by the parts path; the recompute
    // kernel reads parents at a stride of n jobs.
    ld_ = parts_ ? static_cast<int>((static_cast<std::size_t>(n_) * sizeof(Job) + 15) / 16 * 16 / sizeof(Job)) : n_;
    // Pool: max_children children bounded an iteration, at most max_parents popped nodes (a
    // parent has at least dirs children). Stack: the depth-first bound (each level holds at most
    // one pool's survivors, max_children / dirs, over n levels), within `memory_share` of the
    // free memory.
    // The per-parent passes (count, scans, gather, decide) run over max_parents slots whatever
    // the pool holds: a quarter of the most parents a pool could take (pool / dirs, all with one
    // unscheduled job) keeps them short; a pool of deep parents is then cut at that many.
    max_children_ = static_cast<std::uint32_t>(ls.pool);
    max_parents_ = static_cast<std::uint32_t>(std::max<std::size_t>(
        1, std::min<std::size_t>(ls.pool / (4 * static_cast<std::size_t>(dirs)), kMaxParentsPerPool)));
    std::size_t free_b = 0, total_b = 0;
    PFSP_CUDA_TRY(cudaMemGetInfo(&free_b, &total_b));
    node_bytes_ = static_cast<std::size_t>(ld_) * sizeof(Job) + 2 * sizeof(std::uint32_t);
    capacity_ = (static_cast<std::size_t>(n_) + 2) * (ls.pool / static_cast<std::size_t>(dirs));
    capacity_ = std::min<std::size_t>(
        capacity_, static_cast<std::size_t>(static_cast<double>(free_b) * memory_share) / node_bytes_);
    capacity_ = std::min<std::size_t>(capacity_, 0xFFFFFFFFu);

    const std::size_t nn = static_cast<std::size_t>(n_), ld = static_cast<std::size_t>(ld_);
    d_state_ = device_buffer<loop_state>(1);
    stack_perms_ = device_buffer<Job>(capacity_ * ld);
    pool_perms_ = device_buffer<Job>(static_cast<std::size_t>(max_parents_) * ld);
    best_perm_ = device_buffer<Job>(nn);
    stack_limits_ = device_buffer<std::uint32_t>(capacity_);
    pool_limits_ = device_buffer<std::uint32_t>(max_parents_);
    counts_ = device_buffer<std::uint32_t>(max_parents_);
    incl_ = device_buffer<std::uint32_t>(max_parents_);
    offsets_ = device_buffer<std::uint32_t>(max_parents_);
    desc_ = device_buffer<std::uint32_t>(max_children_);
    kept_ = device_buffer<std::uint32_t>(max_parents_);
    kept_incl_ = device_buffer<std::uint32_t>(max_parents_);
    stack_lbs_ = device_buffer<int>(capacity_);
    stack_w_ = device_buffer<float>(capacity_);
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
    PFSP_CUDA_TRY(cudaMemset(depth_popped_.data(), 0, (nn + 1) * sizeof(unsigned long long)));
    PFSP_CUDA_TRY(cudaMemset(depth_kept_.data(), 0, (nn + 1) * sizeof(unsigned long long)));
    const std::vector<double> weights = subtree_weights(n_);
    d_weights_ = device_buffer<double>(weights.size());
    PFSP_CUDA_TRY(
        cudaMemcpy(d_weights_.data(), weights.data(), weights.size() * sizeof(double), cudaMemcpyHostToDevice));
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

    v_.state = d_state_.data();
    v_.stack_perms = stack_perms_.data();
    v_.stack_limits = stack_limits_.data();
    v_.stack_lbs = stack_lbs_.data();
    v_.stack_w = stack_w_.data();
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
    v_.depth_popped = depth_popped_.data();
    v_.depth_kept = depth_kept_.data();
    v_.weights = d_weights_.data();
    v_.capacity = capacity_;
    v_.max_parents = max_parents_;
    v_.max_children = max_children_;
    v_.pad_key = (1u << key_bits_) - 1u;
    v_.n = n_;
    v_.ld = ld_;
    v_.vec = parts_;
    v_.dirs = dirs;
    v_.backward_only = bd_->backward_only();
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
    pv_.backward_only = bd_->backward_only();
    pv_.live_children = &d_state_.data()->children;
    pv_.live_ub = &d_state_.data()->best;

    PFSP_CUDA_TRY(cudaMemcpy(d_state_.data(), &host_, sizeof host_, cudaMemcpyHostToDevice));
    h_state_ = pinned_buffer<loop_state>(1);
    h_best_ = pinned_buffer<int>(1);
    if (profile_) events_ = std::vector<cuda_event>(kPhases + 1);
    // One iteration, captured into a graph, per candidate block size.
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
    select(0);
  }
  ~loop_engine() {
    (void)cudaSetDevice(device_);
    for (cudaGraphExec_t e : execs_) PFSP_CUDA_TRY_NOTHROW(cudaGraphExecDestroy(e));
    for (cudaGraph_t g : graphs_) PFSP_CUDA_TRY_NOTHROW(cudaGraphDestroy(g));
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
  std::size_t node_bytes() const { return node_bytes_; }
  int device() const { return device_; }
  std::uint32_t max_children() const { return max_children_; }
  int threads_per_block() const { return tpb_; }
  const bounder& tables() const { return *bd_; }
  // What the bounding step runs, for the backend's description.
  std::string bound_step() const {
    if (!parts_) return "bound step: recompute (each child's thread rebuilds its parent's parts)";
    std::string s = "bound step: parts once per parent";
    if (pk_.second) s += ", LB1 then LB2 on the compacted survivors";
    s += first_smem_ ? ", its tables in shared memory" : ", tables in global memory";
    return s;
  }
  const double* phase_ms() const { return phase_ms_; }

  // Starts the counters at these values (the root's bound and prune, on one engine).
  void set_counters(const loop_state& s) {
    use();
    const std::uint32_t top = host_.top;
    const int best = host_.best;
    host_ = s;
    host_.top = top;
    host_.best = std::min(best, s.best);
    PFSP_CUDA_TRY(cudaMemcpy(d_state_.data(), &host_, sizeof host_, cudaMemcpyHostToDevice));
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
    if (top + k > capacity_)
      throw input_error(std::to_string(top + k) + " open nodes do not fit the device stack (" +
                        std::to_string(capacity_) + " nodes); use a larger --pool-size or --backend cpu-mt");
    PFSP_CUDA_TRY(cudaMemcpy2D(stack_perms_.data() + top * ld_, ld_ * sizeof(Job), b.perms.data(), nn * sizeof(Job),
                               nn * sizeof(Job), k, cudaMemcpyHostToDevice));
    PFSP_CUDA_TRY(
        cudaMemcpy(stack_limits_.data() + top, b.limits.data(), k * sizeof(std::uint32_t), cudaMemcpyHostToDevice));
    PFSP_CUDA_TRY(cudaMemcpy(stack_lbs_.data() + top, b.lbs.data(), k * sizeof(int), cudaMemcpyHostToDevice));
    PFSP_CUDA_TRY(cudaMemcpy(stack_w_.data() + top, b.w.data(), k * sizeof(float), cudaMemcpyHostToDevice));
    host_.top = static_cast<std::uint32_t>(top + k);
    PFSP_CUDA_TRY(cudaMemcpy(&d_state_.data()->top, &host_.top, sizeof host_.top, cudaMemcpyHostToDevice));
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
    PFSP_CUDA_TRY(cudaMemcpy2D(b.perms.data(), nn * sizeof(Job), stack_perms_.data() + from * ld_, ld_ * sizeof(Job),
                               nn * sizeof(Job), k, cudaMemcpyDeviceToHost));
    PFSP_CUDA_TRY(
        cudaMemcpy(b.limits.data(), stack_limits_.data() + from, k * sizeof(std::uint32_t), cudaMemcpyDeviceToHost));
    PFSP_CUDA_TRY(cudaMemcpy(b.lbs.data(), stack_lbs_.data() + from, k * sizeof(int), cudaMemcpyDeviceToHost));
    PFSP_CUDA_TRY(cudaMemcpy(b.w.data(), stack_w_.data() + from, k * sizeof(float), cudaMemcpyDeviceToHost));
    return b;
  }

  // Removes the k bottom nodes (the shallowest: the largest subtrees) and returns them; the rest
  // slide down in chunks of k, so that no copy overlaps itself.
  node_batch<Job> take_bottom(std::size_t k) {
    node_batch<Job> b = read(0, k);
    const std::size_t top = host_.top, ld = static_cast<std::size_t>(ld_);
    for (std::size_t at = k; at < top; at += k) {
      const std::size_t len = std::min(k, top - at);
      PFSP_CUDA_TRY(cudaMemcpy(stack_perms_.data() + (at - k) * ld, stack_perms_.data() + at * ld,
                               len * ld * sizeof(Job), cudaMemcpyDeviceToDevice));
      PFSP_CUDA_TRY(cudaMemcpy(stack_limits_.data() + (at - k), stack_limits_.data() + at, len * sizeof(std::uint32_t),
                               cudaMemcpyDeviceToDevice));
      PFSP_CUDA_TRY(cudaMemcpy(stack_lbs_.data() + (at - k), stack_lbs_.data() + at, len * sizeof(int),
                               cudaMemcpyDeviceToDevice));
      PFSP_CUDA_TRY(
          cudaMemcpy(stack_w_.data() + (at - k), stack_w_.data() + at, len * sizeof(float), cudaMemcpyDeviceToDevice));
    }
    host_.top = static_cast<std::uint32_t>(top - k);
    PFSP_CUDA_TRY(cudaMemcpy(&d_state_.data()->top, &host_.top, sizeof host_.top, cudaMemcpyHostToDevice));
    return b;
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
    if (host_.overflow)
      throw error("--gpu-loop device: the node stack (" + std::to_string(capacity_) +
                  " nodes) is full; a smaller --pool-size needs less");
    return host_;
  }

  // The schedule of the last improving leaf (valid when state().found).
  std::vector<Job> best_leaf() {
    use();
    std::vector<Job> perm(static_cast<std::size_t>(n_));
    PFSP_CUDA_TRY(cudaMemcpy(perm.data(), best_perm_.data(), perm.size() * sizeof(Job), cudaMemcpyDeviceToHost));
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
      open_stats_kernel<Job><<<std::min(blocks_for(host_.top, loop_tuning::stats_block), 4096u), loop_tuning::stats_block, 0, st>>>(
          v_, open_min_.data(), open_depths_.data(), open_w_.data());
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
    const device_info& dev = bd_->device();
    const tables_view& t = ds_.tables;
    const int size_class = n_ <= 64 ? 0 : (n_ <= 256 ? 1 : 2);
    first_tables_ = t;
    // LB1 reads only the processing times, which the layout places first.
    if (kind != bound_kind::lb2) first_tables_.shared_ints = t.off_pair_first;
    auto fits = [&](int ints) {
      return policy.memory == memory_placement::shared &&
             static_cast<std::size_t>(ints) * sizeof(int) <= dev.shared_per_block_optin;
    };
    const bool s1 = fits(first_tables_.shared_ints), s2 = fits(t.shared_ints);
    pk_ = select_parts_kernels(kind, t.m, size_class, t.compact, s1, s2);
    first_smem_ = s1 ? static_cast<std::size_t>(first_tables_.shared_ints) * sizeof(int) : 0;
    second_smem_ = s2 ? static_cast<std::size_t>(t.shared_ints) * sizeof(int) : 0;
    auto wave = [&](parts_kernel_fn fn, std::size_t smem) {
      if (smem > 48 * 1024)
        PFSP_CUDA_TRY(cudaFuncSetAttribute(reinterpret_cast<const void*>(fn),
                                           cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
      std::vector<unsigned> grids;
      for (int tpb : tpbs_) {
        int per_sm = 0;
        PFSP_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, fn, parts_block(fn, tpb), smem));
        grids.push_back(static_cast<unsigned>(std::max(1, per_sm) * std::max(1, dev.sm_count)));
      }
      return grids;
    };
    first_grid_ = wave(pk_.first, first_smem_);
    if (pk_.second) second_grid_ = wave(pk_.second, second_smem_);
    parents_grid_ = std::min(blocks_for(max_parents_, kBlock), static_cast<unsigned>(16 * std::max(1, dev.sm_count)));
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
    list_v_ = parts_v_;
    if (pk_.second) {
      list_ = device_buffer<std::uint32_t>(max_children_);
      list_count_ = device_buffer<std::uint32_t>(1);
      list_v_.list = list_.data();
      list_v_.list_count = list_count_.data();
      PFSP_CUDA_TRY(
          cub::DeviceSelect::If(nullptr, select_bytes, thrust::counting_iterator<std::uint32_t>(0), list_.data(),
                                list_count_.data(), static_cast<std::int64_t>(max_children_),
                                survivor_pred{bounds_.data(), &d_state_.data()->children, &d_state_.data()->best}));
    }
  }

  // ev: null (graph capture), or kPhases + 1 events marking the phases (--profile).
  void iteration(cuda_event* ev) {
    const cudaStream_t st = stream_.get();
    const unsigned pgrid = blocks_for(max_parents_, kBlock), cgrid = blocks_for(max_children_, kBlock);
    const unsigned bgrid = blocks_for(max_children_, static_cast<unsigned>(tpb_));
    auto mark = [&](int i) {
      if (ev) ev[i].record(st);
    };
    mark(0);
    count_kernel<Job><<<pgrid, kBlock, 0, st>>>(v_);
    std::size_t tb = temp_.size();
    PFSP_CUDA_TRY(cub::DeviceScan::InclusiveSum(temp_.data(), tb, counts_.data(), incl_.data(),
                                                static_cast<int>(max_parents_), st));
    gather_kernel<Job><<<pgrid, kBlock, 0, st>>>(v_);
    mark(1);
    if (sort_) {
      tb = temp_.size();
      PFSP_CUDA_TRY(cub::DeviceRadixSort::SortPairs(temp_.data(), tb, keys_.data(), keys_sorted_.data(), values_.data(),
                                                    order_.data(), static_cast<int>(max_children_), 0, key_bits_, st));
    }
    mark(2);
    if (parts_) {
      pk_.parents<<<parents_grid_, kBlock, 0, st>>>(ds_.tables, parts_v_);
      pk_.first<<<first_grid_[tpb_index()], static_cast<unsigned>(parts_block(pk_.first, tpb_)), first_smem_, st>>>(
          first_tables_, parts_v_);
      if (pk_.second) {
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
    decide_kernel<Job><<<pgrid, kBlock, 0, st>>>(v_);
    clear_kept_kernel<Job><<<std::min(pgrid, 1024u), kBlock, 0, st>>>(v_);
    tb = temp_.size();
    PFSP_CUDA_TRY(cub::DeviceScan::InclusiveSum(temp_.data(), tb, kept_.data(), kept_incl_.data(),
                                                static_cast<int>(max_parents_), st));
    mark(4);
    push_kernel<Job><<<cgrid, kBlock, 0, st>>>(v_);
    finish_kernel<Job><<<1, 256, 0, st>>>(v_);
    mark(5);
  }

  int n_;
  int device_;
  bool profile_;
  std::unique_ptr<bounder> bd_;
  device_tables_view ds_;
  int tpb_ = 256;
  bool sort_ = false;
  bool parts_ = true;
  int ld_ = 0;
  parts_kernels pk_;
  tables_view first_tables_;  // ds_.tables with shared_ints cut to what the first kernel reads
  std::size_t first_smem_ = 0, second_smem_ = 0;
  unsigned parents_grid_ = 1;
  std::vector<unsigned> first_grid_, second_grid_;  // per candidate block size: one wave
  parts_view parts_v_, list_v_;
  device_buffer<int> front_, back_, remain_;
  device_buffer<std::uint32_t> masks_, list_, list_count_;
  int key_bits_ = 1;
  std::uint32_t max_children_ = 0, max_parents_ = 0;
  std::size_t capacity_ = 0, node_bytes_ = 0;
  device_buffer<loop_state> d_state_;
  device_buffer<Job> stack_perms_, pool_perms_, best_perm_;
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
};

// The loop on one or several devices (policy.devices; an ordinal may repeat: several engines on
// one device). Engine 0 starts with the root (or the resumed nodes); an engine whose stack runs
// empty asks for work and a busy one gives it the bottom half of its stack (the shallowest nodes,
// the largest subtrees) at its next sync point. A better leaf found by any engine lowers every
// engine's threshold at their next sync. One host thread drives each engine; the calling thread
// checks limits, reports progress and takes checkpoints (pausing every engine between two
// iterations). With one engine this is the plain loop.
template <class Job>
solve_result run(const bound_data& data, const solve_options& opt, const gpu_policy& policy, const incumbent& start) {
  using steady = std::chrono::steady_clock;
  run_control ctl(opt);
  const bound_view bv = data.view();
  const int n = bv.inst.n;
  incumbent best(start);
  // A resumed search keeps its first run's threshold; its incumbent comes in `start`.
  const int threshold = opt.resume ? opt.resume->threshold : initial_threshold(opt, best);
  const loop_settings ls = settings_of(policy);
  std::vector<int> devices = policy.devices.empty() ? std::vector<int>{policy.device} : policy.devices;
  const std::size_t E = devices.size();

  const double setup_start = ctl.elapsed();
  std::vector<std::unique_ptr<loop_engine<Job>>> engines;
  for (std::size_t e = 0; e < E; ++e) {
    // Engines sharing a device share its memory.
    const auto same = static_cast<double>(std::count(devices.begin(), devices.end(), devices[e]));
    engines.push_back(
        std::make_unique<loop_engine<Job>>(data, opt, policy, ls, devices[e], policy.loop.stack_memory_share / same));
  }
  const int start_best = std::min(threshold, best.value());
  loop_state counters;
  counters.best = start_best;
  // What engine 0 starts with, for the progress statistics until its first collection.
  int initial_open_min = INT_MAX;
  double initial_open_w = 0;
  for (auto& eng : engines) eng->lower_best(start_best);
  if (opt.resume) {
    // The checkpoint's open nodes, its stacks one above the other, go to engine 0.
    const search_state& rs = *opt.resume;
    PFSP_EXPECTS(rs.n == n, "checkpoint for another instance size");
    check_lb2_pairs(rs, data, "the checkpoint");
    node_batch<Job> b;
    b.perms.resize(rs.open() * static_cast<std::size_t>(n));
    b.limits.resize(rs.open());
    b.lbs.resize(rs.open());
    // The checkpoint keeps no tree weights: the open nodes share the weight evenly, the children
    // of a virtual root, and the estimate counts the tree from the resume on.
    b.w.assign(rs.open(), rs.open() ? 1.0f / static_cast<float>(rs.open()) : 0.0f);
    for (std::size_t i = 0; i < rs.open(); ++i) {
      std::copy_n(rs.perm(i), n, b.perms.data() + i * static_cast<std::size_t>(n));
      b.limits[i] = pack_limits(rs.nodes[i].limit1, rs.nodes[i].limit2);
      b.lbs[i] = rs.nodes[i].lb;
      initial_open_min = std::min(initial_open_min, b.lbs[i]);
    }
    initial_open_w = b.weight();
    engines[0]->push(b);
  } else {
    // The root, bounded on the host by the same code.
    std::vector<job_t> identity(static_cast<std::size_t>(n));
    std::iota(identity.begin(), identity.end(), 0);
    expander root_ex(data, opt.bound, opt.branch);
    const int root_lb = root_ex.root_bound(identity.data(), -1, n, start_best);
    counters.bounds = 1;
    if (root_lb < start_best) {
      node_batch<Job> b;
      b.perms.resize(static_cast<std::size_t>(n));
      std::iota(b.perms.begin(), b.perms.end(), Job{0});
      b.limits = {pack_limits(-1, n)};
      b.lbs = {root_lb};
      b.w = {1.0f};
      initial_open_min = root_lb;
      initial_open_w = 1.0;
      engines[0]->push(b);
    } else {
      counters.pruned = 1;
      counters.explored = 1.0;
    }
    engines[0]->set_counters(counters);
  }
  const double setup_seconds = ctl.elapsed() - setup_start;
  std::string backend_name;
  {
    std::ostringstream b;
    b << "gpu (" << engines[0]->tables().device().name << ", device-resident loop, " << engines[0]->tables().describe()
      << ", " << engines[0]->bound_step() << ", pool " << engines[0]->max_children() << " children, ";
    const std::vector<int>& c = engines[0]->candidates();
    if (c.size() == 1) {
      b << c[0] << " threads a block";
    } else {
      b << "block size tuned among";
      for (int t : c) b << ' ' << t;
    }
    if (E > 1) {
      b << ", " << E << " engines on devices";
      for (int d : devices) b << ' ' << d;
    }
    b << ')';
    backend_name = b.str();
  }

  // Coordination, under `mu`.
  std::mutex mu;
  std::condition_variable cv;
  std::vector<node_batch<Job>> mail(E);
  std::vector<char> idle(E, 0);
  std::vector<loop_state> published(E);
  for (std::size_t e = 0; e < E; ++e) published[e] = engines[e]->state();
  std::size_t idle_count = 0, paused = 0, exited = 0;
  bool finished = false, pause = false, node_limit_hit = false;
  std::atomic<bool> stop_flag{false};
  std::atomic<int> global_best{start_best};
  std::exception_ptr failure;
  std::uint64_t donations = 0, donated_nodes = 0;
  std::vector<std::string> tune_notes;
  // Progress statistics (global lower bound, remaining-tree estimate): the calling thread asks
  // each engine for them about every progress interval; the engine's thread collects them
  // between two runs and publishes them under mu. Between two collections an engine takes mail
  // and donates: what it received since (smallest bound, weight) is counted beside its last
  // statistics and what it sent is taken off, so that every open node is counted once and the
  // snapshot is a true lower bound and a conservative closed share (never more than the truth,
  // never less than the previous snapshot's).
  std::unique_ptr<std::atomic<bool>[]> want_stats(new std::atomic<bool>[E]);
  for (std::size_t e = 0; e < E; ++e) want_stats[e].store(true);
  std::vector<depth_profile> engine_profile(E, depth_profile(n));
  std::vector<int> engine_open_min(E, INT_MAX), recv_min(E, INT_MAX);
  std::vector<double> engine_open_w(E, 0.0), recv_w(E, 0.0), sent_w(E, 0.0);
  engine_open_min[0] = initial_open_min;
  engine_open_w[0] = initial_open_w;
  std::vector<progress_info> trace;
  double last_stats = -1.0;
  int feed_improvements = 0;
  double device_seconds = 0;
  // Per engine: seconds in run() (busy), seconds waiting for work while idle, and the thread's
  // whole life (issue 11's idle share: idle / life).
  std::vector<double> engine_busy(E, 0.0), engine_idle(E, 0.0), engine_life(E, 0.0);

  auto take_leaf = [&](loop_engine<Job>& eng) {
    const loop_state& s = eng.state();
    if (!s.found || s.best >= best.value()) return;
    const std::vector<Job> perm = eng.best_leaf();
    std::vector<int> scratch(static_cast<std::size_t>(bv.inst.m));
    const int cmax = makespan(bv.inst, perm.data(), scratch.data());
    if (cmax != s.best)
      throw error("--gpu-loop device: the best leaf's makespan " + std::to_string(cmax) + " differs from its bound " +
                  std::to_string(s.best));
    best.offer(cmax, perm.data(), n);
    if (opt.feed) opt.feed->offer_seed(std::vector<int>(perm.begin(), perm.end()), cmax);
  };

  auto worker = [&](std::size_t e) {
    loop_engine<Job>& eng = *engines[e];
    const auto born = steady::now();
    struct life_guard {  // the thread's life, recorded under mu on every way out
      std::mutex& mu;
      double& life;
      steady::time_point born;
      ~life_guard() {
        std::lock_guard l(mu);
        life = std::chrono::duration<double>(steady::now() - born).count();
      }
    } life{mu, engine_life[e], born};
    int batch = 1;
    // Block-size tuning: each candidate bounds policy.loop.tune_batches batches of full pools (the ramp-up
    // from the root does not count), then the highest rate of children a second is kept.
    std::vector<double> tune_children(eng.candidates().size(), 0.0), tune_seconds(eng.candidates().size(), 0.0);
    std::vector<int> tune_batches(eng.candidates().size(), 0);
    bool tuning = eng.candidates().size() > 1;
    try {
      for (;;) {
        node_batch<Job> got;
        {
          std::unique_lock lock(mu);
          for (;;) {
            if (pause) {  // a checkpoint: stay between two iterations until it is written
              ++paused;
              cv.notify_all();
              cv.wait(lock, [&] { return !pause; });
              --paused;
            }
            if (finished || stop_flag.load()) {
              ++exited;
              cv.notify_all();
              return;
            }
            if (!mail[e].empty()) {
              got = std::move(mail[e]);
              mail[e].clear();
              for (const int lb : got.lbs) recv_min[e] = std::min(recv_min[e], lb);
              recv_w[e] += got.weight();
              if (idle[e]) {
                idle[e] = 0;
                --idle_count;
              }
              break;
            }
            if (eng.state().top > 0) break;
            if (!idle[e]) {
              idle[e] = 1;
              ++idle_count;
              bool any_mail = false;
              for (const auto& m : mail) any_mail = any_mail || !m.empty();
              if (idle_count == E && !any_mail) {
                finished = true;
                ++exited;
                cv.notify_all();
                return;
              }
              cv.notify_all();
            }
            const auto w0 = steady::now();
            cv.wait(lock);
            if (idle[e]) engine_idle[e] += std::chrono::duration<double>(steady::now() - w0).count();
          }
        }
        eng.push(got);
        eng.lower_best(global_best.load());
        const std::uint64_t bounds_before = eng.state().bounds;
        const auto t0 = steady::now();
        const loop_state& s = eng.run(batch);
        const double dt = std::chrono::duration<double>(steady::now() - t0).count();
        if (want_stats[e].exchange(false)) {
          depth_profile prof(n);
          double w = 0;
          const int mn = eng.collect(prof, w);
          std::lock_guard sl(mu);
          engine_profile[e] = std::move(prof);
          engine_open_min[e] = mn;
          engine_open_w[e] = w;
          recv_min[e] = INT_MAX;
          recv_w[e] = sent_w[e] = 0;
        }
        if (tuning) {
          const std::size_t c = eng.selected();
          const double kids = static_cast<double>(s.bounds - bounds_before);
          if (kids >= 0.5 * static_cast<double>(batch) * static_cast<double>(eng.max_children())) {
            tune_children[c] += kids;
            tune_seconds[c] += dt;
            if (++tune_batches[c] >= policy.loop.tune_batches) {
              if (c + 1 < eng.candidates().size()) {
                eng.select(c + 1);
              } else {
                std::size_t bestc = 0;
                for (std::size_t k = 1; k < tune_children.size(); ++k)
                  if (tune_children[k] / tune_seconds[k] > tune_children[bestc] / tune_seconds[bestc]) bestc = k;
                eng.select(bestc);
                tuning = false;
                std::lock_guard tl(mu);
                std::ostringstream note;
                note << "engine " << e << " tuned the block size: " << eng.candidates()[bestc] << " threads (measured";
                for (std::size_t k = 0; k < tune_children.size(); ++k)
                  note << (k ? ", " : " ") << eng.candidates()[k] << ": "
                       << fixed(tune_children[k] / tune_seconds[k] / 1e6, 1) << " M children/s";
                note << ')';
                tune_notes.push_back(note.str());
              }
            }
          }
        }
        if (dt < policy.loop.batch_grow_s && batch < policy.loop.max_batch) batch *= 2;
        if (dt > policy.loop.batch_shrink_s && batch > 1) batch /= 2;
        std::unique_lock lock(mu);
        device_seconds += dt;
        engine_busy[e] += dt;
        published[e] = s;
        if (s.found && s.best < global_best.load()) {
          take_leaf(eng);
          global_best.store(std::min(global_best.load(), s.best));
        }
        // The node limit is checked at every sync (the calling thread's checks come every 2 ms,
        // long enough for a small tree to finish).
        if (opt.node_limit) {
          std::uint64_t branched = 0;
          for (const loop_state& ps : published) branched += ps.branched;
          if (branched >= opt.node_limit) {
            node_limit_hit = true;
            stop_flag.store(true);
            cv.notify_all();
          }
        }
        // Give the bottom half of the stack to an idle engine that has no mail yet.
        if (idle_count > 0 && s.top >= policy.loop.donate_min_nodes) {
          for (std::size_t o = 0; o < E; ++o) {
            if (o == e || !idle[o] || !mail[o].empty()) continue;
            mail[o] = eng.take_bottom(s.top / 2);
            sent_w[e] += mail[o].weight();
            published[e] = eng.state();
            ++donations;
            donated_nodes += mail[o].size();
            cv.notify_all();
            break;
          }
        }
      }
    } catch (...) {
      std::lock_guard lock(mu);
      ++exited;
      if (!failure) failure = std::current_exception();
      stop_flag.store(true);
      cv.notify_all();
    }
  };

  auto totals = [&] {  // under mu
    solve_stats t;
    std::uint64_t open = 0;
    for (std::size_t e = 0; e < E; ++e) {
      const loop_state& s = published[e];
      t.branched += s.branched;
      t.bounds += s.bounds;
      t.pruned += s.pruned;
      t.leaves += s.leaves;
      t.explored += s.explored;
      open += s.top + mail[e].size();
    }
    return std::pair{t, open};
  };
  // Every engine's stack and every undelivered mail, as a checkpoint (engines paused or done).
  auto state = [&](bool complete) {
    for (auto& eng : engines) take_leaf(*eng);
    const solve_stats piece = totals().first;
    search_state cs = make_search_state(data, opt, threshold, best, piece, ctl.elapsed(), backend_name);
    cs.complete = complete;
    auto add = [&](const node_batch<Job>& b) {
      if (b.empty()) return;
      cs.stack_sizes.push_back(b.size());
      cs.perms.insert(cs.perms.end(), b.perms.begin(), b.perms.end());
      for (std::size_t i = 0; i < b.size(); ++i)
        cs.nodes.push_back({limit1_of(b.limits[i]), limit2_of(b.limits[i]), b.lbs[i]});
    };
    for (std::size_t e = 0; e < E; ++e) {
      add(engines[e]->read(0, engines[e]->state().top));
      add(mail[e]);
    }
    return cs;
  };
  const double explored_before = opt.resume ? opt.resume->stats.explored : 0.0;

  std::vector<std::thread> threads;
  for (std::size_t e = 0; e < E; ++e) threads.emplace_back(worker, e);
  solve_status stop = solve_status::optimal;
  {
    std::unique_lock lock(mu);
    while (!finished && !failure && !stop_flag.load()) {
      cv.wait_for(lock, std::chrono::milliseconds(policy.loop.poll_ms));
      if (finished || failure || stop_flag.load()) break;
      const auto tot = totals();
      const solve_stats& t = tot.first;
      lock.unlock();
      stop = ctl.check(t.branched);
      lock.lock();
      if (stop != solve_status::optimal) {
        stop_flag.store(true);
        cv.notify_all();
        break;
      }
      // The CPU cores' incumbents (--improver-threads): re-evaluated, then every engine prunes at
      // them from its next sync.
      if (opt.feed && opt.feed->best_value() < std::min(global_best.load(), best.value())) {
        const std::vector<int> sched = opt.feed->best_schedule();
        std::vector<int> scratch(static_cast<std::size_t>(bv.inst.m));
        const int cmax = makespan(bv.inst, sched.data(), scratch.data());
        if (cmax < std::min(global_best.load(), best.value())) {
          best.offer(cmax, sched.data(), n);
          global_best.store(std::min(global_best.load(), cmax));
          ++feed_improvements;
        }
      }
      progress_info info{0, t.branched, std::min(global_best.load(), best.value()), tot.second,
                         explored_before + t.explored};
      if (ctl.elapsed() - last_stats >= opt.progress_interval) {
        last_stats = ctl.elapsed();
        // The engines' last published statistics (at most one batch old) and the nodes in transit.
        depth_profile prof(n);
        int gl = info.best;
        double open_w = 0;
        for (std::size_t e = 0; e < E; ++e) {
          open_w += std::max(0.0, engine_open_w[e] - sent_w[e]) + recv_w[e] + mail[e].weight();
          for (std::size_t d = 0; d <= static_cast<std::size_t>(n); ++d) {
            prof.popped[d] += engine_profile[e].popped[d];
            prof.kept[d] += engine_profile[e].kept[d];
            prof.open[d] += engine_profile[e].open[d];
          }
          gl = std::min({gl, engine_open_min[e], recv_min[e]});
          for (std::size_t i = 0; i < mail[e].size(); ++i) {
            gl = std::min(gl, mail[e].lbs[i]);
            ++prof.open[static_cast<std::size_t>(limit1_of(mail[e].limits[i]) + 1 + n - limit2_of(mail[e].limits[i]))];
          }
          want_stats[e].store(true);
        }
        info.global_lb = gl;
        info.tree_done = std::clamp(1.0 - open_w, 0.0, 1.0);
        info.remaining = tree_weight_remaining(t.branched, info.tree_done);
        info.remaining_by_depth = estimate_remaining(prof);
        info.elapsed = ctl.elapsed();
        info.forecast_seconds = forecast_seconds(trace, info.elapsed, info.tree_done);
        trace.push_back(info);
      } else if (!trace.empty()) {
        info.global_lb = std::min(trace.back().global_lb, info.best);
        info.remaining = trace.back().remaining;
        info.tree_done = trace.back().tree_done;
        info.forecast_seconds = trace.back().forecast_seconds;
      }
      ctl.maybe_report(info);
      if (ctl.checkpoint_due() && opt.on_checkpoint) {
        pause = true;
        cv.notify_all();
        // Every engine pauses at its next sync point (idle ones at once, woken by the notify).
        cv.wait(lock, [&] { return paused + exited >= E || finished || failure; });
        if (!finished && !failure) emit_checkpoint(opt, [&] { return state(false); });
        pause = false;
        cv.notify_all();
      }
    }
  }
  for (auto& t : threads) t.join();
  if (failure) std::rethrow_exception(failure);
  if (node_limit_hit && stop == solve_status::optimal) stop = solve_status::node_limit;
  std::unique_lock lock(mu);
  const auto tot = totals();
  const solve_stats piece = tot.first;
  const std::uint64_t open = tot.second;
  if (open == 0) stop = solve_status::optimal;
  emit_checkpoint(opt, [&] { return state(open == 0); });
  for (auto& eng : engines) take_leaf(*eng);
  int open_min = INT_MAX;
  for (std::size_t e = 0; e < E; ++e) {
    const node_batch<Job> b = engines[e]->read(0, engines[e]->state().top);
    for (int lb : b.lbs) open_min = std::min(open_min, lb);
    for (int lb : mail[e].lbs) open_min = std::min(open_min, lb);
  }
  const solve_stats total = cumulative_stats(opt, piece, ctl.elapsed());
  solve_result r = finish_result(stop, best, threshold, open_min, total, total.total_seconds);
  r.stats.setup_seconds = setup_seconds;
  std::uint64_t iterations = 0;
  double phase[loop_engine<Job>::kPhases] = {};
  for (std::size_t e = 0; e < E; ++e) {
    iterations += published[e].iterations;
    for (int k = 0; k < loop_engine<Job>::kPhases; ++k) phase[k] += engines[e]->phase_ms()[k] * 1e-3;
  }
  if (opt.profile) {
    // Table I's bounding share: the bounding kernel's device time over the run's wall time.
    r.stats.bound_seconds = phase[2];
    const double wall = std::max(r.stats.total_seconds, 1e-12);
    r.notes.push_back("profile device (events, kernels launched one by one instead of the graph" +
                      std::string(E > 1 ? ", summed over the engines" : "") + "): pop " + fixed(phase[0], 3) +
                      " s, sort " + fixed(phase[1], 3) + " s, bounding kernel " + fixed(phase[2], 3) +
                      " s = " + fixed(100.0 * phase[2] / wall, 1) + " % of the run, decide " + fixed(phase[3], 3) +
                      " s, push " + fixed(phase[4], 3) + " s; host loop and launches " +
                      fixed(std::max(0.0, device_seconds - (phase[0] + phase[1] + phase[2] + phase[3] + phase[4])), 3) +
                      " s");
  }
  r.backend = backend_name;
  r.trace = std::move(trace);
  if (opt.feed)
    r.notes.push_back("incumbent improved " + std::to_string(feed_improvements) +
                      " times by the CPU cores' iterated greedy (--improver-threads)");
  const std::size_t cap = engines[0]->capacity();
  r.notes.push_back(std::to_string(iterations) + " iterations on the device" + (E > 1 ? "s" : "") + ", " +
                    fixed(iterations ? static_cast<double>(piece.bounds) / static_cast<double>(iterations) : 0.0, 0) +
                    " children per iteration; stack of " + std::to_string(cap) + " nodes (" +
                    fixed(static_cast<double>(cap * engines[0]->node_bytes()) / (1 << 20), 0) + " MiB)" +
                    (E > 1 ? " per engine" : ""));
  for (const std::string& note : tune_notes) r.notes.push_back(note);
  if (engines[0]->candidates().size() > 1 && tune_notes.empty())
    r.notes.push_back("block size not tuned (too few full pools): " +
                      std::to_string(engines[0]->candidates()[engines[0]->selected()]) + " threads");
  if (E > 1) {
    r.notes.push_back(std::to_string(donations) + " donations of work between engines (" +
                      std::to_string(donated_nodes) + " nodes)");
    // One line per engine: what it branched, how long it ran batches, how long it waited for work.
    std::ostringstream b;
    b << "engines' time (busy in batches / idle waiting for work / thread life):";
    for (std::size_t e = 0; e < E; ++e)
      b << (e ? "; " : " ") << "engine " << e << " (device " << devices[e] << ") branched "
        << published[e].branched << ", busy " << fixed(engine_busy[e], 3) << " s, idle " << fixed(engine_idle[e], 3)
        << " s = " << fixed(engine_life[e] > 0 ? 100.0 * engine_idle[e] / engine_life[e] : 0.0, 1) << " %, life "
        << fixed(engine_life[e], 3) << " s";
    r.notes.push_back(b.str());
  }
  return r;
}

}  // namespace

solve_result solve_resident(const bound_data& data, const solve_options& opt, const gpu_policy& policy,
                            const incumbent& start) {
  check_device_loop(policy, data.view().inst.n);
  return run_device_loop(data, opt, policy, start);
}

solve_result run_device_loop(const bound_data& data, const solve_options& opt, const gpu_policy& policy,
                             const incumbent& start) {
  if (data.view().inst.n <= 256) return run<std::uint8_t>(data, opt, policy, start);
  return run<std::uint16_t>(data, opt, policy, start);
}

}  // namespace pfsp::gpu
