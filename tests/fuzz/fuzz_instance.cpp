// libFuzzer target: instance files (Taillard and job-row formats, src/problem/io.hpp) from bytes.
// Any outcome but an instance or an input_error is a finding: another exception, a crash, a
// sanitizer report, a hang. An accepted instance must be within the limits (instance.hpp).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>

#include "base/error.hpp"
#include "problem/io.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  try {
    const pfsp::instance inst = pfsp::parse_instance(in, "fuzz.txt");
    pfsp::validate(inst, "fuzz.txt");
  } catch (const pfsp::input_error&) {
  }
  return 0;
}
