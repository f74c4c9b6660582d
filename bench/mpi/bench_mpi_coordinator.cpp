// pfsp_bench_mpi_coordinator: rank 0's capacity (issue 22 item 5). Run under mpirun with many
// ranks: rank 0 is pfsp-mpi's real coordinator (solve_distributed: the frontier of the real
// instance, chunks, heartbeats, results, the serving loop), each worker is pfsp-mpi's real worker
// (listener thread, heartbeats, messages) whose chunk solver stands in for a GPU: it "solves" a
// chunk by sleeping about --chunk-ms milliseconds (uniform in [1 - spread, 1 + spread] times) and
// reports rate x seconds nodes branched. Nothing is proven: the counts are a model's.
//
// Measured on rank 0 (coordinator_stats): messages served per second, its CPU over the serving
// phase (getrusage), message sizes, the workers' wait per request. Projected: CPU per message
// gives the messages per second one core of rank 0 serves; a GPU sends 1 / chunk seconds results
// and 1 / heartbeat heartbeats a second; so rank 0 serves capacity / (1 / chunk + 1 / heartbeat)
// GPUs at the chunk length a GPU takes (--project-chunk-nodes nodes at --rate nodes/s).
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <thread>

#include "bench_common.hpp"
#include "mpi/distributed.hpp"
#include "problem/io.hpp"

