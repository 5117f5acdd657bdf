#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make check-ports: every port in ports/ (CHECK_PORTS="7.2 6.18" by
# default), one after the other, as make check checks it beside 6.12
# (checkpatch, git am, the new files against 6.12's), and then its last
# patch built and booted in QEMU with every KUnit suite, kselftest, the
# stress run and the short benchmark sweep.  Results in
# $OUT/check-ports/results.txt, each prefixed with its release.
# BASE=7.2 checks that port only, as does CHECK_PORTS="7.2".
. "$(dirname "$0")/common.sh"

CHK=$OUT_ROOT/check-ports
RES=$CHK/results.txt
mkdir -p "$CHK"
: >"$RES"
"$TOP/harness/deps.sh"
# BASE=7.2 (or 6.18): that port only.
if [ "$BASE" != 6.12 ]; then
	ports=$(port_list "$BASE")
else
	ports=$(port_list)
fi
for b in $ports; do
	BASE=$b CHECK_SCOPE=port CHECK_PORTS_BOOT=1 CHECK_RES=$RES "$TOP/harness/check.sh" ||
		rec FAIL "$b: check.sh ran to its end" "exit code $?"
done
summary
