// CPU-GPU pipelining and efficiency control (Zhang et al. Sections 4.1, 5.6) against a fake
// device. The fake models time in chunks: a remap that costs k chunk-times, scheduled while chunk
// i is about to run, completes when chunk i + k - 1 finishes. Its worker blocks on a gate that
// finish() opens, and finish() waits until the pipeline can see the results of the gates it
// opened (on_remap_done), so every run is deterministic.
#include <gtest/gtest.h>

#include <condition_variable>
#include <map>
#include <mutex>
#include <set>

#include "divergence/pipeline.hpp"

namespace pfsp::divergence {
namespace {

struct prepared_chunk {
  std::size_t chunk;
};

class fake_device : public chunk_executor<prepared_chunk> {
 public:
  std::function<std::size_t(std::size_t)> remap_cost = [](std::size_t) { return std::size_t{1}; };
  double plain_seconds = 1.0;
  double remapped_seconds = 0.5;
  bool predict_gain = true;  // false: the remapper says "nothing worth moving"

  void on_remap_scheduled(std::size_t chunk) override {
    std::lock_guard lock(m_);
    due_[chunk] = launched_ + remap_cost(chunk) - 1;
  }
  void launch(std::size_t chunk, const prepared_chunk* p) override {
    std::lock_guard lock(m_);
    current_ = chunk;
    ++launched_;
    if (p) {
      EXPECT_EQ(p->chunk, chunk);
    }
    remapped_ = p != nullptr;
    launches.push_back({chunk, remapped_});
  }
  void on_remap_done(std::size_t chunk) override {
    std::lock_guard lock(m_);
    done_.insert(chunk);
    cv_.notify_all();
  }
  double finish() override {
    std::unique_lock lock(m_);
    std::vector<std::size_t> opened_now;
    for (const auto& [c, due] : due_)
      if (due <= current_ && !opened_.count(c)) opened_now.push_back(c);
    for (auto c : opened_now) opened_.insert(c);
    cv_.notify_all();
    cv_.wait(lock, [&] {
      for (auto c : opened_now)
        if (!done_.count(c)) return false;
      return true;
    });
    return remapped_ ? remapped_seconds : plain_seconds;
  }
  std::optional<prepared_chunk> remap(std::size_t chunk, std::stop_token stop) {
    std::unique_lock lock(m_);
    cv_.wait(lock, stop, [&] { return opened_.count(chunk) > 0; });
    const bool in_time = opened_.count(chunk) > 0;
    if (!in_time || !predict_gain) return std::nullopt;
    return prepared_chunk{chunk};
  }
  remapper<prepared_chunk> as_remapper() {
    return [this](std::size_t c, std::stop_token st) { return remap(c, st); };
  }

  std::vector<std::pair<std::size_t, bool>> launches;