namespace pfsp::bench {
namespace {

struct config {
  std::string instance = "ta056";
  int ub = 3680;
  double rate = 66e6;              // nodes per second of the GPU a worker stands in for
  double chunk_ms = 10;            // mean time a stand-in takes for a chunk
  double spread = 0.5;             // chunk times uniform in [1 - spread, 1 + spread] x chunk_ms
  double seconds = 10;             // the run's time limit (then every chunk is asked back)
  int chunk_nodes = 4;             // pfsp-mpi's --chunk-nodes
  int frontier_per_worker = 0;     // 0: enough for the run at the demanded rate
  double heartbeat = 1.0;          // pfsp-mpi's heartbeat interval
  double project_chunk_nodes = 0;  // projection: nodes in one real chunk (0: rate x chunk_ms)
  std::string json;
};

// The stand-in GPU: sleeps the chunk's time in 1-ms steps (rank 0 may ask the chunk back), then
// reports rate x time nodes branched. Asked back: nothing done, the whole chunk returned.
dist::chunk_solver stand_in(const config& c, int rank) {
  auto rng = std::make_shared<std::mt19937_64>(0x9e3779b9u + static_cast<unsigned>(rank));
  return [c, rng](const solve_options& o, const incumbent& start) {
    std::uniform_real_distribution<double> u(1.0 - c.spread, 1.0 + c.spread);
    const double open = o.resume ? static_cast<double>(o.resume->open()) : 1.0;
    const double secs = 1e-3 * c.chunk_ms * u(*rng) * open / c.chunk_nodes;
    using clock = std::chrono::steady_clock;
    const clock::time_point end =
        clock::now() + std::chrono::duration_cast<clock::duration>(std::chrono::duration<double>(secs));
    solve_result r;
    r.makespan = start.value();
    while (clock::now() < end) {
      if (o.interrupt && o.interrupt->load()) {
        r.status = solve_status::interrupted;
        return r;
      }
      std::this_thread::sleep_for(std::min<clock::duration>(std::chrono::milliseconds(1), end - clock::now()));
    }
    r.status = solve_status::optimal;
    r.stats.branched = static_cast<std::uint64_t>(c.rate * secs);
    r.stats.bounds = r.stats.branched * 20;
    r.stats.total_seconds = secs;
    return r;
  };
}

// Enough frontier that the workers do not run out before the time limit (1.5x the chunks they
// can take at the demanded rate), so that the measured phase is the steady hand-out; at most
// 400,000 nodes in all (rank 0's memory and build time on a small machine).
std::size_t frontier_per_worker(const config& c, int workers) {
  if (c.frontier_per_worker > 0) return static_cast<std::size_t>(c.frontier_per_worker);
  const double chunks = 1.5 * c.seconds / (1e-3 * c.chunk_ms);
  const double cap = 400000.0 / std::max(1, workers);
  return static_cast<std::size_t>(std::max(64.0, std::min(cap, chunks * c.chunk_nodes)));
}

struct run_out {
  dist::coordinator_stats load;
  solve_result result;
  int ranks = 0;
};

run_out run(const config& c, int rank, int ranks) {
  const instance inst = load_instance(c.instance);
  const bound_data data(inst);
  solve_options opt;
  opt.bound = bound_kind::lb1;
  opt.branch = branching::min_branch;
  opt.initial_ub = c.ub;
  opt.time_limit = c.seconds;
  dist::distributed_options d;
  d.frontier_per_worker = frontier_per_worker(c, ranks - 1);
  d.chunk_nodes = static_cast<std::size_t>(c.chunk_nodes);
  d.heartbeat = c.heartbeat;
  d.split_after = -1;
  run_out out;
  out.ranks = ranks;
  d.stats = &out.load;
  out.result = dist::solve_distributed(MPI_COMM_WORLD, inst, data, opt, incumbent(), stand_in(c, rank), d);
  return out;
}

// The measured figures and the projection, as one JSON object.
nlohmann::json figures(const config& c, const run_out& r) {
  const dist::coordinator_stats& l = r.load;
  const double msgs = static_cast<double>(l.received());
  const double cpu_per_msg = msgs > 0 ? l.handling_cpu_seconds / msgs : 0;
  const double capacity = cpu_per_msg > 0 ? 1.0 / cpu_per_msg : 0;  // messages/s on one core
  const double chunk_nodes = c.project_chunk_nodes > 0 ? c.project_chunk_nodes : c.rate * 1e-3 * c.chunk_ms;
  const double chunk_s = chunk_nodes / c.rate;
  const double per_gpu = 1.0 / chunk_s + 1.0 / c.heartbeat;  // messages/s a GPU sends rank 0
  const int workers = r.ranks - 1;
  nlohmann::json j;
  j["ranks"] = r.ranks;
  j["workers"] = workers;
  j["chunk_ms"] = c.chunk_ms;
  j["chunk_nodes"] = c.chunk_nodes;
  j["frontier_nodes"] = l.frontier_nodes;
  j["frontier_s"] = l.frontier_seconds;
  j["serve_s"] = l.serve_seconds;
  j["chunks"] = l.chunks;
  j["results"] = l.results;
  j["heartbeats"] = l.beats;
  j["finds"] = l.finds;
  j["sent"] = l.works + l.controls;
  j["results_per_s"] = l.serve_seconds > 0 ? static_cast<double>(l.results) / l.serve_seconds : 0;
  j["demanded_per_s"] = workers / (1e-3 * c.chunk_ms);
  j["rank0_cpu_s"] = l.serve_cpu_seconds;
  j["rank0_thread_cpu_s"] = l.serve_thread_cpu_seconds;
  j["rank0_cpu_share"] = l.serve_seconds > 0 ? l.serve_cpu_seconds / l.serve_seconds : 0;
  j["rank0_handling_cpu_s"] = l.handling_cpu_seconds;
  j["cpu_us_per_message"] = 1e6 * cpu_per_msg;  // handling only: a saturated rank 0 does not idle
  j["bytes_in"] = l.bytes_in;
  j["bytes_out"] = l.bytes_out;
  j["largest_in_bytes"] = l.largest_in;
  j["largest_out_bytes"] = l.largest_out;
  j["workers_idle_share"] = l.workers_life > 0 ? 1.0 - l.workers_busy / l.workers_life : 0;
  j["wait_ms_per_request"] =
      l.results > 0 ? 1e3 * (l.workers_life - l.workers_busy) / static_cast<double>(l.results) : 0;
  j["projection"] = {{"messages_per_core_s", capacity},
                     {"gpu_rate", c.rate},
                     {"chunk_nodes", chunk_nodes},
                     {"chunk_s", chunk_s},
                     {"gpus_served_at_full_core", capacity / per_gpu},
                     {"min_chunk_s_for_1024_gpus",
                      capacity / 1024 > 1.0 / c.heartbeat ? 1.0 / (capacity / 1024 - 1.0 / c.heartbeat) : -1.0}};
  return j;
}

void report(const config& c, const nlohmann::json& f, int argc, char** argv) {
  table t({"ranks", "chunk ms", "results/s", "demanded/s", "rank 0 CPU", "us/msg", "msg/core-s", "largest in/out B",
           "wait ms/req", "GPUs served"});
  const auto& p = f["projection"];
  t.add({std::to_string(f["ranks"].get<int>()), fixed(c.chunk_ms, 1), fixed(f["results_per_s"].get<double>(), 0),
         fixed(f["demanded_per_s"].get<double>(), 0), fixed(100 * f["rank0_cpu_share"].get<double>(), 1) + " %",
         fixed(f["cpu_us_per_message"].get<double>(), 1), human(p["messages_per_core_s"].get<double>()),
         std::to_string(f["largest_in_bytes"].get<std::uint64_t>()) + "/" +
             std::to_string(f["largest_out_bytes"].get<std::uint64_t>()),
         fixed(f["wait_ms_per_request"].get<double>(), 2), human(p["gpus_served_at_full_core"].get<double>())});
  std::cout << t.markdown();
  std::printf("%llu chunks served\n", static_cast<unsigned long long>(f["chunks"].get<std::uint64_t>()));
  std::printf(
      "projection: %.3g-node chunks at %.3g nodes/s = %.3g s a chunk; one core of rank 0 serves %.0f GPUs; "
      "1024 GPUs need chunks of at least %.3g s\n",
      p["chunk_nodes"].get<double>(), c.rate, p["chunk_s"].get<double>(), p["gpus_served_at_full_core"].get<double>(),
      p["min_chunk_s_for_1024_gpus"].get<double>());
  if (c.json.empty()) return;
  nlohmann::json j;
  j["machine"] = stamp(argc, argv);
  j["benchmark"] = "pfsp_bench_mpi_coordinator";
  j["instance"] = c.instance;
  j["heartbeat_s"] = c.heartbeat;
  j["spread"] = c.spread;
  j["time_limit_s"] = c.seconds;
  j["rows"] = nlohmann::json::array({f});
  write_text_atomically(c.json, j.dump(1) + "\n");
}

int main_impl(int argc, char** argv, int rank, int ranks) {
  config c;
  CLI::App app{"pfsp_bench_mpi_coordinator: rank 0's capacity with workers standing in for GPUs (mpirun -n K)"};
  app.add_option("--instance", c.instance, "instance of the frontier (message sizes)");
  app.add_option("--ub", c.ub, "pruning threshold of the frontier");
  app.add_option("--rate", c.rate, "nodes/s of the GPU a worker stands in for");
  app.add_option("--chunk-ms", c.chunk_ms, "mean milliseconds a stand-in takes for a chunk")
      ->check(CLI::PositiveNumber);
  app.add_option("--spread", c.spread, "chunk times uniform in [1-s, 1+s] x chunk-ms")->check(CLI::Range(0.0, 0.9));
  app.add_option("--seconds", c.seconds, "time limit of the run")->check(CLI::PositiveNumber);
  app.add_option("--chunk-nodes", c.chunk_nodes, "frontier nodes a chunk")->check(CLI::PositiveNumber);
  app.add_option("--frontier-per-worker", c.frontier_per_worker, "0: enough for the time limit");
  app.add_option("--heartbeat", c.heartbeat, "seconds between a worker's heartbeats")->check(CLI::PositiveNumber);
  app.add_option("--project-chunk-nodes", c.project_chunk_nodes, "nodes of a real chunk for the projection");
  app.add_option("--json", c.json, "write the figures here (rank 0)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (rank == 0) app.exit(e);
    return e.get_exit_code();
  }
  if (ranks < 2) {
    if (rank == 0) std::cerr << "pfsp_bench_mpi_coordinator: run it under mpirun with at least 2 ranks\n";
    return 2;
  }
  const run_out r = run(c, rank, ranks);
  if (rank == 0) report(c, figures(c, r), argc, argv);
  return 0;
}

}  // namespace
}  // namespace pfsp::bench

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  int code = 1;
  try {
    code = pfsp::bench::main_impl(argc, argv, rank, ranks);
  } catch (const std::exception& e) {
    std::cerr << "pfsp_bench_mpi_coordinator (rank " << rank << "): " << e.what() << "\n";
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Finalize();
  return code;
}
