#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench: the series and the kernel without its kprobe patches, built
# for the QEMU guest and booted with the kprobe_bench kselftest; then the
# tables, out/bench/results/report.md, the raw kstats files and the plots.
#
# The default is the headline (24.5 minutes on 2 host cores from a
# fresh clone with a cold ccache, 2026-12-06): the ftrace, int3 and
# kretprobe paths at N = 1 and 40,000 registered probes, 16 hot probes
# and 4,096 at the largest N, on the series (lookup cache off and on in
# one boot) and on the kernel without the kprobe patches (the series up
# to the benchmark patch: the fixes, kstats and the benchmark module);
# arming 1,000 probes one at a time against in one batch; the mass setup
# of 100 and 1,000 kprobe events through tracefs in both kernels, and on
# the same functions fprobe events (100: each takes 0.1-0.2 s to define
# and to remove under TCG) and one BPF kprobe_multi link in the series'
# boot.  Both kernels use the distribution-like configuration
# (qemu.config plus distro.config: PREEMPT_DYNAMIC, IBT, retpolines,
# return thunks; QEMU's "max" CPU), whose int3 kprobes never boost.
#
# FULL=1 runs the whole sweep instead (hours): N = 0 1 1000 10000 40000,
# H = 1 16 256, the optimized path, the churn section, the enabling time
# at every N, the kernel without the kprobe patches at N = 1 1000 10000
# 40000 and H = 1 16 256, and the series on the plain tinyconfig guest
# (no preemption: int3 kprobes boost) at N = 1 10000 40000.
#
# Knobs, each reaching every boot it applies to (default, then FULL=1's):
#   N           fill probe counts of the series ["1 40000"]
#   H           hot set sizes ["16"; "1 16 256"]
#   PATHS       hit paths ["ftrace int3 kretprobe"; with opt]
#   H_BIG       the big hot set, 0 for none [4096]
#   BIG_N       the N of H_BIG [the largest N of each kernel]
#   BIG_PATHS   the paths of H_BIG [those of PATHS but opt]
#   LOOPS       calls per measurement [48000]
#   ROUNDS      rounds a measurement is split into [3]
#   ENABLE_N    probe counts of the enabling-time section, 0 for none
#               [1000; N]
#   ENABLE_BUDGET  ms of one-at-a-time arming per path and N [8000]
#   CHURN_BATCH fill probes unregistered per batch under load, 0 for
#               none [0; 1000]
#   BASE_N, BASE_H  N and H of the kernel without the kprobe patches,
#               BASE_N=0 skips it [N and H; "1 1000 10000 40000", "1 16 256"]
#   PRE_N       N of the series without its resizable index (the cache
#               alone), which needs a series whose index comes after the
#               cache: this one has none [0: skipped]
#   BOOST_N, BOOST_H  N and H of the plain guest's boot (int3 only),
#               BOOST_N=0 skips it [0; "1 10000 40000"; H "1 16"]
#   MASSETUP_N  event counts of the mass setup, 0 for none ["100 1000"]
#   MASSETUP_FPROBE_MAX  the largest of them set up as fprobe events
#               too [100; the largest MASSETUP_N]
#   BENCH_DISTRO  0: every kernel on the plain tinyconfig guest (no
#               preemption, int3 kprobes boost, QEMU's default CPU)
#               instead of the distribution-like one [1]
#   BENCH_FRAGS extra config fragments for every kernel [none]
#   BENCH_PARALLEL  1: the kernel without the kprobe patches boots while
#               the series builds and boots (QEMU runs single-threaded
#               TCG, one host core per boot); 0: one after the other
#               [1 on 2 or more host cores]
#   BENCH_TREE  1: the developer's tree ($OUT/linux) instead of a fresh
#               application of patches/ [0]
#   BENCH_OUT   the output directory [$OUT/bench]
#   BOOT_TIMEOUT  seconds per boot [5400]
#   QEMU_ICOUNT shift=0,sleep=off counts guest time in guest instructions
#               (see harness/boot.sh); the report's title says so.  Under
#               icount an idle vCPU's timers fire late while the other one
#               runs a long kernel loop, so each grace period of the churn
#               section takes minutes: keep CHURN_BATCH=0.
. "$(dirname "$0")/common.sh"

cc=$(kmake_cc)
B=$(realpath -m "${BENCH_OUT:-$OUT/bench}")
OBJ=$B/build
BOOT=$B/boot

