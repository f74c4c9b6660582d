// The options schema (app/options.hpp, base/enum_names.hpp): every enum's names come from one
// table, and the two front ends, `pfsp solve` and `pfsp-mpi`, built here in-process exactly as
// their mains build them, cannot disagree on an option's default or on the values it accepts.
#include <gtest/gtest.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

#if defined(PFSP_HAVE_GPU)
#include "app/gpu_cli.hpp"
#endif
#include "app/options.hpp"
#include "app/solve_api.hpp"
#include "base/enum_names.hpp"
#include "base/error.hpp"
#include "gpu/policy.hpp"
#include "gpu/strategy.hpp"
#include "problem/io.hpp"
#include "search/types.hpp"

namespace pfsp::test {
namespace {

template <named_enum E>
void expect_round_trip(const char* option) {
  const std::vector<std::string> names = enum_choices<E>();
  EXPECT_EQ(std::set<std::string>(names.begin(), names.end()).size(), names.size()) << option << ": a name twice";
  std::set<int> values;
  for (const auto& e : enum_names(E{})) {
    EXPECT_EQ(to_string(e.value), e.name) << option;
    EXPECT_EQ(from_string<E>(e.name, option), e.value) << option;
    values.insert(static_cast<int>(e.value));
  }
  EXPECT_EQ(values.size(), names.size()) << option << ": a value named twice";
  try {
    from_string<E>("no-such-name", option);
    ADD_FAILURE() << option << ": accepted no-such-name";
  } catch (const input_error& e) {
    // CLI11's IsMember message, which the CLI and the Python tests compare.
    EXPECT_EQ(std::string(e.what()), std::string(option) + ": no-such-name not in {" + join_choices(names) + "}");
  }
}

TEST(enum_names, every_table_round_trips_and_refuses_other_names) {
  expect_round_trip<bound_kind>("--bound");
  expect_round_trip<branching>("--branching");
  expect_round_trip<selection>("--selection");
  expect_round_trip<solve_status>("status");
  expect_round_trip<gpu::gpu_strategy>("--gpu-strategy");
  expect_round_trip<gpu::kernel_variant>("--kernel");
  expect_round_trip<gpu::compact_mode>("--compact-times");
  expect_round_trip<gpu::memory_placement>("--memory");
  expect_round_trip<gpu::pool_sort>("--sort");
  expect_round_trip<gpu::pool_selection>("--gpu-selection");
  expect_round_trip<gpu::loop_bound>("--loop-bound");
  expect_round_trip<backend_choice>("--backend");
  expect_round_trip<heuristic_choice>("--heuristic");
  expect_round_trip<checkpoint_encoding>("--checkpoint-format");
}

TEST(enum_names, names_are_the_documented_ones) {
  EXPECT_EQ(enum_choices<bound_kind>({"auto"}), (std::vector<std::string>{"auto", "lb1", "lb2", "lb1-lb2"}));
  EXPECT_EQ(enum_choices<branching>(), (std::vector<std::string>{"forward", "backward", "min-branch", "min-min"}));
  EXPECT_EQ(enum_choices<selection>(), (std::vector<std::string>{"depth-first", "breadth-first", "best-first"}));
  EXPECT_EQ(to_string(solve_status::proven_bound), "proven_bound");
  EXPECT_EQ(to_string(gpu::compact_mode::automatic), "auto");
  EXPECT_EQ(gpu::strategy_names(), enum_choices<gpu::gpu_strategy>());
}

// One option of a front end, as CLI11 holds it.
struct option_view {
  std::string default_str;
  std::string type_name;  // with the check: "TEXT:{auto,lb1,lb2,lb1-lb2}", "INT:INT in [1 - 4096]"
  bool flag = false;
  std::string group;
};

std::map<std::string, option_view> options_of(const CLI::App& app) {
  std::map<std::string, option_view> m;
  for (const CLI::Option* o : app.get_options()) {
    if (o == app.get_help_ptr() || o == app.get_help_all_ptr() || o->get_positional()) continue;
    m[o->get_name()] = {o->get_default_str(), o->get_type_name(), o->get_expected_max() == 0, o->get_group()};
  }
  return m;
}

const instance& ta001() {
  static const instance inst = load_instance("ta001");
  return inst;
}

std::vector<const char*> argv_of(const std::vector<std::string>& args) {
  std::vector<const char*> v;
  for (const auto& s : args) v.push_back(s.c_str());
  return v;
}

// Whether `pfsp solve ta001 ARGS` is accepted up to the search: CLI11's checks, then --ub.
// Also checks that check_solve_args (the Python module's validation) accepts what CLI11 does.
bool pfsp_accepts(const std::vector<std::string>& args) {
  CLI::App app{"pfsp"};
  solve_args a;
  CLI::App* solve = add_solve_subcommand(app, a);
  std::vector<std::string> all{"pfsp", "solve", "ta001"};
  all.insert(all.end(), args.begin(), args.end());
  const auto argv = argv_of(all);
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::ParseError&) {
    return false;
  }
  note_given_options(*solve, a);
  try {
    check_solve_args(a);
  } catch (const input_error& e) {
    ADD_FAILURE() << "CLI11 accepts but check_solve_args refuses: " << all.back() << ": " << e.what();
    return false;
  }
  try {
    resolve_ub(ta001(), a);
  } catch (const input_error&) {
    return false;
  }
  return true;
}

// Whether `pfsp-mpi ta001 ARGS` is accepted up to the search (main.cpp's order of checks).
bool mpi_accepts(const std::vector<std::string>& args, std::string* refusal = nullptr) {
  CLI::App app{"pfsp-mpi"};
  mpi_args m;
  register_mpi_options(app, m);
  std::vector<std::string> all{"pfsp-mpi", "ta001"};
  all.insert(all.end(), args.begin(), args.end());
  const auto argv = argv_of(all);
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::ParseError&) {
    return false;
  }
  try {
    check_mpi_options(app, m);
    check_solve_args(m.solve);
    resolve_ub(ta001(), m.solve);
  } catch (const input_error& e) {
    if (refusal) *refusal = e.what();
    return false;
  }
  return true;
}

