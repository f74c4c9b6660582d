// Names of enums, written once per enum beside its declaration. An enum E opts in by declaring,
// in its own namespace, `constexpr auto enum_names(E)` returning a std::array of {value, name}
// (found by argument-dependent lookup); to_string, from_string and enum_choices are then
// generated from that one table, so the CLI, pfsp-mpi, the benchmarks and the JSON reports
// cannot spell a name differently.
#pragma once

#include <array>
#include <cstddef>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.hpp"

namespace pfsp {

template <class E>
struct enum_name {
  E value;
  std::string_view name;
};

template <class E>
concept named_enum = requires(E e) {
  enum_names(e);
};

// The name of v, "?" for a value outside the table.
template <named_enum E>
constexpr std::string_view to_string(E v) {
  for (const auto& e : enum_names(E{}))
    if (e.value == v) return e.name;
  return "?";
}

// Every name, in the table's order (the order help texts and error messages list them), after
// `extra` (e.g. "auto", for an option that also takes it).
template <named_enum E>
std::vector<std::string> enum_choices(std::initializer_list<std::string_view> extra = {}) {
  std::vector<std::string> v(extra.begin(), extra.end());
  for (const auto& e : enum_names(E{})) v.emplace_back(e.name);
  return v;
}

// "a,b,c": the list CLI11's IsMember prints.
inline std::string join_choices(const std::vector<std::string>& names, std::string_view sep = ",") {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : std::string(sep)) + n;
  return s;
}

// The value named s. Throws input_error "OPTION: s not in {a,b,c}" (CLI11's IsMember message,
// which the CLI tests check) when s names none; `option` is what the user typed, e.g. "--bound".
template <named_enum E>
E from_string(std::string_view s, std::string_view option) {
  for (const auto& e : enum_names(E{}))
    if (e.name == s) return e.value;
  throw input_error(std::string(option) + ": " + std::string(s) + " not in {" + join_choices(enum_choices<E>()) + "}");
}

// An enum option that also takes "auto" (nullopt): its name, and the value named s, with
// from_string's message listing auto first (CLI11's, as the option registers {auto,...}).
template <named_enum E>
std::string to_string_or_auto(const std::optional<E>& v) {
  return v ? std::string(to_string(*v)) : std::string("auto");
}
template <named_enum E>
std::optional<E> from_string_or_auto(std::string_view s, std::string_view option) {
  if (s == "auto") return std::nullopt;
  for (const auto& e : enum_names(E{}))
    if (e.name == s) return e.value;
  throw input_error(std::string(option) + ": " + std::string(s) + " not in {" +
                    join_choices(enum_choices<E>({"auto"})) + "}");
}

}  // namespace pfsp