if [ "${FULL:-0}" = 1 ]; then
	N=${N:-0 1 1000 10000 40000}
	H=${H:-1 16 256}
	PATHS=${PATHS:-ftrace int3 opt kretprobe}
	ENABLE_N=${ENABLE_N:-$N}
	CHURN_BATCH=${CHURN_BATCH:-1000}
	BASE_N=${BASE_N:-1 1000 10000 40000}
	BASE_H=${BASE_H:-1 16 256}
	BOOST_N=${BOOST_N:-1 10000 40000}
else
	N=${N:-1 40000}
	H=${H:-16}
	PATHS=${PATHS:-ftrace int3 kretprobe}
	ENABLE_N=${ENABLE_N:-1000}
	CHURN_BATCH=${CHURN_BATCH:-0}
	BASE_N=${BASE_N:-$N}
	BASE_H=${BASE_H:-$H}
	BOOST_N=${BOOST_N:-0}
fi
BOOST_H=${BOOST_H:-1 16}
H_BIG=${H_BIG:-4096}
BIG_PATHS=${BIG_PATHS:-$(echo $PATHS | tr ' ' '\n' | grep -vx opt | xargs)}
LOOPS=${LOOPS:-48000}
ROUNDS=${ROUNDS:-3}
ENABLE_BUDGET=${ENABLE_BUDGET:-8000}
PRE_N=${PRE_N:-0}
MASSETUP_N=${MASSETUP_N:-100 1000}
if [ "${FULL:-0}" = 1 ]; then
	MASSETUP_FPROBE_MAX=${MASSETUP_FPROBE_MAX:-$(echo $MASSETUP_N | tr ' ' '\n' | sort -n | tail -1)}
else
	MASSETUP_FPROBE_MAX=${MASSETUP_FPROBE_MAX:-100}
fi
PARALLEL=${BENCH_PARALLEL:-1}
[ "$(nproc)" -ge 2 ] || PARALLEL=${BENCH_PARALLEL:-0}
FRAGS_EXTRA=()
for f in ${BENCH_FRAGS:-}; do
	[ -f "$f" ] || die "bench: no fragment $f (BENCH_FRAGS)"
	FRAGS_EXTRA+=("$(realpath "$f")")
done
# The churn section hits 16 hot probes: the hot sets must have them.
if [ "$CHURN_BATCH" != 0 ]; then
	for hl in "$H" "$([ "$BASE_N" = 0 ] || echo "$BASE_H")"; do
		[ -n "$hl" ] || continue
		echo " $hl " | grep -q ' 16 ' ||
			die "bench: CHURN_BATCH=$CHURN_BATCH needs 16 in H and BASE_H (the churn section hits 16 hot probes)"
	done
fi
QEMU=$TOP/harness/configs/qemu.config
# The fragments and the QEMU CPU of the benchmark's kernels.
KFRAGS=("$QEMU" "${DISTRO_FRAGS[@]}")
BENCH_CPU=max
if [ "${BENCH_DISTRO:-1}" = 0 ]; then
	KFRAGS=("$QEMU")
	BENCH_CPU=
fi
log "bench: series N '$N' H '$H' PATHS '$PATHS' H_BIG $H_BIG; base N '$BASE_N' H '$BASE_H'; boosted N '$BOOST_N'; enabling N '$ENABLE_N'; mass setup N $MASSETUP_N"

# No boot of an earlier run may reach this run's results.
rm -rf "$B/boot" "$B"/boot-*
if [ "${BENCH_TREE:-0}" = 1 ]; then
	SRC=$LINUX
else
	SRC=$B/src
	"$TOP/harness/apply.sh" "$SRC"
fi

# The preemption model is the one the boot printed (voluntary on 6.12 and
# 6.18, lazy on 7.2, where x86 offers no PREEMPT_NONE or VOLUNTARY).
distro_kernel() {
	local model
	model=$(awk '/Dynamic Preempt: / { sub(/.*Dynamic Preempt: /, ""); sub(/[^a-z].*/, ""); print; exit }' \
		"$1" 2>/dev/null) || true
	echo "distribution-like config (PREEMPT_DYNAMIC ${model:-model not printed}, IBT, retpolines, return thunks, HZ=250), QEMU -cpu max"
}
PLAIN_KERNEL="tinyconfig guest without preemption (int3 kprobes boost), QEMU default CPU"