// Values tried on every option: numbers at and beyond the ranges' ends, every name of every
// enum and string option, and garbage.
std::vector<std::string> probe_values() {
  std::vector<std::string> v{
      "0",       "1",          "-1",         "-2",        "2",         "64",       "4096",     "4097",
      "256",     "257",        "0.005",      "0.01",      "0.5",       "1e9",      "2e9",      "1e6",
      "1000001", "2000000000", "2000000001", "100000000", "100000001", "abc",      "auto",     "best-known",
      "learn",   "learn:3",    "all",        "adjacent",  "cpu",       "cpu-mt",   "gpu",      "ig",
      "neh",     "none",       "binary",     "text",      "x.json",    "16777216", "16777217", "4000000000000000000"};
  auto add = [&v](const std::vector<std::string>& names) { v.insert(v.end(), names.begin(), names.end()); };
  add(enum_choices<bound_kind>());
  add(enum_choices<branching>());
  add(enum_choices<selection>());
  add(enum_choices<gpu::gpu_strategy>());
  add(enum_choices<gpu::kernel_variant>());
  add(enum_choices<gpu::pool_selection>());
  add(enum_choices<gpu::pool_sort>());
  add(enum_choices<gpu::memory_placement>());
  add(enum_choices<gpu::loop_bound>());
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

CLI::App& pfsp_solve_app() {
  static CLI::App app{"pfsp"};
  static solve_args a;
  static CLI::App* solve = add_solve_subcommand(app, a);
  return *solve;
}

CLI::App& mpi_app() {
  static CLI::App app{"pfsp-mpi"};
  static mpi_args m;
  static const bool registered = (register_mpi_options(app, m), true);
  (void)registered;
  return app;
}

TEST(options_schema, pfsp_mpi_has_every_pfsp_solve_option_with_the_same_default_and_check) {
  const auto pfsp = options_of(pfsp_solve_app());
  const auto mpi = options_of(mpi_app());
  ASSERT_GT(pfsp.size(), 20u);
  for (const auto& [name, p] : pfsp) {
    SCOPED_TRACE(name);
    const auto it = mpi.find(name);
    ASSERT_NE(it, mpi.end()) << "pfsp-mpi lacks " << name;
    EXPECT_EQ(it->second.default_str, p.default_str);
    EXPECT_EQ(it->second.type_name, p.type_name);
    EXPECT_EQ(it->second.flag, p.flag);
  }
  // pfsp-mpi's own options are the distributed ones only.
  std::set<std::string> own;
  for (const auto& [name, o] : mpi)
    if (!pfsp.count(name)) own.insert(name);
  EXPECT_EQ(own, (std::set<std::string>{"--chunk-nodes", "--frontier-per-worker", "--local-backend", "--ranks-join",
                                        "--split-after", "--worker-timeout"}));
}

// Whether this build refuses the option whatever its value: the GPU layer's options (all of
// gpu_backend_options but the divergence strategies', which every build checks) without CUDA.
bool refused_by_this_build(const std::string& name) {
#if defined(PFSP_HAVE_GPU)
  (void)name;
  return false;
#else
  const auto& gpu = gpu_backend_options();
  return name != "--gpu-strategy" && name != "--strategy-params" &&
         std::find(gpu.begin(), gpu.end(), name) != gpu.end();
#endif
}

TEST(options_schema, gpu_options_are_registered_in_every_build) {
  const auto pfsp = options_of(pfsp_solve_app());
  for (const char* name : {"--devices", "--gpu-loop", "--pool-size", "--gpu-memory", "--lb2-lanes", "--gpu-strategy"}) {
    SCOPED_TRACE(name);
    EXPECT_TRUE(pfsp.count(name));
    const auto& gpu = gpu_backend_options();
    EXPECT_NE(std::find(gpu.begin(), gpu.end(), name), gpu.end());
  }
#if !defined(PFSP_HAVE_GPU)
  EXPECT_FALSE(pfsp_accepts({"--devices", "0"}));
#endif
}

TEST(options_schema, shared_options_accept_and_refuse_the_same_values) {
  const auto pfsp = options_of(pfsp_solve_app());
  const auto mpi = options_of(mpi_app());
  std::set<std::string> refused;
  for (const auto& u : mpi_unsupported_options()) refused.insert(u.name);
  const std::vector<std::string> values = probe_values();
  int compared = 0;
  for (const auto& [name, p] : pfsp) {
    SCOPED_TRACE(name);
    const bool unsupported = refused.count(name) || mpi.at(name).group != p.group;
    if (refused_by_this_build(name)) {
      // A build without CUDA registers the GPU layer's options and refuses each, whatever its value.
      EXPECT_FALSE(pfsp_accepts(p.flag ? std::vector<std::string>{name} : std::vector<std::string>{name, "1"}));
      EXPECT_FALSE(mpi_accepts(p.flag ? std::vector<std::string>{name} : std::vector<std::string>{name, "1"}));
      continue;
    }
    if (p.flag) {
      EXPECT_TRUE(pfsp_accepts({name}));
      EXPECT_EQ(mpi_accepts({name}), !unsupported);
      continue;
    }
    for (const std::string& v : values) {
      const bool by_pfsp = pfsp_accepts({name, v});
      std::string why;
      const bool by_mpi = mpi_accepts({name, v}, &why);
      if (unsupported) {
        // Registered with pfsp's check, refused when given: parse errors stay parse errors.
        EXPECT_FALSE(by_mpi) << name << ' ' << v;
        if (by_pfsp) {
          EXPECT_NE(why.find("not supported by pfsp-mpi"), std::string::npos) << why;
        }
      } else {
        EXPECT_EQ(by_mpi, by_pfsp) << name << ' ' << v << (why.empty() ? "" : ": " + why);
      }
      ++compared;
    }
  }
  EXPECT_GT(compared, 500);
}

// check_solve_args (what the Python module calls instead of CLI11) refuses what CLI11 refuses:
// every probe value CLI11 refuses for an option check_solve_args covers is set directly in a
// solve_args and must be refused there too (pfsp_accepts checks the other direction).
TEST(options_schema, check_solve_args_refuses_what_cli11_refuses) {
  using setter = std::function<void(solve_args&, const std::string&)>;
  // The typed fields are set by name, as the Python module's setters do: from_string refuses
  // what CLI11 refuses (typed_fields_are_set_by_the_names_cli11_accepts checks the other way).
  auto named = [](auto solve_args::*f, const char* option) {
    return setter([f, option](solve_args& a, const std::string& v) {
      a.*f = from_string<std::remove_reference_t<decltype(a.*f)>>(v, option);
    });
  };
  auto named_or_auto = [](auto solve_args::*f, const char* option) {
    return setter([f, option](solve_args& a, const std::string& v) {
      a.*f = from_string_or_auto<typename std::remove_reference_t<decltype(a.*f)>::value_type>(v, option);
    });
  };
  // The whole text as a number, else throws (as CLI11's type check refuses it).
  auto whole = [](auto convert) {
    return [convert](const std::string& v) {
      std::size_t used = 0;
      const auto x = convert(v, &used);
      if (used != v.size()) throw std::invalid_argument(v);
      return x;
    };
  };
  const auto as_int = whole([](const std::string& v, std::size_t* u) { return std::stoi(v, u); });
  const auto as_ll = whole([](const std::string& v, std::size_t* u) { return std::stoll(v, u); });
  const auto as_double = whole([](const std::string& v, std::size_t* u) { return std::stod(v, u); });
  const std::map<std::string, setter> fields{
      {"--backend", named(&solve_args::backend, "--backend")},
      {"--bound", named_or_auto(&solve_args::bound, "--bound")},
      {"--lb2-pairs", [](solve_args& a, const std::string& v) { a.lb2_pairs = parse_lb2_pairs(v); }},
      {"--ub", [](solve_args& a, const std::string& v) { a.ub = parse_ub(v); }},
      {"--branching", [](solve_args& a, const std::string& v) { a.branch = from_string<branching>(v, "--branching"); }},
      {"--selection", named(&solve_args::select, "--selection")},
      {"--heuristic", named(&solve_args::heuristic, "--heuristic")},
      {"--checkpoint-format", named(&solve_args::checkpoint_format, "--checkpoint-format")},
      {"--gpu-strategy", named(&solve_args::gpu_strategy, "--gpu-strategy")},
      {"--threads", [=](solve_args& a, const std::string& v) { a.threads = as_int(v); }},
      {"--improver-threads", [=](solve_args& a, const std::string& v) { a.improver_threads = as_int(v); }},
      {"--ig-iterations", [=](solve_args& a, const std::string& v) { a.ig_iterations = as_int(v); }},
      {"--time-limit", [=](solve_args& a, const std::string& v) { a.time_limit = as_double(v); }},
      {"--node-limit", [=](solve_args& a, const std::string& v) { a.node_limit = as_ll(v); }},
      {"--progress-interval", [=](solve_args& a, const std::string& v) { a.progress_interval = as_double(v); }},
      {"--checkpoint-interval", [=](solve_args& a, const std::string& v) { a.checkpoint_interval = as_double(v); }},
  };
  int refused = 0;
  for (const auto& [name, set] : fields) {
    SCOPED_TRACE(name);
    ASSERT_TRUE(options_of(pfsp_solve_app()).count(name));
    for (const std::string& v : probe_values()) {
      if (pfsp_accepts({name, v})) continue;
      solve_args a;
      try {
        set(a, v);
      } catch (const input_error&) {
        ++refused;  // a typed field's setter refuses the name, with CLI11's message
        continue;
      } catch (const std::exception&) {
        continue;  // not a number: CLI11's type check, which a caller with typed fields cannot fail
      }
      EXPECT_THROW(check_solve_args(a), input_error) << name << ' ' << v;
      ++refused;
    }
  }
  EXPECT_GT(refused, 100);
}

// The typed configuration (app/solver_config.hpp) after parsing: both front ends store the
// values named, keep "auto" and the unnamed branching as nullopt, and the enum setters refuse
// other names with CLI11's message.
TEST(options_schema, typed_fields_are_set_by_the_names_cli11_accepts) {
  const std::vector<std::string> args{
      "--backend",      "cpu",        "--bound",     "lb2", "--branching",         "forward",
      "--selection",    "best-first", "--heuristic", "neh", "--checkpoint-format", "text",
      "--gpu-strategy", "split"};
  {
    CLI::App app{"pfsp"};
    solve_args a;
    EXPECT_EQ(a.backend, backend_choice::auto_);
    EXPECT_FALSE(a.bound);
    EXPECT_FALSE(a.branch);
    EXPECT_EQ(a.heuristic, heuristic_choice::auto_);
    CLI::App* solve = add_solve_subcommand(app, a);
    std::vector<std::string> all{"pfsp", "solve", "ta001"};
    all.insert(all.end(), args.begin(), args.end());
    const auto argv = argv_of(all);
    app.parse(static_cast<int>(argv.size()), argv.data());
    note_given_options(*solve, a);
    EXPECT_EQ(a.backend, backend_choice::cpu);
    EXPECT_EQ(a.bound, bound_kind::lb2);
    EXPECT_EQ(a.branch, branching::forward);
    EXPECT_TRUE(a.bound_given && a.branch_given);
    EXPECT_EQ(a.select, selection::best_first);
    EXPECT_EQ(a.heuristic, heuristic_choice::neh);
    EXPECT_EQ(a.checkpoint_format, checkpoint_encoding::text);
    EXPECT_EQ(a.gpu_strategy, gpu::gpu_strategy::split);
  }
  {
    CLI::App app{"pfsp-mpi"};
    mpi_args m;
    register_mpi_options(app, m);
    std::vector<std::string> all{"pfsp-mpi",        "ta001", "--bound",     "auto",
                                 "--local-backend", "gpu",   "--branching", "min-min"};
    const auto argv = argv_of(all);
    app.parse(static_cast<int>(argv.size()), argv.data());
    check_mpi_options(app, m);
    EXPECT_FALSE(m.solve.bound);
    EXPECT_TRUE(m.solve.bound_given);
    EXPECT_EQ(m.solve.backend, backend_choice::gpu);
    EXPECT_EQ(m.solve.branch, branching::min_min);
  }
  EXPECT_EQ(enum_choices<backend_choice>(), (std::vector<std::string>{"auto", "cpu", "cpu-mt", "gpu"}));
  EXPECT_EQ(enum_choices<heuristic_choice>(), (std::vector<std::string>{"auto", "ig", "neh", "none"}));
  EXPECT_EQ(enum_choices<checkpoint_encoding>(), (std::vector<std::string>{"binary", "text"}));
  EXPECT_EQ(from_string_or_auto<bound_kind>("auto", "--bound"), std::nullopt);
  EXPECT_EQ(to_string_or_auto(std::optional<bound_kind>()), "auto");
  try {
    from_string_or_auto<bound_kind>("lb3", "--bound");
    ADD_FAILURE() << "--bound lb3 accepted";
  } catch (const input_error& e) {
    EXPECT_EQ(std::string(e.what()), "--bound: lb3 not in {auto,lb1,lb2,lb1-lb2}");
  }
}

// A solve_args parsed by `pfsp solve ta001 ARGS`; CLI11's message when refused.
std::string parse_solve(const std::vector<std::string>& args, solve_args& a) {
  CLI::App app{"pfsp"};
  CLI::App* solve = add_solve_subcommand(app, a);
  std::vector<std::string> all{"pfsp", "solve", "ta001"};
  all.insert(all.end(), args.begin(), args.end());
  const auto argv = argv_of(all);
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::ParseError& e) {
    return e.what();
  }
  note_given_options(*solve, a);
  return "";
}

