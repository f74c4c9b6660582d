#include <algorithm>
#include <climits>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include "base/device_buffer.cuh"
#include "gpu/device_beam.hpp"

namespace pfsp::gpu {

namespace {

constexpr int kBlock = 128;  // threads of a node's block (jobs in chunks of this many)

// The nodes of one depth on the device, as heuristic/beam.cpp's level: machine values at
// [node * m + k], job flags at [node * n + j].
struct level_view {
  int* front;
  int* back;
  int* left;
  int* idle_front;
  int* idle_back;
  std::uint8_t* used;
  std::uint8_t* made_forward;
};

struct level_store {
  device_buffer<int> front, back, left, idle_front, idle_back;
  device_buffer<std::uint8_t> used, made_forward;
  int capacity = 0;

  void reserve(int nodes, int n, int m) {
    if (nodes <= capacity) return;
    const std::size_t cells = static_cast<std::size_t>(nodes) * static_cast<std::size_t>(m);
    for (auto* v : {&front, &back, &left, &idle_front, &idle_back}) *v = device_buffer<int>(cells);
    used = device_buffer<std::uint8_t>(static_cast<std::size_t>(nodes) * static_cast<std::size_t>(n));
    made_forward = device_buffer<std::uint8_t>(static_cast<std::size_t>(nodes));
    capacity = nodes;
  }
  level_view view() const {
    return {front.data(),     back.data(), left.data(),        idle_front.data(),
            idle_back.data(), used.data(), made_forward.data()};
  }
};

// A node's machine values and job flags, staged in shared memory by its block.
struct staged_node {
  int *f, *b, *l, *idf, *idb;
  std::uint8_t* used;
};

__device__ staged_node stage_node(const level_view& lv, int node, int n, int m, int* shared) {
  staged_node s{shared,         shared + m,     shared + 2 * m,
                shared + 3 * m, shared + 4 * m, reinterpret_cast<std::uint8_t*>(shared + 5 * m)};
  const std::size_t row = static_cast<std::size_t>(node) * m;
  for (int k = threadIdx.x; k < m; k += blockDim.x) {
    s.f[k] = lv.front[row + k];
    s.b[k] = lv.back[row + k];
    s.l[k] = lv.left[row + k];
    s.idf[k] = lv.idle_front[row + k];
    s.idb[k] = lv.idle_back[row + k];
  }
  const std::size_t flags = static_cast<std::size_t>(node) * n;
  for (int j = threadIdx.x; j < n; j += blockDim.x) s.used[j] = lv.used[flags + j];
  __syncthreads();
  return s;
}

// beam_search::child_bound.
__device__ int child_bound(const staged_node& s, const int* p, int m, bool forward) {
  int bound = 0, chain = 0, t = 0;
  if (forward) {
    for (int k = 0; k < m; ++k) {
      t = max(t, s.f[k]) + p[k];
      chain = max(chain, t + s.l[k] - p[k]);
      bound = max(bound, chain + s.b[k]);
    }
  } else {
    for (int k = m - 1; k >= 0; --k) {
      t = max(t, s.b[k]) + p[k];
      chain = max(chain, t + s.l[k] - p[k]);
      bound = max(bound, chain + s.f[k]);
    }
  }
  return bound;
}

__device__ double idle_ratio(int idle, int busy) {
  return busy == 0 ? 1.0 : __ddiv_rn(static_cast<double>(idle), static_cast<double>(busy));
}

// beam_search::child_guide, operation for operation (round to nearest, no fused multiply-add).
__device__ double child_guide(const staged_node& s, const int* p, int m, bool forward, int bound, int depth, int n) {
  double weighted = 0;
  int t = 0;
  if (forward) {
    for (int k = 0; k < m; ++k) {
      const int start = max(t, s.f[k]);
      const int idle = s.idf[k] + (k > 0 || s.f[k] > 0 ? start - s.f[k] : 0);
      t = start + p[k];
      weighted = __dadd_rn(weighted, __dadd_rn(idle_ratio(idle, t), idle_ratio(s.idb[k], s.b[k])));
    }
  } else {
    for (int k = m - 1; k >= 0; --k) {
      const int start = max(t, s.b[k]);
      const int idle = s.idb[k] + (k < m - 1 || s.b[k] > 0 ? start - s.b[k] : 0);
      t = start + p[k];
      weighted = __dadd_rn(weighted, __dadd_rn(idle_ratio(idle, t), idle_ratio(s.idf[k], s.f[k])));
    }
  }
  const double a = __ddiv_rn(static_cast<double>(depth), static_cast<double>(n));
  const double b = static_cast<double>(bound);
  return __dadd_rn(__dmul_rn(a, b), __dmul_rn(__dmul_rn(__dsub_rn(1.0, a), weighted), b));
}

struct pass_shape {
  int n, m, depth, target;
  bool bidirectional;
  const int* pj;  // job-major times
};

// Per node: the direction its children go (beam_search::choose_forward) and how many of them are
// below the target.
__global__ void choose_kernel(level_view cur, pass_shape sh, std::uint8_t* forward, unsigned* counts) {
  extern __shared__ int shared[];
  const int node = blockIdx.x;
  const staged_node s = stage_node(cur, node, sh.n, sh.m, shared);
  const bool both = sh.bidirectional && sh.depth > 1;
  const bool fixed_forward = !sh.bidirectional || sh.depth == 0;
  long long alive_f = 0, alive_b = 0, sum_f = 0, sum_b = 0;
  for (int j = threadIdx.x; j < sh.n; j += blockDim.x) {
    if (s.used[j]) continue;
    const int* p = sh.pj + static_cast<std::size_t>(j) * sh.m;
    if (both || fixed_forward) {
      const int bf = child_bound(s, p, sh.m, true);
      if (bf < sh.target) ++alive_f, sum_f += bf;
    }
    if (both || !fixed_forward) {
      const int bb = child_bound(s, p, sh.m, false);
      if (bb < sh.target) ++alive_b, sum_b += bb;
    }
  }
  using reduce = cub::BlockReduce<long long, kBlock>;
  __shared__ typename reduce::TempStorage temp;
  long long totals[4] = {alive_f, alive_b, sum_f, sum_b};
  for (long long& v : totals) {
    v = reduce(temp).Sum(v);
    __syncthreads();
  }
  if (threadIdx.x != 0) return;
  bool fwd = fixed_forward;
  if (both) {
    fwd = cur.made_forward[node] == 0;
    if (totals[0] != totals[1])
      fwd = totals[0] < totals[1];
    else if (totals[2] != totals[3])
      fwd = totals[2] > totals[3];
  }
  forward[node] = fwd ? 1 : 0;
  counts[node] = static_cast<unsigned>(fwd ? totals[0] : totals[1]);
}

// Per node: its children below the target, in job order from the node's offset (ends[node - 1]):
// the guide's bits (a non-negative double orders as its bits) and node * n + job.
__global__ void emit_kernel(level_view cur, pass_shape sh, const std::uint8_t* forward, const unsigned* ends,
                            unsigned long long* keys, unsigned* values) {
  extern __shared__ int shared[];
  const int node = blockIdx.x;
  const staged_node s = stage_node(cur, node, sh.n, sh.m, shared);
  const bool fwd = forward[node] != 0;
  unsigned base = node == 0 ? 0u : ends[node - 1];
  using scan = cub::BlockScan<unsigned, kBlock>;
  __shared__ typename scan::TempStorage temp;
  for (int chunk = 0; chunk < sh.n; chunk += kBlock) {
    const int j = chunk + static_cast<int>(threadIdx.x);
    unsigned flag = 0;
    double guide = 0;
    if (j < sh.n && !s.used[j]) {
      const int* p = sh.pj + static_cast<std::size_t>(j) * sh.m;
      const int bound = child_bound(s, p, sh.m, fwd);
      if (bound < sh.target) {
        flag = 1;
        guide = child_guide(s, p, sh.m, fwd, bound, sh.depth + 1, sh.n);
      }
    }
    unsigned rank = 0, total = 0;
    scan(temp).ExclusiveSum(flag, rank, total);
    if (flag) {
      keys[base + rank] = static_cast<unsigned long long>(__double_as_longlong(guide));
      values[base + rank] = static_cast<unsigned>(node) * static_cast<unsigned>(sh.n) + static_cast<unsigned>(j);
    }
    base += total;
    __syncthreads();
  }
}

// One warp per kept child (beam_search::make_child): the lanes copy the parent, lane 0 places the job.
__global__ void make_kernel(level_view cur, level_view next, pass_shape sh, const unsigned* chosen, int count,
                            const std::uint8_t* forward, long long* links) {
  const int child = static_cast<int>((blockIdx.x * static_cast<unsigned>(blockDim.x) + threadIdx.x) / 32);
  const int lane = static_cast<int>(threadIdx.x % 32);
  if (child >= count) return;
  const int n = sh.n, m = sh.m;
  const unsigned c = chosen[child];
  const int parent = static_cast<int>(c / static_cast<unsigned>(n)),
            job = static_cast<int>(c % static_cast<unsigned>(n));
  const bool fwd = forward[parent] != 0;
  const std::size_t src = static_cast<std::size_t>(parent) * m, dst = static_cast<std::size_t>(child) * m;
  for (int k = lane; k < m; k += 32) {
    next.front[dst + k] = cur.front[src + k];
    next.back[dst + k] = cur.back[src + k];
    next.left[dst + k] = cur.left[src + k];
    next.idle_front[dst + k] = cur.idle_front[src + k];
    next.idle_back[dst + k] = cur.idle_back[src + k];
  }
  for (int j = lane; j < n; j += 32)
    next.used[static_cast<std::size_t>(child) * n + j] = cur.used[static_cast<std::size_t>(parent) * n + j];
  __syncwarp();
  if (lane != 0) return;
  next.used[static_cast<std::size_t>(child) * n + job] = 1;
  next.made_forward[child] = fwd ? 1 : 0;
  int* side = fwd ? next.front + dst : next.back + dst;
  int* idle = fwd ? next.idle_front + dst : next.idle_back + dst;
  const int* p = sh.pj + static_cast<std::size_t>(job) * m;
  int t = 0;
  for (int s = 0; s < m; ++s) {
    const int k = fwd ? s : m - 1 - s;
    const int start = max(t, side[k]);
    if (s > 0 || side[k] > 0) idle[k] += start - side[k];
    t = start + p[k];
    side[k] = t;
    next.left[dst + k] -= p[k];
  }
  links[child] = (static_cast<long long>(parent) << 17) | (static_cast<long long>(job) << 1) | (fwd ? 1 : 0);
}

// A leaf's makespan: max over machines of front + back.
__global__ void leaf_kernel(level_view cur, int m, int count, int* values) {
  const int node = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (node >= count) return;
  int value = 0;
  for (int k = 0; k < m; ++k)
    value = max(value,
                cur.front[static_cast<std::size_t>(node) * m + k] + cur.back[static_cast<std::size_t>(node) * m + k]);
  values[node] = value;
}

}  // namespace

struct device_beam::impl {
  const instance& inst;
  int device, n, m;
  bool bidirectional;
  cuda_stream stream;
  device_buffer<int> pj;
  level_store levels[2];
  device_buffer<std::uint8_t> forward;
  device_buffer<unsigned> counts, ends;
  device_buffer<int> leaf_values;  // the last level's makespans
  device_buffer<unsigned long long> keys[2];
  device_buffer<unsigned> values[2];
  device_buffer<long long> links;
  device_buffer<std::uint8_t> temp;
  pinned_buffer<unsigned> total{1};
  int reserved_width = 0;
  int cap = 1;
  std::uint64_t children = 0;

