#!/usr/bin/env python3
"""Writes the fuzz corpus under tests/fuzz/ (issue 13): malformed and valid instance files and
checkpoint files, and tests/fuzz/expected.tsv, which says what `pfsp` must do with each.

Deterministic: the same files every run (random bytes come from a seeded generator). Run from
anywhere: `scripts/make_fuzz_corpus.py`; commit what it writes. tests/fuzz/README.md lists the
categories; tests/test_fuzz_corpus.cpp runs the real binary on every line of expected.tsv.

expected.tsv columns (tab-separated):
  kind      instance (pfsp solve FILE), checkpoint (pfsp solve checkpoint_instance.txt --resume
            FILE) or spec (pfsp solve SPEC; no file)
  name      file name under tests/fuzz/<kind>/, or the spec
  exit      0 or 2
  expect    exit 0: the optimal makespan; exit 2: the line the message must name ("FILE:LINE: "),
            0 for a whole-file message ("FILE: "), - for a spec
  needle    exit 2: text the message must contain (what was expected)
"""
import itertools
import os
import random
import shutil
import struct
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fuzz")

# The instance the checkpoints belong to: 7 jobs x 3 machines (machine rows).
TIMES = [[5, 9, 2, 7, 4, 8, 3], [6, 3, 8, 2, 9, 4, 7], [4, 7, 5, 9, 3, 6, 8]]
N, M = 7, 3


def makespan(times, perm):
    front = [0] * len(times)
    for j in perm:
        t = 0
        for k in range(len(times)):
            t = max(t, front[k]) + times[k][j]
            front[k] = t
    return front[-1]


def optimum(times):
    n = len(times[0])
    best = min(itertools.permutations(range(n)), key=lambda p: makespan(times, p))
    return makespan(times, best), list(best)


def taillard_text(times, header=True):
    n, m = len(times[0]), len(times)
    lines = (["number of jobs, number of machines"] if header else []) + [f"{n} {m}"]
    if header:
        lines.append("processing times :")
    lines += [" ".join(map(str, row)) for row in times]
    return "\n".join(lines) + "\n"


def job_rows_text(times, base=0):
    n, m = len(times[0]), len(times)
    lines = [f"{n} {m}"]
    for j in range(n):
        lines.append(" ".join(f"{k + base} {times[k][j]}" for k in range(m)))
    return "\n".join(lines) + "\n"


def crlf(text):
    return text.replace("\n", "\r\n")


# ---------------------------------------------------------------------------------------------
# Checkpoints (text format version 1, src/search/checkpoint.cpp)

FNV_OFFSET, FNV_PRIME = 14695981039346656037, 1099511628211


def fnv1a(data, h=FNV_OFFSET):
    for b in data:
        h ^= b
        h = (h * FNV_PRIME) & 0xFFFFFFFFFFFFFFFF
    return h


def times_hash(times):
    n, m = len(times[0]), len(times)
    words = [n, m] + [t for row in times for t in row]
    return fnv1a(b"".join(w.to_bytes(4, "little") for w in words))


def checkpoint(stacks=None, complete=False, incumbent=None, threshold=2147483647, fields=None, seal=True):
    """The text of a checkpoint of TIMES; stacks = list of lists of (limit1, limit2, lb, perm).
    fields overrides a line's value by key (before sealing); seal=False leaves out the end line."""
    if stacks is None:
        stacks = [[(-1, N, 0, list(range(N)))]]
    lines = [
        ("pfsp-checkpoint", "1"), ("instance", "checkpoint_instance"), ("n", str(N)), ("m", str(M)),
        ("times-fnv1a", f"{times_hash(TIMES):016x}"), ("bound", "lb1"), ("branching", "min-branch"),
        ("ub", "none"), ("threshold", str(threshold)),
        ("incumbent", "none" if incumbent is None else " ".join(map(str, [incumbent[0]] + incumbent[1]))),
        ("complete", "1" if complete else "0"), ("branched", "0"), ("bounds", "0"), ("pruned", "0"),
        ("leaves", "0"), ("explored", "0"), ("elapsed", "0.5"), ("bound-seconds", "0"),
        ("backend", "cpu (sequential, depth-first)"), ("stacks", str(len(stacks)))]
    for key, value in (fields or {}).items():
        lines = [(k, value if k == key else v) for k, v in lines]
    text = "".join(f"{k} {v}\n" for k, v in lines)
    for stack in stacks:
        text += f"stack {len(stack)}\n"
        for l1, l2, lb, perm in stack:
            text += "node " + " ".join(map(str, [l1, l2, lb] + perm)) + "\n"
    if seal:
        text += f"end {fnv1a(text.encode('latin-1')):016x}\n"
    return text


