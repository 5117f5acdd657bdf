#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench: the series applied and built for the QEMU guest, booted, and
# the kprobe_bench kselftest run with the default sweep; then the table,
# out/bench/results/report.md, the raw kstats files and the plots.
#
# The main kernel is the distribution-like one (qemu.config plus
# distro.config: PREEMPT_DYNAMIC, IBT, retpolines, return thunks; QEMU's
# "max" CPU), whose int3 kprobes never boost.  N="0 1000" H="1 16"
# PATHS="ftrace int3" LOOPS=... ROUNDS=... H_BIG=... (0: none) BIG_N=...
# (the N of H_BIG, default the last) BIG_PATHS=... (the paths of H_BIG,
# default ftrace int3 kretprobe) choose another sweep;
# ENABLE_N the probe counts of the enabling-time section (default: N;
# registering 40,000 int3 probes alone takes over 20 minutes under TCG,
# hence the 90-minute default BOOT_TIMEOUT of each boot).
# BENCH_TREE=1 runs the developer's tree ($OUT/linux) instead of a fresh
# application of patches/.  After the benchmark, the series' boot and the
# base's run the mass setup of make massetup (kprobe events, fprobe
# events and one BPF kprobe_multi link on the same functions) at N =
# MASSETUP_N [1000]; MASSETUP_N=0 skips it.
#
# More boots, each with the same configuration unless said otherwise:
# the kernel without the kprobe patches (the series up to the benchmark
# patch), N = BASE_N ["1 1000 10000 40000"], H = BASE_H ["1 16 256"] and
# 4096 at the last N, BASE_N=0 skips it; the series without the resizable
# kprobe index (the cache alone), only with N = PRE_N set, which needs a
# series whose index comes after the cache (this one has none); and
# the series on the plain tinyconfig guest (no preemption, so int3
# kprobes boost), int3 path only, N = BOOST_N ["1 10000 40000"], H =
# BOOST_H ["1 16"], BOOST_N=0 skips it.
#
# QEMU_ICOUNT=shift=0,sleep=off runs every boot with guest time counted
# in guest instructions (see harness/boot.sh); the report's title says so.
# Under icount an idle vCPU's timers fire late while the other one runs
# a long kernel loop (RCU stalls of 20 s of guest time during the 40,000
# registrations), so each grace period of the churn section takes
# minutes: CHURN_BATCH=0 skips that section.
. "$(dirname "$0")/common.sh"

cc=$(kmake_cc)
B=$(realpath -m "${BENCH_OUT:-$OUT/bench}")
OBJ=$B/build
BOOT=$B/boot
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

# build SRC OBJ FRAGMENT...: the guest kernel.
build() {
	local src=$1 obj=$2
	shift 2
	mkdir -p "$obj"
	"$TOP/harness/kconfig.sh" "$src" "$obj" "$@"
	set -- "$src" "$obj"
	log "bench: building $(git -C "$1" log -1 --format='%h (%s)')"
	make -C "$1" O="$2" ${cc:+"$cc"} -j"$JOBS" all >"$2/build.log" 2>&1 ||
		{ tail -30 "$2/build.log"; die "build failed, see $2/build.log"; }
	log "bench: built"
}
QEMU=$TOP/harness/configs/qemu.config
build "$SRC" "$OBJ" "$QEMU" "${DISTRO_FRAGS[@]}"