# build SRC OBJ FRAGMENT...: the guest kernel.  Each tree sits at
# DIR/src and builds in DIR/build (or beside src), so that the compiler
# sees the same relative paths in every tree and ccache (CCACHE_BASEDIR)
# reuses what an earlier tree compiled from the same sources.
build() {
	local src=$1 obj=$2
	shift 2
	mkdir -p "$obj"
	"$TOP/harness/kconfig.sh" "$src" "$obj" "$@" "${FRAGS_EXTRA[@]}"
	log "bench: building $(git -C "$src" log -1 --format='%h (%s)')"
	if [ -n "${BUILD_NICE:-}" ]; then
		# Beside a boot: niced, in a process group of its own whose
		# number hold_build() finds in $B/series-build.pid.
		setsid -w sh -c 'echo $$ >"$1"; shift; exec "$@"' sh "$B/series-build.pid" \
			nice -n "$BUILD_NICE" make -C "$src" O="$obj" ${cc:+"$cc"} -j"$JOBS" all \
			>"$obj/build.log" 2>&1 ||
			{ tail -30 "$obj/build.log"; die "build failed, see $obj/build.log"; }
		rm -f "$B/series-build.pid"
	else
		make -C "$src" O="$obj" ${cc:+"$cc"} -j"$JOBS" all >"$obj/build.log" 2>&1 ||
			{ tail -30 "$obj/build.log"; die "build failed, see $obj/build.log"; }
	fi
	log "bench: built $(git -C "$src" log -1 --format='%h')"
}

# hold_build LOG QEMU_PID: while the kernel in QEMU_PID measures hook
# costs (from its sweep line to "baselines done", and from each "fill
# probes registered" to the next "measured"), the series' build beside it
# is stopped (SIGSTOP to its process group): a compiler on the other host
# core moved the base's p50s by up to a fifth (kretprobe at N = 1: 531 ns
# beside the build, 649 ns alone).  The build goes on while that boot
# loads its module, registers and arms, which is most of its time.  The
# big hot set's measurement, after its silent second fill, is not held:
# by then the build is over.
hold_build() {
	local pidf=$B/series-build.pid line sig
	tail -n +1 -F --pid="$2" "$1" 2>/dev/null | while IFS= read -r line; do
		case $line in
		"# sweep:"* | *"fill probes registered"*) sig=STOP ;;
		*"baselines done" | *": measured"*) sig=CONT ;;
		*) continue ;;
		esac
		[ ! -s "$pidf" ] || kill -"$sig" -- -"$(cat "$pidf")" 2>/dev/null || true
	done
	[ ! -s "$pidf" ] || kill -CONT -- -"$(cat "$pidf")" 2>/dev/null || true
}

