#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest side of harness/peers.sh (installed as a tests.d script): the cost
# that each way of timing one kernel function adds to a call of it.
# callbench calls getpid() PEERS_N times and times each call from user
# space; it runs with nothing attached ("none") and under each mode:
#
#   kstats-fn   kstats function mode, a kretprobe on __x64_sys_getpid
#   kstats-sec  kstats section mode, two kprobes (getpid and a callee)
#   kstats-tp   kstats tracepoint mode, raw_syscalls sys_enter/sys_exit
#   bpf-kprobe  funclat: BPF kprobe + kretprobe, hash map, log2 histogram
#   bpf-fentry  funclat: the same programs as fentry + fexit (needs BTF)
#   hist        ftrace hist triggers on raw_syscalls, a synthetic event
#               "lat" and its log2 histogram
#
# Each round runs none, mode, none, mode, ... none, so every mode has an
# unprobed run on either side.  One line per run:
#
#   PEERS mode=M round=R calls=C n=N p50=.. p99=.. mean=.. min=.. max=..
#         samples=S status=ok|FAIL|skip [why=TEXT]
#
# (on one line), where S is what the mode's own histogram counted and C
# the getpid() calls made while it was attached.  A mode whose count is not
# about C fails the run.  Settings: /kseries/peers/peers.env (PEERS_N,
# PEERS_ROUNDS, PEERS_MODES).
P=/kseries/peers
[ -f "$P/peers.env" ] && . "$P/peers.env"
N=${PEERS_N:-50000}
ROUNDS=${PEERS_ROUNDS:-3}
MODES=${PEERS_MODES:-kstats-fn kstats-sec kstats-tp bpf-kprobe bpf-fentry hist}
FUNC=__x64_sys_getpid
NR_GETPID=39
KS=/sys/kernel/debug/kstats
CTL=$KS/_control
TR=/sys/kernel/tracing
BTF=/sys/kernel/btf/vmlinux
CB=$P/callbench
FL=$P/funclat
FLOBJ=$P/funclat.bpf.o
TMP=/tmp/peers
T0=$(date +%s)
fails=0

progress() { echo "# [$(($(date +%s) - T0))s] $*"; }
diag() { echo "# $*"; }

mkdir -p "$TMP"

# ---- what the kernel offers ------------------------------------------------

diag "kernel $(uname -r), $(grep -c '^processor' /proc/cpuinfo) CPUs"
diag "clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
if [ -r "$BTF" ]; then
	diag "BTF: $BTF, $(wc -c <"$BTF") bytes"
else
	diag "BTF: no $BTF"
fi
modprobe kstats_trace 2>&1 | sed 's/^/# /'
[ -w "$CTL" ] || diag "no $CTL: the kstats modes will fail"

# in_kallsyms SYM: SYM is a text symbol of the kernel.
in_kallsyms() {
	grep -qE "^[0-9a-f]+ [tT] $1\$" /proc/kallsyms
}

# probeable SYM: a text symbol outside the kprobe blacklist.
probeable() {
	in_kallsyms "$1" || return 1
	! grep -qE "[[:space:]]$1\$" /sys/kernel/debug/kprobes/blacklist 2>/dev/null
}

# ks_samples NODE: the samples of kstats node NODE (sum of its CPUS lines).
ks_samples() {
	awk '$3 == "CPUS" { s += $6 } END { print s + 0 }' "$KS/$1" 2>/dev/null ||
		echo 0
}

# ks_try NODE ARGS...: "trace NODE ARGS", errors on stdout as a diag.
ks_try() {
	local node=$1 err
	shift
	err=$(echo "trace $node $*" 2>&1 >"$CTL") && return 0
	diag "trace $node $*: ${err##*: }"
	return 1
}

# The section pair: getpid and the function it calls to read the tgid,
# if both can be probed and samples arrive; else the syscall dispatcher
# and getpid (the same two kprobes per call, around a shorter section).
SEC_START='' SEC_END=''
for pair in "$FUNC __task_pid_nr_ns" "x64_sys_call $FUNC"; do
	set -- $pair
	if ! probeable "$1" || ! probeable "$2"; then
		diag "section $1 -> $2: not both probe-able"
		continue
	fi
	ks_try ks-probe start "$1" end "$2" || continue
	"$CB" 200 0 >/dev/null
	got=$(ks_samples ks-probe)
	echo "remove ks-probe" >"$CTL"
	if [ "$got" -ge 200 ]; then
		SEC_START=$1 SEC_END=$2
		diag "section mode: start $1 end $2 ($got samples of 200 calls in a trial)"
		break
	fi
	diag "section $1 -> $2: $got samples of 200 calls, not used"
done

