#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# i386: the series' objects that a 32-bit x86 kernel builds must not call
# libgcc's 64-bit division helpers (the kernel does not link libgcc).
# Compiled, not linked: the objects that an ARCH=i386 tinyconfig with
# kstats builds from the series' C files (I386_OBJS), in one make, and
# "nm -u" on each.  A full i386 build (vmlinux and the modules' link)
# cost 205 CPU-seconds cold here for the same verdict on the same
# objects; I386_FULL=1 builds and links it all, as before.
# Usage: i386.sh SRC OBJ RESULTS
. "$(dirname "$0")/common.sh"

cc=$(kmake_cc)

SRC=$1 OBJ=$2 RES=$3
mkdir -p "$OBJ"
# Of the C files the series creates or changes, those that i386.config
# builds: kstats and its tracing (modules), the kprobe table and x86's
# kprobe core (built in).  The lookup cache is 64-bit only.
objs=${I386_OBJS:-"lib/kstats.o lib/kstats_trace.o lib/test_kstats_trace.o kernel/kprobes.o arch/x86/kernel/kprobes/core.o"}

log "i386: configuring tinyconfig + kstats, kstats_trace=m and building"
if ! ARCH=i386 "$TOP/harness/kconfig.sh" "$SRC" "$OBJ" "$TOP/harness/configs/i386.config" \
	>"$OBJ/kconfig.log" 2>&1; then
	cat "$OBJ/kconfig.log" >&2
	rec FAIL "i386: configuration"
	exit 1
fi
if [ -n "${I386_FULL:-}" ]; then
	what="i386: build and module link (lib/kstats.ko, lib/kstats_trace.ko)"
	set -- all
else
	what="i386: the series' objects compile ($objs)"
	# shellcheck disable=SC2086
	set -- $objs
fi
if ! make -C "$SRC" O="$OBJ" ARCH=i386 ${cc:+"$cc"} -j"$JOBS" "$@" >"$OBJ/build.log" 2>&1; then
	grep -E 'error|ERROR|undefined' "$OBJ/build.log" | head -20 >&2
	rec FAIL "$what" "see $OBJ/build.log"
	exit 1
fi
rec PASS "$what"

bad= n=0
for o in $objs; do
	[ -f "$OBJ/$o" ] || { bad=1; log "i386: $o was not built"; continue; }
	n=$((n + 1))
	calls=$(nm -u "$OBJ/$o" | grep -E '__(u?div|u?mod|udivmod|divmod)di[34]' || true)
	[ -z "$calls" ] || { bad=1; log "i386: $o calls $calls"; }
done
if [ -n "$bad" ]; then
	rec FAIL "i386: no libgcc 64-bit division calls"
	exit 1
fi
rec PASS "i386: no libgcc 64-bit division calls ($n objects)"
