#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Allocation failures while the index of the kprobe table grows and
# shrinks.
#
# The index of the probed addresses (debugfs kprobes/index) is allocated
# anew as probes come and go.  When that allocation fails, the old index
# stays in use, and a registration fails (ENOMEM) only when the old index
# has no empty slot left to give.  With fault injection (CONFIG_FAILSLAB,
# CONFIG_FAULT_INJECTION_DEBUG_FS), on the disabled "fill" probes of the
# test_kprobe_bench module:
#
#  - each allocation of registering M probes one by one is failed in turn
#    (/proc/self/fail-nth), then each allocation of unregistering them in
#    one batch: whatever failed, the index counts exactly the probes that
#    are registered, and at least one failure did not fail the
#    registrations (the index's own, absorbed by the old index);
#  - every allocation under register_kprobe() fails (failslab's stack
#    filter, CONFIG_FAULT_INJECTION_STACKTRACE_FILTER): registrations go
#    on until the index has one empty slot left, the next one fails with
#    ENOMEM and leaves the index as it was; without the failures the same
#    registration succeeds and the index is rebuilt without its deleted
#    slots;
#  - two allocations of registering probes on ftrace sites fail, half of
#    the probes with a post_handler (both ftrace_ops of kprobes), for every
#    allocation budget up to what the registration needs (failslab's
#    space: the first allocation the budget does not cover fails, then the
#    next one it does not cover; times 2).  One budget fails the second
#    ftrace_ops' filter update and then the undo of the first.  Whatever
#    failed, no probe is left in kprobes/list or in a filter of an
#    ftrace_ops (tracefs enabled_functions), and the same registration
#    then succeeds, fires and is unregistered, leaving every ftrace_ops as
#    it was: an ops that counted its probes twice would be left registered
#    with an empty filter, which traces every function.
#
# The indexes stay at most 256 slots (4 KiB), which kmalloc() serves: a
# failed vmalloc() fallback would print a warning with a stack trace.

debugfs=/sys/kernel/debug
bench=$debugfs/test_kprobe_bench
index=$debugfs/kprobes/index
list=$debugfs/kprobes/list
fs=$debugfs/failslab
tmp=${TMPDIR:-/tmp}/kprobe_index_faults.$$

. "$(dirname "$0")/../kselftest/ktap_helpers.sh"

skip_all()
{
	ktap_skip_all "$*"
	exit "$KSFT_SKIP"
}

# istat KEY: the number after "KEY:" in kprobes/index.
istat()
{
	sed -n "s/^$1: //p" "$index"
}

# listed: the probes kprobes/list shows.
listed()
{
	grep -c . "$list"
}

# nfill: the module's fill probes, from the result of the last fill.
nfill()
{
	sed -n 's/^fill n=\([0-9]*\) .*/\1/p' "$bench/result"
}

# fill N: the fill command, written by this shell itself (fail-nth and
# make-it-fail belong to a task) to the control file open on fd 5; its
# error message to fd 6 ($tmp.err).  No file is opened: an open
# allocates.
fill()
{
	echo "fill $1" 2>&6 >&5
}

# inject N CMD...: CMD with the N-th allocation of this shell failed;
# $rc is CMD's exit code, $hit 1 when CMD used up the count (a failure
# was injected into CMD), else 0.  Between the two writes to fail-nth
# only builtins run (a fork would allocate) and no file is opened (an
# open allocates): the count is read back through fd 7, opened before.
inject()
{
	nth=$1
	shift
	exec 7</proc/self/fail-nth
	echo "$nth" >/proc/self/fail-nth
	"$@"
	rc=$?
	left=x
	read -r left <&7
	exec 7<&-
	echo 0 2>&3 >/proc/self/fail-nth
	hit=0
	[ "$left" = 0 ] && hit=1
}

# counts_ok: the index counts the probes registered before the test and
# the module's fill probes, kprobes/list shows as many, and the index has
# an empty slot.
counts_ok()
{
	nf=$(nfill)
	[ "$(istat probes)" -eq $((p0 + nf)) ] &&
		[ "$(listed)" -eq $((l0 + nf)) ] &&
		[ $(($(istat probes) + $(istat deleted))) -lt "$(istat slots)" ]
}

cleanup()
{
	echo 0 >/proc/self/make-it-fail 2>/dev/null
	[ -n "$saved" ] && restore
	[ -d "$bench" ] && echo "fill 0" >"$bench/ctl"
	# The open control file holds a reference on the module.
	exec 5>&-
	[ -n "$loaded" ] && rmmod test_kprobe_bench
	rm -f "$tmp.err"
}

ktap_print_header
[ "$(id -u)" -eq 0 ] || skip_all "must be run as root"
if [ ! -d "$debugfs/kprobes" ] && ! grep -q " $debugfs debugfs " /proc/mounts; then
	mount -t debugfs none "$debugfs" 2>/dev/null
