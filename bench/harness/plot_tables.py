#!/usr/bin/env python3
"""Our reproduction of Tables III, IV and V of Chakroun et al. 2013 (CCPE 25(8), "Reducing thread
divergence in a GPU-accelerated branch-and-bound algorithm"), drawn next to the paper's numbers.

  bench/harness/plot_tables.py SWEEP.jsonl --out DIR [--title-suffix TEXT]

SWEEP.jsonl holds one benchmark result per line (keys used: instance, n, m, kernel, sort, children,
speedup, device, commit). Rows are mapped to the paper's tables as
  Table III  = kernel plain,      sort none    (no reordering)
  Table IV   = kernel plain,      sort device  (thread-data reordering)
  Table V    = kernel refactored, sort device  (branch refactoring)
  branchless = kernel branchless, sort device  (ours only, drawn when present)
and `children` to the nominal pool size 2^round(log2(children)). Speedups of the instances of one
class (n x m) are averaged (arithmetic mean, as the paper's "average speedup").

Writes DIR/tables_iii_v.svg (one panel per table, one line per instance class) and
DIR/tables_iii_v_by_size.svg (one panel per instance class, one line per table); ours are solid,
the paper's dashed. Prints a markdown table of ours vs the paper to stdout.
Python 3 standard library only.
"""
import argparse
import json
import math
import os
import sys
from collections import defaultdict
from xml.sax.saxutils import escape

PAPER_POOLS = (4096, 8192, 16384, 32768, 65536, 131072, 262144)
# Chakroun, Mezmaz, Melab, Bendjoudi, CCPE 25(8):1121-1136, 2013 (HAL hal-00731859v1),
# Section 6.3 "Performance evaluation": Table III (6.3.1, unsorted pool), Table IV (6.3.2,
# "using a sorted pool"), Table V (6.3.3, "using thread divergence management"). Average speedup
# over one CPU core (Tesla C2050 vs one Xeon E5520 core) of each group of 10 Taillard instances,
# per pool size in PAPER_POOLS order.
PAPER = {
    "III": {"20x20": (38.74, 46.47, 45.37, 41.92, 39.55, 38.90, 38.40),
            "50x20": (42.57, 56.15, 55.69, 55.49, 55.39, 55.27, 55.14),
            "100x20": (42.59, 56.18, 57.53, 60.95, 65.52, 65.70, 65.97),
            "200x20": (42.83, 56.23, 57.68, 61.21, 66.75, 68.30, 71.69)},
    "IV": {"20x20": (39.92, 48.58, 47.53, 44.72, 41.14, 40.63, 40.59),
           "50x20": (43.58, 57.26, 56.81, 56.73, 56.54, 56.28, 55.93),
           "100x20": (43.93, 57.43, 58.11, 60.95, 62.47, 66.30, 66.66),
           "200x20": (44.04, 57.67, 60.13, 63.10, 68.94, 71.23, 74.20)},
    "V": {"20x20": (41.71, 50.28, 49.19, 45.90, 42.03, 41.80, 41.65),
          "50x20": (44.39, 58.30, 57.72, 57.68, 57.37, 57.01, 56.42),
          "100x20": (45.35, 58.49, 60.15, 62.75, 66.49, 66.64, 67.01),
          "200x20": (46.63, 60.88, 63.80, 67.51, 73.47, 75.94, 77.46)},
}
# (table key, kernel, sort, legend label, panel title)
VARIANTS = (("III", "plain", "none", "Table III", "Table III: plain kernel, unsorted"),
            ("IV", "plain", "device", "Table IV", "Table IV: plain kernel, sorted"),
            ("V", "refactored", "device", "Table V", "Table V: refactored, sorted"),
            ("branchless", "branchless", "device", "branchless, sorted", "branchless, sorted (ours only)"))
CLASS_COLORS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2")
VARIANT_COLORS = {"III": "#1f77b4", "IV": "#ff7f0e", "V": "#2ca02c", "branchless": "#9467bd"}
WIDTH, ROW_H, CHAR_W = 1000, 340, 6.6  # CHAR_W: rough width of a 12px sans-serif character


