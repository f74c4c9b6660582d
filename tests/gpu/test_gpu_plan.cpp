// The GPU plan (src/gpu/plan.hpp): which loop runs, the --devices list, and the refusals that
// make_plan decides before any device is touched. Needs no device (label cpu); the checks that
// ask the driver for its devices are in test_gpu_resident.
#include <gtest/gtest.h>

#include <string>

#include "base/error.hpp"
#include "gpu/plan.hpp"

namespace pfsp::test {
namespace {

using gpu::loop_choice;
using gpu::loop_kind;

// The message of the input_error that f throws ("" when it throws none).
template <class F>
std::string refusal(F f) {
  try {
    f();
  } catch (const input_error& e) {
    return e.what();
  }
  return "";
}

TEST(GpuPlan, AutoRunsTheDeviceLoopUnlessAHostLoopOptionIsGiven) {
  gpu::gpu_policy p;
  EXPECT_EQ(gpu::choose_loop(loop_choice::automatic, false, p), loop_kind::device);
  EXPECT_EQ(gpu::choose_loop(loop_choice::automatic, true, p), loop_kind::host);
  EXPECT_EQ(gpu::choose_loop(loop_choice::host, false, p), loop_kind::host);
  EXPECT_EQ(gpu::choose_loop(loop_choice::device, true, p), loop_kind::device);
  p.sort = gpu::pool_sort::host;
  EXPECT_EQ(gpu::choose_loop(loop_choice::automatic, false, p), loop_kind::host);
  p.sort = gpu::pool_sort::device;
  for (const gpu::gpu_strategy s : {gpu::gpu_strategy::persistent, gpu::gpu_strategy::context_switch,
                                    gpu::gpu_strategy::split, gpu::gpu_strategy::remap}) {
    p.strategy.kind = s;
    EXPECT_EQ(gpu::choose_loop(loop_choice::automatic, false, p), loop_kind::host) << to_string(s);
  }
}

TEST(GpuPlan, StrategyPredicates) {
  EXPECT_TRUE(gpu::is_plain(gpu::gpu_strategy::plain));
  EXPECT_FALSE(gpu::is_plain(gpu::gpu_strategy::remap));
  EXPECT_TRUE(gpu::uses_plain_kernel(gpu::gpu_strategy::plain));
  EXPECT_TRUE(gpu::uses_plain_kernel(gpu::gpu_strategy::remap));
  EXPECT_FALSE(gpu::uses_plain_kernel(gpu::gpu_strategy::split));
}

// --devices is parsed when the command line is (app/gpu_cli.cpp); its ordinals are checked
// against the machine's devices by make_plan.
TEST(GpuPlan, ParsesDeviceLists) {
  EXPECT_EQ(gpu::parse_devices("0,1,1").ordinals, (std::vector<int>{0, 1, 1}));
  EXPECT_TRUE(gpu::parse_devices("all").all);
  EXPECT_FALSE(gpu::device_selection{}.given());
  EXPECT_FALSE(gpu::parse_devices("").given());  // as before: --devices "" is --device's
  EXPECT_EQ(gpu::to_string(gpu::parse_devices("0,1,1")), "0,1,1");
  EXPECT_EQ(gpu::to_string(gpu::parse_devices("all")), "all");
  EXPECT_EQ(gpu::resolve_devices(gpu::parse_devices("0,1,1"), 2), (std::vector<int>{0, 1, 1}));
  EXPECT_EQ(gpu::resolve_devices(gpu::parse_devices("all"), 3), (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(refusal([] { gpu::parse_devices("0,x"); }),
            "--devices 0,x: expected device ordinals separated by commas (e.g. 0,1) or 'all', found 'x'");
  EXPECT_NE(refusal([] { gpu::parse_devices("0,"); }).find("found ''"), std::string::npos);
  EXPECT_NE(refusal([] { gpu::parse_devices("-1"); }).find("found '-1'"), std::string::npos);
  EXPECT_EQ(refusal([] { gpu::resolve_devices(gpu::parse_devices("0,2"), 2); }),
            "--devices 0,2: there is no CUDA device 2 (this machine has 2)");
}

TEST(GpuPlan, RefusesWhatNoLoopCanRun) {
  const int n = 20;
  solve_options opt;
  gpu::plan_request host;
  host.loop = loop_choice::host;
  gpu::gpu_policy p;
  p.compact_times = gpu::compact_mode::on;
  p.strategy.kind = gpu::gpu_strategy::split;
  EXPECT_EQ(refusal([&] { gpu::make_plan(p, host, opt, n); }),
            "--gpu-strategy split is not available with --compact-times (plain and remap are)");
  p = gpu::gpu_policy{};
  p.pool_size = 39;
  EXPECT_EQ(refusal([&] { gpu::make_plan(p, host, opt, n); }),
            "--pool-size must hold at least one parent's children (2 n = 40)");
  p.pool_size = 40;
  EXPECT_EQ(refusal([&] { gpu::make_plan(p, host, opt, n); }), "");
  EXPECT_EQ(gpu::make_plan(p, host, opt, n).loop, loop_kind::host);
}

TEST(GpuPlan, CheckpointsNeedTheDeviceLoop) {
  solve_options opt;
  opt.on_checkpoint = [](const search_state&) {};
  gpu::gpu_policy p;
  gpu::plan_request r;
  r.loop = loop_choice::host;
  EXPECT_EQ(refusal([&] { gpu::make_plan(p, r, opt, 20); }),
            "--checkpoint and --resume need the device loop (--gpu-loop device); the host loop cannot save its "
            "state");
  r.loop = loop_choice::automatic;
  r.host_loop_options = true;
  EXPECT_EQ(refusal([&] { gpu::make_plan(p, r, opt, 20); }),
            "--checkpoint and --resume need the device loop (--gpu-loop device); the host loop, chosen by a "
            "host-loop option, cannot save its state");
}

TEST(GpuPlan, GpuMemoryCapsTheDeviceLoopOnly) {
  solve_options opt;
  gpu::gpu_policy p;
  p.memory_cap = std::size_t{512} << 20;
  gpu::plan_request r;
  r.loop = loop_choice::host;
  EXPECT_EQ(refusal([&] { gpu::make_plan(p, r, opt, 20); }),
            "--gpu-memory caps the device loop's memory: the host loop (--gpu-loop host) does not take it");
  r.loop = loop_choice::automatic;
  r.host_loop_options = true;
  EXPECT_EQ(refusal([&] { gpu::make_plan(p, r, opt, 20); }),
            "--gpu-memory caps the device loop's memory: the host loop (--gpu-loop host, chosen by a host-loop "
            "option) does not take it");
}

TEST(GpuPlan, TheDeviceLoopSearchesDepthFirst) {
  solve_options opt;
  gpu::gpu_policy p;
  p.select = gpu::pool_selection::best_first;
  gpu::plan_request r;
  r.loop = loop_choice::device;
  EXPECT_EQ(refusal([&] { gpu::make_plan(p, r, opt, 20); }),
            "--gpu-loop device searches depth-first: --gpu-selection best-first needs --gpu-loop host");
  p.select = gpu::pool_selection::hybrid;
  p.strategy.kind = gpu::gpu_strategy::split;
  EXPECT_EQ(refusal([&] { gpu::check_device_loop(p, 20); }),
            "--gpu-loop device runs the plain bounding kernel: drop --gpu-strategy split (it needs --gpu-loop host)");
  p.strategy.kind = gpu::gpu_strategy::plain;
  p.sort = gpu::pool_sort::host;
  EXPECT_EQ(refusal([&] { gpu::check_device_loop(p, 20); }),
            "--gpu-loop device sorts on the device or not at all: --sort device or none");
}

TEST(GpuPlan, DefaultTuningIsTheMeasuredOne) {
  const gpu::gpu_policy p;
  EXPECT_EQ(gpu::loop_tuning::block, 128u);
  EXPECT_EQ(p.loop.default_pool, std::size_t{1} << 22);
  EXPECT_EQ(p.loop.pool_for(20, 20), std::size_t{1} << 24);  // option V: 16 M at 20x20 and 50x20
  EXPECT_EQ(p.loop.pool_for(50, 20), std::size_t{1} << 24);
  EXPECT_EQ(p.loop.pool_for(50, 10), std::size_t{1} << 22);
  EXPECT_EQ(p.loop.pool_for(100, 20), std::size_t{1} << 22);
  EXPECT_EQ(p.loop.pool_for(200, 10), std::size_t{1} << 22);
  EXPECT_EQ(p.loop.tune_batches, 3);
  EXPECT_EQ(p.loop.batch_grow_s, 0.002);
  EXPECT_EQ(p.loop.batch_shrink_s, 0.010);
  EXPECT_EQ(p.loop.max_batch, 1024);
  EXPECT_EQ(p.loop.stack_memory_share, 0.5);
  EXPECT_EQ(p.loop.host_spill_share, 0.25);
  EXPECT_EQ(p.loop.iteration_max_s, 0.1);
  EXPECT_EQ(p.loop.batch_room_bytes, std::size_t{512} << 20);
  EXPECT_EQ(p.loop.max_stack_nodes, 0u);
  EXPECT_EQ(p.memory_cap, 0u);
  EXPECT_EQ(p.host.pools[0], gpu::kMinPoolSize);
  EXPECT_EQ(p.host.pools[3], gpu::kMaxPoolSize);
}

}  // namespace
}  // namespace pfsp::test
