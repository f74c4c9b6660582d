#!/usr/bin/env python3
"""Tests of the measurement scripts that turn device output into the docs' tables and figures:
bench/harness/sass_branches.py (SASS listing -> branches, selects, predication per kernel variant) and
bench/harness/plot_tables.py (sweep JSON lines -> SVG figures and a markdown table beside the papers'
numbers), bench/scale_table.py, bench/ncu_loop_table.py --roofline, bench/ncu_sass_stalls.py, and scripts/check_layers.py (the include graph against the layering). Run by CTest (label cpu) as `python3 tests/scripts/test_scripts.py REPO_ROOT`.
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest
import xml.dom.minidom

ROOT = os.path.abspath(sys.argv.pop(1) if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", ".."))
SCRIPTS = os.path.join(ROOT, "scripts")
HARNESS = os.path.join(ROOT, "bench", "harness")  # the device and benchmark harnesses
sys.path.insert(0, SCRIPTS)
sys.path.insert(0, HARNESS)
import sass_branches  # noqa: E402

KERNEL = ("_ZN4pfsp3gpu21bound_children_kernelINS0_13plain_variantELb1ELNS_10bound_kindE1E"
          "NS0_10size_classILi64EhEELb0EEEvNS0_11tables_viewENS0_9pool_viewE")
OTHER = "_ZN4pfsp3gpu13expand_kernelENS0_9pool_viewEi"

# The line of the repository's lb2.hpp that the listing's forward branch points at (the pair
# loop's `if (v > lb)`): the script reads the source line from the tree, so the fixture follows it.
with open(os.path.join(ROOT, "src", "bound", "lb2.hpp"), encoding="utf-8") as _f:
    LB2_LINE = next(i for i, line in enumerate(_f, 1) if "if (v > lb)" in line)

# An nvdisasm -c -g style listing: one children kernel (the default selection) and one other.
LISTING = f"""
\t.headerflags\t@"EF_CUDA_SM90"
//--------------------- .text.{KERNEL} --------------------------
\t.section\t.text.{KERNEL},"ax",@progbits
.text.{KERNEL}:
\t//## File "/somewhere/src/gpu/bound_kernels.cuh", line 95
        /*0000*/                   ISETP.GE.U32.AND P0, PT, R2, R3, PT ;
        /*0010*/                   SEL R4, RZ, 0x1, P0 ;
        /*0020*/                   STL.U8 [R1], R4 ;
.L_x_1:
\t//## File "/somewhere/src/bound/lb2.hpp", line {LB2_LINE} inlined at "/somewhere/src/gpu/bound_kernels.cuh", line 222
\t//## File "/somewhere/src/gpu/bound_kernels.cuh", line 222
        /*0030*/                   LDL.U8 R5, [R1] ;
        /*0040*/                   VIADDMNMX R6, R6, 0x1, R7, !PT ;
        /*0050*/                   BSSY B0, `(.L_x_2) ;
        /*0060*/              @!P0 BRA `(.L_x_2) ;
        /*0070*/              @P1 IMAD.IADD R8, R8, 0x1, R9 ;
\t//## File "/somewhere/src/bound/lb2.hpp", line 33
        /*0080*/              @P2 BRA `(.L_x_1) ;
        /*0090*/              @!UP0 BRA 0x30 ;
        /*00a0*/                   MUFU.EX2 R10, R10 ;
.L_x_2:
        /*00b0*/                   BSYNC B0 ;
        /*00c0*/                   EXIT ;
.L_x_3:
        /*00d0*/                   BRA `(.L_x_3);
//--------------------- .text.{OTHER} --------------------------
.text.{OTHER}:
        /*0000*/              @P0 BRA 0x40 ;
        /*0010*/                   EXIT ;
