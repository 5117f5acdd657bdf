#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Write the series branch back: patches/POSTING/ for each posting (git
# format-patch, stable names, its own 0000-cover-letter.patch), series, and
# the overlay folders (every file the series creates, as the series
# creates it).  For a port
# (BASE=7.2, ...): ports/BASE/patches and ports/BASE/series; the overlay
# stays the 6.12 series'.
. "$(dirname "$0")/common.sh"

cd "$LINUX"
git rev-parse -q --verify refs/heads/series >/dev/null || die "no series branch: run 'make tree' first"
[ -z "$(git status --porcelain --untracked-files=no)" ] ||
	die "$LINUX has uncommitted changes: commit them first"
n=$(git rev-list --count base..series)
[ "$n" -gt 0 ] || die "the series branch has no commits on base"

# The postings' sizes: COUNTS="fixes=1 kstats=4" (the last posting takes
# the rest), or else those of the series file.
declare -A cnt
while read -r q c; do cnt[$q]=$c; done < <(posting_counts)
for kv in ${COUNTS:-}; do cnt[${kv%%=*}]=${kv#*=}; done
last=${POSTINGS##* }
rest=$n
for q in $POSTINGS; do
	[ "$q" = "$last" ] || rest=$((rest - ${cnt[$q]}))
done
[ "$rest" -gt 0 ] || die "the series branch has $n commits, fewer than the postings before $last take"
cnt[$last]=$rest

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rm -rf "$SERIES_DIR"/patches
echo "# Apply in this order with git am (three postings; see README.md)." >"$tmp/series"
from=base
at=0
for q in $POSTINGS; do
	at=$((at + ${cnt[$q]}))
	to=$(git rev-parse "series~$((n - at))")
	mkdir -p "$tmp/$q"
	# --zero-commit and --no-signature keep the files identical from one
	# export to the next when the patches themselves did not change.
	# --base=base: base-commit names the release, and the earlier
	# postings' patches follow as prerequisite-patch-id (stable from one
	# `make tree` to the next, where their commit ids are not).
	git format-patch -q --zero-commit --no-signature --cover-letter --diff-algorithm=histogram \
		--base=base --subject-prefix=PATCH -o "$tmp/$q" "$from..$to"
	"$TOP/harness/cover-letter.sh" "$tmp/$q/0000-cover-letter.patch" "$q"
	(cd "$tmp/$q" && ls [0-9]*.patch | grep -v '^0000-' | sed "s,^,$q/,") >>"$tmp/series"
	mkdir -p "$SERIES_DIR/patches/$q"
	cp "$tmp/$q"/*.patch "$SERIES_DIR/patches/$q/"
	log "export: $q: ${cnt[$q]} patches"
	from=$to
done
cp "$tmp/series" "$SERIES_DIR/series"
if [ "$BASE" != 6.12 ]; then
	log "export: $n patches and series written to ports/$BASE"
	git -C "$TOP" status --short -- "ports/$BASE"
	exit 0
fi

# Overlay: the files the series creates.
for d in lib include kernel arch tools Documentation; do
	rm -rf "${TOP:?}/$d"
done
git diff --name-only --diff-filter=A base series | while read -r f; do
	mkdir -p "$TOP/$(dirname "$f")"
	git show "series:$f" >"$TOP/$f"
	if [ -x "$f" ]; then chmod +x "$TOP/$f"; fi
done
log "export: $n patches, series and overlay written"
git -C "$TOP" status --short -- series patches lib include kernel arch tools Documentation
