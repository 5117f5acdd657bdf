#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Tests of kstats run-time tracing (CONFIG_KSTATS_TRACE) through
# /sys/kernel/debug/kstats/_control, on the targets of the test_kstats_trace
# module:
#
#  - parser: every error of the command language, with its exact errno
#    (kstats_write prints it), and that a rejected command changes nothing;
#  - functional: each mode (function, section, tracepoint, and a tracepoint
#    pair of the core kernel) records samples and lists its node and GAP
#    node; remove unregisters every probe; a node being read while it is
#    removed, trace and remove racing from both CPUs, the target module or
#    kstats_trace itself going away under live nodes; the missed count of
#    a kretprobe with too few instances;
#  - accuracy: counts equal calls (also for recursion and for calls that
#    sleep and migrate to another CPU), and the traced median is within
#    the histogram's resolution of the median the caller measured;
#  - fuzz: kstats_fuzz, seeded random commands;
#  - with kmemleak, no leak once it is all over.
#
# POSIX sh and busybox applets only.  Environment: KSTATS_FUZZ_SEED,
# KSTATS_FUZZ_WRITES (default 1 and 10000).

here=$(cd "$(dirname "$0")" && pwd)
debugfs=/sys/kernel/debug
tracefs=/sys/kernel/tracing
kdir=$debugfs/kstats
ctl=$kdir/_control
kplist=$debugfs/kprobes/list
run=$debugfs/test_kstats_trace/run
expected=test_kstats_trace-expected
kmemleak=$debugfs/kmemleak
kw=$here/kstats_write
fuzz=$here/kstats_fuzz
fuzz_seed=${KSTATS_FUZZ_SEED:-1}
fuzz_writes=${KSTATS_FUZZ_WRITES:-10000}
tmp=
bg_pids=
loaded=

# Number of TAP results this script prints, one per check below.
PLAN=85

. "$(dirname "$0")/../kselftest/ktap_helpers.sh"

skip_all()
{
	ktap_print_header
	ktap_skip_all "$*"
	exit "$KSFT_SKIP"
}

ok() { ktap_test_pass "$*"; }
not_ok() { ktap_test_fail "$*"; }

# check DESCRIPTION COMMAND...: one result from the command's status.
check()
{
	desc=$1
	shift
	if "$@"; then
		ok "$desc"
	else
		not_ok "$desc"
	fi
}

diag()
{
	echo "# $*"
}

cleanup()
{
	for p in $bg_pids; do
		kill "$p" 2>/dev/null
	done
	[ -n "$tmp" ] && rm -rf "$tmp"
}

# The errno names of writing each argument (escapes decoded), on one line.
kwrite()
{
	"$kw" -e "$@" | tr '\n' ' ' | sed 's/ $//'
}

# perr DESCRIPTION EXPECTED ARG...: the writes of ARG... give EXPECTED
# (errno names separated by spaces).
perr()
{
	desc=$1 want=$2
	shift 2
	got=$(kwrite "$@")
	if [ "$got" = "$want" ]; then
		ok "$desc"
	else
		not_ok "$desc"
		diag "wrote '$*': expected '$want', got '$got'"
	fi
}

# A string of $1 times the character $2.
repeat()
{
	head -c "$1" /dev/zero | tr '\0' "$2"
}

kstats_run()
{
	echo "$*" > "$run"
}

# node_stats NODE: "count min median median_slot" of a kstats node, from
# its CPUS lines (slot N CPUS C count X avg Y p Z); min and median are the
# average of the lowest slot and of the slot where p reaches 0.5.
node_stats()
{
	awk '$3 == "CPUS" {
		n++; slot[n] = $2; avg[n] = $8; p[n] = $10; total += $6
	}
	END {
		med = 0; ms = 0
		for (i = 1; i <= n; i++)
			if (p[i] >= 0.5) { med = avg[i]; ms = slot[i]; break }
		printf "%d %d %d %d\n", total, n ? avg[1] : 0, med, ms
	}' "$kdir/$1" 2>/dev/null || echo "0 0 0 0"
}

