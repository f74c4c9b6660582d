#!/usr/bin/env python3
"""Writes docs/results.md, the index of every measurement, and docs/tables/TOPIC.md, the tables
of each topic, from the files under bench/results/.

    bench/results_page.py            regenerate docs/results.md and docs/tables/*.md
    bench/results_page.py --check    exit 1 if regenerating would change one of them, or if a
                                     relative markdown link in docs/, README.md, bench/README.md
                                     or a src/ README points at a missing file or anchor

docs/results.md lists every table on one line (its title, folder, commit and device, linked to
the table in its topic's page) under an anchor of the table's title, so that a link to
results.md#TITLE made when the tables were all on that page still lands on the table's line.

Python standard library only. Every file under bench/results/ (and the generated tables of
docs/results/ and docs/plots/) lands in exactly one section, chosen by TOPIC_RULES; a file no rule
claims goes to "Other measurements", so nothing is dropped silently. Per file:
- JSON of the benchmark programs (pfsp_bench_bounds, pfsp_bench_solve) through bench/summarize.py's
  sections; pfsp_bench_checkpoint's JSON as the program's own table;
- scale.json (bench/scale_table.py --out) as scale_table.py's two tables;
- hard-slice rows (bench/hard_table.py --out) as hard_table.py's columns;
- other JSON: a table of its scalar fields;
- markdown: verbatim (a file under bench/results/legacy/ holds tables moved out of the design
  pages, one "## " section each, routed by its `<!-- topic: NAME -->` line);
- text (.txt): verbatim in a code block.
A JSON file whose .md or .txt twin (same stem) holds the same table is shown once, from the twin.
Each table is preceded by its provenance: commit, device, command and the date-device folder,
as far as the source states them.
"""
import argparse
import glob
import gzip
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import summarize  # noqa: E402  (bench/summarize.py: the tables of the CPU benchmark programs)
import engine_table  # noqa: E402  (bench/engine_table.py: the incumbent engine's tables)

OUT = os.path.join(ROOT, "docs", "results.md")
TABLES = os.path.join(ROOT, "docs", "tables")  # one page a topic: TABLES/TOPIC.md

TOPICS = [
    ("bounds", "Bounds per second (CPU, one thread)"),
    ("cpu-solve", "Solves and proofs on the CPU"),
    ("gpu-kernels", "GPU bounding kernels: the papers' experiments, divergence, SASS"),
    ("gpu-solve", "Solves and proofs on the GPU"),
    ("hard", "Hard instances: fixed-time slices, profiles, estimates"),
    ("engine", "The incumbent engine and big instances"),
    ("wide", "Wide shops (VRF) and the race against PBB"),
    ("checkpoints", "Checkpoints"),
    ("scaling", "Several GPUs and MPI"),
    ("other", "Other measurements"),
]

# (regular expression on the path relative to the repository root, topic); first match wins.
TOPIC_RULES = [
    (r"wide-shops|vrf", "wide"),
    (r"-ascent|hard-10min|-dives/|-open", "hard"),
    (r"engine|big_|sweep|beam-at", "engine"),
    (r"checkpoint", "checkpoints"),
    (r"/scale|mpi_|-mpi/", "scaling"),
    (r"bounds", "bounds"),
    (r"2026-11-21-|issue12/", "cpu-solve"),
    (r"hard_|estimate_|ncu_loop|_progress", "hard"),
    (r"sass_|docs/plots/", "gpu-kernels"),
    (r"prove_.*cpu", "cpu-solve"),
    (r"prove_|device_run_summary", "gpu-solve"),
    (r"python_gpu", "gpu-solve"),
]


def rel(p):
    return os.path.relpath(p, ROOT)


def link(p):
    """A link from docs/results.md to a repository file."""
    return f"[`{rel(p)}`]({os.path.relpath(p, TABLES)})"  # from a topic's page


def folder_of(p):
    parts = rel(p).split(os.sep)
    return parts[2] if parts[:2] == ["bench", "results"] and len(parts) > 3 else os.path.dirname(rel(p))


def folder_device(folder):
    """The device a date-device folder's name gives, for sources that do not state theirs."""
    m = re.match(r"\d{4}-\d\d-\d\d-(h100|h200)(?:x(\d+))?(?:-[a-z0-9-]+)?$", folder)
    if m:
        n = f"{m.group(2)} x " if m.group(2) else ""
        return f"{n}NVIDIA {m.group(1).upper()} (from the folder's name)"
    m = re.match(r"\d{4}-\d\d-\d\d-(\d+)core", folder)
    if m:
        return f"{m.group(1)}-core host, no GPU (from the folder's name)"
    return None


