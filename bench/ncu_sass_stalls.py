#!/usr/bin/env python3
"""Where a kernel's warps stall, grouped by how often each SASS instruction runs.

    ncu_sass_stalls.py SOURCE.csv [--top N]

SOURCE.csv: `ncu -i REPORT.ncu-rep --page source --csv --print-source sass` of a report taken with
`--set full --import-source yes` (one block of rows a kernel). For each kernel, the instructions
are grouped by their execution count relative to the kernel's busiest one: the inner loop (at
least half of the busiest count), once a pair or similar (at least 1/25 of it), and the rest
(set-up once a thread or a child). Per group: its share of the warp-stall samples, its warp
instructions, and its main stall reasons (as shares of all samples). --top N also lists the N
instructions with the most samples. Used for decision 013 (options N and O).
"""
import argparse
import collections
import csv
import sys

SAMPLES = 'Warp Stall Sampling (All Samples)'


def kernels(path):
    """(name, rows) per kernel block of the CSV; a kernel repeated (ncu prints each once a result) once."""
    rows = list(csv.reader(open(path, newline='')))
    out, seen, i = [], set(), 0
    while i < len(rows):
        if rows[i] and rows[i][0] == 'Kernel Name':
            name, header, body = rows[i][1], rows[i + 1], []
            i += 2
            while i < len(rows) and not (rows[i] and rows[i][0] == 'Kernel Name'):
                if rows[i]:
                    body.append(dict(zip(header, rows[i])))
                i += 1
            key = (name, len(body))
            if key not in seen:
                seen.add(key)
                out.append((name, body))
        else:
            i += 1
    return out


def number(row, key):
    try:
        return int(row.get(key) or 0)
    except ValueError:
        return 0


def report(name, body, top):
    stalls = sorted({k for r in body for k in r if k.startswith('stall_') and 'Not Issued' not in k})
    total = sum(number(r, SAMPLES) for r in body) or 1
    busiest = max((number(r, 'Instructions Executed') for r in body), default=1) or 1
    groups = collections.OrderedDict(
        (g, [0, 0, 0, collections.Counter()]) for g in ('inner loop', 'once a pair', 'set-up'))
    for r in body:
        e = number(r, 'Instructions Executed')
        g = 'inner loop' if e * 2 >= busiest else 'once a pair' if e * 25 >= busiest else 'set-up'
        acc = groups[g]
        acc[0] += number(r, SAMPLES)
        acc[1] += e
        acc[2] += 1
        for s in stalls:
            acc[3][s] += number(r, s)
    print(name)
    print(f'  {total} samples, {sum(number(r, "Instructions Executed") for r in body) / 1e6:.2f} M warp instructions')
    for g, (s, e, lines, c) in groups.items():
        reasons = ', '.join(f'{k[6:]} {v / total:.1%}' for k, v in c.most_common(4) if v)
        print(f'  {g:12s} {s / total:6.1%} of samples, {e / 1e6:8.2f} M warp instr, {lines:5d} SASS lines: {reasons}')
    if top:
        for r in sorted(body, key=lambda r: -number(r, SAMPLES))[:top]:
            main = max(stalls, key=lambda k: number(r, k)) if stalls else ''
            print(f"    {number(r, SAMPLES) / total:6.1%} {main[6:]:14s} x{number(r, 'Instructions Executed'):<9d} "
                  f"{r.get('Source', '').strip()[:80]}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('csv')
    ap.add_argument('--top', type=int, default=0)
    a = ap.parse_args()
    ks = kernels(a.csv)
    if not ks:
        sys.exit(f'{a.csv}: no "Kernel Name" block (expected ncu --page source --csv --print-source sass)')
    for name, body in ks:
        report(name, body, a.top)


if __name__ == '__main__':
    main()