node_count()
{
	set -- $(node_stats "$1")
	echo "$1"
}

node_median()
{
	set -- $(node_stats "$1")
	echo "$3"
}

# The "missed N" of node $1 in the _control listing.
node_missed()
{
	awk -v n="$1" '$1 == n { print $NF }' "$ctl"
}

listed()
{
	grep -qxF "$1" "$ctl"
}

exists()
{
	[ -e "$kdir/$1" ] && [ -e "$kdir/GAP-$1" ]
}

gone()
{
	[ ! -e "$kdir/$1" ] && [ ! -e "$kdir/GAP-$1" ]
}

kprobes_same()
{
	[ "$(cat "$kplist" 2>/dev/null)" = "$kp0" ]
}

no_test_probes()
{
	! grep -q kstats_test_ "$kplist" 2>/dev/null
}

# Probes whose target went away (a module unloaded under them), beyond
# those of the state the script started from.
gone_probes()
{
	echo $(($(grep -c '\[GONE\]' "$kplist") - $(echo "$kp0" | grep -c '\[GONE\]')))
}

ctl_empty()
{
	[ -z "$(cat "$ctl")" ]
}

# The kstats files, but the one test_kstats_trace recreates on each run.
kstats_files()
{
	ls "$kdir" | grep -vxF "$expected"
}

clean_state()
{
	ctl_empty && kprobes_same && [ "$(kstats_files)" = "$files0" ]
}

test_refcnt()
{
	cat /sys/module/test_kstats_trace/refcnt 2>/dev/null || echo -1
}

# within MEASURED EXPECTED BITS SLACK_NS: |measured - expected| is at most
# expected * 2^-bits (one slot) + SLACK_NS.
within()
{
	awk -v m="$1" -v e="$2" -v w="$((1 << $3))" -v s="$4" 'BEGIN {
		d = m - e; if (d < 0) d = -d
		exit !(d <= e / w + s)
	}'
}

# The number of different CPUs in the per-CPU lines of node $1.
node_cpus()
{
	awk '$3 == "CPU" { c[$4] = 1 } END { n = 0; for (i in c) n++; print n }' \
		"$kdir/$1"
}

# Starts a background loop of test runs: $1 is the run line.
bg_runs()
{
	(while [ ! -e "$tmp/stop" ]; do
		echo "$1" > "$run" 2>/dev/null
	done) &
	bg_pids="$bg_pids $!"
}

bg_stop()
{
	touch "$tmp/stop"
	wait
	rm -f "$tmp/stop"
	bg_pids=
}

# Pins process $1 to CPU $2 if taskset is there and works.
pin()
{
	taskset -p "$((1 << $2))" "$1" >/dev/null 2>&1
}

# --- setup ---------------------------------------------------------------

[ "$(id -u)" -eq 0 ] || skip_all "must be run as root"
if [ ! -d "$debugfs/kprobes" ] && ! grep -q " $debugfs debugfs " /proc/mounts; then
	mount -t debugfs none "$debugfs" 2>/dev/null
fi
if [ -d "$tracefs" ] && [ ! -d "$tracefs/events" ]; then
	mount -t tracefs none "$tracefs" 2>/dev/null
fi
[ -x "$kw" ] && [ -x "$fuzz" ] || skip_all "kstats_write and kstats_fuzz not built"
if [ ! -d /sys/module/kstats_trace ]; then
	modprobe kstats_trace 2>/dev/null && loaded="kstats_trace"
fi
[ -e "$ctl" ] || skip_all "no $ctl: kernel without CONFIG_KSTATS_TRACE"
if [ ! -d /sys/module/test_kstats_trace ]; then
	modprobe test_kstats_trace 2>/dev/null && loaded="test_kstats_trace $loaded"
