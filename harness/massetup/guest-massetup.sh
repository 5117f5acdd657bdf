#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest side of harness/massetup.sh (installed as a tests.d script): mass
# setup of kprobe events the way a user does it.  For each N of MS_N:
# N kprobe events on N kernel functions chosen evenly by name among the
# traceable functions of vmlinux (one name each, not on the kprobe
# blacklist), then, timed:
#
#   define-shell  a shell loop writing the definitions, one echo >> each,
#             to a file in tmpfs: what a shell script pays on top of
#             define (its loop, an open and a close per line)
#   define    "p:ms/eK FUNC" for each function, written to kprobe_events
#             by evdefine: one write each on one open file, as perf probe
#             writes them (and define-first-half: its first half)
#   idle      MS_LOOP reads of /proc/self/stat, no event enabled
#   enable    echo 1 > events/ms/enable
#   armed     the same loop with every event enabled
#   disable   echo 0 > events/ms/enable
#   remove    echo > kprobe_events
#
# Then the peers, on the same functions: fprobe events ("f:msf/fK FUNC"
# in dynamic_events; phases fprobe-define, -enable, -armed, -disable,
# -remove, the last by "echo > dynamic_events"), for N up to
# MS_FPROBE_MAX only (their definition and removal grow faster than N),
# and one BPF kprobe_multi link on the functions' ftrace addresses
# (kmulti: kmulti-attach, -armed, -detach, and loop-forked, the same
# loop run as a command with nothing attached).
# MS_PEERS=0 skips them; each is skipped, with a line saying so, where
# the kernel lacks it.
#
# One line per phase: "MS n=N phase=P s=SECONDS [events=E refused=R]";
# the armed phases also say how many events the loop wrote (hits=).
# With MS_PROFILE=1, kstats (kstats/_control, function mode) times the
# functions of MS_FUNCS during every phase; after each phase one line per
# function: "MSF n=N phase=P fn=F count=C total_ms=T" (from the CPUS lines
# of its histogram), and the histograms are reset.
# MS_ON_MODULE=1 puts the events on that module's functions.
# MS_MODULE names a module loaded first ("MS module=M load_s=T symbols=S":
# how long modprobe took and how many symbols it added to kallsyms; with
# MS_PROFILE=1 the profile of the load is dumped as phase "module-load").
# Settings: /kseries/massetup/massetup.env.
E=/kseries/massetup/massetup.env
[ -f "$E" ] && . "$E"
NS=${MS_N:-1000}
LOOP=${MS_LOOP:-2000}
PROFILE=${MS_PROFILE:-0}
PEERS=${MS_PEERS:-1}
FMAX=${MS_FPROBE_MAX:-2000}
KM=/kseries/massetup
FUNCS=${MS_FUNCS:-register_kprobe unregister_kprobes enable_kprobe disable_kprobe
	kallsyms_lookup_size_offset kallsyms_lookup_name within_kprobe_blacklist
	jump_label_text_reserved static_call_text_reserved is_cfi_preamble_symbol
	arch_prepare_kprobe check_ftrace_location ftrace_location
	ftrace_set_filter_ips synchronize_rcu text_poke_bp text_poke_finish
	register_trace_kprobe unregister_trace_kprobe trace_probe_register_event_call
	trace_remove_event_call kprobe_register enable_trace_kprobe
	disable_trace_kprobe number_of_same_symbols find_trace_event_call
	__ftrace_event_enable_disable dyn_events_release_all}
T=/sys/kernel/tracing
K=/sys/kernel/debug/kstats
W=/tmp/massetup
mkdir -p "$W"

# hundredths of a second since boot
now() { read -r up _ </proc/uptime; echo "${up%.*}${up#*.}"; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b - a) / 100 }'; }

loop() {
	i=0
	while [ "$i" -lt "$LOOP" ]; do
		read -r _ </proc/self/stat
		i=$((i + 1))
	done
}

# written: the events written to the trace buffer since it was last
# cleared (kept and overwritten), over every CPU: the hits of the armed
# kprobe or fprobe events.
written() {
	cat "$T"/per_cpu/cpu*/stats |
		awk '$1 == "entries:" || $1 == "overrun:" { n += $2 } END { print n + 0 }'
}