def topic_of(p):
    r = rel(p)
    for pat, t in TOPIC_RULES:
        if re.search(pat, r):
            return t
    return "other"


def provenance(p, commit=None, device=None, command=None, date=None, extra=None):
    bits = [f"source {link(p)}", f"folder `{folder_of(p)}`"]
    bits.append(f"commit {commit}" if commit else "commit not stated in the source")
    if not device:
        device = folder_device(folder_of(p))
    bits.append(f"device: {device}" if device else "device not stated in the source")
    if date:
        bits.append(f"date {date}")
    line = "*" + "; ".join(bits) + ".*"
    if command:
        line += f"\n\n<!-- command: {command} -->\n*Command:* `{command}`" if len(command) < 400 else \
            f"\n\n*Command* (first 400 characters): `{command[:400]} ...`"
    if extra:
        line += f"\n\n*Note in the source:* {extra}"
    return line


def slug(text):
    s = re.sub(r"[^\w\- ]", "", text.strip().lower())
    return s.replace(" ", "-")


def stem(p):
    return os.path.splitext(p.removesuffix(".gz"))[0]


def ext_of(p):
    """The extension of a source, a compressed one's inner one (bounds.json.gz: .json)."""
    return os.path.splitext(p.removesuffix(".gz"))[1]


def open_source(p):
    """A source as text; the large ones are kept gzip-compressed (NAME.json.gz)."""
    return gzip.open(p, "rt") if p.endswith(".gz") else open(p)


# --- renderers: each returns a list of (title, provenance, body) ------------------------------

def machine_text(m):
    dev = f"{m.get('cpu')} ({m.get('hardware_threads')} hardware threads), gpu {m.get('gpu', 'none')}, " \
          f"host {m.get('hostname')}, {m.get('compiler')}"
    return dev


def render_bench_group(paths):
    """pfsp_bench_solve / pfsp_bench_bounds JSON of one folder, through summarize.py."""
    out = []
    d = os.path.dirname(paths[0])
    solve, bounds, machines = summarize.load([d])
    actual = {os.path.basename(p).removesuffix(".gz"): p for p in paths}  # name as summarize gives it
    files = set(actual)
    solve = [r for r in solve if r["_file"] in files]
    meta = {}
    for p in paths:
        j = json.load(open_source(p))
        meta[os.path.basename(p).removesuffix(".gz")] = j["machine"]

    def prov(names, what):
        ms = [meta[n] for n in names if n in meta]
        commits = sorted({m["commit"] for m in ms})
        devs = sorted({machine_text(m) for m in ms})
        cmds = [m["command"] for m in ms]
        first = actual.get(sorted(names)[0], os.path.join(d, sorted(names)[0]))
        line = provenance(first, ", ".join(commits), "; ".join(devs), None, None)
        if len(names) > 1:
            line = line.replace(f"source {link(first)}", f"sources {len(names)} files `{rel(d)}/{what}`")
        loads = [m["load_at_start"][0] for m in ms] + [m.get("load_at_end", m.get("load_after", [0]))[0] for m in ms]
        line += f" Load average (1 min) {min(loads):.1f}-{max(loads):.1f}."
        if len(set(cmds)) <= 3:
            line += "\n\n" + "\n".join(f"*Command:* `{c}`" for c in sorted(set(cmds)))
        else:
            line += f"\n\n*Command (first of {len(cmds)}):* `{sorted(cmds)[0]}`"
        return line

    for j in bounds:
        name = next(n for n in files if meta.get(n) is j["machine"] or meta.get(n) == j["machine"])
        # On a machine of 2 hardware threads the runs shared their cores: per second of thread CPU time.
        clock = "cpu" if j["machine"].get("hardware_threads", 99) <= 2 else "wall"
        txt = summarize.section_bounds([j], clock=clock)
        txt = "\n".join(l for l in txt.splitlines() if not l.startswith("<!--"))
        per = "per CPU second" if clock == "cpu" else "wall clock"
        out.append((f"pfsp_bench_bounds, `{rel(d)}`: ns per bound, {per} (root and split nodes)",
                    prov([name], name) + "\n\nPrefix-only and suffix-only nodes: the `.md` beside the JSON.",
                    txt))
    if not solve:
        return out
    secs = [("headline", "ta030 and ta021", summarize.section_headline, lambda r: True),
            ("grid", "bound x branching grid", summarize.section_grid,
             lambda r: r["_file"].startswith("grid_") or r["_file"] == "solve_grid.json"),
            ("table", "ta001-ta030", summarize.section_table,
             lambda r: r["_file"].startswith("table_") or r["_file"] == "solve_table.json"),
            ("branching", "branching rules from NEH", summarize.section_branching,
             lambda r: r["_file"].startswith("branching_") and r["initial_ub_mode"] == "neh")]
    used = set()
    for key, title, fn, sel in secs:
        txt = fn(solve)
        if not txt or len(txt.splitlines()) <= 2:
            continue
        names = sorted({r["_file"] for r in solve if sel(r)})
        if key == "headline":
            names = sorted({r["_file"] for r in solve if r["instance"] in ("ta021", "ta030") and
                            (r["_file"].startswith("solve_ta0") or r["_file"].startswith("branching_"))})
        used.update(names)
        pattern = names[0] if len(names) == 1 else (os.path.commonprefix(names) + "*.json")
        out.append((f"pfsp_bench_solve, `{rel(d)}`: {title}", prov(names, pattern), txt))
    return out


