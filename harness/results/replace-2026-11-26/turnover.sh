#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# turnover.c against the kprobe_cache.h of a kernel tree with the series,
# with KPROBE_CACHE_REPLACE set to 1 (every miss replaces: the policy
# before bimodal insertion), 4, 8, 16 (the series), 32 and 64.
# Usage: turnover.sh LINUX   (a few seconds; prints the table)
set -euo pipefail
linux=$(realpath "$1")
here=$(dirname "$(realpath "$0")")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for k in 1 4 8 16 32 64; do
	mkdir -p "$tmp/$k"
	sed "s/^#define KPROBE_CACHE_REPLACE\t[0-9]*$/#define KPROBE_CACHE_REPLACE\t$k/" \
		"$linux/include/linux/kprobe_cache.h" > "$tmp/$k/kprobe_cache.h"
	grep -q "^#define KPROBE_CACHE_REPLACE	$k$" "$tmp/$k/kprobe_cache.h"
	gcc -O2 -Wall -I"$tmp/$k" -I"$linux/tools/include" -idirafter "$linux/include" \
		-o "$tmp/$k/turnover" "$here/turnover.c"
	for p in "1024 256" "4096 256" "1024 512"; do
		"$tmp/$k/turnover" $p
	done
	echo
done
