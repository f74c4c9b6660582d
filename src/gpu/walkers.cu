#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <thread>

#include "base/cuda_check.cuh"
#include "base/device_buffer.cuh"
#include "gpu/walkers.hpp"
#include "problem/makespan.hpp"

namespace pfsp::gpu {
namespace {

constexpr int block_threads = 64;  // two warps: heads and tails in parallel, then positions
constexpr int max_destruct = 8;

// Every walker's state, flat in global memory (walker w owns row w of each array).
struct walker_state {
  int n, m, count, destruct;
  float temperature;
  const int* p;  // job-major times p[j * m + k]
  int *cur, *work, *tmp, *best, *order;
  int *heads, *tails;                     // (n + 1) x m per walker
  int *cur_value, *best_value, *restart;  // per walker
  unsigned long long *rng, *rounds;       // per walker
  const int* restart_seq;                 // the engine's best, for walkers flagged to restart
  int restart_value;
  const volatile int* stop;  // host-mapped: raised by stop()
};

__device__ unsigned long long next_rand(unsigned long long& s) {
  s ^= s >> 12;
  s ^= s << 25;
  s ^= s >> 27;
  return s * 2685821657736338717ULL;
}

__device__ unsigned mix(unsigned x) {
  x ^= x >> 16;
  x *= 0x7feb352dU;
  x ^= x >> 15;
  x *= 0x846ca68bU;
  x ^= x >> 16;
  return x;
}

// Heads (warp 0) and tails (warp 1) of seq[0..len) as register wavefronts: lane k holds machine k
// (tails: machine m-1-lane) and receives its neighbour's value of the same row by a shuffle.
__device__ void load_heads_tails(const walker_state& s, const int* p, const int* seq, int len, int* heads, int* tails) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, m = s.m;
  if (warp == 0) {
    int h = 0;
    if (lane < m) heads[lane] = 0;
    for (int step = 0; step < len + m - 1; ++step) {
      const int i = step - lane + 1;  // row: completion of seq[i - 1]
      int left = __shfl_up_sync(0xffffffffu, h, 1);
      if (lane == 0) left = 0;
      if (lane < m && i >= 1 && i <= len) {
        h = max(h, left) + p[seq[i - 1] * m + lane];
        heads[i * m + lane] = h;
      }
    }
  } else {
    const int k = m - 1 - lane;
    int t = 0;
    if (lane < m) tails[len * m + k] = 0;
    for (int step = 0; step < len + m - 1; ++step) {
      const int i = len - 1 - (step - lane);  // row: from the start of seq[i] to the end
      int right = __shfl_up_sync(0xffffffffu, t, 1);
      if (lane == 0) right = 0;
      if (lane < m && i >= 0 && i <= len - 1) {
        t = max(t, right) + p[seq[i] * m + k];
        tails[i * m + k] = t;
      }
    }
  }
  __syncthreads();
}

// The best position to insert `job` into the loaded sequence of length len: (makespan, position),
// ties broken at random by `salt` (0: the first position).
__device__ void best_position(const walker_state& s, const int* p, int job, int len, const int* heads, const int* tails,
                              unsigned salt, int& value, int& pos) {
  __shared__ unsigned long long warp_min[block_threads / 32];
  const int m = s.m;
  unsigned long long key = ~0ULL;
  for (int i = threadIdx.x; i <= len; i += blockDim.x) {
    int f = 0, cmax = 0;
    for (int k = 0; k < m; ++k) {
      f = max(f, heads[i * m + k]) + p[job * m + k];
      cmax = max(cmax, f + tails[i * m + k]);
    }
    const unsigned tie = salt ? (mix(static_cast<unsigned>(i) ^ salt) & 0xffffu) : 0u;
    const unsigned long long k2 = (static_cast<unsigned long long>(cmax) << 32) |
                                  (static_cast<unsigned long long>(tie) << 16) | static_cast<unsigned>(i);
    key = min(key, k2);
  }
  for (int off = 16; off > 0; off >>= 1) key = min(key, __shfl_down_sync(0xffffffffu, key, off));
  if ((threadIdx.x & 31) == 0) warp_min[threadIdx.x >> 5] = key;
  __syncthreads();
  key = min(warp_min[0], warp_min[1]);
  __syncthreads();
  value = static_cast<int>(key >> 32);
  pos = static_cast<int>(key & 0xffffu);
}

__device__ void copy_seq(int* dst, const int* src, int len) {
  for (int i = threadIdx.x; i < len; i += blockDim.x) dst[i] = src[i];
  __syncthreads();
}

// seq[0..len) without position r (tmp: scratch).
__device__ void remove_at(int* seq, int* tmp, int len, int r) {
  copy_seq(tmp, seq, len);
  for (int i = threadIdx.x; i < len - 1; i += blockDim.x) seq[i] = tmp[i + (i >= r ? 1 : 0)];
  __syncthreads();
}

// seq[0..len) with job inserted before position pos (tmp: scratch).
__device__ void insert_at(int* seq, int* tmp, int len, int pos, int job) {
  copy_seq(tmp, seq, len);
  for (int i = threadIdx.x; i <= len; i += blockDim.x) seq[i] = i < pos ? tmp[i] : (i == pos ? job : tmp[i - 1]);
  __syncthreads();
}

__device__ int find_job(const int* seq, int len, int job) {
  __shared__ int where;
  for (int i = threadIdx.x; i < len; i += blockDim.x)
    if (seq[i] == job) where = i;
  __syncthreads();
  const int r = where;
  __syncthreads();
  return r;
}

__device__ bool stopped(const walker_state& s) { return *s.stop != 0; }

// One walker's working memory: in shared memory when it fits (the times, heads, tails and the
// sequences: about 128 KB at 500x20), else its rows of the global arrays.
struct walk_mem {
  const int* p;
  int *cur, *work, *tmp, *order, *heads, *tails;
};

__device__ walk_mem walker_memory(const walker_state& s, int w, bool in_shared) {
  extern __shared__ int smem[];
  const int n = s.n, m = s.m;
  walk_mem k;
  if (in_shared) {
    int* at = smem;
    int* p = at;
    at += n * m;
    for (int i = threadIdx.x; i < n * m; i += blockDim.x) p[i] = s.p[i];
    k.p = p;
    k.heads = at;
    at += (n + 1) * m;
    k.tails = at;
    at += (n + 1) * m;
    k.cur = at;
    at += n;
    k.work = at;
    at += n;
    k.tmp = at;
    at += n;
    k.order = at;
    for (int i = threadIdx.x; i < n; i += blockDim.x) k.cur[i] = s.cur[static_cast<size_t>(w) * n + i];
    __syncthreads();
  } else {
    k.p = s.p;
    k.cur = s.cur + static_cast<size_t>(w) * n;
    k.work = s.work + static_cast<size_t>(w) * n;
    k.tmp = s.tmp + static_cast<size_t>(w) * n;
    k.order = s.order + static_cast<size_t>(w) * n;
    k.heads = s.heads + static_cast<size_t>(w) * (n + 1) * m;
    k.tails = s.tails + static_cast<size_t>(w) * (n + 1) * m;
  }
  return k;
}

// Insertion local search with sideways moves on seq (length n); false if stopped.
__device__ bool local_search(const walker_state& s, const walk_mem& k, int* seq, int& value, unsigned long long& rng) {
  __shared__ unsigned salt;
  const int n = s.n;
  int* order = k.order;
  int* tmp = k.tmp;
  int* heads = k.heads;
  int* tails = k.tails;
  bool improved = true;
  while (improved) {
    improved = false;
    copy_seq(order, seq, n);
    if (threadIdx.x == 0)
      for (int i = n - 1; i > 0; --i) {
        const int j = static_cast<int>((next_rand(rng) >> 33) % static_cast<unsigned long long>(i + 1));
        const int t = order[i];
        order[i] = order[j];
        order[j] = t;
      }
    __syncthreads();
    for (int idx = 0; idx < n; ++idx) {
      if ((idx & 15) == 0 && stopped(s)) return false;  // a read over PCIe: every 16 steps
      const int job = order[idx];
      const int from = find_job(seq, n, job);
      remove_at(seq, tmp, n, from);
      load_heads_tails(s, k.p, seq, n - 1, heads, tails);
      if (threadIdx.x == 0) salt = static_cast<unsigned>(next_rand(rng) >> 32) | 1u;
      __syncthreads();
      int v, pos;
      best_position(s, k.p, job, n - 1, heads, tails, salt, v, pos);
      const bool move = pos != from && v <= value;
      insert_at(seq, tmp, n - 1, move ? pos : from, job);
      if (move) {
        if (v < value) improved = true;
        value = v;
      }
    }
  }
  return true;
}

// One round on walker w: destruction, greedy reconstruction, local search; the candidate is left
// in work (value returned through `value`); false if stopped.
__device__ bool ig_round(const walker_state& s, const walk_mem& k, int& value, unsigned long long& rng) {
  __shared__ int removed[max_destruct];
  __shared__ unsigned salt;
  const int n = s.n;
  int* work = k.work;
  int* tmp = k.tmp;
  int* heads = k.heads;
  int* tails = k.tails;
  copy_seq(work, k.cur, n);
  const int d = min(s.destruct, n - 1);
  int len = n;
  for (int r = 0; r < d; ++r) {
    __shared__ int at;
    if (threadIdx.x == 0) {
      at = static_cast<int>((next_rand(rng) >> 33) % static_cast<unsigned long long>(len));
      removed[r] = work[at];
    }
    __syncthreads();
    remove_at(work, tmp, len, at);
    --len;
  }
  for (int r = 0; r < d; ++r) {
    if (stopped(s)) return false;
    load_heads_tails(s, k.p, work, len, heads, tails);
    if (threadIdx.x == 0) salt = static_cast<unsigned>(next_rand(rng) >> 32) | 1u;
    __syncthreads();
    int pos;
    best_position(s, k.p, removed[r], len, heads, tails, salt, value, pos);
    insert_at(work, tmp, len, pos, removed[r]);
    ++len;
  }
  return local_search(s, k, work, value, rng);
}

__global__ void walkers_kernel(walker_state s, int rounds, int descend_first, bool in_shared) {
  __shared__ int accept;
  const int w = blockIdx.x;
  const int n = s.n;
  int* cur_global = s.cur + static_cast<size_t>(w) * n;
  if (s.restart[w]) {
    copy_seq(cur_global, s.restart_seq, n);
    if (threadIdx.x == 0) {
      s.cur_value[w] = s.restart_value;
      s.restart[w] = 0;
    }
    __syncthreads();
  }
  const walk_mem k = walker_memory(s, w, in_shared);
  unsigned long long r = s.rng[w];  // only thread 0's stream is used (and written back)
  int cur_value = s.cur_value[w];
  if (descend_first) {
    copy_seq(k.work, k.cur, n);
    int v = cur_value;
    if (local_search(s, k, k.work, v, r)) {
      copy_seq(k.cur, k.work, n);
      cur_value = v;
    }
  }
  for (int round = 0; round < rounds; ++round) {
    int value = 0;
    if (!ig_round(s, k, value, r)) break;
    if (threadIdx.x == 0) {
      const double u = static_cast<double>(next_rand(r) >> 11) * 0x1.0p-53;
      accept = value < cur_value || u < exp(-static_cast<double>(value - cur_value) / s.temperature);
      s.rounds[w] += 1;
    }
    __syncthreads();
    if (accept) {
      copy_seq(k.cur, k.work, n);
      cur_value = value;
    }
    __syncthreads();
  }
  if (in_shared) copy_seq(cur_global, k.cur, n);
  if (cur_value < s.best_value[w]) {
    copy_seq(s.best + static_cast<size_t>(w) * n, k.cur, n);
    if (threadIdx.x == 0) s.best_value[w] = cur_value;
  }
  if (threadIdx.x == 0) {
    s.cur_value[w] = cur_value;
    s.rng[w] = r;
  }
}

// The insertion values of one job into one sequence (tests).
__global__ void values_kernel(walker_state s, int len, int job, int* out) {
  int* seq = s.cur;
  load_heads_tails(s, s.p, seq, len, s.heads, s.tails);
  const int m = s.m;
  for (int i = threadIdx.x; i <= len; i += blockDim.x) {
    int f = 0, cmax = 0;
    for (int k = 0; k < m; ++k) {
      f = max(f, s.heads[i * m + k]) + s.p[job * m + k];
      cmax = max(cmax, f + s.tails[i * m + k]);
    }
    out[i] = cmax;
  }
}

}  // namespace

