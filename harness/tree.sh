#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Rebuild the "series" branch of $OUT/linux: base + `git am` of every patch
# in series, one commit per patch.  A previous series branch that differs
# is kept as series-old-<date>, so no commit is ever lost.
. "$(dirname "$0")/common.sh"

"$TOP/harness/base.sh"
cd "$LINUX"
if [ -n "$(git status --porcelain --untracked-files=no)" ]; then
	die "$LINUX has uncommitted changes: commit them and 'make export', or stash them"
fi
if git rev-parse -q --verify refs/heads/series >/dev/null; then
	old=$(git rev-parse series)
else
	old=
fi
log "tree: applying $(series_patches | wc -l) patches on base"
git checkout -q --detach base
am_id=()
git config user.email >/dev/null || am_id=(-c user.name="kseries user" -c user.email=kseries@localhost)
# shellcheck disable=SC2046
if ! git "${am_id[@]}" am -q --3way $(series_patches); then
	git am --abort || true
	[ -n "$old" ] && git checkout -q series
	die "a patch does not apply; see the message above"
fi
new=$(git rev-parse HEAD)
if [ -n "$old" ] && [ "$(git rev-parse "$old^{tree}")" != "$(git rev-parse "$new^{tree}")" -o \
	"$(git rev-list --count base.."$old")" != "$(git rev-list --count base.."$new")" ]; then
	keep=series-old-$(date +%Y%m%d-%H%M%S)
	git branch "$keep" "$old"
	log "tree: previous series branch differed; kept as $keep"
fi
git checkout -q -B series "$new"
log "tree: $LINUX is at series ($(git rev-list --count base..series) commits on base)"
