#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Make $OUT/linux: a git repository whose tag "base" is the tree the series
# applies to.  For 6.12, Debian's linux-source-6.12; for a port (BASE=7.2,
# BASE=6.18), the release's orig tarball from Debian's archive
# (fetch-base.sh).  One base commit with a fixed date and identity, so its
# hash is the same on every machine.  With KSRC=/path, a clone of the
# user's own git tree of that release line at its HEAD.
. "$(dirname "$0")/common.sh"

if git -C "$LINUX" rev-parse -q --verify refs/tags/base >/dev/null 2>&1; then
	exit 0
fi
rm -rf "$LINUX"
mkdir -p "$OUT"

if [ -n "${KSRC:-}" ]; then
	git -C "$KSRC" rev-parse --verify HEAD >/dev/null 2>&1 ||
		die "KSRC=$KSRC is not a git tree"
	v=$(sed -n 's/^VERSION = //p;s/^PATCHLEVEL = //p' "$KSRC/Makefile" | paste -sd.)
	[ "$v" = "$BASE" ] || die "KSRC=$KSRC is Linux $v, not $BASE.y (BASE=$BASE)"
	log "base: cloning $KSRC (shared objects)"
	git clone -q --shared --no-checkout "$KSRC" "$LINUX"
	git -C "$LINUX" checkout -q --detach "$(git -C "$KSRC" rev-parse HEAD)"
	git -C "$LINUX" tag base
	log "base: $(git -C "$LINUX" describe --always base)"
	exit 0
fi

# commit_tree TARBALL SUBJECT BODY: the base commit, from the tarball.
commit_tree() {
	log "base: extracting $1"
	rm -rf "$LINUX.tmp"
	mkdir -p "$LINUX.tmp"
	tar -xJf "$1" -C "$LINUX.tmp" --strip-components=1
	log "base: committing the tree (git add -Af)"
	(
		cd "$LINUX.tmp"
		git init -q -b base-branch
		git config core.autocrlf false
		git config gc.auto 0
		git add -Af
		hgit commit -q -m "$2" -m "$3"
		git tag base
	)
	mv "$LINUX.tmp" "$LINUX"
	log "base: $(git -C "$LINUX" rev-parse --short base) ($(git -C "$LINUX" log -1 --format=%s base))"
}

if [ "$BASE" != 6.12 ]; then
	tarball=$("$TOP/harness/fetch-base.sh")
	name=$(basename "$tarball" .orig.tar.xz)
	commit_tree "$tarball" "Linux ${name#linux_}" \
		"Extracted from $(basename "$tarball") (Debian's archive, source package linux), sha256 $(sha256sum "$tarball" | cut -c1-64)."
	exit 0
fi

if [ ! -f "$DEBIAN_TARBALL" ]; then
	"$TOP/harness/deps.sh"
	[ -f "$DEBIAN_TARBALL" ] ||
		die "$DEBIAN_TARBALL missing; run: apt-get install linux-source-6.12"
fi
ver=$(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null || echo unknown)
commit_tree "$DEBIAN_TARBALL" "Debian linux-source-6.12 $ver" \
	"Extracted from $(basename "$DEBIAN_TARBALL"), sha256 $(sha256sum "$DEBIAN_TARBALL" | cut -c1-64)."