struct gpu_walkers::impl {
  const instance& inst;
  walker_hooks hooks;
  int device, count;
  std::uint64_t seed;
  std::atomic<std::uint64_t> rounds{0};
  int* stop_host = nullptr;  // pinned, mapped
  std::thread thread;

  impl(const instance& i, int dev, int c, std::uint64_t sd, walker_hooks h)
      : inst(i), hooks(std::move(h)), device(dev), count(c), seed(sd) {}

  void run();
  void launch_loop(walker_state& s, device_buffer<int>& restart_seq, cudaStream_t stream);
  std::size_t shared_bytes = 0;  // per walker when its memory is shared memory, else 0
};

bool gpu_walkers::available(const instance& inst) { return inst.m <= 32 && inst.n >= 3 && inst.n <= 65535; }

gpu_walkers::gpu_walkers(const instance& inst, int device, int count, std::uint64_t seed, walker_hooks hooks)
    : impl_(std::make_unique<impl>(inst, device, count, seed, std::move(hooks))) {
  int previous = 0;  // the caller's current device is left as it was
  PFSP_CUDA_TRY(cudaGetDevice(&previous));
  PFSP_CUDA_TRY(cudaSetDevice(device));
  PFSP_CUDA_TRY(cudaHostAlloc(reinterpret_cast<void**>(&impl_->stop_host), sizeof(int), cudaHostAllocMapped));
  *impl_->stop_host = 0;
  if (impl_->count <= 0) {
    // Two walkers per multiprocessor, or one where two walkers' shared memory does not fit (500x20).
    int sms = 0, per_sm = 0;
    PFSP_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    PFSP_CUDA_TRY(cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device));
    const std::size_t bytes =
        sizeof(int) * (static_cast<std::size_t>(inst.n) * inst.m + 2 * static_cast<std::size_t>(inst.n + 1) * inst.m +
                       4 * static_cast<std::size_t>(inst.n));
    impl_->count = sms * (2 * (bytes + 2048) <= static_cast<std::size_t>(per_sm) ? 2 : 1);
  }
  PFSP_CUDA_TRY(cudaSetDevice(previous));
  impl_->thread = std::thread([this] { impl_->run(); });
}

