#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Usage: initramfs.sh OBJ SRC OUTFILE [EXTRA_DIR...]
#
# Builds an uncompressed newc cpio for the test guest: static busybox with
# its applet links, the modules of OBJ, /init, the shipped tests under
# /kseries/tests.d and the contents of each EXTRA_DIR copied over the root.

. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

[ $# -ge 3 ] || die "usage: $0 OBJ SRC OUTFILE [EXTRA_DIR...]"
OBJ=$(realpath -e -- "$1") || die "no build dir $1"
SRC=$(realpath -e -- "$2") || die "no source tree $2"
OUTFILE=$(realpath -m -- "$3")
shift 3
HARNESS=$TOP/harness
BUSYBOX=${BUSYBOX:-/bin/busybox}

[ -x "$BUSYBOX" ] || die "no $BUSYBOX (install busybox-static)"
"$BUSYBOX" --list-full >/dev/null 2>&1 || die "$BUSYBOX lacks --list-full"
if ldd "$BUSYBOX" >/dev/null 2>&1; then
	die "$BUSYBOX is dynamically linked (install busybox-static)"
fi

STAGE=$(mktemp -d "${TMPDIR:-/tmp}/kseries-initramfs.XXXXXX")
trap 'rm -rf -- "$STAGE"' EXIT
log "initramfs: staging in $STAGE"

# Base layout and busybox with one link per applet.
mkdir -p "$STAGE"/{bin,sbin,usr/bin,usr/sbin,dev,proc,sys,tmp,root,etc}
mkdir -p "$STAGE/kseries/tests.d"
chmod 1777 "$STAGE/tmp"
install -m 0755 "$BUSYBOX" "$STAGE/bin/busybox"
while read -r applet; do
	[ "$applet" = bin/busybox ] && continue
	mkdir -p "$STAGE/$(dirname "$applet")"
	ln -sf /bin/busybox "$STAGE/$applet"
done < <("$BUSYBOX" --list-full)

# Modules, with depmod so that busybox modprobe finds them.
if grep -q '^CONFIG_MODULES=y' "$OBJ/.config" && [ -s "$OBJ/modules.order" ]; then
	krel=$(cat "$OBJ/include/config/kernel.release")
	log "initramfs: modules_install for $krel"
	cc=$(kmake_cc)
	make -s -C "$SRC" O="$OBJ" ${cc:+"$cc"} INSTALL_MOD_PATH="$STAGE" \
		INSTALL_MOD_STRIP=1 modules_install >&2
	depmod -b "$STAGE" "$krel"
	rm -f "$STAGE/lib/modules/$krel/build" "$STAGE/lib/modules/$krel/source"
else
	log "initramfs: no modules"
fi

# /init and the shipped guest tests, then the extra dirs on top.
install -m 0755 "$HARNESS/guest/init" "$STAGE/init"
for t in "$HARNESS"/guest/tests.d/*; do
	[ -f "$t" ] && install -m 0755 "$t" "$STAGE/kseries/tests.d/"
done
for d in "$@"; do
	[ -d "$d" ] || die "no extra dir $d"
	log "initramfs: adding $d"
	cp -a -- "$d/." "$STAGE/"
done

# The kernel opens /dev/console before /init runs, so it must exist.
mknod -m 0600 "$STAGE/dev/console" c 5 1 2>/dev/null ||
	die "cannot mknod /dev/console (needs root)"

mkdir -p "$(dirname "$OUTFILE")"
(cd "$STAGE" && find . -mindepth 1 -print0 | LC_ALL=C sort -z |
	cpio --quiet --null -o -H newc --owner=0:0 --reproducible) \
	>"$OUTFILE.tmp"
mv -f -- "$OUTFILE.tmp" "$OUTFILE"
log "initramfs: wrote $OUTFILE ($(du -k "$OUTFILE" | cut -f1) KiB)"
