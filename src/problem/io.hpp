// Reading and writing instances: Taillard's matrix format and the job-per-row format of
// OR-Library and the VRF benchmark, detected automatically.
#pragma once

#include <cstddef>
#include <iosfwd>
#include <string>

#include "problem/instance.hpp"

namespace pfsp {

enum class file_format { taillard, job_rows };

// Parses an instance from text. `origin` names the source in error messages ("file:line: ...").
// Taillard: optional text header lines, a line "n m [seed ub lb]", optional text lines, then m
// rows of n times. Job rows: a line "n m", then n rows of m "machine time" pairs with machines
// in order (0-based or 1-based). LF or CRLF line ends, tabs, a UTF-8 BOM; at most
// max_input_bytes. Throws input_error naming the line and what was expected.
inline constexpr std::size_t max_input_bytes = std::size_t{256} << 20;
instance parse_instance(std::istream& in, const std::string& origin);

// Reads a file (throws input_error if it cannot be opened).
instance read_instance_file(const std::string& path);

void write_instance(std::ostream& out, const instance& inst, file_format format);

// Resolves what the CLI accepts: "ta001".."ta120", "random:N,M,SEED", or a file path.
instance load_instance(const std::string& spec);

}  // namespace pfsp
