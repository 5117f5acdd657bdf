#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Where the ~1.5 ns that the lookup cache adds over the index at 40,000
# probes and 4,096 hot addresses (chained lookups, host CPU) comes from.
# Builds tools/testing/kprobe_cache/kprobe_cache_bench as it is (a) and
# changed by sed, nothing else:
#   always  - every lookup bypasses the cache (the bypass path's own cost)
#   b65536  - KPROBE_CACHE_BYPASS 65,536 instead of 4,096 (fewer windows)
#   likely  - b65536, and the bypass test laid out as the fall-through
#   likely4 - the bypass test as the fall-through, 4,096
# then runs them alternated ROUNDS times (default 3), pinned to CPU 1
# (harness/toolvariants.sh); "a" is the tool of series v15, which had no
# hint on the bypass test (series v16 adds likely()).
# Usage: run.sh LINUX_TREE [OUT_DIR]
set -euo pipefail
linux=${1:?usage: run.sh LINUX_TREE [OUT_DIR]}
out=${2:-$(pwd)}
here=$(cd "$(dirname "$0")/../../.." && pwd)
src=$here/tools/testing/kprobe_cache/kprobe_cache_bench.c
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The tool as series v15 had it: no hint on the bypass test.
sed 's/^\tif (likely(kcpu.bypass > 0)) {/\tif (kcpu.bypass > 0) {/' "$src" >"$tmp/a.c"
sed 's/^\tif (kcpu.bypass > 0) {/\tif (1) {/' "$tmp/a.c" >"$tmp/always.c"
long='#include "..\/..\/..\/include\/linux\/kprobe_cache.h"\n#undef KPROBE_CACHE_BYPASS\n#define KPROBE_CACHE_BYPASS 65536'
sed "s|^#include \"../../../include/linux/kprobe_cache.h\"|$long|" "$tmp/a.c" >"$tmp/b65536.c"
fall='s/^\tif (kcpu.bypass > 0) {/\tif (__builtin_expect(kcpu.bypass > 0, 1)) {/'
sed "$fall" "$tmp/b65536.c" >"$tmp/likely.c"
sed "$fall" "$tmp/a.c" >"$tmp/likely4.c"
args=()
for v in a always b65536 likely likely4; do
	args+=("$v=$tmp/$v.c")
done
"$here/harness/toolvariants.sh" "$linux" "$out/bypass-layout.txt" 16,256,1024,4096 "${args[@]}"