def warn(msg):
    print(f"plot_tables: warning: {msg}", file=sys.stderr)


def load(path):
    """Mean speedup per (table key, class, pool), the devices, commits and instances per class."""
    kind = {(kernel, sort): key for key, kernel, sort, _, _ in VARIANTS}
    samples, devices, commits, instances = defaultdict(list), set(), set(), defaultdict(set)
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                r = json.loads(line)
                cls = f"{int(r['n'])}x{int(r['m'])}"
                key = kind.get((r["kernel"], r["sort"]))
                children, speedup = int(r["children"]), float(r["speedup"])
                device, commit, instance = str(r["device"]), str(r["commit"]), str(r["instance"])
            except (ValueError, KeyError, TypeError) as e:
                warn(f"{path}:{lineno}: skipped ({type(e).__name__}: {e})")
                continue
            if children <= 0 or not speedup > 0 or math.isinf(speedup):
                warn(f"{path}:{lineno}: skipped (children={children}, speedup={speedup})")
                continue
            if r.get("check", "ok") != "ok":
                warn(f"{path}:{lineno}: skipped (GPU and CPU bounds disagreed: check={r.get('check')!r})")
                continue
            if r.get("tables", "int") != "int" or r.get("strategy", "plain") != "plain":
                continue  # compact tables or a divergence strategy: not the papers' kernel
            if key is None:
                continue  # a kernel/sort pair none of the tables uses (e.g. refactored unsorted)
            samples[(key, cls, 2 ** round(math.log2(children)))].append(speedup)
            devices.add(device)
            commits.add(commit)
            instances[cls].add(instance)
    means = {k: sum(v) / len(v) for k, v in samples.items()}
    return means, sorted(devices), sorted(commits), instances


def class_order(cls):
    n, m = cls.split("x")
    return int(n), int(m)


def series(means, key, cls, color):
    """Ours (solid) and the paper's (dashed) [(pool, speedup)] lines of one table and class."""
    ours = sorted((p, s) for (k, c, p), s in means.items() if k == key and c == cls)
    paper = list(zip(PAPER_POOLS, PAPER[key][cls])) if cls in PAPER.get(key, {}) else []
    return [(color, dashed, pts) for dashed, pts in ((False, ours), (True, paper)) if pts]


def text(x, y, s, size=11, anchor="middle", extra=""):
    return (f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}"{extra}>'
            f"{escape(s)}</text>")


def polyline(pts, color, dashed, markers=None):
    """A line through pts (solid or dashed) with markers at pts (or at the given markers)."""
    style = 'stroke-dasharray="6 4" stroke-width="1.6"' if dashed else 'stroke-width="2.2"'
    coords = " ".join(f"{x:.1f},{y:.1f}" for x, y in pts)
    out = [f'<polyline points="{coords}" fill="none" stroke="{color}" {style}/>'] if len(pts) > 1 else []
    fill, r = ("white", 3.2) if dashed else (color, 3.6)
    out += [f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{r}" fill="{fill}" stroke="{color}" stroke-width="1.5"/>'
            for x, y in (pts if markers is None else markers)]
    return out


