#include "report/gantt.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "base/error.hpp"

namespace pfsp {
namespace {

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  std::string s = buf;
  // Trailing zeros only lengthen the file (a 500x20 chart has 10000 bars).
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s == "-0" ? "0" : s;
}

std::string escape(const std::string& s) {
  std::string r;
  r.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&':
        r += "&amp;";
        break;
      case '<':
        r += "&lt;";
        break;
      case '>':
        r += "&gt;";
        break;
      case '"':
        r += "&quot;";
        break;
      case '\'':
        r += "&apos;";
        break;
      default:
        // Control characters are not allowed in XML 1.0.
        if (static_cast<unsigned char>(c) >= 0x20 || c == '\t' || c == '\n') r += c;
    }
  }
  return r;
}

// 1, 2 or 5 times a power of ten, at least `raw`.
int nice_step(double raw) {
  if (raw <= 1) return 1;
  const double p = std::pow(10.0, std::floor(std::log10(raw)));
  for (double f : {1.0, 2.0, 5.0, 10.0})
    if (f * p >= raw) return static_cast<int>(std::lround(f * p));
  return static_cast<int>(std::lround(10 * p));
}

std::string hsl_to_hex(double h, double s, double l) {
  // HSL -> RGB (CSS Color 4, section 7.1).
  auto f = [&](double n) {
    const double k = std::fmod(n + h / 30.0, 12.0);
    const double a = s * std::min(l, 1 - l);
    return l - a * std::max(-1.0, std::min({k - 3, 9 - k, 1.0}));
  };
  char buf[8];
  std::snprintf(buf, sizeof buf, "#%02x%02x%02x", static_cast<int>(std::lround(255 * f(0))),
                static_cast<int>(std::lround(255 * f(8))), static_cast<int>(std::lround(255 * f(4))));
  return buf;
}

// "M20", "J500": built by appending (g++ 12 warns, wrongly, with -Wrestrict on "M" + std::string).
std::string prefixed(char c, int v) {
  std::string s(1, c);
  s += std::to_string(v);
  return s;
}

double vertical_font(double fs) { return std::max(8.0, 0.8 * fs); }

const char* const font_family = "DejaVu Sans, Helvetica, Arial, sans-serif";

}  // namespace

std::vector<operation> schedule_operations(const instance& inst, std::span<const int> schedule) {
  const int n = inst.n, m = inst.m;
  if (static_cast<int>(schedule.size()) != n)
    throw input_error("schedule has " + std::to_string(schedule.size()) + " jobs, the instance " + std::to_string(n));
  std::vector<char> seen(n, 0);
  for (int j : schedule) {
    if (j < 0 || j >= n || seen[j])
      throw input_error("schedule is not a permutation of the jobs 1.." + std::to_string(n) + " (job " +
                        std::to_string(j + 1) + (j >= 0 && j < n ? " repeated)" : " out of range)"));
    seen[j] = 1;
  }
  std::vector<operation> ops(static_cast<std::size_t>(n) * m);
  for (int k = 0; k < m; ++k)
    for (int i = 0; i < n; ++i) {
      const int above = k > 0 ? ops[static_cast<std::size_t>(k - 1) * n + i].end : 0;
      const int left = i > 0 ? ops[static_cast<std::size_t>(k) * n + i - 1].end : 0;
      operation& o = ops[static_cast<std::size_t>(k) * n + i];
      o = {k, i, schedule[i], std::max(above, left), 0};
      o.end = o.start + inst.time(k, o.job);
    }
  return ops;
}

std::vector<operation> critical_path(const instance& inst, std::span<const int> schedule) {
  const std::vector<operation> ops = schedule_operations(inst, schedule);
  const int n = inst.n;
  std::vector<operation> path;
  int k = inst.m - 1, i = n - 1;
  while (true) {
    const operation& o = ops[static_cast<std::size_t>(k) * n + i];
    path.push_back(o);
    if (k == 0 && i == 0) break;
    // The predecessor whose completion is this operation's start (one of the two always is).
    if (i > 0 && ops[static_cast<std::size_t>(k) * n + i - 1].end == o.start)
      --i;
    else
      --k;
  }
  std::reverse(path.begin(), path.end());
  return path;
}