  impl(const instance& i, int dev, bool bidir)
      : inst(i), device(dev), n(i.n), m(i.m), bidirectional(bidir), stream(dev) {
    pj = device_buffer<int>(job_major_times(inst));
    std::size_t free_bytes = 0, total_bytes = 0;
    PFSP_CUDA_TRY(cudaMemGetInfo(&free_bytes, &total_bytes));
    const double budget = std::min(static_cast<double>(free_bytes) / 4, 8.0 * (1ULL << 30));
    // Per unit of width: two levels, the sort's two key and value buffers over n children, per-node
    // direction, counters, links and leaf value (21 bytes); the sort's scratch is about one more buffer.
    const double per_width = 2.0 * (20.0 * m + n + 1) + 3.0 * 12.0 * n + 21.0;
    const double widest = std::min(budget / per_width, static_cast<double>(INT_MAX) / std::max(1, n));
    while (cap * 2.0 <= widest) cap *= 2;
  }

  void reserve(int width);
  std::vector<int> run(int width, int target, const std::atomic<bool>* stop, const std::function<int()>& outside);
  void upload_root();
  std::vector<int> rebuild(const std::vector<std::vector<long long>>& host_links, int leaf) const;
};

void device_beam::impl::reserve(int width) {
  if (width <= reserved_width) return;
  for (auto& lv : levels) lv.reserve(width, n, m);
  const std::size_t w = static_cast<std::size_t>(width), slots = w * static_cast<std::size_t>(n);
  forward = device_buffer<std::uint8_t>(w);
  counts = device_buffer<unsigned>(w);
  ends = device_buffer<unsigned>(w);
  leaf_values = device_buffer<int>(w);
  links = device_buffer<long long>(w);
  for (int b = 0; b < 2; ++b) {
    keys[b] = device_buffer<unsigned long long>(slots);
    values[b] = device_buffer<unsigned>(slots);
  }
  std::size_t scan_bytes = 0, sort_bytes = 0;
  PFSP_CUDA_TRY(cub::DeviceScan::InclusiveSum(nullptr, scan_bytes, counts.data(), ends.data(), width));
  cub::DoubleBuffer<unsigned long long> k(keys[0].data(), keys[1].data());
  cub::DoubleBuffer<unsigned> v(values[0].data(), values[1].data());
  PFSP_CUDA_TRY(cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, k, v, static_cast<int>(slots)));
  temp = device_buffer<std::uint8_t>(std::max(scan_bytes, sort_bytes));
  reserved_width = width;
}