def render_checkpoint_json(p):
    j = json.load(open(p))
    m = j["machine"]
    rows = []
    for r in j["results"]:
        n = r["open_nodes"]
        if r.get("skipped") or not r.get("bytes"):
            rows.append([f"{r['n']}x{r['m']}", f"{n / 1e6:.2f} M", r["format"]] + ["-"] * 6 + ["skipped"])
            continue
        mb = r["bytes"] / 1e6
        rows.append([f"{r['n']}x{r['m']}", f"{n / 1e6:.2f} M", r["format"], f"{mb:.1f}", f"{r['bytes'] / n:.1f}",
                     f"{r['serialize_seconds']:.2f}", f"{r['save_seconds']:.2f}", f"{r['load_seconds']:.2f}",
                     f"{mb / r['save_seconds']:.0f}", f"{mb / r['load_seconds']:.0f}"])
    body = summarize.md(["instance", "open nodes", "format", "file MB", "bytes/node", "serialize s", "save s",
                         "load s", "save MB/s", "load MB/s"], rows)
    return [("pfsp_bench_checkpoint", provenance(p, m["commit"], machine_text(m), m["command"], m.get("date_utc")),
             body)]


def render_scale(p):
    j = json.load(open(p))
    pr = [r for r in j["rows"] if r["kind"] == "proofs"]
    sl = [r for r in j["rows"] if r["kind"] == "slice"]
    small = [r for r in j["rows"] if r["kind"] == "small_trees"]
    rows = []
    for r in pr:
        insts = r["instances"]
        rows.append([r["front"], r["gpus"], f"{len(insts)} ({insts[0]}..{insts[-1]})", f"{r['branched']:,}",
                     f"{r['time_s']:.2f}", f"{r['search_s']:.2f}", f"{100 * r['efficiency_search']:.1f} %",
                     f"{100 * r['efficiency_time']:.1f} %",
                     " / ".join(f"{x:.1f}" for x in r["idle_share_pct"]) or "-"])
    body = summarize.md(["front end", "GPUs", "proofs", "branched", "time (s)", "search (s)", "eff. (search)",
                         "eff. (time)", "idle share per engine/rank (%)"], rows)
    if sl:
        keys = [k for k in sl[0] if k not in ("kind",)]
        srows = [[fmt_cell(r.get(k)) for k in keys] for r in sl]
        body += "\n\n" + summarize.md(keys, srows)
    if small:  # issue 22 item 6: time on K GPUs over the one-GPU time of the same proofs
        srows = [[r["front"], r["gpus"], r["proofs"], f"{r['time_s']:.2f}", f"{r['one_gpu_time_s']:.2f}",
                  f"{r['ratio']:.2f}", f"{r['worst_instance']} {r['worst_ratio']:.2f}", f"{r['wall_ratio']:.2f}",
                  f"{r['joined_runs']}/{r['proofs']}", "yes" if r["within_target"] else "NO"] for r in small]
        body += "\n\nSmall trees (more GPUs never slower: at most 1.1x the one-GPU time):\n\n" + summarize.md(
            ["front end", "GPUs", "proofs", "time (s)", "one GPU (s)", "ratio", "worst instance", "wall ratio",
             "engines joined", "at most 1.1x"], srows)
    return [("strong scaling", provenance(p, j.get("commit"), j.get("device"), j.get("command")),
             body)]


