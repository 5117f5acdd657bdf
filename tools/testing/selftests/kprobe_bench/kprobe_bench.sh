#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Mass-probe benchmark: what a kprobe hit costs as the number of registered
# probes grows, with the kprobe lookup cache off and on, measured with
# kstats in one boot.  Needs the test_kprobe_bench module
# (CONFIG_TEST_KPROBE_BENCH=m); kstats_trace (CONFIG_KSTATS_TRACE) for the
# kstats self-measurement; an ftrace hist trigger (CONFIG_HIST_TRIGGERS)
# for the comparison with kstats.
#
# It arms probes on the first max(H) sites of each hit path (ftrace, int3,
# opt, kretprobe; disjoint sites), then for each N registers N disabled
# "fill" probes that are never hit (a disabled probe stays in the kprobe
# hash table, and lookups walk past it), and for each path and H calls the
# first H sites round robin, LOOPS calls with the cache off then LOOPS with
# it on; every call's duration goes to a kstats histogram.  The table
# holds N + 4 * max(H) probes.  The same calls unprobed give the baseline;
# a hook's cost is p50(probed) - p50(baseline).  The int3 path runs with
# debug.kprobes-optimization = 0, the opt path with 1.
#
# Environment (defaults in brackets):
#   KPB_N      fill probe counts ["0 1 1000 10000 40000"]
#   KPB_H      hot set sizes ["1 16 256"]
#   KPB_H_BIG  a big hot set, measured at the last N only;
#              0 for none [4096]
#   KPB_BIG_PATHS  the paths measured with KPB_H_BIG ["ftrace int3"]
#   KPB_PATHS  hit paths ["ftrace int3 opt kretprobe"]
#   KPB_LOOPS  calls per measurement [20000]
#   KPB_ENABLE_BUDGET  ms allowed to arm N probes per N and state [8000]
#   KPB_CHURN_BATCH  fill probes unregistered per batch while hot probes
#              are hit, at the largest N [1000]
#   KPB_OUT    output directory [/tmp/kprobe_bench]
#
# Output: $KPB_OUT/bench.tsv (one line per measurement, see the header),
# $KPB_OUT/nodes/ (a copy of every kstats histogram), a table on stdout,
# and TAP.  Exits 4 (skip) when the module is missing.

debugfs=/sys/kernel/debug
bench=$debugfs/test_kprobe_bench
kstats=$debugfs/kstats
kprobes=$debugfs/kprobes
tracefs=/sys/kernel/tracing
here=$(dirname "$0")
pct="$here/kstats_pct.awk"

N_LIST=${KPB_N:-"0 1 1000 10000 40000"}
H_LIST=${KPB_H:-"1 16 256"}
H_BIG=${KPB_H_BIG-4096}
[ "$H_BIG" = 0 ] && H_BIG=
BIG_PATHS=${KPB_BIG_PATHS:-"ftrace int3"}
PATHS=${KPB_PATHS:-"ftrace int3 opt kretprobe"}
LOOPS=${KPB_LOOPS:-20000}
BUDGET=${KPB_ENABLE_BUDGET:-8000}
CHURN_BATCH=${KPB_CHURN_BATCH:-1000}
OUT=${KPB_OUT:-/tmp/kprobe_bench}
TSV=$OUT/bench.tsv

. "$(dirname "$0")/../kselftest/ktap_helpers.sh"

ok() { ktap_test_pass "$*"; }
not_ok() { ktap_test_fail "$*"; }
diag() { echo "# $*"; }

start=$(cut -d' ' -f1 /proc/uptime)
progress()
{
	now=$(cut -d' ' -f1 /proc/uptime)
	echo "# [$(awk -v a="$start" -v b="$now" 'BEGIN { printf "%7.1f", b - a }')s] $*"
}

ktap_print_header
if [ ! -d "$bench" ]; then
	modprobe test_kprobe_bench 2>/dev/null
fi
if [ ! -d "$bench" ]; then
	ktap_skip_all "test_kprobe_bench is not available"
	exit "$KSFT_SKIP"
fi
modprobe kstats_trace 2>/dev/null

# ctl CMD: runs one benchmark command; its result line is in $reply.
ctl()
{
	if ! echo "$*" > "$bench/ctl"; then
		reply="failed: $*"
		return 1
	fi
	reply=$(cat "$bench/result")
}

# field KEY: the value of KEY=VALUE in $reply.
field()
{
	echo "$reply" | tr ' ' '\n' | sed -n "s/^$1=//p"
}

# save NODE: copies a histogram into $OUT/nodes.
save()
{
	cat "$kstats/$1" > "$OUT/nodes/$1"
}

# p50 NODE: median of a saved histogram, or "-".
p50()
{
	v=$(awk -f "$pct" "$OUT/nodes/$1" | awk '{ print $6 }')
	echo "${v:--}"
}

