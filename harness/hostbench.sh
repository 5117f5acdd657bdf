#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The lookup cache on the host CPU: tools/testing/kprobe_cache of the
# series, quick (CI) or run (full table).  Saves the output and, with a
# RESULTS file, records the checks that do not depend on timing: every
# lookup right, a cold cached lookup costs at most one LL miss, and the
# 40,000-probe walk costs more than 100 (the model shows the problem).
# Usage: hostbench.sh SRC OUTDIR quick|run [RESULTS]
. "$(dirname "$0")/common.sh"

SRC=$1 OUTDIR=$2 MODE=$3 RES=${4:-}
dir=$SRC/tools/testing/kprobe_cache
mkdir -p "$OUTDIR"
out=$OUTDIR/hostbench-$MODE.txt
command -v valgrind >/dev/null || die "valgrind is missing (apt-get install valgrind)"

log "host harness: make -C tools/testing/kprobe_cache $MODE"
{
	echo "# $(date -u +%Y-%m-%d) $(uname -m), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
	make -s -C "$dir" clean
	make -s -C "$dir" "$MODE"
} >"$out" 2>&1
rc=$?
make -s -C "$dir" clean >/dev/null 2>&1 || true
cat "$out"
if [ "$rc" -ne 0 ] || grep -q 'wrong kprobe' "$out"; then
	rec FAIL "host harness: $MODE runs and every lookup is right" "see $out"
	exit 1
fi
rec PASS "host harness: $MODE runs and every lookup is right"

# The cachegrind table's 40000 row: N walk_D1 walk_LL cache_D1 cache_LL.
row=$(awk '$1 == 40000 && NF == 5' "$out" | tail -n1)
if [ -z "$row" ]; then
	rec FAIL "host harness: cachegrind table has N=40000" "see $out"
	exit 1
fi
read -r _ _ walk_ll _ cache_ll <<<"$row"
if awk -v c="$cache_ll" 'BEGIN { exit !(c <= 1.0) }'; then
	rec PASS "host harness: cold cached lookup <= 1 LL miss at N=40000 ($cache_ll)"
else
	rec FAIL "host harness: cold cached lookup <= 1 LL miss at N=40000" "$cache_ll"
fi
if awk -v w="$walk_ll" 'BEGIN { exit !(w > 100) }'; then
	rec PASS "host harness: the walk at N=40000 misses > 100 times ($walk_ll)"
else
	rec FAIL "host harness: the walk at N=40000 misses > 100 times" "$walk_ll"
fi
