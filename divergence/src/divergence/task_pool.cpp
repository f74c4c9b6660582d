#include "divergence/task_pool.hpp"

#include "divergence/task_pool_sim.hpp"

namespace pfsp::divergence {

const char* to_string(pool_kind p) {
  switch (p) {
    case pool_kind::global:
      return "global";
    case pool_kind::local:
      return "local";
    case pool_kind::hybrid:
      return "hybrid";
    case pool_kind::persistent:
      return "persistent";
  }
  return "?";
}

const char* to_string(fetch_control c) {
  switch (c) {
    case fetch_control::any:
      return "any";
    case fetch_control::all:
      return "all";
    case fetch_control::ballot:
      return "ballot";
    case fetch_control::atomic:
      return "atomic";
  }
  return "?";
}

void check_params(const task_pool_params& p) {
  PFSP_DIV_EXPECTS(p.idle_threshold >= 1 && p.idle_threshold <= 32, "idle threshold must be in 1..32");
  PFSP_DIV_EXPECTS(p.check_interval >= 1, "check interval must be at least 1");
  PFSP_DIV_EXPECTS(p.pool != pool_kind::local || p.chunk >= 1, "Local needs a chunk of at least one task");
  PFSP_DIV_EXPECTS(p.pool != pool_kind::global || p.chunk >= 1, "Global needs a chunk of at least one task");
}

}  // namespace pfsp::divergence