if [ -f "$kprobes/cache_enabled" ]; then
	STATES="off on"
else
	STATES="nocache"
fi
set_cache()
{
	case $1 in
	off) echo 0 > "$kprobes/cache_enabled" ;;
	on) echo 1 > "$kprobes/cache_enabled" ;;
	esac
}

optimization()
{
	[ -f /proc/sys/debug/kprobes-optimization ] &&
		echo "$1" > /proc/sys/debug/kprobes-optimization
}

hmax=0
for h in $H_LIST; do
	[ "$h" -gt "$hmax" ] && hmax=$h
done

rm -rf "$OUT"
mkdir -p "$OUT/nodes"
echo "kind	path	n	h	cache	node	detail" > "$TSV"
ctl clear
diag "sweep: paths '$PATHS' N '$N_LIST' H '$H_LIST' loops $LOOPS states '$STATES'"

# measure PATH N HLIST: every H, the cache off then on.
measure()
{
	for h in $3; do
		for c in $STATES; do
			set_cache "$c"
			node=kpb-$1-n$2-h$h-$c
			if ! ctl hit "$1" "$h" "$LOOPS" "$node"; then
				not_ok "$node: $reply"
				continue
			fi
			save "$node"
			hits=$(field hits)
			echo "hit	$1	$2	$h	$c	$node	$hits" >> "$TSV"
			# Every call must have hit its probe.
			if [ "$hits" != "$LOOPS" ]; then
				not_ok "$node: $hits hits for $LOOPS calls"
			fi
		done
	done
}

# self N: kstats measuring itself, an empty function traced by kretprobe
# through kstats/_control.
self()
{
	for c in $STATES; do
		set_cache "$c"
		node=kpb-self-n$1-$c
		if echo "trace $node start kpb_empty" > "$kstats/_control" &&
		   ctl empty "$LOOPS"; then
			save "$node"
			echo "self	kretprobe	$1	1	$c	$node	" >> "$TSV"
		else
			not_ok "$node: tracing kpb_empty"
		fi
		echo "remove $node" > "$kstats/_control"
	done
}

# arm PATH H: arms H probes on PATH's sites, replacing PATH's hot set.
arm()
{
	if ! ctl hot "$1" "$2"; then
		not_ok "$1: arming $2 probes: $reply"
		ctl hot "$1" 0
		return 1
	fi
	echo "hot	$1	-	$2	-	-	$(field register_ns)" >> "$TSV"
	progress "$1: $2 probes armed"
}

# measure_all N PATHS HLIST: every path; int3 with the optimizer off, opt
# with it on (switching it re-optimizes every optimizable probe).
measure_all()
{
	optimization 0
	for path in $2; do
		[ "$path" = opt ] || measure "$path" "$1" "$3"
	done
	case " $2 " in
	*" opt "*)
		optimization 1
		if ctl optwait; then
			measure opt "$1" "$3"
		else
			not_ok "opt N=$1: $reply"
		fi
		optimization 0
		;;
	esac
	progress "N=$1: measured $2"
}

# The unprobed calls: the baseline.
ctl unhot
ctl fill 0
optimization 0
for path in $PATHS; do
	for h in $H_LIST $H_BIG; do
		node=kpb-$path-h$h-base
		if ctl hit "$path" "$h" "$LOOPS" "$node"; then
			save "$node"
			echo "base	$path	-	$h	-	$node	" >> "$TSV"
		else
			not_ok "$path baseline h=$h: $reply"
		fi
	done
done
progress "baselines done"

# The hot sets first, then the fill probes: in a kernel that looks probes
# up by walking hash chains, a probe goes to the head of its chain, so a
# lookup of a hot probe walks past every fill probe of its chain
# (registered late, a probe would be found first).
armed=
for path in $PATHS; do
	arm "$path" "$hmax" && armed="$armed $path"
done

[ -f "$kstats/_control" ] ||
	diag "no kstats/_control (CONFIG_KSTATS_TRACE): no self-measurement"
last_n=
for n in $N_LIST; do
	last_n=$n
	if ! ctl fill "$n"; then
		not_ok "fill $n: $reply"
		continue
	fi
	echo "fill	-	$n	-	-	-	$(field ns)" >> "$TSV"
	# The kprobe table's index, where the kernel has one: probes,
	# deleted slots, slots, bytes, resizes.
	if [ -f "$kprobes/index" ]; then
		ix=$(awk '{ printf "%s%s", s, $2; s = " " }' "$kprobes/index")
		echo "index	-	$n	-	-	-	$ix" >> "$TSV"
	fi
	progress "N=$n: fill probes registered ($reply)"
	measure_all "$n" "$armed" "$H_LIST"
	[ -f "$kstats/_control" ] && self "$n"
	ctl clear
done

