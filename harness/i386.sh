#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# i386 build: the series' objects must not call libgcc's 64-bit division
# helpers (the kernel does not link libgcc), and kstats.ko must link.
# Usage: i386.sh SRC OBJ RESULTS
. "$(dirname "$0")/common.sh"

cc=$(kmake_cc)

SRC=$1 OBJ=$2 RES=$3
mkdir -p "$OBJ"

log "i386: configuring and building tinyconfig + kstats, kstats_trace=m"
if ! ARCH=i386 "$TOP/harness/kconfig.sh" "$SRC" "$OBJ" "$TOP/harness/configs/i386.config" \
	>"$OBJ/kconfig.log" 2>&1; then
	cat "$OBJ/kconfig.log" >&2
	rec FAIL "i386: configuration"
	exit 1
fi
if ! make -C "$SRC" O="$OBJ" ARCH=i386 ${cc:+"$cc"} -j"$JOBS" all >"$OBJ/build.log" 2>&1; then
	grep -E 'error|ERROR|undefined' "$OBJ/build.log" | head -20 >&2
	rec FAIL "i386: build and module link" "see $OBJ/build.log"
	exit 1
fi
rec PASS "i386: build and module link (lib/kstats.ko, lib/kstats_trace.ko)"

bad=
for o in $(cd "$OBJ" && find lib kernel -name '*kstats*.o' ! -name '*.mod.o'); do
	calls=$(nm -u "$OBJ/$o" | grep -E '__(u?div|u?mod|udivmod|divmod)di[34]' || true)
	[ -z "$calls" ] || { bad=1; log "i386: $o calls $calls"; }
done
if [ -n "$bad" ]; then
	rec FAIL "i386: no libgcc 64-bit division calls"
	exit 1
fi
rec PASS "i386: no libgcc 64-bit division calls"