fi
[ -e "$run" ] || skip_all "no $run: kernel without CONFIG_TEST_KSTATS_TRACE"
if ! ctl_empty; then
	# Nodes of someone else: start from a fresh module.
	rmmod kstats_trace && modprobe kstats_trace ||
		skip_all "kstats_trace has nodes and cannot be reloaded"
fi

tmp=$(mktemp -d) || exit 1
trap cleanup EXIT
t_start=$(date +%s)
kp0=$(cat "$kplist" 2>/dev/null)
files0=$(kstats_files)
if [ -w "$kmemleak" ]; then
	# Forget what was leaked before this test.
	echo scan > "$kmemleak"
	echo clear > "$kmemleak"
fi
possible=$(awk -F, '{
	for (i = 1; i <= NF; i++) {
		n = split($i, r, "-"); c += n == 2 ? r[2] - r[1] + 1 : 1
	}
	print c
}' /sys/devices/system/cpu/possible)
maxact=$((16 * possible))
[ "$maxact" -ge 256 ] || maxact=256
[ "$maxact" -le 4096 ] || maxact=4096
online=$(grep -c '^processor' /proc/cpuinfo)

ktap_print_header
ktap_set_plan "$PLAN"
diag "$online CPUs online, $possible possible; default maxactive $maxact"
# Root only, as kprobes' own files: it places probes anywhere.
check "_control is readable and writable by root only" \
	[ "$(stat -c %a "$ctl")" = 600 ]

# --- parser --------------------------------------------------------------

e=kstats_test_empty
b=kstats_test_section_begin
z=kstats_test_section_end
tb=test_kstats_trace:kstats_test_begin
te=test_kstats_trace:kstats_test_end

perr "parse: unknown verb" "EINVAL EINVAL" "bogus fx" "TRACE fx start $e"
perr "parse: missing words" "EINVAL EINVAL EINVAL" "trace" "remove" "trace fx start"
perr "parse: extra words" "EINVAL EINVAL" "remove fx fy" \
	"trace fx start $e bits 1 maxactive 2 end $z x"
perr "parse: odd keyword-value pairs" "EINVAL" "trace fx start $e bits"
perr "parse: unknown keyword" "EINVAL" "trace fx begin $e"
perr "parse: duplicate keyword" "EINVAL EINVAL" "trace fx bits 2 start $e bits 2" \
	"trace fx start $e start $e"
perr "parse: empty write, empty line, blank line" "EINVAL EINVAL EINVAL" \
	"" "\n" " \t "
perr "parse: non-printable bytes" "EINVAL EINVAL EINVAL EINVAL EINVAL" \
	"trace fx start $e\x01" "trace fx\x00 start $e" "trace fx start $e\x7f" \
	"trace f\xc3\xa9 start $e" "trace fx start $e\r\n"
perr "parse: same start and end" "EINVAL EINVAL" "trace fx start $b end $b" \
	"trace fx start $tb end $tb"
perr "parse: function and tracepoint mixed" "EINVAL EINVAL" \
	"trace fx start $e end $te" "trace fx start $tb end $z"
perr "parse: kretprobe on a tracepoint" "EINVAL EINVAL" "trace fx start $tb" \
	"trace $tb"
perr "parse: maxactive without a kretprobe" "EINVAL EINVAL" \
	"trace fx start $b end $z maxactive 4" "trace fx start $tb end $te maxactive 4"
perr "parse: bad node names" "EINVAL EINVAL EINVAL EINVAL" "trace _fx start $e" \
	"trace f/x start $e" "trace . start $e" "trace .. start $e"
perr "parse: bits not a number" "EINVAL EINVAL EINVAL EINVAL" "trace fx start $e bits x" \
	"trace fx start $e bits -1" "trace fx start $e bits 0x3" "trace fx start $e bits 3a"
perr "parse: bits out of range" "ERANGE ERANGE ERANGE" "trace fx start $e bits 6" \
	"trace fx start $e bits 4294967296" "trace fx start $e bits 99999999999999999999"