gpu_walkers::~gpu_walkers() {
  stop();
  if (impl_->stop_host) cudaFreeHost(impl_->stop_host);
}

void gpu_walkers::stop() {
  if (impl_->stop_host) *reinterpret_cast<volatile int*>(impl_->stop_host) = 1;
  if (impl_->thread.joinable()) impl_->thread.join();
}

std::uint64_t gpu_walkers::rounds() const { return impl_->rounds.load(); }
int gpu_walkers::walkers() const { return impl_->count; }

void gpu_walkers::impl::run() {
  try {
    PFSP_CUDA_TRY(cudaSetDevice(device));
    const int n = inst.n, m = inst.m, W = count;
    const std::vector<int> p = job_major_times(inst);
    device_buffer<int> d_p(p);
    const std::size_t seqs = static_cast<std::size_t>(W) * n, rows = static_cast<std::size_t>(W) * (n + 1) * m;
    device_buffer<int> cur(seqs), work(seqs), tmp(seqs), best(seqs), order(seqs), heads(rows), tails(rows);
    const std::vector<int> start = hooks.best_schedule();
    const int start_value = hooks.best_value();
    std::vector<int> all(seqs);
    for (int w = 0; w < W; ++w) std::copy(start.begin(), start.end(), all.begin() + static_cast<std::ptrdiff_t>(w) * n);
    cur.upload(all);
    best.upload(all);
    PFSP_CUDA_TRY(cudaStreamSynchronize(cudaStreamLegacy));  // landed before the walkers' (non-blocking) stream runs
    device_buffer<int> cur_value(std::vector<int>(static_cast<std::size_t>(W), start_value));
    device_buffer<int> best_value(std::vector<int>(static_cast<std::size_t>(W), start_value));
    device_buffer<int> restart(std::vector<int>(static_cast<std::size_t>(W), 0));
    std::vector<unsigned long long> rng(static_cast<std::size_t>(W));
    for (int w = 0; w < W; ++w)
      rng[static_cast<std::size_t>(w)] = (seed + 1) * 0x9E3779B97F4A7C15ULL + 7919ULL * (w + 1);
    device_buffer<unsigned long long> d_rng(rng),
        d_rounds(std::vector<unsigned long long>(static_cast<std::size_t>(W), 0));
    device_buffer<int> restart_seq(start);
    long long total = 0;
    for (int v : inst.p) total += v;
    int* stop_dev = nullptr;
    PFSP_CUDA_TRY(cudaHostGetDevicePointer(reinterpret_cast<void**>(&stop_dev), stop_host, 0));
    walker_state s{n,
                   m,
                   W,
                   4,
                   static_cast<float>(0.4 * static_cast<double>(total) / (10.0 * n * m)),
                   d_p.data(),
                   cur.data(),
                   work.data(),
                   tmp.data(),
                   best.data(),
                   order.data(),
                   heads.data(),
                   tails.data(),
                   cur_value.data(),
                   best_value.data(),
                   restart.data(),
                   d_rng.data(),
                   d_rounds.data(),
                   restart_seq.data(),
                   start_value,
                   stop_dev};
    // The walker's memory in shared memory when it fits a block (opt-in size).
    const std::size_t bytes = sizeof(int) * (static_cast<std::size_t>(n) * m + 2 * static_cast<std::size_t>(n + 1) * m +
                                             4 * static_cast<std::size_t>(n));
    int optin = 0;
    PFSP_CUDA_TRY(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    if (bytes + 1024 <= static_cast<std::size_t>(optin)) {
      PFSP_CUDA_TRY(
          cudaFuncSetAttribute(walkers_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)));
      shared_bytes = bytes;
    }
    PFSP_CUDA_TRY(cudaDeviceSynchronize());  // the uploads above ran on the default stream
    cudaStream_t stream;
    PFSP_CUDA_TRY(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    launch_loop(s, restart_seq, stream);
    cudaStreamDestroy(stream);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "pfsp: GPU walkers stopped: %s\n", e.what());
  }
}