double estimated_text_width(const std::string& text, double font_size) {
  return 0.62 * font_size * static_cast<double>(text.size());
}

std::string job_colour(int job) {
  const double hue = std::fmod(job * 137.50776405, 360.0);
  // Two lightness levels and saturations alternate, so that hues close on the wheel still differ.
  const bool odd = job % 2 != 0;
  return hsl_to_hex(hue, odd ? 0.55 : 0.70, odd ? 0.72 : 0.62);
}

namespace {

// The canvas: fonts, sizes, the plot's place and scale, the title.
void size_canvas(gantt_layout& L, const instance& inst, const gantt_options& opt) {
  const int n = inst.n, m = inst.m;
  L.font_size = opt.font_size > 0 ? opt.font_size : 12;
  L.row_height = opt.row_height > 0 ? std::max(opt.row_height, 8) : std::max(30.0, 1.6 * L.font_size);
  L.width = opt.width > 0 ? opt.width : std::clamp(960.0 + 6.0 * (n - 40), 960.0, 3600.0);
  L.title = !opt.title.empty() ? opt.title
                               : inst.name + ": " + std::to_string(n) + " jobs x " + std::to_string(m) +
                                     " machines, makespan " + std::to_string(L.makespan);
  const double fs = L.font_size;
  L.plot_x = estimated_text_width(prefixed('M', m), fs) + 20;
  L.plot_y = 2.6 * fs + 24;  // title, then the makespan label above the plot
  L.plot_w = std::max(100.0, L.width - L.plot_x - 24);
  L.plot_h = m * L.row_height;
  L.scale = L.plot_w / std::max(1, L.makespan);
  // Below the plot: tick labels, axis name, legend (one line, or more with job swatches).
  double legend_h = 2 * fs;
  if (opt.job_legend && n <= 40) {
    const double swatch = estimated_text_width(prefixed('J', n), fs) + 26;
    const int per_line = std::max(1, static_cast<int>(L.plot_w / swatch));
    legend_h += (1.8 * fs) * ((n + per_line - 1) / per_line);
  }
  L.height = L.plot_y + L.plot_h + 3.4 * fs + 12 + legend_h;
}

// One operation's bar and, where it fits, its job label (horizontal, else rotated and smaller).
gantt_bar make_bar(const gantt_layout& L, const operation& o) {
  const double fs = L.font_size, pad = 2;
  gantt_bar b;
  b.op = o;
  b.x = L.plot_x + o.start * L.scale;
  b.w = (o.end - o.start) * L.scale;
  b.y = L.plot_y + o.machine * L.row_height + 3;
  b.h = L.row_height - 6;
  b.fill = job_colour(o.job);
  const std::string text = std::to_string(o.job + 1);
  const double tw = estimated_text_width(text, fs);
  if (tw + 2 * pad <= b.w && fs + 2 * pad <= b.h) {
    b.label = gantt_bar::label_kind::horizontal;
    b.lw = tw;
    b.lh = fs;
  } else if (const double vfs = vertical_font(fs), vtw = estimated_text_width(text, vfs);
             vfs + 2 <= b.w && vtw + 2 * pad <= b.h) {
    // Rotated, in a smaller font: the bars of long instances are narrow (500 jobs: 3 to 13 px).
    b.label = gantt_bar::label_kind::vertical;
    b.lw = vfs;
    b.lh = vtw;
  }
  if (b.label != gantt_bar::label_kind::none) {
    b.lx = b.x + (b.w - b.lw) / 2;
    b.ly = b.y + (b.h - b.lh) / 2;
  }
  return b;
}

}  // namespace