perr "parse: maxactive out of range or not a number" "ERANGE ERANGE ERANGE EINVAL" \
	"trace fx start $e maxactive 0" "trace fx start $e maxactive 4097" \
	"trace fx start $e maxactive +0" "trace fx start $e maxactive many"
long=$(repeat 60 n)
perr "parse: name of 60 characters" "ENAMETOOLONG" "trace $long start $e"
perr "parse: unknown symbol or trace event" "ENOENT ENOENT ENOENT ENOENT ENOENT ENOENT" \
	"trace fx start kstats_no_such_function" "trace kstats_no_such_function" \
	"trace fx start $b end kstats_no_such_function" \
	"trace fx start test_kstats_trace:kstats_no_such end $te" \
	"trace fx start $tb end test_kstats_trace:kstats_no_such" \
	"trace fx start kstats_no_such_system:kstats_test_begin end $te"
perr "parse: malformed trace event names" "EINVAL EINVAL EINVAL EINVAL EINVAL" \
	"trace fx start :kstats_test_begin end $te" \
	"trace fx start $tb end test_kstats_trace:" \
	"trace fx start $tb end test_kstats_trace:kstats_test_end:x" \
	"trace fx start : end $te" "trace fx start $tb end :"
perr "parse: symbols kprobes refuses" "EINVAL EINVAL" \
	"trace fx start kstats_record" "trace fx start jiffies"
perr "parse: remove of unknown names" "ENOENT ENOENT ENOENT" "remove fx" \
	"remove _control" "remove $expected-no"
l1023="trace $(repeat 1017 n)"
l1024="trace $(repeat 1018 n)"
perr "parse: lines of 1023 and 1024 bytes" "ENAMETOOLONG E2BIG ENAMETOOLONG E2BIG" \
	"$l1023" "$l1024" "$l1023\n" "remove x\n$l1024"
# Four lines of 1023 bytes and their newlines: 4096 bytes.
rl="remove $(repeat 1016 r)\n"
perr "parse: writes of 4096 and 4097 bytes" "ENOENT E2BIG" \
	"$rl$rl$rl$rl" "$rl$rl$rl${rl}x"
perr "parse: a command split over two writes" "EINVAL EINVAL ENOENT EINVAL" \
	"tra" "ce fx start $e" "trace fx" " start $e"
check "parse: rejected commands changed nothing" clean_state

# Accepted forms.
long=$(repeat 59 m)
perr "parse: name of 59 characters, tabs, final newline" "OK OK OK" \
	"trace $long start $e" "trace\tfx\tbits\t0\tstart\t$e" \
	"trace fy bits 5 maxactive 4096 start $e\n"
check "parse: nodes of accepted commands listed" eval \
	'listed "$long function start $e bits 3 maxactive $maxact missed 0" &&
	 listed "fx function start $e bits 0 maxactive $maxact missed 0" &&
	 listed "fy function start $e bits 5 maxactive 4096 missed 0" &&
	 exists "$long" && exists fx && exists fy'
perr "parse: name in use, also as a GAP node" "EEXIST EEXIST EEXIST" "trace fx start $z" \
	"trace GAP-fx start $e" "trace fx start $tb end $te"
perr "parse: remove of a GAP node" "ENOENT" "remove GAP-fx"
perr "parse: several commands per write" "OK" "remove fx\nremove fy\nremove $long\n"
perr "parse: a write runs its lines until one fails" "EINVAL EINVAL" \
	"trace fz start $e\nbogus\ntrace fw start $e" "trace fv start $e\n\n"
check "parse: lines before the failing one ran" eval \
	'exists fz && exists fv && gone fw'
perr "parse: remove them" "OK" "remove fz\nremove fv"
check "parse: back to the initial state" clean_state

# Module parameter for the default maxactive.
param=/sys/module/kstats_trace/parameters/maxactive
old=$(cat "$param")
echo 7 > "$param"
perr "param: maxactive=7" "OK" "trace fp start $e"
check "param: node uses maxactive 7" listed \
	"fp function start $e bits 3 maxactive 7 missed 0"