// Each argument alone is refused by `pfsp solve` with its message.
void expect_refused(const std::map<std::string, std::string>& refused) {
  for (const auto& [arg, message] : refused) {
    solve_args a;
    EXPECT_EQ(parse_solve({arg}, a), message) << arg;
  }
}

// --ub and --lb2-pairs are parsed once, by CLI11 (and by the Python module's setters, with the
// same functions): typed values, their text given back by to_string, and the CLI's messages.
TEST(options_schema, ub_and_lb2_pairs_are_parsed_into_typed_values) {
  using ub_kind = ub_option::kind;
  {
    solve_args a;
    EXPECT_EQ(parse_solve({}, a), "");
    EXPECT_EQ(a.ub.given, ub_kind::none);
    EXPECT_FALSE(a.ub_given);
    EXPECT_EQ(a.lb2_pairs.mode, lb2_pairs_mode::automatic);
    EXPECT_FALSE(a.lb2_pairs_given);
    EXPECT_EQ(resolve_ub(ta001(), a), std::nullopt);
  }
  {
    solve_args a;
    EXPECT_EQ(parse_solve({"--ub", "1278", "--lb2-pairs", "learn:7"}, a), "");
    EXPECT_EQ(a.ub, (ub_option{ub_kind::makespan, 1278}));
    EXPECT_TRUE(a.ub_given);
    EXPECT_EQ(a.lb2_pairs, (lb2_pairs_option{lb2_pairs_mode::learn, 7}));
    EXPECT_TRUE(a.lb2_pairs_given);
    EXPECT_EQ(resolve_ub(ta001(), a), 1278);
  }
  {
    solve_args a;
    EXPECT_EQ(parse_solve({"--ub", "best-known", "--lb2-pairs", "adjacent"}, a), "");
    EXPECT_EQ(a.ub.given, ub_kind::best_known);
    EXPECT_EQ(a.lb2_pairs.mode, lb2_pairs_mode::adjacent);
    EXPECT_EQ(resolve_ub(ta001(), a), 1278);  // Taillard's table
  }
  const std::map<std::string, std::string> refused{
      {"--ub=abc", "--ub abc: expected a makespan in 1..2000000000 or best-known"},
      {"--ub=0", "--ub 0: expected a makespan in 1..2000000000 or best-known"},
      {"--ub=2000000001", "--ub 2000000001: expected a makespan in 1..2000000000 or best-known"},
      {"--lb2-pairs=some", "--lb2-pairs: 'some': expected auto, all, adjacent, learn or learn:K"},
      {"--lb2-pairs=learn:x", "--lb2-pairs: 'learn:x': expected learn:K with K a number of machine pairs, at least 1"},
      {"--lb2-pairs=learn:0", "--lb2-pairs: 'learn:0': expected learn:K with K a number of machine pairs, at least 1"},
  };
  expect_refused(refused);
  for (const char* text : {"", "1", "2000000000", "best-known"}) EXPECT_EQ(to_string(parse_ub(text)), text);
  for (const char* text : {"auto", "all", "adjacent", "learn", "learn:1", "learn:45"})
    EXPECT_EQ(to_string(parse_lb2_pairs(text)), text);
  EXPECT_EQ(enum_choices<lb2_pairs_mode>(), (std::vector<std::string>{"auto", "all", "adjacent", "learn"}));
  // learn:K's K against the instance's machine pairs (ta001: 5 machines, 10 pairs), as before the search.
  EXPECT_EQ(check_lb2_pairs(ta001(), parse_lb2_pairs("learn:10"), bound_kind::lb2, false).learn, 10);
  EXPECT_EQ(check_lb2_pairs(ta001(), parse_lb2_pairs("learn"), bound_kind::lb2, false).learn, 4);
  try {
    check_lb2_pairs(ta001(), parse_lb2_pairs("learn:11"), bound_kind::lb2, false);
    ADD_FAILURE() << "learn:11 accepted on ta001";
  } catch (const input_error& e) {
    EXPECT_EQ(std::string(e.what()),
              "--lb2-pairs learn:11: expected learn:K with K in 1..10 (the instance's machine pairs)");
  }
}

