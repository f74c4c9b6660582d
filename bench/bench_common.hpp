// What every benchmark program shares: the stamp (commit, CPU, GPU, host, load, command line)
// written at the top of its JSON, list parsing for options, a median, and a markdown table.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace pfsp::bench {

// /proc/loadavg: 1, 5 and 15 minute load averages (zeros if unreadable).
struct load_average {
  double one = 0, five = 0, fifteen = 0;
};
load_average read_load();

// Who, where and what: the JSON "machine" block. `command` is the exact command line.
nlohmann::json stamp(int argc, char** argv, const std::string& commit_override = {});

std::string cpu_model();  // /proc/cpuinfo "model name" (first), "unknown" if absent
std::string host_name();  // gethostname()
std::string gpu_name();   // "none": the benchmarks here are CPU-only
std::string command_line(int argc, char** argv);
std::string utc_now();  // ISO 8601

// "a,b,c" -> {"a","b","c"}; empty items dropped.
std::vector<std::string> split_list(const std::string& s);
// Instance lists: "ta001-ta030", "ta001..ta010,ta021", "random:20,5,7" (names containing ','
// after "random:" are kept whole up to the third number).
std::vector<std::string> expand_instances(const std::string& s);

double median(std::vector<double> v);

// CPU time consumed so far by this process (all threads) and by the calling thread, in seconds.
// Next to wall time, cpu/wall shows how much of a core a run really got on a shared machine.
double process_cpu_seconds();
double thread_cpu_seconds();

// Writes text to path via a temporary file and rename, so a reader never sees half a file.
void write_text_atomically(const std::string& path, const std::string& text);

// A markdown table printed with aligned columns (readable as text and pasteable into docs).
class table {
 public:
  explicit table(std::vector<std::string> headers) : headers_(std::move(headers)) {}
  void add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  std::string markdown() const;

 private:
  std::vector<std::string> headers_;
  std::vector<std::vector<std::string>> rows_;
};

std::string fixed(double v, int decimals);
// 1234567 -> "1.23 M"; for node and bound counts.
std::string human(double v);

}  // namespace pfsp::bench