echo "$old" > "$param"
kwrite "remove fp" >/dev/null

# --- functional ----------------------------------------------------------

perr "function: trace kstats_test_empty and kstats_test_sleep" "OK OK" \
	"trace fe start $e" "trace fs start kstats_test_sleep"
perr "section: trace begin to end" "OK" "trace sec start $b end $z"
perr "tracepoint: trace kstats_test_begin to kstats_test_end" "OK" \
	"trace tp start $tb end $te"
check "listing shows each node" eval \
	'listed "fe function start $e bits 3 maxactive $maxact missed 0" &&
	 listed "fs function start kstats_test_sleep bits 3 maxactive $maxact missed 0" &&
	 listed "sec section start $b end $z bits 3 missed 0" &&
	 listed "tp tracepoint start $tb end $te bits 3 missed 0" &&
	 [ "$(wc -l < "$ctl")" -eq 4 ]'
check "nodes and GAP nodes exist" eval 'exists fe && exists fs && exists sec && exists tp'
check "kprobes listed for the function and section nodes" eval \
	'[ "$(grep -cE "kstats_test_(empty|sleep|section_begin|section_end)" "$kplist")" -eq 4 ]'
check "tracepoint node holds test_kstats_trace" eval \
	'[ "$(test_refcnt)" -ge 2 ] && ! rmmod test_kstats_trace 2>/dev/null'
# The events are soft-enabled ("0*"): nothing goes to the ring buffer, and
# the trigger files show no user trigger.
evdir=$tracefs/events/test_kstats_trace
if [ -f "$evdir/kstats_test_begin/enable" ]; then
	check "tracepoint: events soft-enabled, no user trigger shown" eval \
		'[ "$(cat "$evdir/kstats_test_begin/enable")" = "0*" ] &&
		 [ "$(cat "$evdir/kstats_test_end/enable")" = "0*" ] &&
		 ! grep -qv "^#" "$evdir/kstats_test_begin/trigger"'
else
	ok "tracepoint: events soft-enabled, no user trigger shown # SKIP no tracefs"
fi

kstats_run empty 1000 0 2
kstats_run sleep 20 1000 2
kstats_run section 100 100 2
check "function: every call of kstats_test_empty counted" \
	[ "$(node_count fe)" -eq 2000 ]
check "function: every call of kstats_test_sleep counted, none short" eval \
	'[ "$(node_count fs)" -eq 40 ] && [ "$(node_median fs)" -ge 1000000 ]'
check "section: every section counted" [ "$(node_count sec)" -eq 200 ]
check "tracepoint: every pair counted" [ "$(node_count tp)" -eq 200 ]
check "GAP nodes have samples" eval \
	'[ "$(node_count GAP-fe)" -gt 0 ] && [ "$(node_count GAP-sec)" -gt 0 ] &&
	 [ "$(node_count GAP-tp)" -gt 0 ]'

# A trace event pair of the core kernel, the first that this kernel has.
core=
for pair in "irq:softirq_entry irq:softirq_exit" \
	    "irq:irq_handler_entry irq:irq_handler_exit" \
	    "timer:hrtimer_expire_entry timer:hrtimer_expire_exit" \
	    "irq_vectors:local_timer_entry irq_vectors:local_timer_exit"; do
	set -- $pair
	if [ "$(kwrite "trace core start $1 end $2")" = OK ]; then
		core="$1 $2"
		break
	fi
done
if [ -z "$core" ]; then
	ok "core-kernel tracepoint pair # SKIP none of the candidates is built in"
else
	sleep 2
	n=$(node_count core)
	diag "core-kernel tracepoints $core: $n samples in 2 s, median $(node_median core) ns"
	check "core-kernel tracepoint pair records samples" [ "$n" -gt 0 ]
	kwrite "remove core" >/dev/null
fi

