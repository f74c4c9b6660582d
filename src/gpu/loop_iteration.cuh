// One iteration of the branch-and-bound loop on the GPU (`--gpu-loop device`): the open nodes
// live in a depth-first stack in device memory, and one iteration (pop a pool of parents from the
// top, expand, bound, choose directions, prune, push the survivors, keep the best leaf) is a fixed
// sequence of kernels and CUB scans, captured once in a CUDA graph (loop_engine.cuh). The host
// launches the graph a few times, then reads a small state block (loop_state: stack size,
// incumbent, counters) to check limits and report progress: no node crosses the bus during the
// search.
//
// Here: the loop's device buffers (loop_view; the state block is loop_state.cuh's) and the
// iteration's own kernels (count, gather, describe, decide, push, finish; the per-parent ones a
// warp a parent: docs/decisions/013-device-loop-roofline.md) and the open nodes' statistics kernel.
// The bounding step between gather and decide is the plain kernel (bound_kernels.cuh, through
// device_tables.cuh) or the parts kernels (loop_bound.cuh; for LB1 alone, fused, the parents
// kernel decides too, and describe and decide do not run). Included by coordinator.cu only (one
// translation unit holds the device loop's kernels; loop_kernels.cu includes loop_state.cuh).
#pragma once

#include <climits>
#include <cstddef>
#include <cstdint>
#include <cub/block/block_reduce.cuh>

#include "gpu/loop_state.cuh"
#include "gpu/policy.hpp"
#include "gpu/pool_layout.hpp"
#include "gpu/resident_step.hpp"
#include "search/child_order.hpp"
#include "search/types.hpp"