void device_beam::impl::upload_root() {
  const level_view root = levels[0].view();
  std::vector<int> left(static_cast<std::size_t>(m), 0);
  for (int j = 0; j < n; ++j)
    for (int k = 0; k < m; ++k) left[static_cast<std::size_t>(k)] += inst.time(k, j);
  const cudaStream_t s = stream.get();
  for (int* v : {root.front, root.back, root.idle_front, root.idle_back})
    PFSP_CUDA_TRY(cudaMemsetAsync(v, 0, sizeof(int) * m, s));
  PFSP_CUDA_TRY(cudaMemsetAsync(root.used, 0, static_cast<std::size_t>(n), s));
  PFSP_CUDA_TRY(cudaMemsetAsync(root.made_forward, 0, 1, s));
  PFSP_CUDA_TRY(cudaMemcpyAsync(root.left, left.data(), sizeof(int) * m, cudaMemcpyHostToDevice, s));
  PFSP_CUDA_TRY(cudaStreamSynchronize(s));  // `left` is pageable and local
}

// The schedule of a leaf (beam_search::rebuild): forward jobs from the root down, then backward
// jobs from the leaf up.
std::vector<int> device_beam::impl::rebuild(const std::vector<std::vector<long long>>& host_links, int leaf) const {
  std::vector<int> prefix, suffix;
  int node = leaf;
  for (int depth = n; depth > 0; --depth) {
    const long long link = host_links[static_cast<std::size_t>(depth)][static_cast<std::size_t>(node)];
    ((link & 1) ? prefix : suffix).push_back(static_cast<int>((link >> 1) & 0xFFFF));
    node = static_cast<int>(link >> 17);
  }
  std::reverse(prefix.begin(), prefix.end());
  prefix.insert(prefix.end(), suffix.begin(), suffix.end());
  return prefix;
}

