#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Should the index's probe sequences start at a cache line?  The host
# tool (tools/testing/kprobe_cache) with its index as in the series
# (linear probing from the hashed slot) and three variants, each a diff
# next to this script:
#   line       the sequence starts at the first slot of the hashed slot's
#              64-byte line (four 16-byte slots), then goes on linearly
#   rot        it starts at the hashed slot, goes round the rest of that
#              line, then on to the next lines
#   wholeline  as line, but each step loads the four addresses of a line
#              and compares them without a branch between them
# The tool checks every variant's lookups against the probes it
# registered before it times them.  cachegrind's data read misses per cold
# lookup (cachegrind.sh quick, 1,000 lookups a run) and the tool's timing
# at 40,000 probes, the variants alternated, ROUNDS rounds (default 3),
# pinned to CPU 1 (harness/toolvariants.sh).
#
# Usage: run.sh LINUX_TREE [OUTDIR]   (LINUX_TREE: the series applied)
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

variants="linear line rot wholeline"
args=()
for v in $variants; do
	mkdir "$tmp/$v"
	cp "$repo"/tools/testing/kprobe_cache/* "$tmp/$v/"
	[ "$v" = linear ] || patch -s -p4 -d "$tmp/$v" <"$here/$v.diff"
	sed -i 's|#include "../../../include/linux/kprobe_cache.h"|#include <linux/kprobe_cache.h>|' \
		"$tmp/$v/kprobe_cache_bench.c"
	make -s -C "$tmp/$v" TOOLS_INCLUDE="$linux/tools/include" \
		KERNEL_INCLUDE="$linux/include"
	say "$v: built; cachegrind"
	(cd "$tmp/$v" && COUNT=1000 TASKSET="taskset -c 1" ./cachegrind.sh quick) \
		>"$out/cachegrind-$v.txt"
	args+=("$v=$tmp/$v/kprobe_cache_bench.c")
done
say "timing, ${ROUNDS:-3} rounds"
"$repo/harness/toolvariants.sh" "$linux" "$out/time.txt" 16,256,1024,4096 "${args[@]}" >/dev/null
say "done"

# Last-level read misses per cold lookup, then the chained ns (min-max
# over the rounds) of the index alone and of the cache in front of it.
{
	echo "LL read misses per cold lookup (cachegrind), N = 40,000:"
	printf '%-10s %8s %8s %8s %8s\n' variant index_16 index_4k cache_16 cache_4k
	for v in $variants; do
		awk -v v="$v" '$1 == 40000 { ix[$2] = $6; c[$2] = $8 }
			END { printf "%-10s %8s %8s %8s %8s\n", v, ix[16], ix[4096], c[16], c[4096] }' \
			"$out/cachegrind-$v.txt"
	done
	echo
	echo "chained ns per lookup, N = 40,000, min-max over the rounds:"
	awk '/^## / { v = $2; next }
		/^ +N / { for (i = 1; i <= NF; i++) col[$i] = i; next }
		$1 == 40000 {
			k = v " " $2
			if (!(k in order)) { order[k] = ++n; keys[n] = k }
			x = $col["index_lat_ns"]; y = $col["cache_lat_ns"]
			if (!(k in xlo) || x < xlo[k]) xlo[k] = x
			if (!(k in xhi) || x > xhi[k]) xhi[k] = x
			if (!(k in ylo) || y < ylo[k]) ylo[k] = y
			if (!(k in yhi) || y > yhi[k]) yhi[k] = y
		}
		END {
			printf "%-10s %5s %13s %13s\n", "variant", "H", "index", "cache"
			for (i = 1; i <= n; i++) {
				split(keys[i], a, " ")
				printf "%-10s %5s %6.2f-%-6.2f %6.2f-%-6.2f\n", a[1], a[2],
					xlo[keys[i]], xhi[keys[i]], ylo[keys[i]], yhi[keys[i]]
			}
		}' "$out/time.txt"
} | tee "$out/summary.txt"
