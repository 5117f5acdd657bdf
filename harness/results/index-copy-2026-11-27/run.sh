#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Does a copy of the index word in each CPU's cache state pay for itself?
# The host tool (tools/testing/kprobe_cache of LINUX_TREE, the series with
# the patch that adds the copy) as it is ("copy": a miss and a bypassed
# lookup read the index word from the CPU's state line) and with
# global.diff ("global": they read the kprobe table's own word, as before
# the patch; everything else the same).  cachegrind's data read misses
# per cold lookup (cachegrind.sh quick with 1,000 lookups a run, and its
# steady run over 4,400 lookups from the start of a bypass: about one
# cycle of a bypass and the window of misses after it), and the tool's
# timing at 40,000 probes, the variants alternated, ROUNDS rounds
# (default 3), pinned to CPU 1 (harness/tooldiffs.sh).
#
# Usage: run.sh LINUX_TREE [OUTDIR]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../.." && pwd)
[ $# -ge 1 ] || { echo "usage: $0 LINUX_TREE [OUTDIR]" >&2; exit 2; }
linux=$(cd "$1" && pwd)
STEADY=4400 "$repo/harness/tooldiffs.sh" "$linux" "${2:-$here}" copy global="$here/global.diff"
