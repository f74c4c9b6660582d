// Zhang et al.'s remapping on the device: the GAFORT-like trip-count kernel and BlackScholes, in
// chunks, through the CPU-GPU pipeline (CPU workers compute LAM or sorting plans for chunk
// i + Delta while the device runs chunk i). Plans reach the device as D[]; reference redirection
// hands D[] to the kernel, layout transformation moves the inputs with it (gather), runs the
// unchanged kernel and moves the outputs back (scatter).
#include <chrono>
#include <cmath>
#include <functional>

#include "base/device_buffer.cuh"
#include "divergence/error.hpp"
#include "divergence/gpu/remap_kernels.cuh"
#include "divergence/gpu/runner_detail.cuh"
#include "divergence/workloads/rng.hpp"

namespace pfsp::divergence::gpu {
namespace {

using clock_type = std::chrono::steady_clock;

// Uniform floats in [lo, hi) from the counter-based generator: data sets are reproducible from
// the seed and generated on the device (GAFORT's genes are hundreds of MB).
__global__ void fill_uniform_kernel(float* out, std::uint64_t n, std::uint32_t key, float lo, float hi) {
  for (std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::uint64_t>(gridDim.x) * blockDim.x)
    out[i] =
        lo + (hi - lo) * static_cast<float>(hash_draw(key, static_cast<std::uint32_t>(i)) >> 8) * (1.0f / 16777216.0f);
}

float host_uniform(std::uint32_t key, std::uint32_t i, float lo, float hi) {
  return lo + (hi - lo) * static_cast<float>(hash_draw(key, i) >> 8) * (1.0f / 16777216.0f);
}

void fill_uniform(float* out, std::uint64_t n, std::uint32_t key, float lo, float hi) {
  fill_uniform_kernel<<<1024, 256>>>(out, n, key, lo, hi);
  PFSP_CUDA_CHECK_LAUNCH("fill_uniform_kernel");
}

// All chunks resident on the device; the host keeps what the remappers read.
struct remap_data {
  remap_spec spec;
  std::uint32_t n;  // elements per chunk
  // GAFORT-like
  std::vector<std::uint32_t> trips_host;
  device_buffer<std::uint32_t> trips, trips_s;
  device_buffer<float> fitness, genes, out, fitness_s, genes_s, out_s;
  // BlackScholes
  std::vector<float> price_h, strike_h, years_h;
  device_buffer<float> price, strike, years, call, put, price_s, strike_s, years_s, call_s, put_s;
  // D[] of the current chunk
  device_buffer<std::uint32_t> source;

  explicit remap_data(const remap_spec& s) : spec(s), n(s.chunk_elements), source(s.chunk_elements) {
    const std::uint64_t total = static_cast<std::uint64_t>(n) * spec.chunks;
    PFSP_DIV_EXPECTS(total < (1ull << 32), "remap experiment: too many elements");
    if (spec.workload == remap_workload::gafort) {
      trips_host.resize(total);
      const std::uint32_t cross = probability_threshold(spec.crossover);
      for (std::uint32_t i = 0; i < total; ++i)
        trips_host[i] = hash_draw(spec.seed, i) < cross ? 1u + hash_draw(spec.seed + 1u, i) % spec.max_trips : 0u;
      trips = device_buffer<std::uint32_t>(trips_host);
      fitness = device_buffer<float>(total);
      genes = device_buffer<float>(total * spec.gene_length);
      out = device_buffer<float>(total);
      fill_uniform(fitness.data(), total, spec.seed + 2u, 0.0f, 1.0f);
      fill_uniform(genes.data(), total * spec.gene_length, spec.seed + 3u, -1.0f, 1.0f);
      trips_s = device_buffer<std::uint32_t>(n);
      fitness_s = device_buffer<float>(n);
      genes_s = device_buffer<float>(static_cast<std::size_t>(n) * spec.gene_length);
      out_s = device_buffer<float>(n);
    } else {
      price_h.resize(total);
      strike_h.resize(total);
      years_h.resize(total);
      for (std::uint32_t i = 0; i < total; ++i) {  // ranges of the CUDA SDK sample
        price_h[i] = host_uniform(spec.seed, i, 5.0f, 30.0f);
        strike_h[i] = host_uniform(spec.seed + 1u, i, 1.0f, 100.0f);
        years_h[i] = host_uniform(spec.seed + 2u, i, 0.25f, 10.0f);
      }
      price = device_buffer<float>(price_h);
      strike = device_buffer<float>(strike_h);
      years = device_buffer<float>(years_h);
      call = device_buffer<float>(total);
      put = device_buffer<float>(total);
      price_s = device_buffer<float>(n);
      strike_s = device_buffer<float>(n);
      years_s = device_buffer<float>(n);
      call_s = device_buffer<float>(n);
      put_s = device_buffer<float>(n);
    }
    PFSP_CUDA_TRY(cudaDeviceSynchronize());
  }

