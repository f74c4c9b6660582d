// pfsp_bench_checkpoint: time to save and to load a checkpoint of many open nodes, binary format
// (version 2) against text (version 1), through the CLI's own paths: serialize, then
// write_file_atomically (temporary file, fsync, rename, fsync of the directory) to save;
// read_search_state (read the file, detect the format, parse and check everything) to load.
//
// The states are synthetic, shaped like a depth-first frontier: each node's permutation is the
// previous one with two jobs swapped, limits random, bounds in a window of --lb-span values below
// the threshold (a frontier lies between the root bound and the incumbent: for Taillard's 50x20
// about 100 apart, so the binary format stores 1-byte offsets). Memory: the state (12 + 2n bytes a
// node) plus the file's bytes; the state is freed before it is read back, and a digest of its
// nodes compared instead.
#include <CLI/CLI.hpp>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <numeric>
#include <string>
#include <vector>

#include "app/cli.hpp"
#include "app/enum_options.hpp"
#include "app/solver_config.hpp"
#include "bench_common.hpp"
#include "search/checkpoint.hpp"

namespace pfsp::bench {
namespace {

struct shape {
  int n, m;
};

std::uint64_t splitmix(std::uint64_t& x) {
  std::uint64_t z = (x += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

search_state frontier(const shape& sh, std::size_t count, int lb_span, std::uint64_t seed) {
  search_state s;
  s.instance_name = "synthetic " + std::to_string(sh.n) + "x" + std::to_string(sh.m);
  s.n = sh.n;
  s.m = sh.m;
  s.times_hash = splitmix(seed);
  s.bound = bound_kind::lb1;
  s.branch = branching::min_min;
  s.threshold = 4000;
  s.best_makespan = 4000;
  s.best_schedule.resize(static_cast<std::size_t>(sh.n));
  std::iota(s.best_schedule.begin(), s.best_schedule.end(), 0);
  s.stats.branched = 123456789012ull;
  s.stats.total_seconds = 3600;
  s.backend = "pfsp_bench_checkpoint";
  // One stack per 1/8 of the nodes, as eight engines' or threads' stacks.
  for (int k = 0; k < 8; ++k) s.stack_sizes.push_back(count / 8 + (static_cast<std::size_t>(k) < count % 8 ? 1 : 0));
  const std::size_t n = static_cast<std::size_t>(sh.n);
  s.nodes.resize(count);
  s.perms.resize(count * n);
  std::vector<job_t> perm(n);
  std::iota(perm.begin(), perm.end(), job_t{0});
  for (std::size_t i = 0; i < count; ++i) {
    const std::uint64_t r = splitmix(seed);
    std::swap(perm[r % n], perm[(r >> 16) % n]);
    std::swap(perm[(r >> 32) % n], perm[(r >> 48) % n]);
    std::copy(perm.begin(), perm.end(), s.perms.begin() + static_cast<std::ptrdiff_t>(i * n));
    const int limit1 = static_cast<int>((r >> 8) % (n - 1)) - 1;
    const int limit2 = limit1 + 2 + static_cast<int>((r >> 24) % (static_cast<std::uint64_t>(sh.n - limit1 - 1)));
    s.nodes[i] = {limit1, limit2, 4000 - 1 - static_cast<int>((r >> 40) % static_cast<std::uint64_t>(lb_span))};
  }
  return s;
}

std::uint64_t digest(const search_state& s) {
  return block_checksum(s.perms.data(), s.perms.size() * sizeof(job_t)) ^
         (block_checksum(s.nodes.data(), s.nodes.size() * sizeof(node_meta)) * 3);
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace
}  // namespace pfsp::bench

int main(int argc, char** argv) {
  using namespace pfsp;
  using namespace pfsp::bench;
  CLI::App app{"pfsp_bench_checkpoint: save and load times of binary and text checkpoints"};
  std::string sizes_s = "1000000,10000000,50000000", shapes_s = "50x20,20x20";
  std::vector<checkpoint_encoding> formats{checkpoint_encoding::binary, checkpoint_encoding::text};
  std::string dir = ".", json_path, commit;
  double text_max = 10;
  int lb_span = 100;
  app.add_option("--nodes", sizes_s, "comma list of open node counts")->capture_default_str();
  app.add_option("--shapes", shapes_s, "comma list of NxM instance shapes")->capture_default_str();
  add_enum_list_option(app, "--formats", formats, "checkpoint formats (pfsp's --checkpoint-format)");
  app.add_option("--text-max-seconds", text_max,
                 "skip text at a size whose save + load, extrapolated linearly from the previous size, exceeds this")
      ->capture_default_str();
  app.add_option("--lb-span", lb_span, "bounds of the open nodes lie in this many values below the threshold")
      ->check(CLI::Range(1, 1 << 30))
      ->capture_default_str();
  app.add_option("--dir", dir, "directory of the checkpoint files (deleted after each run)")->capture_default_str();
  app.add_option("--json", json_path, "write the results as JSON to this file");
  app.add_option("--commit", commit, "commit to stamp (default: the one this binary was built from)");
  CLI11_PARSE(app, argc, argv);

  std::vector<std::size_t> sizes;
  std::vector<shape> shapes;
  try {
    for (const auto& v : split_list(sizes_s)) sizes.push_back(static_cast<std::size_t>(std::stoull(v)));
    for (const auto& v : split_list(shapes_s)) {
      const std::size_t x = v.find('x');
      if (x == std::string::npos) throw std::invalid_argument("shape '" + v + "': expected NxM");
      shapes.push_back({std::stoi(v.substr(0, x)), std::stoi(v.substr(x + 1))});
    }
  } catch (const std::exception& e) {
    std::cerr << "pfsp_bench_checkpoint: " << e.what() << "\n";
    return 2;
  }

  nlohmann::json out;
  out["benchmark"] = "pfsp_bench_checkpoint";
  out["machine"] = stamp(argc, argv, commit);
  out["results"] = nlohmann::json::array();
  table tab({"instance", "open nodes", "format", "file MB", "bytes/node", "serialize s", "save s", "load s",
             "save MB/s", "load MB/s"});
  const std::string path = (std::filesystem::path(dir) / "pfsp_bench.ckpt").string();
  for (const shape& sh : shapes) {
    double text_seconds_per_node = 0;  // of the last text run, for the extrapolation
    for (std::size_t count : sizes) {
      for (const checkpoint_encoding encoding : formats) {
        const bool text = encoding == checkpoint_encoding::text;
        const std::string format(to_string(encoding));
        const std::string label = std::to_string(sh.n) + "x" + std::to_string(sh.m);
        if (text && text_seconds_per_node * static_cast<double>(count) > text_max) {
          tab.add({label, human(static_cast<double>(count)), format, "-", "-", "-", "-", "-", "-",
                   "skipped (> " + fixed(text_max, 0) + " s)"});
          continue;
        }
        std::uint64_t want = 0, got = 0;
        double ser = 0, save = 0, load = 0;
        std::size_t bytes = 0;
        {
          search_state s = frontier(sh, count, lb_span, 42);
          want = digest(s);
          auto t0 = std::chrono::steady_clock::now();
          std::string data = text ? to_text(s) : to_binary(s);
          ser = seconds_since(t0);
          write_file_atomically(path, data);
          save = seconds_since(t0);
          bytes = data.size();
        }
        {
          const auto t0 = std::chrono::steady_clock::now();
          const search_state back = read_search_state(path);
          load = seconds_since(t0);
          got = digest(back);
        }
        std::filesystem::remove(path);
        if (got != want) {
          std::cerr << "pfsp_bench_checkpoint: the state read back differs from the one written\n";
          return 1;
        }
        if (text) text_seconds_per_node = (save + load) / static_cast<double>(count);
        const double mb = static_cast<double>(bytes) / 1e6;
        tab.add({label, human(static_cast<double>(count)), format, fixed(mb, 1),
                 fixed(static_cast<double>(bytes) / static_cast<double>(count), 1), fixed(ser, 2), fixed(save, 2),
                 fixed(load, 2), fixed(mb / save, 0), fixed(mb / load, 0)});
        out["results"].push_back({{"n", sh.n},
                                  {"m", sh.m},
                                  {"open_nodes", count},
                                  {"format", format},
                                  {"bytes", bytes},
                                  {"serialize_seconds", ser},
                                  {"save_seconds", save},
                                  {"load_seconds", load},
                                  {"lb_span", lb_span}});
        std::cerr << label << " " << count << " " << format << ": save " << save << " s, load " << load << " s\n";
        if (!json_path.empty()) write_text_atomically(json_path, out.dump(2) + "\n");
      }
    }
  }
  out["machine"]["load_after"] = {read_load().one, read_load().five, read_load().fifteen};
  if (!json_path.empty()) write_text_atomically(json_path, out.dump(2) + "\n");
  std::cout << tab.markdown();
  return 0;
}
