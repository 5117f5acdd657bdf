#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make stress: the series applied and built with the debug config (KASAN,
# lockdep, kmemleak) on the distribution-like config, booted with full
# preemption, with the full kprobe cache stress run (STRESS_SECONDS,
# default 300) after the KUnit suites.  KCSAN=1: the data-race detector
# (harness/configs/kcsan.config) instead of KASAN, lockdep and kmemleak,
# in $OUT/stress-kcsan; every KCSAN report in the console is listed and
# counted as a failure.
. "$(dirname "$0")/common.sh"

cc=$(kmake_cc)
if [ "${KCSAN:-0}" = 1 ]; then
	ST=$OUT/stress-kcsan
	DEBUG_FRAG=$TOP/harness/configs/kcsan.config
else
	ST=$OUT/stress
	DEBUG_FRAG=$TOP/harness/configs/debug.config
fi
SRC=$ST/src
OBJ=$ST/build
RES=$ST/results.txt
export STRESS_SECONDS=${STRESS_SECONDS:-300}
mkdir -p "$OBJ"
: >"$RES"
"$TOP/harness/apply.sh" "$SRC"
"$TOP/harness/kconfig.sh" "$SRC" "$OBJ" "$TOP/harness/configs/qemu.config" \
	"${DISTRO_FRAGS[@]}" "$DEBUG_FRAG" "$TOP/harness/configs/stress.config"
log "stress: building the debug kernel"
make -C "$SRC" O="$OBJ" ${cc:+"$cc"} -j"$JOBS" all >"$OBJ/build.log" 2>&1 ||
	{ tail -30 "$OBJ/build.log"; die "build failed, see $OBJ/build.log"; }
log "stress: booting, $STRESS_SECONDS s of stress"
QEMU_CPU=max KSERIES_APPEND=preempt=full \
	"$TOP/harness/runtests.sh" "$SRC" "$OBJ" "$ST/boot" "$RES" stress
grep -h 'test_kprobe_cache:' "$ST/boot/console.log" | sed 's/^\[[^]]*\] //' || true
if [ "${KCSAN:-0}" = 1 ]; then
	k=$(grep -c 'BUG: KCSAN:' "$ST/boot/console.log" || true)
	grep -h -A3 'BUG: KCSAN:' "$ST/boot/console.log" | sed 's/^\[[^]]*\] //' || true
	if [ "$k" -eq 0 ]; then
		echo "PASS stress: no KCSAN report" >>"$RES"
	else
		echo "FAIL stress: $k KCSAN reports (see $ST/boot/console.log)" >>"$RES"
	fi
fi
p=$(grep -c '^PASS ' "$RES" || true)
f=$(grep -c '^FAIL ' "$RES" || true)
grep '^FAIL ' "$RES" || true
echo "$p passed, $f failed"
[ "$f" -eq 0 ]