def panel(x0, y0, w, h, title, series, xr, yr):
    """SVG elements of one log-log panel; series = [(color, dashed, [(pool, speedup)])]."""
    px0, px1, py0, py1 = x0 + 62, x0 + w - 26, y0 + 30, y0 + h - 48
    X = lambda p: px0 + (math.log2(p) - xr[0]) / (xr[1] - xr[0]) * (px1 - px0)
    Y = lambda s: py1 - (math.log10(s) - yr[0]) / (yr[1] - yr[0]) * (py1 - py0)
    out = [text((px0 + px1) / 2, y0 + 18, title, 13, extra=' font-weight="bold"')]
    for d in range(yr[0], yr[1] + 1):
        for k in range(2, 10) if d < yr[1] else ():
            y = Y(k * 10.0 ** d)
            out.append(f'<line x1="{px0}" y1="{y:.1f}" x2="{px1}" y2="{y:.1f}" stroke="#eeeeee"/>')
        y = Y(10.0 ** d)
        out.append(f'<line x1="{px0}" y1="{y:.1f}" x2="{px1}" y2="{y:.1f}" stroke="#c8c8c8"/>')
        out.append(text(px0 - 6, y + 4, f"{10.0 ** d:g}", 11, "end"))
    step = 1 if (px1 - px0) / max(xr[1] - xr[0], 1) >= 52 else 2
    for e in range(xr[0], xr[1] + 1):
        x = X(2 ** e)
        out.append(f'<line x1="{x:.1f}" y1="{py0}" x2="{x:.1f}" y2="{py1}" stroke="#dddddd"/>')
        if (e - xr[0]) % step == 0:
            out.append(text(x, py1 + 16, str(2 ** e), 10))
    out.append(f'<rect x="{px0}" y="{py0}" width="{px1 - px0}" height="{py1 - py0}" '
               'fill="none" stroke="#555555"/>')
    out.append(text((px0 + px1) / 2, py1 + 36, "pool size (subproblems, log2 scale)", 11))
    cy = (py0 + py1) / 2
    out.append(text(x0 + 16, cy, "speedup over one CPU core", 11,
                    extra=f' transform="rotate(-90 {x0 + 16} {cy:.1f})"'))
    for color, dashed, pts in sorted(series, key=lambda s: not s[1]):  # the paper's below ours
        out += polyline([(X(p), Y(s)) for p, s in pts], color, dashed)
    return out


def legend(entries, y):
    """Legend rows centred at y (wrapped to WIDTH); entries = [(label, color, dashed)]."""
    rows, row, width = [], [], 0
    for label, color, dashed in entries:
        w = 34 + len(label) * CHAR_W + 22
        if row and width + w > WIDTH - 40:
            rows.append((row, width))
            row, width = [], 0
        row.append((label, color, dashed, w))
        width += w
    rows.append((row, width))
    out = []
    for i, (row, width) in enumerate(rows):
        x, ly = (WIDTH - width) / 2, y + 20 * i
        for label, color, dashed, w in row:
            out += polyline([(x, ly - 4), (x + 28, ly - 4)], color, dashed, [(x + 14, ly - 4)])
            out.append(text(x + 34, ly, label, 12, "start"))
            x += w
    return out, 20 * len(rows)


