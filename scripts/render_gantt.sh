#!/usr/bin/env bash
# Renders Gantt charts in a real browser (headless Chromium) to check them by eye: ta001 solved to
# optimality and a 500x20 instance (ta111) from its start heuristic only (--node-limit 1).
# Usage: scripts/render_gantt.sh [PFSP_BINARY] [OUT_DIR]   (defaults: build/cpu/pfsp, build/gantt)
# Needs chromium or chromium-headless-shell (Debian 12: apt-get install chromium-headless-shell).
# Writes OUT_DIR/gantt_ta001.{json,svg,png} and OUT_DIR/gantt_ta111.{json,svg,png}.
set -euo pipefail
pfsp=${1:-build/cpu/pfsp}
out=${2:-build/gantt}
mkdir -p "$out"
browser=""
for b in chromium-headless-shell chromium chromium-browser google-chrome; do
  if command -v "$b" >/dev/null; then browser=$b; break; fi
done
[ -n "$browser" ] || { echo "render_gantt.sh: no chromium found (apt-get install chromium-headless-shell)" >&2; exit 2; }

# The SVG's own size, for the window (the screenshot is the whole chart, nothing cut).
svg_size() { sed -n 's/.*<svg [^>]*width="\([0-9.]*\)" height="\([0-9.]*\)".*/\1 \2/p' "$1" | head -1; }

render() {  # name, solve arguments...
  local name=$1; shift
  "$pfsp" solve "$@" --no-progress --json "$out/gantt_$name.json" >/dev/null || [ $? -eq 4 ]
  "$pfsp" gantt "$out/gantt_$name.json" -o "$out/gantt_$name.svg" >/dev/null
  read -r w h < <(svg_size "$out/gantt_$name.svg")
  w=${w%.*}; h=${h%.*}
  # An HTML page holding the SVG as an <img>: the browser renders it as any page would show it.
  printf '<!doctype html><html><body style="margin:0;background:#fff"><img src="gantt_%s.svg"></body></html>\n' \
    "$name" >"$out/gantt_$name.html"
  "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size="$((w + 1)),$((h + 1))" \
    --screenshot="$(realpath "$out")/gantt_$name.png" "file://$(realpath "$out")/gantt_$name.html" >/dev/null 2>&1
  [ -s "$out/gantt_$name.png" ] || { echo "render_gantt.sh: no screenshot for $name" >&2; exit 1; }
  echo "$out/gantt_$name.png (${w}x${h})"
}

render ta001 ta001
render ta111 ta111 --node-limit 1 --heuristic neh