def fmt_cell(v):
    if isinstance(v, float):
        return f"{v:.4g}" if abs(v) < 1e6 else f"{v:,.0f}"
    if isinstance(v, int):
        return f"{v:,}" if abs(v) >= 10000 else str(v)
    if isinstance(v, list):
        return " / ".join(fmt_cell(x) for x in v) if len(v) <= 12 else f"{len(v)} items"
    if v is None:
        return "-"
    return str(v).replace("|", "\\|")


def render_hard_rows(p):
    j = json.load(open(p))
    rows = []
    commits, cmds, devs = set(), [], set()
    for r in j["rows"]:
        if "error" in r:
            rows.append([r["instance"], "", r["config"], "failed: " + r["error"]] + [""] * 8)
            continue
        commits.add(r.get("commit") or "?")
        cmds.append(r.get("command") or "")
        m = re.search(r"\((NVIDIA [^,]+)", r.get("backend") or "")
        if m:
            devs.add(m.group(1))
        gap = r.get("gap")
        rows.append([r["instance"], f"{r['n']}x{r['m']}", r["config"], r["status"], f"{r['seconds']:.2f}",
                     f"{r['branched']:,}", f"{r['nodes_per_s'] / 1e6:.2f}", f"{r['bounds_per_s'] / 1e9:.3f}",
                     r["makespan"], r["lower_bound"], "-" if gap is None else f"{100 * gap:.2f}",
                     "-" if r.get("tree_done") is None else f"{100 * r['tree_done']:.4f}"])
    body = summarize.md(["instance", "size", "config", "status", "s", "branched", "Mnodes/s", "Gbounds/s", "best",
                         "lb", "gap %", "tree %"], rows)
    cmd = cmds[0] if cmds else None
    pv = provenance(p, ", ".join(sorted(commits)), ", ".join(sorted(devs)), cmd, extra=j.get("note"))
    if len(cmds) > 1:
        pv = pv.replace("*Command:*", f"*Command (first of {len(cmds)} runs):*")
    return [("hard_table.py rows", pv, body)]


def render_json_generic(p):
    j = json.load(open_source(p))
    if isinstance(j, dict) and isinstance(j.get("runs"), list):
        runs = j["runs"]
        keys = [k for k in runs[0] if k not in ("backend", "command_example")]
        body = summarize.md(keys, [[fmt_cell(r.get(k)) for k in keys] for r in runs])
        commits = sorted({r.get("commit") for r in runs if r.get("commit")})
        backends = sorted({r.get("backend") for r in runs if r.get("backend")})
        body += "\n\nBackends as the runs state them:\n\n" + "\n".join(f"- {b}" for b in backends)
        cmd = runs[0].get("command_example")
        return [("runs", provenance(p, ", ".join(commits), j.get("device"), cmd, extra=j.get("note")), body)]
    # One pfsp --json result: its scalar fields, its nodes and its notes.
    rows = [[k, fmt_cell(v)] for k, v in j.items() if not isinstance(v, (dict, list)) and k != "command"]
    for k, v in j.items():
        if isinstance(v, dict) and all(not isinstance(x, (dict, list)) for x in v.values()):
            rows += [[f"{k}.{a}", fmt_cell(b)] for a, b in v.items()]
    body = summarize.md(["field", "value"], rows)
    notes = j.get("notes") or []
    if notes:
        body += "\n\nNotes:\n\n" + "\n".join(f"- {fmt_cell(n)}" for n in notes)
    if j.get("progress"):
        body += f"\n\n(The file's progress trace, {len(j['progress'])} snapshots, is not tabulated here.)"
    return [("pfsp --json result", provenance(p, j.get("commit"), None, j.get("command")), body)]


HEADER_KEYS = {"commit": r"commit[: ]\s*([0-9a-f]{7,40})", "device": r"device: ([^\n]+)"}