# The tracepoint syntax: raw_syscalls:sys_enter (newer) or
# __tracepoint_sys_enter (older).
TP_START='' TP_END='' refused=''
for pair in "raw_syscalls:sys_enter raw_syscalls:sys_exit" \
	"__tracepoint_sys_enter __tracepoint_sys_exit"; do
	set -- $pair
	if ks_try ks-probe start "$1" end "$2" >"$TMP/tp-trial"; then
		echo "remove ks-probe" >"$CTL"
		TP_START=$1 TP_END=$2
		diag "tracepoint mode: start $1 end $2${refused:+ ($refused)}"
		break
	fi
	cat "$TMP/tp-trial"
	refused="${refused:+$refused, }$1 refused: $(sed 's/.*: //' "$TMP/tp-trial")"
done
[ -n "$TP_START" ] || diag "tracepoint mode: neither syntax accepted, kstats-tp skipped"

# The fentry/fexit target: libbpf looks FUNC up in the kernel's BTF, where
# pahole keeps one name per address.  When the compiler emitted the
# syscall wrapper and its body at one address (__x64_sys_getpid and
# __do_sys_getpid with -Os), BTF may know only the other name: then attach
# to that name, the same code.  A trial load that exits at once on EOF.
FE_FUNC='' FE_WHY=''
if [ -r "$BTF" ]; then
	addr=$(awk -v f="$FUNC" '$3 == f { print $1; exit }' /proc/kallsyms)
	for name in "$FUNC" $(awk -v a="$addr" -v f="$FUNC" \
		'$1 == a && $3 != f && $2 ~ /^[tT]$/ { print $3 }' /proc/kallsyms); do
		if "$FL" fentry "$name" "$FLOBJ" </dev/null >"$TMP/fentry-trial" 2>&1; then
			FE_FUNC=$name
			[ "$name" = "$FUNC" ] ||
				diag "fentry mode: $FUNC is not in BTF; attaching to $name, at the same address ($addr)"
			break
		fi
		FE_WHY="$FE_WHY$name: $(grep '^funclat: ' "$TMP/fentry-trial" | tail -1 | sed 's/^funclat: //'); "
	done
	[ -n "$FE_FUNC" ] || diag "fentry mode: no BTF function at $FUNC's address ($addr): $FE_WHY"
else
	FE_WHY="no $BTF (kernel built without CONFIG_DEBUG_INFO_BTF): fentry/fexit cannot find $FUNC"
	diag "fentry mode: $FE_WHY"
fi

# ---- one run -----------------------------------------------------------------

# setup MODE: attach; prints why on failure (status 1: fail, 2: skip).
FLPID=
setup() {
	case "$1" in
	none) ;;
	kstats-fn)
		ks_try ks-fn start "$FUNC" || return 1 ;;
	kstats-sec)
		[ -n "$SEC_START" ] || { echo "no probe-able section pair"; return 1; }
		ks_try ks-sec start "$SEC_START" end "$SEC_END" || return 1 ;;
	kstats-tp)
		[ -n "$TP_START" ] || { echo "kstats accepts neither tracepoint syntax"; return 2; }
		ks_try ks-tp start "$TP_START" end "$TP_END" || return 1 ;;
	bpf-kprobe | bpf-fentry)
		local kind=${1#bpf-} target=$FUNC i=0
		if [ "$kind" = fentry ]; then
			if [ ! -r "$BTF" ]; then
				echo "$FE_WHY"
				return 2
			fi
			[ -n "$FE_FUNC" ] || { echo "fentry: $FE_WHY"; return 1; }
			target=$FE_FUNC
		fi
		rm -f "$TMP/ctl" "$TMP/funclat.out"
		mkfifo "$TMP/ctl"
		"$FL" "$kind" "$target" "$FLOBJ" <"$TMP/ctl" >"$TMP/funclat.out" 2>&1 &
		FLPID=$!
		exec 4>"$TMP/ctl"
		# Loading takes a few seconds under TCG.
		while ! grep -q '^ready' "$TMP/funclat.out"; do
			if ! kill -0 "$FLPID" 2>/dev/null || [ "$i" -ge 600 ]; then
				exec 4>&-
				kill "$FLPID" 2>/dev/null
				wait "$FLPID"
				FLPID=
				grep -v '^ready' "$TMP/funclat.out" | tail -3
				return 1
			fi
			sleep 0.2
			i=$((i + 1))
		done ;;
	hist)
		echo 'lat u64 lat' >>"$TR/synthetic_events" &&
		echo 'hist:keys=lat.log2' >"$TR/events/synthetic/lat/trigger" &&
		echo "hist:keys=common_pid:ts0=common_timestamp if id == $NR_GETPID" \
			>"$TR/events/raw_syscalls/sys_enter/trigger" &&
		echo "hist:keys=common_pid:lat=common_timestamp-\$ts0:onmatch(raw_syscalls.sys_enter).trace(lat,\$lat) if id == $NR_GETPID" \
			>"$TR/events/raw_syscalls/sys_exit/trigger" ||
			{ teardown hist >/dev/null 2>&1; echo "hist triggers refused"; return 1; } ;;
	*)
		echo "unknown mode"; return 1 ;;
	esac
	return 0
}

