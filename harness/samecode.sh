#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# With CONFIG_KPROBE_CACHE=n the x86 kprobe hit paths must compile to the
# very code they had before the cache patches: disassemble
# arch/x86/kernel/kprobes/{core,ftrace}.o built from the series and from the
# commit before "kprobes: add a per-CPU lookup cache" (the base plus the
# patches before it: the fixes, kstats, the benchmark, the int3 handler,
# the index and the batched arming),
# and compare function by function (harness/discmp.py: every function of
# the older object unchanged; later patches may add functions, such as the
# batched arming hooks, which are not on a hit path).  ftrace.o must also
# be the base's own code.  One change to those paths is meant: the
# series' kprobe_ftrace_handler() drops a hit on a CPU that RCU is not
# watching, before its lookup; the older trees get the series' own lines
# of that check (the comment and the test after the recursion lock, the
# inline helper it calls and its header) before they are built, so that
# what is compared is everything else.
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
		objdump -dr --no-show-raw-insn "$OBJ/$o" >"$OBJ/$1-$(basename "$o" .o).dis"
	done
}
# with_rcu_check: put the series' RCU check into the checked-out
# ftrace.c when it has none (undone by unrcu): the test after the
# recursion lock and, where the series has them, the headers and the
# inline helper it calls (between the includes and the handler).
fsrc=arch/x86/kernel/kprobes/ftrace.c
with_rcu_check() {
	python3 - "$SRC/$fsrc" "$OBJ/series-ftrace.c" <<'PY'
import re, sys
cur, ser = open(sys.argv[1]).read(), open(sys.argv[2]).read()
lock = "\tbit = ftrace_test_recursion_trylock(ip, parent_ip);\n\tif (bit < 0)\n\t\treturn;\n"
m = re.search(re.escape(lock) + r"(\n(?:\t/\*.*?\*/\n)?\tif \(unlikely\(!\w*rcu\w*\(\)\)\)\n\t\tgoto out;\n)", ser, re.S)
common = '#include "common.h"\n'
handler = "/* Ftrace callback handler for kprobes"
if m and "rcu_is_watching" not in cur and cur.count(lock) == 1:
    cur = cur.replace(lock, lock + m.group(1))
    # The helper of the series, and the headers it needs.
    if common in ser and handler in ser and common in cur and handler in cur:
        helper = ser[ser.index(common) + len(common):ser.index(handler)]
        if helper.strip():
            cur = cur.replace(common, common + "\n" + helper.strip("\n") + "\n", 1)
    for inc in re.findall(r"^#include <linux/context_tracking\.h>\n", ser, re.M):
        if inc not in cur:
            cur = cur.replace(common, inc + common, 1)
    open(sys.argv[1], "w").write(cur)
PY
}
unrcu() {
	git -C "$SRC" checkout -q -- "$fsrc"
}
# same A B: every function of the listing A is in B, instruction for
# instruction; the verdict line in $same.
same() {
	same=$(python3 "$TOP/harness/discmp.py" "$OBJ/$1.dis" "$OBJ/$2.dis")
}
log "samecode: the series with CONFIG_KPROBE_CACHE=n"
disasm series || { rec FAIL "KPROBE_CACHE=n: x86 hit paths build"; exit 1; }
cp "$SRC/$fsrc" "$OBJ/series-ftrace.c"
head=$(git -C "$SRC" rev-parse HEAD)
cache=$(git -C "$SRC" log --format=%H --grep='^kprobes: add a per-CPU lookup cache' base..HEAD)
[ -n "$cache" ] || { rec FAIL "KPROBE_CACHE=n: the cache patch is in the series"; exit 1; }
ok=0
git -C "$SRC" checkout -q --detach "$cache^"
log "samecode: before the cache ($(git -C "$SRC" log -1 --format=%s HEAD))"
with_rcu_check
disasm before || ok=1
unrcu
objs=arch/x86/kernel/kprobes/ftrace.o
git -C "$SRC" checkout -q --detach base
log "samecode: the base (ftrace.o)"
with_rcu_check
disasm base || ok=1
unrcu
git -C "$SRC" checkout -q --detach "$head"
[ "$ok" -eq 0 ] || { rec FAIL "KPROBE_CACHE=n: objects before the cache and of the base build"; exit 1; }
n=$(cat "$OBJ"/before-*.dis | wc -l)
if same before-core series-core && same before-ftrace series-ftrace; then
	rec PASS "KPROBE_CACHE=n: x86 int3 and ftrace hit paths are the code without the cache patches ($n lines of objdump; core.o: $(python3 "$TOP/harness/discmp.py" "$OBJ/before-core.dis" "$OBJ/series-core.dis" | tail -1))"
else
	echo "$same" >&2
	rec FAIL "KPROBE_CACHE=n: x86 int3 and ftrace hit paths are the code without the cache patches" "$(echo "$same" | tail -1)"
fi
if same base-ftrace series-ftrace; then
	rec PASS "KPROBE_CACHE=n: x86 ftrace hit path is the base's code (with the series' RCU check)"
else
	echo "$same" >&2
	rec FAIL "KPROBE_CACHE=n: x86 ftrace hit path is the base's code" "$(echo "$same" | tail -1)"
fi