def render_text(p):
    text = open(p).read().rstrip("\n")
    commit = re.search(HEADER_KEYS["commit"], text)
    device = re.search(HEADER_KEYS["device"], text) or re.search(r"^# strong scaling, ([^,]+(?:, [^,]+)*?), commit", text)
    m = re.search(r"_([0-9a-f]{7})(?:\.txt)$", p)  # a commit in the file name (e.g. _before_fix_08a19ad)
    c = commit.group(1) if commit else (m.group(1) if m else None)
    fence = "````" if "```" in text else "```"
    return [("", provenance(p, c, device.group(1).strip() if device else None), f"{fence}text\n{text}\n{fence}")]


def render_markdown(p):
    text = open(p).read().strip("\n")
    if rel(p).startswith(os.path.join("bench", "results", "legacy")) or "<!-- topic:" in text:
        return None  # sections routed one by one (render_sections)
    lines = text.splitlines()
    commit = None
    cmd = None
    dev = None
    body = []
    for l in lines:
        m = re.match(r"# (\S+)\s+commit (\S+)\s+cpu (.+?)\s+gpu (\S+)\s+host (\S+)", l)
        if m:
            commit, dev = m.group(2), f"{m.group(3)}, gpu {m.group(4)}, host {m.group(5)}"
            continue
        if l.startswith("# /") and cmd is None:
            cmd = l[2:]
            continue
        if l.startswith("# ") and not l.startswith("# strong"):
            body.append(l[2:] + "\n")
            continue
        body.append(l)
    if commit is None:
        m = re.search(r"commit (\w{7,40})", text)
        commit = m.group(1) if m else None
    extra = readme_entry(p)
    if extra:
        if commit is None:
            m = re.search(r"commit\s+([0-9a-f]{7,40})", extra)
            commit = f"{m.group(1)} (as the folder's README records it)" if m else None
        if dev is None:
            m = re.search(r"(NVIDIA H[12]00[^,;)]*|H[12]00|2-core development machine|2-core)", extra)
            dev = f"{m.group(1)} (as the folder's README records it)" if m else None
    text = "\n".join(body)
    text = re.sub(r"^(#{1,3}) ", lambda m: "#" * (len(m.group(1)) + 3) + " ", text, flags=re.M)
    pv = provenance(p, commit, dev, cmd)
    if extra:
        pv += f"\n\n*The folder's README on this file:* {extra}"
    return [("", pv, text)]


def readme_entry(p):
    """The '- `NAME` — ...' entry of the README beside a generated table (docs/results, docs/plots)."""
    readme = os.path.join(os.path.dirname(p), "README.md")
    if not os.path.exists(readme) or not rel(p).startswith("docs"):
        return None
    text = open(readme).read()
    m = re.search(r"^- `" + re.escape(os.path.basename(p)) + r"` — (.*?)(?=^- |\Z)", text, flags=re.M | re.S)
    return " ".join(m.group(1).split()) if m else None


def legacy_sections(p):
    """A markdown file of moved tables: '## title' sections, each with a '<!-- topic: X -->' line."""
    text = open(p).read()
    parts = re.split(r"^## ", text, flags=re.M)
    out = []
    for part in parts[1:]:
        title, _, body = part.partition("\n")
        m = re.search(r"<!-- topic: ([\w-]+) -->", body)
        topic = m.group(1) if m else topic_of(p)
        body = re.sub(r"<!-- topic: [\w-]+ -->\n?", "", body).strip("\n")
        out.append((topic, title.strip(), f"*Source {link(p)}, folder `{folder_of(p)}`; moved from a design "
                                           f"page, provenance as that page stated it:*", body))
    return out


def sources():
    files = sorted(glob.glob(os.path.join(ROOT, "bench", "results", "**", "*"), recursive=True))
    files = [f for f in files if os.path.isfile(f)]
    files += sorted(glob.glob(os.path.join(ROOT, "docs", "results", "*.md")))
    files += [os.path.join(ROOT, "docs", "plots", "tables_iii_v.md")]
    return [f for f in files if os.path.basename(f) != "README.md"]


