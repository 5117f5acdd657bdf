#!/usr/bin/awk -f
# SPDX-License-Identifier: GPL-2.0
#
# Percentiles of a kstats histogram (/sys/kernel/debug/kstats/NAME, or a
# copy of it): prints one line per input file,
#
#   NAME count C min V p50 V p90 V p99 V max V mean V
#
# from the aggregate ("CPUS") lines.  A percentile falls in the slot where
# the cumulative fraction reaches it, and is interpolated linearly between
# the slot's bounds, as if its samples were spread evenly over it: a small
# shift of the distribution moves it a little, never by a whole slot
# (2^-frac_bits of the value).  The bounds come from the slot numbers,
# once the file's frac_bits is known: the largest value from 5 down to 1
# for which the average of every slot lies inside that slot.  With
# frac_bits 0 (a slot per power of two), or when no value fits, a
# percentile is the average of its slot.  min and max are the averages of
# the first and last slots with samples.  A histogram without samples
# reads as an empty file, which prints nothing.  -v interpolate=0 gives
# the average of the slot always.
#
# Usage: awk [-v interpolate=0] -f kstats_pct.awk FILE...

# 2^K, without the math library that some awks lack.
function pow2(k,   r)
{
	for (r = 1; k > 0; k--)
		r *= 2
	return r
}

# The slot of value V in a histogram of F frac_bits, as in lib/kstats.c.
function slot_of(v, f,   t, b)
{
	if (v < pow2(f))
		return v
	for (t = int(v / pow2(f)); t >= 1; t = int(t / 2))
		b++
	return b * pow2(f) + int(v / pow2(b - 1)) % pow2(f)
}

# The frac_bits of the slots read, or -1 for 0 or no fit.
function find_frac(   f, i, ok)
{
	for (f = 5; f >= 1; f--) {
		ok = 1
		for (i = 1; i <= n && ok; i++)
			if (slot[i] >= (65 - f) * pow2(f) ||
			    slot_of(avg[i], f) != slot[i])
				ok = 0
		if (ok)
			return f
	}
	return -1
}

# Percentile Q, with F the frac_bits (or -1).
function pctl(q, f,   i, b, lo, w, c0)
{
	for (i = 1; i < n && cum[i] < q - 1e-9; i++)
		;
	if (f < 0 || cum[i] <= (i > 1 ? cum[i - 1] : 0))
		return avg[i]
	b = int(slot[i] / pow2(f))
	if (b == 0) {
		lo = slot[i]
		w = 1
	} else {
		w = pow2(b - 1)
		lo = (pow2(f) + slot[i] % pow2(f)) * w
	}
	c0 = i > 1 ? cum[i - 1] : 0
	if (q < c0)
		q = c0
	return lo + w * (q - c0) / (cum[i] - c0)
}

function flush(   q, pct, name, out, mean, f)
{
	if (file == "")
		return
	name = file
	sub(/.*\//, "", name)
	if (!n)
		return
	f = interpolate == "0" ? -1 : find_frac()
	out = sprintf("%s count %d min %d", name, total, avg[1])
	split("0.50 0.90 0.99", pct, " ")
	for (q = 1; q <= 3; q++)
		out = out sprintf(" p%d %d", pct[q] * 100 + 0.5,
				  pctl(pct[q], f) + 0.5)
	mean = total ? wsum / total : 0
	printf "%s max %d mean %d\n", out, avg[n], mean + 0.5
}

FNR == 1 {
	flush()
	file = FILENAME
	n = 0
	total = 0
	wsum = 0
}

# slot S CPUS K count C avg A p P
$1 == "slot" && $3 == "CPUS" && $5 == "count" && $7 == "avg" && $9 == "p" {
	n++
	slot[n] = $2
	avg[n] = $8
	cum[n] = $10
	total += $6
	wsum += $6 * $8
}

END {
	flush()
}
