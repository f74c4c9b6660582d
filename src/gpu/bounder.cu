#include <algorithm>
#include <chrono>
#include <cub/device/device_radix_sort.cuh>
#include <sstream>

#include "base/device_buffer.cuh"
#include "base/error.hpp"
#include "gpu/bound_kernels.cuh"
#include "gpu/bounder.hpp"
#include "gpu/device_tables.cuh"
#include "gpu/strategy_runner.cuh"

namespace pfsp::gpu {
namespace {

// One thread per parent writes its children's descriptors (and sort keys) in natural order.
__global__ void expand_kernel(pool_view pool, int n) {
  const std::uint32_t p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= pool.parents) return;
  const std::uint32_t lim = pool.limits[p];
  write_children(p, n, limit1_of(lim), limit2_of(lim), pool.directions, pool.backward_only, pool.offsets[p], pool.desc,
                 pool.keys, pool.values);
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int device_count() noexcept {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return count;
}

device_info query_device(int ordinal) {
  cudaDeviceProp prop{};
  PFSP_CUDA_TRY(cudaGetDeviceProperties(&prop, ordinal));
  device_info d;
  d.ordinal = ordinal;
  d.name = prop.name;
  d.sm_count = prop.multiProcessorCount;
  d.cc_major = prop.major;
  d.cc_minor = prop.minor;
  d.shared_per_block_optin = prop.sharedMemPerBlockOptin;
  d.shared_per_sm = prop.sharedMemPerMultiprocessor;
  d.global_bytes = prop.totalGlobalMem;
  int clock = 0;
  if (cudaDeviceGetAttribute(&clock, cudaDevAttrClockRate, ordinal) == cudaSuccess) d.clock_khz = clock;
  (void)cudaGetLastError();
  return d;
}

struct bounder::impl {
  struct slot {
    cuda_stream stream;
    cuda_event start, after_h2d, after_expand, after_sort, after_kernel, after_d2h;
    pinned_buffer<unsigned char> perms;
    pinned_buffer<std::uint32_t> limits, offsets, order;
    pinned_buffer<int> bounds;
    device_buffer<unsigned char> d_perms;
    device_buffer<std::uint32_t> d_limits, d_offsets, d_desc, d_keys, d_keys_sorted, d_values, d_order;
    device_buffer<int> d_bounds;
    device_buffer<unsigned char> d_sort_temp;
    std::size_t parents = 0, children = 0;
    bool pending = false, sorted_on_device = false, sorted_on_host = false, nodes_mode = false;
  };

  const bound_data* data;
  bound_kind kind;
  branching rule;
  gpu_policy policy;
  device_info dev;
  int n = 0, m = 0, jb = 1, dirs = 2, size_class = 0, key_bits = 1;
  bool backward_only = false;
  std::size_t max_children = 0, max_parents = 0, sort_temp_bytes = 0;
  std::unique_ptr<device_tables> dt;  // the tables, their placement and the plain kernel pair
  // dt's view, what every launch passes: tables, kernels, smem_bytes.
  tables_view tables;
  kernel_pair kernels;
  std::size_t smem_bytes = 0;
  bool shared = false;
  std::vector<std::unique_ptr<slot>> slots;
  device_times times;
  double host_sort_s = 0;
  std::vector<std::uint32_t> key_count;
  std::unique_ptr<strategy_runner> runner;  // --gpu-strategy: what bounds a pool (strategy_runner.cuh)

