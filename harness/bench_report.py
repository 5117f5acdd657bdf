#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn a kprobe_bench run into a table, report.md and gnuplot PNGs.

Usage: bench_report.py DIR [--from-results LOG] [--pct AWK] [--title TEXT]
                        [--check]

DIR holds what tools/testing/selftests/kprobe_bench/kprobe_bench.sh wrote:
bench.tsv and nodes/ (the kstats histograms).  Percentiles come from the
series' own reader, kstats_pct.awk.  Writes DIR/report.md, DIR/table.txt,
DIR/*.dat and DIR/cost-<path>.png (when gnuplot is installed), and prints
the table.  With --check, exits 1 when an expected measurement is missing.
--from-results first extracts DIR from a guest's results log, where the
guest printed each file between "### FILE <path>" and "### ENDFILE".
"""

import argparse
import collections
import os
import shutil
import statistics
import subprocess
import sys

GOAL_FLAT = 1.10	# cache on: cost at N=40000 within this of N=1
GOAL_FLAT_H = 1024	# ... for every H up to this one
GOAL_HIST = 0.5		# kstats per sample <= half the hist trigger's
GOAL_BIG = 1.5		# cache on: N=40000, H=4096 within this of N=1, H=1


def percentiles(awk, files):
	"""NAME -> {count, min, p50, p90, p99, max, mean} for every file."""
	out = {}
	for i in range(0, len(files), 200):
		chunk = files[i:i + 200]
		res = subprocess.run(['awk', '-f', awk] + chunk, check=True,
				     capture_output=True, text=True)
		for line in res.stdout.splitlines():
			w = line.split()
			out[w[0]] = {w[j]: int(w[j + 1]) for j in range(1, len(w), 2)}
	return out


def fmt(v):
	return '-' if v is None else str(v)


def ratio(a, b):
	if a is None or b is None or b <= 0:
		return None
	return a / b


def fmt_ratio(r):
	return '-' if r is None else '%.2f' % r


class Bench:
	def __init__(self, d, awk):
		self.dir = d
		rows = []
		with open(os.path.join(d, 'bench.tsv')) as f:
			header = f.readline().rstrip('\n').split('\t')
			for line in f:
				rows.append(dict(zip(header, line.rstrip('\n').split('\t'))))
		self.rows = rows
		nodes = os.path.join(d, 'nodes')
		files = sorted(os.path.join(nodes, n) for n in os.listdir(nodes))
		self.pct = percentiles(awk, files) if files else {}
		self.states = sorted({r['cache'] for r in rows if r['kind'] == 'hit'},
				     key=lambda s: ['off', 'on', 'nocache'].index(s))
		self.paths = list(dict.fromkeys(r['path'] for r in rows
						if r['kind'] == 'hit'))
		self.ns = sorted({int(r['n']) for r in rows if r['kind'] == 'hit'})
		self.hs = sorted({int(r['h']) for r in rows if r['kind'] == 'hit'})
		# The nodes of each point: one per round (kprobe_bench.sh with
		# KPB_ROUNDS, each with its unprobed twin NODE-t), or one.
		self.rounds = collections.defaultdict(list)
		for r in rows:
			if r['kind'] == 'hit':
				self.rounds[(r['path'], int(r['n']), int(r['h']),
					     r['cache'])].append(r['node'])

	def p(self, node, key='p50'):
		return self.pct.get(node, {}).get(key)

	def cost_rounds(self, path, n, h, state, key='p50', twin=True):
		"""Hook cost of each round: percentile of the probed calls minus
		the p50 of their unprobed twins in the same loop, or, without
		twins (older runs, or twin=False), minus the boot's baseline."""
		b = self.p('kpb-%s-h%d-base' % (path, h))
		out = []
		for node in self.rounds.get((path, n, h, state), []):
			v = self.p(node, key)
			t = self.p(node + '-t') if twin else None
			if t is None:
				t = b
			if v is not None and t is not None:
				out.append(v - t)
		return out

	def cost(self, path, n, h, state, key='p50', twin=True):
		"""Hook cost: the median of the rounds' costs."""
		c = self.cost_rounds(path, n, h, state, key, twin)
		return statistics.median_low(c) if c else None

	def hit_table(self):
		cols = ['path', 'N', 'H']
		for s in self.states:
			cols += ['%s p50' % s, '%s p99' % s]
		if self.states == ['off', 'on']:
			cols += ['on/off p50']
		lines = []
		measured = {(r['path'], int(r['n']), int(r['h']))
			    for r in self.rows if r['kind'] == 'hit'}
		for path in self.paths:
			for n in self.ns:
				for h in self.hs:
					if (path, n, h) not in measured:
						continue
					row = [path, str(n), str(h)]
					for s in self.states:
						row += [fmt(self.cost(path, n, h, s)),
							fmt(self.cost(path, n, h, s, 'p99'))]
					if self.states == ['off', 'on']:
						row.append(fmt_ratio(ratio(
							self.cost(path, n, h, 'on'),
							self.cost(path, n, h, 'off'))))
					lines.append(row)
		return cols, lines

	def enable_rows(self):
		"""Enabling-time rows: path, N, mode (one, batch) and the
		measured fields (registration and unregistration are shared by
		the two modes); rows of the older format (ftrace, one at a
		time, register and arm together) are left out."""
		keys = ('registered', 'armed', 'arm_ns', 'register_ns',
			'disarmed', 'disarm_ns', 'unregister_ns', 'off_ms', 'on_ms')
		out = []
		for r in self.rows:
			if r['kind'] != 'enable' or r['cache'] not in ('one', 'batch'):
				continue
			v = r['detail'].split()
			if len(v) != len(keys):
				continue
			d = dict(zip(keys, (None if x == '-' else int(x) for x in v)))
			d.update(path=r['path'], n=int(r['n']), mode=r['cache'])
			out.append(d)
		return out

	def enable_table(self):
		cols = ['path', 'N', 'mode', 'register s', 'armed', 'arm s',
			'armed/s', 'arm all N s', 'disarm s', 'unregister s',
			'enabled 0 s', 'enabled 1 s']
		lines = []
		for d in self.enable_rows():
			rate = d['armed'] / (d['arm_ns'] / 1e9) if d['arm_ns'] else 0
			# One at a time stops after the budget: the time for all N
			# at the measured rate.
			full = d['arm_ns'] / 1e9 if d['armed'] == d['n'] else (
				d['n'] / rate if rate else None)
			sw = ['-' if d[k] is None else '%.2f' % (d[k] / 1e3)
			      for k in ('off_ms', 'on_ms')]
			lines.append([d['path'], str(d['n']), d['mode'],
				      '%.2f' % (d['register_ns'] / 1e9), str(d['armed']),
				      '%.2f' % (d['arm_ns'] / 1e9), '%.0f' % rate,
				      '-' if full is None else
				      ('%.1f' % full if d['armed'] == d['n'] else '~%.0f' % full),
				      '%.2f' % (d['disarm_ns'] / 1e9),
				      '%.2f' % (d['unregister_ns'] / 1e9)] + sw)
		return cols, lines

	def self_table(self):
		cols = ['N', 'cache', 'count', 'min ns', 'p50 ns', 'p99 ns']
		lines = []
		for r in self.rows:
			if r['kind'] != 'self':
				continue
			q = self.pct.get(r['node'], {})
			lines.append([r['n'], r['cache'], fmt(q.get('count')),
				      fmt(q.get('min')), fmt(q.get('p50')),
				      fmt(q.get('p99'))])
		return cols, lines

	def churn_table(self):
		"""Hot hits while fill probes are unregistered, against the
		steady cost at the same path, N, H and cache state."""
		cols = ['path', 'cache', 'unregistered', 'calls', 's',
			'steady p50', 'churn p50', 'p50 x', 'steady mean',
			'churn mean', 'mean x', 'churn p99']
		lines = []
		for r in self.rows:
			if r['kind'] != 'churn':
				continue
			calls, unreg, ns = (int(x) for x in r['detail'].split())
			path, n, h, st = r['path'], int(r['n']), int(r['h']), r['cache']
			b = self.p('kpb-%s-h%d-base' % (path, h))

			def minus(v):
				return None if v is None or b is None else v - b
			# Churn calls have no twins: both against the baseline.
			s50 = self.cost(path, n, h, st, twin=False)
			c50 = minus(self.p(r['node']))
			smean = self.cost(path, n, h, st, 'mean', twin=False)
			cmean = minus(self.p(r['node'], 'mean'))
			lines.append([path, st, str(unreg), str(calls),
				      '%.1f' % (ns / 1e9), fmt(s50), fmt(c50),
				      fmt_ratio(ratio(c50, s50)), fmt(smean),
				      fmt(cmean), fmt_ratio(ratio(cmean, smean)),
				      fmt(minus(self.p(r['node'], 'p99')))])
		return cols, lines

	def sample(self, mode):
		return self.p('kpb-sample-%s' % mode)


def md_table(cols, lines):
	out = ['| ' + ' | '.join(cols) + ' |',
	       '|' + '|'.join('---' for _ in cols) + '|']
	out += ['| ' + ' | '.join(line) + ' |' for line in lines]
	return '\n'.join(out)


def text_table(cols, lines):
	widths = [max(len(c), *(len(line[i]) for line in lines)) if lines
		  else len(c) for i, c in enumerate(cols)]
	out = ['  '.join(c.rjust(w) for c, w in zip(cols, widths))]
	out += ['  '.join(v.rjust(w) for v, w in zip(line, widths))
		for line in lines]
	return '\n'.join(out)


def rounds_note(b, path, n, h):
	"""The rounds behind a cache-on point, when there are several."""
	c = b.cost_rounds(path, n, h, 'on')
	return '' if len(c) < 2 else '; rounds %s' % '/'.join(str(v) for v in c)


def control_note(b, h):
	"""The optimized path's own N=40000 / N=1 at the same H: it looks
	nothing up, so what moves it is the emulator and the host, not the
	lookup."""
	if 'opt' not in b.paths:
		return ''
	r = ratio(b.cost('opt', 40000, h, 'on'), b.cost('opt', 1, h, 'on'))
	return '' if r is None else '; opt, no lookup: %s' % fmt_ratio(r)


def goals(b):
	"""Lines stating each goal as measured."""
	out = []
	if 'on' in b.states and 1 in b.ns and 40000 in b.ns:
		for path in ('ftrace', 'int3', 'kretprobe'):
			if path not in b.paths:
				continue
			for h in b.hs:
				c1 = b.cost(path, 1, h, 'on')
				c40 = b.cost(path, 40000, h, 'on')
				if c1 is None or c40 is None:
					continue
				r = ratio(c40, c1)
				met = r is not None and r <= GOAL_FLAT
				# The goal covers H up to GOAL_FLAT_H; above, reported.
				verdict = 'met' if met else 'NOT met'
				if h > GOAL_FLAT_H:
					verdict = 'reported (H above %d)' % GOAL_FLAT_H
				out.append('cache on, %s, H=%d: cost at N=40000 / N=1 = %s '
					   '(%s / %s ns%s%s%s): %s' % (
						   path, h, fmt_ratio(r), fmt(c40), fmt(c1),
						   rounds_note(b, path, 40000, h),
						   rounds_note(b, path, 1, h).replace(
							   'rounds', 'N=1'),
						   control_note(b, h), verdict))
	if 'on' in b.states and 1 in b.ns and 40000 in b.ns:
		for path in ('ftrace', 'int3', 'kretprobe'):
			c1 = b.cost(path, 1, 1, 'on')
			cb = b.cost(path, 40000, 4096, 'on')
			if c1 is None or cb is None:
				continue
			r = ratio(cb, c1)
			met = r is not None and r <= GOAL_BIG
			out.append('cache on, %s: cost at N=40000, H=4096 / N=1, H=1 = %s '
				   '(%s / %s ns, goal <= %.2f%s): %s' % (
					   path, fmt_ratio(r), fmt(cb), fmt(c1), GOAL_BIG,
					   rounds_note(b, path, 40000, 4096),
					   'met' if met else 'NOT met'))
	en = {(d['path'], d['n'], d['mode']): d for d in b.enable_rows()}
	for path, what, key, goal in (
			('ftrace', 'armed', 'arm_ns', 10), ('ftrace', 'disarmed', 'disarm_ns', 10),
			('int3', 'armed', 'arm_ns', 60)):
		d = en.get((path, 40000, 'batch'))
		if not d:
			continue
		t = d[key] / 1e9
		one = en.get((path, 40000, 'one'))
		cnt = 'armed' if key == 'arm_ns' else 'disarmed'
		speed = ''
		if one and one[cnt] and one[key]:
			t1 = 40000 / (one[cnt] / (one[key] / 1e9))
			speed = ', one at a time ~%.0f s: %.1fx' % (t1, t1 / t) if t else ''
		out.append('40000 %s probes %s in one batch: %.1f s%s (goal <= %d s): %s' % (
			path, what, t, speed, goal,
			'met' if d[cnt] == 40000 and t <= goal else 'NOT met'))
	for path in ('ftrace', 'int3'):
		d = en.get((path, 40000, 'batch'))
		if d and d['on_ms'] is not None:
			t = d['on_ms'] / 1e3
			out.append('kprobes/enabled 0 -> 1 with 40000 %s probes: %.2f s '
				   '(goal <= 10 s): %s' % (path, t, 'met' if t <= 10 else 'NOT met'))
	off = b.sample('off')
	ks = b.sample('kstats')
	hist = b.sample('hist')
	rec = b.sample('record')
	if None not in (off, ks, hist):
		k, hh = ks - off, hist - off
		r = ratio(k, hh)
		out.append('kstats on the event: %d ns per sample, hist trigger: %d ns, '
			   'ratio %s (goal <= %.2f): %s' % (
				   k, hh, fmt_ratio(r), GOAL_HIST,
				   'met' if r is not None and r <= GOAL_HIST else 'NOT met'))
	if rec is not None:
		out.append('kstats_record() alone: %d ns per call (loop p50)' % rec)
	return out


def plot(b, d, base=None, kernel=''):
	"""One PNG per path: hook cost vs N, both axes log.  One colour per H;
	cache off dashed, cache on solid, the kernel without the kprobe
	patches dotted."""
	if not shutil.which('gnuplot'):
		return []
	# state, dash type, point type, label, results
	styles = (('nocache', 3, 6, 'base kernel', base),
		  ('off', 2, 4, 'cache off', b), ('on', 1, 7, 'cache on', b))
	hs = sorted(set(b.hs) | (set(base.hs) if base else set()))
	pngs = []
	for path in b.paths:
		dat = os.path.join(d, 'cost-%s.dat' % path)
		series = []
		with open(dat, 'w') as f:
			for ci, h in enumerate(hs):
				for state, dt, pt, label, src in styles:
					if src is None or path not in src.paths:
						continue
					pts = [(n, src.cost(path, n, h, state))
					       for n in src.ns if n > 0]
					pts = [(n, c) for n, c in pts if c is not None]
					if not pts:
						continue
					f.write('# H=%d %s\n' % (h, label))
					for n, c in pts:
						f.write('%d %d\n' % (n, max(c, 1)))
					f.write('\n\n')
					series.append((ci + 1, dt, pt, 'H=%d %s' % (h, label)))
		if not series:
			continue
		xs = sorted({n for src in (b, base) if src for n in src.ns if n > 0})
		png = os.path.join(d, 'cost-%s.png' % path)
		cmds = ['set terminal pngcairo size 900,640 font ",10" noenhanced',
			'set output "%s"' % png,
			'set title "%s kprobe: hook cost per hit vs registered probes%s"' % (
				path, '\\n' + kernel if kernel else ''),
			'set xlabel "registered probes N (never hit), log scale" offset 0,0.5',
			'set bmargin 7',
			'set ylabel "hook cost per hit, ns (p50), log scale"',
			'set logscale xy', 'set grid',
			# One N alone: a range around it instead of an empty one.
			'set xrange [%g:%g]' % (min(xs) / 2, max(xs) * 2)
			if len(xs) == 1 else 'set autoscale x',
			# Below the frame, in rows: it never covers a point.
			'set key outside below center horizontal',
			'plot ' + ', '.join(
				'"%s" index %d with linespoints lc %d dt %d lw 2 pt %d '
				'title "%s"' % (dat, i, lc, dt, pt, t)
				for i, (lc, dt, pt, t) in enumerate(series))]
		subprocess.run(['gnuplot'], input='\n'.join(cmds), text=True,
			       check=True)
		pngs.append(png)
	return pngs


def headline_plot(b, base, d, lines, title):
	"""One PNG, base against series at a glance: for each point both
	kernels measured (LINES, the rows of base_table), the p50 hook cost of
	the kernel without the kprobe patches and of the series, cache off and
	on, as bars on a log scale."""
	if not shutil.which('gnuplot') or not lines:
		return []
	dat = os.path.join(d, 'headline.dat')
	with open(dat, 'w') as f:
		f.write('# point base off on\n')
		for row in lines:
			vals = [row[3], row[4], row[5]]
			if '-' in vals:
				continue
			label = '%s\\nN=%s\\nH=%s' % (
				row[0], '{:,}'.format(int(row[1])),
				'{:,}'.format(int(row[2])))
			f.write('"%s" %s\n' % (label, ' '.join(
				str(max(int(v.replace(',', '')), 1)) for v in vals)))
	png = os.path.join(d, 'headline.png')
	cmds = ['set terminal pngcairo size 1100,600 font ",10" noenhanced',
		'set output "%s"' % png,
		'set title "%s"' % title.replace('"', "'"),
		'set style data histogram',
		'set style histogram clustered gap 1',
		'set style fill solid 0.85 border -1',
		'set boxwidth 0.9',
		'set logscale y', 'set grid ytics',
		'set yrange [50:*]',
		'set ylabel "hook cost per hit, ns (p50), log scale"',
		'set xtics nomirror scale 0',
		'set bmargin 5',
		'set key top left',
		'plot "%s" using 2:xtic(1) title "without the kprobe patches" '
		'lc rgb "#c0392b", "" using 3 title "series, cache off" '
		'lc rgb "#2e86c1", "" using 4 title "series, cache on" '
		'lc rgb "#27ae60"' % dat]
	subprocess.run(['gnuplot'], input='\n'.join(cmds), text=True,
		       check=True)
	return [png]


def base_table(b, base):
	"""The kernel without the kprobe patches (BASE, state 'nocache')
	against the series with the cache off and on, same paths, N and H."""
	cols = ['path', 'N', 'H', 'base p50', 'off p50', 'on p50',
		'off/base', 'on/base', 'base p99', 'off p99', 'on p99']
	lines = []
	# The points both kernels were asked for: a point one kernel's sweep
	# leaves out is no missing measurement.
	measured = ({(r['path'], int(r['n']), int(r['h']))
		     for r in base.rows if r['kind'] == 'hit'} &
		    {(r['path'], int(r['n']), int(r['h']))
		     for r in b.rows if r['kind'] == 'hit'})
	for path in base.paths:
		for n in base.ns:
			for h in base.hs:
				if (path, n, h) not in measured:
					continue
				# Both kernels the same way: each probed call
				# against its unprobed twin in the same loop.
				c = {s: b.cost(path, n, h, s) for s in ('off', 'on')}
				c99 = {s: b.cost(path, n, h, s, 'p99')
				       for s in ('off', 'on')}
				c['base'] = base.cost(path, n, h, 'nocache')
				c99['base'] = base.cost(path, n, h, 'nocache', 'p99')
				lines.append([path, str(n), str(h), fmt(c['base']),
					      fmt(c['off']), fmt(c['on']),
					      fmt_ratio(ratio(c['off'], c['base'])),
					      fmt_ratio(ratio(c['on'], c['base'])),
					      fmt(c99['base']), fmt(c99['off']),
					      fmt(c99['on'])])
	return cols, lines


def variant_table(b, base, pre):
	"""The four ways of looking a probe up, per path, N and H: the 64
	hash chains alone (the kernel without the kprobe patches), the cache
	in front of them (PRE, the series without the resizable index), the
	index alone (cache off) and the index with the cache (cache on)."""
	cols = ['path', 'N', 'H', 'chains', 'chains+cache', 'index',
		'index+cache', 'cache gain over index']
	lines = []
	measured = [(r['path'], int(r['n']), int(r['h'])) for r in b.rows
		    if r['kind'] == 'hit' and r['path'] != 'opt']
	for path, n, h in sorted(set(measured), key=lambda k: (
			b.paths.index(k[0]), k[1], k[2])):
		c = [base.cost(path, n, h, 'nocache') if base else None,
		     pre.cost(path, n, h, 'on') if pre else None,
		     b.cost(path, n, h, 'off'),
		     b.cost(path, n, h, 'on')]
		gain = None
		if c[2] is not None and c[3] is not None and c[2] > 0:
			gain = '%.0f%%' % (100.0 * (c[2] - c[3]) / c[2])
		lines.append([path, str(n), str(h)] + [fmt(v) for v in c] +
			     [gain or '-'])
	return cols, lines


def index_table(b):
	"""Memory of the kprobe table's index at each N."""
	cols = ['N', 'probes in table', 'slots', 'bytes', 'bytes per probe',
		'resizes so far']
	lines = []
	for r in b.rows:
		if r['kind'] != 'index':
			continue
		w = r['detail'].split()
		if len(w) < 5:
			continue
		probes, _, slots, nbytes, resizes = (int(x) for x in w[:5])
		lines.append([r['n'], str(probes), str(slots), str(nbytes),
			      '%.1f' % (nbytes / probes) if probes else '-',
			      str(resizes)])
	return cols, lines


def lookups_table(b):
	"""What the lookup cache counted during the cache-on measurements,
	summed over the rounds of each path, N and H."""
	cols = ['path', 'N', 'H', 'lookups', 'hits', 'misses', 'bypassed',
		'hit %']
	sums = collections.OrderedDict()
	for r in b.rows:
		if r['kind'] != 'lookups' or r['cache'] != 'on':
			continue
		w = r['detail'].split()
		if len(w) < 3:
			continue
		k = (r['path'], int(r['n']), int(r['h']))
		t = sums.setdefault(k, [0, 0, 0])
		for i in range(3):
			t[i] += int(w[i])
	lines = []
	for (path, n, h), (hits, misses, byp) in sorted(sums.items()):
		total = hits + misses + byp
		lines.append([path, str(n), str(h), str(total), str(hits),
			      str(misses), str(byp),
			      '%.1f' % (100.0 * hits / total) if total else '-'])
	return cols, lines


def boost_table(b, bb):
	"""int3 hits on the main kernel (a CONFIG_PREEMPTION kernel, which never
	boosts) against a kernel that boosts (BB), same N and H."""
	cols = ['N', 'H', 'single-step off p50', 'single-step on p50',
		'boosted off p50', 'boosted on p50', 'on: single-step/boosted',
		'single-step on p99', 'boosted on p99']
	lines = []
	measured = ({(int(r['n']), int(r['h'])) for r in bb.rows
		     if r['kind'] == 'hit' and r['path'] == 'int3'} &
		    {(int(r['n']), int(r['h'])) for r in b.rows
		     if r['kind'] == 'hit' and r['path'] == 'int3'})
	for n in bb.ns:
		for h in bb.hs:
			if (n, h) not in measured:
				continue
			u = {s: b.cost('int3', n, h, s) for s in ('off', 'on')}
			o = {s: bb.cost('int3', n, h, s) for s in ('off', 'on')}
			lines.append([str(n), str(h), fmt(u['off']), fmt(u['on']),
				      fmt(o['off']), fmt(o['on']),
				      fmt_ratio(ratio(u['on'], o['on'])),
				      fmt(b.cost('int3', n, h, 'on', 'p99')),
				      fmt(bb.cost('int3', n, h, 'on', 'p99'))])
	return cols, lines


def load(d, log, awk):
	"""Bench of D, first extracted from the results LOG when given."""
	if log:
		shutil.rmtree(d, ignore_errors=True)
		os.makedirs(os.path.join(d, 'nodes'))
		if not extract(log, d):
			raise SystemExit('bench_report: no files in %s' % log)
	return Bench(d, awk)


def extract(log, d):
	"""Writes every ### FILE section of LOG under D; returns their number."""
	n = 0
	out = None
	with open(log, errors='replace') as f:
		for line in f:
			if line.startswith('### FILE '):
				rel = os.path.normpath(line[9:].strip())
				if rel.startswith('..') or os.path.isabs(rel):
					raise SystemExit('bad file name in %s: %s' % (log, rel))
				path = os.path.join(d, rel)
				os.makedirs(os.path.dirname(path), exist_ok=True)
				out = open(path, 'w')
				n += 1
			elif line.startswith('### ENDFILE'):
				out.close()
				out = None
			elif out:
				out.write(line)
	if out:
		out.close()
	return n


def main():
	ap = argparse.ArgumentParser()
	ap.add_argument('dir')
	ap.add_argument('--from-results', metavar='LOG')
	ap.add_argument('--pct', default=os.path.join(
		os.path.dirname(os.path.abspath(__file__)), '..', 'tools', 'testing',
		'selftests', 'kprobe_bench', 'kstats_pct.awk'))
	ap.add_argument('--title', default='kprobe_bench')
	ap.add_argument('--kernel', default='',
			help='which kernel the main results come from')
	ap.add_argument('--check', action='store_true')
	ap.add_argument('--base', metavar='DIR',
			help='results of the kernel without the kprobe patches')
	ap.add_argument('--base-from-results', metavar='LOG')
	ap.add_argument('--pre', metavar='DIR',
			help='results of the series without the resizable index')
	ap.add_argument('--pre-from-results', metavar='LOG')
	ap.add_argument('--boosted', metavar='DIR',
			help='int3 results of a kernel that boosts kprobes')
	ap.add_argument('--boosted-from-results', metavar='LOG')
	ap.add_argument('--boosted-kernel', default='',
			help='which kernel the --boosted results come from')
	a = ap.parse_args()

	b = load(a.dir, a.from_results, a.pct)
	base = load(a.base, a.base_from_results, a.pct) if a.base else None
	bb = load(a.boosted, a.boosted_from_results, a.pct) if a.boosted else None
	pre = load(a.pre, a.pre_from_results, a.pct) if a.pre else None
	# The four lookups need the series without its index (PRE_N).
	vc, vl = variant_table(b, base, pre) if pre else ([], [])
	xc, xl = index_table(b)
	lc, ll = lookups_table(b)
	bc, bl = base_table(b, base) if base else ([], [])
	oc, ol = boost_table(b, bb) if bb else ([], [])
	hc, hl = b.hit_table()
	ec, el = b.enable_table()
	sc, sl = b.self_table()
	cc, cl = b.churn_table()
	g = goals(b)
	head = headline_plot(b, base, a.dir, bl,
			     'kprobe hook cost: the kernel without the kprobe '
			     'patches against the series\\n' + a.title) if base else []
	pngs = plot(b, a.dir, base, a.kernel)

	text = ([a.kernel, ''] if a.kernel else []) + [
		'Hook cost, ns: p50/p99 of the probed call minus p50 of its '
		'unprobed twin in the same loop, median of the rounds',
		text_table(hc, hl), '',
		'Enabling time: N probes registered (disabled, one '
		'register_kprobes() call), armed and disarmed one at a time '
		'(arming stops after the budget; "arm all N" extrapolates), '
		'then in one batch, switched off and on through kprobes/enabled, '
		'unregistered', text_table(ec, el), '',
		'kstats measuring itself: empty function traced by kretprobe',
		text_table(sc, sl), '',
		'Hot hits (H = 16) while fill probes are unregistered in batches',
		text_table(cc, cl), '', 'Goals'] + ['  ' + x for x in g]
	if base:
		text = ['Hook cost, ns, p50: the kernel without the kprobe patches '
			'(base), the series with the cache off and on; each '
			'probed call against its unprobed twin in the same loop',
			text_table(bc, bl), ''] + text
	if vl:
		text = ['Hook cost, ns, p50, by lookup: hash chains (base kernel), '
			'chains + cache (series without the index), index (cache '
			'off), index + cache (cache on); each probed call against '
			'its unprobed twin', text_table(vc, vl), ''] + text
	if xl:
		text += ['', 'The kprobe table\'s index', text_table(xc, xl)]
	if ll:
		text += ['', 'The lookup cache during the cache-on measurements '
			 '(kprobes/cache_stats, all rounds)', text_table(lc, ll)]
	if bb:
		text += ['', 'int3 hook cost, ns: single-stepping (this kernel) '
			 'and boosted (%s)' % (a.boosted_kernel or a.boosted),
			 text_table(oc, ol)]
	with open(os.path.join(a.dir, 'table.txt'), 'w') as f:
		f.write('\n'.join(text) + '\n')
	print('\n'.join(text))

	md = ['# %s' % a.title, ''] + (
	      ['Kernel: %s.' % a.kernel, ''] if a.kernel else []) + [
	      '![%s](%s)' % (os.path.basename(x), os.path.basename(x))
	      for x in head] + ([''] if head else []) + [
	      '## Hook cost (ns)', '',
	      'p50 and p99 of the probed call minus the p50 of an unprobed '
	      'twin (same code) called next to it in the same loop, the median '
	      'of the rounds (runs before the twins: minus the boot\'s '
	      'unprobed p50); N = registered probes that are never hit, H = '
	      'hot probes hit round robin.', '', md_table(hc, hl), '',
	      '## Goals', ''] + ['- ' + x for x in g] + ([
	      '', '## Four lookups: hash chains, cache, index, both', '',
	      'p50 hook cost, ns.  chains = the kernel without the kprobe '
	      'patches, which walks one of 64 hash chains; chains+cache = the '
	      'series without its resizable index (cache on); index and '
	      'index+cache = the whole series, cache off and on in one boot.  '
	      'The first two come from separate boots of the same '
	      'configuration: compare ratios.  All four: the probed call '
	      'against its unprobed twin in the same loop.  Cache gain = what the cache '
	      'saves over the index alone.', '', md_table(vc, vl)]
	      if vl else []) + ([
	      '', '## Memory of the kprobe table\'s index', '',
	      md_table(xc, xl)] if xl else []) + ([
	      '', '## The lookup cache during the measurements', '',
	      'What kprobes/cache_stats counted during the cache-on rounds, '
	      'summed over the rounds: each round starts with the cache '
	      'flushed (the switch), so each hot address misses once per '
	      'round at least.', '', md_table(lc, ll)] if ll else []) + ([
	      '', '## Base kernel, series cache off, series cache on', '',
	      'base = the kernel without the kprobe patches (the series up to '
	      'the benchmark patch: kstats and the benchmark module only), '
	      'the same configuration, booted separately; off and on = the '
	      'whole series, cache switched off and on in one boot.  Compare '
	      'ratios, not absolute ns across boots.', '', md_table(bc, bl)]
	      if base else []) + ([
	      '', '## int3 probes: single-stepped and boosted', '',
	      'A CONFIG_PREEMPTION kernel (this one) never boosts an x86 '
	      'kprobe: every hit single-steps the copied instruction and '
	      'takes a second int3.  The boosted columns come from %s, booted '
	      'separately: compare the on/off ratios of each kernel, and the '
	      'absolute ns only as an indication.' % (
		      a.boosted_kernel or a.boosted), '', md_table(oc, ol)]
	      if bb else []) + [
	      '', '## Enabling time', '', md_table(ec, el), ''] + ([
	      '## Hits while the table changes', '',
	      'Hot hits (H = 16) at the largest N while another thread '
	      'unregisters fill probes in batches; steady = the same path, N, '
	      'H and cache state with the table unchanged.  Cost = percentile '
	      'minus the unprobed p50, ns.', '', md_table(cc, cl), '']
	      if cl else []) + [
	      '## kstats measuring itself', '',
	      'An empty function traced through kstats/_control (kretprobe).', '',
	      md_table(sc, sl), '']
	for png in pngs:
		md += ['![%s](%s)' % (os.path.basename(png), os.path.basename(png)), '']
	with open(os.path.join(a.dir, 'report.md'), 'w') as f:
		f.write('\n'.join(md))

	if a.check:
		missing = [line for line in hl + bl + ol
			   if any(v == '-' for v in line[2:])]
		if not hl or missing:
			print('bench_report: %d of %d rows incomplete' % (
				len(missing), len(hl + bl + ol)), file=sys.stderr)
			return 1
		# ENABLE_N=0 skips the enabling-time section on purpose.
		if not el and os.environ.get('ENABLE_N', '') != '0':
			print('bench_report: no enabling-time rows', file=sys.stderr)
			return 1
	return 0


if __name__ == '__main__':
	sys.exit(main())