# run_bench SRC OBJ BOOT [VAR=VALUE...]: boot the kernel built in OBJ with
# the kprobe_bench kselftest of SRC, the sweep given by the assignments.
run_bench() {
	local src=$1 obj=$2 boot=$3 extra qemu rc=0
	shift 3
	rm -rf "$boot"
	extra=$boot/extra/kseries
	mkdir -p "$extra/tests.d"
	stage_selftests "$src" "$extra/selftests" kprobe_bench
	install -m 0755 "$TOP/harness/guest-bench.sh" "$extra/tests.d/50-kprobe_bench.sh"
	printf '%s\n' "$@" >"$extra/bench.env"
	[ -z "$massetup" ] ||
		"$TOP/harness/massetup/stage.sh" "$extra" 60-massetup.sh "MS_N='$massetup'" \
			"MS_PEERS='1'" "MS_FPROBE_MAX='$massetup'"
	"$TOP/harness/initramfs.sh" "$obj" "$src" "$boot/initramfs.cpio" "$boot/extra"
	: >"$boot/results.log"
	"$TOP/harness/boot.sh" "$obj/arch/x86/boot/bzImage" "$boot/initramfs.cpio" \
		"$boot" "${BOOT_TIMEOUT:-5400}" &
	qemu=$!
	# Relay the guest's progress lines while it runs.
	tail -n +1 -F --pid="$qemu" "$boot/results.log" 2>/dev/null |
		grep --line-buffered -E '^# \[|^not ok' | sed -u 's/^# /  guest: /' >&2 || true
	wait "$qemu" || rc=$?
	[ "$rc" -eq 0 ] || die "bench: QEMU failed (rc $rc), see $boot/console.log"
	grep -q '^### END 50-kprobe_bench.sh rc=0' "$boot/results.log" ||
		die "bench: the benchmark failed, see $boot/results.log"
	[ -z "$massetup" ] || grep -q '^### END 60-massetup.sh rc=0' "$boot/results.log" ||
		die "bench: the mass setup failed, see $boot/results.log"
}
# The N of the mass setup, empty for none; massetup is what run_bench stages.
ms_n=${MASSETUP_N:-1000}
[ "$ms_n" != 0 ] || ms_n=
massetup=$ms_n

sweep=()
[ -n "${N:-}" ] && sweep+=("KPB_N='$N'")
[ -n "${H:-}" ] && sweep+=("KPB_H='$H'")
[ -n "${H_BIG:-}" ] && sweep+=("KPB_H_BIG='$H_BIG'")
[ -n "${BIG_N:-}" ] && sweep+=("KPB_BIG_N='$BIG_N'")
[ -n "${BIG_PATHS:-}" ] && sweep+=("KPB_BIG_PATHS='$BIG_PATHS'")
[ -n "${PATHS:-}" ] && sweep+=("KPB_PATHS='$PATHS'")
[ -n "${LOOPS:-}" ] && sweep+=("KPB_LOOPS='$LOOPS'")
[ -n "${ROUNDS:-}" ] && sweep+=("KPB_ROUNDS='$ROUNDS'")
[ -n "${ENABLE_BUDGET:-}" ] && sweep+=("KPB_ENABLE_BUDGET='$ENABLE_BUDGET'")
[ -n "${ENABLE_N:-}" ] && sweep+=("KPB_ENABLE_N='$ENABLE_N'")
[ -n "${CHURN_BATCH:-}" ] && sweep+=("KPB_CHURN_BATCH='$CHURN_BATCH'")
log "bench: booting the series"
QEMU_CPU=max run_bench "$SRC" "$OBJ" "$BOOT" "${sweep[@]}"

# at_commit NAME GREP: a worktree of SRC at the parent of the commit whose
# subject matches GREP, in $B/src-NAME; prints nothing when there is none.
at_commit() {
	local c
	c=$(git -C "$SRC" log --format=%H --grep="$2" base..HEAD)
	[ -n "$c" ] || return 0
	rm -rf "$B/src-$1"
	git -C "$SRC" worktree prune
	git -C "$SRC" worktree add -q --detach "$B/src-$1" "$c^"
	echo "$B/src-$1"
}

# variant NAME GREP N H WHAT: the series up to the commit before the one
# whose subject matches GREP, same configuration, booted with the ftrace,
# int3 and kretprobe paths; its results go to the report as --NAME.
# Returns 1 when no subject matches.
VARIANT_N="1 1000 10000 40000"
# The calls per point of the other boots: the kselftest's own default,
# given explicitly because the variants run older kselftests, whose
# default was 20,000.
OTHER_LOOPS=${LOOPS:-48000}
variants=()
# The big hot set as the series' boot measures it (H_BIG, BIG_PATHS: the
# older kselftests default to other paths), the rounds and the churn, so
# that every row of the report has every kernel.
variant_knobs=("KPB_BIG_PATHS='${BIG_PATHS:-ftrace int3 kretprobe}'")
[ -n "${H_BIG:-}" ] && variant_knobs+=("KPB_H_BIG='$H_BIG'")
[ -n "${ROUNDS:-}" ] && variant_knobs+=("KPB_ROUNDS='$ROUNDS'")
[ -n "${CHURN_BATCH:-}" ] && variant_knobs+=("KPB_CHURN_BATCH='$CHURN_BATCH'")
variant() {
	local src
	src=$(at_commit "$1" "$2")
	[ -n "$src" ] || return 1
	build "$src" "$B/build-$1" "$QEMU" "${DISTRO_FRAGS[@]}"
	log "bench: booting $5"
	QEMU_CPU=max run_bench "$src" "$B/build-$1" "$B/boot-$1" \
		"KPB_N='$3'" "KPB_H='$4'" "KPB_PATHS='ftrace int3 kretprobe'" \
		"KPB_LOOPS='$OTHER_LOOPS'" "KPB_ENABLE_BUDGET=2000" "${variant_knobs[@]}"
	variants+=("$1")
}

