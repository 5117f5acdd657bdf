#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The series must also apply to a vanilla 6.12.y: the newest version of
# Debian's linux-6.12 source package whose .orig.tar.xz downloads (apt-cache
# showsrc lists them; many answer 404, so newest first), or the tarball
# named by VANILLA_TARBALL.  Only the files the series modifies are
# extracted.  When no tarball can be had, the check is reported as
# skipped, with the reason.
# Usage: vanilla.sh RESULTS
. "$(dirname "$0")/common.sh"

RES=$1
VDIR=$OUT/vanilla
mkdir -p "$VDIR"

tarball=${VANILLA_TARBALL:-}
if [ -z "$tarball" ]; then
	tarball=$(ls "$VDIR"/linux-6.12_*.orig.tar.xz 2>/dev/null | sort -V | tail -1 || true)
fi
listed() {
	apt-cache showsrc linux-6.12 2>/dev/null | sed -n 's/^Version: //p' |
		sort -u | sort -rV
}
if [ -z "$tarball" ] && [ -z "$(listed)" ] && [ "$(id -u)" -eq 0 ]; then
	# Other deb-src lines (trixie, sid) do not list linux-6.12.
	log "vanilla: adding bookworm's deb-src lines"
	cat >/etc/apt/sources.list.d/kseries-deb-src.sources <<'SRC'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb-src
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
	apt-get update -qq >/dev/null 2>&1 || log "vanilla: apt-get update reported an error"
fi
if [ -z "$tarball" ]; then
	versions=$(listed)
	if [ -z "$versions" ]; then
		rec SKIP "apply (vanilla 6.12.y)" "apt-cache showsrc linux-6.12 lists no version (no deb-src lines?); set VANILLA_TARBALL=/path/linux-6.12_6.12.N.orig.tar.xz"
		exit 0
	fi
	tried=
	for v in $versions; do
		log "vanilla: apt-get source --download-only linux-6.12=$v"
		tarball=$(apt_orig "linux-6.12=$v" "$VDIR") || true
		[ -n "$tarball" ] && break
		tried="$tried $v"
	done
	if [ -z "$tarball" ]; then
		rec SKIP "apply (vanilla 6.12.y)" "no orig tarball downloads (tried:$tried); set VANILLA_TARBALL=/path/linux-6.12_6.12.N.orig.tar.xz"
		exit 0
	fi
fi
name=$(basename "$tarball" .orig.tar.xz)
name=${name#linux-6.12_}

# The files the patches modify (not those they create).
created=$(series_patches | xargs grep -h -A1 '^--- /dev/null' |
	sed -n 's,^+++ b/,,p' | sort -u)
files=$(series_patches | xargs grep -h '^--- a/' | sed 's,^--- a/,,' | sort -u |
	comm -23 - <(echo "$created"))
rm -rf "$VDIR/tree"
mkdir -p "$VDIR/tree"
# tar dies of SIGPIPE once head has its line: not an error here.
top=$(tar tJf "$tarball" 2>/dev/null | head -1 | cut -d/ -f1) || true
# shellcheck disable=SC2046
tar xJf "$tarball" -C "$VDIR/tree" --strip-components=1 \
	$(for f in $files; do echo "$top/$f"; done)
cd "$VDIR/tree"
git init -q
git add -Af
hgit commit -q -m "vanilla: the files the series modifies"
while read -r p; do
	if hgit am -q "$p" >/dev/null 2>&1; then
		rec PASS "apply (vanilla $name): $(basename "$p")"
	else
		git am --abort >/dev/null 2>&1 || true
		rec FAIL "apply (vanilla $name): $(basename "$p")"
		exit 1
	fi
done < <(series_patches)
