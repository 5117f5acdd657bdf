#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the developer's tree ($OUT/linux, the series branch as checked out,
# with any uncommitted edits) for the QEMU guest; with --shell, boot it to
# an interactive busybox shell.
. "$(dirname "$0")/common.sh"

cc=$(kmake_cc)

OBJ=$OUT/tree-build
[ -d "$LINUX/.git" ] && git -C "$LINUX" rev-parse -q --verify refs/heads/series >/dev/null ||
	"$TOP/harness/tree.sh"
mkdir -p "$OBJ"
"$TOP/harness/kconfig.sh" "$LINUX" "$OBJ" "$TOP/harness/configs/qemu.config"
log "build: $LINUX ($(git -C "$LINUX" describe --always --dirty))"
make -C "$LINUX" O="$OBJ" ${cc:+"$cc"} -j"$JOBS" all >"$OBJ/build.log" 2>&1 ||
	{ tail -30 "$OBJ/build.log"; die "build failed, see $OBJ/build.log"; }
log "build: done"
[ "${1:-}" = --shell ] || exit 0
"$TOP/harness/initramfs.sh" "$OBJ" "$LINUX" "$OUT/shell/initramfs.cpio"
exec "$TOP/harness/boot.sh" --shell "$OBJ/arch/x86/boot/bzImage" \
	"$OUT/shell/initramfs.cpio" "$OUT/shell"