"""


class SassBranches(unittest.TestCase):
    def setUp(self):
        self.funcs = sass_branches.parse(LISTING)

    def test_parse_finds_both_functions_and_their_instructions(self):
        self.assertEqual(sorted(self.funcs), sorted([KERNEL, OTHER]))
        insts, labels = self.funcs[KERNEL]
        self.assertEqual(len(insts), 14)
        self.assertEqual(labels, {".L_x_1": 0x30, ".L_x_2": 0xB0, ".L_x_3": 0xD0})

    def test_line_information_takes_the_innermost_frame(self):
        insts, _ = self.funcs[KERNEL]
        ldl = next(i for i in insts if i.op == "LDL.U8")
        self.assertEqual(ldl.loc, ("/somewhere/src/bound/lb2.hpp", LB2_LINE))
        self.assertEqual(ldl.chain, (("/somewhere/src/gpu/bound_kernels.cuh", 222),))

    def test_counts_separate_divergent_uniform_and_loop_branches(self):
        insts, labels = self.funcs[KERNEL]
        c, branches = sass_branches.analyse(insts, labels, ROOT)
        self.assertEqual(c["bra"], 4)            # three conditional, one unconditional
        self.assertEqual(c["bra_cond"], 2)       # @!P0 forward, @P2 backward
        self.assertEqual(c["cond_forward"], 1)
        self.assertEqual(c["loop_edges"], 1)
        self.assertEqual(c["bra_uniform"], 1)    # @!UP0
        self.assertEqual((c["bssy"], c["sel"], c["mnmx"], c["mufu"], c["ldl"], c["stl"]), (1, 1, 1, 1, 1, 1))
        self.assertEqual(c["pred_insts"], 1)     # @P1 IMAD.IADD (branches are not counted here)
        fwd = [b for b in branches if b["kind"] == "forward"]
        self.assertEqual(len(fwd), 1)
        self.assertEqual((fwd[0]["file"], fwd[0]["line"]), ("src/bound/lb2.hpp", LB2_LINE))
        self.assertEqual(fwd[0]["inlined_at"], ["src/gpu/bound_kernels.cuh:222"])
        self.assertIn("v > lb", fwd[0]["source"])  # read from the repository's lb2.hpp (line numbers follow it)

    def test_cli_selects_the_children_kernel_and_lists_branches_and_opcodes(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "listing.txt")
            with open(path, "w", encoding="utf-8") as f:
                f.write(LISTING)
            out = subprocess.run([sys.executable, os.path.join(HARNESS, "sass_branches.py"), path, "--root", ROOT,
                                  "--branches", "--ops", "src/gpu/bound_kernels.cuh:90-100", "--json",
                                  os.path.join(d, "r.json")], capture_output=True, text=True, check=True).stdout
            report = json.load(open(os.path.join(d, "r.json"), encoding="utf-8"))
        self.assertEqual(len(report), 1)  # expand_kernel is not a children kernel
        if report[0]["kernel"].startswith("void pfsp::gpu::"):  # demangled (c++filt present)
            self.assertEqual(report[0]["label"], "bound_children_kernel lb2 plain n<=64 shared int")
            self.assertIn("| bound_children_kernel lb2 plain n<=64 shared int | 14 | 4 | 2 | 1 | 1 | 1 |", out)
        self.assertIn(f"src/bound/lb2.hpp:{LB2_LINE} forward x1 (inlined at src/gpu/bound_kernels.cuh:222)", out)
        self.assertIn("- 95 `", out)
        self.assertIn("ISETP.GE.U32.AND", out)

    def test_cli_rejects_a_listing_without_functions(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "empty.txt")
            with open(path, "w", encoding="utf-8") as f:
                f.write("not a listing\n")
            r = subprocess.run([sys.executable, os.path.join(HARNESS, "sass_branches.py"), path],
                               capture_output=True, text=True)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("no functions found", r.stderr)


def sweep_row(instance, n, kernel, sort, children, speedup, check="ok", tables="int"):
    return {"instance": instance, "n": n, "m": 20, "bound": "lb2", "kernel": kernel, "memory": "shared",
            "tables": tables, "sort": sort, "tpb": 256, "children": children, "ub": 1, "kernel_ms_median": 1.0,
            "gpu_bounds_per_s": 1e8, "cpu_bounds_per_s": 1e5, "speedup": speedup, "check": check,
            "device": "TestGPU", "commit": "abc1234", "strategy": "plain"}


class PlotTables(unittest.TestCase):
    def run_plot(self, rows, extra_lines=()):
        d = tempfile.mkdtemp()
        path = os.path.join(d, "sweep.jsonl")
        with open(path, "w", encoding="utf-8") as f:
            for r in rows:
                f.write(json.dumps(r) + "\n")
            for line in extra_lines:
                f.write(line + "\n")
        r = subprocess.run([sys.executable, os.path.join(HARNESS, "plot_tables.py"), path, "--out", d],
                           capture_output=True, text=True)
        return r, d

    def test_figures_and_table_beside_the_papers_numbers(self):
        rows = [sweep_row("ta021", 20, "plain", "none", 4088, 30.0), sweep_row("ta021", 20, "plain", "device", 4088, 35.0),
                sweep_row("ta021", 20, "refactored", "device", 262126, 400.0),
                sweep_row("ta101", 200, "plain", "none", 65360, 77.0),
                # ignored: a failed check, compact tables, a kernel/sort pair no table uses
                sweep_row("ta021", 20, "plain", "none", 16376, 999.0, check="MISMATCH"),
                sweep_row("ta021", 20, "plain", "none", 65524, 888.0, tables="compact"),
                sweep_row("ta021", 20, "refactored", "none", 4088, 777.0)]
        r, d = self.run_plot(rows, extra_lines=["{not json"])
        self.assertEqual(r.returncode, 0, r.stderr)
        for name in ("tables_iii_v.svg", "tables_iii_v_by_size.svg"):
            doc = xml.dom.minidom.parse(os.path.join(d, name))
            self.assertEqual(doc.documentElement.tagName, "svg")
        out = r.stdout
        self.assertIn("TestGPU, commit abc1234", out)
        self.assertIn("| 20x20 | 4096 | 30.00 | 38.74 | 0.77 | 35.00 | 39.92 |", out)  # Tables III and IV, 20x20
        self.assertIn("400.00 | 41.65 |", out)       # Table V at 262144
        self.assertIn("| 200x20 | 65536 | 77.00 | 66.75 |", out)
        for ignored in ("999", "888", "777"):
            self.assertNotIn(ignored, out)
        self.assertIn("skipped", r.stderr)           # the malformed line and the failed check are reported

    def test_no_usable_rows_is_an_error(self):
        r, _ = self.run_plot([sweep_row("ta021", 20, "plain", "none", 4088, 30.0, check="MISMATCH")])
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("no usable rows", r.stderr)

    def test_missing_input_is_an_error(self):
        r = subprocess.run([sys.executable, os.path.join(HARNESS, "plot_tables.py"), "/nonexistent/sweep.jsonl",
                            "--out", tempfile.mkdtemp()], capture_output=True, text=True)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("not found", r.stderr)


class ScaleTable(unittest.TestCase):
    """bench/scale_table.py: efficiency T1 / (k Tk) and idle shares from the runs' JSON."""

    def write(self, d, name, status, branched, time, setup, note=None):
        j = {"status": status, "nodes": {"branched": branched}, "time_seconds": time, "setup_seconds": setup,
             "notes": [note] if note else []}
        with open(os.path.join(d, name), "w") as fh:
            json.dump(j, fh)

    def table(self, d, extra=()):
        """scale_table.py over the runs in d: its JSON (with the printout as "text")."""
        out = os.path.join(d, "scale.json")
        files = sorted(os.path.join(d, f) for f in os.listdir(d) if f.endswith(".json") and f != "scale.json")
        text = subprocess.run([sys.executable, os.path.join(ROOT, "bench", "scale_table.py"), "--out", out]
                              + list(extra) + files, check=True, capture_output=True, text=True).stdout
        j = json.load(open(out))
        j["text"] = text
        return j

    def test_efficiency_and_idle(self):
        with tempfile.TemporaryDirectory() as d:
            self.write(d, "devices_g1_ta021.json", "proven_bound", 1000, 2.0, 0.0)
            self.write(d, "devices_g2_ta021.json", "proven_bound", 1000, 1.5, 0.25,
                       "engines' time (busy in batches / idle waiting for work / thread life): "
                       "engine 0 (device 0) branched 600, busy 1.0 s, idle 0.2 s = 16.7 %, life 1.2 s; "
                       "engine 1 (device 1) branched 400, busy 0.6 s, idle 0.6 s = 50.0 %, life 1.2 s")
            self.write(d, "devices_g1_ta056.json", "time_limit", 5000, 10.0, 0.0)
            self.write(d, "devices_g2_ta056.json", "time_limit", 9000, 10.0, 0.0)
            table = self.table(d, ["--commit", "abc", "--device", "GPU"])
            self.assertIn("commit abc", table["text"])
            rows = table["rows"]
            two = [r for r in rows if r["kind"] == "proofs" and r["gpus"] == 2][0]
            # search time: 2.0 on one GPU, 1.25 on two: 2.0 / (2 * 1.25) = 0.8; time: 2.0 / 3.0.
            self.assertAlmostEqual(two["efficiency_search"], 0.8)
            self.assertAlmostEqual(two["efficiency_time"], 2.0 / 3.0)
            self.assertEqual([round(x, 1) for x in two["idle_share_pct"]], [16.7, 50.0])
            slice2 = [r for r in rows if r["kind"] == "slice" and r["gpus"] == 2][0]
            self.assertAlmostEqual(slice2["speedup"], 1.8)
            self.assertAlmostEqual(slice2["nodes_vs_k_solve"], 0.9)

    def test_a_variant_front_is_compared_with_its_own_one_gpu(self):
        """mpi-c16 (pfsp-mpi --chunk-nodes 16): its K against its own K = 1, its nodes against K x
        pfsp solve's within the same limit."""
        with tempfile.TemporaryDirectory() as d:
            self.write(d, "devices_g1_ta056.json", "time_limit", 1000, 10.0, 0.0)
            self.write(d, "mpi-c16_g1_ta056.json", "time_limit", 800, 10.0, 0.0)
            self.write(d, "mpi-c16_g4_ta056.json", "time_limit", 3600, 10.0, 0.0)
            self.write(d, "mpi-c16_g1_ta021.json", "optimal", 10, 2.0, 0.0)
            self.write(d, "mpi-c16_g4_ta021.json", "optimal", 10, 2.4, 0.0)
            rows = self.table(d)["rows"]
            four = [r for r in rows if r["kind"] == "slice" and r["front"] == "mpi-c16" and r["gpus"] == 4][0]
            self.assertAlmostEqual(four["speedup"], 4.5)
            self.assertAlmostEqual(four["nodes_vs_k_solve"], 0.9)
            small = [r for r in rows if r["kind"] == "small_trees" and r["front"] == "mpi-c16"][0]
            self.assertAlmostEqual(small["ratio"], 1.2)

    def test_small_trees_against_one_gpu(self):
        """Issue 22 item 6's table: K GPUs' proof time over one GPU's, per front (mpi1rank against
        mpi's one GPU), the worst instance, and the runs where engines joined."""
        with tempfile.TemporaryDirectory() as d:
            self.write(d, "devices_g1_ta021.json", "optimal", 1000, 1.0, 0.0)
            self.write(d, "devices_g1_ta022.json", "optimal", 1000, 1.0, 0.0)
            self.write(d, "devices_g2_ta021.json", "optimal", 1000, 1.0, 0.0,
                       "engines 1-1 did not join (the search ended within 1.00 s)")
            self.write(d, "devices_g2_ta022.json", "optimal", 1000, 1.3, 0.0)
            self.write(d, "mpi_g1_ta021.json", "optimal", 1000, 2.0, 0.0)
            self.write(d, "mpi1rank_g2_ta021.json", "optimal", 1000, 2.1, 0.0)
            self.write(d, "devices_g2_ta056.json", "time_limit", 9000, 10.0, 0.0)
            small = {(r["front"], r["gpus"]): r for r in self.table(d)["rows"] if r["kind"] == "small_trees"}
            dev = small[("devices", 2)]
            self.assertAlmostEqual(dev["ratio"], 2.3 / 2.0)
            self.assertFalse(dev["within_target"])
            self.assertEqual((dev["worst_instance"], round(dev["worst_ratio"], 2)), ("ta022", 1.3))
            self.assertEqual(dev["joined_runs"], 1)
            one_rank = small[("mpi1rank", 2)]
            self.assertAlmostEqual(one_rank["ratio"], 2.1 / 2.0)
            self.assertTrue(one_rank["within_target"])


