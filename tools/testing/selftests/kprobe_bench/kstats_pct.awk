#!/usr/bin/awk -f
# SPDX-License-Identifier: GPL-2.0
#
# Percentiles of a kstats histogram (/sys/kernel/debug/kstats/NAME, or a
# copy of it): prints one line per input file,
#
#   NAME count C min V p50 V p90 V p99 V max V mean V
#
# from the aggregate ("CPUS") lines.  A percentile is the average of the
# slot where the cumulative fraction reaches it, so it is exact to the
# slot's resolution (2^-frac_bits of the value); min and max are the
# averages of the first and last slots with samples.  A histogram without
# samples reads as an empty file, which prints nothing.
#
# Usage: awk -f kstats_pct.awk FILE...

function flush(   i, pct, name, out, mean)
{
	if (file == "")
		return
	name = file
	sub(/.*\//, "", name)
	if (!n)
		return
	out = sprintf("%s count %d min %d", name, total, avg[1])
	split("0.50 0.90 0.99", pct, " ")
	for (q = 1; q <= 3; q++) {
		for (i = 1; i < n && cum[i] < pct[q] - 1e-9; i++)
			;
		out = out sprintf(" p%d %d", pct[q] * 100 + 0.5, avg[i])
	}
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
	avg[n] = $8
	cum[n] = $10
	total += $6
	wsum += $6 * $8
}

END {
	flush()
}
