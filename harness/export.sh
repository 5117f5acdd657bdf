#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Write the series branch back: patches/ (git format-patch, stable names),
# series, patches/0000-cover-letter.patch and the overlay folders (every
# file the series creates, as the series creates it).
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
git format-patch -q --zero-commit --no-signature --cover-letter \
	--subject-prefix=PATCH -o "$tmp" base..series
"$TOP/harness/cover-letter.sh" "$tmp"/0000-cover-letter.patch
rm -f "$TOP"/patches/*.patch
mkdir -p "$TOP/patches"
cp "$tmp"/*.patch "$TOP/patches/"
(
	echo "# Apply in this order with git am (or quilt); see README.md."
	cd "$TOP/patches" && ls [0-9]*.patch | grep -v '^0000-'
) >"$TOP/series"

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
