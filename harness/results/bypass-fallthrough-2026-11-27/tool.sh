#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The host harness's user-space lookup (tools/testing/kprobe_cache) with
# the lookup cache's bypass test laid out three ways, nothing else changed
# (sed on the file as the series has it):
#   likely   - likely(): the bypass is the fall-through (the series)
#   unlikely - unlikely(): the bypass out of line (the kernel before)
#   nohint   - no hint (the tool before; gcc -O2 puts the bypass out of line)
# alternated ROUNDS times (default 3), pinned to CPU 1, 40,000 probes.
# Usage: tool.sh LINUX_TREE [OUT_DIR]
set -euo pipefail
linux=${1:?usage: tool.sh LINUX_TREE [OUT_DIR]}
out=${2:-$(pwd)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
src=$linux/tools/testing/kprobe_cache/kprobe_cache_bench.c
test='if (likely(kcpu.bypass > 0)) {'
grep -qF "$test" "$src" || { echo "no '$test' in $src" >&2; exit 1; }
hdr='#include "..\/..\/..\/include\/linux\/kprobe_cache.h"'
sed "s/$hdr/#include <linux\/kprobe_cache.h>/" "$src" >"$tmp/likely.c"
sed 's/if (likely(kcpu.bypass > 0)) {/if (unlikely(kcpu.bypass > 0)) {/' "$tmp/likely.c" >"$tmp/unlikely.c"
sed 's/if (likely(kcpu.bypass > 0)) {/if (kcpu.bypass > 0) {/' "$tmp/likely.c" >"$tmp/nohint.c"
vars="likely unlikely nohint"
for v in $vars; do
	[ "$v" = likely ] || ! cmp -s "$tmp/likely.c" "$tmp/$v.c" || { echo "sed did not change $v" >&2; exit 1; }
	gcc -O2 -g -Wall -Wextra -I"$linux/tools/include" -idirafter "$linux/include" \
		-o "$tmp/$v" "$tmp/$v.c"
	objdump -d --no-show-raw-insn "$tmp/$v" | awk '/<cached_lookup>:/,/^$/' >"$out/cached_lookup-$v.txt"
done
for r in $(seq "${ROUNDS:-3}"); do
	for v in $vars; do
		echo "## $v (round $r)"
		taskset -c 1 "$tmp/$v" --n 40000 --h 16,256,1024,4096 | grep -E '^ +N|^ +40000'
	done
done | tee "$out/tool.txt"
