#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Builds variants of the host harness's tool
# (tools/testing/kprobe_cache/kprobe_cache_bench.c) and runs them
# alternated, for the before/after comparisons under harness/results/.
#
# Usage: toolvariants.sh LINUX_TREE OUT_TXT H_LIST NAME=SOURCE...
#
# Each SOURCE is a version of the tool's source (its include of
# kprobe_cache.h relative to the tree is made a system include), built
# with the tool's Makefile flags against LINUX_TREE's headers; then each
# binary runs with --n 40000 --h H_LIST, ROUNDS times (default 3), the
# variants alternated in the order given, pinned to CPU 1; OUT_TXT gets
# the header and the 40,000-probe lines of every run.  LISTING=FUNCTION
# also writes FUNCTION's objdump of each variant next to OUT_TXT
# (FUNCTION-NAME.txt).
set -euo pipefail
[ $# -ge 4 ] || { echo "usage: $0 LINUX_TREE OUT_TXT H_LIST NAME=SOURCE..." >&2; exit 2; }
linux=$1 out=$2 hs=$3
shift 3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
hdr='#include "..\/..\/..\/include\/linux\/kprobe_cache.h"'
names=()
for v in "$@"; do
	n=${v%%=*}
	names+=("$n")
	sed "s/$hdr/#include <linux\/kprobe_cache.h>/" "${v#*=}" >"$tmp/$n.c"
	# Every variant must differ from the first.
	[ "$n" = "${names[0]}" ] || ! cmp -s "$tmp/${names[0]}.c" "$tmp/$n.c" ||
		{ echo "$n is the same source as ${names[0]}" >&2; exit 1; }
	gcc -O2 -g -Wall -Wextra -I"$linux/tools/include" -idirafter "$linux/include" \
		-o "$tmp/$n" "$tmp/$n.c"
	[ -z "${LISTING:-}" ] ||
		objdump -d --no-show-raw-insn "$tmp/$n" | awk "/<$LISTING>:/,/^\$/" \
			>"$(dirname "$out")/$LISTING-$n.txt"
done
for r in $(seq "${ROUNDS:-3}"); do
	for n in "${names[@]}"; do
		echo "## $n (round $r)"
		taskset -c 1 "$tmp/$n" --n 40000 --h "$hs" | grep -E '^ +N|^ +40000'
	done
done | tee "$out"