  gafort_view gafort_chunk(std::size_t c) {
    const std::size_t o = c * n;
    return {n,
            spec.gene_length,
            spec.work,
            trips.data() + o,
            fitness.data() + o,
            genes.data() + o * spec.gene_length,
            out.data() + o};
  }
  gafort_view gafort_scratch() {
    return {n, spec.gene_length, spec.work, trips_s.data(), fitness_s.data(), genes_s.data(), out_s.data()};
  }
  black_scholes_view bs_chunk(std::size_t c) {
    const std::size_t o = c * n;
    black_scholes_view v;
    v.n = n;
    v.price = price.data() + o;
    v.strike = strike.data() + o;
    v.years = years.data() + o;
    v.call = call.data() + o;
    v.put = put.data() + o;
    return v;
  }
  black_scholes_view bs_scratch() {
    black_scholes_view v;
    v.n = n;
    v.price = price_s.data();
    v.strike = strike_s.data();
    v.years = years_s.data();
    v.call = call_s.data();
    v.put = put_s.data();
    return v;
  }
  black_scholes_view bs_host(std::size_t c) const {
    black_scholes_view v;
    v.n = n;
    v.price = price_h.data() + c * n;
    v.strike = strike_h.data() + c * n;
    v.years = years_h.data() + c * n;
    return v;
  }
  std::vector<float> output() const {
    if (spec.workload == remap_workload::gafort) return out.download();
    std::vector<float> o = call.download();
    const std::vector<float> p = put.download();
    o.insert(o.end(), p.begin(), p.end());
    return o;
  }
  void poison_output() {
    if (spec.workload == remap_workload::gafort) {
      out.fill_bytes(0xff);
    } else {
      call.fill_bytes(0xff);
      put.fill_bytes(0xff);
    }
  }
};

// The events bracketing one chunk: [start, k0) D[] upload and input moves, [k0, k1) the kernel,
// [k1, stop) output moves.
struct chunk_events {
  cuda_event start, k0, k1, stop;
};

// Enqueues chunk c with `plan` (nullptr: plain) realised by `mechanism`.
void enqueue_chunk(remap_data& d, std::size_t c, const remap_plan* plan, remap_mechanism mechanism, chunk_events& ev) {
  const unsigned blocks = detail::blocks_for(d.n, remap_block_threads);
  const bool gafort = d.spec.workload == remap_workload::gafort;
  const std::uint32_t passes = gafort ? 1u : std::max(1u, d.spec.bs_passes);
  ev.start.record(nullptr);
  if (plan) d.source.upload(plan->source.data(), d.n);
  const std::uint32_t* src = d.source.data();
  const bool layout = plan && mechanism == remap_mechanism::layout_transformation;
  if (layout) {  // move the input so warps get like data
    if (gafort) {
      const gafort_view from = d.gafort_chunk(c);
      gather_kernel<std::uint32_t><<<blocks, remap_block_threads>>>(from.trips, src, d.trips_s.data(), d.n);
      gather_kernel<float><<<blocks, remap_block_threads>>>(from.fitness, src, d.fitness_s.data(), d.n);
      gather_rows_kernel<<<1024, 256>>>(from.genes, src, d.genes_s.data(), d.n, d.spec.gene_length);
    } else {
      const black_scholes_view from = d.bs_chunk(c);
      gather_kernel<float><<<blocks, remap_block_threads>>>(from.price, src, d.price_s.data(), d.n);
      gather_kernel<float><<<blocks, remap_block_threads>>>(from.strike, src, d.strike_s.data(), d.n);
      gather_kernel<float><<<blocks, remap_block_threads>>>(from.years, src, d.years_s.data(), d.n);
    }
    PFSP_CUDA_CHECK_LAUNCH("gather_kernel (BlackScholes inputs)");
  }
  ev.k0.record(nullptr);
  for (std::uint32_t pass = 0; pass < passes; ++pass) {
    if (gafort) {
      if (!plan) {
        gafort_kernel<<<blocks, remap_block_threads>>>(d.gafort_chunk(c));
      } else if (layout) {
        gafort_kernel<<<blocks, remap_block_threads>>>(d.gafort_scratch());
      } else {
        gafort_redirected_kernel<<<blocks, remap_block_threads>>>(d.gafort_chunk(c), src);
      }
    } else {
      if (!plan) {
        black_scholes_kernel<<<blocks, remap_block_threads>>>(d.bs_chunk(c));
      } else if (layout) {
        black_scholes_kernel<<<blocks, remap_block_threads>>>(d.bs_scratch());
      } else {
        black_scholes_redirected_kernel<<<blocks, remap_block_threads>>>(d.bs_chunk(c), src);
      }
    }
  }
  PFSP_CUDA_CHECK_LAUNCH("the remap experiment's kernels");
  ev.k1.record(nullptr);
  if (layout) {  // move the output back
    if (gafort) {
      scatter_kernel<float><<<blocks, remap_block_threads>>>(d.out_s.data(), src, d.gafort_chunk(c).out, d.n);
    } else {
      const black_scholes_view to = d.bs_chunk(c);
      scatter_kernel<float><<<blocks, remap_block_threads>>>(d.call_s.data(), src, to.call, d.n);
      scatter_kernel<float><<<blocks, remap_block_threads>>>(d.put_s.data(), src, to.put, d.n);
    }
    PFSP_CUDA_CHECK_LAUNCH("scatter_kernel (BlackScholes outputs)");
  }
  ev.stop.record(nullptr);
}

// The device of the pipeline. finish() returns the chunk's wall time on the critical path, from
// launch (D[] upload included) to the end of the output moves.
class device_executor final : public chunk_executor<remap_plan> {
 public:
  device_executor(remap_data& d, remap_mechanism m) : d_(d), mechanism_(m) {
    // Load every kernel once (lazy module loading) so that chunk 0 is not charged for it.
    const remap_plan id = identity_plan(d_.n);
    for (const remap_plan* p : {static_cast<const remap_plan*>(nullptr), &id}) {
      enqueue_chunk(d_, 0, p, mechanism_, ev_);
      ev_.stop.synchronize();
    }
  }
  void launch(std::size_t chunk, const remap_plan* plan) override {
    t0_ = clock_type::now();
    enqueue_chunk(d_, chunk, plan, mechanism_, ev_);
  }
  double finish() override {
    ev_.stop.synchronize();
    kernel_ms += ev_.k1.since(ev_.k0);
    moves_ms += ev_.k0.since(ev_.start) + ev_.stop.since(ev_.k1);
    return std::chrono::duration<double>(clock_type::now() - t0_).count();
  }
  double kernel_ms = 0.0, moves_ms = 0.0;

