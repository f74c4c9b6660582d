#!/usr/bin/env python3
"""The layering of docs/architecture.md, checked on the include graph.

Every `#include "layer/..."` in src/<layer>/ and divergence/ must name the layer itself or one
the table below allows (no upward or sideways edge); no `friend` declaration in src/ (the
back door issue 12 removed); below gpu/ no CUDA header is included (plain C++20 that g++ builds
alone), except base's two .cuh files, which only CUDA code includes.

  python3 scripts/check_layers.py [REPO_ROOT]   exit 0: the graph is the layering; 1: it lists
                                                 each offending line
"""
import os
import re
import sys

# What each layer may include, besides itself (docs/architecture.md's diagram).
ALLOWED = {
    "base": set(),
    "problem": {"base"},
    "bound": {"base", "problem"},
    "search": {"base", "problem", "bound"},
    "report": {"base", "problem"},
    "heuristic": {"base", "problem", "search"},
    "cpu": {"base", "problem", "bound", "search"},
    "gpu": {"base", "problem", "bound", "search", "divergence"},
    "app": {"base", "problem", "bound", "search", "report", "heuristic", "cpu", "gpu"},
    "mpi": {"base", "problem", "bound", "search", "heuristic", "cpu", "gpu", "app"},
    "divergence": {"base"},
}
PLAIN_CXX = {"base", "problem", "bound", "search", "report", "heuristic", "cpu"}
SOURCE = re.compile(r"\.(hpp|cpp|cuh|cu|h)$")
INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^">]+)[">]')
FRIEND = re.compile(r"^\s*friend\s")
CUDA_HEADER = re.compile(r"^(cuda|cub/|thrust/|cuda_runtime|cooperative_groups)|\.cuh$")


def files_of(root):
    for dirpath, _, names in os.walk(root):
        for n in sorted(names):
            if SOURCE.search(n):
                yield os.path.join(dirpath, n)


def check(repo):
    problems = []
    layers = []
    src = os.path.join(repo, "src")
    for layer in sorted(os.listdir(src)):
        if os.path.isdir(os.path.join(src, layer)):
            layers.append((layer, os.path.join(src, layer)))
    layers.append(("divergence", os.path.join(repo, "divergence")))
    for layer, root in layers:
        if layer not in ALLOWED:
            problems.append(f"{os.path.relpath(root, repo)}: a layer the table does not know")
            continue
        for path in files_of(root):
            cuda_file = path.endswith((".cu", ".cuh"))
            with open(path, encoding="utf-8") as f:
                for lineno, line in enumerate(f, 1):
                    where = f"{os.path.relpath(path, repo)}:{lineno}"
                    if layer != "divergence" and FRIEND.match(line):
                        problems.append(f"{where}: a friend declaration (a back door between classes)")
                    m = INCLUDE.match(line)
                    if not m:
                        continue
                    target = m.group(1)
                    top = target.split("/", 1)[0] if "/" in target else None
                    if top in ALLOWED and top != layer and top not in ALLOWED[layer]:
                        problems.append(f"{where}: {layer} includes {target} ({top} is not below {layer})")
                    if layer in PLAIN_CXX and not cuda_file and CUDA_HEADER.search(target):
                        problems.append(f"{where}: plain C++ layer {layer} includes the CUDA header {target}")
    return problems


def main():
    repo = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    problems = check(repo)
    for p in problems:
        print(p)
    print(f"check_layers: {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
