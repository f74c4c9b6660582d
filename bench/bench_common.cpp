#include "bench_common.hpp"

#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "bench_stamp.hpp"

namespace pfsp::bench {

load_average read_load() {
  load_average l;
  std::ifstream f("/proc/loadavg");
  if (f) f >> l.one >> l.five >> l.fifteen;
  return l;
}

std::string cpu_model() {
  std::ifstream f("/proc/cpuinfo");
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) {
        std::string v = line.substr(colon + 1);
        v.erase(0, v.find_first_not_of(" \t"));
        return v;
      }
    }
  }
  return "unknown";
}

std::string host_name() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) return "unknown";
  return buf;
}

std::string gpu_name() { return "none"; }

std::string command_line(int argc, char** argv) {
  std::string s;
  for (int i = 0; i < argc; ++i) {
    if (i) s += ' ';
    s += argv[i];
  }
  return s;
}

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

nlohmann::json stamp(int argc, char** argv, const std::string& commit_override) {
  const load_average l = read_load();
  nlohmann::json j;
  j["commit"] = commit_override.empty() ? std::string(PFSP_BENCH_COMMIT) : commit_override;
  j["build_type"] = PFSP_BENCH_BUILD_TYPE;
  j["compiler"] = PFSP_BENCH_COMPILER;
  j["cpu"] = cpu_model();
  j["hardware_threads"] = std::thread::hardware_concurrency();
  j["gpu"] = gpu_name();
  j["hostname"] = host_name();
  j["command"] = command_line(argc, argv);
  j["date_utc"] = utc_now();
  j["load_at_start"] = {l.one, l.five, l.fifteen};
  return j;
}

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  std::istringstream in(s);
  while (std::getline(in, cur, ',')) {
    cur.erase(0, cur.find_first_not_of(" \t"));
    cur.erase(cur.find_last_not_of(" \t") + 1);
    if (!cur.empty()) out.push_back(cur);
  }
  return out;
}

namespace {

// "ta017" -> 17; -1 if not of that form.
int taillard_number(const std::string& s) {
  if (s.size() < 3 || std::tolower(static_cast<unsigned char>(s[0])) != 't' ||
      std::tolower(static_cast<unsigned char>(s[1])) != 'a')
    return -1;
  int v = 0;
  for (std::size_t i = 2; i < s.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return -1;
    v = v * 10 + (s[i] - '0');
  }
  return v;
}

std::string taillard_name(int k) {
  std::ostringstream o;
  o << "ta" << std::setw(3) << std::setfill('0') << k;
  return o.str();
}

}  // namespace

std::vector<std::string> expand_instances(const std::string& s) {
  std::vector<std::string> items;
  // Keep "random:N,M,SEED" whole.
  std::string rest = s;
  while (!rest.empty()) {
    std::size_t cut;
    if (rest.rfind("random:", 0) == 0) {
      std::size_t commas = 0;
      cut = std::string::npos;
      for (std::size_t i = 0; i < rest.size(); ++i)
        if (rest[i] == ',' && ++commas == 3) {
          cut = i;
          break;
        }
    } else {
      cut = rest.find(',');
    }
    items.push_back(rest.substr(0, cut));
    rest = cut == std::string::npos ? "" : rest.substr(cut + 1);
  }
  std::vector<std::string> out;
  for (const auto& it : items) {
    std::size_t dash = it.find("..");
    std::size_t len = 2;
    if (dash == std::string::npos && it.rfind("random:", 0) != 0) {
      dash = it.find('-');
      len = 1;
    }
    if (dash != std::string::npos && it.rfind("random:", 0) != 0) {
      const int a = taillard_number(it.substr(0, dash)), b = taillard_number(it.substr(dash + len));
      if (a < 1 || b < a) throw std::invalid_argument("bad instance range '" + it + "' (expected e.g. ta001-ta030)");
      for (int k = a; k <= b; ++k) out.push_back(taillard_name(k));
    } else if (!it.empty()) {
      out.push_back(it);
    }
  }
  return out;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t h = v.size() / 2;
  return v.size() % 2 ? v[h] : 0.5 * (v[h - 1] + v[h]);
}

namespace {
double clock_seconds(clockid_t id) {
  timespec ts{};
  clock_gettime(id, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}
}  // namespace

double process_cpu_seconds() { return clock_seconds(CLOCK_PROCESS_CPUTIME_ID); }
double thread_cpu_seconds() { return clock_seconds(CLOCK_THREAD_CPUTIME_ID); }

void write_text_atomically(const std::string& path, const std::string& text) {
  const std::filesystem::path p(path);
  if (p.has_parent_path()) std::filesystem::create_directories(p.parent_path());
  const std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) throw std::runtime_error("cannot write " + tmp);
    f << text;
    if (!f) throw std::runtime_error("error writing " + tmp);
  }
  std::filesystem::rename(tmp, path);
}

std::string table::markdown() const {
  std::vector<std::size_t> w(headers_.size(), 3);
  for (std::size_t c = 0; c < headers_.size(); ++c) w[c] = std::max(w[c], headers_[c].size());
  for (const auto& r : rows_)
    for (std::size_t c = 0; c < r.size() && c < w.size(); ++c) w[c] = std::max(w[c], r[c].size());
  std::ostringstream o;
  auto line = [&](const std::vector<std::string>& cells) {
    o << '|';
    for (std::size_t c = 0; c < w.size(); ++c) {
      const std::string v = c < cells.size() ? cells[c] : "";
      o << ' ' << std::setw(static_cast<int>(w[c])) << (c == 0 ? std::left : std::right) << v << " |";
    }
    o << '\n';
  };
  line(headers_);
  o << '|';
  for (std::size_t c = 0; c < w.size(); ++c)
    o << (c == 0 ? " :" : " ") << std::string(w[c] - 1, '-') << (c == 0 ? " |" : ": |");
  o << '\n';
  for (const auto& r : rows_) line(r);
  return o.str();
}

std::string fixed(double v, int decimals) {
  std::ostringstream o;
  o << std::fixed << std::setprecision(decimals) << v;
  return o.str();
}

std::string human(double v) {
  std::ostringstream o;
  o << std::fixed << std::setprecision(2);
  if (v >= 1e9)
    o << v / 1e9 << " G";
  else if (v >= 1e6)
    o << v / 1e6 << " M";
  else if (v >= 1e3)
    o << v / 1e3 << " k";
  else
    o << std::setprecision(0) << v;
  return o.str();
}

}  // namespace pfsp::bench
