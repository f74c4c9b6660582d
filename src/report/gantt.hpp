// Gantt charts of a permutation schedule as standalone SVG: machines as rows, jobs as coloured
// bars, the makespan and one critical path marked. Used by `pfsp solve --gantt`, `pfsp gantt`
// and (later) the Python binding; depends on the problem layer only.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "problem/instance.hpp"

namespace pfsp {

// One operation: job `job` (0-based) at position `position` of the schedule, on `machine`.
struct operation {
  int machine = 0;
  int position = 0;
  int job = 0;
  int start = 0;
  int end = 0;
};

// Start and completion times of every operation of a full schedule, machine-major:
// ops[k * n + i] is position i on machine k. C(k,i) = max(C(k-1,i), C(k,i-1)) + p(k, job_i).
// O(n m). Throws input_error unless `schedule` is a permutation of 0..n-1.
std::vector<operation> schedule_operations(const instance& inst, std::span<const int> schedule);

// One critical path of the schedule, from (machine 0, position 0) to (machine m-1, position n-1):
// each operation starts when its predecessor on the path ends, the predecessor being either the
// same job on the machine before or the job before on the same machine (the tight term of the
// recurrence). The processing times along it sum to the makespan. Backtracks from C(m-1,n-1),
// preferring the same machine on ties. O(n m) time, n + m - 1 operations.
std::vector<operation> critical_path(const instance& inst, std::span<const int> schedule);

struct gantt_options {
  std::string title;       // empty: "<instance name>: n jobs x m machines, makespan C"
  int width = 0;           // total width in px; 0 = auto (grows with n, 960 .. 3600)
  int row_height = 0;      // px per machine; 0 = auto (30, at least 16)
  double font_size = 12;   // px, labels and axes
  bool critical = true;    // mark the critical path
  bool job_legend = true;  // one swatch per job when n <= 40
};

// Where everything goes; computed separately from the SVG text so that tests can check it.
struct gantt_bar {
  operation op;
  bool critical = false;
  double x = 0, y = 0, w = 0, h = 0;  // the bar
  std::string fill;                   // "#rrggbb", the job's colour
  // The job number (1-based) inside the bar when it fits: horizontal, or rotated by -90 degrees
  // in a bar too narrow but tall enough. The label's box is (lx, ly, lw, lh), always inside the bar.
  enum class label_kind { none, horizontal, vertical } label = label_kind::none;
  double lx = 0, ly = 0, lw = 0, lh = 0;
};

struct gantt_tick {
  int time = 0;
  double x = 0;
};

struct gantt_layout {
  double width = 0, height = 0;
  double plot_x = 0, plot_y = 0, plot_w = 0, plot_h = 0;  // the area of the bars
  double scale = 0;                                       // px per time unit
  double row_height = 0;
  double font_size = 0;
  int makespan = 0;
  std::string title;
  std::vector<gantt_bar> bars;  // machine-major, like schedule_operations
  std::vector<int> path;        // indices into bars of the critical path, in path order
  std::vector<gantt_tick> ticks;
};

// Width of `text` in px at `font_size`, an upper estimate for digits in a sans-serif font
// (0.62 em per character) used to decide whether a label fits.
double estimated_text_width(const std::string& text, double font_size);

// The colour of job j: hues spaced by the golden angle, so neighbouring job numbers differ.
std::string job_colour(int job);

gantt_layout compute_gantt_layout(const instance& inst, std::span<const int> schedule, const gantt_options& opt);

// A standalone SVG document (xmlns, escaped text, a <title> tooltip on every bar).
std::string gantt_svg(const gantt_layout& layout, const gantt_options& opt);
std::string gantt_svg(const instance& inst, std::span<const int> schedule, const gantt_options& opt = {});

}  // namespace pfsp