fi
[ -r "$index" ] || skip_all "no $index: kernel without the resizable kprobe index"
[ -e /proc/self/fail-nth ] ||
	skip_all "no /proc/self/fail-nth: kernel without CONFIG_FAULT_INJECTION"
[ -d "$fs" ] ||
	skip_all "no $fs: kernel without CONFIG_FAILSLAB or CONFIG_FAULT_INJECTION_DEBUG_FS"
loaded=
if [ ! -d "$bench" ] && modprobe test_kprobe_bench 2>/dev/null; then
	loaded=1
fi
[ -d "$bench" ] || skip_all "test_kprobe_bench is not available"
trap cleanup EXIT
trap 'exit 1' HUP INT TERM

# /proc/self/fail-nth counts the checks of every fault attribute, not
# only failslab's: another one (fail_usercopy would fail the command's
# copy from user space, fail_page_alloc a slab's new page) is made to
# count none with its stack filter, which then requires an empty range.
others=
for d in "$debugfs"/fail_*; do
	[ -d "$d" ] || continue
	[ -e "$d/require-end" ] ||
		skip_all "$d counts in /proc/self/fail-nth, and no stack filter can stop it"
	others="$others $d"
done

# The settings changed below, each as FILE=VALUE, restored at the end.
saved=
knobs="ignore-gfp-wait cache-filter verbose probability interval times space task-filter"
[ -e "$fs/require-start" ] &&
	knobs="$knobs require-start require-end reject-start reject-end"
for k in $knobs; do
	saved="$saved $fs/$k=$(cat "$fs/$k")"
done
for d in $others; do
	saved="$saved $d/require-start=$(cat "$d/require-start")"
	saved="$saved $d/require-end=$(cat "$d/require-end")"
done
restore()
{
	for kv in $saved; do
		echo "${kv#*=}" >"${kv%%=*}"
	done
}
exec 3>/dev/null 5>"$bench/ctl" 6>"$tmp.err"
for d in $others; do
	echo 0 >"$d/require-start"
	echo 0 >"$d/require-end"
done

# Sleeping allocations fail too (the index's do), in every cache, with no
# report of each failure (its stack dump would read as a kernel warning),
# anywhere in the kernel unless case 2 says otherwise.
echo N >"$fs/ignore-gfp-wait"
echo N >"$fs/cache-filter"
echo 0 >"$fs/verbose"
echo 0 >"$fs/probability"
echo 0 >"$fs/space"
if [ -e "$fs/require-start" ]; then
	echo 0 >"$fs/require-start"
	echo 0xffffffffffffffff >"$fs/require-end"
	echo 0 >"$fs/reject-start"
	echo 0 >"$fs/reject-end"
fi

echo unhot >&5 && echo unset >&5 && fill 0 ||
	skip_all "test_kprobe_bench did not empty its probe sets"
p0=$(istat probes)
l0=$(listed)
# m + p0 = 120 probes at most: a resize sizes the index for twice the
# probes, so 256 slots (4 KiB) at most.  With at most 30 other probes,
# unregistering the fill probes shrinks the index back to 64 slots, and
# each round of the sweep starts from the same state.
m=$((120 - p0))
[ "$p0" -le 30 ] || skip_all "$p0 probes registered already (30 at most)"
# The fill probes sit on ftrace sites, where register_kprobe() allocates
# nothing but the index (a breakpoint's instruction slot could come from
# vmalloc(), whose failure prints a stack trace).
f0=$(grep -c FTRACE "$list")
fill 1
ftrace=$(($(grep -c FTRACE "$list") - f0))
fill 0
[ "$ftrace" -eq 1 ] || skip_all "the module's fill probes are not on ftrace"
ktap_set_plan 8

