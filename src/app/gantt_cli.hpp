// `pfsp gantt RESULT.json -o FILE.svg` and `pfsp solve --gantt FILE.svg`: the CLI side of the
// Gantt chart (the drawing itself is src/report/gantt.hpp).
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "problem/instance.hpp"

namespace pfsp {

// Draws `schedule` (0-based jobs) and writes it to `path` atomically. Throws input_error.
void write_gantt(const std::string& path, const instance& inst, const std::vector<int>& schedule);

// Throws input_error unless a file can be written at `path` (app/output_paths.hpp's
// check_output_path). `option` names the option in the message.
void check_output_directory(const std::string& option, const std::string& path);

// Reads a result JSON written by `pfsp solve --json`, loads its instance (`instance_spec`, when
// not empty, overrides the one the JSON names), checks the schedule and writes the chart.
// Returns an exit code; bad input throws input_error (exit 2).
int gantt_from_result(const std::string& result_path, const std::string& svg_path, const std::string& instance_spec,
                      std::ostream& out);

}  // namespace pfsp
