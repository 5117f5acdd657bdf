#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Boot the kernel built in OBJ under QEMU, run the guest tests and append
# one result line per test case to RESULTS, each prefixed with LABEL.
# Usage: runtests.sh SRC OBJ BOOTDIR RESULTS LABEL
# STRESS_SECONDS: length of the kprobe cache stress run (default 20).
. "$(dirname "$0")/common.sh"

SRC=$1 OBJ=$2 BOOTDIR=$3 RES=$4 LABEL=$5
BOOT_TIMEOUT=${BOOT_TIMEOUT:-1800}
STRESS_SECONDS=${STRESS_SECONDS:-20}

rm -rf "$BOOTDIR"
mkdir -p "$BOOTDIR/extra/kseries/tests.d" "$BOOTDIR/extra/kseries/selftests"
expect=(--expect-suite system --expect-suite kprobes_test)
# KUnit suites that live in modules (built-in ones run at boot), and the
# suite each one brings.
mods=()
while read -r cfg mod suite; do
	grep -q "^CONFIG_$cfg=m" "$OBJ/.config" || continue
	mods+=("$mod")
	expect+=(--expect-suite "$suite")
done <<'LIST'
KSTATS_KUNIT_TEST kstats_kunit kstats
KPROBE_CACHE_KUNIT_TEST kprobe_cache_kunit kprobe_cache
LIST
printf '%s\n' "${mods[@]}" >"$BOOTDIR/extra/kseries/kunit-modules"

# Kselftests of the series, run from a numbered wrapper in tests.d.
st=$SRC/tools/testing/selftests/kprobe_cache/kprobe_cache_stress.sh
if [ -f "$st" ] && grep -q '^CONFIG_TEST_KPROBE_CACHE=m' "$OBJ/.config"; then
	install -m 0755 "$st" "$BOOTDIR/extra/kseries/selftests/"
	printf '#!/bin/sh\nexec /kseries/selftests/kprobe_cache_stress.sh %s\n' \
		"$STRESS_SECONDS" >"$BOOTDIR/extra/kseries/tests.d/30-kprobe_cache_stress.sh"
	chmod +x "$BOOTDIR/extra/kseries/tests.d/30-kprobe_cache_stress.sh"
	expect+=(--expect-suite kprobe_cache_stress)
fi

"$TOP/harness/initramfs.sh" "$OBJ" "$SRC" "$BOOTDIR/initramfs.cpio" "$BOOTDIR/extra"
rc=0
"$TOP/harness/boot.sh" "$OBJ/arch/x86/boot/bzImage" "$BOOTDIR/initramfs.cpio" \
	"$BOOTDIR" "$BOOT_TIMEOUT" || rc=$?
[ "$rc" -eq 0 ] || rec FAIL "$LABEL: QEMU exited by itself" "exit code $rc"

python3 "$TOP/harness/parse.py" "$BOOTDIR/console.log" "$BOOTDIR/results.log" \
	--kunit-py "$SRC/tools/testing/kunit/kunit.py" "${expect[@]}" \
	--json "$BOOTDIR/results.json" >"$BOOTDIR/parse.txt" 2>&1 || true
grep -E '^(PASS|FAIL|SKIP) ' "$BOOTDIR/parse.txt" |
	sed -E "s/^(PASS|FAIL|SKIP) /\\1 $LABEL: /" >>"$RES"
grep -E '^FAIL ' "$BOOTDIR/parse.txt" | head -20 >&2 || true
n=$(grep -cE '^(PASS|FAIL|SKIP) ' "$BOOTDIR/parse.txt" || true)
log "$LABEL: $n test results (console log: $BOOTDIR/console.log)"
[ "$n" -gt 0 ] || { cat "$BOOTDIR/parse.txt" >&2; rec FAIL "$LABEL: the guest reported results"; }