profile_on() {
	[ "$PROFILE" = 1 ] || return 0
	[ -w "$K/_control" ] || modprobe kstats_trace 2>/dev/null
	for f in $FUNCS; do
		echo "trace $f" >"$K/_control" 2>/dev/null ||
			echo "MSF-skip fn=$f"
	done
}

profile_dump() {
	[ "$PROFILE" = 1 ] || return 0
	for f in $FUNCS; do
		[ -f "$K/$f" ] || continue
		awk -v n="$1" -v p="$2" -v f="$f" '$3 == "CPUS" { c += $6; t += $6 * $8 }
			END { if (c) printf "MSF n=%s phase=%s fn=%s count=%d total_ms=%.1f\n", n, p, f, c, t / 1e6 }' "$K/$f"
		echo reset >"$K/$f"
	done
}

profile_off() {
	[ "$PROFILE" = 1 ] || return 0
	for f in $FUNCS; do
		[ -f "$K/$f" ] && echo "remove $f" >"$K/_control"
	done
}

profile_on
if [ -n "${MS_MODULE:-}" ]; then
	t=$(now)
	if modprobe "$MS_MODULE"; then
		s=$(secs "$t" "$(now)")
		echo "MS module=$MS_MODULE load_s=$s symbols=$(grep -c "\[$MS_MODULE\]\$" /proc/kallsyms)"
		profile_dump 0 module-load
	else
		echo "MS module=$MS_MODULE skipped=modprobe-failed"
	fi
fi

# The candidates: vmlinux functions (no "[module]"), each name once, plain
# identifiers, not blacklisted; with MS_ON_MODULE=1, the functions of
# MS_MODULE instead, named "module:function" (and no peers).
mod=
if [ "${MS_ON_MODULE:-0}" = 1 ] && [ -n "${MS_MODULE:-}" ]; then
	mod=$(echo "$MS_MODULE" | tr - _)
	PEERS=0
fi
awk -v m="${mod:+[$mod]}" '(m == "" && NF == 1) || (m != "" && NF == 2 && $2 == m) { print $1 }' \
	"$T/available_filter_functions" | grep -E '^[A-Za-z_][A-Za-z0-9_]*$' |
	sort | uniq -u >"$W/all"
awk '{ print $2 }' /sys/kernel/debug/kprobes/blacklist | sort -u >"$W/black"
awk -v p="${mod:+$mod:}" 'NR == FNR { b[$1]; next } !($1 in b) { print p $1 }' \
	"$W/black" "$W/all" >"$W/cand"
total=$(wc -l <"$W/cand")
echo "MS candidates=$total"

phase() { # N PHASE T0 [extra]
	echo "MS n=$1 phase=$2 s=$(secs "$3" "$(now)")${4:+ $4}"
	profile_dump "$1" "$2"
}

# define N PHASE FILE [f]: the definitions of $W/defs ($W/fdefs with f)
# written to FILE by evdefine, one write each on one open file, as perf
# probe writes them; a line for the phase and one for its first half.
define() {
	"$KM/evdefine" "$3" "$W/${4:-}defs" >"$W/ed" || return 1
	awk -v n="$1" -v p="$2" '{
		for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		printf "MS n=%s phase=%s-first-half s=%s\n", n, p, v["first_half_s"]
		printf "MS n=%s phase=%s s=%s events=%s refused=%s%s\n", n, p, v["s"],
			v["events"], v["refused"], v["errno"] == "" ? "" : " first_errno=" v["errno"]
	}' "$W/ed"
	profile_dump "$1" "$2"
}

# armed_loop N PHASE [extra]: the loop timed with the events armed, then
# the events it wrote counted.
armed_loop() {
	echo >"$T/trace"
	t=$(now)
	loop
	s=$(secs "$t" "$(now)")
	echo "MS n=$1 phase=$2 s=$s${3:+ $3} hits=$(written)"
	profile_dump "$1" "$2"
}