# 1. Each allocation failed in turn: the N-th allocation of registering
#    M probes (from none), then of unregistering them, for N = 1, 2, ...
#    until the command allocates fewer than N times.
fill "$m" && fill 0 || ktap_exit_fail_msg "fill $m failed without fault injection"
n=1
reg_done=0 unreg_done=0 absorbed=0 failed=0 bad=0
# report WHAT: a line about the state after an injection that broke it.
report()
{
	bad=$((bad + 1))
	ktap_print_msg "fail-nth $n, $1: rc $rc, $(nfill) fill probes, $(listed) listed," \
		"index $(tr '\n' ' ' <"$index")"
}
while [ "$n" -le 500 ] && { [ "$reg_done" -eq 0 ] || [ "$unreg_done" -eq 0 ]; }; do
	if [ "$reg_done" -eq 0 ]; then
		inject "$n" fill "$m"
		if [ "$hit" -eq 0 ]; then
			# Fewer than n allocations: every one has been failed.
			reg_done=$n
			[ "$rc" -eq 0 ] && [ "$(nfill)" -eq "$m" ] || report "fill $m, no failure"
		elif [ "$rc" -eq 0 ]; then
			# All M registered although an allocation failed.
			if [ "$(nfill)" -eq "$m" ]; then
				absorbed=$((absorbed + 1))
			else
				report "fill $m"
			fi
		else
			failed=$((failed + 1))
		fi
		counts_ok || report "fill $m"
	fi
	if [ "$unreg_done" -eq 0 ]; then
		[ "$(nfill)" -eq "$m" ] || fill "$m" || report "fill $m, no failure"
		inject "$n" fill 0
		[ "$hit" -eq 0 ] && unreg_done=$n
		# Unregistration does not fail.
		[ "$rc" -eq 0 ] && [ "$(nfill)" -eq 0 ] || report "fill 0"
		counts_ok || report "fill 0"
	else
		fill 0
	fi
	n=$((n + 1))
done
ktap_print_msg "registering $m probes: $((reg_done - 1)) allocations," \
	"$failed failed the command, $absorbed did not"
ktap_print_msg "unregistering them in one batch: $((unreg_done - 1)) allocations"
# swept_ok: both commands allocated, and no injection broke the counts.
swept_ok()
{
	[ "$reg_done" -gt 1 ] && [ "$unreg_done" -gt 1 ] && [ "$bad" -eq 0 ]
}
# absorbed_ok: at least one failure did not fail the registrations.
absorbed_ok()
{
	[ "$absorbed" -ge 1 ]
}
what="each allocation of $m registrations and of their unregistration failed in turn:"
ktap_test_result "$what the index counts the registered probes" swept_ok
what="a failed allocation of the growing index left the old one in use"
ktap_test_result "$what ($absorbed of $((reg_done - 1)))" absorbed_ok

# 2. Every allocation under register_kprobe() fails.
if [ ! -e "$fs/require-start" ]; then
	what="kernel without CONFIG_FAULT_INJECTION_STACKTRACE_FILTER"
	ktap_test_skip "no $fs/require-start: $what"
	ktap_test_skip "the same registration without the failures"