  impl(const bound_data& d, bound_kind k, branching r, const gpu_policy& p, std::size_t max_c)
      : data(&d), kind(k), rule(r), policy(p) {
    const bound_view bv = d.view();
    n = bv.inst.n;
    m = bv.inst.m;
    if (n > kMaxJobs || m > kMaxMachines)
      throw input_error("the GPU backend handles up to " + std::to_string(kMaxJobs) + " jobs and " +
                        std::to_string(kMaxMachines) + " machines; use --backend cpu-mt");
    if (device_count() <= policy.device) throw cuda_error("no CUDA device " + std::to_string(policy.device));
    PFSP_CUDA_TRY(cudaSetDevice(policy.device));
    dev = query_device(policy.device);
    jb = n <= 256 ? 1 : 2;
    size_class = n <= 64 ? 0 : (n <= 256 ? 1 : 2);
    dirs = (rule == branching::forward || rule == branching::backward) ? 1 : 2;
    backward_only = rule == branching::backward;
    key_bits = child_key_bits(n);
    max_children = std::max<std::size_t>(max_c, 1);
    // Parents: at most one per child, within 32 MiB of permutations per slot.
    const std::size_t perm_bytes = static_cast<std::size_t>(n) * jb;
    max_parents = std::min<std::size_t>({max_children, kMaxParentsPerPool, (std::size_t{32} << 20) / perm_bytes});
    max_parents = std::max<std::size_t>(max_parents, 1);

    dt = std::make_unique<device_tables>(d, kind, policy, dev);
    const device_tables_view tv = dt->view();
    tables = tv.tables;
    kernels = tv.kernels;
    smem_bytes = tv.smem_bytes;
    shared = dt->shared();
    if (policy.sort == pool_sort::device) {
      PFSP_CUDA_TRY(cub::DeviceRadixSort::SortPairs(
          nullptr, sort_temp_bytes, static_cast<std::uint32_t*>(nullptr), static_cast<std::uint32_t*>(nullptr),
          static_cast<std::uint32_t*>(nullptr), static_cast<std::uint32_t*>(nullptr), static_cast<int>(max_children), 0,
          key_bits));
    }
    if (policy.sort == pool_sort::host) key_count.assign((std::size_t{1} << key_bits) + 1, 0);
    const int nslots = std::clamp(policy.streams, 1, 2);
    make_strategy(nslots);
    for (int s = 0; s < nslots; ++s) slots.push_back(make_slot());
  }

  std::unique_ptr<slot> make_slot() const {
    auto s = std::make_unique<slot>();
    const std::size_t perm_bytes = max_parents * static_cast<std::size_t>(n) * jb;
    s->perms = pinned_buffer<unsigned char>(perm_bytes);
    s->limits = pinned_buffer<std::uint32_t>(max_parents);
    s->offsets = pinned_buffer<std::uint32_t>(max_parents + 1);
    s->bounds = pinned_buffer<int>(std::max(max_children, max_parents));
    s->d_perms = device_buffer<unsigned char>(perm_bytes);
    s->d_limits = device_buffer<std::uint32_t>(max_parents);
    s->d_offsets = device_buffer<std::uint32_t>(max_parents + 1);
    s->d_desc = device_buffer<std::uint32_t>(max_children);
    s->d_bounds = device_buffer<int>(std::max(max_children, max_parents));
    if (policy.sort == pool_sort::host || runner->replaces_sort()) {
      s->order = pinned_buffer<std::uint32_t>(max_children);
      s->d_order = device_buffer<std::uint32_t>(max_children);
    } else if (policy.sort == pool_sort::device) {
      s->d_keys = device_buffer<std::uint32_t>(max_children);
      s->d_keys_sorted = device_buffer<std::uint32_t>(max_children);
      s->d_values = device_buffer<std::uint32_t>(max_children);
      s->d_order = device_buffer<std::uint32_t>(max_children);
      s->d_sort_temp = device_buffer<unsigned char>(std::max<std::size_t>(sort_temp_bytes, 1));
    }
    return s;
  }

  slot& at(int s) {
    PFSP_EXPECTS(s >= 0 && s < static_cast<int>(slots.size()), "bounder slot out of range");
    return *slots[static_cast<std::size_t>(s)];
  }

  // Counting sort of the children by child_key, stable; O(parents + children + keys).
  void host_sort(slot& sl) {
    const auto t0 = std::chrono::steady_clock::now();
    std::fill(key_count.begin(), key_count.end(), 0u);
    const std::uint32_t* lim = sl.limits.data();
    auto group_key = [&](std::size_t p, int dir) {
      const bool backward = dirs == 2 ? dir == 1 : backward_only;
      return child_key(n, limit1_of(lim[p]), limit2_of(lim[p]), backward);
    };
    for (std::size_t p = 0; p < sl.parents; ++p) {
      const std::uint32_t count = (sl.offsets[p + 1] - sl.offsets[p]) / static_cast<std::uint32_t>(dirs);
      for (int dir = 0; dir < dirs; ++dir) key_count[group_key(p, dir) + 1] += count;
    }
    for (std::size_t k = 1; k < key_count.size(); ++k) key_count[k] += key_count[k - 1];
    std::uint32_t* order = sl.order.data();
    for (std::size_t p = 0; p < sl.parents; ++p) {
      const std::uint32_t count = (sl.offsets[p + 1] - sl.offsets[p]) / static_cast<std::uint32_t>(dirs);
      std::uint32_t idx = sl.offsets[p];
      for (int dir = 0; dir < dirs; ++dir) {
        std::uint32_t& pos = key_count[group_key(p, dir)];
        for (std::uint32_t c = 0; c < count; ++c) order[pos++] = idx++;
      }
    }
    host_sort_s += seconds_since(t0);
  }

