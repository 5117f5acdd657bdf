#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Usage: boot.sh [--shell] BZIMAGE INITRAMFS LOGDIR [TIMEOUT_S]
#
# Boots the test guest under QEMU (TCG, 2 CPUs). The console goes to
# LOGDIR/console.log, the framed test results to LOGDIR/results.log.
# With --shell the console is this terminal and the guest starts a shell.
# Exits with QEMU's status, or 124 when the timeout (default 900 s) hit.
# KSERIES_APPEND adds to the kernel command line, QEMU_CPU picks the CPU
# model (QEMU's default when unset).

. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

shell=0
if [ "${1:-}" = --shell ]; then
	shell=1
	shift
fi
[ $# -ge 3 ] && [ $# -le 4 ] ||
	die "usage: $0 [--shell] BZIMAGE INITRAMFS LOGDIR [TIMEOUT_S]"
BZIMAGE=$1 INITRAMFS=$2 LOGDIR=$3 TIMEOUT=${4:-900}
[ -f "$BZIMAGE" ] || die "no kernel image $BZIMAGE"
[ -f "$INITRAMFS" ] || die "no initramfs $INITRAMFS"
mkdir -p -- "$LOGDIR"
rm -f -- "$LOGDIR/console.log" "$LOGDIR/results.log"

append="console=ttyS0 panic=-1 oops=panic loglevel=7 ${KSERIES_APPEND:-}"
# Single-threaded TCG: with one host thread per vCPU (QEMU 7.2's default),
# a vCPU can keep running a stale translation of kernel text that another
# vCPU has just rewritten (ftrace and kprobes patch code through int3
# while other CPUs execute it), and trap on an int3 that is no longer in
# memory.  The vCPUs still interleave, one host thread at a time.
qemu=(qemu-system-x86_64 -accel "${QEMU_ACCEL:-tcg,thread=single}" -smp 2 -m 1G -no-reboot
	-kernel "$BZIMAGE" -initrd "$INITRAMFS"
	-display none -monitor none -nodefaults)
# QEMU_CPU=max: every CPU feature TCG emulates (the distribution-like boot).
[ -z "${QEMU_CPU:-}" ] || qemu+=(-cpu "$QEMU_CPU")
# QEMU_ICOUNT=shift=0,sleep=off: the guest's clocks count executed guest
# instructions (1 ns each with shift=0) instead of host time: host load
# and the emulator's own costs (its software TLB, translation lookups) no
# longer show in guest timings, and neither does any memory latency.
[ -z "${QEMU_ICOUNT:-}" ] || qemu+=(-icount "$QEMU_ICOUNT")
if [ "$shell" = 1 ]; then
	# Interactive: serial 0 on this terminal, Ctrl-A X quits QEMU.
	qemu+=(-serial mon:stdio -append "$append kseries.shell=1")
else
	qemu+=(-serial "file:$LOGDIR/console.log" -append "$append")
fi
qemu+=(-serial "file:$LOGDIR/results.log")

start=$(date +%s.%N)
log "boot: starting QEMU (timeout ${TIMEOUT}s, logs in $LOGDIR)"
if [ "$shell" = 1 ]; then
	rc=0
	timeout --foreground -k 10 "$TIMEOUT" "${qemu[@]}" || rc=$?
else
	rc=0
	timeout -k 10 "$TIMEOUT" "${qemu[@]}" </dev/null || rc=$?
fi
secs=$(printf '%.1f' "$(echo "$(date +%s.%N) - $start" | bc)")
if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
	log "boot: TIMEOUT after ${secs}s: QEMU killed (see $LOGDIR/console.log)"
	exit 124
fi
log "boot: QEMU exited rc=$rc after ${secs}s"
exit "$rc"
