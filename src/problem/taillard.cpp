#include "problem/taillard.hpp"

#include <array>
#include <cctype>
#include <cmath>

#include "base/error.hpp"

namespace pfsp {
namespace {

// Generated from shared/data/taillard_pfsp.csv (tests/test_taillard.cpp checks it still agrees).
constexpr std::array<taillard_entry, 120> table = {{
    {"ta001", 20, 5, 873654221U, 1278, 1278, true},      {"ta002", 20, 5, 379008056U, 1359, 1359, true},
    {"ta003", 20, 5, 1866992158U, 1081, 1081, true},     {"ta004", 20, 5, 216771124U, 1293, 1293, true},
    {"ta005", 20, 5, 495070989U, 1235, 1235, true},      {"ta006", 20, 5, 402959317U, 1195, 1195, true},
    {"ta007", 20, 5, 1369363414U, 1234, 1234, true},     {"ta008", 20, 5, 2021925980U, 1206, 1206, true},
    {"ta009", 20, 5, 573109518U, 1230, 1230, true},      {"ta010", 20, 5, 88325120U, 1108, 1108, true},
    {"ta011", 20, 10, 587595453U, 1582, 1582, true},     {"ta012", 20, 10, 1401007982U, 1659, 1659, true},
    {"ta013", 20, 10, 873136276U, 1496, 1496, true},     {"ta014", 20, 10, 268827376U, 1377, 1377, true},
    {"ta015", 20, 10, 1634173168U, 1419, 1419, true},    {"ta016", 20, 10, 691823909U, 1397, 1397, true},
    {"ta017", 20, 10, 73807235U, 1484, 1484, true},      {"ta018", 20, 10, 1273398721U, 1538, 1538, true},
    {"ta019", 20, 10, 2065119309U, 1593, 1593, true},    {"ta020", 20, 10, 1672900551U, 1591, 1591, true},
    {"ta021", 20, 20, 479340445U, 2297, 2297, true},     {"ta022", 20, 20, 268827376U, 2099, 2099, true},
    {"ta023", 20, 20, 1958948863U, 2326, 2326, true},    {"ta024", 20, 20, 918272953U, 2223, 2223, true},
    {"ta025", 20, 20, 555010963U, 2291, 2291, true},     {"ta026", 20, 20, 2010851491U, 2226, 2226, true},
    {"ta027", 20, 20, 1519833303U, 2273, 2273, true},    {"ta028", 20, 20, 1748670931U, 2200, 2200, true},
    {"ta029", 20, 20, 1923497586U, 2237, 2237, true},    {"ta030", 20, 20, 1829909967U, 2178, 2178, true},
    {"ta031", 50, 5, 1328042058U, 2724, 2724, true},     {"ta032", 50, 5, 200382020U, 2834, 2834, true},
    {"ta033", 50, 5, 496319842U, 2621, 2621, true},      {"ta034", 50, 5, 1203030903U, 2751, 2751, true},
    {"ta035", 50, 5, 1730708564U, 2863, 2863, true},     {"ta036", 50, 5, 450926852U, 2829, 2829, true},
    {"ta037", 50, 5, 1303135678U, 2725, 2725, true},     {"ta038", 50, 5, 1273398721U, 2683, 2683, true},
    {"ta039", 50, 5, 587288402U, 2552, 2552, true},      {"ta040", 50, 5, 248421594U, 2782, 2782, true},
    {"ta041", 50, 10, 1958948863U, 2991, 2991, true},    {"ta042", 50, 10, 575633267U, 2867, 2867, true},
    {"ta043", 50, 10, 655816003U, 2839, 2839, true},     {"ta044", 50, 10, 1977864101U, 3063, 3063, true},
    {"ta045", 50, 10, 93805469U, 2976, 2976, true},      {"ta046", 50, 10, 1803345551U, 3006, 3006, true},
    {"ta047", 50, 10, 49612559U, 3093, 3093, true},      {"ta048", 50, 10, 1899802599U, 3037, 3037, true},
    {"ta049", 50, 10, 2013025619U, 2897, 2897, true},    {"ta050", 50, 10, 578962478U, 3065, 3065, true},
    {"ta051", 50, 20, 1539989115U, 3771, 3846, false},   {"ta052", 50, 20, 691823909U, 3699, 3699, true},
    {"ta053", 50, 20, 655816003U, 3640, 3640, true},     {"ta054", 50, 20, 1315102446U, 3635, 3719, false},
    {"ta055", 50, 20, 1949668355U, 3553, 3610, false},   {"ta056", 50, 20, 1923497586U, 3679, 3679, true},
    {"ta057", 50, 20, 1805594913U, 3704, 3704, true},    {"ta058", 50, 20, 1861070898U, 3691, 3691, true},
    {"ta059", 50, 20, 715643788U, 3645, 3741, false},    {"ta060", 50, 20, 464843328U, 3696, 3755, false},
    {"ta061", 100, 5, 896678084U, 5493, 5493, true},     {"ta062", 100, 5, 1179439976U, 5268, 5268, true},
    {"ta063", 100, 5, 1122278347U, 5175, 5175, true},    {"ta064", 100, 5, 416756875U, 5014, 5014, true},
    {"ta065", 100, 5, 267829958U, 5250, 5250, true},     {"ta066", 100, 5, 1835213917U, 5135, 5135, true},
    {"ta067", 100, 5, 1328833962U, 5246, 5246, true},    {"ta068", 100, 5, 1418570761U, 5094, 5094, true},
    {"ta069", 100, 5, 161033112U, 5448, 5448, true},     {"ta070", 100, 5, 304212574U, 5322, 5322, true},
    {"ta071", 100, 10, 1539989115U, 5770, 5770, true},   {"ta072", 100, 10, 655816003U, 5349, 5349, true},
    {"ta073", 100, 10, 960914243U, 5676, 5676, true},    {"ta074", 100, 10, 1915696806U, 5781, 5781, true},
    {"ta075", 100, 10, 2013025619U, 5467, 5467, true},   {"ta076", 100, 10, 1168140026U, 5303, 5303, true},
    {"ta077", 100, 10, 1923497586U, 5595, 5595, true},   {"ta078", 100, 10, 167698528U, 5617, 5617, true},
    {"ta079", 100, 10, 1528387973U, 5871, 5871, true},   {"ta080", 100, 10, 993794175U, 5845, 5845, true},
    {"ta081", 100, 20, 450926852U, 6134, 6171, false},   {"ta082", 100, 20, 1462772409U, 6183, 6183, true},
    {"ta083", 100, 20, 1021685265U, 6252, 6252, true},   {"ta084", 100, 20, 83696007U, 6254, 6254, true},
    {"ta085", 100, 20, 508154254U, 6270, 6285, false},   {"ta086", 100, 20, 1861070898U, 6311, 6329, false},
    {"ta087", 100, 20, 26482542U, 6216, 6223, false},    {"ta088", 100, 20, 444956424U, 6316, 6357, false},
    {"ta089", 100, 20, 2115448041U, 6232, 6246, false},  {"ta090", 100, 20, 118254244U, 6404, 6404, true},
    {"ta091", 200, 10, 471503978U, 10862, 10862, true},  {"ta092", 200, 10, 1215892992U, 10480, 10480, true},
    {"ta093", 200, 10, 135346136U, 10922, 10922, true},  {"ta094", 200, 10, 1602504050U, 10889, 10889, true},
    {"ta095", 200, 10, 160037322U, 10524, 10524, true},  {"ta096", 200, 10, 551454346U, 10329, 10329, true},
    {"ta097", 200, 10, 519485142U, 10854, 10854, true},  {"ta098", 200, 10, 383947510U, 10730, 10730, true},
    {"ta099", 200, 10, 1968171878U, 10438, 10438, true}, {"ta100", 200, 10, 540872513U, 10675, 10675, true},
    {"ta101", 200, 20, 2013025619U, 11158, 11158, true}, {"ta102", 200, 20, 475051709U, 11153, 11160, false},
    {"ta103", 200, 20, 914834335U, 11281, 11281, true},  {"ta104", 200, 20, 810642687U, 11275, 11275, true},
    {"ta105", 200, 20, 1019331795U, 11259, 11259, true}, {"ta106", 200, 20, 2056065863U, 11176, 11176, true},
    {"ta107", 200, 20, 1342855162U, 11337, 11337, true}, {"ta108", 200, 20, 1325809384U, 11301, 11301, true},
    {"ta109", 200, 20, 1988803007U, 11146, 11146, true}, {"ta110", 200, 20, 765656702U, 11284, 11284, true},
    {"ta111", 500, 20, 1368624604U, 26040, 26040, true}, {"ta112", 500, 20, 450181436U, 26500, 26500, true},
    {"ta113", 500, 20, 1927888393U, 26371, 26371, true}, {"ta114", 500, 20, 1759567256U, 26456, 26456, true},
    {"ta115", 500, 20, 606425239U, 26334, 26334, true},  {"ta116", 500, 20, 19268348U, 26469, 26469, true},
    {"ta117", 500, 20, 1298201670U, 26389, 26389, true}, {"ta118", 500, 20, 2041736264U, 26560, 26560, true},
    {"ta119", 500, 20, 379756761U, 26005, 26005, true},  {"ta120", 500, 20, 28837162U, 26457, 26457, true},
}};

// Taillard's unif(seed, low, high) with Schrage's method to avoid 32-bit overflow.
int unif(std::int64_t& seed, int low, int high) {
  constexpr std::int64_t a = 16807, mod = 2147483647, q = 127773, r = 2836;
  const std::int64_t k = seed / q;
  seed = a * (seed % q) - k * r;
  if (seed < 0) seed += mod;
  const double u = static_cast<double>(seed) / static_cast<double>(mod);
  return low + static_cast<int>(std::floor(u * (high - low + 1)));
}

}  // namespace

std::span<const taillard_entry> taillard_table() { return table; }

std::optional<taillard_entry> find_taillard(std::string_view name) {
  if (name.size() < 3 || std::tolower(static_cast<unsigned char>(name[0])) != 't' ||
      std::tolower(static_cast<unsigned char>(name[1])) != 'a')
    return std::nullopt;
  int idx = 0;
  for (std::size_t i = 2; i < name.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(name[i])) || i > 5) return std::nullopt;
    idx = idx * 10 + (name[i] - '0');
  }
  if (idx < 1 || idx > 120) return std::nullopt;
  return table[idx - 1];
}

instance generate_taillard(int n, int m, std::uint32_t seed, std::string name) {
  if (n <= 0 || m <= 0) throw input_error("random instance needs n > 0 and m > 0");
  if (seed == 0 || seed >= 2147483647U) throw input_error("random instance seed must be in 1 .. 2^31-2");
  instance inst;
  inst.name = name.empty() ? "random_" + std::to_string(n) + "x" + std::to_string(m) + "_" + std::to_string(seed)
                           : std::move(name);
  inst.n = n;
  inst.m = m;
  inst.p.resize(static_cast<std::size_t>(n) * m);
  std::int64_t s = seed;
  for (int k = 0; k < m; ++k)
    for (int j = 0; j < n; ++j) inst.p[static_cast<std::size_t>(k) * n + j] = unif(s, 1, 99);
  return inst;
}

instance taillard_instance(std::string_view name) {
  const auto e = find_taillard(name);
  if (!e)
    throw input_error("unknown instance name '" + std::string(name) +
                      "' (expected ta001 .. ta120, a file, or random:N,M,SEED)");
  instance inst = generate_taillard(e->n, e->m, e->time_seed, e->name);
  inst.known = known_bounds{e->lb, e->ub, e->optimal};
  return inst;
}

}  // namespace pfsp