  // --- --gpu-strategy (strategy.hpp, strategy_runner.cuh) ---

  void make_strategy(int nslots) {
    const strategy_params& sp = policy.strategy;
    const std::string name = "--gpu-strategy " + std::string(to_string(sp.kind));
    if (!uses_plain_kernel(sp.kind) && policy.kernel != kernel_variant::branchless)
      throw input_error(
          name + " builds its scheduled sets like the branchless kernel and runs no other variant: drop --kernel " +
          std::string(to_string(policy.kernel)) + " (plain and remap run every variant)");
    if (!uses_plain_kernel(sp.kind) && policy.compact_times == compact_mode::on)
      throw input_error(name + " is not available with --compact-times (plain and remap are)");
    strategy_setup su;
    su.params = sp;
    su.kind = kind;
    su.tables = tables;
    su.shared = shared;
    su.table_bytes = smem_bytes;
    su.max_children = max_children;
    su.slots = nslots;
    su.device = dev;
    su.plain = kernels;
    runner = make_strategy_runner(su, size_class);
  }

  // The strategy's order of the pool into sl.order (remap: Zhang's LAM, reference redirection:
  // the plain kernel reads it as the sort's order). False: natural order. Counted as host sort
  // time.
  bool plan_order(int s, slot& sl) {
    const auto t0 = std::chrono::steady_clock::now();
    host_pool hp;
    hp.limits = sl.limits.data();
    hp.offsets = sl.offsets.data();
    hp.parents = sl.parents;
    hp.children = sl.children;
    hp.n = n;
    hp.directions = dirs;
    hp.backward_only = backward_only;
    const bool ordered = runner->plan_order(s, hp, sl.order.data());
    host_sort_s += seconds_since(t0);
    return ordered;
  }

  pool_view view_of(slot& sl, int ub) const {
    pool_view v;
    v.perms = sl.d_perms.data();
    v.limits = sl.d_limits.data();
    v.offsets = sl.d_offsets.data();
    v.desc = sl.d_desc.data();
    v.bounds = sl.d_bounds.data();
    v.parents = static_cast<std::uint32_t>(sl.parents);
    v.children = static_cast<std::uint32_t>(sl.children);
    v.ub = ub;
    v.directions = dirs;
    v.backward_only = backward_only;
    return v;
  }

  // The parents' child offsets (natural order: each parent's forward children, then its
  // backward ones); the pool's child count.
  std::uint32_t lay_out_children(slot& sl) const {
    std::uint32_t total = 0;
    for (std::size_t p = 0; p < sl.parents; ++p) {
      sl.offsets[p] = total;
      const int count = limit2_of(sl.limits[p]) - limit1_of(sl.limits[p]) - 1;
      PFSP_EXPECTS(count >= 1, "bounder: a parent without children");
      total += static_cast<std::uint32_t>(count * dirs);
    }
    sl.offsets[sl.parents] = total;
    PFSP_EXPECTS(total <= max_children, "bounder: pool larger than max_children");
    return total;
  }

  // The pool's order on the host, before the copy: --sort host (counting sort), or the
  // strategy's own (remap), which replaces --sort and travels like the host sort's.
  void order_on_host(int s, slot& sl) {
    const bool by_sort = sl.children > 0 && !runner->replaces_sort();
    sl.sorted_on_host = by_sort && policy.sort == pool_sort::host;
    sl.sorted_on_device = by_sort && policy.sort == pool_sort::device;
    if (sl.sorted_on_host) host_sort(sl);
    if (sl.children > 0 && runner->replaces_sort() && plan_order(s, sl)) sl.sorted_on_host = true;
  }