else
	# register_kprobe() and the next text symbol: the addresses of its code.
	range=$(awk '$3 == "register_kprobe" && ($2 == "T" || $2 == "t") { a = $1 }
		{ s[NR] = $1; t[NR] = $2 }
		END {
			if (a == "") exit
			e = ""
			for (i = 1; i <= NR; i++)
				if ((t[i] == "T" || t[i] == "t") && s[i] > a &&
				    (e == "" || s[i] < e))
					e = s[i]
			print a, e
		}' /proc/kallsyms)
	# After the failures: ENOMEM, k registered, the index as it was.
	full_ok()
	{
		case "$err" in
		*"Out of memory"* | *"out of memory"* | *"Cannot allocate memory"*) ;;
		*) return 1 ;;
		esac
		[ "$rc" -ne 0 ] && [ "$(nfill)" -eq "$k" ] && [ "$(istat slots)" -eq "$s0" ] &&
			[ "$(istat resizes)" -eq "$r0" ] && counts_ok
	}
	# Without them: k + 1 registered, and the index rebuilt (at the
	# size its probes need) without its deleted slots.
	rebuilt_ok()
	{
		[ "$rc" -eq 0 ] && [ "$(nfill)" -eq $((k + 1)) ] &&
			[ "$(istat resizes)" -gt "$r0" ] && [ "$(istat deleted)" -eq 0 ] &&
			counts_ok
	}
	start=${range% *}
	end=${range#* }
	s0=$(istat slots)
	r0=$(istat resizes)
	filled=$(($(istat probes) + $(istat deleted)))
	k=$((s0 - 1 - filled))
	if [ -z "$end" ] || [ "$start" = "0000000000000000" ] || [ "$s0" -gt 128 ]; then
		ktap_test_skip "no address of register_kprobe() ($range), or $s0 slots"
		ktap_test_skip "the same registration without the failures"
	else
		echo "0x$start" >"$fs/require-start"
		echo "0x$end" >"$fs/require-end"
		echo 1 >"$fs/task-filter"
		echo -1 >"$fs/times"
		echo 1 >"$fs/interval"
		echo 100 >"$fs/probability"
		exec 6>"$tmp.err"
		echo 1 >/proc/self/make-it-fail
		fill $((k + 1))
		rc=$?
		echo 0 >/proc/self/make-it-fail
		echo 0 >"$fs/probability"
		err=$(cat "$tmp.err")
		ktap_print_msg "register_kprobe() at $start-$end; $s0 slots, $filled filled:" \
			"rc $rc, $(nfill) registered, \"$err\"; index $(tr '\n' ' ' <"$index")"
		what="allocations under register_kprobe() failing: $k registrations fill"
		what="$what the $s0-slot index to its last empty slot,"
		ktap_test_result "$what the next fails with ENOMEM" full_ok
		fill $((k + 1))
		rc=$?
		what="the same registration without the failures: the index is rebuilt"
		what="$what ($(istat slots) slots, $(istat deleted) deleted,"
		ktap_test_result "$what $((k + 1)) registered)" rebuilt_ok
	fi
fi

fill 0

# 3. Two allocations of registering a mixed set failed, for every budget.
tracefs=/sys/kernel/tracing
ef=$tracefs/enabled_functions
[ -r "$ef" ] || mount -t tracefs nodev "$tracefs" 2>/dev/null
np=4
# ftrace_left: lines of enabled_functions for the module's sites.
ftrace_left()
{
	grep -c kpb_fn_ "$ef"
}
undone()
{
	dmesg | grep -c "failed to undo arming"
}
mixed()
{
	echo "set ftrace $np mixed" 2>&6 >&5
}
if [ ! -r "$ef" ] || ! mixed; then
	what="no $ef, or no mixed set in test_kprobe_bench"
	ktap_test_skip "$what: two allocation failures while registering"
	ktap_test_skip "$what: the undo of the first ftrace_ops failed"
	ktap_test_skip "$what: the same registration without the failures"
else
	echo unset >&5
	[ -e "$fs/require-start" ] && echo 0 >"$fs/require-start" &&
		echo 0xffffffffffffffff >"$fs/require-end"
	e0=$(grep -c . "$ef")
	k0=$(ftrace_left)
	u0=$(undone)
	echo 1 >"$fs/task-filter"
	echo 1 >"$fs/interval"
	echo 100 >"$fs/probability"
	# make-it-fail written through a file opened before: an open allocates.
	exec 8>/proc/self/make-it-fail
	# What the registration allocates: the budget it used of a big one.
	big=100000000
	echo 2 >"$fs/times"
	echo "$big" >"$fs/space"
	echo 1 >&8
	mixed
	rc=$?
	echo 0 >&8
	used=$((big - $(cat "$fs/space")))
	echo unset >&5
	bad=0 tries=0 failed=0
	b=1
	while [ "$rc" -eq 0 ] && [ "$b" -le $((used + 8)) ]; do
		echo 2 >"$fs/times"
		echo "$b" >"$fs/space"
		echo 1 >&8
		mixed
		r=$?
		echo 0 >&8
		tries=$((tries + 1))
		[ "$r" -eq 0 ] || failed=$((failed + 1))
		echo unset >&5
		if [ "$(ftrace_left)" -ne "$k0" ] || [ "$(listed)" -ne "$l0" ]; then
			bad=$((bad + 1))
			ktap_print_msg "budget $b: rc $r, $(listed) listed," \
				"$(ftrace_left) sites in $ef"
		fi
		b=$((b + 8))
	done
	exec 8>&-
	echo 0 >"$fs/probability"
	u=$(($(undone) - u0))
	ktap_print_msg "registering $np probes allocates $used bytes: $tries budgets," \
		"$failed failed the registration, $u failed the undo of the first ftrace_ops"
	twice_ok()
	{
		[ "$rc" -eq 0 ] && [ "$tries" -gt 0 ] && [ "$bad" -eq 0 ]
	}
	what="two allocations of registering $np ftrace probes (half with a post_handler)"
	ktap_test_result "$what failed, for every budget: none is left registered or in ftrace" \
		twice_ok
	undo_ok()
	{
		[ "$u" -ge 1 ]
	}
	ktap_test_result "the undo of the first ftrace_ops failed ($u budgets)" undo_ok
	mixed
	rc=$?
	fired=
	if [ "$rc" -eq 0 ]; then
		echo fire >&5
		fired=$(cat "$bench/result")
		echo unset >&5
	fi
	again_ok()
	{
		case "$fired" in
		"fire calls="*) ;;
		*) return 1 ;;
		esac
		h=${fired#*hits=}
		h=${h%% *}
		x=${fired#*expect=}
		[ "$h" = "$x" ] && [ "$(grep -c . "$ef")" -eq "$e0" ] &&
			[ "$(ftrace_left)" -eq "$k0" ]
	}
	what="the same registration without the failures fires ($fired),"
	ktap_test_result "$what and its unregistration leaves $e0 lines in $ef" again_ok
fi

fill 0
# restored_ok: the index and kprobes/list count what they did before.
restored_ok()
{
	[ "$(istat probes)" -eq "$p0" ] && [ "$(listed)" -eq "$l0" ]
}
ktap_test_result "afterwards the index counts the $p0 probes it counted before" restored_ok
ktap_finished
