#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Stands in for qemu-system-x86_64 (run.sh installs it with QEMU_BIN
# replaced): QEMU under perf, its cpu-clock sampled at 1,999 Hz and its
# writes recorded, so that profile.py can split the samples at the host
# times at which the guest's progress lines reached the results file.
case "$*" in *--version*) exec QEMU_BIN "$@";; esac
exec perf record -q -e cpu-clock/freq=1999/ -e syscalls:sys_enter_write \
	-e syscalls:sys_enter_writev -e syscalls:sys_enter_pwritev \
	-e syscalls:sys_enter_pwrite64 -k CLOCK_MONOTONIC -o "${QPERF:-qemu-perf}.data" \
	-- QEMU_BIN -L /usr/share/qemu -L /usr/share/seabios "$@"
