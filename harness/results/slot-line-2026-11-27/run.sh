#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Should the index's probe sequences start at a cache line?  The host
# tool (tools/testing/kprobe_cache) with its index as in the series
# (linear probing from the hashed slot) and three variants, each a diff
# next to this script:
#   line       the sequence starts at the first slot of the hashed slot's
#              64-byte line (four 16-byte slots), then goes on linearly
#   rot        it starts at the hashed slot, goes round the rest of that
#              line, then on to the next lines
#   wholeline  as line, but each step loads the four addresses of a line
#              and compares them without a branch between them
# The tool checks every variant's lookups against the probes it
# registered before it times them.  cachegrind's data read misses per cold
# lookup (cachegrind.sh quick, 1,000 lookups a run) and the tool's timing
# at 40,000 probes, the variants alternated, ROUNDS rounds (default 3),
# pinned to CPU 1 (harness/tooldiffs.sh).
#
# Usage: run.sh LINUX_TREE [OUTDIR]   (LINUX_TREE: the series applied)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../.." && pwd)
[ $# -ge 1 ] || { echo "usage: $0 LINUX_TREE [OUTDIR]" >&2; exit 2; }
linux=$(cd "$1" && pwd)
"$repo/harness/tooldiffs.sh" "$linux" "${2:-$here}" linear line="$here/line.diff" \
	rot="$here/rot.diff" wholeline="$here/wholeline.diff"
