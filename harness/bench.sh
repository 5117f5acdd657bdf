#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench: the series applied and built for the QEMU guest, booted, and
# the kprobe_bench kselftest run with the default sweep; then the table,
# out/bench/report.md, the raw kstats files and the plots.
#
# N="0 1000" H="1 16" PATHS="ftrace int3" LOOPS=... H_BIG=... (0: none) choose another
# sweep.  BENCH_TREE=1 runs the developer's tree ($OUT/linux) instead of a
# fresh application of patches/.
. "$(dirname "$0")/common.sh"

cc=$(kmake_cc)
B=${BENCH_OUT:-$OUT/bench}
OBJ=$B/build
BOOT=$B/boot
mkdir -p "$OBJ"
if [ "${BENCH_TREE:-0}" = 1 ]; then
	SRC=$LINUX
else
	SRC=$B/src
	"$TOP/harness/apply.sh" "$SRC"
fi
"$TOP/harness/kconfig.sh" "$SRC" "$OBJ" "$TOP/harness/configs/qemu.config"
log "bench: building $(git -C "$SRC" describe --always --dirty)"
make -C "$SRC" O="$OBJ" ${cc:+"$cc"} -j"$JOBS" all >"$OBJ/build.log" 2>&1 ||
	{ tail -30 "$OBJ/build.log"; die "build failed, see $OBJ/build.log"; }
log "bench: built"

# The guest runs the series' selftest through a tests.d wrapper.
rm -rf "$BOOT"
sel=$SRC/tools/testing/selftests/kprobe_bench
extra=$BOOT/extra/kseries
mkdir -p "$extra/tests.d"
stage_selftests "$SRC" "$extra/selftests" kprobe_bench
install -m 0755 "$TOP/harness/guest-bench.sh" "$extra/tests.d/50-kprobe_bench.sh"
{
	[ -n "${N:-}" ] && echo "KPB_N='$N'"
	[ -n "${H:-}" ] && echo "KPB_H='$H'"
	[ -n "${H_BIG:-}" ] && echo "KPB_H_BIG='$H_BIG'"
	[ -n "${PATHS:-}" ] && echo "KPB_PATHS='$PATHS'"
	[ -n "${LOOPS:-}" ] && echo "KPB_LOOPS='$LOOPS'"
	[ -n "${ENABLE_BUDGET:-}" ] && echo "KPB_ENABLE_BUDGET='$ENABLE_BUDGET'"
	true
} >"$extra/bench.env"
"$TOP/harness/initramfs.sh" "$OBJ" "$SRC" "$BOOT/initramfs.cpio" "$BOOT/extra"

# Boot, and relay the guest's progress lines while it runs.
: >"$BOOT/results.log"
"$TOP/harness/boot.sh" "$OBJ/arch/x86/boot/bzImage" "$BOOT/initramfs.cpio" \
	"$BOOT" "${BOOT_TIMEOUT:-1800}" &
qemu=$!
tail -n +1 -F --pid="$qemu" "$BOOT/results.log" 2>/dev/null |
	grep --line-buffered -E '^# \[|^not ok' | sed -u 's/^# /  guest: /' >&2 || true
rc=0
wait "$qemu" || rc=$?
[ "$rc" -eq 0 ] || die "bench: QEMU failed (rc $rc), see $BOOT/console.log"
grep -q '^### END 50-kprobe_bench.sh rc=0' "$BOOT/results.log" ||
	die "bench: the benchmark failed, see $BOOT/results.log"

log "bench: report"
python3 "$TOP/harness/bench_report.py" "$B/results" --from-results "$BOOT/results.log" \
	--pct "$sel/kstats_pct.awk" --check \
	--title "kprobe_bench, QEMU TCG (2 vCPUs) on $(nproc) host cores, $(date -u +%Y-%m-%d)"
cp "$BOOT/results.log" "$BOOT/console.log" "$B/results/"
log "bench: done: $B/results/report.md, raw kstats files in $B/results/nodes/"
