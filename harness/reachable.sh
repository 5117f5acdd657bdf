#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# With CONFIG_KSTATS=m, code built into the kernel that calls the kstats API
# must compile to the stubs of <linux/kstats.h>, not to calls that vmlinux
# cannot resolve.  Compiles harness/buildtest/ as built-in code (obj-y of an
# M= directory: no -DMODULE) against a configured and built tree, and fails
# on any undefined kstats_* symbol.
# Usage: reachable.sh SRC OBJ RESULTS
. "$(dirname "$0")/common.sh"

cc=$(kmake_cc)
SRC=$(realpath -e -- "$1") OBJ=$(realpath -e -- "$2") RES=$3

if ! grep -qx 'CONFIG_KSTATS=m' "$OBJ/.config"; then
	rec SKIP "kstats=m: built-in caller gets the stubs" "$OBJ is not CONFIG_KSTATS=m"
	exit 0
fi
dir=$(mktemp -d "${TMPDIR:-/tmp}/kstats-reach.XXXXXX")
trap 'rm -rf -- "$dir"' EXIT
cp "$TOP"/harness/buildtest/* "$dir/"
log "reachable: compiling a built-in kstats caller against CONFIG_KSTATS=m"
if ! make -C "$SRC" O="$OBJ" ${cc:+"$cc"} M="$dir" kstats_builtin_user.o \
	>"$dir/build.log" 2>&1; then
	tail -20 "$dir/build.log" >&2
	rec FAIL "kstats=m: built-in caller gets the stubs" "does not compile"
	exit 1
fi
# Built-in, really: no -DMODULE on its command line.
if grep -q -- '-DMODULE' "$dir/.kstats_builtin_user.o.cmd"; then
	rec FAIL "kstats=m: built-in caller gets the stubs" "compiled as a module"
	exit 1
fi
undef=$(nm -u "$dir/kstats_builtin_user.o" | awk '$2 ~ /^kstats_/ { print $2 }')
if [ -n "$undef" ]; then
	rec FAIL "kstats=m: built-in caller gets the stubs" "vmlinux could not link: $(echo $undef)"
	exit 1
fi
rec PASS "kstats=m: built-in caller gets the stubs"
