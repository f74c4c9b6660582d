#include "app/output_paths.hpp"

#include <unistd.h>

#include <filesystem>
#include <system_error>

#include "base/error.hpp"

namespace pfsp {
namespace {

namespace fs = std::filesystem;

bool writable(const fs::path& p, int mode) { return ::access(p.c_str(), mode) == 0; }

}  // namespace

void check_output_path(const std::string& option, const std::string& path, output_write how) {
  const std::string what = option + " " + path + ": ";
  if (path.empty()) throw input_error(option + ": expected a file name");
  const fs::path file(path);
  std::error_code ec;
  if (!file.has_filename() || fs::is_directory(file, ec))
    throw input_error(what + "is a directory; expected a file name");
  const fs::path parent = file.parent_path();
  const fs::path dir = parent.empty() ? fs::path(".") : parent;
  if (!fs::exists(dir, ec)) throw input_error(what + "directory '" + dir.string() + "' does not exist");
  if (!fs::is_directory(dir, ec)) throw input_error(what + "'" + dir.string() + "' is not a directory");
  if (!writable(dir, W_OK | X_OK)) throw input_error(what + "directory '" + dir.string() + "' is not writable");
  if (how == output_write::truncate && fs::exists(file, ec) && !writable(file, W_OK))
    throw input_error(what + "the file exists and is not writable");
}

void check_output_paths(const solve_args& a) {
  if (!a.json.empty()) check_output_path("--json", a.json);
  if (!a.gantt.empty()) check_output_path("--gantt", a.gantt);
  if (!a.log.empty()) check_output_path("--log", a.log, output_write::truncate);
  if (!a.checkpoint.empty()) check_output_path("--checkpoint", a.checkpoint);
}

}  // namespace pfsp
