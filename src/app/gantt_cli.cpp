#include "app/gantt_cli.hpp"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <ostream>
#include <sstream>

#include "app/cli.hpp"
#include "app/output_paths.hpp"
#include "base/error.hpp"
#include "problem/io.hpp"
#include "report/gantt.hpp"

namespace pfsp {

void write_gantt(const std::string& path, const instance& inst, const std::vector<int>& schedule) {
  write_file_atomically(path, gantt_svg(inst, schedule));
}

void check_output_directory(const std::string& option, const std::string& path) { check_output_path(option, path); }

int gantt_from_result(const std::string& result_path, const std::string& svg_path, const std::string& instance_spec,
                      std::ostream& out) {
  check_output_directory("-o", svg_path);
  std::ifstream in(result_path, std::ios::binary);
  if (!in) throw file_error(result_path, 0, "cannot open the result file");
  std::ostringstream text;
  text << in.rdbuf();
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text.str());
  } catch (const nlohmann::json::parse_error& e) {
    throw file_error(result_path, 0,
                     std::string("not valid JSON (expected a result of pfsp solve --json): ") + e.what());
  }
  auto expect = [&](bool ok, const std::string& what) {
    if (!ok) throw file_error(result_path, 0, what);
  };
  expect(j.is_object() && j.contains("schedule") && j["schedule"].is_array(),
         "no \"schedule\" array (expected a result of pfsp solve --json)");
  expect(!j["schedule"].empty(), "the schedule is empty (the solve found none below its initial upper bound)");
  std::string spec = instance_spec;
  if (spec.empty()) {
    expect(j.contains("instance") && j["instance"].is_object(), "no \"instance\" object; give --instance");
    const auto& ji = j["instance"];
    // "spec" is what was given to pfsp solve (a name, random:N,M,SEED or a file path); older
    // results have only the name, which loads for Taillard's instances.
    if (ji.contains("spec") && ji["spec"].is_string())
      spec = ji["spec"].get<std::string>();
    else if (ji.contains("name") && ji["name"].is_string())
      spec = ji["name"].get<std::string>();
    expect(!spec.empty(), "the instance is not named; give --instance");
  }
  instance inst;
  try {
    inst = load_instance(spec);
  } catch (const input_error& e) {
    throw input_error(result_path + ": its instance cannot be loaded (give --instance PATH): " + e.what());
  }
  std::vector<int> schedule;
  for (const auto& v : j["schedule"]) {
    expect(v.is_number_integer(), "the schedule holds a value that is not an integer job number");
    const long long x = v.get<long long>();
    expect(x >= 1 && x <= inst.n, "job " + std::to_string(x) + " in the schedule is not in 1.." +
                                      std::to_string(inst.n) + " (the jobs of " + inst.name + ")");
    schedule.push_back(static_cast<int>(x - 1));
  }
  expect(static_cast<int>(schedule.size()) == inst.n, "the schedule has " + std::to_string(schedule.size()) +
                                                          " jobs, " + inst.name + " has " + std::to_string(inst.n));
  std::vector<char> seen(inst.n, 0);
  for (int x : schedule) {
    expect(!seen[x], "job " + std::to_string(x + 1) + " appears twice in the schedule");
    seen[x] = 1;
  }
  const std::vector<operation> ops = schedule_operations(inst, schedule);
  const int makespan = ops.back().end;
  if (j.contains("makespan") && j["makespan"].is_number_integer())
    expect(j["makespan"].get<long long>() == makespan,
           "the schedule's makespan on " + inst.name + " is " + std::to_string(makespan) + ", the file says " +
               std::to_string(j["makespan"].get<long long>()) + " (another instance? give --instance)");
  write_gantt(svg_path, inst, schedule);
  out << "gantt        " << svg_path << "  (" << inst.name << ", makespan " << makespan << ")\n";
  return exit_ok;
}

}  // namespace pfsp
