#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make stress: the series applied and built with the debug config (KASAN,
# lockdep, kmemleak) on the distribution-like config, booted with full
# preemption, with the full kprobe cache stress run (STRESS_SECONDS,
# default 300) after the KUnit suites.
. "$(dirname "$0")/common.sh"

cc=$(kmake_cc)
SRC=$OUT/stress/src
OBJ=$OUT/stress/build
RES=$OUT/stress/results.txt
export STRESS_SECONDS=${STRESS_SECONDS:-300}
mkdir -p "$OBJ"
: >"$RES"
"$TOP/harness/apply.sh" "$SRC"
"$TOP/harness/kconfig.sh" "$SRC" "$OBJ" "$TOP/harness/configs/qemu.config" \
	"${DISTRO_FRAGS[@]}" "$TOP/harness/configs/debug.config"
log "stress: building the debug kernel"
make -C "$SRC" O="$OBJ" ${cc:+"$cc"} -j"$JOBS" all >"$OBJ/build.log" 2>&1 ||
	{ tail -30 "$OBJ/build.log"; die "build failed, see $OBJ/build.log"; }
log "stress: booting, $STRESS_SECONDS s of stress"
QEMU_CPU=max KSERIES_APPEND=preempt=full \
	"$TOP/harness/runtests.sh" "$SRC" "$OBJ" "$OUT/stress/boot" "$RES" stress
grep -h 'test_kprobe_cache:' "$OUT/stress/boot/console.log" | sed 's/^\[[^]]*\] //' || true
p=$(grep -c '^PASS ' "$RES" || true)
f=$(grep -c '^FAIL ' "$RES" || true)
grep '^FAIL ' "$RES" || true
echo "$p passed, $f failed"
[ "$f" -eq 0 ]
