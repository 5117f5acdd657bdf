#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Usage: stage.sh KSERIES_DIR SCRIPT_NAME [MASSETUP_ENV_LINE...]
# Stages the guest side of the mass setup into KSERIES_DIR (the /kseries
# tree of an initramfs): tests.d/SCRIPT_NAME (guest-massetup.sh),
# massetup/massetup.env (the given lines), massetup/evdefine (static)
# and, unless a line sets MS_PEERS=0, the BPF kprobe_multi peer
# (massetup/kmulti, static, its kmulti.bpf.o and loop.sh).  Used by
# harness/massetup.sh (make massetup) and harness/bench.sh (make bench).
. "$(dirname "$0")/../common.sh"

[ $# -ge 2 ] || die "usage: $0 KSERIES_DIR SCRIPT_NAME [MASSETUP_ENV_LINE...]"
g=$1 name=$2
shift 2
M=$TOP/harness/massetup
mkdir -p "$g/tests.d" "$g/massetup"
install -m 0755 "$M/guest-massetup.sh" "$g/tests.d/$name"
printf '%s\n' "$@" >"$g/massetup/massetup.env"
gcc -static -O2 -Wall -Wextra -o "$g/massetup/evdefine" "$M/evdefine.c" ||
	die "cannot build evdefine"
case " $* " in *" MS_PEERS='0' "* | *" MS_PEERS=0 "*) exit 0 ;; esac
command -v clang >/dev/null || die "no clang (make deps)"
for lib in libbpf.a libelf.a libz.a; do
	[ -f "$(gcc -print-file-name=$lib)" ] || die "no static $lib (make deps)"
done
clang -target bpf -O2 -g -Wall -I"/usr/include/$(gcc -dumpmachine)" \
	-c "$M/kmulti.bpf.c" -o "$g/massetup/kmulti.bpf.o" || die "cannot build kmulti.bpf.o"
gcc -static -O2 -Wall -Wextra -I"$TOP/harness" -o "$g/massetup/kmulti" "$M/kmulti.c" -lbpf -lelf -lz ||
	die "cannot build kmulti"
install -m 0755 "$M/loop.sh" "$g/massetup/loop.sh"