class NcuLoopRoofline(unittest.TestCase):
    """bench/ncu_loop_table.py --roofline: kernels into phases (the bound kind from the template
    argument, CUB's scans by the kernel before them), time an iteration from the mean launch,
    the sync rest, and the node rate at the hardware limit (time x busiest share)."""

    @staticmethod
    def row(i, kernel, metric, value):
        return (f'"{i}","1","pfsp","h","{kernel}","1","7","(128,1,1)","(1,1,1)","0","9.0",'
                f'"Command line profiler metrics","{metric}","x","{value}"')

    def test_phases_and_limits(self):
        lb1 = "void pfsp::parts_children_kernel<0, pfsp::size_class<64, unsigned char>, 0, 1, 20>(pfsp::tables_view, pfsp::parts_view)"
        lb2 = "void pfsp::parts_children_kernel<1, pfsp::size_class<64, unsigned char>, 0, 1, 0>(pfsp::tables_view, pfsp::parts_view)"
        count = "void pfsp::gpu::device_loop::count_kernel<unsigned char>(pfsp::gpu::device_loop::loop_view<unsigned char>)"
        scan = "void cub::DeviceScanKernel<int>(int)"
        decide = "void pfsp::gpu::device_loop::decide_warp_kernel<unsigned char>(pfsp::gpu::device_loop::loop_view<unsigned char>)"
        t, dram, issue = "gpu__time_duration.sum", "dram__throughput.avg.pct_of_peak_sustained_elapsed", \
            "smsp__issue_active.avg.pct_of_peak_sustained_elapsed"
        rows = ['"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size",'
                '"Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"']
        launches = [(count, 10000, 20, 5), (scan, 5000, 10, 5), (lb1, 100000, 10, 50), (lb2, 400000, 1, 80),
                    (decide, 20000, 5, 25), (scan, 5000, 10, 5)]
        for i, (k, ns, d, s) in enumerate(launches):
            rows += [self.row(i, k, t, ns), self.row(i, k, dram, d), self.row(i, k, issue, s)]
        with tempfile.TemporaryDirectory() as d:
            csv_path, rate, out = os.path.join(d, "n.csv"), os.path.join(d, "r.json"), os.path.join(d, "o.json")
            open(csv_path, "w").write("==PROF== noise\n" + "\n".join(rows) + "\n")
            # 1e6 nodes in 1 s over 1000 iterations: 1000 nodes and 1000 us an iteration.
            json.dump({"instance": {"name": "ta056"}, "time_seconds": 1.5, "setup_seconds": 0.5,
                       "nodes": {"branched": 1000000}, "notes": ["1000 iterations on the device, 5 children"]},
                      open(rate, "w"))
            subprocess.run([sys.executable, os.path.join(ROOT, "bench", "ncu_loop_table.py"), "--roofline",
                            "--config", f"chain={csv_path},{rate}", "--out", out, "--commit", "abc1234"],
                           check=True, capture_output=True, text=True)
            res = json.load(open(out))
        self.assertEqual(res["commit"], "abc1234")
        ph = {p["phase"]: p for p in res["configs"][0]["phases"]}
        self.assertEqual(ph["LB1"]["kernels"], ["parts_children_kernel[lb1]"])
        self.assertEqual(ph["LB2"]["kernels"], ["parts_children_kernel[lb2]"])
        self.assertIn("DeviceScanKernel", ph["prune"]["kernels"])  # the scan after decide
        self.assertIn("DeviceScanKernel", ph["select/gather+branch"]["kernels"])  # the scan after count
        self.assertAlmostEqual(ph["LB2"]["us_per_iteration"], 400.0)
        self.assertAlmostEqual(ph["LB2"]["share"], 0.4)
        # LB2: 400 us for 1000 nodes = 0.4 us a node alone; issue 80 % busiest: 0.32 us at the limit.
        self.assertAlmostEqual(ph["LB2"]["alone_nodes_per_s"], 2.5e6)
        self.assertAlmostEqual(ph["LB2"]["limit_nodes_per_s"], 1 / 0.32e-6)
        # kernels 10 + 5 + 100 + 400 + 20 + 5 = 540 us of a 1000-us iteration: sync 46 %.
        self.assertAlmostEqual(ph["sync"]["share"], 0.46)


