#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The table and report of harness/cachesim/run.sh (make cachesim).

Reads the plugin's output (phases PATH-cache-off and PATH-cache-on), the
guest's results.log ("measure" lines: probe hits and lookup-cache
counts per phase; the module symbols), optionally the host harness's
output for its cachegrind table, and writes OUT/table.txt and
OUT/report.md.  "The lookup" is get_kprobe() (the hash-chain walk), plus
get_kprobe_cached() and kprobe_cache_fill() (the cache, with
kprobe_cache_probe() inlined).  Exits 1 when a phase is missing or the
counts do not add up: every call must be one probe hit, and with the
cache on every hit one cache lookup (none with it off).
"""

import argparse
import contextlib
import datetime
import io
import os
import re
import sys

sys.dont_write_bytecode = True  # no __pycache__ in harness/cachesim
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# pylint: disable=wrong-import-position
import symbolize  # noqa: E402

LOOKUP = ('get_kprobe', 'get_kprobe_cached', 'kprobe_cache_fill')
GOAL = 10.0


def parse_measures(path):
    """The guest's "measure key=value..." lines, as dicts."""
    out = []
    with open(path, encoding='ascii', errors='replace') as f:
        for line in f:
            if line.startswith('measure '):
                out.append(dict(kv.split('=', 1)
                                for kv in line.split()[1:] if '=' in kv))
    return out


def cachegrind_table(path):
    """The cachegrind part of the host harness's output, with its date."""
    with open(path, encoding='utf-8', errors='replace') as f:
        lines = f.read().splitlines()
    keep = [x for x in lines[:1] if x.startswith('# ')]
    on = False
    for line in lines:
        if line.startswith('simulated caches'):
            on = True
        elif on and (not line.strip() or line.startswith('[')):
            break
        if on:
            keep.append(line)
    return keep


def header_args(path):
    """The plugin's settings from its output's first line."""
    with open(path, encoding='ascii', errors='replace') as f:
        first = f.readline().split()
    return dict(kv.split('=', 1) for kv in first[2:] if '=' in kv)


def ratio(a, b):
    if b:
        return a / b
    return float('inf') if a else float('nan')


def fmt_ratio(r):
    if r != r:  # nan
        return 'n/a'
    return 'inf' if r == float('inf') else f'{r:.0f}x' if r >= 100 \
        else f'{r:.1f}x'