namespace pfsp::gpu::device_loop {

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
  int* guide;  // child_order::incumbent: each job's position in the schedule followed (null: the bound's order)
  unsigned long long* depth_popped;  // [depth]: parents popped (tree_estimate.hpp), cumulative
  unsigned long long* depth_kept;    // [depth]: their children pushed, cumulative
  const double* weights;             // (n - d)! / n!
  const std::uint32_t* child_cap;    // children an iteration may bound (<= max_children; the host adapts it)
  std::size_t capacity;              // stack nodes
  std::size_t reserve;               // stack nodes kept for one-parent iterations (pool_limit)
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

// The most children (incl[p]) that pool slot p's parents may have: the child cap and, so that
// the stack never overflows, the stack's room (a parent keeps at most 1 / dirs of its children):
// slot 0 may use the whole room, the others leave `reserve` nodes free, enough for one-parent
// iterations to dive to the leaves from any node. Non-increasing in p: the popped slots are a
// prefix.
template <class Job>
__device__ __forceinline__ std::uint64_t pool_limit(const loop_view<Job>& v, std::uint32_t top, std::uint32_t p) {
  const std::uint64_t room = v.capacity > top ? v.capacity - top : 0;
  const std::uint64_t usable = p == 0 ? room : (room > v.reserve ? room - v.reserve : 0);
  const std::uint64_t by_room = usable * static_cast<std::uint64_t>(v.dirs);
  const std::uint64_t cap = *v.child_cap;
  return by_room < cap ? by_room : cap;
}

// Number of nodes this iteration pops: all of [0, min(top, max_parents)) whose children fit.
template <class Job>
__device__ __forceinline__ std::uint32_t popped(const loop_view<Job>& v) {
  const std::uint32_t top = v.state->top;
  std::uint32_t lo = 0, hi = top < v.max_parents ? top : v.max_parents;  // incl[lo-1] fits pool_limit
  while (lo < hi) {
    const std::uint32_t mid = (lo + hi + 1) / 2;
    if (v.incl[mid - 1] <= pool_limit(v, top, mid - 1))
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
  v.kept[p] = 0;  // the deciding kernel writes the popped slots'; the kept scan reads every slot
}

// Copies the popped nodes into the pool (their children's descriptors: describe_kernel). Slot p
// is popped iff its children end within the pool (incl is non-decreasing): each thread
// decides for itself, and the last popped slot writes the pool's size.
template <class Job>
__global__ void gather_kernel(loop_view<Job> v) {
  const std::uint32_t p = blockIdx.x * blockDim.x + threadIdx.x;
  const std::uint32_t top = v.state->top;
  const std::uint32_t lim = top < v.max_parents ? top : v.max_parents;
  const bool mine = p < lim && v.incl[p] <= pool_limit(v, top, p);
  if (mine && (p + 1 == lim || v.incl[p + 1] > pool_limit(v, top, p + 1))) {
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
  copy_perm(v.pool_perms + static_cast<std::size_t>(p) * v.ld, v.stack_perms + static_cast<std::size_t>(s) * v.ld, v.ld,
            v.vec);
  const std::uint32_t lim1 = v.stack_limits[s];
  v.pool_limits[p] = lim1;
  v.pool_w[p] = v.stack_w[s];
  v.offsets[p] = v.incl[p] - v.counts[p];
}

// The popped parents' child descriptors (and sort keys), a warp a parent: write_children's
// layout (pool_layout.hpp: count forward children, then count backward ones), 32 consecutive
// entries a store instead of one thread's serial loop a parent (which took 27 % of an LB1
// iteration at 50x20, at 3.8 % of DRAM peak: docs/decisions/013-device-loop-roofline.md).
template <class Job>
__global__ void describe_kernel(loop_view<Job> v) {
  const std::uint32_t P = v.state->parents;
  const std::uint32_t lane = threadIdx.x & 31u;
  const std::uint32_t warps = (gridDim.x * blockDim.x) >> 5;
  for (std::uint32_t p = (blockIdx.x * blockDim.x + threadIdx.x) >> 5; p < P; p += warps) {
    const std::uint32_t total = v.counts[p];
    if (total == 0) continue;
    const std::uint32_t lim = v.pool_limits[p];
    const int limit1 = limit1_of(lim), limit2 = limit2_of(lim);
    const std::uint32_t count = static_cast<std::uint32_t>(limit2 - limit1 - 1);
    const std::uint32_t first = v.offsets[p];
    for (std::uint32_t i = lane; i < total; i += 32) {
      const std::uint32_t dir = i / count, c = i - dir * count;
      const bool backward = v.dirs == 2 ? dir == 1 : v.backward_only;
      v.desc[first + i] = make_child(p, static_cast<int>(c), backward);
      if (v.keys) {
        v.keys[first + i] = child_key(v.n, limit1, limit2, backward);
        v.values[first + i] = first + i;
      }
    }
  }
}

// --- decide, a warp a parent: the loops over a parent's children spread over the lanes ---------

__device__ __forceinline__ int warp_sum(int x) {
  for (int d = 16; d; d >>= 1) x += __shfl_xor_sync(0xffffffffu, x, d);
  return x;
}
__device__ __forceinline__ long long warp_sum(long long x) {
  for (int d = 16; d; d >>= 1) x += __shfl_xor_sync(0xffffffffu, x, d);
  return x;
}
__device__ __forceinline__ int warp_min(int x) {
  for (int d = 16; d; d >>= 1) {
    const int o = __shfl_xor_sync(0xffffffffu, x, d);
    x = o < x ? o : x;
  }
  return x;
}

// summarize_side (search/direction.hpp) over the warp: integer sums and minimum, exact.
__device__ __forceinline__ side_summary warp_summarize(const int* lbs, int count, int ub, int lane) {
  int s = 0, mn = 0x7fffffff;
  long long sum = 0;
  for (int c = lane; c < count; c += 32) {
    const int lb = lbs[c];
    s += lb < ub ? 1 : 0;
    sum += lb;
    mn = lb < mn ? lb : mn;
  }
  side_summary r;
  r.survivors = warp_sum(s);
  r.sum = warp_sum(sum);
  r.min = warp_min(mn);
  return r;
}

__device__ __forceinline__ int warp_count_equal(const int* lbs, int count, int value, int lane) {
  int k = 0;
  for (int c = lane; c < count; c += 32) k += lbs[c] == value ? 1 : 0;
  return warp_sum(k);
}

// choose_forward_hd (search/direction.hpp), the same decisions from the same sums.
__device__ __forceinline__ bool warp_choose_forward(branching rule, const int* fwd, const int* bwd, int count, int ub,
                                                    int lane) {
  switch (rule) {
    case branching::forward:
      return true;
    case branching::backward:
      return false;
    case branching::min_branch:
      return min_branch_forward(warp_summarize(fwd, count, ub, lane), warp_summarize(bwd, count, ub, lane));
    case branching::min_min: {
      const side_summary f = warp_summarize(fwd, count, ub, lane), b = warp_summarize(bwd, count, ub, lane);
      const int lo = f.min < b.min ? f.min : b.min;
      const int cf = warp_count_equal(fwd, count, lo, lane), cb = warp_count_equal(bwd, count, lo, lane);
      if (cf != cb) return cf < cb;
      return min_branch_forward(f, b);
    }
  }
  return true;
}

// decide_parent's step for parent p by the warp; lane 0 returns the counts (and writes
// forward[p] and the leaf), the other lanes zero.
template <class Job>
__device__ parent_counts decide_parent_warp(const loop_view<Job>& v, std::uint32_t p, int lane) {
  parent_counts c;
  const std::uint32_t lim = v.pool_limits[p];
  const int limit1 = limit1_of(lim), limit2 = limit2_of(lim);
  const int count = limit2 - limit1 - 1;
  const int parent_depth = (limit1 + 1) + (v.n - limit2);
  if (v.counts[p] == 0) {  // pruned when popped
    if (lane == 0) {
      c.pruned = 1;
      c.explored = v.weights[parent_depth];
    }
    return c;
  }
  const std::uint32_t off = v.offsets[p];
  const int ub = v.state->iteration_ub;
  const int* fwd = v.bounds + off;
  const int* bwd = v.dirs == 2 ? fwd + count : fwd;
  const bool forward =
      v.dirs == 2 ? warp_choose_forward(v.rule, fwd, bwd, count, ub, lane) : v.rule != branching::backward;
  const int* lbs = v.dirs == 2 && !forward ? bwd : fwd;
  int pruned = 0;
  for (int i = lane; i < count; i += 32) pruned += lbs[i] >= ub ? 1 : 0;
  pruned = warp_sum(pruned);
  if (lane != 0) return c;
  v.forward[p] = forward ? 1 : 0;
  const bool leaf = count == 1 && pruned == 0;
  c.branched = 1;
  c.bounds = static_cast<unsigned long long>(count) * static_cast<unsigned>(v.dirs);
  c.pruned = static_cast<unsigned long long>(pruned);
  c.leaves = leaf ? 1 : 0;
  c.explored = static_cast<double>(pruned + (leaf ? 1 : 0)) * v.weights[parent_depth + 1];
  c.kept = count == 1 ? 0u : static_cast<std::uint32_t>(count - pruned);
  if (leaf) {
    const int makespan = lbs[0];
    atomicMin(&v.state->best, makespan);
    const std::uint32_t child = off + static_cast<std::uint32_t>(v.dirs == 2 && !forward ? count : 0);
    atomicMin(&v.state->leaf_key, (static_cast<unsigned long long>(makespan) << 32) | child);
  }
  return c;
}

// A warp a popped parent (grid-stride): decide_parent_counts (resident_step.hpp) with the loops
// over the children spread over the lanes: direction (written to forward[p]), pruned children,
// leaves (the best leaf into the state), kept count (their ranks: push_warp_kernel); the
// estimate's per-depth counts gathered in shared memory and added once a block, the counters
// summed per lane, then per block.
template <class Job>
__global__ void decide_warp_kernel(loop_view<Job> v) {
  const std::uint32_t P = v.state->parents;
  const int lane = static_cast<int>(threadIdx.x & 31u);
  __shared__ unsigned int h_popped[kMaxJobs + 1], h_kept[kMaxJobs + 1];
  clear_depths(h_popped, h_kept, v.n);
  __syncthreads();
  parent_counts mine;
  const std::uint32_t warps = (gridDim.x * blockDim.x) >> 5;
  for (std::uint32_t p = (blockIdx.x * blockDim.x + threadIdx.x) >> 5; p < P; p += warps) {
    const parent_counts c = decide_parent_warp(v, p, lane);
    if (lane != 0) continue;
    v.kept[p] = c.kept;
    const std::uint32_t lim = v.pool_limits[p];
    const int depth = (limit1_of(lim) + 1) + (v.n - limit2_of(lim));
    atomicAdd(&h_popped[depth], 1u);
    if (c.kept) atomicAdd(&h_kept[depth], c.kept);
    mine.branched += c.branched;
    mine.pruned += c.pruned;
    mine.leaves += c.leaves;
    mine.bounds += c.bounds;
    mine.explored += c.explored;
  }
  __syncthreads();
  flush_depths(h_popped, h_kept, v.n, v.depth_popped, v.depth_kept);
  add_block_counts(v.state, mine);
}

// A kept child's rank among its parent's kept children (0 = pushed first, explored last: the
// largest key, ties by position), for each lane's child of one 32-child chunk, by the whole warp:
// every chunk's kept children are broadcast in turn (ballot, then a shuffle each), so a parent
// costs a load a chunk pair and a shuffle a kept child, where child_rank is `count` dependent
// loads a child. key_of(o, lb) is child o's key: its bound (child_rank's order), or with a guide
// its distance from the guide's position of its job, then its bound (expander::order_children's).
template <class Key, class KeyOf>
__device__ __forceinline__ int warp_chunk_rank(const int* lbs, int count, int ub, int c, Key key, int lane,
                                               KeyOf key_of) {
  int r = 0;
  for (int b = 0; b < count; b += 32) {
    const int o = b + lane;
    const int other = o < count ? lbs[o] : INT_MAX;
    unsigned alive = __ballot_sync(0xffffffffu, other < ub);
    if (alive == 0) continue;
    const Key k = other < ub ? key_of(o, other) : Key{};
    while (alive) {
      const int src = __ffs(alive) - 1;
      alive &= alive - 1;
      const Key x = __shfl_sync(0xffffffffu, k, src);
      r += (x > key || (x == key && b + src < c)) ? 1 : 0;
    }
  }
  return r;
}

// Child c's place in its parent's segment (warp_chunk_rank), by the bound or by the guide.
// jobs[c] is the job child c places at position `to`.
template <class Job>
__device__ __forceinline__ int push_rank(const loop_view<Job>& v, const int* lbs, int count, int ub, int c, int lb,
                                         const Job* jobs, int to, int lane) {
  if (!v.guide) return warp_chunk_rank(lbs, count, ub, c, lb, lane, [](int, int x) { return x; });
  const int* guide = v.guide;
  auto key_of = [guide, jobs, to](int o, int x) { return guided_child_key(guide[jobs[o]], to, x); };
  const unsigned long long key = lb < ub ? key_of(c, lb) : 0ull;
  return warp_chunk_rank(lbs, count, ub, c, key, lane, key_of);
}

// The parent's permutation (`words` words) copied to each kept child's row of the chunk (`alive`:
// their lanes; `dest`: each one's row), a child at a time, the lanes over the words.
template <class Word>
__device__ __forceinline__ void warp_copy_rows(Word* rows, const Word* src, int words, unsigned alive,
                                               std::uint32_t dest, int lane) {
  while (alive) {
    const int k = __ffs(alive) - 1;
    alive &= alive - 1;
    Word* dst = rows + static_cast<std::size_t>(__shfl_sync(0xffffffffu, dest, k)) * static_cast<std::size_t>(words);
    for (int w = lane; w < words; w += 32) dst[w] = src[w];
  }
}

// A warp a parent (grid-stride): its kept children (chosen direction, bound below the
// iteration's threshold, not a leaf) are written onto the stack, 32 positions at a time. Parent
// p's kept children go to a segment mirrored in parent order (the parent popped first, from the
// top, gets the highest segment), in rank order inside it (push_rank: the bound's, or with a
// guide the distance to it first): the stack pops the pool's best child of its first parent
// first, as the sequential depth-first search would. The warp copies the parent's permutation
// to each kept child's row (lanes over the words), then each child's lane swaps its two jobs in
// and writes its bound, limits and weight. (A thread per child, before 013, left 85 % of the
// lanes idle; a lane per kept child with child_rank's serial loop and its own row copy, before
// option U, ran at a SIMT efficiency of 0.30: decision 013.)
template <class Job>
__global__ void push_warp_kernel(loop_view<Job> v) {
  const std::uint32_t P = v.state->parents;
  const int ub = v.state->iteration_ub;
  const std::uint32_t base = v.state->top - P;
  const std::uint32_t total = v.kept_incl[v.max_parents - 1];
  if (static_cast<std::size_t>(base) + total > v.capacity) {  // never: pool_limit keeps room (a bug)
    if (blockIdx.x == 0 && threadIdx.x == 0) v.state->overflow = 1;
    return;
  }
  const int lane = static_cast<int>(threadIdx.x & 31u);
  const std::uint32_t warps = (gridDim.x * blockDim.x) >> 5;
  const int words = v.vec ? v.ld * static_cast<int>(sizeof(Job)) / 16 : v.ld;
  for (std::uint32_t p = (blockIdx.x * blockDim.x + threadIdx.x) >> 5; p < P; p += warps) {
    const std::uint32_t kept = v.kept[p];
    if (kept == 0) continue;  // pruned, a leaf, or nothing below the threshold
    const std::uint32_t lim = v.pool_limits[p];
    const int limit1 = limit1_of(lim), limit2 = limit2_of(lim);
    const int count = limit2 - limit1 - 1;
    const bool backward = v.dirs == 2 ? v.forward[p] == 0 : v.backward_only;
    const int* lbs = v.bounds + v.offsets[p] + (v.dirs == 2 && backward ? static_cast<std::uint32_t>(count) : 0u);
    const std::uint32_t segment = base + total - v.kept_incl[p];
    const Job* src = v.pool_perms + static_cast<std::size_t>(p) * v.ld;
    const float w = v.pool_w[p] / static_cast<float>(kept);
    const int first = limit1 + 1;
    const int to = backward ? limit2 - 1 : first;
    const std::uint32_t child_limits = backward ? pack_limits(limit1, limit2 - 1) : pack_limits(limit1 + 1, limit2);
    for (int b = 0; b < count; b += 32) {
      const int c = b + lane;
      const int lb = c < count ? lbs[c] : INT_MAX;
      const unsigned alive = __ballot_sync(0xffffffffu, lb < ub);
      if (alive == 0) continue;
      const std::uint32_t dest =
          segment + static_cast<std::uint32_t>(push_rank(v, lbs, count, ub, c, lb, src + first, to, lane));
      if (v.vec)
        warp_copy_rows(reinterpret_cast<uint4*>(v.stack_perms), reinterpret_cast<const uint4*>(src), words, alive, dest,
                       lane);
      else
        warp_copy_rows(v.stack_perms, src, words, alive, dest, lane);
      __syncwarp();  // the rows' words before the swapped jobs written over them
      if (lb >= ub) continue;
      const int from = first + c;
      Job* dst = v.stack_perms + static_cast<std::size_t>(dest) * v.ld;
      dst[from] = src[to];
      dst[to] = src[from];
      v.stack_limits[dest] = child_limits;
      v.stack_lbs[dest] = lb;
      v.stack_w[dest] = w;
    }
  }
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
      if (v.guide) v.guide[src[j]] = i;  // from the next iteration, the search follows this leaf
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

inline unsigned blocks_for(std::size_t threads, unsigned block) {
  return static_cast<unsigned>(std::max<std::size_t>(1, (threads + block - 1) / block));
}

}  // namespace pfsp::gpu::device_loop
