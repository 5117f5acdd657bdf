#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The host harness's user-space lookup (tools/testing/kprobe_cache) at
# patch 31 and at patch 32 of a tree with the series (HEAD = patch 32),
# alternated ROUNDS times (default 3), pinned to CPU 1, 40,000 probes.
# Usage: tool.sh LINUX_TREE [OUT_DIR]
set -euo pipefail
linux=${1:?usage: tool.sh LINUX_TREE [OUT_DIR]}
out=${2:-$(pwd)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
f=tools/testing/kprobe_cache/kprobe_cache_bench.c
for v in 31:HEAD~1 32:HEAD; do
	n=${v%%:*}
	git -C "$linux" show "${v#*:}:$f" >"$tmp/p$n.c"
	gcc -O2 -g -Wall -Wextra -I"$linux/tools/include" -idirafter "$linux/include" \
		-o "$tmp/p$n" "$tmp/p$n.c"
done
cmp -s "$tmp/p31.c" "$tmp/p32.c" && { echo "the two versions are the same" >&2; exit 1; }
for r in $(seq "${ROUNDS:-3}"); do
	for n in 31 32; do
		echo "## patch $n (round $r)"
		taskset -c 1 "$tmp/p$n" --n 40000 --h 16,256,4096 | grep -E '^ +N|^ +40000'
	done
done | tee "$out/tool.txt"
