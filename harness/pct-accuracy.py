#!/usr/bin/env python3
"""How close kstats_pct.awk's percentiles come to the exact ones.

Draws histograms of known samples, writes them in the format of a kstats
debugfs file (the slot function of lib/kstats.c), reads them back with
the series' kstats_pct.awk, interpolating and with -v interpolate=0, and
prints the mean and worst relative error of p50, p90 and p99 per
frac_bits.  Each draw: 4,000 log-normal samples, median e^U(4,8) ns,
sigma U(0.05,0.5): the shapes of the benchmark's call times.

Usage: pct-accuracy.py [--awk AWK-PROGRAM] [--draws N] [--awk-bin AWK]
"""
import argparse
import math
import os
import random
import subprocess
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def slot(v, f):
	b = (v >> f).bit_length()
	return v if b == 0 else (b << f) | ((v >> (b - 1)) & ((1 << f) - 1))


def draw(rng, f, path):
	mu = rng.uniform(4, 8)
	sigma = rng.uniform(0.05, 0.5)
	vals = sorted(int(rng.lognormvariate(mu, sigma)) for _ in range(4000))
	cnt, sm = {}, {}
	for v in vals:
		s = slot(v, f)
		cnt[s] = cnt.get(s, 0) + 1
		sm[s] = sm.get(s, 0) + v
	cum = 0
	with open(path, 'w') as out:
		for s in sorted(cnt):
			cum += cnt[s]
			out.write('slot %-3u CPUS 2    count %8u avg %8u p %.6f\n' %
				  (s, cnt[s], sm[s] // cnt[s], cum / len(vals)))
	return [vals[math.ceil(q * len(vals)) - 1] for q in (0.5, 0.9, 0.99)]


def read(awk, prog, path, interp):
	out = subprocess.run(awk.split() + ['-v', 'interpolate=%d' % interp, '-f', prog,
			      path], check=True, capture_output=True,
			     text=True).stdout.split()
	return [int(out[out.index(k) + 1]) for k in ('p50', 'p90', 'p99')]


def main():
	ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
	ap.add_argument('--awk', default=os.path.join(
		TOP, 'tools', 'testing', 'selftests', 'kprobe_bench',
		'kstats_pct.awk'))
	ap.add_argument('--awk-bin', default='awk', help='e.g. "busybox awk"')
	ap.add_argument('--draws', type=int, default=40)
	a = ap.parse_args()
	print('frac_bits  slot average: mean / worst   interpolated: mean / worst')
	with tempfile.TemporaryDirectory() as tmp:
		path = os.path.join(tmp, 'hist')
		for f in range(6):
			rng = random.Random(f)
			err = {0: [], 1: []}
			for _ in range(a.draws):
				exact = draw(rng, f, path)
				for interp in (0, 1):
					got = read(a.awk_bin, a.awk, path, interp)
					err[interp] += [abs(g - e) / e
							for g, e in zip(got, exact)]
			print('%9d  %12.2f%% / %5.2f%%   %12.2f%% / %5.2f%%' % (
				f, 100 * sum(err[0]) / len(err[0]), 100 * max(err[0]),
				100 * sum(err[1]) / len(err[1]), 100 * max(err[1])))


if __name__ == '__main__':
	main()
