#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The guest the other tests rely on: two CPUs online, debugfs and tracefs
# mounted, kprobes enabled.
echo "TAP version 13"
echo "1..4"
n=$(grep -c '^processor' /proc/cpuinfo)
online=$(cat /sys/devices/system/cpu/online)
echo "# CPUs: $n, online: $online"
[ "$n" -eq 2 ] && [ "$online" = 0-1 ] && echo "ok 1 two_cpus_online" ||
	echo "not ok 1 two_cpus_online"
[ -d /sys/kernel/debug/kprobes ] && echo "ok 2 debugfs_kprobes" ||
	echo "not ok 2 debugfs_kprobes"
[ -f /sys/kernel/tracing/kprobe_events ] && echo "ok 3 tracefs_kprobe_events" ||
	echo "not ok 3 tracefs_kprobe_events"
[ "$(cat /sys/kernel/debug/kprobes/enabled)" = 1 ] && echo "ok 4 kprobes_enabled" ||
	echo "not ok 4 kprobes_enabled"
