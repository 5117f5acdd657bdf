#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Make DIR a worktree of the base repository with the series applied by
# `git am`, one commit per patch.  Only files that differ from the last
# run are rewritten, so builds from DIR stay incremental.  With a RESULTS
# file, records one result per patch.
# Usage: apply.sh DIR [RESULTS]
. "$(dirname "$0")/common.sh"

DIR=$1 RES=${2:-}
"$TOP/harness/base.sh"
if [ ! -d "$DIR" ]; then
	log "apply: creating the worktree $DIR"
	git -C "$LINUX" worktree prune
	mkdir -p "$(dirname "$DIR")"
	git -C "$LINUX" worktree add -q --detach "$DIR" base
fi
name="Debian base"
[ "$BASE" = 6.12 ] || name="Linux $RELEASE"
cd "$DIR"
git am --abort >/dev/null 2>&1 || true
git checkout -q -f --detach base
git clean -q -fdx
while read -r p; do
	if hgit am -q "$p" >/dev/null 2>&1; then
		rec PASS "apply ($name): $(patch_label "$p")"
	else
		git am --abort >/dev/null 2>&1 || true
		rec FAIL "apply ($name): $(patch_label "$p")"
		exit 1
	fi
done < <(series_patches)
