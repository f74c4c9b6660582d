// The options schema of `pfsp solve`: every search option with its default (solve_args' initial
// values), its range or set of names (from the enums' tables, base/enum_names.hpp) and its help
// text, registered into CLI11 by one function. `pfsp solve` (cli.cpp) calls it.
#pragma once

#include <string>

#include "app/solve_api.hpp"

namespace CLI {
class App;
}

namespace pfsp {

// Registers INSTANCE and every `pfsp solve` option into `app`, bound to `a`'s fields; `a`'s
// values when called are the defaults shown. CUDA builds add the GPU backend's options
// (gpu_cli.hpp).
void register_solve_options(CLI::App& app, solve_args& a);

// After app.parse(): sets a's *_given flags (the options given on the command line, which
// solve_instance tells from defaults: with --resume, those not given come from the checkpoint).
void note_given_options(const CLI::App& app, solve_args& a);

}  // namespace pfsp
