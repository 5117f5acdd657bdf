#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# With CONFIG_KPROBE_CACHE=n the x86 kprobe hit paths must compile to the
# very code of the base: disassemble arch/x86/kernel/kprobes/{core,ftrace}.o
# built from the series and from the base, and compare.
# Usage: samecode.sh WORKTREE OBJ [RESULTS]
. "$(dirname "$0")/common.sh"

cc=$(kmake_cc)
SRC=$1 OBJ=$2 RES=${3:-}
objs="arch/x86/kernel/kprobes/core.o arch/x86/kernel/kprobes/ftrace.o"
frag=$OBJ.cache-n.config
mkdir -p "$OBJ"
printf '%s\n' "# CONFIG_KPROBE_CACHE is not set" \
	"# CONFIG_KPROBE_CACHE_KUNIT_TEST is not set" >"$frag"

"$TOP/harness/apply.sh" "$SRC"
disasm() {
	local o
	"$TOP/harness/kconfig.sh" "$SRC" "$OBJ" "$TOP/harness/configs/qemu.config" "$frag" \
		>"$OBJ/kconfig-$1.log" 2>&1 || { cat "$OBJ/kconfig-$1.log" >&2; return 1; }
	# shellcheck disable=SC2086
	make -C "$SRC" O="$OBJ" ${cc:+"$cc"} -j"$JOBS" $objs >"$OBJ/build-$1.log" 2>&1 ||
		{ tail -20 "$OBJ/build-$1.log" >&2; return 1; }
	for o in $objs; do
		objdump -d "$OBJ/$o" | sed 's/^ *[0-9a-f]*://'
	done >"$OBJ/$1.dis"
}
log "samecode: the series with CONFIG_KPROBE_CACHE=n"
disasm series || { rec FAIL "KPROBE_CACHE=n: x86 hit paths build"; exit 1; }
git -C "$SRC" checkout -q --detach base
log "samecode: the base"
ok=0
disasm base || ok=1
git -C "$SRC" checkout -q --detach -
[ "$ok" -eq 0 ] || { rec FAIL "KPROBE_CACHE=n: base objects build"; exit 1; }
if cmp -s "$OBJ/series.dis" "$OBJ/base.dis"; then
	rec PASS "KPROBE_CACHE=n: x86 int3 and ftrace hit paths are the base's code ($(wc -l <"$OBJ/base.dis") lines of objdump)"
else
	diff "$OBJ/base.dis" "$OBJ/series.dis" | head -20 >&2
	rec FAIL "KPROBE_CACHE=n: x86 int3 and ftrace hit paths are the base's code"
fi