// Launches of about 50 ms until stopped: read the walkers' bests, publish the best if it beats the
// engine's, flag walkers that stagnate for a restart from the engine's best.
void gpu_walkers::impl::launch_loop(walker_state& s, device_buffer<int>& restart_seq, cudaStream_t stream) {
  const int W = s.count, n = s.n;
  std::vector<int> bests(static_cast<std::size_t>(W)), last(static_cast<std::size_t>(W), INT_MAX);
  std::vector<int> idle(static_cast<std::size_t>(W), 0), flags(static_cast<std::size_t>(W), 0);
  std::vector<unsigned long long> rounds_per(static_cast<std::size_t>(W));
  int per_launch = 1, descend = 1;
  std::vector<int> schedule(static_cast<std::size_t>(n));
  while (!*reinterpret_cast<volatile int*>(stop_host)) {
    const auto t0 = std::chrono::steady_clock::now();
    walkers_kernel<<<W, block_threads, shared_bytes, stream>>>(s, per_launch, descend, shared_bytes > 0);
    PFSP_CUDA_TRY(cudaGetLastError());
    PFSP_CUDA_TRY(cudaMemcpyAsync(bests.data(), s.best_value, sizeof(int) * W, cudaMemcpyDeviceToHost, stream));
    PFSP_CUDA_TRY(
        cudaMemcpyAsync(rounds_per.data(), s.rounds, sizeof(unsigned long long) * W, cudaMemcpyDeviceToHost, stream));
    PFSP_CUDA_TRY(cudaStreamSynchronize(stream));
    descend = 0;
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    per_launch = std::clamp(static_cast<int>(per_launch * 50.0 / std::max(ms, 1.0)), 1, 10000);
    std::uint64_t sum = 0;
    for (auto r : rounds_per) sum += r;
    rounds.store(sum);
    const auto w_best = static_cast<int>(std::min_element(bests.begin(), bests.end()) - bests.begin());
    if (bests[static_cast<std::size_t>(w_best)] < hooks.best_value()) {
      PFSP_CUDA_TRY(cudaMemcpy(schedule.data(), s.best + static_cast<std::size_t>(w_best) * n, sizeof(int) * n,
                               cudaMemcpyDeviceToHost));
      hooks.publish(schedule);
    }
    // Walkers without an improvement for 10 launches restart from the engine's best.
    const int global = hooks.best_value();
    bool any = false;
    for (int w = 0; w < W; ++w) {
      const auto i = static_cast<std::size_t>(w);
      idle[i] = bests[i] < last[i] ? 0 : idle[i] + 1;
      last[i] = bests[i];
      flags[i] = idle[i] >= 10 && global < bests[i];
      if (flags[i]) idle[i] = 0;
      any = any || flags[i];
    }
    if (any) {
      restart_seq.upload(hooks.best_schedule(), stream);
      s.restart_value = global;
      // On the walkers' stream (non-blocking: a plain cudaMemcpy's DMA could land after the next launch).
      PFSP_CUDA_TRY(cudaMemcpyAsync(s.restart, flags.data(), sizeof(int) * W, cudaMemcpyHostToDevice, stream));
      PFSP_CUDA_TRY(cudaStreamSynchronize(stream));
    }
  }
}