perr "remove every node" "OK OK OK OK" "remove fe" "remove fs" "remove sec" \
	"remove tp"
check "removed nodes and GAP nodes are gone" eval \
	'gone fe && gone fs && gone sec && gone tp && gone core'
check "remove unregistered every probe" eval 'clean_state && no_test_probes'
check "remove released test_kstats_trace" [ "$(test_refcnt)" -eq 0 ]
if [ -f "$evdir/kstats_test_begin/enable" ]; then
	check "remove: events disabled again" eval \
		'[ "$(cat "$evdir/kstats_test_begin/enable")" = 0 ] &&
		 [ "$(cat "$evdir/kstats_test_end/enable")" = 0 ]'
else
	ok "remove: events disabled again # SKIP no tracefs"
fi

# The target's module goes away under a kretprobe and a section.
kwrite "trace fg start $e" "trace sg start $b end $z" >/dev/null
if rmmod test_kstats_trace; then
	# The kretprobe and the section's two kprobes stay registered, [GONE].
	check "target module unloaded: nodes stay, probes gone" eval \
		'listed "fg function start $e bits 3 maxactive $maxact missed 0" &&
		 exists fg && exists sg && [ "$(gone_probes)" -eq 3 ]'
	perr "target module unloaded: remove" "OK OK" "remove fg" "remove sg"
	modprobe test_kstats_trace
else
	not_ok "target module unloaded: nodes stay, probes gone"
	not_ok "target module unloaded: remove"
	kwrite "remove fg" "remove sg" >/dev/null
fi
check "target module unloaded: clean state, module back" eval \
	'clean_state && [ -e "$run" ]'

# Read nodes while they are removed, with calls in progress.
bg_runs "empty 300 0 2"
(while [ ! -e "$tmp/stop" ]; do
	cat "$kdir/rr" "$kdir/GAP-rr" "$kdir/rs" "$ctl" >/dev/null 2>&1
done) &
bg_pids="$bg_pids $!"
i=0
errs=0
while [ $i -lt 15 ]; do
	r=$(kwrite "trace rr start $e" "trace rs start $b end $z")
	[ "$r" = "OK OK" ] || errs=$((errs + 1))
	sleep 0.2 2>/dev/null || sleep 1
	r=$(kwrite "remove rr" "remove rs")
	[ "$r" = "OK OK" ] || errs=$((errs + 1))
	i=$((i + 1))
done
bg_stop
check "read nodes while they are removed" eval \
	'[ "$errs" -eq 0 ] && clean_state && gone rr && gone rs'

# Remove a kretprobe while calls sleep in its function: their returns
# must not reach the freed node.
bg_runs "migrate 4 10000 2"
i=0
errs=0
while [ $i -lt 6 ]; do
	[ "$(kwrite "trace rw start kstats_test_sleep")" = OK ] || errs=$((errs + 1))
	sleep 0.3 2>/dev/null || sleep 1
	[ "$(kwrite "remove rw")" = OK ] || errs=$((errs + 1))
	i=$((i + 1))
done
bg_stop
check "remove while calls sleep in the function" eval \
	'[ "$errs" -eq 0 ] && clean_state && gone rw'

# trace and remove racing from both CPUs, with calls in progress.
race()
{
	i=0
	while [ $i -lt 12 ]; do
		echo "$(kwrite "trace ra start $e" "trace rt start $tb end $te" \
			"trace rc$1 start $b end $z" "remove ra" "remove rt" \
			"remove rc$1")" >> "$tmp/race$1"
		i=$((i + 1))
	done
}
bg_runs "section 200 20 2"
bg_runs "empty 300 0 2"
race 0 &
p0=$!
pin "$p0" 0
race 1 &
p1=$!
pin "$p1" 1
wait "$p0"
wait "$p1"
bg_stop
diag "race, 2 x 12 x 6 writes:" $(cat "$tmp/race0" "$tmp/race1" | tr ' ' '\n' |
	sort | uniq -c)
