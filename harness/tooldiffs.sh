#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Variants of the host harness's tool (tools/testing/kprobe_cache of a
# tree with the series applied), each the tool as it is or with a diff
# applied, compared on cache misses and time; for the before/after
# comparisons under harness/results/ (their run.sh scripts).
#
# Usage: tooldiffs.sh LINUX_TREE OUTDIR NAME[=DIFF]...
#
# NAME alone is the tool as LINUX_TREE has it; NAME=DIFF the tool with
# DIFF applied (patch -p4, paths as in the kernel tree).  Each variant is
# built with the tool's Makefile against LINUX_TREE's headers, then:
#   OUTDIR/cachegrind-NAME.txt  cachegrind.sh quick, 1,000 lookups a run
#                               and its steady run from the start of a
#                               bypass (STEADY lookups, default 1,000;
#                               environment), pinned to CPU 1
#   OUTDIR/time.txt             the tool's timing at 40,000 probes,
#                               H = 16, 256, 1,024, 4,096, the variants
#                               alternated, ROUNDS rounds (default 3),
#                               pinned to CPU 1 (toolvariants.sh)
#   OUTDIR/summary.txt          last-level read misses per cold lookup
#                               and chained ns per lookup (min-max over
#                               the rounds), also printed
set -euo pipefail
[ $# -ge 3 ] || { echo "usage: $0 LINUX_TREE OUTDIR NAME[=DIFF]..." >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
linux=$(cd "$1" && pwd)
out=$(mkdir -p "$2" && cd "$2" && pwd)
shift 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
t0=$(date +%s)
say() { echo "[$(($(date +%s) - t0))s] $*" >&2; }

names=()
args=()
for v in "$@"; do
	n=${v%%=*}
	names+=("$n")
	mkdir "$tmp/$n"
	cp "$linux"/tools/testing/kprobe_cache/* "$tmp/$n/"
	[ "$v" = "$n" ] || patch -s -p4 -d "$tmp/$n" <"${v#*=}"
	sed -i 's|#include "../../../include/linux/kprobe_cache.h"|#include <linux/kprobe_cache.h>|' \
		"$tmp/$n/kprobe_cache_bench.c"
	make -s -C "$tmp/$n" TOOLS_INCLUDE="$linux/tools/include" \
		KERNEL_INCLUDE="$linux/include"
	say "$n: built; cachegrind"
	(cd "$tmp/$n" && COUNT=1000 TASKSET="taskset -c 1" ./cachegrind.sh quick) \
		>"$out/cachegrind-$n.txt"
	args+=("$n=$tmp/$n/kprobe_cache_bench.c")
done
say "timing, ${ROUNDS:-3} rounds"
"$here/toolvariants.sh" "$linux" "$out/time.txt" 16,256,1024,4096 "${args[@]}" >/dev/null
say "done"

{
	echo "LL read misses per cold lookup (cachegrind), N = 40,000:"
	printf '%-10s %8s %8s %8s %8s %s\n' variant index_16 index_4k cache_16 cache_4k \
		"steady cache_4k (lookups: hits, misses, bypassed)"
	for n in "${names[@]}"; do
		awk -v v="$n" '$1 == 40000 { ix[$2] = $6; c[$2] = $8 }
			/^steady:/ { split($NF, m, "/"); s = m[2] " (" $4 ": " $5 ", " $6 ", " $7 ")" }
			END { printf "%-10s %8s %8s %8s %8s %s\n", v, ix[16], ix[4096], c[16], c[4096], s }' \
			"$out/cachegrind-$n.txt"
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
			printf "%-10s %5s %13s %13s %8s\n", "variant", "H", "index", "cache", "bypass%"
			for (i = 1; i <= n; i++) {
				split(keys[i], a, " ")
				printf "%-10s %5s %6.2f-%-6.2f %6.2f-%-6.2f %8s\n", a[1], a[2],
					xlo[keys[i]], xhi[keys[i]], ylo[keys[i]], yhi[keys[i]], byp[keys[i]]
			}
		}' "$out/time.txt"
} | tee "$out/summary.txt"
