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
for hash in kprobe_addr_hash hash_ptr; do
	for stride in 37 1008; do
		d=$out/$hash-$stride
		mkdir -p "$d"
		sed -e "s|(void \*)(TEXT_BASE + TEXT_ALIGN \* k);|(void *)(TEXT_BASE + $stride * (unsigned long)i);|" \
		    -e "s|u32 h = kprobe_addr_hash(addr, bits + KPROBE_INDEX_TAG_BITS);|u32 h = $hash(addr, bits + KPROBE_INDEX_TAG_BITS);|" \
		    "$src" > "$d/bench.c"
		grep -q "TEXT_BASE + $stride \* (unsigned long)i" "$d/bench.c"
		grep -q "u32 h = $hash(addr" "$d/bench.c"
		# the source includes the cache's header by a relative path
		sed -i "s|\"../../../include/linux/kprobe_cache.h\"|<linux/kprobe_cache.h>|" "$d/bench.c"
		gcc -O2 -g -Wall -I"$linux/tools/include" -idirafter "$linux/include" \
		    -o "$d/kprobe_cache_bench" "$d/bench.c"
		cp "$linux/tools/testing/kprobe_cache/cachegrind.sh" "$d/"
		log "built $hash, stride $stride"
	done
done
for hash in kprobe_addr_hash hash_ptr; do
	for stride in 37 1008; do
		d=$out/$hash-$stride
		taskset -c 1 "$d/kprobe_cache_bench" > "$d/bench.txt"
		log "ran $hash, stride $stride"
	done
done
for hash in kprobe_addr_hash hash_ptr; do
	for stride in 37 1008; do
		d=$out/$hash-$stride
		"$d/cachegrind.sh" quick > "$d/cachegrind.txt" 2>&1
		log "cachegrind $hash, stride $stride"
	done
done
{
	echo "N = 40,000 rows: N H walk_hot_ns index_hot_ns cache_hot_ns walk_cold_ns index_cold_ns cache_cold_ns hit% bypass%"
	for hash in kprobe_addr_hash hash_ptr; do
		for stride in 37 1008; do
			awk -v t="$hash $stride:" '$1 == 40000 { print t, $0 }' \
				"$out/$hash-$stride/bench.txt"
		done
	done
	for hash in kprobe_addr_hash hash_ptr; do
		for stride in 37 1008; do
			echo
			echo "cachegrind, $hash, stride $stride:"
			tail -n 4 "$out/$hash-$stride/cachegrind.txt"
		done
	done
} | tee "$out/summary.txt"
log "done: $out/summary.txt"
