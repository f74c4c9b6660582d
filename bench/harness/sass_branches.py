#!/usr/bin/env python3
"""Which conditionals of the bounding kernels the compiler turned into branches, and which it
predicated (issue 3: "show which ones the compiler already predicates").

Input: an `nvdisasm -c -g` listing (SASS with `//## File "...", line N [inlined at ...]` line
information; pfsp_gpu is built with -lineinfo) of the cubins of src/gpu/kernels_*.cu. For each
selected kernel it counts

  BRA          all branch instructions
  cond BRA     branches guarded by a per-thread predicate (@P0 BRA): the only ones that can diverge
  uniform BRA  branches on a uniform predicate (@UP0 BRA, BRA.U): warp-uniform, cannot diverge
  loop edges   conditional branches that jump backwards (the loops' back edges)
  BSSY         convergence barriers the compiler opened: regions it could not predicate and
               reconverges explicitly (one per potentially divergent if/loop exit)
  SEL/MNMX     selects and min/max (IMNMX, VIMNMX, FMNMX, fused VIADDMNMX): conditionals the
               compiler turned into data flow
  pred insts   other instructions under a per-thread predicate (if-conversion)
  MUFU         special-function unit instructions (the refactored variant's __cosf/__expf)
  LDL / STL    local-memory loads and stores (per-thread arrays: the scheduled set's flags/words,
               front/back/remain)

and lists every per-thread conditional forward branch with its innermost source line (and the
line text, read from the repository), so each `if` of the source can be read off as "branch" or
"predicated / select".

  bench/harness/sass_branches.py LISTING [--root REPO] [--match REGEX] [--json OUT.json] [--all]

By default the children kernels of the int tables in shared memory for n <= 64 are reported
(3 bound kinds x 3 variants). Python 3 standard library only; demangles with c++filt when found.
"""
import argparse
import collections
import json
import os
import re
import shutil
import subprocess
import sys

FUNC_LABEL = re.compile(r"^\s*\.text\.(\S+?):\s*$")
FUNC_RULE = re.compile(r"^\s*//-+\s+\.text\.(\S+)\s+-+\s*$")
LOCAL_LABEL = re.compile(r"^\s*(\.L\w+):\s*$")
LINE_INFO = re.compile(r'^\s*//##\s+File\s+"([^"]+)",\s+line\s+(\d+)(.*)$')
INLINED_AT = re.compile(r'inlined at\s+"([^"]+)",\s+line\s+(\d+)')
INSTRUCTION = re.compile(r"^\s*/\*([0-9a-fA-F]+)\*/\s+(@!?U?P[T0-9]+\s+)?([A-Z][A-Z0-9_.]*)\s*(.*?)\s*;")
TARGET_HEX = re.compile(r"(?:^|[\s,])(0x[0-9a-fA-F]+)\s*$")
TARGET_LABEL = re.compile(r"`?\(?(\.L\w+)\)?")


class Instruction:
    __slots__ = ("addr", "pred", "op", "args", "loc", "chain")

    def __init__(self, addr, pred, op, args, loc, chain):
        self.addr, self.pred, self.op, self.args, self.loc, self.chain = addr, pred, op, args, loc, chain


def parse(text):
    """Returns {mangled name: (instructions, {label: address})}."""
    funcs = {}
    name = None
    loc, chain = None, ()
    pending_labels = []
    in_block = False  # consecutive //## lines: the first is the innermost frame
    for line in text.splitlines():
        m = FUNC_RULE.match(line) or FUNC_LABEL.match(line)
        if m:
            name = m.group(1)
            if name not in funcs:
                funcs[name] = ([], {})
            loc, chain, pending_labels, in_block = None, (), [], False
            continue
        if name is None:
            continue
        m = LINE_INFO.match(line)
        if m:
            if m.group(1).startswith(".nv_debug"):
                continue
            if not in_block:
                loc = (m.group(1), int(m.group(2)))
                chain = tuple((f, int(n)) for f, n in INLINED_AT.findall(m.group(3)))
                in_block = True
            continue
        m = LOCAL_LABEL.match(line)
        if m:
            pending_labels.append(m.group(1))
            continue
        m = INSTRUCTION.match(line)
        if m:
            in_block = False
            insts, labels = funcs[name]
            addr = int(m.group(1), 16)
            for lab in pending_labels:
                labels[lab] = addr
            pending_labels = []
            pred = (m.group(2) or "").strip()
            insts.append(Instruction(addr, pred, m.group(3), m.group(4), loc, chain))
    return funcs