# Invalidation under load: at the largest N, the ftrace and int3 hot sets
# (H = 16) are hit while the fill probes are unregistered in batches of
# CHURN_BATCH, a share of them per path and cache state.  Every
# unregistration changes the kprobe table.  The steady cost to compare
# with is the same path, N and H above.
churn_paths=
for path in ftrace int3; do
	case " $armed " in *" $path "*) churn_paths="$churn_paths $path" ;; esac
done
nstates=$(echo $STATES | wc -w)
npaths=$(echo $churn_paths | wc -w)
if [ -n "$last_n" ] && [ "$npaths" -gt 0 ] &&
   [ "$last_n" -ge $((npaths * nstates * CHURN_BATCH)) ]; then
	share=$((last_n / (npaths * nstates)))
	left=$last_n
	for path in $churn_paths; do
		for c in $STATES; do
			set_cache "$c"
			left=$((left - share))
			node=kpb-$path-churn-h16-$c
			if ! ctl churn "$path" 16 "$CHURN_BATCH" "$left" "$node"; then
				not_ok "$node: $reply"
				continue
			fi
			save "$node"
			printf 'churn\t%s\t%s\t16\t%s\t%s\t%s %s %s\n' "$path" \
				"$last_n" "$c" "$node" "$(field calls)" \
				"$(($(field from) - $(field to)))" "$(field ns)" >> "$TSV"
			if [ "$(field hits)" != "$(field calls)" ]; then
				not_ok "$node: $(field hits) hits for $(field calls) calls"
			fi
		done
	done
	progress "churn: $last_n fill probes unregistered under load"
fi

# The big hot sets, at the largest N only: arming thousands of probes
# takes minutes under emulation.  Again armed before the fill.
if [ -n "$H_BIG" ] && [ -n "$last_n" ] && ctl fill 0; then
	big=
	for path in $BIG_PATHS; do
		arm "$path" "$H_BIG" && big="$big $path"
	done
	if ctl fill "$last_n"; then
		measure_all "$last_n" "$big" "$H_BIG"
	else
		not_ok "fill $last_n: $reply"
	fi
	ctl clear
fi
ctl unhot
ctl fill 0
optimization 1

# Enabling time: register and arm N probes, disarm and unregister them.
for n in $N_LIST; do
	[ "$n" -gt 0 ] || continue
	for c in $STATES; do
		set_cache "$c"
		if ctl enable "$n" "$BUDGET"; then
			narmed=$(field armed)
			times="$(field register_arm_ns) $(field disarm_unregister_ns)"
			printf 'enable\tftrace\t%s\t-\t%s\t-\t%s %s\n' \
				"$n" "$c" "$narmed" "$times" >> "$TSV"
			[ "$narmed" = "$n" ] ||
				diag "enable N=$n, cache $c: $narmed armed in $BUDGET ms"
		else
			not_ok "enable $n ($c): $reply"
		fi
	done
	progress "enabling time N=$n done"
done

# kstats next to an ftrace hist trigger, on the same trace event.
trig=$tracefs/events/test_kprobe_bench/kpb_sample/trigger
for mode in off record kstats hist; do
	node=kpb-sample-$mode
	if [ "$mode" = hist ]; then
		if [ ! -f "$trig" ] ||
		   ! echo 'hist:keys=value.log2' > "$trig" 2>/dev/null; then
			diag "no hist trigger (CONFIG_HIST_TRIGGERS): skipped"
			continue
		fi
	fi
	if ctl sample "$mode" "$LOOPS" "$node"; then
		save "$node"
		echo "sample	-	-	-	-	$node	$mode" >> "$TSV"
	else
		not_ok "sample $mode: $reply"
	fi
	[ "$mode" = hist ] && echo '!hist:keys=value.log2' > "$trig"
done
ctl clear
progress "hist trigger comparison done"

# The table: median hook cost per path, N, H and cache state.
diag "hook cost, ns (p50 probed - p50 unprobed):"
diag "path      N      H  $(for c in $STATES; do printf '%8s' "$c"; done)"
for path in $PATHS; do
	for n in $N_LIST; do
		for h in $H_LIST; do
			b=$(p50 "kpb-$path-h$h-base")
			line=$(printf '%-9s %-6s %-4s' "$path" "$n" "$h")
			for c in $STATES; do
				v=$(p50 "kpb-$path-n$n-h$h-$c")
				case "$v$b" in
				*-*) line="$line       -" ;;
				*) line="$line$(printf '%8d' $((v - b)))" ;;
				esac
			done
			diag "$line"
		done
	done
done

if [ "$KTAP_CNT_FAIL" -eq 0 ]; then
	ok "kprobe_bench: results in $OUT"
else
	not_ok "kprobe_bench: $KTAP_CNT_FAIL failures, results in $OUT"
fi
ktap_set_plan $((KTAP_TESTNO - 1))
ktap_finished
