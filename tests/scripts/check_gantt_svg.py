#!/usr/bin/env python3
"""Parses the SVG that `pfsp solve --gantt` writes with a real XML parser (xml.etree): ta001 solved,
and a 500x20 instance from its start heuristic. Usage: check_gantt_svg.py PFSP_BINARY"""
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

SVG = "{http://www.w3.org/2000/svg}"


def check(pfsp, spec, extra, n, m):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "g.svg")
        r = subprocess.run([pfsp, "solve", spec, "-q", "--gantt", path] + extra, capture_output=True, text=True)
        assert r.returncode in (0, 4), f"{spec}: exit {r.returncode}: {r.stderr}"
        root = ET.parse(path).getroot()
        assert root.tag == SVG + "svg", root.tag
        bars = [e for e in root.iter(SVG + "rect") if e.find(SVG + "title") is not None]
        assert len(bars) == n * m, f"{spec}: {len(bars)} bars, expected {n * m}"
        critical = [b for b in bars if b.get("stroke") == "#000000"]
        assert len(critical) == n + m - 1, f"{spec}: {len(critical)} critical bars, expected {n + m - 1}"
        assert root.find(f".//{SVG}polyline") is not None, "no critical path line"
        texts = "".join(t.text or "" for t in root.iter(SVG + "text"))
        assert "makespan" in texts
        print(f"{spec}: {len(bars)} bars, {len(critical)} on the critical path: ok")


def main():
    pfsp = sys.argv[1]
    check(pfsp, "ta001", [], 20, 5)
    check(pfsp, "random:500,20,1", ["--node-limit", "1", "--heuristic", "neh"], 500, 20)


if __name__ == "__main__":
    main()
