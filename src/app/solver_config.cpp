#include "app/solver_config.hpp"

#include <exception>

#include "base/error.hpp"

namespace pfsp {

std::optional<int> whole_int(const std::string& text) {
  std::size_t used = 0;
  int v = 0;
  try {
    v = std::stoi(text, &used);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  if (used != text.size()) return std::nullopt;
  return v;
}

ub_option parse_ub(std::string_view text) {
  const std::string s(text);
  if (s.empty()) return {};
  if (s == "best-known") return {ub_option::kind::best_known, 0};
  const std::optional<int> v = whole_int(s);
  if (!v || *v < 1 || *v > 2000000000)
    throw input_error("--ub " + s + ": expected a makespan in 1..2000000000 or best-known");
  return {ub_option::kind::makespan, *v};
}

std::string to_string(const ub_option& ub) {
  switch (ub.given) {
    case ub_option::kind::makespan:
      return std::to_string(ub.makespan);
    case ub_option::kind::best_known:
      return "best-known";
    case ub_option::kind::none:
      break;
  }
  return "";
}

lb2_pairs_option parse_lb2_pairs(std::string_view text) {
  const std::string s(text);
  for (const auto& e : enum_names(lb2_pairs_mode{}))
    if (e.name == s) return {e.value, 0};
  if (s.rfind("learn:", 0) == 0) {
    // K's upper end is the instance's machine pairs, checked once the instance is loaded.
    const std::optional<int> k = whole_int(s.substr(6));
    if (!k || *k < 1)
      throw input_error("--lb2-pairs: '" + s + "': expected learn:K with K a number of machine pairs, at least 1");
    return {lb2_pairs_mode::learn, *k};
  }
  throw input_error("--lb2-pairs: '" + s + "': expected auto, all, adjacent, learn or learn:K");
}

std::string to_string(const lb2_pairs_option& pairs) {
  std::string s(to_string(pairs.mode));
  if (pairs.mode == lb2_pairs_mode::learn && pairs.learn > 0) {
    s += ':';  // appended piece by piece: g++ 12's -Wrestrict misfires on "..." + std::string
    s += std::to_string(pairs.learn);
  }
  return s;
}

}  // namespace pfsp
