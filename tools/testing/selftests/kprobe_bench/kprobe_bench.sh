#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Mass-probe benchmark: what a kprobe hit costs as the number of registered
# probes grows, with the kprobe lookup cache off and on where the kernel
# has one (CONFIG_KPROBE_CACHE), measured with kstats in one boot.
# Needs the test_kprobe_bench module (CONFIG_TEST_KPROBE_BENCH=m);
# kstats_trace (CONFIG_KSTATS_TRACE) for the kstats self-measurement;
# an ftrace hist trigger (CONFIG_HIST_TRIGGERS) for the comparison with
# kstats.
#
# It arms probes on the first max(H) sites of each hit path (ftrace, int3,
# opt, kretprobe; disjoint sites), then for each N registers N "fill"
# probes that are never hit, armed in one batch where the kernel has
# enable_kprobes() (disabled otherwise: a disabled probe stays in the
# kprobe table, and lookups get past it), and for each path and H calls the
# first H sites round robin, LOOPS calls with the cache off then LOOPS with
# it on; every call's duration goes to a kstats histogram.  The table
# holds N + 4 * max(H) probes.  Each probed call alternates with a call of
# an unprobed twin site (same code), timed into a second histogram: a
# hook's cost is p50(probed) - p50(twin) of the same loop.  A measurement
# is split into KPB_ROUNDS rounds, interleaved over H and the cache states,
# so that a slow spell of the host or the emulator spoils one round, not a
# whole point; the report takes the median of the rounds.  Each round also
# reads what the lookup cache counted (kprobes/cache_stats): with the cache
# off it counts nothing; with it on and at most 16 hot probes, each hot
# address misses once (the switch flushed the cache) and every other
# lookup hits, or the round fails.  The same calls
# unprobed before any probe is armed give the boot's baseline.  The int3
# path runs with debug.kprobes-optimization = 0, the opt path with 1.
#
# Environment (defaults in brackets):
#   KPB_N      fill probe counts ["0 1 1000 10000 40000"]
#   KPB_H      hot set sizes ["1 16 256"]
#   KPB_H_BIG  a big hot set, measured at KPB_BIG_N only;
#              0 for none [4096]
#   KPB_BIG_N  the N at which KPB_H_BIG is measured [the last N]
#   KPB_BIG_PATHS  the paths measured with KPB_H_BIG
#              ["ftrace int3 kretprobe"]
#   KPB_PATHS  hit paths ["ftrace int3 opt kretprobe"]
#   KPB_LOOPS  calls per measurement [48000]
#   KPB_ROUNDS rounds a measurement's calls are split into [3]
#   KPB_ENABLE_BUDGET  ms allowed to arm probes one at a time, per path
#              and N [8000]
#   KPB_ENABLE_PATHS  paths of the enabling-time section ["ftrace int3"]
#   KPB_ENABLE_N  probe counts of the enabling-time section [KPB_N]
#   KPB_FILL_ARM  1: arm the fill probes where the kernel can batch [1]
#   KPB_CHURN_BATCH  fill probes unregistered per batch while hot probes
#              are hit, at the largest N; 0: no such section [1000]
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
BIG_N=${KPB_BIG_N:-}
BIG_PATHS=${KPB_BIG_PATHS:-"ftrace int3 kretprobe"}
PATHS=${KPB_PATHS:-"ftrace int3 opt kretprobe"}
LOOPS=${KPB_LOOPS:-48000}
ROUNDS=${KPB_ROUNDS:-3}
RLOOPS=$((LOOPS / ROUNDS))
BUDGET=${KPB_ENABLE_BUDGET:-8000}
ENABLE_PATHS=${KPB_ENABLE_PATHS:-"ftrace int3"}
ENABLE_N=${KPB_ENABLE_N:-$N_LIST}
FILL_ARM=${KPB_FILL_ARM:-1}
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
	v=$(awk -f "$pct" "$OUT/nodes/$1" | awk '{ print $7 }')
	echo "${v:--}"
}

if [ -f "$kprobes/cache_enabled" ]; then
	STATES="off on"
else
	STATES="nocache"