def branch_target(inst, labels):
    m = TARGET_HEX.search(inst.args)
    if m:
        return int(m.group(1), 16)
    m = TARGET_LABEL.search(inst.args)
    if m and m.group(1) in labels:
        return labels[m.group(1)]
    return None


def demangle(names):
    tool = shutil.which("c++filt") or shutil.which("cu++filt")
    if not tool or not names:
        return {n: n for n in names}
    out = subprocess.run([tool], input="\n".join(names), capture_output=True, text=True).stdout.splitlines()
    return dict(zip(names, out)) if len(out) == len(names) else {n: n for n in names}


def short_path(path, root):
    i = path.rfind("/src/")
    rel = path[i + 1:] if i >= 0 else os.path.basename(path)
    return rel, os.path.join(root, rel)


_source_cache = {}


def source_line(path, line):
    if path not in _source_cache:
        try:
            with open(path, encoding="utf-8") as f:
                _source_cache[path] = f.read().splitlines()
        except OSError:
            _source_cache[path] = []
    lines = _source_cache[path]
    return lines[line - 1].strip() if 0 < line <= len(lines) else ""


def analyse(insts, labels, root):
    c = collections.Counter()
    branches = []
    for i in insts:
        op = i.op
        base = op.split(".")[0]
        c["insts"] += 1
        per_thread_pred = bool(re.match(r"@!?P[0-6]$", i.pred))
        uniform_pred = bool(re.match(r"@!?UP[0-6]$", i.pred)) or (op == "BRA.U" and re.match(r"!?UP", i.args))
        if base == "BRA":
            c["bra"] += 1
            if op == "BRA.DIV":
                c["bra_div"] += 1
                continue
            if uniform_pred:
                c["bra_uniform"] += 1
                continue
            if per_thread_pred:
                target = branch_target(i, labels)
                if target is not None and target <= i.addr:
                    c["loop_edges"] += 1
                    kind = "loop edge"
                else:
                    c["cond_forward"] += 1
                    kind = "forward"
                c["bra_cond"] += 1
                where, full = short_path(i.loc[0], root) if i.loc else ("?", "")
                line = i.loc[1] if i.loc else 0
                branches.append({"addr": i.addr, "kind": kind, "pred": i.pred, "file": where, "line": line,
                                 "source": source_line(full, line) if full else "",
                                 "inlined_at": [f"{short_path(f, root)[0]}:{n}" for f, n in i.chain]})
            continue
        if base in ("BSSY", "BSYNC", "WARPSYNC", "MUFU", "SEL", "FSEL", "ISETP", "FSETP", "PLOP3", "EXIT", "LDL", "STL"):
            c[base.lower()] += 1
        if "MNMX" in base:  # IMNMX, VIMNMX, FMNMX and the fused add-then-min/max VIADDMNMX
            c["mnmx"] += 1
        if op.startswith("MUFU."):
            c[op.lower()] += 1
        if per_thread_pred and base not in ("EXIT", "BSYNC"):
            c["pred_insts"] += 1
    return c, branches


def select(names, demangled, pattern, everything):
    chosen = []
    for n in names:
        d = demangled[n]
        if everything:
            chosen.append(n)
        elif pattern:
            if re.search(pattern, d) or re.search(pattern, n):
                chosen.append(n)
        elif ("bound_children_kernel<" in d and ", true, " in d and "size_class<64," in d and d.rstrip(")").endswith("false>(pfsp::gpu::tables_view, pfsp::gpu::pool_view")):
            chosen.append(n)
    return chosen


