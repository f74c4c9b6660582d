// CLI11 options whose values are named enums (base/enum_names.hpp): the one way every front end,
// benchmark program and tool registers them, so that a name, its spelling in help texts and the
// message for a bad value come from the enum's table. CLI11 checks the text against the names
// (IsMember: the set shown in the help and CLI11's "X not in {a,b,c}" for other values); the
// callback stores the value named. The default shown is the field's value when registered.
// add_parsed_option is the same for a typed value parsed from its text by a function of the
// value's own (--ub, --lb2-pairs, --devices). Header-only: a target using it links CLI11.
#pragma once

#include <CLI/CLI.hpp>
#include <concepts>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "base/enum_names.hpp"
#include "base/error.hpp"

namespace pfsp {

// NAME takes one of E's names.
template <named_enum E>
CLI::Option* add_enum_option(CLI::App& app, const std::string& name, E& field, const std::string& help) {
  return app
      .add_option_function<std::string>(
          name, [&field, name](const std::string& v) { field = from_string<E>(v, name); }, help)
      ->check(CLI::IsMember(enum_choices<E>()))
      ->default_str(std::string(to_string(field)));
}

// The same with "auto" (nullopt) first among the names.
template <named_enum E>
CLI::Option* add_enum_or_auto_option(CLI::App& app, const std::string& name, std::optional<E>& field,
                                     const std::string& help) {
  return app
      .add_option_function<std::string>(
          name, [&field, name](const std::string& v) { field = from_string_or_auto<E>(v, name); }, help)
      ->check(CLI::IsMember(enum_choices<E>({"auto"})))
      ->default_str(to_string_or_auto(field));
}

// NAME's text into `field` by `parse`, at parse time: parse's input_error (whose message names the
// option) is CLI11's ValidationError with that message, exit code 2 like CLI11's own checks.
// No default is shown.
template <class T, class Parse>
requires std::convertible_to<std::invoke_result_t<Parse, const std::string&>, T> CLI::Option* add_parsed_option(
    CLI::App& app, const std::string& name, T& field, Parse parse, const std::string& help) {
  return app.add_option_function<std::string>(
      name,
      [&field, parse](const std::string& v) {
        try {
          field = parse(v);
        } catch (const input_error& e) {
          throw CLI::ValidationError(e.what());
        }
      },
      help);
}

// The same for a flag that takes an optional value: NAME alone is NAME=`when_given`; NAME=X one
// of E's names.
template <named_enum E>
CLI::Option* add_enum_flag_option(CLI::App& app, const std::string& name, E when_given, E& field,
                                  const std::string& help) {
  return app.add_flag(name + "{" + std::string(to_string(when_given)) + "}", help)
      ->check(CLI::IsMember(enum_choices<E>()))
      ->each([&field, name](const std::string& v) { field = from_string<E>(v, name); })
      ->default_str(std::string(to_string(field)));
}

// A list of E's names, comma-separated or repeated ("--kernels plain,branchless"): the
// benchmark programs' grids. Each element is checked; the list replaces the default. `allowed`
// (empty: every value) limits the names to those a program runs (pfsp_gpu_bench --compact off,on
// without auto).
template <named_enum E>
CLI::Option* add_enum_list_option(CLI::App& app, const std::string& name, std::vector<E>& field,
                                  const std::string& help, const std::vector<E>& allowed = {}) {
  std::vector<std::string> names, shown;
  for (E v : allowed) names.emplace_back(to_string(v));
  if (allowed.empty()) names = enum_choices<E>();
  for (E v : field) shown.emplace_back(to_string(v));
  return app
      .add_option_function<std::vector<std::string>>(
          name,
          [&field, name](const std::vector<std::string>& v) {
            field.clear();
            for (const std::string& s : v) field.push_back(from_string<E>(s, name));
          },
          help + " (comma list of " + join_choices(names, ", ") + ")")
      ->delimiter(',')
      ->check(CLI::IsMember(names))
      ->default_str(join_choices(shown));
}

}  // namespace pfsp