# The kernel without the kprobe patches: the series up to the benchmark,
# the first patch of the kprobes posting (the fixes, kstats and the
# benchmark module).  BASE_N, BASE_H choose the sweep; BASE_N=0 skips it.
if [ "${BASE_N:-$VARIANT_N}" != 0 ]; then
	variant base '^x86/kprobes: recognise the single-step int3' \
		"${BASE_N:-$VARIANT_N}" "${BASE_H:-1 16 256}" "the base" ||
		die "bench: no kprobe patch in $SRC"
fi

# The lookup cache alone, in front of the 64 hash chains: no tree of the
# series has it since the cache follows the index, so this runs only
# with PRE_N set, on a series whose index comes last.
if [ "${PRE_N:-0}" != 0 ]; then
	variant pre '^kprobes: look probes up in a resizable index' \
		"$PRE_N" "1 16 256" \
		"the series without the resizable index" || true
fi

# The series on the plain guest: int3 kprobes boost there.
boost_args=()
if [ "${BOOST_N:-1 10000 40000}" != 0 ]; then
	massetup=
	build "$SRC" "$B/build-boosted" "$QEMU"
	log "bench: booting the series without preemption (boosted int3)"
	run_bench "$SRC" "$B/build-boosted" "$B/boot-boosted" \
		"KPB_N='${BOOST_N:-1 10000 40000}'" "KPB_H='${BOOST_H:-1 16}'" \
		"KPB_H_BIG=0" "KPB_PATHS=int3" "KPB_LOOPS='$OTHER_LOOPS'" \
		"KPB_ENABLE_BUDGET=2000"
	boost_args=(--boosted "$B/results-boosted" --boosted-kernel "$PLAIN_KERNEL"
		--boosted-from-results "$B/boot-boosted/results.log")
fi

report_args=()
for v in "${variants[@]}"; do
	report_args+=("--$v" "$B/results-$v" "--$v-from-results" "$B/boot-$v/results.log")
done

log "bench: report"
sel=$SRC/tools/testing/selftests/kprobe_bench
python3 "$TOP/harness/bench_report.py" "$B/results" --from-results "$BOOT/results.log" \
	--pct "$sel/kstats_pct.awk" --check "${report_args[@]}" "${boost_args[@]}" \
	--kernel "$(distro_kernel "$BOOT/console.log")" --title "kprobe_bench, QEMU TCG (2 vCPUs)${QEMU_ICOUNT:+, -icount $QEMU_ICOUNT (guest time counts guest instructions)} on $(nproc) host cores, $(date -u +%Y-%m-%d)"
cp "$BOOT/results.log" "$BOOT/console.log" "$B/results/"
for v in "${variants[@]}"; do
	cp "$B/boot-$v/results.log" "$B/results/results-$v.log"
	cp "$B/boot-$v/console.log" "$B/results/console-$v.log"
done
if [ ${#boost_args[@]} -gt 0 ]; then
	cp "$B/boot-boosted/results.log" "$B/results/results-boosted.log"
	cp "$B/boot-boosted/console.log" "$B/results/console-boosted.log"
fi
if [ -n "$ms_n" ]; then
	ms_logs=("series=$BOOT/results.log")
	for v in "${variants[@]}"; do
		[ "$v" = base ] && ms_logs+=("without the kprobe patches=$B/boot-$v/results.log")
	done
	{
		echo
		echo "## Mass setup"
		echo
		echo "N functions chosen evenly by name among the traceable functions of vmlinux, in the benchmark's boots, after it (harness/massetup/guest-massetup.sh): kprobe events (one write each on one open file, as perf probe writes them; group enable, the syscall loop, group disable, remove all), fprobe events likewise, one BPF kprobe_multi link on their ftrace addresses; seconds."
		echo
		python3 "$TOP/harness/massetup_report.py" "${ms_logs[@]}"
	} >>"$B/results/report.md" || die "bench: no mass setup figures"
fi
log "bench: done: $B/results/report.md, raw kstats files in $B/results/nodes/"
