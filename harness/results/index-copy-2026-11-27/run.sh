#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Does a copy of the index word in each CPU's cache state pay for itself?
# The host tool (tools/testing/kprobe_cache of LINUX_TREE, the series with
# the patch that adds the copy) as it is ("copy": a miss and a bypassed
# lookup read the index word from the CPU's state line) and with
# global.diff ("global": they read the kprobe table's own word, as before
# the patch; everything else the same).  cachegrind's data read misses
# per cold lookup (cachegrind.sh quick with 1,000 lookups a run, and its
# steady run over 4,400 lookups from the start of a bypass: about one
# cycle of a bypass and the window of misses after it), and the tool's
# timing at 40,000 probes, the variants alternated, ROUNDS rounds
# (default 3), pinned to CPU 1 (harness/toolvariants.sh).
#
# Usage: run.sh LINUX_TREE [OUTDIR]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../.." && pwd)
[ $# -ge 1 ] || { echo "usage: $0 LINUX_TREE [OUTDIR]" >&2; exit 2; }
linux=$(cd "$1" && pwd)
out=$(mkdir -p "${2:-$here}" && cd "${2:-$here}" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
t0=$(date +%s)
say() { echo "[$(($(date +%s) - t0))s] $*" >&2; }

variants="copy global"
args=()
for v in $variants; do
	mkdir "$tmp/$v"
	cp "$linux"/tools/testing/kprobe_cache/* "$tmp/$v/"
	[ "$v" = copy ] || patch -s -p4 -d "$tmp/$v" <"$here/$v.diff"
	sed -i 's|#include "../../../include/linux/kprobe_cache.h"|#include <linux/kprobe_cache.h>|' \
		"$tmp/$v/kprobe_cache_bench.c"
	make -s -C "$tmp/$v" TOOLS_INCLUDE="$linux/tools/include" \
		KERNEL_INCLUDE="$linux/include" 2>/dev/null
	say "$v: built; cachegrind"
	(cd "$tmp/$v" && COUNT=1000 STEADY=4400 TASKSET="taskset -c 1" ./cachegrind.sh quick) \
		>"$out/cachegrind-$v.txt"
	args+=("$v=$tmp/$v/kprobe_cache_bench.c")
done
say "timing, ${ROUNDS:-3} rounds"
"$repo/harness/toolvariants.sh" "$linux" "$out/time.txt" 16,256,1024,4096 "${args[@]}" >/dev/null 2>&1
say "done"

{
	echo "LL read misses per cold lookup (cachegrind), N = 40,000:"
	printf '%-8s %8s %8s %8s %8s %s\n' variant index_16 index_4k cache_16 cache_4k \
		"steady cache_4k (lookups: hits, misses, bypassed)"
	for v in $variants; do
		awk -v v="$v" '$1 == 40000 { ix[$2] = $6; c[$2] = $8 }
			/^steady:/ { split($NF, m, "/"); s = m[2] " (" $4 ": " $5 ", " $6 ", " $7 ")" }
			END { printf "%-8s %8s %8s %8s %8s %s\n", v, ix[16], ix[4096], c[16], c[4096], s }' \
			"$out/cachegrind-$v.txt"
	done
	echo
	echo "chained ns per lookup, N = 40,000, min-max over the rounds:"
	awk '/^## / { v = $2; next }
		/^ +N / { for (i = 1; i <= NF; i++) col[$i] = i; next }
		$1 == 40000 {
			k = v " " $2
			if (!(k in order)) { order[k] = ++n; keys[n] = k }
			x = $col["index_lat_ns"]; y = $col["cache_lat_ns"]; b = $col["bypass%"]
			if (!(k in xlo) || x < xlo[k]) xlo[k] = x
			if (!(k in xhi) || x > xhi[k]) xhi[k] = x
			if (!(k in ylo) || y < ylo[k]) ylo[k] = y
			if (!(k in yhi) || y > yhi[k]) yhi[k] = y
			byp[k] = b
		}
		END {
			printf "%-8s %5s %13s %13s %8s\n", "variant", "H", "index", "cache", "bypass%"
			for (i = 1; i <= n; i++) {
				split(keys[i], a, " ")
				printf "%-8s %5s %6.2f-%-6.2f %6.2f-%-6.2f %8s\n", a[1], a[2],
					xlo[keys[i]], xhi[keys[i]], ylo[keys[i]], yhi[keys[i]], byp[keys[i]]
			}
		}' "$out/time.txt"
} | tee "$out/summary.txt"