  // On the slot's stream, timed by its events: the copy in, the expansion (with the device
  // sort's keys), the device sort, the strategy's launch, the copy back.
  void enqueue_children(int s, slot& sl, int ub, int tpb) {
    const std::size_t parents = sl.parents;
    const auto total = static_cast<std::uint32_t>(sl.children);
    const cudaStream_t st = sl.stream.get();
    sl.start.record(st);
    sl.d_perms.copy_from_host(sl.perms.data(), parents * static_cast<std::size_t>(n) * jb, st);
    sl.d_limits.copy_from_host(sl.limits.data(), parents, st);
    sl.d_offsets.copy_from_host(sl.offsets.data(), parents + 1, st);
    if (sl.sorted_on_host) sl.d_order.copy_from_host(sl.order.data(), total, st);
    sl.after_h2d.record(st);
    pool_view v = view_of(sl, ub);
    if (sl.sorted_on_device) {
      v.keys = sl.d_keys.data();
      v.values = sl.d_values.data();
    }
    if (parents > 0) {
      const unsigned grid = static_cast<unsigned>((parents + 127) / 128);
      expand_kernel<<<grid, 128, 0, st>>>(v, n);
      PFSP_CUDA_CHECK_LAUNCH("expand_kernel");
    }
    sl.after_expand.record(st);
    if (sl.sorted_on_device) {
      std::size_t temp = sl.d_sort_temp.size();
      PFSP_CUDA_TRY(cub::DeviceRadixSort::SortPairs(sl.d_sort_temp.data(), temp, sl.d_keys.data(),
                                                    sl.d_keys_sorted.data(), sl.d_values.data(), sl.d_order.data(),
                                                    static_cast<int>(total), 0, key_bits, st));
    }
    sl.after_sort.record(st);
    v.keys = nullptr;
    v.values = nullptr;
    v.order = (sl.sorted_on_host || sl.sorted_on_device) ? sl.d_order.data() : nullptr;
    if (total > 0) runner->launch(s, v, tpb, st);
    sl.after_kernel.record(st);
    sl.d_bounds.copy_to_host(sl.bounds.data(), total, st);
    sl.after_d2h.record(st);
  }

  std::size_t submit_children(int s, std::size_t parents, int ub, int tpb) {
    slot& sl = at(s);
    PFSP_EXPECTS(!sl.pending, "bounder: slot submitted twice without wait");
    PFSP_EXPECTS(parents <= max_parents, "bounder: too many parents for the pool");
    PFSP_EXPECTS(tpb >= 32 && tpb <= 1024 && tpb % 32 == 0, "threads per block must be a multiple of 32 in [32, 1024]");
    sl.parents = parents;
    sl.nodes_mode = false;
    sl.children = lay_out_children(sl);
    order_on_host(s, sl);
    enqueue_children(s, sl, ub, tpb);
    sl.pending = true;
    return sl.children;
  }

  void submit_nodes(int s, std::size_t nodes, int ub, int tpb) {
    slot& sl = at(s);
    PFSP_EXPECTS(!sl.pending, "bounder: slot submitted twice without wait");
    PFSP_EXPECTS(nodes <= max_parents, "bounder: too many nodes for the pool");
    sl.parents = nodes;
    sl.children = 0;
    sl.nodes_mode = true;
    sl.sorted_on_host = sl.sorted_on_device = false;
    const cudaStream_t st = sl.stream.get();
    sl.start.record(st);
    sl.d_perms.copy_from_host(sl.perms.data(), nodes * static_cast<std::size_t>(n) * jb, st);
    sl.d_limits.copy_from_host(sl.limits.data(), nodes, st);
    sl.after_h2d.record(st);
    sl.after_expand.record(st);
    sl.after_sort.record(st);
    pool_view v = view_of(sl, ub);
    if (nodes > 0) {
      const unsigned grid =
          static_cast<unsigned>((nodes + static_cast<unsigned>(tpb) - 1) / static_cast<unsigned>(tpb));
      kernels.nodes<<<grid, static_cast<unsigned>(tpb), smem_bytes, st>>>(tables, v);
      PFSP_CUDA_CHECK_LAUNCH("bound_nodes_kernel");
    }
    sl.after_kernel.record(st);
    sl.d_bounds.copy_to_host(sl.bounds.data(), nodes, st);
    sl.after_d2h.record(st);
    sl.pending = true;
  }