fi
# lookups_reset, lookups_check PATH N H STATE NODE: what the lookup cache
# counted during one measurement; a "lookups" line in the TSV.
lookups_reset()
{
	if [ -f "$kprobes/cache_stats" ]; then
		echo reset > "$kprobes/cache_stats"
	fi
}
lookups_check()
{
	[ -f "$kprobes/cache_stats" ] || return 0
	# all hits H misses M inserts I invalidations V bypassed B
	# shellcheck disable=SC2046
	set -- "$@" $(sed -n 's/^all //p' "$kprobes/cache_stats")
	lh=${7:-0} lm=${9:-0} lb=${15:-0}
	printf 'lookups\t%s\t%s\t%s\t%s\t%s\t%s %s %s\n' \
		"$1" "$2" "$3" "$4" "$5" "$lh" "$lm" "$lb" >> "$TSV"
	if [ "$4" = off ]; then
		if [ $((lh + lm + lb)) -ne 0 ]; then
			not_ok "$5: cache off, yet $lh hits, $lm misses, $lb bypassed"
		fi
	elif [ "$1" != opt ] && [ "$3" -le 16 ]; then
		if [ "$lm" -gt "$3" ] || [ "$lh" -lt $((RLOOPS - $3)) ]; then
			not_ok "$5: $lh hits, $lm misses, $lb bypassed ($RLOOPS calls)"
		fi
	fi
}

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

# measure PATH N HLIST: ROUNDS rounds of every H, the cache off then on;
# each round's probed calls in kpb-PATH-nN-hH-STATE-rR, their unprobed
# twins in the same name with "-t".
measure()
{
	r=1
	while [ "$r" -le "$ROUNDS" ]; do
		for h in $3; do
			for c in $STATES; do
				set_cache "$c"
				node=kpb-$1-n$2-h$h-$c-r$r
				lookups_reset
				if ! ctl hit "$1" "$h" "$RLOOPS" "$node" "$node-t"; then
					not_ok "$node: $reply"
					continue
				fi
				save "$node"
				save "$node-t"
				hits=$(field hits)
				printf 'hit\t%s\t%s\t%s\t%s\t%s\t%s\n' \
					"$1" "$2" "$h" "$c" "$node" "$hits" >> "$TSV"
				# Every call must have hit its probe, no twin.
				if [ "$hits" != "$RLOOPS" ]; then
					not_ok "$node: $hits hits for $RLOOPS calls"
				fi
				lookups_check "$1" "$2" "$h" "$c" "$node"
			done
		done
		r=$((r + 1))
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
# The module's room for fill probes (CONFIG_TEST_KPROBE_BENCH_SITES): a
# sweep that asks for more stops here, not when it gets there.  A fill
# beyond it is refused and registers nothing.
fill_max=$(field max)
# A module that can arm its fill probes in one batch says how many are armed.
fill_arm=
if [ "$FILL_ARM" = 1 ] && ctl fill 0 arm && [ -n "$(field armed)" ]; then
	fill_arm=arm
fi
if [ -n "$fill_max" ]; then
	for n in $N_LIST $BIG_N $ENABLE_N; do
		[ "$n" -le "$fill_max" ] && continue
		ktap_exit_fail_msg "$n probes asked for (KPB_N, KPB_BIG_N or" \
			"KPB_ENABLE_N), the module has $fill_max fill sites" \
			"(CONFIG_TEST_KPROBE_BENCH_SITES)"
	done
	verdict=accepted
	ctl fill "$((fill_max + 1))" || verdict=refused
	ctl fill 0
	diag "fill $((fill_max + 1)), one beyond the module's room:" \
		"$verdict, $(field from) registered"
	if [ "$verdict" = refused ] && [ "$(field from)" = 0 ]; then
		ok "a fill beyond the module's sites is refused"
	else
		not_ok "a fill beyond the module's sites is refused"
	fi
fi
optimization 0
for path in $PATHS; do
	for h in $H_LIST $H_BIG; do
		node=kpb-$path-h$h-base
		# H_BIG may also be in H_LIST.
		[ -f "$OUT/nodes/$node" ] && continue
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
	if ! ctl fill "$n" $fill_arm; then
		not_ok "fill $n: $reply"
		continue
	fi
	printf 'fill\t-\t%s\t-\t-\t-\t%s %s %s\n' "$n" "$(field ns)" \
		"$(field armed)" "$(field arm_ns)" >> "$TSV"
	if [ -n "$fill_arm" ] && [ "$(field armed)" != "$n" ]; then
		not_ok "fill $n: $(field armed) armed"
	fi
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
if [ -n "$last_n" ] && [ "$npaths" -gt 0 ] && [ "$CHURN_BATCH" -gt 0 ] &&
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
elif [ "$CHURN_BATCH" -le 0 ]; then
	diag "churn: skipped (KPB_CHURN_BATCH=$CHURN_BATCH)"
elif [ "$npaths" -eq 0 ]; then
	diag "churn: skipped (neither the ftrace nor the int3 path is armed)"
else
	diag "churn: skipped (the largest N, ${last_n:-none}, is below" \
		"$((npaths * nstates * CHURN_BATCH)): one batch of $CHURN_BATCH" \
		"per path and cache state)"
fi

# The big hot sets, at the largest N (or KPB_BIG_N): arming thousands of
# probes takes minutes under emulation.  Again armed before the fill.
if [ -n "$H_BIG" ] && [ -n "$last_n" ] && ctl fill 0; then
	big=
	for path in $BIG_PATHS; do
		arm "$path" "$H_BIG" && big="$big $path"
	done
	for n in ${BIG_N:-$last_n}; do
		if ctl fill "$n" $fill_arm; then
			measure_all "$n" "$big" "$H_BIG"
		else
			not_ok "fill $n: $reply"
		fi
		ctl clear
	done
fi
ctl unhot
ctl fill 0
optimization 1

# now_ms: the uptime in ms (10 ms resolution).
now_ms()
{
	awk '{ printf "%d", $1 * 1000 }' /proc/uptime
}

# fire WANT WHAT: calls every 16th function of the enabling set; its probes
# must fire: all (WANT all), none (WANT none) or the enabled ones (WANT
# enabled).
fire()
{
	if ! ctl fire; then
		not_ok "fire: $reply"
		return
	fi
	case $1 in
	all) want=$(field calls) ;;
	none) want=0 ;;
	*) want=$(field expect) ;;
	esac
	[ "$(field hits)" = "$want" ] ||
		not_ok "$path N=$n, $2: $(field hits) probes fired, $want expected"
}

