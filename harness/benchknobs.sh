#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make check's run of make bench: a small sweep with every knob of
# harness/bench.sh's header set to a value that is neither the default
# nor FULL=1's, then checks that it exits 0, that its report is complete
# and that each knob reached the boots it applies to (the kselftests'
# TSV files, the kernels' .config, the log).  Not set: BENCH_TREE (the
# developer's tree, $OUT/linux, which a fresh clone has not) and
# QEMU_ICOUNT (boot.sh's, for every boot of the harness; under it the
# churn section's grace periods take minutes).  The kernels are the plain
# guest with check.config (BENCH_DISTRO=0 BENCH_FRAGS): a smaller
# benchmark module, and the configuration make check compiles anyway.
# Usage: benchknobs.sh RESULTS
. "$(dirname "$0")/common.sh"

RES=$1
B=$OUT/check/bench
name="make bench with every knob set"
rm -rf "$B"
mkdir -p "$B"
knobs=(FULL=1 N="0 200" H="4 16" PATHS="ftrace opt kretprobe" H_BIG=64 BIG_N=100
	BIG_PATHS=kretprobe LOOPS=2400 ROUNDS=2 ENABLE_N=100 ENABLE_BUDGET=300
	CHURN_BATCH=25 BASE_N=200 BASE_H=16 PRE_N=100 BOOST_N=200 BOOST_H=4
	MASSETUP_N=40 BENCH_DISTRO=0 BENCH_FRAGS="$TOP/harness/configs/check.config"
	BENCH_PARALLEL=0 BENCH_OUT="$B" BOOT_TIMEOUT=1200)
log "benchknobs: make bench ${knobs[*]}"
start=$(date +%s)
if ! env "${knobs[@]}" make -C "$TOP" bench >"$B.log" 2>&1; then
	tail -30 "$B.log" >&2
	rec FAIL "$name" "make bench failed, see $B.log"
	exit 1
fi
rec PASS "$name: exit 0 ($(($(date +%s) - start)) s)"

problems=$(python3 - "$B" "$B.log" <<'PY'
import os, re, sys
b, logf = sys.argv[1], sys.argv[2]
bad = []

def tsv(d):
	p = os.path.join(b, d, 'bench.tsv')
	if not os.path.exists(p):
		bad.append('no %s' % p)
		return []
	with open(p) as f:
		head = f.readline().rstrip('\n').split('\t')
		return [dict(zip(head, l.rstrip('\n').split('\t'))) for l in f]

def points(rows):
	return {(r['path'], int(r['n']), int(r['h']))
		for r in rows if r['kind'] == 'hit'}

def want(what, got, exp):
	if got != exp:
		bad.append('%s: %s, expected %s' % (what, sorted(got), sorted(exp)))

s = tsv('results')
# N, H, PATHS; H_BIG at BIG_N on BIG_PATHS.
want('series points', points(s),
     {(p, n, h) for p in ('ftrace', 'opt', 'kretprobe') for n in (0, 200)
      for h in (4, 16)} | {('kretprobe', 100, 64)})
# LOOPS over ROUNDS: 1,200 calls a round, two rounds a point.
hits = {r['detail'] for r in s if r['kind'] == 'hit'}
want('series calls per round', hits, {'1200'})
per = {}
for r in s:
	if r['kind'] == 'hit':
		k = (r['path'], r['n'], r['h'], r['cache'])
		per[k] = per.get(k, 0) + 1
want('series rounds per point', set(per.values()), {2})
want('enabling-time N', {int(r['n']) for r in s if r['kind'] == 'enable'}, {100})
if not any(r['kind'] == 'churn' for r in s):
	bad.append('no churn rows (CHURN_BATCH=25)')
base = tsv('results-base')
want('base points', points(base),
     {(p, 200, 16) for p in ('ftrace', 'opt', 'kretprobe')} |
     {('kretprobe', 100, 64)})
want('base calls per round', {r['detail'] for r in base if r['kind'] == 'hit'},
     {'1200'})
want('boosted points', points(tsv('results-boosted')), {('int3', 200, 4)})
with open(os.path.join(b, 'results', 'report.md')) as f:
	md = f.read()
for sect in ('## Base kernel, series cache off, series cache on',
	     '## int3 probes: single-stepped and boosted', '## Enabling time',
	     '## Hits while the table changes', '## Mass setup',
	     '![headline.png](headline.png)'):
	if sect not in md:
		bad.append('report.md has no "%s"' % sect)
if not os.path.exists(os.path.join(b, 'results', 'headline.png')):
	bad.append('no headline.png')
# MASSETUP_N: 40 events in both kernels, the peers in the series only.
for log, peers in (('boot/results.log', True), ('boot-base-ms/results.log', False)):
	with open(os.path.join(b, log)) as f:
		t = f.read()
	if 'MS n=40 phase=define ' not in t:
		bad.append('%s: no mass setup of 40 events' % log)
	# The plain guest has neither fprobe nor BPF: the peers say so.
	ran = any(x in t for x in ('phase=fprobe-define', 'peer=fprobe skipped=',
				   'phase=kmulti-attach', 'peer=kprobe_multi skipped='))
	if peers != ran:
		bad.append('%s: the peers %s' % (log, 'missing' if peers else 'run'))
# BENCH_DISTRO=0, BENCH_FRAGS: the plain guest with check.config.
for d in ('build', 'base/build'):
	with open(os.path.join(b, d, '.config')) as f:
		c = f.read()
	if 'CONFIG_TEST_KPROBE_BENCH_SITES=24576\n' not in c:
		bad.append('%s: BENCH_FRAGS did not reach it' % d)
	if 'CONFIG_PREEMPT_DYNAMIC=y' in c:
		bad.append('%s: the distribution-like config (BENCH_DISTRO=0)' % d)
with open(logf) as f:
	t = f.read()
# BOOT_TIMEOUT, PRE_N, BENCH_PARALLEL=0 (the series built after the base booted).
# The series, the base, the base's mass setup, the plain guest.
if t.count('(timeout 1200s') != 4:
	bad.append('%d boots with BOOT_TIMEOUT=1200, expected 4' % t.count('(timeout 1200s'))
if 'PRE_N skipped' not in t:
	bad.append('PRE_N: no line saying why it was skipped')
i, j = t.find('bench: base done'), t.find('bench: building', t.find('bench: booting base'))
if i < 0 or j < 0 or j < i:
	bad.append('BENCH_PARALLEL=0: the series built before the base finished')
print('\n'.join(bad))
PY
) || problems="the check itself failed"
if [ -n "$problems" ]; then
	rec FAIL "$name: a complete report, each knob in its boots" "$(echo "$problems" | paste -sd';')"
	exit 1
fi
rec PASS "$name: a complete report, each knob in its boots"
