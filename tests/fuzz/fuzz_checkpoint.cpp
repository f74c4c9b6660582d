// libFuzzer target: checkpoint files through the file-level entry point read_search_state (so a
// format it detects from the first bytes is fuzzed too), then the checks a resume runs against
// the corpus's instance (tests/fuzz/checkpoint_instance.txt) and the restore of the open nodes.
// Any outcome but a state or an input_error is a finding.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

#include "base/error.hpp"
#include "problem/io.hpp"
#include "search/checkpoint.hpp"

namespace {

// One file per fuzzing process, rewritten for every input.
const std::string& scratch_path() {
  static const std::string path = "/tmp/pfsp_fuzz_checkpoint_" + std::to_string(::getpid());
  return path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const pfsp::instance inst = pfsp::read_instance_file(PFSP_FUZZ_INSTANCE);
  const std::string& path = scratch_path();
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) std::abort();
  if (size && std::fwrite(data, 1, size, f) != size) std::abort();
  std::fclose(f);
  try {
    const pfsp::search_state s = pfsp::read_search_state(path);
    pfsp::solve_options opt;  // what the CLI does with --resume and no tree option given
    opt.bound = s.bound;
    opt.branch = s.branch;
    opt.initial_ub = s.ub_option;
    pfsp::check_resumable(s, inst, opt, path);
    pfsp::dfs_pool a(inst.n), b(inst.n);
    pfsp::restore_stacks(s, {&a, &b});
    if (a.size() + b.size() != s.open()) std::abort();
  } catch (const pfsp::input_error&) {
  }
  return 0;
}
