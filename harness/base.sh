#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Make $OUT/linux: a git repository whose tag "base" is the 6.12 tree the
# series applies to. Either Debian's linux-source-6.12 (one base commit with
# a fixed date and identity, so its hash is the same on every machine) or,
# with KSRC=/path, a clone of the user's own 6.12.y git tree at its HEAD.
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
	[ "$v" = "6.12" ] || die "KSRC=$KSRC is Linux $v, not 6.12.y"
	log "base: cloning $KSRC (shared objects)"
	git clone -q --shared --no-checkout "$KSRC" "$LINUX"
	git -C "$LINUX" checkout -q --detach "$(git -C "$KSRC" rev-parse HEAD)"
	git -C "$LINUX" tag base
	log "base: $(git -C "$LINUX" describe --always base)"
	exit 0
fi

if [ ! -f "$DEBIAN_TARBALL" ]; then
	"$TOP/harness/deps.sh"
	[ -f "$DEBIAN_TARBALL" ] ||
		die "$DEBIAN_TARBALL missing; run: apt-get install linux-source-6.12"
fi
log "base: extracting $DEBIAN_TARBALL"
mkdir -p "$LINUX.tmp"
tar -xJf "$DEBIAN_TARBALL" -C "$LINUX.tmp" --strip-components=1
log "base: committing the tree (git add -Af)"
(
	cd "$LINUX.tmp"
	git init -q -b base-branch
	git config core.autocrlf false
	git config gc.auto 0
	git add -Af
	ver=$(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null || echo unknown)
	hgit commit -q -m "Debian linux-source-6.12 $ver" \
		-m "Extracted from $(basename "$DEBIAN_TARBALL"), sha256 $(sha256sum "$DEBIAN_TARBALL" | cut -c1-64)."
	git tag base
)
mv "$LINUX.tmp" "$LINUX"
log "base: $(git -C "$LINUX" rev-parse --short base) ($(git -C "$LINUX" log -1 --format=%s base))"