# samples MODE: what the mode's histogram counted (details as diag lines
# in the first round).
samples() {
	case "$1" in
	none) echo 0 ;;
	kstats-fn) ks_samples ks-fn ;;
	kstats-sec) ks_samples ks-sec ;;
	kstats-tp) ks_samples ks-tp ;;
	bpf-*)
		# Closing its stdin makes funclat detach and print.
		exec 4>&-
		wait "$FLPID"
		FLRC=$?
		FLPID=
		sed -n 's/^total=//p' "$TMP/funclat.out" | grep . || echo 0 ;;
	hist)
		sed -n 's/^ *Hits: *//p' "$TR/events/synthetic/lat/hist" | head -1 | grep . ||
			echo 0 ;;
	esac
}

# show MODE: its histogram as diag lines.
show() {
	case "$1" in
	kstats-*)
		local node=ks-${1#kstats-}
		grep "^$node " "$CTL" | sed 's/^/# _control: /'
		awk '$3 == "CPUS" { printf "#   avg %8d count %8d p %s\n", $8, $6, $10 }' \
			"$KS/$node" ;;
	bpf-*)
		diag "$1: funclat $(grep '^ready' "$TMP/funclat.out")"
		grep -v '^ready' "$TMP/funclat.out" | sed 's/^/#   /' ;;
	hist)
		grep -v '^#' "$TR/events/synthetic/lat/hist" | grep . | sed 's/^/#   /'
		sed -n 's/^ *Hits: *//p' "$TR/events/raw_syscalls/sys_exit/hist" |
			sed 's/^/#   sys_exit hist hits: /' ;;
	esac
}

teardown() {
	case "$1" in
	kstats-fn) echo "remove ks-fn" >"$CTL" ;;
	kstats-sec) echo "remove ks-sec" >"$CTL" ;;
	kstats-tp) echo "remove ks-tp" >"$CTL" ;;
	hist)
		# Users of a variable or event before what they use.
		echo "!hist:keys=common_pid:lat=common_timestamp-\$ts0:onmatch(raw_syscalls.sys_enter).trace(lat,\$lat) if id == $NR_GETPID" \
			>>"$TR/events/raw_syscalls/sys_exit/trigger"
		echo "!hist:keys=common_pid:ts0=common_timestamp if id == $NR_GETPID" \
			>>"$TR/events/raw_syscalls/sys_enter/trigger"
		echo '!hist:keys=lat.log2' >>"$TR/events/synthetic/lat/trigger"
		echo '!lat u64 lat' >>"$TR/synthetic_events" ;;
	esac
}

# run MODE ROUND: one callbench run under MODE, one PEERS line.
run() {
	local mode=$1 round=$2 why rc out got calls status=ok
	# Not in a $(...) subshell: setup and samples start, talk to and
	# wait for funclat, which must stay this shell's child.
	setup "$mode" >"$TMP/why"
	rc=$?
	# One line: the PEERS line ends with it.
	why=$(sed 's/^# //' "$TMP/why" | tr '\n' ' ' | sed 's/ *$//')
	if [ "$rc" -ne 0 ]; then
		[ "$rc" -eq 2 ] && status=skip || { status=FAIL; fails=$((fails + 1)); }
		echo "PEERS mode=$mode round=$round status=$status why=$why"
		return
	fi
	out=$("$CB" "$N")
	rc=$?
	samples "$mode" >"$TMP/samples"
	got=$(cat "$TMP/samples")
	calls=$(echo "$out" | sed -n 's/.*calls=\([0-9]*\).*/\1/p')
	why=
	if [ "$rc" -ne 0 ] || [ -z "$calls" ]; then
		status=FAIL why="callbench rc=$rc"
	elif [ "$mode" != none ]; then
		# About as many samples as calls: at least 98%, and at most 5%
		# (plus 500) more, for the other system calls the tracepoints
		# see (the shell's, callbench's own start and exit).
		if [ "$got" -lt $((calls * 98 / 100)) ] ||
		   [ "$got" -gt $((calls + calls / 20 + 500)) ]; then
			status=FAIL why="histogram counted $got samples for $calls calls"
		fi
		case "$mode" in
		bpf-*) [ "$FLRC" -eq 0 ] || { status=FAIL why="funclat rc=$FLRC"; } ;;
		esac
	fi
	[ "$round" = 1 ] && [ "$mode" != none ] && show "$mode"
	teardown "$mode"
	[ "$status" = ok ] || fails=$((fails + 1))
	echo "PEERS mode=$mode round=$round ${out#callbench } samples=$got status=$status${why:+ why=$why}"
}

progress "peers: N=$N, $ROUNDS rounds, modes: $MODES"
r=1
while [ "$r" -le "$ROUNDS" ]; do
	for m in $MODES; do
		run none "$r"
		progress "round $r: $m"
		run "$m" "$r"
	done
	r=$((r + 1))
done
run none "$ROUNDS"
progress "peers: done, $fails failed"
[ "$fails" -eq 0 ]