def figure(path, title, subtitle, entries, panels, xr, yr):
    """Write one SVG: title, subtitle, legend, then panels = [(title, series)] in a grid."""
    ncols = len(panels) if len(panels) <= 3 else (2 if len(panels) == 4 else 3)
    nrows = -(-len(panels) // ncols)
    leg, leg_h = legend(entries, 76)
    top = 66 + leg_h
    height = top + nrows * ROW_H + 10
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" '
           f'viewBox="0 0 {WIDTH} {height}" font-family="sans-serif">',
           f'<rect width="{WIDTH}" height="{height}" fill="white"/>',
           text(WIDTH / 2, 26, title, 16, extra=' font-weight="bold"'),
           text(WIDTH / 2, 48, subtitle, 12)] + leg
    cw = WIDTH / ncols
    for i, (ptitle, series) in enumerate(panels):
        out += panel((i % ncols) * cw, top + (i // ncols) * ROW_H, cw, ROW_H, ptitle, series, xr, yr)
    out.append("</svg>")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(out) + "\n")


def ranges(panels):
    """Shared axis ranges: log2 pool exponents and log10 speedup decades covering all series."""
    pts = [pt for _, series in panels for _, _, ps in series for pt in ps]
    ex = [math.log2(p) for p, _ in pts]
    ey = [math.log10(s) for _, s in pts]
    xr = (math.floor(min(ex)), math.ceil(max(ex)))
    yr = (math.floor(min(ey)), math.ceil(max(ey)))
    return (xr if xr[1] > xr[0] else (xr[0] - 1, xr[0] + 1)), (yr if yr[1] > yr[0] else (yr[0], yr[0] + 1))


def markdown(means, keys, classes):
    """Markdown table: class x pool, ours / paper / ratio per table (ours only where no paper)."""
    head = ["class", "pool"]
    for k in keys:
        head += [f"{k} ours", f"{k} paper", f"{k} ours/paper"] if k in PAPER else [f"{k} ours"]
    fmt = lambda v: "-" if v is None else f"{v:.2f}"
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for cls in classes:
        for pool in sorted({p for (k, c, p) in means if c == cls}):
            cells = [cls, str(pool)]
            for k in keys:
                ours = means.get((k, cls, pool))
                row = PAPER.get(k, {}).get(cls)
                paper = row[PAPER_POOLS.index(pool)] if row and pool in PAPER_POOLS else None
                ratio = ours / paper if ours is not None and paper is not None else None
                cells += [fmt(ours), fmt(paper), fmt(ratio)] if k in PAPER else [fmt(ours)]
            lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("sweep", help="JSON-lines file written by the benchmark sweep")
    ap.add_argument("--out", required=True, help="directory for the SVG files")
    ap.add_argument("--title-suffix", default="", help="text appended to the figure titles")
    args = ap.parse_args()
    if not os.path.isfile(args.sweep):
        sys.exit(f"plot_tables: error: input file {args.sweep!r} not found (or not a file)")
    means, devices, commits, instances = load(args.sweep)
    if not means:
        sys.exit(f"plot_tables: error: no usable rows in {args.sweep!r} "
                 "(need n, m, kernel, sort, children, speedup, device, commit, instance)")
    keys = [key for key, *_ in VARIANTS if key in PAPER or any(k == key for k, _, _ in means)]
    titles = {key: t for key, _, _, _, t in VARIANTS}
    labels = {key: lab for key, _, _, lab, _ in VARIANTS}
    classes = sorted({c for _, c, _ in means} | {c for k in keys for c in PAPER.get(k, {})}, key=class_order)
    suffix = f" {args.title_suffix}" if args.title_suffix else ""
    ours = f"{', '.join(devices)}, commit {', '.join(commits)}"
    title = f"GPU bounding speedup over one CPU core: {ours}{suffix}"
    subtitle = ("solid: ours (mean over the instances of a class); "
                "dashed: Chakroun et al. 2013, Tables III-V (Tesla C2050)")
    os.makedirs(args.out, exist_ok=True)

    ccolor = {c: CLASS_COLORS[i % len(CLASS_COLORS)] for i, c in enumerate(classes)}
    by_table = [(titles[k], [ln for c in classes for ln in series(means, k, c, ccolor[c])]) for k in keys]
    by_size = [(f"{c} ({len(instances[c])} instance{'s' * (len(instances[c]) != 1)})" if instances[c]
                else f"{c} (paper only)",
                [ln for k in keys for ln in series(means, k, c, VARIANT_COLORS[k])]) for c in classes]
    style = [("ours", "#444444", False), ("paper", "#444444", True)]
    xr, yr = ranges(by_table)
    figure(os.path.join(args.out, "tables_iii_v.svg"), title, subtitle,
           [(c, ccolor[c], False) for c in classes] + style, by_table, xr, yr)
    figure(os.path.join(args.out, "tables_iii_v_by_size.svg"), title, subtitle,
           [(labels[k], VARIANT_COLORS[k], False) for k in keys] + style,
           by_size, xr, yr)

    print(f"Speedup over one CPU core, ours ({ours}) vs "
          "Chakroun et al. 2013 Tables III-V; instances: "
          + "; ".join(f"{c}: {' '.join(sorted(instances[c]))}" for c in classes if instances[c]) + "\n")
    print(markdown(means, keys, classes))


if __name__ == "__main__":
    main()