std::vector<int> device_insertion_values(const instance& inst, const std::vector<int>& seq, int job, int device) {
  PFSP_CUDA_TRY(cudaSetDevice(device));
  const int n = inst.n, m = inst.m, len = static_cast<int>(seq.size());
  PFSP_EXPECTS(m <= 32, "device_insertion_values needs m <= 32");
  device_buffer<int> d_p(job_major_times(inst));
  device_buffer<int> d_seq(seq.empty() ? std::vector<int>{0} : seq);
  device_buffer<int> heads(static_cast<std::size_t>(n + 1) * m), tails(static_cast<std::size_t>(n + 1) * m);
  device_buffer<int> out(static_cast<std::size_t>(len) + 1);
  walker_state s{};
  s.n = n;
  s.m = m;
  s.p = d_p.data();
  s.cur = d_seq.data();
  s.heads = heads.data();
  s.tails = tails.data();
  values_kernel<<<1, block_threads>>>(s, len, job, out.data());
  PFSP_CUDA_TRY(cudaGetLastError());
  std::vector<int> host(static_cast<std::size_t>(len) + 1);
  PFSP_CUDA_TRY(cudaMemcpy(host.data(), out.data(), sizeof(int) * host.size(), cudaMemcpyDeviceToHost));
  return host;
}

}  // namespace pfsp::gpu