  const int* wait(int s) {
    slot& sl = at(s);
    PFSP_EXPECTS(sl.pending, "bounder: wait on a slot that was not submitted");
    sl.after_d2h.synchronize();
    sl.pending = false;
    times.h2d += sl.after_h2d.since(sl.start) * 1e-3;
    times.expand += sl.after_expand.since(sl.after_h2d) * 1e-3;
    times.sort += sl.after_sort.since(sl.after_expand) * 1e-3;
    times.kernel += sl.after_kernel.since(sl.after_sort) * 1e-3;
    times.d2h += sl.after_d2h.since(sl.after_kernel) * 1e-3;
    ++times.launches;
    if (!sl.nodes_mode) runner->pool_done(s, sl.after_kernel.since(sl.after_sort) * 1e-3, sl.children);
    return sl.bounds.data();
  }

  std::vector<std::uint32_t> order(int s) {
    slot& sl = at(s);
    std::vector<std::uint32_t> out;
    if (sl.sorted_on_host) out.assign(sl.order.data(), sl.order.data() + sl.children);
    if (sl.sorted_on_device) {
      out.resize(sl.children);
      PFSP_CUDA_TRY(
          cudaMemcpy(out.data(), sl.d_order.data(), sl.children * sizeof(std::uint32_t), cudaMemcpyDeviceToHost));
    }
    return out;
  }
};

bounder::bounder(const bound_data& data, bound_kind kind, branching rule, const gpu_policy& policy,
                 std::size_t max_children)
    : impl_(std::make_unique<impl>(data, kind, rule, policy, max_children)) {}
bounder::~bounder() = default;

int bounder::n() const { return impl_->n; }
int bounder::job_bytes() const { return impl_->jb; }
int bounder::slots() const { return static_cast<int>(impl_->slots.size()); }
int bounder::directions() const { return impl_->dirs; }
bool bounder::backward_only() const { return impl_->backward_only; }
std::size_t bounder::max_children() const { return impl_->max_children; }
std::size_t bounder::max_parents() const { return impl_->max_parents; }
bool bounder::tables_in_shared() const { return impl_->shared; }
bool bounder::tables_compact() const { return impl_->dt->compact(); }
std::size_t bounder::shared_bytes() const { return impl_->smem_bytes; }
int bounder::occupancy_threads_per_block() const { return impl_->dt->occupancy_threads_per_block(); }
const device_info& bounder::device() const { return impl_->dev; }
void* bounder::perms(int slot) { return impl_->at(slot).perms.data(); }
std::uint32_t* bounder::limits(int slot) { return impl_->at(slot).limits.data(); }
std::size_t bounder::submit_children(int slot, std::size_t parents, int ub, int tpb) {
  return impl_->submit_children(slot, parents, ub, tpb);
}
void bounder::submit_nodes(int slot, std::size_t nodes, int ub, int tpb) { impl_->submit_nodes(slot, nodes, ub, tpb); }
const int* bounder::wait(int slot) { return impl_->wait(slot); }
const std::uint32_t* bounder::offsets(int slot) const {
  return impl_->slots.at(static_cast<std::size_t>(slot))->offsets.data();
}
std::size_t bounder::children(int slot) const { return impl_->slots.at(static_cast<std::size_t>(slot))->children; }
std::vector<std::uint32_t> bounder::order(int slot) { return impl_->order(slot); }
device_times bounder::times() const { return impl_->times; }
double bounder::host_sort_seconds() const { return impl_->host_sort_s; }

std::string bounder::describe() const {
  const impl& d = *impl_;
  std::ostringstream s;
  s << to_string(d.kind) << ' ' << to_string(d.policy.kernel) << " kernel, " << d.dt->describe();
  s << ", strategy " << gpu::describe(d.policy.strategy);
  const std::string runner = d.runner->describe();
  if (!runner.empty()) s << " [" << runner << "]";
  s << ", sort "
    << (d.runner->replaces_sort() ? std::string("replaced by the remap") : std::string(to_string(d.policy.sort)))
    << ", " << d.slots.size() << (d.slots.size() == 1 ? " stream" : " streams");
  return s.str();
}

}  // namespace pfsp::gpu