def reseal(body):
    """Seals a hand-made body (everything before the end line)."""
    return body + f"end {fnv1a(body.encode('latin-1')):016x}\n"


# ---------------------------------------------------------------------------------------------
# Checkpoints (binary format version 2, src/search/checkpoint_binary.cpp; decision 006)

MASK64 = 0xFFFFFFFFFFFFFFFF


def block_checksum(data):
    """FNV-1a 64 in four interleaved lanes of 8-byte words, then byte-wise over lanes and length."""
    lane = [FNV_OFFSET, FNV_OFFSET ^ 1, FNV_OFFSET ^ 2, FNV_OFFSET ^ 3]
    i, n = 0, len(data)
    while i + 32 <= n:
        for k in range(4):
            w = int.from_bytes(data[i + 8 * k:i + 8 * k + 8], "little")
            lane[k] = ((lane[k] ^ w) * FNV_PRIME) & MASK64
        i += 32
    k = 0
    while i + 8 <= n:
        lane[k] = ((lane[k] ^ int.from_bytes(data[i:i + 8], "little")) * FNV_PRIME) & MASK64
        i, k = i + 8, k + 1
    if i < n:
        lane[k] = ((lane[k] ^ int.from_bytes(data[i:].ljust(8, b"\0"), "little")) * FNV_PRIME) & MASK64
    return fnv1a(b"".join(v.to_bytes(8, "little") for v in lane + [n]))


def binary_checkpoint(stacks=None, complete=False, incumbent=None, threshold=2147483647, header=None, seal=True):
    """The bytes of a binary checkpoint of TIMES (bound lb1, min-branch, no --ub, 1-byte jobs);
    header overrides fields by name (version, n, m, flags, job_width, bound_width, open, stacks)."""
    if stacks is None:
        stacks = [[(-1, N, 0, list(range(N)))]]
    nodes = [x for st in stacks for x in st]
    lb_base = min((x[2] for x in nodes), default=0)
    h = {"version": 2, "n": N, "m": M, "bound": 0, "branching": 2,
         "flags": (2 if incumbent else 0) | (4 if complete else 0), "job_width": 1, "bound_width": 1,
         "open": len(nodes), "stacks": len(stacks), "hash": times_hash(TIMES)}
    h.update(header or {})
    name, backend = b"checkpoint_instance", b"cpu (sequential, depth-first)"
    out = bytes([0x89]) + b"PFSPCK\n"
    out += h["version"].to_bytes(4, "little") + h["n"].to_bytes(4, "little") + h["m"].to_bytes(4, "little")
    out += bytes([h["bound"], h["branching"], h["flags"], h["job_width"], h["bound_width"], 0, 0, 0])
    for v in (0, threshold, incumbent[0] if incumbent else 0, lb_base):
        out += v.to_bytes(4, "little", signed=True)
    out += h["hash"].to_bytes(8, "little") + bytes(32)  # branched, bounds, pruned, leaves
    out += struct.pack("<ddd", 0.0, 0.5, 0.0)  # explored, elapsed, bound seconds
    for v in (len(name), len(backend), 0, h["stacks"]):
        out += v.to_bytes(4, "little")
    out += h["open"].to_bytes(8, "little") + name + backend
    if incumbent:
        out += bytes(incumbent[1])
    for st in stacks:
        out += len(st).to_bytes(8, "little")
    for l1, l2, lb, perm in nodes:
        out += bytes([l1 + 1, l2, lb - lb_base] + perm)
    return out + (block_checksum(out).to_bytes(8, "little") if seal else b"")


def reseal_binary(data):
    """Replaces the checksum of a (modified) binary checkpoint."""
    return data[:-8] + block_checksum(data[:-8]).to_bytes(8, "little")