#if defined(PFSP_HAVE_GPU)
// The GPU backend's options (CUDA builds) are parsed straight into the gpu::gpu_policy and the
// gpu::plan_request that gpu::make_plan takes; their defaults are the policy's.
TEST(options_schema, gpu_options_are_parsed_into_the_policy_and_the_plan_request) {
  {
    solve_args a;
    EXPECT_EQ(parse_solve({}, a), "");
    const gpu::gpu_policy p = a.gpu.policy;
    const gpu::gpu_policy d;
    EXPECT_EQ(p.pool_size, d.pool_size);
    EXPECT_EQ(p.threads_per_block, d.threads_per_block);
    EXPECT_EQ(p.select, gpu::pool_selection::hybrid);
    EXPECT_EQ(p.sort, gpu::pool_sort::device);
    EXPECT_EQ(p.kernel, gpu::kernel_variant::branchless);
    EXPECT_EQ(p.memory, gpu::memory_placement::shared);
    EXPECT_EQ(p.compact_times, gpu::compact_mode::automatic);
    EXPECT_EQ(p.streams, 2);
    EXPECT_EQ(p.hybrid_max, d.hybrid_max);
    EXPECT_EQ(p.hybrid_min, d.hybrid_min);
    EXPECT_EQ(p.device, 0);
    EXPECT_EQ(p.bound_step, gpu::loop_bound::parts);
    EXPECT_EQ(a.gpu.request.loop, gpu::loop_choice::automatic);
    EXPECT_FALSE(a.gpu.request.host_loop_options);
    EXPECT_FALSE(a.gpu.request.devices.given());
    EXPECT_TRUE(gpu_cli_device_loop(a.gpu));
  }
  {
    solve_args a;
    EXPECT_EQ(parse_solve({"--pool-size",
                           "8192",
                           "--threads-per-block",
                           "64",
                           "--gpu-selection",
                           "best-first",
                           "--sort",
                           "none",
                           "--kernel",
                           "plain",
                           "--memory",
                           "global",
                           "--compact-times",
                           "--streams",
                           "1",
                           "--hybrid-max",
                           "100",
                           "--hybrid-min",
                           "10",
                           "--gpu-loop",
                           "host",
                           "--loop-bound",
                           "recompute",
                           "--devices",
                           "0,1,1",
                           "--device",
                           "3"},
                          a),
              "");
    const gpu::gpu_policy& p = a.gpu.policy;
    EXPECT_EQ(p.pool_size, 8192u);
    EXPECT_EQ(p.threads_per_block, 64);
    EXPECT_EQ(p.select, gpu::pool_selection::best_first);
    EXPECT_EQ(p.sort, gpu::pool_sort::none);
    EXPECT_EQ(p.kernel, gpu::kernel_variant::plain);
    EXPECT_EQ(p.memory, gpu::memory_placement::global);
    EXPECT_EQ(p.compact_times, gpu::compact_mode::on);  // the flag alone
    EXPECT_EQ(p.streams, 1);
    EXPECT_EQ(p.hybrid_max, 100u);
    EXPECT_EQ(p.hybrid_min, 10u);
    EXPECT_EQ(p.device, 3);
    EXPECT_EQ(p.bound_step, gpu::loop_bound::recompute);
    EXPECT_EQ(a.gpu.request.loop, gpu::loop_choice::host);
    EXPECT_TRUE(a.gpu.request.host_loop_options);
    EXPECT_EQ(a.gpu.request.devices.ordinals, (std::vector<int>{0, 1, 1}));
    EXPECT_FALSE(gpu_cli_device_loop(a.gpu));
  }
  {
    // --lb2-lanes: the chain's LB2 lanes a child, a power of two up to 16; anything else refused.
    solve_args a;
    EXPECT_EQ(a.gpu.policy.lb2_lanes, 1);
    EXPECT_EQ(parse_solve({"--lb2-lanes", "4"}, a), "");
    EXPECT_EQ(a.gpu.policy.lb2_lanes, 4);
    for (const char* bad : {"0", "3", "32", "-1", "x"}) {
      solve_args b;
      EXPECT_NE(parse_solve({"--lb2-lanes", bad}, b), "") << bad;
    }
  }
  {
    // --lb2-table: the chain's LB2 pass from the parents' tables; off by default.
    solve_args a;
    EXPECT_EQ(a.gpu.policy.lb2_table, gpu::lb2_table_mode::off);
    EXPECT_EQ(parse_solve({"--lb2-table", "on"}, a), "");
    EXPECT_EQ(a.gpu.policy.lb2_table, gpu::lb2_table_mode::on);
    EXPECT_EQ(parse_solve({"--lb2-table", "off"}, a), "");
    EXPECT_EQ(a.gpu.policy.lb2_table, gpu::lb2_table_mode::off);
    for (const char* bad : {"yes", "1", "auto", ""}) {
      solve_args b;
      EXPECT_NE(parse_solve({"--lb2-table", bad}, b), "") << bad;
    }
  }
  for (const auto& [arg, mode] :
       std::map<std::string, gpu::compact_mode>{{"--compact-times=off", gpu::compact_mode::off},
                                                {"--compact-times=auto", gpu::compact_mode::automatic},
                                                {"--compact-times=on", gpu::compact_mode::on}}) {
    solve_args a;
    EXPECT_EQ(parse_solve({arg}, a), "") << arg;
    EXPECT_EQ(a.gpu.policy.compact_times, mode) << arg;
  }
  {
    // Each host-loop option alone asks --gpu-loop auto for the host loop; --sort host does too.
    for (const char* option : {"--gpu-selection=hybrid", "--streams=2", "--hybrid-max=0", "--hybrid-min=0"}) {
      solve_args a;
      EXPECT_EQ(parse_solve({option}, a), "");
      EXPECT_TRUE(a.gpu.request.host_loop_options) << option;
      EXPECT_FALSE(gpu_cli_device_loop(a.gpu)) << option;
    }
    solve_args a;
    EXPECT_EQ(parse_solve({"--sort", "host"}, a), "");
    EXPECT_FALSE(a.gpu.request.host_loop_options);
    EXPECT_FALSE(gpu_cli_device_loop(a.gpu));
    solve_args all;
    EXPECT_EQ(parse_solve({"--devices", "all"}, all), "");
    EXPECT_TRUE(all.gpu.request.devices.all);
  }
  const std::map<std::string, std::string> refused{
      {"--compact-times=sometimes", "--compact-times: sometimes not in {auto,on,off}"},
      {"--gpu-loop=sideways", "--gpu-loop: sideways not in {auto,host,device}"},
      {"--kernel=fast", "--kernel: fast not in {plain,refactored,branchless}"},
      {"--devices=0,x", "--devices 0,x: expected device ordinals separated by commas (e.g. 0,1) or 'all', found 'x'"},
      {"--devices=0,", "--devices 0,: expected device ordinals separated by commas (e.g. 0,1) or 'all', found ''"},
  };
  expect_refused(refused);
}
#endif

