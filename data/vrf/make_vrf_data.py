#!/usr/bin/env python3
"""Builds the VRF data set (data/vrf/README.md) from two git snapshots.

  make_vrf_data.py PBB_GIT DOGS_GIT OUT_DIR

PBB_GIT:  a git directory of github jangmys/pbb (the instances, instancesVRF.data and the VRF
          authors' on-line supplement, evaluation/flowshop/data/vrf_parameters/*.pdf).
DOGS_GIT: a git directory of github librallu/dogs-pfsp (permutations found by iterative beam search
          on the 240 large instances, experiments/vfr_large_makespan_2021_07_29/solver_results/).
OUT_DIR:  receives vrf_small.tar.xz, vrf_large.tar.xz, vrf_bounds.csv, vrf_best_permutations.csv.

Needs tar, xz and pdftotext (Debian poppler-utils). Reads nothing but the two snapshots; every
best_ub taken from dogs-pfsp is recomputed here from its permutation, and is used only if it is
below the VRF upper bound and not below the VRF lower bound.
"""
import csv
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

PBB_DATA = "evaluation/flowshop/data"
DOGS_RESULTS = "experiments/vfr_large_makespan_2021_07_29/solver_results"
NAME = re.compile(r"VFR(\d+)_(\d+)_(\d+)$")


def git(repo, *args, text=True):
    return subprocess.run(["git", "-C", repo, *args], check=True, capture_output=True, text=text).stdout


def read_instance(path):
    t = path.read_text().split()
    n, m = int(t[0]), int(t[1])
    v = list(map(int, t[2:]))
    assert len(v) == 2 * n * m, path
    p = []
    for j in range(n):
        row = v[2 * j * m:2 * (j + 1) * m]
        assert row[0::2] == list(range(m)), f"{path}: job {j} does not visit machines 0..m-1 in order"
        p.append(row[1::2])
    return n, m, p


def makespan(p, perm, m):
    c = [0] * m
    for j in perm:
        c[0] += p[j][0]
        for k in range(1, m):
            c[k] = max(c[k], c[k - 1]) + p[j][k]
    return c[-1]


def supplement_bounds(pdf):
    """Tables 1 and 2 of the on-line supplement: name n m UB LB difference gap."""
    txt = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], check=True, capture_output=True, text=True).stdout
    out = {}
    for line in txt.splitlines():
        t = line.split()
        if t and NAME.match(t[0]):
            n, m = map(int, NAME.match(t[0]).groups()[:2])
            assert (int(t[1]), int(t[2])) == (n, m), line
            ub, lb = int(t[3]), int(t[4])
            assert ub - lb == int(t[5]), line
            out[t[0]] = (lb, ub)
    return out


def main():
    pbb, dogs, out = sys.argv[1], sys.argv[2], Path(sys.argv[3])
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        raw = tmp / "raw"
        raw.mkdir()
        archive = git(pbb, "archive", "HEAD", f"{PBB_DATA}/vrf_parameters", text=False)
        subprocess.run(["tar", "x", "-C", str(raw), "--strip-components=4"], input=archive, check=True)
        for d in ("Small", "Large"):
            (tmp / d).mkdir()
        names = {}
        for f in sorted(raw.glob("VFR*_Gap.txt")):
            name = f.name[:-len("_Gap.txt")]
            n = int(NAME.match(name).group(1))
            d = "Small" if n <= 60 else "Large"
            f.rename(tmp / d / f.name)
            names[name] = tmp / d / f.name
        assert len(names) == 480, len(names)
        for d in ("Small", "Large"):
            with open(out / f"vrf_{d.lower()}.tar.xz", "wb") as fo:
                tar = subprocess.Popen(["tar", "--sort=name", "--mtime=@0", "--owner=0", "--group=0", "--numeric-owner",
                                        "-C", str(tmp), "-cf", "-", d], stdout=subprocess.PIPE)
                subprocess.run(["xz", "-9", "-T1"], stdin=tar.stdout, stdout=fo, check=True)
                assert tar.wait() == 0

        pdf = next(raw.glob("*.pdf"))
        bounds = supplement_bounds(pdf)
        assert set(bounds) == set(names), "supplement and instance files name different instances"

        # instancesVRF.data (pbb's own copy of the table): report where it differs from the supplement.
        for line in git(pbb, "show", f"HEAD:{PBB_DATA}/instancesVRF.data").splitlines():
            t = line.split()
            if t and NAME.match(t[0]):
                ub, lb = int(t[-2]), int(t[-1])
                if (lb, ub) != bounds[t[0]] or len(t) != 6:
                    print(f"instancesVRF.data differs: {line.strip()!r}; supplement lb {bounds[t[0]][0]} ub {bounds[t[0]][1]}")

        # Best permutations from dogs-pfsp, recomputed on our copy of the instance.
        best = {}
        for f in git(dogs, "ls-tree", "--name-only", "HEAD", DOGS_RESULTS + "/").split():
            mt = re.search(r"/(IBS_\w+?)_(VFR\d+_\d+_\d+)\.sol$", f)
            if not mt:
                continue
            config, name = mt.groups()
            n, m, p = read_instance(names[name])
            perm = list(map(int, git(dogs, "show", "HEAD:" + f).split()))
            assert sorted(perm) == list(range(n)), f
            c = makespan(p, perm, m)
            stats = json.loads(git(dogs, "show", "HEAD:" + f[:-4] + ".stats.json"))
            assert stats["best_primal"] == c, f"{f}: recomputed {c}, file says {stats['best_primal']}"
            if name not in best or c < best[name][0]:
                best[name] = (c, config, perm)

    def key(name):
        return tuple(map(int, NAME.match(name).groups()))

    rows, perms = [], []
    for name in sorted(names, key=key):
        n, m, i = key(name)
        lb, ub = bounds[name]
        best_ub, best_src = ub, "VRF2015"
        if name in best and best[name][0] < ub:
            assert best[name][0] >= lb, name
            best_ub, best_src = best[name][0], "dogs-pfsp:" + best[name][1]
            perms.append({"name": name, "makespan": best_ub, "source": best_src,
                          "permutation": " ".join(map(str, best[name][2]))})
        rows.append({"name": name, "jobs": n, "machines": m, "lb": lb, "ub": ub, "source": "VRF2015",
                     "best_ub": best_ub, "best_ub_source": best_src, "optimal": 0})
    for fname, data in (("vrf_bounds.csv", rows), ("vrf_best_permutations.csv", perms)):
        with open(out / fname, "w", newline="") as fo:
            w = csv.DictWriter(fo, fieldnames=list(data[0]), lineterminator="\n")
            w.writeheader()
            w.writerows(data)
    print(f"{len(rows)} instances, {len(perms)} best_ub below the VRF upper bound (verified permutations)")


if __name__ == "__main__":
    main()
