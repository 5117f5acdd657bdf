#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The host harness's user-space lookup (tools/testing/kprobe_cache) with
# the lookup cache's bypass test laid out three ways, nothing else changed
# (sed on the file as the series has it):
#   likely   - likely(): the bypass is the fall-through (the series)
#   unlikely - unlikely(): the bypass out of line (the kernel before)
#   nohint   - no hint (the tool before; gcc -O2 puts the bypass out of line)
# alternated ROUNDS times (default 3), pinned to CPU 1, 40,000 probes
# (harness/toolvariants.sh).
# Usage: tool.sh LINUX_TREE [OUT_DIR]
set -euo pipefail
linux=${1:?usage: tool.sh LINUX_TREE [OUT_DIR]}
out=${2:-$(pwd)}
here=$(cd "$(dirname "$0")/../../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
src=$linux/tools/testing/kprobe_cache/kprobe_cache_bench.c
test='if (likely(kcpu.bypass > 0)) {'
grep -qF "$test" "$src" || { echo "no '$test' in $src" >&2; exit 1; }
sed 's/if (likely(kcpu.bypass > 0)) {/if (unlikely(kcpu.bypass > 0)) {/' "$src" >"$tmp/unlikely.c"
sed 's/if (likely(kcpu.bypass > 0)) {/if (kcpu.bypass > 0) {/' "$src" >"$tmp/nohint.c"
LISTING=cached_lookup "$here/harness/toolvariants.sh" "$linux" "$out/tool.txt" 16,256,1024,4096 \
	likely="$src" unlikely="$tmp/unlikely.c" nohint="$tmp/nohint.c"