class NcuSassStalls(unittest.TestCase):
    """bench/ncu_sass_stalls.py: ncu's source page (one block a kernel, printed twice as ncu does)
    grouped by execution count: the inner loop, once a pair, the set-up; shares of all samples."""

    HEADER = ('"Address","Source","Warp Stall Sampling (All Samples)","Instructions Executed",'
              '"stall_long_sb","stall_math","stall_not_selected"')

    def block(self, name, rows):
        return "\n".join([f'"Kernel Name","{name}",', self.HEADER] + rows)

    def test_groups_and_shares(self):
        rows = [
            '"0x10","LDG.E R1, [R2]","50","1000","40","5","5"',        # set-up: 1000 of 2000000
            '"0x20","IADD R3, R3, R1","10","80000","0","10","0"',      # once a pair (>= 1/25)
            '"0x30","VIADDMNMX R4, R4, R5","30","2000000","0","10","20"',  # inner loop
            '"0x40","LDS R5, [R6]","10","1500000","0","0","10"',       # inner loop (>= 1/2)
        ]
        text = self.block("kernel_a(int)", rows)
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "a.csv")
            with open(path, "w") as f:
                f.write(text + "\n" + text + "\n")  # ncu repeats each kernel's block
            r = subprocess.run([sys.executable, os.path.join(ROOT, "bench", "ncu_sass_stalls.py"), path, "--top", "1"],
                               capture_output=True, text=True, check=True)
        out = r.stdout
        self.assertEqual(out.count("kernel_a(int)"), 1)  # the repeated block once
        self.assertIn("100 samples", out)
        self.assertRegex(out, r"inner loop\s+40\.0% of samples,\s+3\.50 M warp instr,\s+2 SASS lines")
        self.assertRegex(out, r"once a pair\s+10\.0% of samples")
        self.assertRegex(out, r"set-up\s+50\.0% of samples,\s+0\.00 M warp instr,\s+1 SASS lines: long_sb 40\.0%")
        self.assertIn("LDG.E R1, [R2]", out)  # --top 1: the instruction with the most samples

    def test_a_file_without_kernels_is_refused(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "empty.csv")
            with open(path, "w") as f:
                f.write("nothing here\n")
            r = subprocess.run([sys.executable, os.path.join(ROOT, "bench", "ncu_sass_stalls.py"), path],
                               capture_output=True, text=True)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("no \"Kernel Name\" block", r.stderr)