def build():
    files = sources()
    by_topic = {t: [] for t, _ in TOPICS}
    bench_groups = {}
    skipped = []
    stems = {}
    for f in files:
        stems.setdefault(stem(f), []).append(ext_of(f))
    for f in files:
        ext = ext_of(f)
        if ext == ".json":
            try:
                j = json.load(open_source(f))
            except ValueError as e:
                skipped.append((f, f"not JSON: {e}"))
                continue
            kind = j.get("benchmark") if isinstance(j, dict) else None
            if kind in ("pfsp_bench_solve", "pfsp_bench_bounds"):
                bench_groups.setdefault(os.path.dirname(f), []).append(f)
                continue
            if kind == "pfsp_bench_heuristic" or (isinstance(j, dict) and "destruct" in j.get("config", {})):
                body = engine_table.heuristic_table(f, stamp=False).split("\n", 1)
                m = j.get("machine", {})
                pv = provenance(f, commit=m.get("commit"), device=engine_table.device_of(f), command=m.get("command"))
                by_topic[topic_of(f)].append((f, [(body[0].lstrip("# "), pv, body[1].strip())]))
                continue
            if kind == "pfsp_bench_checkpoint":
                by_topic[topic_of(f)].append((f, render_checkpoint_json(f)))
            elif os.path.basename(f) == "scale.json":
                by_topic[topic_of(f)].append((f, render_scale(f)))
            elif ".txt" in stems[stem(f)]:
                continue  # the same rows, as the script printed them, are the .txt beside it
            elif isinstance(j, dict) and isinstance(j.get("rows"), list) and j["rows"] and "config" in j["rows"][0]:
                by_topic[topic_of(f)].append((f, render_hard_rows(f)))
            else:
                by_topic[topic_of(f)].append((f, render_json_generic(f)))
        elif ext == ".md":
            if ".json" in stems[stem(f)]:
                continue  # a program's own table; the JSON beside it is tabulated
            r = render_markdown(f)
            if r is None:
                for topic, title, pv, body in legacy_sections(f):
                    by_topic[topic].append((f, [(title, pv, body)]))
            else:
                by_topic[topic_of(f)].append((f, r))
        elif ext == ".txt":
            if os.path.basename(f) == "scale.txt" and os.path.exists(stem(f) + ".json"):
                continue  # scale_table.py's printout of scale.json, tabulated from the JSON
            if os.path.basename(f) == "cpuinfo.txt":
                by_topic["other"].append((f, [("", provenance(f), "The machine's /proc/cpuinfo summary: "
                                               f"{link(f)} (not a measurement).")]))
                continue
            by_topic[topic_of(f)].append((f, render_text(f)))
        else:
            skipped.append((f, "unknown kind"))
    for d, paths in sorted(bench_groups.items()):
        for item in render_bench_group(sorted(paths)):
            t = "bounds" if item[0].startswith("pfsp_bench_bounds") else "cpu-solve"
            by_topic[t].append((paths[0], [item]))
    for f, why in skipped:
        by_topic["other"].append((f, [("", provenance(f), f"Not tabulated ({why}).")]))
    return render_pages(by_topic)


def provenance_summary(pv):
    """'folder F; commit C; device D' from a table's provenance line, for the index."""
    bits = []
    for key in ("folder", "commit", "device:"):
        m = re.search(r"(?:^|; |\*)" + re.escape(key) + r" ([^;*]+)", pv.split("\n")[0])
        if m:
            bits.append(m.group(1).strip().rstrip("."))
    return "; ".join(bits)