check "trace and remove racing from both CPUs: consistent state" eval \
	'clean_state && gone ra && gone rt && gone rc0 && gone rc1 &&
	 ! cat "$tmp/race0" "$tmp/race1" | tr " " "\n" |
	   grep -qv -e "^OK$" -e "^EEXIST$" -e "^ENOENT$"'
check "racing: rc0 and rc1 never failed" eval \
	'[ "$(grep -c . "$tmp/race0")" -eq 12 ] &&
	 [ "$(grep -c . "$tmp/race1")" -eq 12 ] &&
	 ! cut -d" " -f3,6 "$tmp/race0" "$tmp/race1" | grep -qv "^OK OK$"'

# nmissed: one kretprobe instance for two threads sleeping in it at once;
# the default number of instances misses nothing.
perr "missed: trace kstats_test_sleep with maxactive 1 and default" "OK OK" \
	"trace m1 start kstats_test_sleep maxactive 1" "trace md start kstats_test_sleep"
kstats_run sleep 10 20000 2
m1=$(node_missed m1)
md=$(node_missed md)
c1=$(node_count m1)
diag "maxactive 1: $c1 samples, missed $m1; default: $(node_count md) samples, missed $md"
check "missed: maxactive 1 misses calls, count + missed = calls" eval \
	'[ "$m1" -gt 0 ] && [ $((c1 + m1)) -eq 20 ]'
check "missed: default maxactive misses none" eval \
	'[ "$md" -eq 0 ] && [ "$(node_count md)" -eq 20 ]'
kwrite "remove m1" "remove md" >/dev/null

# Unloading kstats_trace removes every node and probe, also with calls
# sleeping in a traced function.
unload_tests()
{
	bg_runs "migrate 4 10000 2"
	kwrite "trace ue start $e" "trace us start $b end $z" \
		"trace ut start $tb end $te" "trace uw start kstats_test_sleep" >/dev/null
	sleep 0.3 2>/dev/null || sleep 1
	check "unload: nodes exist" eval \
		'exists ue && exists us && exists ut && exists uw'
	check "unload: rmmod kstats_trace with live nodes" rmmod kstats_trace
	bg_stop
	check "unload: nodes, probes and module references gone" eval \
		'gone ue && gone us && gone ut && gone uw && kprobes_same &&
		 [ "$(kstats_files)" = "$(echo "$files0" | grep -vx _control)" ] &&
		 [ "$(test_refcnt)" -eq 0 ]'
	modprobe kstats_trace
	perr "unload: reload and trace again" "OK OK" "trace ue start $e" "remove ue"
	check "unload: clean state after reload" clean_state
}

if [ -e /sys/module/kstats_trace/refcnt ]; then
	unload_tests
else
	for d in "nodes exist" "rmmod kstats_trace with live nodes" \
		 "nodes, probes and module references gone" \
		 "reload and trace again" "clean state after reload"; do
		ok "unload: $d # SKIP kstats_trace is built in"
	done
fi

# --- accuracy ------------------------------------------------------------

# The traced time of a call lies inside the caller's: the caller's also
# holds the probes' own cost (0.3 us for a kretprobe under TCG) and any
# interrupt that lands between its clock reads and the probes' (tens of
# us under TCG with its softirq).  Both histograms round to the same
# slots, so the medians agree within one slot (2^-3 relative) plus this.
slack=50000

kwrite "trace emp start $e" >/dev/null
kstats_run empty 5000 0 2
set -- $(node_stats emp)
diag "empty function: min $2 ns median $3 ns over $1 calls (kretprobe, per call)"
check "accuracy: every empty call counted" [ "$1" -eq 10000 ]
kwrite "remove emp" >/dev/null