def label(d):
    """bound_children_kernel<V, Shared, Kind, size_class<N, J>, Compact> -> 'lb2 plain n<=64 shared int'."""
    kinds = {"0": "lb1", "1": "lb2", "2": "lb1-lb2"}
    head = d.split("<", 1)[0].replace("pfsp::gpu::", "").replace("void ", "")
    m = re.search(r"<pfsp::gpu::(\w+)_variant, (true|false), \(pfsp::bound_kind\)(\d), "
                  r"pfsp::gpu::size_class<(\d+), [^>]*>, (true|false)>", d)
    if not m:
        return d[:70]
    variant, shared, kind, max_n, compact = m.groups()
    return (f"{head} {kinds.get(kind, kind)} {variant} n<={max_n} {'shared' if shared == 'true' else 'global'} "
            f"{'compact' if compact == 'true' else 'int'}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("listing")
    ap.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    ap.add_argument("--match", default="", help="regex over the demangled names (default: children kernels)")
    ap.add_argument("--all", action="store_true", help="every function in the listing")
    ap.add_argument("--json", default="")
    ap.add_argument("--branches", action="store_true", help="list each conditional forward branch")
    ap.add_argument("--ops", default="", metavar="FILE:FROM-TO",
                    help="per kernel, the opcodes each source line of FILE (e.g. src/gpu/bound_kernels.cuh) in "
                         "[FROM, TO] compiled to (innermost frame)")
    a = ap.parse_args()

    with open(a.listing, encoding="utf-8", errors="replace") as f:
        funcs = parse(f.read())
    if not funcs:
        sys.exit(f"{a.listing}: no functions found (expected `nvdisasm -c -g` output)")
    names = sorted(funcs)
    demangled = demangle(names)
    chosen = select(names, demangled, a.match, a.all)
    if not chosen:
        sys.exit(f"{a.listing}: {len(funcs)} functions, none selected")
    chosen.sort(key=lambda n: label(demangled[n]))

    cols = [("insts", "insts"), ("bra", "BRA"), ("bra_cond", "cond BRA"), ("cond_forward", "fwd"),
            ("loop_edges", "loop"), ("bra_uniform", "uniform"), ("bssy", "BSSY"), ("sel", "SEL"),
            ("mnmx", "MNMX"), ("isetp", "ISETP"), ("pred_insts", "pred"), ("mufu", "MUFU"), ("ldl", "LDL"), ("stl", "STL")]
    print("| kernel | " + " | ".join(h for _, h in cols) + " |")
    print("|---|" + "---:|" * len(cols))
    report = []
    for n in chosen:
        insts, labels = funcs[n]
        c, branches = analyse(insts, labels, a.root)
        print(f"| {label(demangled[n])} | " + " | ".join(str(c.get(k, 0)) for k, _ in cols) + " |")
        report.append({"kernel": demangled[n], "label": label(demangled[n]), "counts": dict(c), "branches": branches})

    if a.branches:
        for r in report:
            print(f"\n### {r['label']}: per-thread conditional branches by source line")
            by_line = collections.OrderedDict()
            for b in r["branches"]:
                key = (b["file"], b["line"], b["kind"])
                by_line.setdefault(key, [b, 0])[1] += 1
            for (file, line, kind), (b, count) in sorted(by_line.items()):
                via = f" (inlined at {b['inlined_at'][0]})" if b["inlined_at"] else ""
                print(f"- {file}:{line} {kind} x{count}{via}: `{b['source'][:90]}`")
    if a.ops:
        m = re.match(r"^(.+):(\d+)-(\d+)$", a.ops)
        if not m:
            sys.exit(f"--ops: expected FILE:FROM-TO, got {a.ops!r}")
        file, lo, hi = m.group(1), int(m.group(2)), int(m.group(3))
        for n in chosen:
            insts, _ = funcs[n]
            per_line = collections.OrderedDict()
            for i in insts:
                if not i.loc or not (lo <= i.loc[1] <= hi) or short_path(i.loc[0], a.root)[0] != file:
                    continue
                per_line.setdefault(i.loc[1], collections.Counter())[(i.pred + " " if i.pred else "") + i.op] += 1
            print(f"\n### {label(demangled[n])}: opcodes per line of {file}:{lo}-{hi}")
            for line in sorted(per_line):
                ops = ", ".join(f"{op} x{k}" if k > 1 else op for op, k in per_line[line].most_common(10))
                print(f"- {line} `{source_line(os.path.join(a.root, file), line)[:70]}`: {ops}")
    if a.json:
        with open(a.json, "w", encoding="utf-8") as f:
            json.dump(report, f, indent=1)


if __name__ == "__main__":
    main()
