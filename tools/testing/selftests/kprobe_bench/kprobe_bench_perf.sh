#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Cache misses of the kprobe hit path with the lookup cache off and on,
# counted by the CPU's PMU: the 2014 "perf record -e cache-misses" table.
#
# Registers KPB_N probes that are never hit (test_kprobe_bench's fill
# probes), arms KPB_H ftrace probes and hits them KPB_LOOPS times, once
# with the kprobe lookup cache off and once on, each time under
#
#   perf stat -a -e cache-misses,cache-references,instructions,cycles
#   perf record -a -e cache-misses
#
# and prints per state the counter totals, the misses per probe hit and
# the symbols with the largest share of cache misses.  Needs perf, a
# hardware PMU, CONFIG_TEST_KPROBE_BENCH=m and CONFIG_KPROBE_CACHE=y; exits
# 4 (skip) without them, e.g. in a virtual machine without a virtual PMU.
#
# Environment (defaults in brackets):
#   KPB_N      registered probes that are never hit [40000]
#   KPB_H      armed probes that are hit, round robin [256]
#   KPB_LOOPS  probe hits per state [1000000]
#   KPB_TOP    symbols shown per state [10]
#   KPB_OUT    output directory [/tmp/kprobe_bench_perf]

. "$(dirname "$0")/../kselftest/ktap_helpers.sh"
debugfs=/sys/kernel/debug
bench=$debugfs/test_kprobe_bench
kprobes=$debugfs/kprobes
N=${KPB_N:-40000}
H=${KPB_H:-256}
LOOPS=${KPB_LOOPS:-1000000}
TOP=${KPB_TOP:-10}
OUT=${KPB_OUT:-/tmp/kprobe_bench_perf}
events=cache-misses,cache-references,instructions,cycles

ktap_print_header
skip()
{
	ktap_skip_all "$*"
	exit "$KSFT_SKIP"
}

# The PMU first: that is what a virtual machine usually lacks.
if [ ! -d /sys/bus/event_source/devices/cpu ] &&
   [ ! -d /sys/bus/event_source/devices/cpu_core ]; then
	skip "no hardware PMU (no /sys/bus/event_source/devices/cpu):" \
		"software events only, cache misses cannot be counted"
fi
command -v perf > /dev/null 2>&1 || skip "perf is not installed"
if ! perf stat -e cache-misses -- true > /dev/null 2>&1; then
	skip "perf cannot count cache-misses here"
fi
[ -d "$bench" ] || modprobe test_kprobe_bench 2> /dev/null
[ -d "$bench" ] || skip "test_kprobe_bench is not available"
[ -f "$kprobes/cache_enabled" ] ||
	skip "no kprobe lookup cache (CONFIG_KPROBE_CACHE)"

ok() { ktap_test_pass "$*"; }
not_ok() { ktap_test_fail "$*"; }

ctl()
{
	echo "$*" > "$bench/ctl" || { not_ok "$*"; return 1; }
}

rm -rf "$OUT"
mkdir -p "$OUT"
ctl clear
ctl fill "$N" && ok "$N probes registered"
ctl hot ftrace "$H" && ok "$H ftrace probes armed"

for state in off on; do
	[ "$state" = off ] && echo 0 > "$kprobes/cache_enabled"
	[ "$state" = on ] && echo 1 > "$kprobes/cache_enabled"
	work="echo 'hit ftrace $H $LOOPS kpb-perf-$state' > $bench/ctl"
	if perf stat -a -x, -e "$events" -o "$OUT/stat-$state.csv" \
		-- sh -c "$work" &&
	   perf record -q -a -e cache-misses -o "$OUT/record-$state.data" \
		-- sh -c "$work" > /dev/null 2>&1 &&
	   perf report -q -i "$OUT/record-$state.data" --sort symbol \
		--stdio > "$OUT/report-$state.txt" 2> /dev/null; then
		ok "perf, cache $state"
	else
		not_ok "perf, cache $state"
	fi
	ctl clear
done
ctl hot ftrace 0
ctl fill 0
echo 1 > "$kprobes/cache_enabled"

for state in off on; do
	echo "# cache $state: $LOOPS hits, $H armed, $N registered"
	awk -F, -v hits="$LOOPS" '$3 != "" && $1 ~ /^[0-9]+$/ {
		printf "#   %-18s %16d  %10.2f per hit\n", $3, $1, $1 / hits
	}' "$OUT/stat-$state.csv"
	echo "#   top symbols by share of cache misses:"
	grep -v '^#' "$OUT/report-$state.txt" | grep . | head -n "$TOP" |
		sed 's/^/#     /'
done

ktap_set_plan $((KTAP_TESTNO - 1))
ktap_finished