 private:
  remap_data& d_;
  remap_mechanism mechanism_;
  chunk_events ev_;
  clock_type::time_point t0_;
};

// Per-element cost of chunk c as the CPU's cost model sees it (the trip count for GAFORT, which
// folds "no crossover" into trip count 0; a constant for BlackScholes, whose condition compiles
// to a select), and the classes LAM groups by (value ranges of the cost; BlackScholes: d1 > 0).
std::vector<double> costs_of(const remap_data& d, std::size_t c) {
  std::vector<double> cost(d.n, 1.0);
  if (d.spec.workload == remap_workload::gafort)
    for (std::uint32_t i = 0; i < d.n; ++i) cost[i] = d.trips_host[c * d.n + i];
  return cost;
}

std::pair<std::vector<std::uint32_t>, std::uint32_t> classes_of(const remap_data& d, std::size_t c,
                                                                const std::vector<double>& cost) {
  if (d.spec.workload == remap_workload::gafort) {
    const value_classes vc = value_classes::fit(cost, d.spec.lam_classes);
    return {classify(cost, vc), vc.count};
  }
  const black_scholes_view v = d.bs_host(c);
  std::vector<std::uint32_t> cls(d.n);
  for (std::uint32_t i = 0; i < d.n; ++i) cls[i] = black_scholes_d1(v, i) > 0.0f ? 1u : 0u;
  return {std::move(cls), 2u};
}

remap_plan plan_for(const remap_data& d, std::size_t c, const std::vector<double>& cost, remap_plan_kind kind) {
  const auto [cls, classes] = classes_of(d, c, cost);
  if (kind == remap_plan_kind::lam) return lam_remap(cls, classes);
  std::vector<double> key(cls.size());
  for (std::size_t i = 0; i < key.size(); ++i) key[i] = static_cast<double>(cls[i]) * 1e9 + cost[i];
  return sort_remap(key);
}

}  // namespace

remap_result run_remap_pipeline(const remap_spec& spec, const remap_strategy& strategy, const pipeline_options& options,
                                bool keep_output) {
  remap_data d(spec);
  device_executor exec(d, strategy.mechanism);
  if (keep_output) d.poison_output();
  const bool honor_prediction = options.efficiency.enabled;
  remapper<remap_plan> remap = [&d, &strategy, honor_prediction](std::size_t c,
                                                                 std::stop_token stop) -> std::optional<remap_plan> {
    const std::vector<double> cost = costs_of(d, c);
    const double before = lockstep_cost(cost, nullptr);
    // With efficiency control, a chunk whose best possible plan cannot pay is skipped before
    // any planning: the cost model alone shows BlackScholes' warps do not diverge.
    if (honor_prediction && (before <= 0.0 || lockstep_lower_bound(cost) > d.spec.skip_ratio * before))
      return std::nullopt;
    if (stop.stop_requested()) return std::nullopt;
    remap_plan plan = plan_for(d, c, cost, strategy.plan);
    if (stop.stop_requested()) return std::nullopt;
    if (honor_prediction && lockstep_cost(cost, &plan) > d.spec.skip_ratio * before) return std::nullopt;
    return plan;
  };
  remap_result r;
  r.report = run_pipeline<remap_plan>(spec.chunks, exec, remap, options);
  r.kernel_ms = exec.kernel_ms;
  r.moves_ms = exec.moves_ms;
  if (keep_output) r.output = d.output();
  return r;
}

remap_kernel_times time_remap_kernels(const remap_spec& spec_in, remap_plan_kind kind, const timing_options& opt) {
  remap_spec spec = spec_in;
  spec.chunks = 1;
  remap_data d(spec);
  remap_kernel_times t;
  const auto c0 = clock_type::now();
  const std::vector<double> cost = costs_of(d, 0);
  const remap_plan plan = plan_for(d, 0, cost, kind);
  t.plan_ms = std::chrono::duration<double, std::milli>(clock_type::now() - c0).count();
  t.predicted = lockstep_cost(cost, &plan) / std::max(1e-300, lockstep_cost(cost, nullptr));
  t.moved = plan.moved.size();
  chunk_events ev;
  auto kernel_only = [&](const remap_plan* p, remap_mechanism m) {
    enqueue_chunk(d, 0, p, m, ev);
    ev.stop.synchronize();
    return static_cast<double>(ev.k1.since(ev.k0));
  };
  auto median_of = [&](auto&& f) {
    for (int i = 0; i < opt.warmups; ++i) (void)f();
    std::vector<double> ms;
    for (int i = 0; i < std::max(1, opt.repeats); ++i) ms.push_back(f());
    return detail::summarize(std::move(ms));
  };
  t.plain = median_of([&] { return kernel_only(nullptr, remap_mechanism::layout_transformation); });
  t.redirected = median_of([&] { return kernel_only(&plan, remap_mechanism::reference_redirection); });
  t.layout_kernel = median_of([&] { return kernel_only(&plan, remap_mechanism::layout_transformation); });
  t.layout_total = median_of([&] {
    enqueue_chunk(d, 0, &plan, remap_mechanism::layout_transformation, ev);
    ev.stop.synchronize();
    return static_cast<double>(ev.stop.since(ev.start));
  });
  return t;
}

}  // namespace pfsp::divergence::gpu
