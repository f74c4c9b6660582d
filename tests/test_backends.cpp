// The backend suite (backend_suite.hpp) over every CPU entry of the solver registry (label cpu);
// the GPU entries run in tests/gpu/test_gpu_backends.cpp (label gpu).
#include "backend_suite.hpp"

namespace pfsp::test {

bool solver_can_run_here(const solver_entry& s) { return !s.caps.needs_gpu; }

TEST(solver_registry, entries_are_named_once_and_the_backends_are_registered) {
  std::vector<std::string> names;
  for (const solver_entry& s : solver_registry()) {
    names.push_back(s.name);
    EXPECT_NE(s.run, nullptr) << s.name;
    EXPECT_FALSE(s.caps.bounds.empty()) << s.name;
    EXPECT_FALSE(s.caps.selections.empty()) << s.name;
    EXPECT_EQ(s.caps.needs_gpu, s.loop != gpu_loop::none) << s.name;
  }
  std::vector<std::string> sorted = names;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(std::unique(sorted.begin(), sorted.end()), sorted.end());
  ASSERT_NE(solver_for_backend("cpu", gpu_loop::none), nullptr);
  EXPECT_EQ(solver_for_backend("cpu", gpu_loop::device)->name, "cpu");
  EXPECT_EQ(solver_for_backend("cpu-mt", gpu_loop::host)->name, "cpu-mt");
  EXPECT_EQ(find_solver("no-such-solver"), nullptr);
#if defined(PFSP_HAVE_GPU)
  EXPECT_EQ(solver_for_backend("gpu", gpu_loop::host)->name, "gpu-host");
  EXPECT_EQ(solver_for_backend("gpu", gpu_loop::device)->name, "gpu-device");
#else
  EXPECT_EQ(solver_for_backend("gpu", gpu_loop::device), nullptr);
#endif
}

INSTANTIATE_TEST_SUITE_P(cpu, backend,
                         testing::ValuesIn(registered_solvers([](const solver_entry& s) { return !s.caps.needs_gpu; })),
                         solver_param_name);

}  // namespace pfsp::test