TEST(options_schema, ranges_are_pfsps) {
  // The values pfsp-mpi used to differ on (before it took pfsp solve's registration).
  EXPECT_TRUE(mpi_accepts({"--ub", "2000000000"}));
  EXPECT_FALSE(mpi_accepts({"--ub", "2000000001"}));
  EXPECT_TRUE(mpi_accepts({"--ub", "best-known"}));
  EXPECT_FALSE(mpi_accepts({"--threads", "0"}));
  EXPECT_TRUE(mpi_accepts({"--bound", "auto"}));
  EXPECT_TRUE(mpi_accepts({"--heuristic", "auto"}));
  EXPECT_TRUE(mpi_accepts({"--local-backend", "cpu"}));
  EXPECT_FALSE(mpi_accepts({"--local-backend", "cpu", "--backend", "cpu"}));
  std::string why;
  EXPECT_FALSE(mpi_accepts({"--selection", "best-first"}, &why));
  EXPECT_EQ(why, "--selection: not supported by pfsp-mpi (each chunk is solved depth-first)");
}

// --bound auto (default_bound): LB1 on the CPU and the host loop at every size; on the device
// loop the chain below 200 jobs, LB1 alone from 200, and from 100 jobs at 20-39 machines
// (docs/benchmarks.md, "The default bound by size"). The GPU test gpu_defaults runs the real
// command on both sides of the 200-job threshold.
TEST(options_defaults, bound_auto_by_loop_and_size) {
  for (const int jobs : {5, 20, 50, 99, 100, 199, 200, 500, 800})
    for (const int machines : {5, 10, 19, 20, 39, 40, 60}) {
      const bool lb1_alone = jobs >= 200 || (jobs >= 100 && machines >= 20 && machines < 40);
      EXPECT_EQ(default_bound(false, jobs, machines), bound_kind::lb1) << jobs << "x" << machines;
      EXPECT_EQ(default_bound(true, jobs, machines), lb1_alone ? bound_kind::lb1 : bound_kind::lb1_lb2)
          << jobs << "x" << machines;
    }
  EXPECT_EQ(default_bound(true, 100, 20), bound_kind::lb1);  // ta081-ta090
  EXPECT_EQ(default_bound(true, 100, 10), bound_kind::lb1_lb2);
  EXPECT_EQ(default_bound(true, 50, 20), bound_kind::lb1_lb2);
}

