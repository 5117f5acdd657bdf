#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Usage: harness/cachesim/build.sh
#
# Builds the cachesim data-cache model into $OUT/cachesim (out/cachesim):
#   cachesim.so          the QEMU TCG plugin (harness/cachesim/cachesim.c)
#   bin/cachesim-mark    static guest program: start a plugin phase
#   bin/cachesim-write   static guest program: one write(2) in a phase of its own
#   bin/cachesim-walk    static guest program: the validation workload
# The plugin needs QEMU's include/qemu/qemu-plugin.h, which Debian ships in
# no binary package: the first run fetches the source of the installed
# qemu-system-x86 (apt-get source --download-only, ~24 MB, kept in
# out/cachesim/src) and extracts only that header.  Installs
# qemu-system-x86, libglib2.0-dev and pkg-config when missing (as root).
# Rebuilds only what is older than its sources.

# shellcheck source-path=SCRIPTDIR source=../common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../common.sh"

HERE=$TOP/harness/cachesim
DEST=$OUT/cachesim
mkdir -p "$DEST/bin" "$DEST/src" "$DEST/include"

# Debian packages, installed only when something is missing.
need=()
command -v qemu-system-x86_64 >/dev/null || need+=(qemu-system-x86)
command -v pkg-config >/dev/null || need+=(pkg-config)
pkg-config --exists glib-2.0 2>/dev/null || need+=(libglib2.0-dev)
command -v gcc >/dev/null || need+=(gcc libc6-dev)
[ -f /usr/lib/x86_64-linux-gnu/libc.a ] || need+=(libc6-dev)
if [ ${#need[@]} -gt 0 ]; then
	[ "$(id -u)" = 0 ] ||
		die "missing packages; run: apt-get install --no-install-recommends ${need[*]}"
	log "cachesim: installing ${need[*]}"
	apt-get update -q >&2
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
		--no-install-recommends "${need[@]}" >&2
fi

# The plugin header, from the source package of the installed QEMU.
HDR=$DEST/include/qemu-plugin.h
if [ ! -s "$HDR" ]; then
	srcver=$(dpkg-query -W -f '${source:Version}' qemu-system-x86) ||
		die "qemu-system-x86 is not installed"
	upstream=${srcver#*:}
	upstream=${upstream%-*}
	tarball=$DEST/src/qemu_${upstream}.orig.tar.xz
	if [ ! -s "$tarball" ]; then
		log "cachesim: fetching the source of qemu $srcver (for qemu-plugin.h)"
		(cd "$DEST/src" && apt-get source -q --download-only "qemu=$srcver" >&2) ||
			die "apt-get source qemu=$srcver failed (needs deb-src lines)"
		[ -s "$tarball" ] || die "no $tarball after apt-get source"
	fi
	log "cachesim: extracting qemu-plugin.h from $(basename "$tarball")"
	tmp=$(mktemp -d "$DEST/src/hdr.XXXXXX")
	tar -xJf "$tarball" -C "$tmp" --no-same-owner --touch --wildcards '*/include/qemu/qemu-plugin.h'
	hdrs=("$tmp"/*/include/qemu/qemu-plugin.h)
	[ -s "${hdrs[0]}" ] || die "no include/qemu/qemu-plugin.h in $tarball"
	mv -f -- "${hdrs[0]}" "$HDR"
	rm -rf -- "$tmp"
	echo "$srcver" >"$DEST/include/qemu-version"
fi

# stale TARGET SOURCE...: true when TARGET is missing or older than a SOURCE.
stale() {
	local t=$1 s
	shift
	[ -e "$t" ] || return 0
	for s in "$@"; do
		[ "$s" -nt "$t" ] && return 0
	done
	return 1
}

CFLAGS=(-O2 -g -Wall -Wextra)

if stale "$DEST/cachesim.so" "$HERE/cachesim.c" "$HERE/marker.h" "$HDR"; then
	log "cachesim: building cachesim.so"
	read -r -a glib_cflags <<<"$(pkg-config --cflags glib-2.0)"
	read -r -a glib_libs <<<"$(pkg-config --libs glib-2.0)"
	gcc "${CFLAGS[@]}" -fPIC -shared "${glib_cflags[@]}" -I"$DEST/include" \
		-o "$DEST/cachesim.so.tmp" "$HERE/cachesim.c" "${glib_libs[@]}"
	mv -f -- "$DEST/cachesim.so.tmp" "$DEST/cachesim.so"
fi

if stale "$DEST/bin/cachesim-mark" "$HERE/mark.c" "$HERE/marker.h"; then
	log "cachesim: building bin/cachesim-mark (static)"
	gcc "${CFLAGS[@]}" -static -o "$DEST/bin/cachesim-mark.tmp" "$HERE/mark.c"
	mv -f -- "$DEST/bin/cachesim-mark.tmp" "$DEST/bin/cachesim-mark"
fi

if stale "$DEST/bin/cachesim-write" "$HERE/write.c" "$HERE/marker.h"; then
	log "cachesim: building bin/cachesim-write (static)"
	gcc "${CFLAGS[@]}" -static -o "$DEST/bin/cachesim-write.tmp" "$HERE/write.c"
	mv -f -- "$DEST/bin/cachesim-write.tmp" "$DEST/bin/cachesim-write"
fi

# Linked at 256 MiB, away from busybox's 4 MiB, so its PCs are its own.
if stale "$DEST/bin/cachesim-walk" "$HERE/walk.c" "$HERE/marker.h"; then
	log "cachesim: building bin/cachesim-walk (static)"
	gcc "${CFLAGS[@]}" -static -Wl,-Ttext-segment=0x10000000 \
		-o "$DEST/bin/cachesim-walk.tmp" "$HERE/walk.c"
	mv -f -- "$DEST/bin/cachesim-walk.tmp" "$DEST/bin/cachesim-walk"
fi

log "cachesim: built $DEST/cachesim.so and $DEST/bin/{cachesim-mark,cachesim-write,cachesim-walk}"