# ctl_arm MODE ARGS...: arm or disarm the set; "COUNT NS" in $r.
ctl_arm()
{
	if ctl "$@"; then
		r="$(field armed)$(field disarmed) $(field ns)"
		return 0
	fi
	not_ok "$path N=$n: $*: $reply"
	r="0 0"
	return 1
}

# Enabling time, per path and N: register N disabled probes, arm them one
# at a time (stopping after BUDGET ms) and disarm them, then arm them in
# one batch, switch every kprobe off and on through debugfs, disarm them
# in one batch, and unregister them.  Every step is checked by calling the
# probed functions.  int3 probes with the optimizer off, which would
# otherwise start to rewrite them as soon as they are armed.
optimization 0
enable_api=
ctl set ftrace 1 && ctl arm batch && enable_api=1
ctl unset
[ -n "$enable_api" ] || diag "no batched enabling in this kernel: skipped"
for path in $ENABLE_PATHS; do
	[ -n "$enable_api" ] || break
	for n in $ENABLE_N; do
		[ "$n" -gt 0 ] || continue
		if ! ctl set "$path" "$n"; then
			not_ok "set $path $n: $reply"
			continue
		fi
		reg=$(field register_ns)
		progress "enabling time: $path N=$n: registered"
		ctl_arm arm one "$BUDGET"
		one_arm=$r
		fire enabled "armed one at a time"
		ctl_arm disarm one
		one_disarm=$r
		fire none "disarmed one at a time"
		ctl_arm arm batch
		batch_arm=$r
		[ "${r%% *}" = "$n" ] || not_ok "$path N=$n: ${r%% *} armed in a batch"
		fire all "armed in a batch"
		sw="- -"
		if [ -f "$kprobes/enabled" ]; then
			t0=$(now_ms)
			echo 0 > "$kprobes/enabled"
			t1=$(now_ms)
			fire none "kprobes/enabled 0"
			t2=$(now_ms)
			echo 1 > "$kprobes/enabled"
			t3=$(now_ms)
			fire all "kprobes/enabled 1"
			sw="$((t1 - t0)) $((t3 - t2))"
		fi
		ctl_arm disarm batch
		batch_disarm=$r
		fire none "disarmed in a batch"
		ctl unset || not_ok "unset $path $n: $reply"
		unreg=$(field unregister_ns)
		printf 'enable\t%s\t%s\t-\tone\t-\t%s %s %s %s - -\n' \
			"$path" "$n" "$n $one_arm" "$reg" "$one_disarm" "$unreg" >> "$TSV"
		printf 'enable\t%s\t%s\t-\tbatch\t-\t%s %s %s %s %s\n' \
			"$path" "$n" "$n $batch_arm" "$reg" "$batch_disarm" "$unreg" \
			"$sw" >> "$TSV"
		progress "enabling time: $path N=$n done"
	done
