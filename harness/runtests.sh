#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Boot the kernel built in OBJ under QEMU, run the guest tests and append
# one result line per test case to RESULTS.
# Usage: runtests.sh SRC OBJ BOOTDIR RESULTS
. "$(dirname "$0")/common.sh"

SRC=$1 OBJ=$2 BOOTDIR=$3 RES=$4
BOOT_TIMEOUT=${BOOT_TIMEOUT:-900}
rec() { echo "$1 $2${3:+: $3}" >>"$RES"; log "$1 $2${3:+ ($3)}"; }

rm -rf "$BOOTDIR"
mkdir -p "$BOOTDIR/extra/kseries"
# KUnit suites that live in modules; built-in ones run at boot.
printf '%s\n' kstats_kunit >"$BOOTDIR/extra/kseries/kunit-modules"

"$TOP/harness/initramfs.sh" "$OBJ" "$SRC" "$BOOTDIR/initramfs.cpio" "$BOOTDIR/extra"
rc=0
"$TOP/harness/boot.sh" "$OBJ/arch/x86/boot/bzImage" "$BOOTDIR/initramfs.cpio" \
	"$BOOTDIR" "$BOOT_TIMEOUT" || rc=$?
[ "$rc" -eq 0 ] || rec FAIL "boot: QEMU exited by itself" "exit code $rc"

python3 "$TOP/harness/parse.py" "$BOOTDIR/console.log" "$BOOTDIR/results.log" \
	--kunit-py "$SRC/tools/testing/kunit/kunit.py" \
	--expect-suite kstats --expect-suite kprobes_test \
	--expect-suite system \
	--json "$BOOTDIR/results.json" >"$BOOTDIR/parse.txt" 2>&1 || true
grep -E '^(PASS|FAIL|SKIP) ' "$BOOTDIR/parse.txt" |
	sed -E 's/^(PASS|FAIL|SKIP) /\1 guest: /' >>"$RES"
n=$(grep -cE '^(PASS|FAIL|SKIP) ' "$BOOTDIR/parse.txt" || true)
log "boot: $n test results (console log: $BOOTDIR/console.log)"
[ "$n" -gt 0 ] || { cat "$BOOTDIR/parse.txt" >&2; rec FAIL "boot: the guest reported results"; }