// --bound auto on the CPU solvers (default_cpu_bound): the chain at 20 jobs and up to 10 machines,
// LB1 at 20x20, 50x10 and above; --dominance auto on for the CPU, off on the GPU.
TEST(options_defaults, cpu_bound_and_dominance_auto) {
  EXPECT_EQ(default_cpu_bound(20, 5), bound_kind::lb1_lb2);
  EXPECT_EQ(default_cpu_bound(20, 10), bound_kind::lb1_lb2);
  EXPECT_EQ(default_cpu_bound(20, 20), bound_kind::lb1);
  EXPECT_EQ(default_cpu_bound(50, 10), bound_kind::lb1);
  EXPECT_EQ(default_cpu_bound(500, 20), bound_kind::lb1);
  EXPECT_TRUE(default_dominance(false));
  EXPECT_FALSE(default_dominance(true));
}

// --child-order: solution-guided by default (decision 014), bound on request, nothing else; whether
// it was given is noted.
TEST(options_defaults, child_order_follows_the_incumbent_unless_told) {
  solve_args a;
  EXPECT_EQ(parse_solve({}, a), "");
  EXPECT_EQ(a.order, child_order::incumbent);
  EXPECT_FALSE(a.order_given);  // the GPU backend then keeps the bound's order (plan_backend)
  solve_args b;
  EXPECT_EQ(parse_solve({"--child-order", "bound"}, b), "");
  EXPECT_EQ(b.order, child_order::bound);
  EXPECT_TRUE(b.order_given);
  solve_args c;
  EXPECT_NE(parse_solve({"--child-order", "guide"}, c), "");
}

}  // namespace
}  // namespace pfsp::test