std::vector<int> device_beam::impl::run(int width, int target, const std::atomic<bool>* stop,
                                        const std::function<int()>& outside) {
  PFSP_CUDA_TRY(cudaSetDevice(device));
  width = std::clamp(width, 1, cap);
  reserve(width);
  upload_root();
  const cudaStream_t s = stream.get();
  const std::size_t shared_bytes = sizeof(int) * 5 * static_cast<std::size_t>(m) + static_cast<std::size_t>(n);
  std::vector<std::vector<long long>> host_links(static_cast<std::size_t>(n) + 1);
  int count = 1, cur = 0;
  for (int depth = 0; depth < n; ++depth) {
    if (outside) target = std::min(target, outside());
    if (stop && stop->load(std::memory_order_relaxed)) return {};
    const pass_shape shape{n, m, depth, target, bidirectional, pj.data()};
    const level_view from = levels[cur].view(), to = levels[1 - cur].view();
    choose_kernel<<<count, kBlock, shared_bytes, s>>>(from, shape, forward.data(), counts.data());
    PFSP_CUDA_CHECK_LAUNCH("device_beam choose_kernel");
    std::size_t temp_bytes = temp.size();
    PFSP_CUDA_TRY(cub::DeviceScan::InclusiveSum(temp.data(), temp_bytes, counts.data(), ends.data(), count, s));
    PFSP_CUDA_TRY(
        cudaMemcpyAsync(total.data(), ends.data() + (count - 1), sizeof(unsigned), cudaMemcpyDeviceToHost, s));
    PFSP_CUDA_TRY(cudaStreamSynchronize(s));
    const int survivors = static_cast<int>(total[0]);
    children += static_cast<std::uint64_t>(count) * static_cast<std::uint64_t>(n - depth);
    if (survivors == 0) return {};
    emit_kernel<<<count, kBlock, shared_bytes, s>>>(from, shape, forward.data(), ends.data(), keys[0].data(),
                                                    values[0].data());
    PFSP_CUDA_CHECK_LAUNCH("device_beam emit_kernel");
    cub::DoubleBuffer<unsigned long long> k(keys[0].data(), keys[1].data());
    cub::DoubleBuffer<unsigned> v(values[0].data(), values[1].data());
    temp_bytes = temp.size();
    PFSP_CUDA_TRY(cub::DeviceRadixSort::SortPairs(temp.data(), temp_bytes, k, v, survivors, 0, 64, s));
    const int kept = std::min(survivors, width);
    const int threads = 256, blocks = static_cast<int>((static_cast<long long>(kept) * 32 + threads - 1) / threads);
    make_kernel<<<blocks, threads, 0, s>>>(from, to, shape, v.Current(), kept, forward.data(), links.data());
    PFSP_CUDA_CHECK_LAUNCH("device_beam make_kernel");
    auto& level_links = host_links[static_cast<std::size_t>(depth) + 1];
    level_links.resize(static_cast<std::size_t>(kept));
    PFSP_CUDA_TRY(
        cudaMemcpyAsync(level_links.data(), links.data(), sizeof(long long) * kept, cudaMemcpyDeviceToHost, s));
    PFSP_CUDA_TRY(cudaStreamSynchronize(s));
    count = kept;
    cur = 1 - cur;
  }
  std::vector<int> values_host(static_cast<std::size_t>(count));
  leaf_kernel<<<(count + 255) / 256, 256, 0, s>>>(levels[cur].view(), m, count, leaf_values.data());
  PFSP_CUDA_CHECK_LAUNCH("device_beam leaf_kernel");
  PFSP_CUDA_TRY(
      cudaMemcpyAsync(values_host.data(), leaf_values.data(), sizeof(int) * count, cudaMemcpyDeviceToHost, s));
  PFSP_CUDA_TRY(cudaStreamSynchronize(s));
  const auto best = std::min_element(values_host.begin(), values_host.end());  // the first of equals
  return rebuild(host_links, static_cast<int>(best - values_host.begin()));
}

bool device_beam::available(const instance& inst) {
  return inst.n >= 1 && inst.n < 65536 && 20LL * inst.m + inst.n <= 40000;  // a node fits a block's shared memory
}

device_beam::device_beam(const instance& inst, int device, bool bidirectional)
    : impl_(std::make_unique<impl>(inst, device, bidirectional)) {}

device_beam::~device_beam() = default;

std::vector<int> device_beam::pass(int width, int target, const std::atomic<bool>* stop,
                                   const std::function<int()>& outside) {
  return impl_->run(width, target, stop, outside);
}

int device_beam::width_cap() const { return impl_->cap; }
std::uint64_t device_beam::children() const { return impl_->children; }

}  // namespace pfsp::gpu
