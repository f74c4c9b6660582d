// pfsp entry point: installs the Ctrl-C handler and runs the CLI.
#include <atomic>
#include <csignal>
#include <iostream>

#include "app/cli.hpp"
#include "app/visible_devices.hpp"
#include "base/process_clock.hpp"

namespace {
std::atomic<bool> g_interrupt{false};
const auto g_started = pfsp::process_start();  // the clock of before_clock_seconds, at static initialisation

extern "C" void on_sigint(int) {
  g_interrupt.store(true);
  std::signal(SIGINT, SIG_DFL);  // a second Ctrl-C kills at once
}
}  // namespace

int main(int argc, char** argv) {
  std::signal(SIGINT, on_sigint);
  std::signal(SIGTERM, on_sigint);
  pfsp::allow_narrowing_visible_devices();  // before its first CUDA call, this process only
  return pfsp::run_cli(argc, argv, std::cout, std::cerr, &g_interrupt);
}