# run_bench NAME SRC OBJ BOOT MASSETUP_LINES [VAR=VALUE...]: boot the
# kernel built in OBJ with the kprobe_bench kselftest of SRC, the sweep
# given by the assignments (none: no kselftest); MASSETUP_LINES (a
# string, empty for none) stages the mass setup with those settings.
run_bench() {
	local name=$1 src=$2 obj=$3 boot=$4 ms=$5 extra qemu rc=0 kpb=$(($# > 5))
	shift 5
	rm -rf "$boot"
	extra=$boot/extra/kseries
	mkdir -p "$extra/tests.d"
	if [ "$kpb" = 1 ]; then
		stage_selftests "$src" "$extra/selftests" kprobe_bench
		install -m 0755 "$TOP/harness/guest-bench.sh" "$extra/tests.d/50-kprobe_bench.sh"
		printf '%s\n' "$@" >"$extra/bench.env"
	fi
	if [ -n "$ms" ]; then
		local lines
		mapfile -t lines <<<"$ms"
		"$TOP/harness/massetup/stage.sh" "$extra" 60-massetup.sh "${lines[@]}"
	fi
	"$TOP/harness/initramfs.sh" "$obj" "$src" "$boot/initramfs.cpio" "$boot/extra"
	: >"$boot/results.log"
	log "bench: booting $name"
	"$TOP/harness/boot.sh" "$obj/arch/x86/boot/bzImage" "$boot/initramfs.cpio" \
		"$boot" "${BOOT_TIMEOUT:-5400}" &
	qemu=$!
	[ "$name" != base ] || [ "$PARALLEL" != 1 ] || hold_build "$boot/results.log" "$qemu" &
	# Relay the guest's progress lines while it runs.
	tail -n +1 -F --pid="$qemu" "$boot/results.log" 2>/dev/null |
		grep --line-buffered -E '^# \[|^not ok|^MS ' |
		sed -u "s/^# /  guest ($name): /; s/^\\(not ok\\|MS \\)/  guest ($name): \\1/" >&2 || true
	wait "$qemu" || rc=$?
	[ "$rc" -eq 0 ] || die "bench: QEMU failed (rc $rc), see $boot/console.log"
	[ "$kpb" = 0 ] || grep -q '^### END 50-kprobe_bench.sh rc=0' "$boot/results.log" ||
		die "bench: the benchmark failed on $name, see $boot/results.log"
	[ -z "$ms" ] || grep -q '^### END 60-massetup.sh rc=0' "$boot/results.log" ||
		die "bench: the mass setup failed on $name, see $boot/results.log"
	log "bench: $name done"
}

# The knobs every kernel's kselftest follows (the older kselftests of the
# other kernels default to other paths and loops: give them all).
common=("KPB_H_BIG='$H_BIG'" "KPB_BIG_PATHS='$BIG_PATHS'" "KPB_LOOPS='$LOOPS'"
	"KPB_ROUNDS='$ROUNDS'" "KPB_CHURN_BATCH='$CHURN_BATCH'"
	"KPB_ENABLE_BUDGET='$ENABLE_BUDGET'")
[ -z "${BIG_N:-}" ] || common+=("KPB_BIG_N='$BIG_N'")
# The mass setup's env lines, one per line.
ms_series= ms_base=
if [ "$MASSETUP_N" != 0 ]; then
	ms_series=$(printf "%s\n" "MS_N='$MASSETUP_N'" MS_PEERS=1 "MS_FPROBE_MAX=$MASSETUP_FPROBE_MAX")
	# The peers run the same code in both kernels: measured once.
	ms_base=$(printf "%s\n" "MS_N='$MASSETUP_N'" MS_PEERS=0)
fi

# at_commit DIR GREP: a worktree of SRC at DIR/src, at the parent of the
# commit whose subject matches GREP; prints nothing when there is none.
at_commit() {
	local c
	c=$(git -C "$SRC" log --format=%H --grep="$2" base..HEAD)
	[ -n "$c" ] || return 0
	rm -rf "$1/src"
	git -C "$SRC" worktree prune
	mkdir -p "$1"
	git -C "$SRC" worktree add -q --detach "$1/src" "$c^"
	echo "$1/src"
}

# The kernel without the kprobe patches: the series up to the benchmark,
# the first patch of the kprobes posting.  The pre variant: the series up
# to its resizable index.
BASE_SRC= PRE_SRC=
if [ "$BASE_N" != 0 ]; then
	BASE_SRC=$(at_commit "$B/base" '^x86/kprobes: recognise the single-step int3')
	[ -n "$BASE_SRC" ] || die "bench: no kprobe patch in $SRC"
fi
if [ "$PRE_N" != 0 ]; then
	PRE_SRC=$(at_commit "$B/pre" '^kprobes: look probes up in a resizable index')
	if [ -z "$PRE_SRC" ] || [ ! -f "$PRE_SRC/kernel/kprobe_cache.c" ]; then
		log "bench: PRE_N skipped: no tree of this series has the cache without the index (the cache comes after it)"
		PRE_SRC=
	fi
fi

lane_base() {
	build "$BASE_SRC" "$B/base/build" "${KFRAGS[@]}"
	touch "$B/base/built"
	QEMU_CPU=$BENCH_CPU run_bench base "$BASE_SRC" "$B/base/build" "$B/boot-base" "" \
		"KPB_N='$BASE_N'" "KPB_H='$BASE_H'" "KPB_PATHS='$PATHS'" "${common[@]}"
}

lane_series() {
	build "$SRC" "$OBJ" "${KFRAGS[@]}"
	QEMU_CPU=$BENCH_CPU run_bench series "$SRC" "$OBJ" "$BOOT" "$ms_series" \
		"KPB_N='$N'" "KPB_H='$H'" "KPB_PATHS='$PATHS'" \
		"KPB_ENABLE_N='$ENABLE_N'" "${common[@]}"
	# The mass setup of the kernel without the kprobe patches, in a boot
	# of its own (no benchmark module to load): beside the base's long
	# benchmark boot, not after it.
	if [ -n "$BASE_SRC" ] && [ -n "$ms_base" ]; then
		while [ ! -e "$B/base/built" ]; do
			sleep 2
		done
		QEMU_CPU=$BENCH_CPU run_bench "base (mass setup)" "$BASE_SRC" "$B/base/build" \
			"$B/boot-base-ms" "$ms_base"
	fi
	if [ -n "$PRE_SRC" ]; then
		build "$PRE_SRC" "$B/pre/build" "${KFRAGS[@]}"
		QEMU_CPU=$BENCH_CPU run_bench "the series without the resizable index" \
			"$PRE_SRC" "$B/pre/build" "$B/boot-pre" "" \
			"KPB_N='$PRE_N'" "KPB_H='$H'" "KPB_PATHS='$PATHS'" "${common[@]}"
	fi
	if [ "$BOOST_N" != 0 ]; then
		# With BENCH_DISTRO=0 the series' kernel is the plain guest's.
		bobj=$OBJ
		if [ -n "$BENCH_CPU" ]; then
			bobj=$B/build-boosted
			build "$SRC" "$bobj" "$QEMU"
		fi
		run_bench "the plain guest (boosted int3)" "$SRC" "$bobj" \
			"$B/boot-boosted" "" "KPB_N='$BOOST_N'" "KPB_H='$BOOST_H'" \
			"KPB_H_BIG=0" "KPB_PATHS=int3" "KPB_LOOPS='$LOOPS'" \
			"KPB_ROUNDS='$ROUNDS'" "KPB_ENABLE_BUDGET='$ENABLE_BUDGET'" \
			"KPB_CHURN_BATCH=0"
	fi
}

# The kernel without the kprobe patches boots longest (its module load,
# registrations and arming are the slow ones): it builds first and boots
# while the series builds (at a lower priority) and boots.
rm -f "$B/base/built" "$B/series-build.pid"
if [ -z "$BASE_SRC" ]; then
	lane_series
elif [ "$PARALLEL" = 1 ]; then
	# Each lane in a subshell of its own: a failure (die, set -e) ends
	# that lane, and the other is waited for.
	lane_base &
	base_pid=$!
	while [ ! -e "$B/base/built" ] && kill -0 "$base_pid" 2>/dev/null; do
		sleep 2
	done
	# No kernel without the kprobe patches: nothing to compare with.
	if [ ! -e "$B/base/built" ]; then
		wait "$base_pid" || true
		die "bench: the kernel without the kprobe patches did not build"
	fi
	(BUILD_NICE=19 lane_series) &
	series_pid=$!
	rc=0 base_rc=0
	wait "$series_pid" || rc=$?
	wait "$base_pid" || base_rc=$?
	[ "$rc" -eq 0 ] && [ "$base_rc" -eq 0 ] ||
		die "bench: a lane failed (series rc $rc, base rc $base_rc)"
else
	lane_base
	lane_series
fi

report_args=()
[ -z "$BASE_SRC" ] || report_args+=(--base "$B/results-base" --base-from-results "$B/boot-base/results.log")
[ -z "$PRE_SRC" ] || report_args+=(--pre "$B/results-pre" --pre-from-results "$B/boot-pre/results.log")
[ "$BOOST_N" = 0 ] || report_args+=(--boosted "$B/results-boosted" --boosted-kernel "$PLAIN_KERNEL"
	--boosted-from-results "$B/boot-boosted/results.log")
how=
[ -z "$BASE_SRC" ] || [ "$PARALLEL" != 1 ] ||
	how="; the two kernels booted at the same time, one host core each"

log "bench: report"
sel=$SRC/tools/testing/selftests/kprobe_bench
python3 "$TOP/harness/bench_report.py" "$B/results" --from-results "$BOOT/results.log" \
	--pct "$sel/kstats_pct.awk" --check "${report_args[@]}" \
	--kernel "$(if [ -n "$BENCH_CPU" ]; then distro_kernel "$BOOT/console.log"; else echo "$PLAIN_KERNEL"; fi)" \
	--title "kprobe_bench, QEMU TCG (2 vCPUs)${QEMU_ICOUNT:+, -icount $QEMU_ICOUNT (guest time counts guest instructions)} on $(nproc) host cores$how, $(date -u +%Y-%m-%d)"
cp "$BOOT/results.log" "$BOOT/console.log" "$B/results/"
for v in base base-ms pre boosted; do
	[ -f "$B/boot-$v/results.log" ] || continue
	cp "$B/boot-$v/results.log" "$B/results/results-$v.log"
	cp "$B/boot-$v/console.log" "$B/results/console-$v.log"
done
if [ "$MASSETUP_N" != 0 ]; then
	ms_logs=("series=$BOOT/results.log")
	[ -z "$BASE_SRC" ] || ms_logs+=("without the kprobe patches=$B/boot-base-ms/results.log")
	{
		echo
		echo "## Mass setup"
		echo
		echo "N functions chosen evenly by name among the traceable functions of vmlinux, in the benchmark's boots, after it (harness/massetup/guest-massetup.sh): kprobe events (one write each on one open file, as perf probe writes them; group enable, the syscall loop, group disable, remove all); in the series' boot also fprobe events likewise and one BPF kprobe_multi link on their ftrace addresses; seconds."
		echo
		python3 "$TOP/harness/massetup_report.py" "${ms_logs[@]}"
	} >>"$B/results/report.md" || die "bench: no mass setup figures"
fi
log "bench: done: $B/results/report.md, raw kstats files in $B/results/nodes/"
