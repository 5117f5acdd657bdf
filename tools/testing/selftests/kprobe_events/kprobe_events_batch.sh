#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Kprobe events enabled, disabled and removed many at a time.
#
# Writing 1 or 0 to the enable file of a group (or to set_event) arms or
# disarms the k*probes of all its kprobe events together, at the end of
# the write; removing many kprobe events unregisters their k*probes
# together, at the end of the removal.  On a group of kprobe and
# kretprobe events on M traceable functions (on ftrace), I kprobe events
# inside functions (breakpoints), one event with two probes, and two
# events on vfs_read() that the test makes fire:
#
#  - defining an event on a blacklisted function fails, and the group
#    without it is enabled, fires (into the trace buffer), and is
#    disabled: every probe armed, then every one disarmed (kprobes/list,
#    ftrace's enabled_functions);
#  - the same with kprobes globally disarmed (kprobes/enabled 0): the
#    events are enabled but nothing is armed until kprobes/enabled is 1;
#  - each allocation of enabling the group is failed in turn
#    (/proc/self/fail-nth, CONFIG_FAILSLAB): either the write succeeds and
#    every event is enabled and armed, or it fails, no event is enabled,
#    no probe is armed, and the tracefs error_log names an event of the
#    group; each allocation of disabling it likewise, where the write
#    always succeeds and leaves nothing armed (on a kernel that arms the
#    events one by one, a failure in the middle leaves the events before
#    it enabled);
#  - an event that a trigger (on an event that does not fire) keeps in
#    soft mode traces with the group, and stays armed, soft disabled,
#    when the group is disabled;
#  - removing the group while one of its events is enabled removes the
#    events before it and keeps it and those after it, with exactly their
#    probes left in kprobes/list; removing the rest leaves none;
#  - an event enabled in a trace instance only cannot be removed; once it
#    is disabled, and one of two instances removed, it is removed from
#    the top level and from the instance left.

T=/sys/kernel/tracing
debugfs=/sys/kernel/debug
list=$debugfs/kprobes/list
kenabled=$debugfs/kprobes/enabled
fs=$debugfs/failslab
G=kpbatch
M=${KPB_EVENTS_M:-40}
I=4
tmp=${TMPDIR:-/tmp}/kprobe_events_batch.$$

. "$(dirname "$0")/../kselftest/ktap_helpers.sh"

skip_all()
{
	ktap_skip_all "$*"
	exit "$KSFT_SKIP"
}

# The probes in kprobes/list (which does not name events) beyond the
# l0 listed before the test: all, and armed (not [DISABLED]) beyond a0.
nprobes()
{
	echo $(($(grep -c . "$list") - l0))
}

narmed()
{
	echo $(($(grep -vc DISABLED "$list") - a0))
}

