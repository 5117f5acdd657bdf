#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The host harness of two commits of a kernel tree with the series,
# built side by side (include/linux/kprobe_cache.h and
# tools/testing/kprobe_cache/kprobe_cache_bench.c of each), run pinned in
# turns, twice, at N = 40,000 with hot sets around the cache's capacity.
# Usage: host-ab.sh LINUX BEFORE AFTER OUTDIR   (about 1 minute; quiet host)
set -euo pipefail
linux=$(realpath "$1")
before=$2 after=$3
out=$(realpath -m "$4")
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for v in before after; do
	rev=${!v}
	mkdir -p "$tmp/$v"
	git -C "$linux" show "$rev:include/linux/kprobe_cache.h" > "$tmp/$v/kprobe_cache.h"
	git -C "$linux" show "$rev:tools/testing/kprobe_cache/kprobe_cache_bench.c" |
		sed 's|"../../../include/linux/kprobe_cache.h"|"kprobe_cache.h"|' > "$tmp/$v/b.c"
	gcc -O2 -g -Wall -I"$tmp/$v" -I"$linux/tools/include" -idirafter "$linux/include" \
		-o "$tmp/$v/kprobe_cache_bench" "$tmp/$v/b.c"
	echo "$v: $(git -C "$linux" log -1 --format='%h %s' "$rev")" | tee "$out/$v.rev"
done
for r in 1 2; do
	for v in before after; do
		taskset -c 1 "$tmp/$v/kprobe_cache_bench" --n 40000 \
			--h 256,512,768,1024,1280,2048,4096 > "$out/$v-run$r.txt"
	done
done
for r in 1 2; do
	for v in before after; do
		echo "$v, run $r: H, index and cache chained ns, cache/index, hit%, bypassed%, back-to-back index and cache ns"
		awk '$1 == 40000 { printf "%5s %6s %6s %5.2f %6s %6s %5s %5s\n", $2, $11, $12, $12 / $11, $9, $10, $4, $5 }' \
			"$out/$v-run$r.txt"
	done
done | tee "$out/summary.txt"
