#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The harness checks mended on 2026-11-27, each shown failing on the
# breakage it is there for, with the harness of the commit before the
# mend (OLD, default 309b62b) and with the working tree's.
#
# Usage: verify.sh LINUX_TREE [OLD]   (LINUX_TREE: the series applied,
# for the host tool's headers and kunit.py)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../.." && pwd)
[ $# -ge 1 ] || { echo "usage: $0 LINUX_TREE [OLD]" >&2; exit 2; }
linux=$(cd "$1" && pwd)
old=${2:-309b62b}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/old"
git -C "$repo" archive "$old" harness | tar -x -C "$tmp/old"
say() { printf '\n== %s\n' "$*"; }

say "1. parse.py: an expected kselftest that skips as a whole (rc 4, no case)"
printf '%s\n' '### BEGIN 05-system.sh' 'ok 1 x' '### END 05-system.sh rc=0' \
	'### BEGIN 35-kstats_trace.sh' '# SKIP no kstats/_control' \
	'### END 35-kstats_trace.sh rc=4' '### DONE' >"$tmp/results.log"
: >"$tmp/console.log"
for v in old new; do
	d=$repo/harness
	[ "$v" = new ] || d=$tmp/old/harness
	python3 "$d/parse.py" "$tmp/console.log" "$tmp/results.log" \
		--kunit-py "$linux/tools/testing/kunit/kunit.py" \
		--expect-suite system --expect-suite kstats_trace | tail -1
	echo "$v: parse.py exit code $?"
done

say "2. discmp.py: the same function calling get_kprobe() or get_kprobe_cached()"
printf '%s\n' 'void *get_kprobe(void *);' 'void *get_kprobe_cached(void *);' \
	'void *f(void *a) { return get_kprobe(a); }' >"$tmp/a.c"
sed 's/return get_kprobe(a)/return get_kprobe_cached(a)/' "$tmp/a.c" >"$tmp/b.c"
for x in a b; do
	gcc -O2 -c "$tmp/$x.c" -o "$tmp/$x.o"
	objdump -d --no-show-raw-insn "$tmp/$x.o" >"$tmp/$x.d"
	objdump -dr --no-show-raw-insn "$tmp/$x.o" >"$tmp/$x.dr"
done
python3 "$tmp/old/harness/discmp.py" "$tmp/a.d" "$tmp/b.d" | tail -1
echo "old (objdump -d): discmp.py exit code ${PIPESTATUS[0]}"
python3 "$repo/harness/discmp.py" "$tmp/a.dr" "$tmp/b.dr" | tail -1
echo "new (objdump -dr): discmp.py exit code ${PIPESTATUS[0]}"

say "3. hostbench.sh: the host tool's index returns the next slot's kprobe"
src=$tmp/src
mkdir -p "$src/tools/testing"
ln -s "$linux/tools/include" "$src/tools/include"
ln -s "$linux/include" "$src/include"
cp -r "$repo/tools/testing/kprobe_cache" "$src/tools/testing/"
sed -i 's/return READ_ONCE(slot\[i\]\.kp);/return READ_ONCE(slot[(i + 1) \& mask].kp);/' \
	"$src/tools/testing/kprobe_cache/kprobe_cache_bench.c"
grep -q 'slot\[(i + 1) & mask\]\.kp' "$src/tools/testing/kprobe_cache/kprobe_cache_bench.c" ||
	{ echo "the tool's lookup changed: mend this script" >&2; exit 1; }
for v in old new; do
	d=$repo/harness
	[ "$v" = new ] || d=$tmp/old/harness
	: >"$tmp/res-$v"
	"$d/hostbench.sh" "$src" "$tmp/hb-$v" quick "$tmp/res-$v" >/dev/null 2>&1
	echo "$v: hostbench.sh exit code $?, results recorded: $(grep -c . "$tmp/res-$v")"
	sed 's/^/  /' "$tmp/res-$v"
done

say "4. check.sh's ran(): a script that exits 1 without a result"
RES=$tmp/res-ran
: >"$RES"
record() { echo "$1 $2${3:+: $3}" >>"$RES"; }
eval "$(sed -n '/^ran() {/,/^}/p' "$repo/harness/check.sh")"
ran quiet.sh false
ran loud.sh bash -c "echo 'FAIL loud.sh: its own result' >>'$RES'; exit 1"
ran fine.sh true
sed 's/^/  /' "$RES"