gantt_layout compute_gantt_layout(const instance& inst, std::span<const int> schedule, const gantt_options& opt) {
  gantt_layout L;
  const std::vector<operation> ops = schedule_operations(inst, schedule);
  L.makespan = ops.back().end;
  size_canvas(L, inst, opt);
  L.bars.reserve(ops.size());
  for (const operation& o : ops) L.bars.push_back(make_bar(L, o));
  if (opt.critical) {
    for (const operation& o : critical_path(inst, schedule)) {
      const int idx = o.machine * inst.n + o.position;
      L.bars[idx].critical = true;
      L.path.push_back(idx);
    }
  }
  // About one tick per 90 px.
  const int step = nice_step(L.makespan / std::max(1.0, L.plot_w / 90));
  for (int t = 0; t <= L.makespan; t += step) L.ticks.push_back({t, L.plot_x + t * L.scale});
  return L;
}

namespace {

// The parts of the SVG, in drawing order; `fs` is the layout's font size, `bottom` the plot's
// lower edge, `m` the machine rows.
int machine_rows(const gantt_layout& L) {
  return L.row_height > 0 ? static_cast<int>(std::lround(L.plot_h / L.row_height)) : 0;
}

void svg_header(std::ostream& s, const gantt_layout& L, double fs) {
  s << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << num(L.width) << "\" height=\"" << num(L.height)
    << "\" viewBox=\"0 0 " << num(L.width) << ' ' << num(L.height) << "\" font-family=\"" << font_family
    << "\" font-size=\"" << num(fs) << "\">\n";
  s << "<title>" << escape(L.title) << "</title>\n";
  s << "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n";
  s << "<text x=\"" << num(L.plot_x) << "\" y=\"" << num(fs + 8) << "\" font-size=\"" << num(fs * 1.25)
    << "\" font-weight=\"bold\">" << escape(L.title) << "</text>\n";
}

void svg_grid_and_rows(std::ostream& s, const gantt_layout& L, double fs, double bottom, int m) {
  // Grid, machine rows and labels.
  s << "<g stroke=\"#dddddd\" stroke-width=\"1\">\n";
  for (const gantt_tick& t : L.ticks)
    s << "<line x1=\"" << num(t.x) << "\" y1=\"" << num(L.plot_y) << "\" x2=\"" << num(t.x) << "\" y2=\"" << num(bottom)
      << "\"/>\n";
  s << "</g>\n<g fill=\"#f4f4f4\">\n";
  for (int k = 1; k < m; k += 2)
    s << "<rect x=\"" << num(L.plot_x) << "\" y=\"" << num(L.plot_y + k * L.row_height) << "\" width=\""
      << num(L.plot_w) << "\" height=\"" << num(L.row_height) << "\" opacity=\"0.6\"/>\n";
  s << "</g>\n<g text-anchor=\"end\" fill=\"#222222\">\n";
  for (int k = 0; k < m; ++k)
    s << "<text x=\"" << num(L.plot_x - 8) << "\" y=\"" << num(L.plot_y + (k + 0.5) * L.row_height + 0.35 * fs)
      << "\">M" << k + 1 << "</text>\n";
  s << "</g>\n";
}

void svg_bars(std::ostream& s, const gantt_layout& L, double fs) {
  // Bars: a tooltip each (job, machine, start, end); critical ones outlined in black.
  s << "<g stroke=\"#ffffff\" stroke-width=\"0.5\">\n";
  for (const gantt_bar& b : L.bars) {
    s << "<rect x=\"" << num(b.x) << "\" y=\"" << num(b.y) << "\" width=\"" << num(b.w) << "\" height=\"" << num(b.h)
      << "\" fill=\"" << b.fill << '"';
    if (b.critical) s << " stroke=\"#000000\" stroke-width=\"1.6\"";
    s << "><title>job " << b.op.job + 1 << " (position " << b.op.position + 1 << ") on M" << b.op.machine + 1 << ": "
      << b.op.start << " - " << b.op.end << (b.critical ? ", critical" : "") << "</title></rect>\n";
  }
  s << "</g>\n<g fill=\"#111111\" text-anchor=\"middle\">\n";
  for (const gantt_bar& b : L.bars) {
    if (b.label == gantt_bar::label_kind::none) continue;
    const double cx = b.lx + b.lw / 2, cy = b.ly + b.lh / 2;
    if (b.label == gantt_bar::label_kind::horizontal)
      s << "<text x=\"" << num(cx) << "\" y=\"" << num(cy + 0.35 * fs) << "\">" << b.op.job + 1 << "</text>\n";
    else
      s << "<text font-size=\"" << num(b.lw) << "\" transform=\"translate(" << num(cx + 0.35 * b.lw) << ' ' << num(cy)
        << ") rotate(-90)\">" << b.op.job + 1 << "</text>\n";
  }
  s << "</g>\n";
}

void svg_critical_path(std::ostream& s, const gantt_layout& L) {
  // The critical path: a staircase through its operations (each starts where the previous ends),
  // low in the bars so that it does not strike through their labels.
  if (!L.path.empty()) {
    s << "<polyline fill=\"none\" stroke=\"#d62728\" stroke-width=\"2\" stroke-linejoin=\"round\" opacity=\"0.9\" "
         "points=\"";
    for (int idx : L.path) {
      const gantt_bar& b = L.bars[idx];
      const double y = b.y + b.h - 3;
      s << num(b.x) << ',' << num(y) << ' ' << num(b.x + b.w) << ',' << num(y) << ' ';
    }
    s << "\"><title>critical path: " << L.path.size() << " operations</title></polyline>\n";
  }
}

void svg_makespan(std::ostream& s, const gantt_layout& L, double fs, double bottom) {
  // Makespan line and label.
  const double xc = L.plot_x + L.makespan * L.scale;
  s << "<line x1=\"" << num(xc) << "\" y1=\"" << num(L.plot_y - fs - 4) << "\" x2=\"" << num(xc) << "\" y2=\""
    << num(bottom + 4) << "\" stroke=\"#d62728\" stroke-width=\"1.5\" stroke-dasharray=\"5 3\"/>\n";
  s << "<text x=\"" << num(xc - 4) << "\" y=\"" << num(L.plot_y - 6) << "\" text-anchor=\"end\" fill=\"#d62728\" "
    << "font-weight=\"bold\">makespan " << L.makespan << "</text>\n";
}

void svg_time_axis(std::ostream& s, const gantt_layout& L, double fs, double bottom) {
  // Time axis.
  s << "<g stroke=\"#444444\">\n<line x1=\"" << num(L.plot_x) << "\" y1=\"" << num(bottom) << "\" x2=\""
    << num(L.plot_x + L.plot_w) << "\" y2=\"" << num(bottom) << "\"/>\n";
  for (const gantt_tick& t : L.ticks)
    s << "<line x1=\"" << num(t.x) << "\" y1=\"" << num(bottom) << "\" x2=\"" << num(t.x) << "\" y2=\""
      << num(bottom + 5) << "\"/>\n";
  s << "</g>\n<g text-anchor=\"middle\" fill=\"#222222\">\n";
  for (const gantt_tick& t : L.ticks) {
    // The last tick's label would collide with the makespan's right-aligned one only above the
    // plot; below it, labels are 90 px apart.
    s << "<text x=\"" << num(t.x) << "\" y=\"" << num(bottom + 6 + fs) << "\">" << t.time << "</text>\n";
  }
  s << "</g>\n<text x=\"" << num(L.plot_x + L.plot_w / 2) << "\" y=\"" << num(bottom + 2.4 * fs + 10)
    << "\" text-anchor=\"middle\" fill=\"#444444\">time</text>\n";
}

void svg_legend(std::ostream& s, const gantt_layout& L, const gantt_options& opt, double fs, double bottom, int m) {
  // Legend: critical path, makespan, then one swatch per job where they fit (n <= 40).
  double ly = bottom + 3.4 * fs + 12 + fs;
  double lx = L.plot_x;
  s << "<g fill=\"#222222\">\n";
  s << "<rect x=\"" << num(lx) << "\" y=\"" << num(ly - fs) << "\" width=\"" << num(2 * fs) << "\" height=\"" << num(fs)
    << "\" fill=\"#cccccc\" stroke=\"#000000\" stroke-width=\"1.6\"/>\n";
  s << "<line x1=\"" << num(lx) << "\" y1=\"" << num(ly - fs / 2) << "\" x2=\"" << num(lx + 2 * fs) << "\" y2=\""
    << num(ly - fs / 2) << "\" stroke=\"#d62728\" stroke-width=\"2\"/>\n";
  s << "<text x=\"" << num(lx + 2 * fs + 6) << "\" y=\"" << num(ly - 0.15 * fs)
    << "\">critical path (operations outlined; each starts when the one before ends)</text>\n";
  lx += 2 * fs + 6 +
        estimated_text_width("critical path (operations outlined; each starts when the one before ends)", fs * 0.9) +
        24;
  s << "<line x1=\"" << num(lx) << "\" y1=\"" << num(ly - fs / 2) << "\" x2=\"" << num(lx + 2 * fs) << "\" y2=\""
    << num(ly - fs / 2) << "\" stroke=\"#d62728\" stroke-width=\"1.5\" stroke-dasharray=\"5 3\"/>\n";
  s << "<text x=\"" << num(lx + 2 * fs + 6) << "\" y=\"" << num(ly - 0.15 * fs) << "\">makespan"
    << (L.bars.size() > 40 * static_cast<std::size_t>(std::max(1, m)) || !opt.job_legend
            ? " (job numbers inside bars where they fit; hover a bar for its job and times)"
            : "")
    << "</text>\n";
  const int n = m > 0 ? static_cast<int>(L.bars.size()) / m : 0;
  if (opt.job_legend && n > 0 && n <= 40) {
    std::vector<std::string> colour(n);
    for (const gantt_bar& b : L.bars) colour[b.op.job] = b.fill;
    const double swatch = estimated_text_width(prefixed('J', n), fs) + 26;
    const int per_line = std::max(1, static_cast<int>(L.plot_w / swatch));
    for (int j = 0; j < n; ++j) {
      const double x = L.plot_x + (j % per_line) * swatch;
      const double y = ly + 1.8 * fs * (1 + j / per_line);
      s << "<rect x=\"" << num(x) << "\" y=\"" << num(y - fs) << "\" width=\"" << num(fs) << "\" height=\"" << num(fs)
        << "\" fill=\"" << colour[j] << "\"/><text x=\"" << num(x + fs + 4) << "\" y=\"" << num(y - 0.15 * fs) << "\">J"
        << j + 1 << "</text>\n";
    }
  }
}

}  // namespace

std::string gantt_svg(const gantt_layout& L, const gantt_options& opt) {
  const double fs = L.font_size;
  const double bottom = L.plot_y + L.plot_h;
  const int m = machine_rows(L);
  std::ostringstream s;
  svg_header(s, L, fs);
  svg_grid_and_rows(s, L, fs, bottom, m);
  svg_bars(s, L, fs);
  svg_critical_path(s, L);
  svg_makespan(s, L, fs, bottom);
  svg_time_axis(s, L, fs, bottom);
  svg_legend(s, L, opt, fs, bottom, m);
  s << "</g>\n</svg>\n";
  return s.str();
}

std::string gantt_svg(const instance& inst, std::span<const int> schedule, const gantt_options& opt) {
  return gantt_svg(compute_gantt_layout(inst, schedule, opt), opt);
}

}  // namespace pfsp
