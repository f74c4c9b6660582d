#include "gpu/strategy.hpp"

#include <algorithm>
#include <charconv>
#include <sstream>

#include "base/error.hpp"
#include "divergence/remap.hpp"
#include "gpu/pool_layout.hpp"

namespace pfsp::gpu {
namespace {

using divergence::fetch_control;
using divergence::pool_kind;

// Concatenation without `const char* + std::string&&` (g++ 12 reports a false -Wrestrict there).
std::string cat(std::initializer_list<std::string_view> parts) {
  std::string s;
  for (const std::string_view p : parts) s.append(p);
  return s;
}

[[noreturn]] void bad(const std::string& what) { throw input_error(cat({"--strategy-params: ", what})); }

std::uint32_t number(std::string_view key, std::string_view value, std::uint32_t lo, std::uint32_t hi) {
  std::uint32_t v = 0;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
  if (ec != std::errc() || end != value.data() + value.size() || v < lo || v > hi)
    bad(cat({key, "=", value, ": expected an integer in [", std::to_string(lo), ", ", std::to_string(hi), "]"}));
  return v;
}

template <class E>
E member(std::string_view key, std::string_view value, std::initializer_list<std::pair<const char*, E>> names) {
  std::string expected;
  for (const auto& [name, e] : names) {
    if (value == name) return e;
    if (!expected.empty()) expected += '|';
    expected += name;
  }
  bad(cat({key, "=", value, ": expected ", expected}));
}

// Which strategy each key belongs to.
gpu_strategy owner_of(std::string_view key) {
  if (key == "pool" || key == "fetch" || key == "k" || key == "chunk" || key == "interval")
    return gpu_strategy::persistent;
  if (key == "contexts" || key == "vote") return gpu_strategy::context_switch;
  if (key == "classes" || key == "control") return gpu_strategy::remap;
  bad(cat(
      {"unknown key '", key,
       "' (persistent: pool, fetch, k, chunk, interval; context-switch: contexts, vote; remap: classes, control)"}));
}

}  // namespace

const std::vector<std::string>& strategy_names() {
  static const std::vector<std::string> v = enum_choices<gpu_strategy>();
  return v;
}

std::string describe(const strategy_params& p) {
  std::ostringstream s;
  s << to_string(p.kind);
  switch (p.kind) {
    case gpu_strategy::persistent:
      s << " (" << divergence::to_string(p.pool.pool) << ' ' << divergence::to_string(p.pool.control);
      if (p.pool.control == fetch_control::ballot || p.pool.control == fetch_control::atomic)
        s << '(' << p.pool.idle_threshold << ')';
      s << " chunk " << p.pool.chunk << " interval " << p.pool.check_interval << ')';
      break;
    case gpu_strategy::context_switch:
      s << " (" << p.contexts.pool_contexts << " contexts per warp, vote every " << p.contexts.vote_interval << ')';
      break;
    case gpu_strategy::remap:
      s << " (LAM, R = " << p.remap_classes << (p.remap_control ? ", efficiency control)" : ", always on)");
      break;
    default:
      break;
  }
  return s.str();
}

namespace {

// --gpu-strategy's name, with the message the CLI tests expect for another.
gpu_strategy strategy_named(std::string_view name) {
  const auto& names = strategy_names();
  if (std::find(names.begin(), names.end(), name) == names.end()) {
    std::string expected;  // "plain, persistent, ... or remap"
    for (std::size_t i = 0; i < names.size(); ++i)
      expected += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
    throw input_error(cat({"--gpu-strategy ", name, ": expected ", expected}));
  }
  return from_string<gpu_strategy>(name, "--gpu-strategy");
}

// One key=value of --strategy-params into p (the key belongs to p.kind: owner_of).
void set_param(strategy_params& p, std::string_view key, std::string_view value) {
  if (key == "pool") {
    p.pool.pool = member<pool_kind>(key, value,
                                    {{"global", pool_kind::global},
                                     {"local", pool_kind::local},
                                     {"hybrid", pool_kind::hybrid},
                                     {"persistent", pool_kind::persistent}});
  } else if (key == "fetch") {
    p.pool.control = member<fetch_control>(key, value,
                                           {{"any", fetch_control::any},
                                            {"all", fetch_control::all},
                                            {"ballot", fetch_control::ballot},
                                            {"atomic", fetch_control::atomic}});
  } else if (key == "k") {
    p.pool.idle_threshold = number(key, value, 1, 32);
  } else if (key == "chunk") {
    p.pool.chunk = number(key, value, 0, 65536);
  } else if (key == "interval") {
    p.pool.check_interval = number(key, value, 1, 64);
  } else if (key == "contexts") {
    p.contexts.pool_contexts = number(key, value, 32, 1024);
    if (p.contexts.pool_contexts % 32 != 0) bad(cat({"contexts=", value, ": expected a multiple of 32"}));
  } else if (key == "vote") {
    p.contexts.vote_interval = number(key, value, 1, 64);
  } else if (key == "classes") {
    p.remap_classes = number(key, value, 2, 1024);
  } else if (key == "control") {
    p.remap_control = member<bool>(key, value, {{"on", true}, {"off", false}});
  }
}

// The persistent strategy's combinations: pool=persistent takes fetch=all only; the global and
// local pools need chunks.
void check_persistent(strategy_params& p, bool fetch_given) {
  if (p.pool.pool == pool_kind::persistent) {
    if (fetch_given && p.pool.control != fetch_control::all)
      bad("pool=persistent fetches once every lane of the warp is done: it takes fetch=all (the default there)");
    p.pool.control = fetch_control::all;
  }
  if ((p.pool.pool == pool_kind::global || p.pool.pool == pool_kind::local) && p.pool.chunk == 0)
    bad(cat({"chunk=0: pool=", divergence::to_string(p.pool.pool), " needs chunk >= 1"}));
}

}  // namespace

strategy_params parse_strategy(std::string_view name, std::string_view params) {
  strategy_params p;
  p.kind = strategy_named(name);
  bool fetch_given = false;
  while (!params.empty()) {
    const std::size_t comma = params.find(',');
    const std::string_view item = params.substr(0, comma);
    params = comma == std::string_view::npos ? std::string_view() : params.substr(comma + 1);
    if (item.empty()) continue;
    const std::size_t eq = item.find('=');
    if (eq == std::string_view::npos || eq == 0 || eq + 1 == item.size())
      bad(cat({"'", item, "': expected key=value"}));
    const std::string_view key = item.substr(0, eq), value = item.substr(eq + 1);
    const gpu_strategy owner = owner_of(key);
    if (owner != p.kind)
      bad(cat({"'", key, "' applies to --gpu-strategy ", to_string(owner), ", not ", to_string(p.kind)}));
    fetch_given = fetch_given || key == "fetch";
    set_param(p, key, value);
  }
  if (p.kind == gpu_strategy::persistent) check_persistent(p, fetch_given);
  return p;
}

void remap_classes_of(int n, int directions, bool backward_only, const std::uint32_t* limits,
                      const std::uint32_t* offsets, std::size_t parents, std::uint32_t classes,
                      std::vector<std::uint32_t>& cls) {
  const std::size_t total = parents ? offsets[parents] : 0;
  cls.resize(total);
  if (total == 0) return;
  // Bidirectional pools: the direction is a class bit of its own (forward and backward children
  // take different code in child_bound), the (limit1, limit2) part of the key gets R / 2 classes.
  const bool by_direction = directions == 2 && classes >= 2;
  const std::uint32_t buckets = by_direction ? classes / 2 : classes;
  auto key_of = [&](std::size_t p, int dir) {
    const bool backward = directions == 2 ? dir == 1 : backward_only;
    const std::uint32_t k = child_key(n, limit1_of(limits[p]), limit2_of(limits[p]), backward);
    return by_direction ? k >> 1 : k;
  };
  // Zhang's createValRngs: equal-width classes over the keys present in this pool.
  std::uint32_t lo = 0xffffffffu, hi = 0;
  for (std::size_t p = 0; p < parents; ++p)
    for (int dir = 0; dir < directions; ++dir) {
      const std::uint32_t k = key_of(p, dir);
      lo = std::min(lo, k);
      hi = std::max(hi, k);
    }
  const std::uint64_t width = static_cast<std::uint64_t>(hi - lo) + 1;
  for (std::size_t p = 0; p < parents; ++p) {
    const std::uint32_t count = (offsets[p + 1] - offsets[p]) / static_cast<std::uint32_t>(directions);
    std::uint32_t idx = offsets[p];
    for (int dir = 0; dir < directions; ++dir) {
      const std::uint32_t b =
          static_cast<std::uint32_t>(static_cast<std::uint64_t>(key_of(p, dir) - lo) * buckets / width);
      const std::uint32_t c = by_direction ? 2 * b + static_cast<std::uint32_t>(dir) : b;
      for (std::uint32_t i = 0; i < count; ++i) cls[idx++] = c;
    }
  }
}

double remap_mixed_share(std::span<const std::uint32_t> cls) {
  const std::size_t segments = cls.size() / 32;
  if (segments == 0) return 0.0;
  const std::size_t mixed = divergence::mixed_segments(cls.first(segments * 32), nullptr);
  return static_cast<double>(mixed) / static_cast<double>(segments);
}

}  // namespace pfsp::gpu
