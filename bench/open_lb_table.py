#!/usr/bin/env python3
"""Taillard's open instances searched below their published lower bounds (issue 44 item 4): the
table open_lb_cpu.md of a results folder from the taNNN.json files (pfsp solve --json) in its runs.tgz, beside
shared/data/taillard_pfsp.csv. Usage: bench/open_lb_table.py FOLDER (from the repository root)."""
import csv, json, sys, tarfile
d = sys.argv[1].rstrip('/')
pub = {r['name']: r for r in csv.DictReader(open('shared/data/taillard_pfsp.csv'))}
rows = []
runs = tarfile.open(d + '/runs.tgz')
for member in sorted(runs.getnames()):
    if not member.endswith('.json'):
        continue
    r = json.load(runs.extractfile(member))
    name = member.split('/')[-1].split('.')[0]
    nodes = (r.get('nodes') or {}).get('branched')
    rows.append((name, pub[name]['n'] + 'x' + pub[name]['m'], pub[name]['lb'], pub[name]['ub'], r.get('status'), r.get('lower_bound'), nodes, r.get('time_seconds')))
out = ['# Taillard\'s open instances: complete searches below the published lower bound, two CPU cores',
       '',
       'This 2-core machine (2-core development machine), binary of commit c8df0c6\'s tree, one run at a time: `pfsp solve NAME --ub LB --bound lb1-lb2 --backend cpu-mt --threads 2 --improver-threads 0 --time-limit 1500` (LB: the published lower bound, shared/data/taillard_pfsp.csv). `proven_bound`: no schedule is shorter than LB, so the optimum is at least LB; `time_limit`: not proven within 1500 s.',
       '',
       '| instance | size | published lb | published ub | status | pfsp lower bound | nodes | seconds | nodes/s |',
       '| --- | --- | ---: | ---: | --- | ---: | ---: | ---: | ---: |']
for n, sz, lb, ub, st, plb, nodes, t in rows:
    out.append(f'| {n} | {sz} | {lb} | {ub} | {st} | {plb} | {nodes:,} | {t:.1f} | {nodes / t / 1e3:.0f} K |')
open(d + '/open_lb_cpu.md', 'w').write('\n'.join(out) + '\n')
print('\n'.join(out))
