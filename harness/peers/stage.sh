#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Usage: stage.sh KSERIES_DIR [PEERS_ENV_LINE...]
# Builds the guest side of the kstats/BPF/hist comparison into
# KSERIES_DIR (the /kseries tree of an initramfs): peers/callbench and
# peers/funclat (static), peers/funclat.bpf.o, peers/peers.env (the given
# lines) and tests.d/50-peers.sh.  Used by harness/peers.sh (make peers)
# and harness/runtests.sh (the short run of make check).
. "$(dirname "$0")/../common.sh"

[ $# -ge 1 ] || die "usage: $0 KSERIES_DIR [PEERS_ENV_LINE...]"
g=$1
shift
P=$TOP/harness/peers

command -v clang >/dev/null || die "no clang (make deps)"
for lib in libbpf.a libelf.a libz.a; do
	[ -f "$(gcc -print-file-name=$lib)" ] || die "no static $lib (make deps)"
done
mkdir -p "$g/peers" "$g/tests.d"
gcc -static -O2 -Wall -Wextra -o "$g/peers/callbench" "$P/callbench.c" ||
	die "cannot build callbench"
clang -target bpf -O2 -g -Wall -I"/usr/include/$(gcc -dumpmachine)" \
	-c "$P/funclat.bpf.c" -o "$g/peers/funclat.bpf.o" ||
	die "cannot build funclat.bpf.o"
gcc -static -O2 -Wall -Wextra -I"$TOP/harness" -o "$g/peers/funclat" "$P/funclat.c" \
	-lbpf -lelf -lz || die "cannot build funclat"
install -m 0755 "$P/guest-peers.sh" "$g/tests.d/50-peers.sh"
printf '%s\n' "$@" >"$g/peers/peers.env"
log "peers: callbench, funclat and funclat.bpf.o built"
