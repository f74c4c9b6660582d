// The output files of a solve, checked before it starts (issue 21, item 7): a long run must not
// lose its result, log or checkpoint to a mistyped or read-only directory found at its end.
#pragma once

#include <string>

#include "app/solver_config.hpp"

namespace pfsp {

// How the file will be written. Results, charts and checkpoints are replaced atomically (a
// temporary file beside them, then a rename: report.cpp), so only their directory's permissions
// count; the log is opened and truncated, so an existing log file must be writable itself.
enum class output_write { atomic_replace, truncate };

// Throws input_error (exit code 2) naming `option` and `path` unless `path` can be written: it is
// not a directory, and the directory that would hold it (the current one for a bare name) exists,
// is a directory, and is writable and searchable (POSIX access(); root passes it except on a
// read-only file system).
void check_output_path(const std::string& option, const std::string& path,
                       output_write how = output_write::atomic_replace);

// Every output path a solve was given: --json, --gantt, --log, --checkpoint (empty: not given).
// pfsp solve calls it before loading the instance, solve_instance again for --checkpoint (the
// Python module's only output option).
void check_output_paths(const solve_args& a);

}  // namespace pfsp
