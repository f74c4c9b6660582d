// Host-side errors of the divergence library. Host code throws; kernels assert (hd.hpp).
#pragma once

#include <stdexcept>
#include <string>

namespace pfsp::divergence {

class error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace pfsp::divergence

#define PFSP_DIV_EXPECTS(cond, msg)                                                                  \
  do {                                                                                               \
    if (!(cond)) throw ::pfsp::divergence::error(std::string("divergence: check failed: ") + (msg)); \
  } while (0)
