// What the GPU tools' command lines (pfsp_gpu_bench, pfsp_gpu_clock) share beyond
// app/enum_options.hpp, through which both register their enum options from the product's name
// tables (base/enum_names.hpp): the initial upper bound --ub opt|none|N, and CLI11's parse with
// the tools' exit codes. Host code only.
#pragma once

#include <CLI/CLI.hpp>
#include <climits>
#include <optional>
#include <string>
#include <vector>

#include "base/enum_names.hpp"
#include "problem/instance.hpp"

namespace pfsp::gpu::tools {

// --ub: the instance's best known makespan (opt), none (INT_MAX: the early exit never fires), or
// a makespan N > 0.
struct ub_choice {
  enum class mode { opt, none, fixed };
  mode how = mode::opt;
  int makespan = 0;  // mode::fixed

  // What was typed: "opt", "none" or N (the JSON's "ub" of pfsp_gpu_clock).
  std::string text() const { return how == mode::opt ? "opt" : how == mode::none ? "none" : std::to_string(makespan); }
  // The threshold for inst; opt without a known makespan is none.
  int value(const instance& inst) const {
    if (how == mode::fixed) return makespan;
    return how == mode::opt && inst.known ? inst.known->ub : INT_MAX;
  }
  // s passed ub_names.
  static ub_choice parse(const std::string& s) {
    if (s == "opt") return {};
    if (s == "none") return {mode::none, 0};
    return {mode::fixed, std::stoi(s)};
  }
};

// opt, none, or a makespan (CLI11 prints "opt,none OR INT in [1 - 2147483647]" for anything else).
inline CLI::Validator ub_names() { return CLI::IsMember({"opt", "none"}) | CLI::Range(1, INT_MAX); }

inline CLI::Option* add_ub_option(CLI::App& app, ub_choice& field, const std::string& help) {
  return app
      .add_option_function<std::string>(
          "--ub", [&field](const std::string& v) { field = ub_choice::parse(v); }, help)
      ->check(ub_names())
      ->default_str(field.text());
}

// Comma-separated or repeated; the list replaces the default.
inline CLI::Option* add_ub_list_option(CLI::App& app, std::vector<ub_choice>& field, const std::string& help) {
  std::string shown;
  for (const ub_choice& u : field) shown += (shown.empty() ? "" : ",") + u.text();
  return app
      .add_option_function<std::vector<std::string>>(
          "--ub",
          [&field](const std::vector<std::string>& v) {
            field.clear();
            for (const std::string& s : v) field.push_back(ub_choice::parse(s));
          },
          help)
      ->delimiter(',')
      ->check(ub_names())
      ->default_str(shown);
}

// CLI11's parse. nullopt: run. Otherwise the exit code: 0 after --help, 2 after CLI11's message
// for a bad option (the tools' documented code; 1 means no device, a CUDA error or a mismatch).
inline std::optional<int> parse_command_line(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  return std::nullopt;
}

}  // namespace pfsp::gpu::tools
