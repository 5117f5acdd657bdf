#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Builds Debian bookworm's QEMU 7.2 source (x86_64-softmmu only, TCG, no
# optional features) twice: as it is (TB_JMP_CACHE_BITS 12, the jump
# cache of 4,096 translated blocks) and with TB_JMP_CACHE_BITS 16.
# Writes DIR/qemu-jmp12 and DIR/qemu-jmp16 (not stripped: perf names
# QEMU's functions) and DIR/wNN/qemu-system-x86_64 wrappers that add the
# firmware paths of Debian's qemu-system-data and seabios packages.
# Takes about 4 minutes on 2 cores with ccache.  Usage: build-qemu.sh DIR
set -euo pipefail
dir=$(realpath -m "${1:?usage: build-qemu.sh DIR}")
mkdir -p "$dir/src"
cd "$dir/src"
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
	meson ninja-build libpixman-1-dev zlib1g-dev libfdt-dev pkg-config python3 ccache >/dev/null
apt-get source --download-only qemu=1:7.2+dfsg-7+deb12u18 >/dev/null 2>&1
rm -rf qemu-7.2.0
tar xf qemu_7.2+dfsg.orig.tar.xz
cd qemu-7.2.0
# The dfsg tarball lacks the EDK2 images the build would unpack.
sed -i 's/^    unpack_edk2_blobs = bzip2.found()/    unpack_edk2_blobs = false/' meson.build
mkdir build
cd build
../configure --target-list=x86_64-softmmu --without-default-features --enable-tcg \
	--disable-kvm --disable-docs --disable-werror --enable-fdt=system \
	--disable-install-blobs --cc="ccache gcc" --cxx="ccache g++" >../configure.log
for bits in 12 16; do
	sed -i "s/^#define TB_JMP_CACHE_BITS .*/#define TB_JMP_CACHE_BITS $bits/" ../accel/tcg/tb-jmp-cache.h
	echo "[$(date +%T)] building TB_JMP_CACHE_BITS $bits"
	ninja -j"$(nproc)" qemu-system-x86_64 >../build-$bits.log
	cp qemu-system-x86_64 "$dir/qemu-jmp$bits"
	mkdir -p "$dir/w$bits"
	printf '#!/bin/sh\nexec %s -L /usr/share/qemu -L /usr/share/seabios "$@"\n' \
		"$dir/qemu-jmp$bits" >"$dir/w$bits/qemu-system-x86_64"
	chmod +x "$dir/w$bits/qemu-system-x86_64"
done