done

# register_kprobes() and register_kretprobes() while kprobes are switched
# off through debugfs: no probe fires then, and once they are switched on
# again every probe of the array fires once per call, also at addresses
# that already hold a probe (aggr: the set's probe joins it under an
# aggregator; aggr-disabled: a disabled one, whose aggregator the set's
# probe enables), as when each probe is registered with register_kprobe().
if [ -n "$enable_api" ] && [ -f "$kprobes/enabled" ]; then
	n=64
	for path in ftrace int3 kretprobe; do
		for mode in on aggr aggr-disabled; do
			what="register $path x$n ($mode) while kprobes/enabled is 0"
			echo 0 > "$kprobes/enabled"
			if ! ctl set "$path" "$n" "$mode"; then
				echo 1 > "$kprobes/enabled"
				not_ok "$what: $reply"
				continue
			fi
			fails=$KTAP_CNT_FAIL
			fire none "$mode, registered while kprobes/enabled is 0"
			echo 1 > "$kprobes/enabled"
			fire enabled "$mode, kprobes/enabled 1 again"
			ctl unset || not_ok "unset $path $n: $reply"
			[ "$KTAP_CNT_FAIL" -ne "$fails" ] || ok "$what: all fire once enabled again"
		done
	done
	progress "registration while kprobes are switched off done"
fi

# A batch of ftrace-based probes, every other one with a post_handler (the
# kprobes' IPMODIFY ftrace_ops), one of whose functions another IPMODIFY
# user holds (the module's own ftrace_ops, as a live patch would):
# register_kprobes() fails, and no probe of the batch fires meanwhile,
# although a kernel thread calls the function of one without a
# post_handler all along.  Once that user is gone, the same batch
# registers, and its probes fire.
if [ -n "$enable_api" ] && ctl conflict on; then
	n=64 path=ftrace
	what="register $path x$n (mixed) on a function an IPMODIFY ftrace user holds"
	ctl spin on || not_ok "spin on: $reply"
	if ctl set "$path" "$n" mixed; then
		ctl unset
		ctl spin off
		not_ok "$what: registered"
	else
		ctl spin off
		hits=$(field hits)
		if [ "$hits" = 0 ]; then
			ok "$what: it fails, and no probe fired meanwhile"
		else
			not_ok "$what: $hits probe hits while it failed"
		fi
	fi
	ctl conflict off || not_ok "conflict off: $reply"
	what="register $path x$n (mixed) once that user is gone"
	if ctl set "$path" "$n" mixed; then
		fails=$KTAP_CNT_FAIL
		fire enabled "mixed"
		# The thread hits a probe that is armed (or the first case
		# would prove nothing).
		ctl spin on && sleep 1 && ctl spin off
		[ "$(field hits)" -gt 0 ] 2>/dev/null ||
			not_ok "$what: the kernel thread hit no probe in 1 s ($reply)"
		ctl unset || not_ok "unset $path $n: $reply"
		what="$what: its probes fire, also in a kernel thread"
		[ "$KTAP_CNT_FAIL" -ne "$fails" ] || ok "$what"
	else
		not_ok "$what: $reply"
	fi
	progress "registration against an IPMODIFY ftrace user done"
else
	diag "no batched enabling, or no IPMODIFY ftrace_ops: the conflict skipped"
fi
optimization 1

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

# cost NODE: the median over the rounds of p50(probed) - p50(twin), or "-".
cost()
{
	r=1
	costs=
	while [ "$r" -le "$ROUNDS" ]; do
		v=$(p50 "$1-r$r")
		t=$(p50 "$1-r$r-t")
		case "$v$t" in
		*-*) ;;
		*) costs="$costs $((v - t))" ;;
		esac
		r=$((r + 1))
	done
	v=$(echo $costs | tr ' ' '\n' | sort -n |
	    awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }')
	echo "${v:--}"
}

# The table: median hook cost per path, N, H and cache state.
diag "hook cost, ns (median over $ROUNDS rounds of p50 probed - p50 twin):"
diag "path      N      H  $(for c in $STATES; do printf '%8s' "$c"; done)"
for path in $PATHS; do
	for n in $N_LIST; do
		for h in $H_LIST; do
			line=$(printf '%-9s %-6s %-4s' "$path" "$n" "$h")
			for c in $STATES; do
				v=$(cost "kpb-$path-n$n-h$h-$c")
				case "$v" in
				-) line="$line       -" ;;
				*) line="$line$(printf '%8d' "$v")" ;;
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