kwrite "trace slp start kstats_test_sleep" >/dev/null
kstats_run migrate 50 2000 4
set -- $(node_stats slp)
tc=$1 tm=$3
set -- $(node_stats $expected)
ec=$1 em=$3
diag "migrate, 4 threads x 50 calls of 2000 us:"
diag "  expected $ec calls, median $em ns"
diag "  traced $tc calls, median $tm ns, missed $(node_missed slp)"
check "accuracy: migrating sleeps, count = calls" eval '[ "$tc" -eq 200 ] && [ "$ec" -eq 200 ]'
check "accuracy: migrating sleeps, median within one slot" within "$tm" "$em" 3 "$slack"
check "accuracy: migrating sleeps, median >= 2000 us" [ "$tm" -ge 2000000 ]
check "accuracy: migrating sleeps, samples from every CPU" \
	[ "$(node_cpus slp)" -eq "$online" ]
kwrite "remove slp" >/dev/null

kwrite "trace rec start kstats_test_recurse" >/dev/null
kstats_run recurse 100 8 2
n=$(node_count rec)
diag "recursion: 2 threads x 100 calls x depth 8 = 1600 expected, $n traced"
check "accuracy: recursion, count = calls x depth" [ "$n" -eq 1600 ]
kwrite "remove rec" >/dev/null

# Two nodes of different resolution on each pair: aggregated kprobes,
# and two probes on each tracepoint.
kwrite "trace sec start $b end $z" "trace tp start $tb end $te" \
	"trace sec5 bits 5 start $b end $z" "trace tp5 bits 5 start $tb end $te" >/dev/null
kstats_run section 200 500 2
set -- $(node_stats sec)
sc=$1 sm=$3
set -- $(node_stats tp)
pc=$1 pm=$3
set -- $(node_stats $expected)
ec=$1 em=$3
diag "section, 2 threads x 200 sections of 500 us:"
diag "  expected $ec sections, median $em ns"
diag "  kprobes $sc sections, median $sm ns"
diag "  tracepoints $pc sections, median $pm ns"
set -- $(node_stats sec5)
s5c=$1 s5m=$3
set -- $(node_stats tp5)
p5c=$1 p5m=$3
diag "  bits 5: kprobes $s5c sections, median $s5m ns; tracepoints $p5c, median $p5m ns"
check "accuracy: section and tracepoints, count = calls" eval \
	'[ "$sc" -eq 400 ] && [ "$pc" -eq 400 ] && [ "$ec" -eq 400 ]'
check "accuracy: section, median within one slot" within "$sm" "$em" 3 "$slack"
check "accuracy: tracepoints, median within one slot" within "$pm" "$em" 3 "$slack"
check "accuracy: bits 5 nodes on the same pairs agree" eval \
	'[ "$s5c" -eq 400 ] && [ "$p5c" -eq 400 ] &&
	 within "$s5m" "$em" 3 "$slack" && within "$p5m" "$em" 3 "$slack"'
kwrite "remove sec" "remove tp" "remove sec5" "remove tp5" >/dev/null
check "accuracy: clean state" clean_state

# --- fuzz ----------------------------------------------------------------

diag "kstats_fuzz -s $fuzz_seed -n $fuzz_writes"
"$fuzz" -s "$fuzz_seed" -n "$fuzz_writes" > "$tmp/fuzz" 2>&1
rc=$?
sed 's/^/# fuzz: /' "$tmp/fuzz"
check "fuzz: kstats_fuzz passed" [ "$rc" -eq 0 ]
check "fuzz: clean state" clean_state

# --- the end -------------------------------------------------------------

for m in $loaded; do
	rmmod "$m" || diag "cannot remove $m"
done
if [ -w "$kmemleak" ]; then
	echo scan > "$kmemleak"
	sleep 6
	echo scan > "$kmemleak"
	cat "$kmemleak" > "$tmp/leaks"
	sed 's/^/# /' "$tmp/leaks" | head -60
	check "kmemleak: no leak" [ ! -s "$tmp/leaks" ]
else
	ok "kmemleak: no leak # SKIP no $kmemleak"
fi

diag "$((KTAP_TESTNO - 1)) results in $(($(date +%s) - t_start)) s"
ktap_finished
