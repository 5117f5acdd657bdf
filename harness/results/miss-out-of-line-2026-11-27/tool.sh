#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The host harness's user-space lookup (tools/testing/kprobe_cache) at
# patch 31 and at patch 32 of a tree with the series (HEAD = patch 32),
# alternated ROUNDS times (default 3), pinned to CPU 1, 40,000 probes
# (harness/toolvariants.sh).
# Usage: tool.sh LINUX_TREE [OUT_DIR]
set -euo pipefail
linux=${1:?usage: tool.sh LINUX_TREE [OUT_DIR]}
out=${2:-$(pwd)}
here=$(cd "$(dirname "$0")/../../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
f=tools/testing/kprobe_cache/kprobe_cache_bench.c
git -C "$linux" show "HEAD~1:$f" >"$tmp/p31.c"
git -C "$linux" show "HEAD:$f" >"$tmp/p32.c"
"$here/harness/toolvariants.sh" "$linux" "$out/tool.txt" 16,256,4096 \
	"patch 31"="$tmp/p31.c" "patch 32"="$tmp/p32.c"
