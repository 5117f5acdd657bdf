#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Attribute the cachesim plugin's per-PC counts to symbols.

Usage:
  symbolize.py OUTFILE --syms FILE [--syms FILE...] [--phase SEL...] [--top N]
  symbolize.py OUTFILE --syms FILE... --compare SEL_A SEL_B [--hits HA HB]
                       [--sort ll|l1] [--top N]
  symbolize.py OUTFILE --syms FILE... --tsv

OUTFILE is what cachesim.so wrote (outfile=).  A symbol FILE is anything
with lines "ADDRESS TYPE NAME [MODULE]": /proc/kallsyms as the guest
printed it (modules included), a results.log that contains such a dump,
System.map, or `nm` output of a guest program; only text symbols (t T w
W) are used.  A PC belongs to the nearest symbol at or below it (at most
1 MiB away); the rest is "[user/boot]" (below the kernel half: user space,
and while booting the BIOS and the bzImage decompressor) or "[unknown]".

A selector SEL picks phases by label ("cache-off"), by the id given to
cachesim-mark ("3") or by sequence number ("#2"); when several phases
match, their counts are added up.

Default output: per phase the totals and the symbols with the largest
shares of last-level and of L1 misses.  --compare: one table, symbols
side by side for two selections; with --hits HA HB every count is
divided by that selection's number of hits (e.g. kprobe hits), so the
rows read as misses per hit.  --tsv: one line per phase and symbol,
"seq id label symbol accesses l1_misses ll_misses", the phase's totals
as symbol "[total]".
"""

import argparse
import bisect
import re
import sys

SYM_RE = re.compile(
    r'^([0-9a-fA-F]{8,16})\s+([tTwW])\s+(\S+)(?:\s+\[(\S+)\])?\s*$')
USER_TOP = 1 << 47
MAX_SYM_SPAN = 1 << 20


class Phase:
    def __init__(self, seq, pid, label):
        self.seq = seq
        self.id = pid
        self.label = label
        self.total = [0, 0, 0]
        self.other = {}
        self.cpus = {}
        self.pcs = {}

    def name(self):
        return f'#{self.seq} {self.label} (id {self.id})'


def read_phases(path):
    phases = []
    cur = None
    with open(path, encoding='ascii', errors='replace') as f:
        for n, line in enumerate(f, 1):
            w = line.split()
            if not w or w[0] == '#':
                continue
            try:
                if w[0] == 'phase':
                    cur = Phase(int(w[1]), int(w[2]),
                                ' '.join(w[3:]) if len(w) > 3 else '')
                    phases.append(cur)
                elif cur is None:
                    raise ValueError('data before the first phase line')
                elif w[0] == 'total':
                    cur.total = [int(x) for x in w[1:4]]
                elif w[0] == 'other':
                    cur.other = dict(kv.split('=', 1) for kv in w[1:])
                elif w[0] == 'cpu':
                    cur.cpus[int(w[1])] = [int(x) for x in w[2:5]]
                elif w[0] == 'end':
                    cur = None
                else:
                    cur.pcs[int(w[0], 16)] = [int(x) for x in w[1:4]]
            except (ValueError, IndexError) as e:
                sys.exit(f'{path}:{n}: bad line ({e}): {line.rstrip()}')
    if cur is not None:
        print(f'warning: {path}: phase {cur.seq} has no end line '
              '(QEMU killed?)', file=sys.stderr)
    return phases


class Symbols:
    def __init__(self, paths):
        syms = {}
        for path in paths:
            with open(path, encoding='ascii', errors='replace') as f:
                for line in f:
                    m = SYM_RE.match(line)
                    if not m:
                        continue
                    addr = int(m.group(1), 16)
                    if addr == 0:
                        continue
                    name = m.group(3)
                    if m.group(4):
                        name += f' [{m.group(4)}]'
                    syms.setdefault(addr, name)
        self.addrs = sorted(syms)
        self.names = [syms[a] for a in self.addrs]
        if not self.addrs:
            print('warning: no text symbols found (kptr_restrict? wrong '
                  'file?)', file=sys.stderr)

    def lookup(self, pc):
        i = bisect.bisect_right(self.addrs, pc) - 1
        if i >= 0 and pc - self.addrs[i] < MAX_SYM_SPAN:
            return self.names[i]
        return '[user/boot]' if pc < USER_TOP else '[unknown]'


def select(phases, sel):
    if sel.startswith('#'):
        got = [p for p in phases if str(p.seq) == sel[1:]]
    else:
        got = [p for p in phases if p.label == sel or str(p.id) == sel]
    if not got:
        sys.exit(f'no phase matches "{sel}"; phases: ' +
                 ', '.join(p.name() for p in phases))
    return got


def by_symbol(phases, syms):
    """Sums of [accesses, l1, ll] per symbol over phases, and the totals."""
    out = {}
    total = [0, 0, 0]
    for p in phases:
        total = [a + b for a, b in zip(total, p.total)]
        for pc, c in p.pcs.items():
            s = out.setdefault(syms.lookup(pc), [0, 0, 0])
            for i in range(3):
                s[i] += c[i]
    return out, total


def pct(part, whole):
    return 100.0 * part / whole if whole else 0.0


def report(phases, syms, top):
    for p in phases:
        per, (acc, l1, ll) = by_symbol([p], syms)
        print(f'phase {p.name()}: {acc:,} accesses, '
              f'{l1:,} L1 misses ({pct(l1, acc):.2f}%), '
              f'{ll:,} LL misses ({pct(ll, acc):.2f}%)'
              + (f'  [{" ".join(f"{k}={v}" for k, v in p.other.items())}]'
                 if p.other else ''))
        for col, what in ((2, 'LL'), (1, 'L1')):
            whole = (l1, ll)[col - 1]
            if not whole:
                print(f'  no {what} misses')
                continue
            print(f'  {what} misses by symbol (top {top}):')
            print(f'    {"share":>7} {what + " misses":>12} {"accesses":>12}'
                  '  symbol')
            rows = sorted(per.items(), key=lambda kv: -kv[1][col])[:top]
            for name, c in rows:
                if not c[col]:
                    break
                print(f'    {pct(c[col], whole):6.2f}% {c[col]:12,} '
                      f'{c[0]:12,}  {name}')
        print()


def compare(phases, syms, sel_a, sel_b, hits, sort, top):
    sides = []
    for sel in (sel_a, sel_b):
        got = select(phases, sel)
        per, total = by_symbol(got, syms)
        sides.append((sel, got, per, total))
    col = 2 if sort == 'll' else 1

    def share(side, name):
        per, total = side[2], side[3]
        return pct(per.get(name, [0, 0, 0])[col], total[col])

    names = set(sides[0][2]) | set(sides[1][2])
    # Ties by name, so that the table is the same from run to run.
    names = sorted(names, key=lambda n: (-max(share(sides[0], n),
                                               share(sides[1], n)), n))[:top]

    def fmt(v, h):
        return f'{v / h:10.2f}' if h else f'{v:10,}'

    unit = '/hit' if hits else ''
    width = max([24] + [len(n) for n in names])
    group = 10 + 1 + 7 + 1 + 10 + 1 + 7
    titles = [s[0] + (f' ({len(s[1])} phases)' if len(s[1]) > 1 else '')
              for s in sides]
    print(f'{"":{width}}' + ''.join(f'  {t:^{group}}' for t in titles))
    print(f'{"symbol":{width}}' +
          ''.join(f'  {"L1" + unit:>10} {"L1%":>7} {"LL" + unit:>10} '
                  f'{"LL%":>7}' for _ in sides))
    rows = [(n, [s[2].get(n, [0, 0, 0]) for s in sides]) for n in names]
    rows.append(('[total]', [s[3] for s in sides]))
    for name, cs in rows:
        line = f'{name:{width}}'
        for i, c in enumerate(cs):
            h = hits[i] if hits else 0
            tot = sides[i][3]
            line += (f'  {fmt(c[1], h)} {pct(c[1], tot[1]):6.2f}% '
                     f'{fmt(c[2], h)} {pct(c[2], tot[2]):6.2f}%')
        print(line)
    acc = ''.join(f'  {fmt(s[3][0], hits[i] if hits else 0):>{group}}'
                  for i, s in enumerate(sides))
    print(f'{"accesses" + unit:{width}}{acc}')
    if hits:
        print(f'hits: {sides[0][0]} {hits[0]:,}, {sides[1][0]} {hits[1]:,}')
        for lvl, k in (('L1', 1), ('LL', 2)):
            a, b = (sides[i][3][k] / hits[i] for i in range(2))
            ratio = f'{a / b:.1f}x' if b else 'inf'
            print(f'{lvl} misses per hit: {a:.2f} vs {b:.2f} ({ratio})')


def tsv(phases, syms):
    for p in phases:
        per, total = by_symbol([p], syms)
        rows = [('[total]', total)] + sorted(per.items(),
                                             key=lambda kv: -kv[1][2])
        for name, c in rows:
            print('\t'.join([str(p.seq), str(p.id), p.label, name] +
                            [str(x) for x in c]))


def main():
    ap = argparse.ArgumentParser(
        description='Attribute cachesim misses to symbols.',
        epilog=__doc__.split('\n\n', 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('outfile', help='the plugin output (outfile=)')
    ap.add_argument('--syms', action='append', default=[], metavar='FILE',
                    help='kallsyms / System.map / nm output (repeatable)')
    ap.add_argument('--phase', action='append', metavar='SEL',
                    help='only these phases (label, id or #seq)')
    ap.add_argument('--top', type=int, default=15, metavar='N')
    ap.add_argument('--compare', nargs=2, metavar=('SEL_A', 'SEL_B'))
    ap.add_argument('--hits', nargs=2, type=int, metavar=('HA', 'HB'),
                    help='with --compare: divide by these hit counts')
    ap.add_argument('--sort', choices=('ll', 'l1'), default='ll',
                    help='with --compare: order by LL or L1 share')
    ap.add_argument('--tsv', action='store_true')
    args = ap.parse_args()
    if args.hits and not args.compare:
        ap.error('--hits needs --compare')
    if args.hits and min(args.hits) <= 0:
        ap.error('--hits must be positive')

    phases = read_phases(args.outfile)
    if not phases:
        sys.exit(f'{args.outfile}: no phases')
    syms = Symbols(args.syms)
    if args.phase:
        phases = [p for sel in args.phase for p in select(phases, sel)]
    if args.compare:
        compare(phases, syms, args.compare[0], args.compare[1], args.hits,
                args.sort, args.top)
    elif args.tsv:
        tsv(phases, syms)
    else:
        report(phases, syms, args.top)


if __name__ == '__main__':
    main()
