#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Patch 25 on the host CPU for addresses at a fixed stride, which the
# host harness does not draw (its addresses are random, which either hash
# spreads alike).  Builds tools/testing/kprobe_cache/kprobe_cache_bench
# of a kernel tree with the series four times in a scratch directory:
# the index hashed by kprobe_addr_hash() (as the series has it) or by
# hash_ptr() (the line replaced), and the N probed addresses at
# TEXT_BASE + STRIDE * i for i < N (the random draw's result replaced)
# for STRIDE 37 (the benchmark's functions) and 1,008 (hash_ptr()'s worst
# multiple of 8 in hash-eval.py --sweep).  Runs each once, pinned, then
# the tree's cachegrind.sh quick next to it, and keeps the N = 40,000
# rows and the cachegrind tables.
#
# Usage: host-stride.sh LINUX OUTDIR   (about 6 minutes; quiet host)
set -euo pipefail
linux=$(realpath "$1")
out=$(realpath -m "$2")
src=$linux/tools/testing/kprobe_cache/kprobe_cache_bench.c
mkdir -p "$out"
start=$(date +%s)
log() { echo "[$(($(date +%s) - start))s] $*"; }
variants="kprobe_addr_hash-37 kprobe_addr_hash-1008 hash_ptr-37 hash_ptr-1008"
# binaries in a scratch directory; OUTDIR keeps the text only
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

build() {
	local hash=${1%-*} stride=${1##*-} d=$tmp/$1

	mkdir -p "$d"
	sed -e "s|(void \*)(TEXT_BASE + TEXT_ALIGN \* k);|(void *)(TEXT_BASE + $stride * (unsigned long)i);|" \
	    -e "s|u32 h = kprobe_addr_hash(addr, bits + KPROBE_INDEX_TAG_BITS);|u32 h = $hash(addr, bits + KPROBE_INDEX_TAG_BITS);|" \
	    -e "s|\"../../../include/linux/kprobe_cache.h\"|<linux/kprobe_cache.h>|" \
	    "$src" > "$d/bench.c"
	grep -q "TEXT_BASE + $stride \* (unsigned long)i" "$d/bench.c"
	grep -q "u32 h = $hash(addr" "$d/bench.c"
	gcc -O2 -g -Wall -I"$linux/tools/include" -idirafter "$linux/include" \
	    -o "$d/kprobe_cache_bench" "$d/bench.c"
	cp "$linux/tools/testing/kprobe_cache/cachegrind.sh" "$d/"
}

for v in $variants; do
	build "$v"
	log "built $v"
done
for v in $variants; do
	mkdir -p "$out/$v"
	taskset -c 1 "$tmp/$v/kprobe_cache_bench" > "$out/$v/bench.txt"
	log "ran $v"
done
for v in $variants; do
	"$tmp/$v/cachegrind.sh" quick > "$out/$v/cachegrind.txt" 2>&1
	log "cachegrind $v"
done
{
	echo "N = 40,000 rows: N H walk_hot_ns index_hot_ns cache_hot_ns walk_cold_ns index_cold_ns cache_cold_ns hit% bypass%"
	for v in $variants; do
		awk -v t="${v%-*} ${v##*-}:" '$1 == 40000 { print t, $0 }' \
			"$out/$v/bench.txt"
	done
	for v in $variants; do
		echo
		echo "cachegrind, ${v%-*}, stride ${v##*-}:"
		tail -n 4 "$out/$v/cachegrind.txt"
	done
} | tee "$out/summary.txt"
log "done: $out/summary.txt"