class EngineTable(unittest.TestCase):
    """bench/engine_table.py: the best over time from progress traces, and the published table."""

    def write_runs(self, d):
        def run(name, ub, optimal, trace, makespan, n=100):
            with open(os.path.join(d, name + ".json"), "w", encoding="utf-8") as f:
                json.dump({"status": "time_limit", "makespan": makespan, "lower_bound": ub - 50,
                           "instance": {"name": name, "n": n, "m": 20,
                                        "best_known": {"lb": ub - 10, "ub": ub, "optimal": optimal}},
                           "progress": [{"elapsed": t, "best": b} for t, b in trace]}, f)
        run("ta081", 6000, False, [(0.5, 6120), (9.0, 6060), (31.0, 6030), (200.0, 6006)], 6006)
        run("ta090", 6400, True, [(1.0, 6464), (50.0, 6400)], 6400)

    def test_anytime_reads_the_best_at_each_mark_and_the_last_improvement(self):
        sys.path.insert(0, os.path.join(ROOT, "bench"))
        import engine_table  # noqa: E402
        with tempfile.TemporaryDirectory() as d:
            self.write_runs(d)
            text = engine_table.anytime_table(d, [10, 30, 60], "t")
        rows = {line.split("|")[1].strip(): [c.strip() for c in line.split("|")[2:-1]]
                for line in text.splitlines() if line.startswith("| ta")}
        # ta081 at 10 s: 6060 (1.000 %), 30 s: still 6060, 60 s: 6030 (0.500 %), end 6006, last at 200 s.
        self.assertEqual(rows["ta081"], ["6000", "1.000", "1.000", "0.500", "0.100", "200"])
        self.assertEqual(rows["ta090"], ["6400", "1.000", "1.000", "0.000", "0.000", "50"])

    def test_published_rows_beside_the_class_means(self):
        sys.path.insert(0, os.path.join(ROOT, "bench"))
        import engine_table  # noqa: E402
        with tempfile.TemporaryDirectory() as d:
            self.write_runs(d)
            text = engine_table.solves_tables(d, "t", os.path.join(ROOT, "bench", "data", "published_pfsp_cmax.csv"))
        self.assertIn("| **pfsp (these runs)** | **0.050** |", text)  # (0.100 + 0.000) / 2
        self.assertIn("| HGA_RMA (Ruiz; Maroto; Alcaraz 2006) | 1.30 |", text)


