#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Print the path of the orig tarball of the base BASE's port is made on
# (ports/BASE/base.conf), fetching it from Debian's archive once into the
# cache ($KSERIES_CACHE, default ~/.cache/kseries).  The pinned version
# first; when it no longer downloads, the other versions of the same
# release line that apt-cache showsrc lists, newest first (many listed
# versions answer 404).  The Debian source package "linux" of trixie,
# trixie-backports and sid brings them: as root, the deb-src lines are
# added when apt does not list the version yet.
. "$(dirname "$0")/common.sh"

[ "$BASE" != 6.12 ] || die "fetch-base.sh: BASE=6.12 is Debian's linux-source-6.12"
# shellcheck source=/dev/null
. "$SERIES_DIR/base.conf"
CACHE=${KSERIES_CACHE:-${HOME:-/root}/.cache/kseries}
mkdir -p "$CACHE"

good() {
	[ -f "$1" ] && [ "$(sha256sum <"$1" | cut -c1-64)" = "$SHA256" ]
}

pinned=$CACHE/linux_$VERSION.orig.tar.xz
if good "$pinned"; then
	echo "$pinned"
	exit 0
fi

listed() {
	apt-cache showsrc linux 2>/dev/null | sed -n 's/^Version: //p' | sort -u | sort -rV
}
if ! grep -qxF "$DEBVER" <<<"$(listed)"; then
	[ "$(id -u)" -eq 0 ] || die "apt lists no linux=$DEBVER source: add deb-src lines for trixie, trixie-backports and sid (see .ci/run), or put linux_$VERSION.orig.tar.xz (sha256 $SHA256) in $CACHE"
	log "fetch: adding deb-src lines for trixie, trixie-backports, sid"
	cat >/etc/apt/sources.list.d/kseries-newer-src.sources <<'SRC'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: trixie trixie-updates trixie-backports sid
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
	apt-get update -qq >/dev/null 2>&1 || log "fetch: apt-get update reported an error"
fi

# The pinned version, then the same line's other versions, newest first.
line=${VERSION%.*}
cands=$( (echo "$DEBVER"; listed | grep -E "^${line//./\\.}\.[0-9]+-" | grep -vxF "$DEBVER") )
tmp=$CACHE/dl.$$
for v in $cands; do
	up=${v%%-*}
	rm -rf "$tmp"
	mkdir -p "$tmp"
	log "fetch: apt-get source --download-only linux=$v"
	f=$(apt_orig "linux=$v" "$tmp") || continue
	if [ "$up" = "$VERSION" ]; then
		good "$f" || die "linux_$up.orig.tar.xz: sha256 is not $SHA256"
	else
		log "fetch: $VERSION does not download; using $up (the port was made on $VERSION)"
	fi
	mv -f "$f" "$CACHE/"
	rm -rf "$tmp"
	echo "$CACHE/linux_$up.orig.tar.xz"
	exit 0
done
rm -rf "$tmp"
die "no orig tarball of Linux $line.y downloads (tried: $(echo $cands)); put linux_$VERSION.orig.tar.xz (sha256 $SHA256) in $CACHE"
