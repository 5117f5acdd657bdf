#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install the Debian packages the harness needs (root), or say which are
# missing.
. "$(dirname "$0")/common.sh"

PKGS="linux-source-6.12 bison flex libelf-dev libssl-dev bc cpio kmod
busybox-static qemu-system-x86 ccache dwarves sparse libglib2.0-dev
python3 python3-ply python3-git perl git make gcc libc6-dev gnuplot-nox valgrind
clang libbpf-dev zlib1g-dev procps"
missing=()
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
	die "missing packages; run: sudo apt-get install --no-install-recommends ${missing[*]}"
fi
log "deps: installing ${missing[*]}"
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
	"${missing[@]}" >"${TMPDIR:-/tmp}/kseries-apt.log" 2>&1 ||
	{ tail -20 "${TMPDIR:-/tmp}/kseries-apt.log"; die "apt-get install failed"; }
log "deps: done"