def main():
    if os.path.isdir(ROOT):
        for sub in ("instance", "checkpoint"):
            shutil.rmtree(os.path.join(ROOT, sub), ignore_errors=True)
    os.makedirs(os.path.join(ROOT, "instance"))
    os.makedirs(os.path.join(ROOT, "checkpoint"))
    rows = []
    rng = random.Random(13)

    def inst(name, data, exit_code, expect, needle=""):
        with open(os.path.join(ROOT, "instance", name), "wb") as f:
            f.write(data.encode("latin-1") if isinstance(data, str) else data)
        rows.append(("instance", name, exit_code, expect, needle))

    def ckpt(name, data, exit_code, expect, needle=""):
        with open(os.path.join(ROOT, "checkpoint", name), "wb") as f:
            f.write(data.encode("latin-1") if isinstance(data, str) else data)
        rows.append(("checkpoint", name, exit_code, expect, needle))

    def spec(text, needle):
        rows.append(("spec", text, 2, "-", needle))

    with open(os.path.join(ROOT, "checkpoint_instance.txt"), "w") as f:
        f.write(taillard_text(TIMES, header=False))
    opt, opt_perm = optimum(TIMES)
    small = [[3, 1, 4, 1, 5], [9, 2, 6, 5, 3], [5, 8, 9, 7, 9]]
    small_opt, _ = optimum(small)
    base = taillard_text(small)

    # --- valid instances: must solve to the optimum -------------------------------------------
    inst("valid_lf.txt", base, 0, small_opt)
    inst("valid_crlf.txt", crlf(base), 0, small_opt)
    inst("valid_bom.txt", "\xef\xbb\xbf" + base, 0, small_opt)
    inst("valid_bom_crlf.txt", "\xef\xbb\xbf" + crlf(base), 0, small_opt)
    inst("valid_tabs.txt", base.replace(" ", "\t"), 0, small_opt)
    inst("valid_mixed_blanks.txt", "5 \t 3\n\t3  1\t4 1 5 \n 9 2\t\t6 5 3\n5 8 9 7 9\f\n\n", 0, small_opt)
    inst("valid_no_final_newline.txt", base.rstrip("\n"), 0, small_opt)
    inst("valid_job_rows_crlf.txt", crlf(job_rows_text(small, base=1)), 0, small_opt)
    inst("valid_job_rows_tabs.txt", job_rows_text(small).replace(" ", "\t"), 0, small_opt)
    limit = 2147483647 // (2148 + 1 - 1)  # n + m - 1 cells: the largest time allowed at 2148 x 1
    inst("valid_times_at_32bit_limit.txt", "2148 1\n" + " ".join(["1"] * 2147 + [str(limit)]) + "\n", 0,
         2147 + limit)

    # --- empty and blank ------------------------------------------------------------------------
    inst("empty.txt", "", 2, 0, "empty file")
    inst("blank_lines.txt", "\n \n\t\n\r\n", 2, 0, "empty file")
    inst("header_only.txt", "number of jobs, number of machines\n", 2, 0, "empty file")
    inst("bom_only.txt", "\xef\xbb\xbf", 2, 0, "empty file")

    # --- truncated ------------------------------------------------------------------------------
    inst("truncated_sizes_line.txt", "5\n", 2, 1, "expected 'n m'")
    inst("truncated_after_sizes.txt", "5 3\n", 2, 1, "truncated")
    cut = base[: base.index("9 2 6")]
    inst("truncated_matrix.txt", cut, 2, 4, "truncated")
    inst("truncated_mid_row.txt", base[: base.index("6 5 3")], 2, 5, "truncated")
    inst("truncated_job_rows.txt", "\n".join(job_rows_text(small).splitlines()[:3]) + "\n", 2, 3,
         "truncated")

    # --- byte-flipped ---------------------------------------------------------------------------
    def flip(text, old, new):
        i = text.index(old)
        return text[:i] + new + text[i + len(old):]
    inst("flipped_digit_to_letter.txt", flip(base, "9 2 6", "9 2 g"), 2, 5, "expected an integer processing time")
    inst("flipped_digit_to_minus.txt", flip(base, "9 2 6", "9 2 -"), 2, 5, "expected an integer processing time")
    inst("flipped_space_to_dot.txt", flip(base, "9 2 6", "9.2 6"), 2, 5, "expected 5 processing times")
    inst("flipped_digit_to_dot.txt", flip(base, "9 2 6", "9 . 6"), 2, 5, "expected an integer processing time")
    inst("flipped_newline_to_space.txt", flip(base, "5\n9 2", "5 9 2"), 2, 5, "truncated")
    inst("flipped_sizes.txt", flip(base, "5 3", "5 4"), 2, 6, "truncated")
    inst("flipped_high_bit.txt", flip(base, "9 2 6", "9 2 \xb6"), 2, 5, "\\xb6")
    inst("flipped_nul.txt", flip(base, "9 2 6", "9 2 \x00"), 2, 5, "\\x00")

    # --- oversized numbers ----------------------------------------------------------------------
    inst("oversized_time.txt", flip(base, "9 2 6", "9 2 99999999999999999999"), 2, 5, "out of range")
    inst("oversized_time_int32.txt", flip(base, "9 2 6", "9 2 2147483648"), 2, 5, "too large")
    inst("oversized_time_above_max.txt", flip(base, "9 2 6", "9 2 1000001"), 2, 5, "at most 1000000")
    inst("oversized_n.txt", "99999999999999999999 3\n1 2 3\n", 2, 1, "out of range")
    inst("oversized_m.txt", "3 -99999999999999999999\n1 2 3\n", 2, 1, "out of range")
    inst("oversized_machine_index.txt", "2 2\n0 5 99999999999999999999 6\n0 7 1 8\n", 2, 2, "expected")

    # --- wrong sizes ----------------------------------------------------------------------------
    inst("zero_jobs.txt", "0 3\n", 2, 1, "number of jobs")
    inst("negative_machines.txt", "3 -1\n1 2 3\n", 2, 1, "number of machines")
    inst("short_row.txt", flip(base, "9 2 6 5 3", "9 2 6 5"), 2, 5, "expected 5 processing times")
    inst("long_row.txt", flip(base, "9 2 6 5 3", "9 2 6 5 3 1"), 2, 5, "expected 5 processing times")
    inst("extra_rows.txt", base + "1 2 3 4 5\n", 2, 7, "unexpected data after the 3 machine rows")
    inst("zero_time.txt", flip(base, "9 2 6", "9 0 6"), 2, 5, "positive")
    inst("negative_time.txt", flip(base, "9 2 6", "9 -2 6"), 2, 5, "positive")
    inst("job_rows_machine_order.txt", "3 2\n0 5 1 6\n1 7 0 8\n0 1 1 2\n", 2, 3, "expected machine 0")
    inst("text_in_matrix.txt", flip(base, "9 2 6 5 3", "nine 2 6 5 3"), 2, 5, "unexpected text inside the processing-time matrix")

    # --- huge n and m (refused on the sizes line, before anything that size is allocated) --------
    inst("huge_n.txt", "65536 20\n1 2 3\n", 2, 1, "1..65535")
    inst("huge_m.txt", "20 1001\n1 2 3\n", 2, 1, "1..1000")
    inst("huge_lb2_tables.txt", "# n m (m - 1) / 2 too large\n1000 1000\n1 2 3\n", 2, 2, "too large")
    inst("huge_n_truncated.txt", "65535 20\n" + " ".join(["7"] * 100) + "\n", 2, 2, "truncated")
    inst("huge_int_max.txt", "2147483647 2147483647\n", 2, 1, "number of jobs")

    # --- times that would overflow a 32-bit makespan ---------------------------------------------
    inst("overflow_32bit_makespan.txt", "2148 1\n" + " ".join(["1"] * 2147 + [str(limit + 1)]) + "\n", 2, 2,
         f"at most {limit}")
    inst("overflow_32bit_job_rows.txt", "2147 2\n" + "".join(
        f"0 1 1 {limit + 1 if j == 2146 else 1}\n" for j in range(2147)), 2, 2148, "32 bits")

    # --- line ends, tabs, byte order marks -------------------------------------------------------
    inst("lone_cr.txt", base.replace("\n", "\r"), 2, 1, "carriage return without a line feed")
    inst("lone_cr_in_row.txt", flip(base, "9 2 6", "9 2\r6"), 2, 5, "carriage return without a line feed")
    inst("bom_twice.txt", "\xef\xbb\xbf\xef\xbb\xbf" + taillard_text(small, header=False), 2, 1,
         "\\xef\\xbb\\xbf5")
    inst("utf16le_bom.txt", "\xff\xfe" + "".join(c + "\x00" for c in taillard_text(small, header=False)), 2, 1,
         "expected")

    # --- binary garbage --------------------------------------------------------------------------
    inst("binary_png_header.bin", b"\x89PNG\r\n\x1a\n" + bytes(rng.randrange(256) for _ in range(200)), 2, 1,
         "expected")
    inst("binary_gzip_header.bin", b"\x1f\x8b\x08\x00" + bytes(rng.randrange(256) for _ in range(200)), 2, 1,
         "expected")
    inst("binary_zeros.bin", b"\x00" * 64, 2, 1, "expected 'n m'")

    # --- random:N,M,SEED ---------------------------------------------------------------------------
    spec("random:99999999999999999999,3,1", "out of range")
    spec("random:5,3,99999999999999999999", "out of range")
    spec("random:65536,3,1", "N must be in 1..65535")
    spec("random:5,1001,1", "M in 1..1000")
    spec("random:1000,1000,1", "too large")
    spec("random:5,3,0", "SEED")
    spec("random:5,3", "random:N,M,SEED")
    spec("random:5,3,1,", "expected an integer")
    spec("random:5,,1", "expected an integer")
    spec("random:5x,3,1", "expected an integer")

    # --- checkpoints -----------------------------------------------------------------------------
    ckpt("valid_root.ckpt", checkpoint(), 0, opt)
    children = [[(0, N, 0, [j] + [i for i in range(N) if i != j])] for j in range(N)]
    ckpt("valid_seven_stacks.ckpt", checkpoint(stacks=children), 0, opt)
    ckpt("valid_complete.ckpt", checkpoint(stacks=[[]], complete=True, incumbent=(opt, opt_perm), threshold=opt), 0,
         opt)
    ckpt("valid_incumbent.ckpt", checkpoint(incumbent=(makespan(TIMES, list(range(N))), list(range(N)))), 0, opt)
    good = checkpoint()
    good_lines = good.splitlines(keepends=True)
    ckpt("empty.ckpt", "", 2, 0, "empty file")
    ckpt("truncated_half.ckpt", "".join(good_lines[:10]), 2, 11, "truncated")
    ckpt("truncated_mid_line.ckpt", good[: good.index("explored") + 5], 2, 16, "no newline")
    ckpt("truncated_before_end.ckpt", "".join(good_lines[:-1]), 2, len(good_lines), "expected a line 'end")
    flipped = good.replace("elapsed 0.5", "elapsed 0.6")
    ckpt("flipped_checksum.ckpt", flipped, 2, len(good_lines), "checksum")
    ckpt("flipped_key.ckpt", good.replace("bound lb1", "bound lb3"), 2, 6, "expected one of")
    ckpt("flipped_node_job.ckpt", good.replace(f"node -1 {N} 0 0 1", f"node -1 {N} 0 0 0"), 2, 22, "appears twice")
    ckpt("flipped_high_bit.ckpt", good.replace("n 7", "n \xb7"), 2, 3, "must be an integer")
    ckpt("wrong_version.ckpt", good.replace("pfsp-checkpoint 1", "pfsp-checkpoint 9"), 2, 1, "not supported")
    ckpt("oversized_n.ckpt", checkpoint(fields={"n": "99999999999999999999"}), 2, 3, "must be an integer")
    ckpt("oversized_count.ckpt", checkpoint(fields={"branched": "99999999999999999999"}), 2, 12, "non-negative")
    ckpt("oversized_ub_int32.ckpt", checkpoint(fields={"ub": "2147483648"}), 2, 8, "out of range")
    ckpt("oversized_lb_int32.ckpt", checkpoint(stacks=[[(-1, N, 2147483648, list(range(N)))]]), 2, 22,
         "out of range")
    ckpt("huge_n.ckpt", checkpoint(fields={"n": "65535"}), 2, 22, "'node'")
    ckpt("huge_n_out_of_range.ckpt", checkpoint(fields={"n": "65536"}), 2, 3, "out of range")
    ckpt("huge_stacks.ckpt", checkpoint(fields={"stacks": "1048577"}), 2, 20, "1048576")
    big_stack = checkpoint(seal=False).replace("stack 1\n", "stack 4000000000\n")
    ckpt("huge_stack_size.ckpt", big_stack, 2, 21, "cannot fit")
    ckpt("wrong_limits.ckpt", checkpoint(stacks=[[(5, 6, 0, list(range(N)))]]), 2, 22, "limit2")
    ckpt("wrong_sizes_n.ckpt", checkpoint(fields={"n": "6"}), 2, 22, "'node'")
    ckpt("wrong_instance_m.ckpt", checkpoint(fields={"m": "4"}), 2, 0, "cannot resume")
    ckpt("wrong_times_hash.ckpt", checkpoint(fields={"times-fnv1a": "0123456789abcdef"}), 2, 0,
         "different processing times")
    ckpt("wrong_incumbent_makespan.ckpt", checkpoint(incumbent=(opt - 1, opt_perm)), 2, 0, "makespan")
    ckpt("complete_with_nodes.ckpt", checkpoint(complete=True, incumbent=(opt, opt_perm)), 2, 0,
         "complete but has open nodes")
    ckpt("trailing_text.ckpt", good + "x\n", 2, len(good_lines) + 1, "after the 'end' line")
    ckpt("crlf.ckpt", crlf(good), 2, 1, "CR LF")
    ckpt("tabs.ckpt", reseal(checkpoint(seal=False).replace("n 7", "n\t7")), 2, 3, "expected a line 'n")
    ckpt("binary_garbage.bin", bytes(rng.randrange(256) for _ in range(300)), 2, 1, "expected")
    ckpt("binary_zeros.bin", b"\x00" * 64, 2, 1, "expected")

    # Binary checkpoints (version 2): byte offsets instead of lines (expect 0: "FILE: byte offset K")
    bgood = binary_checkpoint()
    ckpt("valid_root_v2.ckpt", bgood, 0, opt)
    ckpt("valid_seven_stacks_v2.ckpt", binary_checkpoint(stacks=children), 0, opt)
    ckpt("valid_complete_v2.ckpt", binary_checkpoint(stacks=[[]], complete=True, incumbent=(opt, opt_perm),
                                                     threshold=opt), 0, opt)
    ckpt("truncated_magic_v2.ckpt", bgood[:5], 2, 0, "truncated")
    ckpt("truncated_header_v2.ckpt", bgood[:100], 2, 0, "truncated")
    ckpt("truncated_nodes_v2.ckpt", bgood[:-9], 2, 0, "truncated")
    ckpt("flipped_checksum_v2.ckpt", bgood[:60] + bytes([bgood[60] ^ 0x10]) + bgood[61:], 2, 0, "checksum")
    ckpt("flipped_job_v2.ckpt", reseal_binary(bgood[:-9] + bytes([bgood[-9] ^ 1]) + bgood[-8:]), 2, 0,
         "permutation")
    ckpt("wrong_version_v2.ckpt", binary_checkpoint(header={"version": 7}), 2, 0, "version")
    ckpt("wrong_job_width_v2.ckpt", binary_checkpoint(header={"job_width": 2}), 2, 0, "width")
    ckpt("huge_open_count_v2.ckpt", binary_checkpoint(header={"open": 1 << 62}), 2, 0, "truncated")
    ckpt("huge_n_v2.ckpt", binary_checkpoint(header={"n": 70000}), 2, 0, "n")
    ckpt("wrong_times_hash_v2.ckpt", binary_checkpoint(header={"hash": 0x0123456789ABCDEF}), 2, 0,
         "different processing times")
    ckpt("wrong_instance_m_v2.ckpt", binary_checkpoint(header={"m": 4}), 2, 0, "cannot resume")
    ckpt("trailing_bytes_v2.ckpt", reseal_binary(bgood[:-8] + b"xx" + bgood[-8:]), 2, 0, "")

    with open(os.path.join(ROOT, "expected.tsv"), "w") as f:
        f.write("# kind\tname\texit\texpect\tneedle  (written by scripts/make_fuzz_corpus.py)\n")
        for r in rows:
            f.write("\t".join(map(str, r)) + "\n")
    print(f"make_fuzz_corpus: {len(rows)} cases under {os.path.normpath(ROOT)}", file=sys.stderr)


if __name__ == "__main__":
    main()
