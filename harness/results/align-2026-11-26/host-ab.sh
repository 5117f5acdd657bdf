#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The host harness of two commits of a kernel tree with the series,
# built side by side (include/linux/kprobe_cache.h and
# tools/testing/kprobe_cache/kprobe_cache_bench.c of each), run pinned in
# turns, twice.  ARGS: the tool's sizes and layout (default: N = 1,025 and
# 40,000, hot sets from 1 to past the cache's capacity, random addresses).
# Usage: [ARGS=...] host-ab.sh LINUX BEFORE AFTER OUTDIR   (a few minutes)
set -euo pipefail
linux=$(realpath "$1")
before=$2 after=$3
out=$(realpath -m "$4")
args=${ARGS:---n 1025,40000 --h 1,16,256,1024,1280,4096}
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
echo "args: $args" | tee "$out/args"
for r in 1 2; do
	for v in before after; do
		# shellcheck disable=SC2086
		taskset -c 1 "$tmp/$v/kprobe_cache_bench" $args > "$out/$v-run$r.txt"
	done
done
for r in 1 2; do
	for v in before after; do
		echo "$v, run $r: N, H, index and cache chained ns, cache/index, hit%, bypassed%, back-to-back index and cache ns"
		awk '$1 ~ /^[0-9]+$/ && NF >= 12 { printf "%6s %5s %6s %6s %5.2f %6s %6s %5s %5s\n", $1, $2, $11, $12, $12 / $11, $9, $10, $4, $5 }' \
			"$out/$v-run$r.txt"
	done
done | tee "$out/summary.txt"