# The events of the group whose enable file reads 1.
nenabled()
{
	cat "$T/events/$G"/*/enable | grep -c 1
}

# The functions of the group that ftrace calls kprobes for.
nftraced()
{
	awk 'NR == FNR { f[$1]; next } ($1 in f)' "$tmp.funcs" \
		"$T/enabled_functions" | grep -c .
}

# Hits of an event of the group, from kprobe_profile.
hits()
{
	awk -v e="$1" '$1 == e { print $2 }' "$T/kprobe_profile"
}

# fire: vfs_read() hits the event "read", which writes to the buffer.
fire()
{
	h0=$(hits read)
	echo >"$T/trace"
	cat /proc/self/stat >/dev/null
	[ "$(hits read)" -gt "$h0" ] && grep -q " read: (" "$T/trace"
}

# all_on: every event enabled, every probe armed, ftrace calling them.
all_on()
{
	[ "$(nenabled)" -eq "$nev" ] && [ "$(narmed)" -eq "$nprb" ] &&
		[ "$(nftraced)" -eq "$nfn" ]
}

# all_off: no event enabled, no probe armed, no function traced.
all_off()
{
	[ "$(nenabled)" -eq 0 ] && [ "$(narmed)" -eq 0 ] &&
		[ "$(nftraced)" -eq 0 ]
}

# inject N VALUE: write VALUE to the group's enable file, open on fd 5,
# with the N-th allocation of this shell failed; $rc is the write's exit
# code, $hit 1 when the count was used up (a failure was injected).  Only
# builtins run and no file is opened between the two writes to fail-nth.
inject()
{
	exec 7</proc/self/fail-nth
	echo "$1" >/proc/self/fail-nth
	echo "$2" 2>&3 >&5
	rc=$?
	left=x
	read -r left <&7
	exec 7<&-
	echo 0 2>&3 >/proc/self/fail-nth
	hit=0
	[ "$left" = 0 ] && hit=1
}

# bad MSG: one more case that went wrong, said.
bad()
{
	bad=$((bad + 1))
	ktap_print_msg "$*"
}

cleanup()
{
	exec 5>&-
	[ -n "$saved" ] && restore
	[ -n "$kenabled0" ] && echo "$kenabled0" >"$kenabled"
	if [ -n "$trigger" ] && [ -d "$T/events/${G}h" ]; then
		echo "!$trigger" >>"$T/events/${G}h/host/trigger"
		echo "-:${G}h/" >>"$T/kprobe_events"
	fi
	for d in "$T/instances/${G}1" "$T/instances/${G}2"; do
		[ -d "$d/events/$G" ] && echo 0 >"$d/events/$G/enable"
		[ -d "$d" ] && rmdir "$d"
	done
	[ -d "$T/events/$G" ] && echo 0 >"$T/events/$G/enable"
	echo "-:$G/" >>"$T/kprobe_events" 2>/dev/null
	rm -f "$tmp".*
}

ktap_print_header
[ "$(id -u)" -eq 0 ] || skip_all "must be run as root"
[ -d "$T/instances/${G}1" ] || [ -d "$T/instances/${G}2" ] &&
	skip_all "instance ${G}1 or ${G}2 exists already"
if [ ! -d "$debugfs/kprobes" ] && ! grep -q " $debugfs debugfs " /proc/mounts; then
	mount -t debugfs none "$debugfs" 2>/dev/null
fi
[ -f "$T/kprobe_events" ] ||
	skip_all "no $T/kprobe_events: kernel without CONFIG_KPROBE_EVENTS"
[ -r "$list" ] || skip_all "no $list"
[ -r "$T/enabled_functions" ] ||
	skip_all "no enabled_functions: kernel without CONFIG_DYNAMIC_FTRACE"
[ -d "$T/events/$G" ] && skip_all "group $G exists already"
trap cleanup EXIT
trap 'exit 1' HUP INT TERM

ktap_set_plan 10
exec 3>/dev/null
kenabled0=$(cat "$kenabled")
trigger=
l0=$(grep -c . "$list")
a0=$(grep -vc DISABLED "$list")

# M functions that ftrace can trace, one name each, not blacklisted, not
# vfs_read (probed below), spread over the list.
awk 'NF == 1 && $1 ~ /^[A-Za-z_][A-Za-z0-9_]*$/' "$T/available_filter_functions" |
	sort | uniq -u >"$tmp.all"
awk '{ print $2 }' "$debugfs/kprobes/blacklist" | sort -u >"$tmp.black"
awk 'NR == FNR { b[$1]; next } !($1 in b) && $1 != "vfs_read"' \
	"$tmp.black" "$tmp.all" >"$tmp.cand"
total=$(grep -c . "$tmp.cand")
[ "$total" -ge $((M + 2)) ] || skip_all "only $total traceable functions"
awk -v n="$M" -v m="$total" 'int(NR * n / m) != int((NR - 1) * n / m)' \
	"$tmp.cand" | head -n "$M" >"$tmp.pick"
black=$(grep -m1 -x -v -e vfs_read "$tmp.black" 2>/dev/null)

# The group: kprobe events e0..e(M-1), every third a kretprobe event,
# the blacklisted function between them, one event with two probes.
i=0 defined=0 refused=
while read -r f; do
	t=p
	[ $((i % 3)) -eq 2 ] && t=r
	echo "$t:$G/e$i $f" >>"$T/kprobe_events" && defined=$((defined + 1))
	if [ "$i" -eq $((M / 2)) ] && [ -n "$black" ]; then
		echo "p:$G/black $black" >>"$T/kprobe_events" 2>/dev/null ||
			refused=1
	fi
	i=$((i + 1))
done <"$tmp.pick"
# I events on a breakpoint each, inside functions not picked above: at
# the first offset past the ftrace call that is an instruction boundary.
awk 'NR == FNR { p[$1]; next } !($1 in p)' "$tmp.pick" "$tmp.cand" |
	sed -n '4,60p' >"$tmp.inner"
j=0
while read -r f && [ "$j" -lt "$I" ]; do
	off=5
	while [ "$off" -le 24 ]; do
		if echo "p:$G/i$j $f+$off" >>"$T/kprobe_events" 2>/dev/null; then
			j=$((j + 1))
			break
		fi
		off=$((off + 1))
	done
done <"$tmp.inner"
[ "$j" -eq "$I" ] || ktap_exit_fail_msg "defined $j of $I events inside functions"
two=$(sed -n 2p "$tmp.cand")
three=$(sed -n 3p "$tmp.cand")
echo "p:$G/two $two" >>"$T/kprobe_events" &&
	echo "p:$G/two $three" >>"$T/kprobe_events" || defined=0
echo "p:$G/read vfs_read" >>"$T/kprobe_events" &&
	echo "r:$G/rread vfs_read" >>"$T/kprobe_events" || defined=0
nev=$((M + I + 3))
nprb=$((M + I + 4))
{ cat "$tmp.pick"; echo "$two"; echo "$three"; echo vfs_read; } | sort -u >"$tmp.funcs"
nfn=$(grep -c . "$tmp.funcs")
[ "$defined" -eq "$M" ] && [ "$(nprobes)" -eq "$nprb" ] ||
	ktap_exit_fail_msg "defined $defined of $M events, $(nprobes) probes listed"
ktap_print_msg "$nev events, $nprb probes ($I breakpoints, the rest on $nfn functions on ftrace);" \
	"blacklisted: ${black:-none}"

# 1. A blacklisted function is refused; the group is armed, fires, and
# is disarmed.
ok=0
if [ -z "$black" ] || [ -n "$refused" ]; then
	echo 1 >"$T/events/$G/enable" && all_on && fire &&
		echo 0 >"$T/events/$G/enable" && all_off && ! fire && ok=1
fi
ktap_test_result "blacklisted function refused; group armed, fires, disarmed" [ "$ok" = 1 ]

# 2. Kprobes globally disarmed: enabled, armed only with kprobes/enabled.
ok=0
if echo 0 >"$kenabled"; then
	echo 1 >"$T/events/$G/enable" && [ "$(nenabled)" -eq "$nev" ] &&
		[ "$(nftraced)" -eq 0 ] && ! fire &&
		echo 1 >"$kenabled" && all_on && fire &&
		echo 0 >"$T/events/$G/enable" && all_off && ok=1
fi
echo 1 >"$kenabled"
ktap_test_result "kprobes/enabled 0: group enabled, armed with kprobes/enabled 1" [ "$ok" = 1 ]

# 3 and 4. Allocation failures while enabling and disabling.
if [ ! -e /proc/self/fail-nth ] || [ ! -d "$fs" ]; then
	ktap_test_skip "enable with allocation failures: no fault injection"
	ktap_test_skip "disable with allocation failures: no fault injection"
else
	saved=
	for k in ignore-gfp-wait cache-filter verbose probability interval times space; do
		saved="$saved $fs/$k=$(cat "$fs/$k")"
	done
	for d in "$debugfs"/fail_*; do
		[ -e "$d/require-end" ] || continue
		saved="$saved $d/require-start=$(cat "$d/require-start")"
		saved="$saved $d/require-end=$(cat "$d/require-end")"
		echo 0 >"$d/require-start"
		echo 0 >"$d/require-end"
	done
	restore()
	{
		for kv in $saved; do
			echo "${kv#*=}" >"${kv%%=*}"
		done
	}
	echo N >"$fs/ignore-gfp-wait"
	echo N >"$fs/cache-filter"
	echo 0 >"$fs/verbose"
	echo 0 >"$fs/probability"
	echo 0 >"$fs/space"
	exec 5>"$T/events/$G/enable"

	n=1 bad=0 failed=0 hit=1
	while [ "$hit" = 1 ] && [ "$n" -le 2000 ]; do
		echo >"$T/error_log"
		inject "$n" 1
		if [ "$rc" -eq 0 ]; then
			all_on || bad "fail-nth $n: write ok, not all armed"
		else
			failed=$((failed + 1))
			all_off && grep -q "$G:" "$T/error_log" ||
				bad "fail-nth $n: write failed, not all as before"
		fi
		echo 0 >&5
		all_off || ktap_exit_fail_msg "fail-nth $n: disabling left probes armed"
		n=$((n + 1))
	done
	ktap_print_msg "enable: $((n - 2)) allocations failed in turn, $failed writes failed"
	ktap_test_result "enable with failed allocations: all or nothing, error_log names one" \
		[ "$bad" -eq 0 -a "$hit" = 0 -a "$failed" -gt 0 ]

	echo 1 >&5
	all_on || ktap_exit_fail_msg "enabling without failures did not arm the group"
	n=1 bad=0 hit=1
	while [ "$hit" = 1 ] && [ "$n" -le 2000 ]; do
		inject "$n" 0
		[ "$rc" -eq 0 ] && all_off || bad "fail-nth $n: rc $rc, $(narmed) armed"
		echo 1 >&5
		all_on || ktap_exit_fail_msg "fail-nth $n: enabling did not arm the group"
		n=$((n + 1))
	done
	echo 0 >&5
	exec 5>&-
	restore
	saved=
	ktap_print_msg "disable: $((n - 2)) allocations failed in turn"
	ktap_test_result "disable with failed allocations: succeeds, nothing left armed" \
		[ "$bad" -eq 0 -a "$hit" = 0 ]
fi

# 5. Still whole: the group fires once more after the failures.
ok=0
echo 1 >"$T/events/$G/enable" && all_on && fire &&
	echo 0 >"$T/events/$G/enable" && all_off && ok=1
ktap_test_result "group armed and disarmed again after the failures" [ "$ok" = 1 ]

# 6. The last event in soft mode: an enable_event trigger on an event of
# another group, on a system call nothing here makes (the trigger arms
# both).  It traces with the group, and stays armed, soft disabled,
# without it.  Removing the trigger may drop its reference to the event
# later (kernels that free trigger data from a kthread): the event is
# after the one case 7 stops at, and case 9 waits for it.
soft_ev=e$((M - 1))
ok=0
host=
for h in __x64_sys_vhangup __x64_sys_swapoff __x64_sys_acct; do
	grep -qx "$h" "$tmp.cand" && host=$h && break
done
trigger="enable_event:$G:$soft_ev"
if [ -n "$host" ] && echo "p:${G}h/host $host" >>"$T/kprobe_events" &&
	echo "$trigger" >>"$T/events/${G}h/host/trigger"; then
	s0=$(narmed)
	soft=$(cat "$T/events/$G/$soft_ev/enable")
	echo 1 >"$T/events/$G/enable" && [ "$(nenabled)" -eq "$nev" ] &&
		[ "$(narmed)" -eq $((nprb + 1)) ] &&
		[ "$(cat "$T/events/$G/$soft_ev/enable")" = "1*" ] &&
		echo 0 >"$T/events/$G/enable" && [ "$(narmed)" -eq "$s0" ] &&
		[ "$(cat "$T/events/$G/$soft_ev/enable")" = "$soft" ] && ok=1
	ktap_print_msg "soft mode: $s0 armed by the trigger, $soft_ev $soft"
fi
if [ -d "$T/events/${G}h" ]; then
	echo "!$trigger" >>"$T/events/${G}h/host/trigger"
	echo "-:${G}h/" >>"$T/kprobe_events"
fi
trigger=
[ "$ok" = 1 ] && all_off && [ "$(nprobes)" -eq "$nprb" ] || ok=0
ktap_test_result "soft-mode event traces with the group, stays armed without it" [ "$ok" = 1 ]

# 7 and 8. Removing the group with e$((M / 2)) enabled stops at it.
busy=e$((M / 2))
echo 1 >"$T/events/$G/$busy/enable"
echo "-:$G/" >>"$T/kprobe_events" 2>/dev/null && rc=0 || rc=1
lines=$(grep -c ":$G/" "$T/kprobe_events")
kept=$(grep -c ":$G/e[0-9]" "$T/kprobe_events")
ktap_print_msg "remove with $busy enabled: rc $rc; e$((M / 2))..e$((M - 1)): $kept left;" \
	"$lines probes defined, $(nprobes) listed"
ktap_test_result "removal stops at the enabled event, before it nothing left" \
	[ "$rc" = 1 -a "$kept" -eq $((M - M / 2)) -a -d "$T/events/$G/$busy" ]
# Left: e$((M / 2)).. and the events defined after them (a line of
# kprobe_events per probe); every probe of them listed, no other.
ktap_test_result "the events left keep exactly their probes" \
	[ "$(nprobes)" -eq "$lines" -a "$(narmed)" -eq 1 ]

# 9. Removing the rest leaves nothing (retried for up to 10 s while an
# event is busy: the trigger of case 6 may still hold its reference).
echo 0 >"$T/events/$G/$busy/enable"
n=0
until echo "-:$G/" 2>/dev/null >>"$T/kprobe_events" || [ "$n" -ge 100 ]; do
	sleep 0.1
	n=$((n + 1))
done
[ "$n" -gt 0 ] && ktap_print_msg "rest removed after $n retries"
left=$(grep -c ":$G/" "$T/kprobe_events")
ktap_test_result "removing the rest leaves no event and no probe" \
	[ "$left" -eq 0 -a "$(nprobes)" -eq 0 -a ! -d "$T/events/$G" ]

# 10. Trace instances: the event's file in every trace array is found.
# Enabled in instance 1 only, the event is busy; disabled, with instance
# 1 removed, it is removed everywhere, instance 2 included.
I1=$T/instances/${G}1
I2=$T/instances/${G}2
f=$(sed -n 1p "$tmp.pick")
ok=0
if echo "p:$G/inst $f" >>"$T/kprobe_events" && mkdir "$I1" "$I2" &&
	echo 1 >"$I1/events/$G/inst/enable" && [ "$(narmed)" -eq 1 ]; then
	! echo "-:$G/inst" 2>/dev/null >>"$T/kprobe_events" &&
		[ -d "$T/events/$G/inst" ] && [ -d "$I2/events/$G/inst" ] &&
		echo 0 >"$I1/events/$G/inst/enable" && rmdir "$I1" &&
		echo "-:$G/inst" >>"$T/kprobe_events" &&
		[ ! -d "$T/events/$G" ] && [ ! -d "$I2/events/$G" ] &&
		[ "$(nprobes)" -eq 0 ] && ok=1
fi
[ -d "$I1" ] && echo 0 >"$I1/events/$G/inst/enable" && rmdir "$I1"
[ -d "$I2" ] && rmdir "$I2"
ktap_test_result "an event busy in an instance stays; removed from every instance" [ "$ok" = 1 ]

ktap_finished
