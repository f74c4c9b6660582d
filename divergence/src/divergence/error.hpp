// Host-side checks of the divergence library. The error type is the base layer's pfsp::error
// (host code throws; kernels assert with PFSP_HD_ASSERT); the prefix names the library in the
// message, which pfsp's CLI and the bench driver print as is.
#pragma once

#include <string>

#include "base/error.hpp"

#define PFSP_DIV_EXPECTS(cond, msg)                                                      \
  do {                                                                                   \
    if (!(cond)) throw ::pfsp::error(std::string("divergence: check failed: ") + (msg)); \
  } while (0)
