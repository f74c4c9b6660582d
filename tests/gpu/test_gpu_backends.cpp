// The backend suite (backend_suite.hpp) over every GPU entry of the solver registry (label gpu):
// skipped where no CUDA device is present.
#include "backend_suite.hpp"
#include "gpu/bounder.hpp"

namespace pfsp::test {

bool solver_can_run_here(const solver_entry& s) { return !s.caps.needs_gpu || gpu::device_count() > 0; }

INSTANTIATE_TEST_SUITE_P(gpu, backend,
                         testing::ValuesIn(registered_solvers([](const solver_entry& s) { return s.caps.needs_gpu; })),
                         solver_param_name);

}  // namespace pfsp::test