 private:
  std::mutex m_;
  std::condition_variable_any cv_;
  std::map<std::size_t, std::size_t> due_;
  std::set<std::size_t> opened_, done_;
  std::size_t launched_ = 0, current_ = 0;
  bool remapped_ = false;
};

pipeline_options options() {
  pipeline_options o;
  o.workers = 8;
  o.max_depth = 4;
  return o;
}

TEST(pipeline, hides_fast_remaps_at_depth_one) {
  fake_device dev;
  const auto rep = run_pipeline<prepared_chunk>(20, dev, dev.as_remapper(), options());
  EXPECT_EQ(rep.final_depth, 1u);
  EXPECT_EQ(rep.late, 0u);
  EXPECT_EQ(rep.remapped, 19u);  // chunk 0 is the warm-up
  EXPECT_FALSE(rep.chunks[0].remapped);
  EXPECT_EQ(rep.final_state, remap_state::on);
  EXPECT_DOUBLE_EQ(rep.device_seconds, 1.0 + 19 * 0.5);
}

TEST(pipeline, depth_grows_until_slow_remaps_are_in_time) {
  fake_device dev;
  dev.remap_cost = [](std::size_t) { return std::size_t{3}; };  // r = 3 chunk-times per remap
  const auto rep = run_pipeline<prepared_chunk>(40, dev, dev.as_remapper(), options());
  EXPECT_EQ(rep.final_depth, 3u);
  EXPECT_GE(rep.late, 2u);
  EXPECT_LE(rep.late, 8u);
  for (std::size_t c = 30; c < 40; ++c) EXPECT_TRUE(rep.chunks[c].remapped) << "chunk " << c;
  for (const auto& r : rep.chunks) EXPECT_FALSE(r.late && r.remapped);
  EXPECT_EQ(rep.final_state, remap_state::on);
}

TEST(pipeline, depth_stops_at_its_limit) {
  fake_device dev;
  dev.remap_cost = [](std::size_t) { return std::size_t{10}; };
  auto opt = options();
  opt.max_depth = 3;
  opt.efficiency.enabled = false;
  const auto rep = run_pipeline<prepared_chunk>(30, dev, dev.as_remapper(), opt);
  EXPECT_EQ(rep.final_depth, 3u);
  EXPECT_EQ(rep.remapped, 0u);
}

TEST(efficiency_control, switches_off_when_remaps_stay_late_at_the_largest_depth) {
  fake_device dev;
  dev.remap_cost = [](std::size_t) { return std::size_t{10}; };
  auto opt = options();
  opt.max_depth = 3;
  const auto rep = run_pipeline<prepared_chunk>(30, dev, dev.as_remapper(), opt);
  EXPECT_EQ(rep.final_state, remap_state::off);
  EXPECT_EQ(rep.remapped, 0u);
  EXPECT_LE(rep.scheduled, 15u);  // stops scheduling CPU work once off
  EXPECT_DOUBLE_EQ(rep.device_seconds, 30.0);
}

TEST(efficiency_control, switches_off_when_remapped_chunks_are_not_faster) {
  fake_device dev;
  dev.remapped_seconds = 1.0;  // remapping removes no time (or costs as much as it saves)
  const auto rep = run_pipeline<prepared_chunk>(30, dev, dev.as_remapper(), options());
  EXPECT_EQ(rep.final_state, remap_state::off);
  EXPECT_EQ(rep.remapped, 3u);  // remapped_probes
  for (std::size_t c = 5; c < 30; ++c) EXPECT_FALSE(rep.chunks[c].remapped) << "chunk " << c;
  EXPECT_LE(rep.scheduled, 5u);  // no remap work once off
}

TEST(efficiency_control, switches_off_when_plans_predict_no_gain) {
  // BlackScholes: the remapper computes the condition values and finds nothing worth moving.
  fake_device dev;
  dev.predict_gain = false;
  const auto rep = run_pipeline<prepared_chunk>(30, dev, dev.as_remapper(), options());
  EXPECT_EQ(rep.final_state, remap_state::off);
  EXPECT_EQ(rep.skipped, 3u);  // max_skipped
  EXPECT_EQ(rep.remapped, 0u);
  EXPECT_LE(rep.scheduled, 5u);
  EXPECT_DOUBLE_EQ(rep.device_seconds, 30.0);  // every chunk ran plain: no cost
}

TEST(efficiency_control, disabled_keeps_remapping_even_when_slower) {
  fake_device dev;
  dev.remapped_seconds = 1.5;
  auto opt = options();
  opt.efficiency.enabled = false;
  const auto rep = run_pipeline<prepared_chunk>(20, dev, dev.as_remapper(), opt);
  EXPECT_EQ(rep.remapped, 19u);
  EXPECT_DOUBLE_EQ(rep.device_seconds, 1.0 + 19 * 1.5);
}

TEST(pipeline, waiting_for_late_remaps_remaps_every_chunk) {
  // The fake's clock only advances in finish(), so a slow remap is released by the pipeline's
  // own wait: give it cost 1 and check the synchronous mode never runs a scheduled chunk plain.
  fake_device dev;
  auto opt = options();
  opt.wait_for_late = true;
  opt.efficiency.enabled = false;
  const auto rep = run_pipeline<prepared_chunk>(12, dev, dev.as_remapper(), opt);
  EXPECT_EQ(rep.remapped, 11u);
  EXPECT_EQ(rep.late, 0u);
}

TEST(pipeline, plain_mode_schedules_nothing) {
  fake_device dev;
  auto opt = options();
  opt.remap = false;
  const auto rep = run_pipeline<prepared_chunk>(10, dev, dev.as_remapper(), opt);
  EXPECT_EQ(rep.scheduled, 0u);
  EXPECT_EQ(rep.remapped, 0u);
  EXPECT_EQ(dev.launches.size(), 10u);
}

TEST(pipeline, remapper_exceptions_do_not_escape_workers) {
  fake_device dev;
  remapper<prepared_chunk> bad = [&dev](std::size_t c, std::stop_token st) -> std::optional<prepared_chunk> {
    (void)dev.remap(c, st);  // in time, as far as the fake's clock goes
    throw std::runtime_error("remap failed");
  };
  // A failing remap surfaces at the chunk that wanted it, on the calling thread.
  auto opt = options();
  EXPECT_THROW(run_pipeline<prepared_chunk>(5, dev, bad, opt), std::runtime_error);
}

TEST(efficiency_control, decides_from_means) {
  efficiency_policy p;
  p.remapped_probes = 2;
  p.min_gain = 0.1;
  efficiency_control on(p);
  on.record(false, 1.0);
  EXPECT_EQ(on.state(), remap_state::probing);
  on.record(true, 0.8);
  EXPECT_EQ(on.state(), remap_state::probing);
  on.record(true, 0.8);
  EXPECT_EQ(on.state(), remap_state::on);
  efficiency_control off(p);
  off.record(false, 1.0);
  off.record(true, 0.95);
  off.record(true, 0.95);  // 5% faster, below the 10% asked
  EXPECT_EQ(off.state(), remap_state::off);
  EXPECT_FALSE(off.remapping_wanted());
}

}  // namespace
}  // namespace pfsp::divergence
