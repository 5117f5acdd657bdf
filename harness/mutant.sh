#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Usage: mutant.sh NAME [DIFF]
#
# Builds the last patch of the series in out/linux (make tree) with DIFF
# applied (a mutation of the kernel: a test must fail on it), as make
# check's plain guest (qemu.config + check.config, CONFIG_KSTATS=m), in a
# worktree of its own (out/mutant/src) and the build directory
# out/mutant/build, then boots it with every guest test (runtests.sh).
# Without DIFF it boots the series as it is, the control.
# The results go to out/mutant/NAME-results.txt and the boot's logs to
# out/mutant/NAME-boot/. The worktree is reset to the series afterwards.
# BOOT_TIMEOUT (seconds, default 1800) bounds a boot that hangs.

. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

[ $# -ge 1 ] && [ $# -le 2 ] || die "usage: $0 NAME [DIFF]"
name=$1
diff=${2:+$(realpath "$2")}
LINUX=${OUT:-$TOP/out}/linux
M=${OUT:-$TOP/out}/mutant
W=$M/src
OBJ=$M/build
[ -d "$LINUX/.git" ] || die "no $LINUX: run make tree first"
[ -z "$diff" ] || [ -f "$diff" ] || die "no diff $diff"
mkdir -p "$M" "$OBJ"

head=$(git -C "$LINUX" rev-parse HEAD)
if [ ! -d "$W" ]; then
	git -C "$LINUX" worktree prune
	git -C "$LINUX" worktree add -q --detach "$W" "$head"
fi
git -C "$W" reset -q --hard "$head"
if [ -n "$diff" ]; then
	git -C "$W" apply "$diff" || die "$diff does not apply to $head"
	log "$name: $(git -C "$W" diff --shortstat)"
fi

echo CONFIG_KSTATS=m >"$OBJ/frag.config"
log "$name: configuring"
"$TOP/harness/kconfig.sh" "$W" "$OBJ" "$TOP/harness/configs/qemu.config" \
	"$TOP/harness/configs/check.config" "$OBJ/frag.config" >"$OBJ/kconfig.log" 2>&1 ||
	die "kconfig failed, see $OBJ/kconfig.log"
log "$name: building"
make -C "$W" O="$OBJ" -j"$JOBS" all >"$OBJ/build-$name.log" 2>&1 ||
	die "build failed, see $OBJ/build-$name.log"
log "$name: booting"
rm -rf "$M/$name-boot" "$M/$name-results.txt"
rc=0
"$TOP/harness/runtests.sh" "$W" "$OBJ" "$M/$name-boot" "$M/$name-results.txt" "$name" || rc=$?
git -C "$W" reset -q --hard "$head"
log "$name: $(grep -c '^PASS' "$M/$name-results.txt") passed," \
	"$(grep -c '^FAIL' "$M/$name-results.txt") failed (runtests.sh exit code $rc)"
grep '^FAIL' "$M/$name-results.txt" || true