# fprobe events on the functions of $W/list (N up to MS_FPROBE_MAX).
fprobe_events() { # N
	if ! grep -q 'f\[:' "$T/README"; then
		echo "MS n=$1 peer=fprobe skipped=no-fprobe-events"
		return 0
	fi
	if [ "$1" -gt "$FMAX" ]; then
		echo "MS n=$1 peer=fprobe skipped=above-MS_FPROBE_MAX-$FMAX"
		return 0
	fi
	awk '{ printf "f:msf/f%d %s\n", NR - 1, $1 }' "$W/list" >"$W/fdefs"
	define "$1" fprobe-define "$T/dynamic_events" f || return 1
	t=$(now)
	echo 1 >"$T/events/msf/enable" || return 1
	phase "$1" fprobe-enable "$t"
	armed_loop "$1" fprobe-armed
	t=$(now)
	echo 0 >"$T/events/msf/enable" || return 1
	phase "$1" fprobe-disable "$t"
	t=$(now)
	echo >"$T/dynamic_events" || return 1
	phase "$1" fprobe-remove "$t"
	[ ! -d "$T/events/msf" ] || { echo "MS n=$1 fprobe events left"; return 1; }
}

# One BPF kprobe_multi link on the ftrace addresses of $W/list's functions.
kprobe_multi() { # N
	if [ ! -x "$KM/kmulti" ] || [ ! -f "$T/available_filter_functions_addrs" ]; then
		echo "MS n=$1 peer=kprobe_multi skipped=no-kmulti-or-addrs"
		return 0
	fi
	# kprobe_multi links need the bpf() syscall (its filesystem says so)
	# and fprobe.
	if ! grep -qw bpf /proc/filesystems || ! grep -q 'f\[:' "$T/README"; then
		echo "MS n=$1 peer=kprobe_multi skipped=no-bpf-or-fprobe"
		return 0
	fi
	awk 'NR == FNR { want[$1]; next } NF == 2 && ($2 in want) { print $1 }' \
		"$W/list" "$T/available_filter_functions_addrs" >"$W/addrs"
	t=$(now); "$KM/loop.sh" "$LOOP"; phase "$1" loop-forked "$t"
	"$KM/kmulti" "$KM/kmulti.bpf.o" "$W/addrs" "$KM/loop.sh" "$LOOP" >"$W/km" ||
		return 1
	awk -v n="$1" '{
		for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		printf "MS n=%s phase=kmulti-attach s=%s functions=%s\n", n, v["attach_s"], v["n"]
		printf "MS n=%s phase=kmulti-armed s=%s hits=%s\n", n, v["armed_s"], v["hits"]
		printf "MS n=%s phase=kmulti-detach s=%s\n", n, v["detach_s"]
	}' "$W/km"
}

rc=0

for n in $NS; do
	[ "$n" -le "$total" ] || n=$total
	awk -v n="$n" -v m="$total" 'int(NR * n / m) != int((NR - 1) * n / m)' \
		"$W/cand" >"$W/list"
	echo >"$T/kprobe_events"
	t=$(now)
	k=0
	while read -r f; do
		echo "p:ms/e$k $f" >>"$W/shell.out"
		k=$((k + 1))
	done <"$W/list"
	echo "MS n=$n phase=define-shell s=$(secs "$t" "$(now)")"
	rm -f "$W/shell.out"
	awk '{ printf "p:ms/e%d %s\n", NR - 1, $1 }' "$W/list" >"$W/defs"
	profile_dump "$n" setup >/dev/null
	define "$n" define "$T/kprobe_events" || rc=1
	t=$(now); loop; phase "$n" idle "$t"
	t=$(now)
	echo 1 >"$T/events/ms/enable" || rc=1
	phase "$n" enable "$t"
	on=$(grep -c . /sys/kernel/debug/kprobes/list)
	armed=$(grep -vc DISABLED /sys/kernel/debug/kprobes/list)
	armed_loop "$n" armed "probes_listed=$on armed=$armed"
	t=$(now)
	echo 0 >"$T/events/ms/enable" || rc=1
	phase "$n" disable "$t" "armed=$(grep -vc DISABLED /sys/kernel/debug/kprobes/list)"
	t=$(now)
	echo >"$T/kprobe_events" || rc=1
	phase "$n" remove "$t"
	left=$(grep -c . /sys/kernel/debug/kprobes/list)
	echo "MS n=$n left=$left"
	[ "$PEERS" = 1 ] || continue
	fprobe_events "$n" || rc=1
	kprobe_multi "$n" || rc=1
done
profile_off
exit $rc