class CheckLayers(unittest.TestCase):
    """scripts/check_layers.py: the include graph against docs/architecture.md's layering."""

    def tree(self, d, files):
        for rel, text in files.items():
            path = os.path.join(d, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as fh:
                fh.write(text)

    def run_check(self, d):
        return subprocess.run([sys.executable, os.path.join(SCRIPTS, "check_layers.py"), d], capture_output=True,
                              text=True)

    def test_this_repository_is_layered(self):
        r = self.run_check(ROOT)
        self.assertEqual(r.returncode, 0, r.stdout)

    def test_upward_include_friend_and_cuda_header_are_found(self):
        with tempfile.TemporaryDirectory() as d:
            self.tree(d, {
                "src/bound/lb.hpp": '#include "problem/instance.hpp"\n#include "search/pool.hpp"\n',
                "src/search/pool.hpp": "class pool {\n  friend struct peek;\n};\n",
                "src/cpu/par.cpp": "#include <cuda_runtime.h>\n",
                "src/gpu/k.cu": '#include <cub/cub.cuh>\n#include "app/cli.hpp"\n',
                "divergence/src/x.hpp": '#include "base/error.hpp"\n',
            })
            r = self.run_check(d)
            self.assertEqual(r.returncode, 1)
            self.assertIn("src/bound/lb.hpp:2: bound includes search/pool.hpp", r.stdout)
            self.assertIn("src/search/pool.hpp:2: a friend declaration", r.stdout)
            self.assertIn("src/cpu/par.cpp:1: plain C++ layer cpu includes the CUDA header cuda_runtime.h", r.stdout)
            self.assertIn("src/gpu/k.cu:2: gpu includes app/cli.hpp", r.stdout)
            self.assertIn("4 problem(s)", r.stdout)


if __name__ == "__main__":
    unittest.main(verbosity=2)
