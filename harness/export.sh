#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Write the series branch back: patches/ (git format-patch, stable names),
# series, patches/0000-cover-letter.patch and the overlay folders (every
# file the series creates, as the series creates it).  For a port
# (BASE=7.2, ...): ports/BASE/patches and ports/BASE/series; the overlay
# stays the 6.12 series'.
. "$(dirname "$0")/common.sh"

cd "$LINUX"
git rev-parse -q --verify refs/heads/series >/dev/null || die "no series branch: run 'make tree' first"
[ -z "$(git status --porcelain --untracked-files=no)" ] ||
	die "$LINUX has uncommitted changes: commit them first"
n=$(git rev-list --count base..series)
[ "$n" -gt 0 ] || die "the series branch has no commits on base"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# --zero-commit and --no-signature keep the files identical from one export
# to the next when the patches themselves did not change.
# --base names the base commit in the cover letter (base-commit:).
git format-patch -q --zero-commit --no-signature --cover-letter --base=base \
	--subject-prefix=PATCH -o "$tmp" base..series
"$TOP/harness/cover-letter.sh" "$tmp"/0000-cover-letter.patch
rm -f "$SERIES_DIR"/patches/*.patch
mkdir -p "$SERIES_DIR/patches"
cp "$tmp"/*.patch "$SERIES_DIR/patches/"
(
	echo "# Apply in this order with git am (or quilt); see README.md."
	cd "$SERIES_DIR/patches" && ls [0-9]*.patch | grep -v '^0000-'
) >"$SERIES_DIR/series"
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