def render_pages(by_topic):
    """{path: text}: docs/results.md (the index) and docs/tables/TOPIC.md (the tables)."""
    index = ["# Results", "",
             "<!-- Generated by bench/results_page.py from bench/results/ (and docs/results/, docs/plots/): "
             "do not edit; run the script. -->", "",
             "Every measurement of the project, each table once, with the commit, device and command its "
             "source states. Generated by `bench/results_page.py` from the files under `bench/results/` "
             "(one folder per date and device; `legacy/` holds tables moved out of the design pages, "
             "with the provenance those pages gave) and the generated tables of `docs/results/` and "
             "`docs/plots/`. How each benchmark is run and what it prints: [benchmarks.md](benchmarks.md). "
             "`bench/results_page.py --check` fails when these pages are stale.", "",
             "This page is the index: one line a table (its folder, commit and device), linked to the table "
             "in its topic's page under [tables/](tables/). Raw run logs are not in the source tree: "
             "[bench/results/README.md](../bench/results/README.md) says where they are.", ""]
    index.append("Topics:")
    index.append("")
    for t, title in TOPICS:
        if by_topic[t]:
            n = sum(len(tables) for _, tables in by_topic[t])
            index.append(f"- [{title}](#{slug(title)}) ({n} tables; [the page](tables/{t}.md))")
    index.append("")
    pages = {}
    seen_titles = {}
    for t, title in TOPICS:
        items = by_topic[t]
        if not items:
            continue
        page = [f"# {title}", "",
                "<!-- Generated by bench/results_page.py: do not edit; run the script. -->", "",
                f"Part of [the results](../results.md): every table of this topic with its provenance.", ""]
        index += [f"## {title}", "", f"The tables: [tables/{t}.md](tables/{t}.md).", ""]
        folder = None
        for f, tables in sorted(items, key=lambda x: (folder_of(x[0]), rel(x[0]))):
            if folder_of(f) != folder:
                if folder is not None:
                    index.append("")
                folder = folder_of(f)
                index += [f"*{folder}:*", ""]
            for ttl, pv, body in tables:
                head = ttl if ttl else os.path.basename(f)
                if not ttl or ttl in ("hard_table.py rows", "runs", "pfsp --json result", "pfsp_bench_checkpoint",
                                      "strong scaling"):
                    head = f"{folder_of(f)}: {os.path.basename(f)}" + (f" ({ttl})" if ttl else "")
                n = seen_titles.get(head, 0)
                seen_titles[head] = n + 1
                if n:
                    head += f" ({n + 1})"
                page += [f"### {head}", "", pv, "", body.strip("\n"), ""]
                anchor = slug(head)
                about = provenance_summary(pv)
                index.append(f'- <a id="{anchor}"></a>[{head}](tables/{t}.md#{anchor})'
                             + (f" — {about}" if about else ""))
        index.append("")
        pages[os.path.join(TABLES, f"{t}.md")] = "\n".join(page).rstrip("\n") + "\n"
    pages[OUT] = "\n".join(index).rstrip("\n") + "\n"
    return pages


# --- link check -------------------------------------------------------------------------------

LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")


def anchors(path, cache={}):
    if path not in cache:
        text = open(path).read()
        text = re.sub(r"```.*?```", "", text, flags=re.S)
        names = set()
        counts = {}
        for h in re.findall(r"^#{1,6} (.+)$", text, flags=re.M):
            s = slug(re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", h))
            k = counts.get(s, 0)
            counts[s] = k + 1
            names.add(s if k == 0 else f"{s}-{k}")
        names.update(re.findall(r'<a (?:id|name)="([^"]+)"', text))
        cache[path] = names
    return cache[path]


def check_links():
    pages = glob.glob(os.path.join(ROOT, "docs", "**", "*.md"), recursive=True)
    pages += [os.path.join(ROOT, "README.md"), os.path.join(ROOT, "bench", "README.md")]
    pages += glob.glob(os.path.join(ROOT, "src", "*", "README.md"))
    bad = []
    for page in sorted(pages):
        text = re.sub(r"```.*?```", "", open(page).read(), flags=re.S)
        text = re.sub(r"`[^`\n]*`", "", text)
        for target in LINK.findall(text):
            if re.match(r"^[a-z]+:", target):
                continue  # http:, https:, mailto:
            path, _, frag = target.partition("#")
            dest = os.path.normpath(os.path.join(os.path.dirname(page), path)) if path else page
            if not os.path.exists(dest):
                bad.append(f"{rel(page)}: {target}: no such file")
            elif frag and dest.endswith(".md") and frag not in anchors(dest):
                bad.append(f"{rel(page)}: {target}: no such anchor")
    return bad


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true")
    a = ap.parse_args()
    pages = build()
    if a.check:
        ok = True
        for path, text in sorted(pages.items()):
            current = open(path).read() if os.path.exists(path) else ""
            if current != text:
                print(f"results_page: {rel(path)} is stale: run bench/results_page.py", file=sys.stderr)
                ok = False
        stray = set(glob.glob(os.path.join(TABLES, "*.md"))) - set(pages)
        for path in sorted(stray):
            print(f"results_page: {rel(path)} is no topic's page: remove it", file=sys.stderr)
            ok = False
        for b in check_links():
            print(f"results_page: broken link: {b}", file=sys.stderr)
            ok = False
        return 0 if ok else 1
    os.makedirs(TABLES, exist_ok=True)
    for path in set(glob.glob(os.path.join(TABLES, "*.md"))) - set(pages):
        os.remove(path)
    for path, text in pages.items():
        with open(path + ".tmp", "w") as f:
            f.write(text)
        os.replace(path + ".tmp", path)
        print(f"results_page: wrote {rel(path)} ({text.count(chr(10))} lines)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
