#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The series must also apply to vanilla 6.12.117: the .orig.tar.xz of
# `apt-get source linux-6.12`, or the tarball named by VANILLA_TARBALL.
# Only the files the series modifies are extracted.  When no tarball can be
# had, the check is reported as skipped, with the reason.
# Usage: vanilla.sh RESULTS
. "$(dirname "$0")/common.sh"

RES=$1
VDIR=$OUT/vanilla
mkdir -p "$VDIR"

tarball=${VANILLA_TARBALL:-}
if [ -z "$tarball" ]; then
	tarball=$(ls "$VDIR"/linux-6.12_6.12.117.orig.tar.xz 2>/dev/null || true)
fi
if [ -z "$tarball" ]; then
	log "vanilla: apt-get source --download-only linux-6.12"
	if ! (cd "$VDIR" && apt-get source -q --download-only linux-6.12 >apt.log 2>&1); then
		why=$(grep -E '^E:' "$VDIR/apt.log" | head -1)
		rec SKIP "apply (vanilla 6.12.117)" "no orig tarball: ${why:-apt-get source failed}; set VANILLA_TARBALL=/path/linux-6.12_6.12.117.orig.tar.xz"
		exit 0
	fi
	tarball=$(ls "$VDIR"/linux-6.12_*.orig.tar.xz | head -1)
fi

# The files the patches modify (not those they create).
files=$(series_patches | xargs grep -h '^--- a/' | sed 's,^--- a/,,' | sort -u)
rm -rf "$VDIR/tree"
mkdir -p "$VDIR/tree"
top=$(tar tJf "$tarball" | head -1 | cut -d/ -f1)
# shellcheck disable=SC2046
tar xJf "$tarball" -C "$VDIR/tree" --strip-components=1 \
	$(for f in $files; do echo "$top/$f"; done)
cd "$VDIR/tree"
git init -q
git add -Af
hgit commit -q -m "vanilla: the files the series modifies"
while read -r p; do
	if hgit am -q "$p" >/dev/null 2>&1; then
		rec PASS "apply (vanilla $(basename "$tarball")): $(basename "$p")"
	else
		git am --abort >/dev/null 2>&1 || true
		rec FAIL "apply (vanilla $(basename "$tarball")): $(basename "$p")"
		exit 1
	fi
done < <(series_patches)