def size(v):
    v = int(v)
    for unit, div in (('MiB', 1 << 20), ('KiB', 1 << 10)):
        if v >= div and v % div == 0:
            return f'{v // div} {unit}'
    return f'{v} B'


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--out', required=True, help='directory for the files')
    ap.add_argument('--cachesim', required=True, help='plugin output')
    ap.add_argument('--syms', action='append', default=[])
    ap.add_argument('--results', required=True, help="the guest's results.log")
    ap.add_argument('--hostbench', help='hostbench.sh output')
    ap.add_argument('--validation', default='not run')
    ap.add_argument('--validate-file', help="validate.sh's output")
    ap.add_argument('--qemu-secs', type=float, default=0)
    ap.add_argument('--wall-secs', type=float, default=0)
    ap.add_argument('--setting', action='append', default=[],
                    metavar='KEY=VALUE')
    ap.add_argument('--top', type=int, default=12)
    args = ap.parse_args()

    settings = dict(s.split('=', 1) for s in args.setting)
    model = header_args(args.cachesim)
    phases = symbolize.read_phases(args.cachesim)
    syms = symbolize.Symbols(args.syms)
    measures = parse_measures(args.results)
    errors = []
    if not measures:
        errors.append('no "measure" lines in ' + args.results)

    # cols: (path, state, measure, per-symbol counts, totals)
    cols = []
    for m in measures:
        label = m.get('phase', '')
        got = [p for p in phases if p.label == label]
        if not got:
            errors.append(f'no plugin phase {label}')
            continue
        per, total = symbolize.by_symbol(got, syms)
        loops, hits = int(m['loops']), int(m.get('hits') or 0)
        ch, cm = int(m['cache_hits']), int(m['cache_misses'])
        # Lookups sent to the table while the hot set overflows the cache.
        cb = int(m.get('cache_bypassed') or 0)
        if hits != loops:
            errors.append(f'{label}: {hits} probe hits for {loops} calls')
        # test_kprobe_bench calls each hot site once, untimed and not
        # counted in its hits, before a round: the cache sees H more.
        pre = int(settings.get('H') or 0)
        if m['cache'] == 'on' and ch + cm + cb != hits + pre:
            errors.append(f'{label}: {ch + cm + cb} cache lookups for {hits} hits'
                          f' and {pre} calls of the untimed pass')
        if m['cache'] == 'off' and ch + cm + cb:
            errors.append(f'{label}: {ch + cm + cb} cache lookups with the '
                          'cache off')
        if any(p.other.get('model') == 'off' for p in got):
            errors.append(f'{label}: the model was off')
        cols.append((m['path'], m['cache'], m, per, total))

    def per_hit(col, count):
        return count / max(1, int(col[2]['hits']))

    def share(col, names, lvl):
        per, total = col[3], col[4]
        return symbolize.pct(sum(per.get(n, [0, 0, 0])[lvl] for n in names),
                   total[lvl])

    rows = []

    def row(name, fn):
        rows.append([name] + [fn(c) for c in cols])

    row('probe hits', lambda c: f'{int(c[2]["hits"]):,}')
    row('cache lookups hit/miss/bypassed',
        lambda c: (f'{int(c[2]["cache_hits"]):,}/'
                   f'{int(c[2]["cache_misses"]):,}/'
                   f'{int(c[2].get("cache_bypassed") or 0):,}'
                   if c[1] == 'on' else '-'))
    row('accesses per hit',
        lambda c: f'{c[4][0] / max(1, int(c[2]["hits"])):,.1f}')
    row('get_kprobe accesses per hit',
        lambda c: f'{per_hit(c, c[3].get("get_kprobe", [0])[0]):,.1f}')
    for lvl, name in ((1, 'L1'), (2, 'LL')):
        row(f'{name} misses', lambda c, lvl=lvl: f'{c[4][lvl]:,}')
        row(f'{name} misses per hit',
            lambda c, lvl=lvl: f'{c[4][lvl] / max(1, int(c[2]["hits"])):.2f}')
    for lvl, name in ((1, 'L1'), (2, 'LL')):
        row(f'get_kprobe, share of {name} misses',
            lambda c, lvl=lvl: f'{share(c, ("get_kprobe",), lvl):.2f}%')
    for lvl, name in ((1, 'L1'), (2, 'LL')):
        row(f'the lookup, share of {name}',
            lambda c, lvl=lvl: f'{share(c, LOOKUP, lvl):.2f}%')

    date = datetime.date.today().isoformat()
    t = []
    t.append(f'cachesim: modelled data-cache misses of a kprobe hit, '
             f'QEMU TCG (2 vCPUs), {date}')
    t.append(f'model: index={model.get("index", "?")}, L1 '
             f'{size(model.get("l1", "0/0").split("/")[0])} '
             f'{model.get("l1", "0/0").split("/")[1]}-way per vCPU, LL '
             f'{size(model.get("ll", "0/0").split("/")[0])} '
             f'{model.get("ll", "0/0").split("/")[1]}-way shared, '
             f'{model.get("line", "?")} B lines; validation: '
             f'{args.validation}')
    if settings.get('ORDER') == 'head':
        order = ('before', 'so the hot ones sit at the hash chain heads')
    else:
        order = ('after', 'so the hot ones sit at the hash chain tails')
    t.append(f'workload: test_kprobe_bench, {int(settings.get("N", 0)):,} '
             f'disabled fill probes registered {order[0]} '
             f'{settings.get("H")} armed per path ({order[1]}), '
             f'{settings.get("H")} hot sites called round robin on CPU 1, '
             f'{int(settings.get("LOOPS", 0)):,} hits per phase')
    t.append('the lookup: get_kprobe (the chain walk, about 2 accesses '
             'per chain entry) + get_kprobe_cached + kprobe_cache_fill')
    t.append('')
    width = max(len(r[0]) for r in rows) + 2
    paths = []
    for c in cols:
        if c[0] not in paths:
            paths.append(c[0])
    cw = max([13] + [len(v) + 2 for r in rows for v in r[1:]])
    line = ' ' * width
    for p in paths:
        n = sum(1 for c in cols if c[0] == p)
        line += f'{p:^{cw * n}}'
    t.append(line.rstrip())
    t.append(f'{"":{width}}' + ''.join(f'{"cache " + c[1]:>{cw}}'
                                       for c in cols))
    for r in rows:
        t.append(f'{r[0]:{width}}' + ''.join(f'{v:>{cw}}' for v in r[1:]))
    t.append('')

    for p in paths:
        off = [c for c in cols if c[0] == p and c[1] == 'off']
        on = [c for c in cols if c[0] == p and c[1] == 'on']
        if not off or not on:
            errors.append(f'{p}: cache off or on phase missing')
            continue
        off, on = off[0], on[0]
        hoff, hon = int(off[2]['hits']), int(on[2]['hits'])
        if not hoff or not hon:
            continue
        for lvl, name in ((2, 'LL'), (1, 'L1')):
            a = share(off, ('get_kprobe',), lvl)
            b = share(on, ('get_kprobe',), lvl)
            la, lb = share(off, LOOKUP, lvl), share(on, LOOKUP, lvl)
            r = ratio(a, b)
            mph = ratio(off[4][lvl] / hoff, on[4][lvl] / hon)
            ran = on[3].get('get_kprobe', [0])[0]
            why = '' if ran or b else ', get_kprobe never ran'
            if not off[4][lvl] or not a:
                verdict = 'n/a (get_kprobe has no such misses to lose)'
            elif r >= GOAL:
                verdict = 'met'
            else:
                verdict = 'NOT met'
            t.append(f'{p} {name}: get_kprobe {a:.2f}% -> {b:.2f}% of the '
                     f'misses ({fmt_ratio(r)}{why}); the lookup {la:.2f}% '
                     f'-> {lb:.2f}% ({fmt_ratio(ratio(la, lb))}); misses '
                     f'per hit {off[4][lvl] / hoff:.2f} -> '
                     f'{on[4][lvl] / hon:.2f} ({fmt_ratio(mph)} fewer); '
                     f'goal (get_kprobe share down >= {GOAL:.0f}x) '
                     f'{verdict}')
    t.append('')

    for p in paths:
        sel = [f'{p}-cache-off', f'{p}-cache-on']
        hits = [int(c[2]['hits']) for s in sel for c in cols
                if c[2]['phase'] == s]
        if len(hits) != 2:
            continue
        for sort in ('ll', 'l1'):
            buf = io.StringIO()
            with contextlib.redirect_stdout(buf):
                symbolize.compare(phases, syms, sel[0], sel[1], hits, sort,
                                  args.top)
            t.append(f'{p}: top symbols by share of '
                     f'{sort.upper()} misses, per hit and share')
            t.extend('  ' + x for x in buf.getvalue().splitlines())
            t.append('')

    if args.hostbench:
        cg = cachegrind_table(args.hostbench) if os.path.exists(
            args.hostbench) else []
        t.append('host harness (tools/testing/kprobe_cache under cachegrind, '
                 'the host CPU\'s caches; a cold lookup: caches flushed '
                 'before each):')
        t.extend('  ' + x for x in cg) if cg else t.append('  (missing)')
        t.append('')
    if args.qemu_secs or args.wall_secs:
        t.append(f'QEMU boot {args.qemu_secs:.0f} s, whole run '
                 f'{args.wall_secs:.0f} s ({args.wall_secs / 60:.1f} min)')
    for e in errors:
        t.append('ERROR: ' + e)

    table = '\n'.join(t) + '\n'
    with open(os.path.join(args.out, 'table.txt'), 'w',
              encoding='utf-8') as f:
        f.write(table)
    stats = []
    with open(args.results, encoding='ascii', errors='replace') as f:
        on = False
        for line in f:
            if line.startswith('### CACHE_STATS'):
                on = True
            elif line.startswith('### END CACHE_STATS'):
                on = False
            elif on:
                stats.append(line.rstrip())
    timing = [p for p in phases if p.label != 'start']
    with open(args.results, encoding='ascii', errors='replace') as f:
        progress = [x.rstrip() for x in f if x.startswith('# [')]
    vlines = []
    if args.validate_file and os.path.exists(args.validate_file):
        with open(args.validate_file, encoding='utf-8',
                  errors='replace') as f:
            for x in f:
                if x.startswith('boot phase'):
                    break
                if x.startswith('walk ') or vlines:
                    vlines.append(x.rstrip())
    with open(os.path.join(args.out, 'report.md'), 'w',
              encoding='utf-8') as f:
        f.write('# cachesim: the kprobe lookup cache under a modelled '
                'data cache\n\n')
        f.write('`make cachesim` (harness/cachesim/run.sh); settings: ' +
                ', '.join(f'{k}={v}' for k, v in settings.items()) +
                '\n\n```\n' + table + '```\n\n')
        f.write('## The guest\'s progress (guest clock; the set-up '
                'runs unmodelled)\n\n```\n' + '\n'.join(progress) +
                '\n```\n\n')
        f.write('## Phases (host seconds under the plugin)\n\n```\n')
        for p in timing:
            f.write(f'{p.name()}: {p.total[0]:,} accesses, {p.total[1]:,} '
                    f'L1 and {p.total[2]:,} LL misses, '
                    f'{p.other.get("secs", "?")} s\n')
        f.write('```\n\n## kprobes/cache_stats at the end\n\n```\n' +
                '\n'.join(stats) + '\n```\n')
        if vlines:
            f.write('\n## Validation of the model (validate.sh)\n\n```\n' +
                    '\n'.join(x for x in vlines
                              if not x.startswith('[')).strip('\n') +
                    '\n```\n')
    # The goal is reported, not enforced: only broken runs fail.
    return 1 if errors else 0


if __name__ == '__main__':
    sys.exit(main())
