#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Stress test of the kprobe lookup cache (CONFIG_KPROBE_CACHE).
#
# Loads test_kprobe_cache, whose init registers, aggregates, disables,
# enables and unregisters kprobes at random for a while, on the ftrace and
# the int3 hit paths, while every CPU hits them; the load fails if a
# handler ran when it must not have.  Then checks that no probe of the
# module is left, that the cache answered lookups, and that its memory
# follows the switch (none while it is off).
#
# Usage: $0 [SECONDS]
# The duration is SECONDS, else $STRESS_SECONDS, else 60.  The settings
# file allows 180 s in all; override the kselftest timeout for longer runs.

module=test_kprobe_cache
debugfs=/sys/kernel/debug
kprobes=$debugfs/kprobes
stats=$kprobes/cache_stats
enabled=$kprobes/cache_enabled
seconds=${1:-${STRESS_SECONDS:-60}}
. "$(dirname "$0")/../kselftest/ktap_helpers.sh"

skip_all()
{
	ktap_print_header
	ktap_skip_all "$*"
	exit "$KSFT_SKIP"
}

ok() { ktap_test_pass "$*"; }
not_ok() { ktap_test_fail "$*"; }

comment()
{
	sed 's/^/# /'
}

# Prints the number after "hits" on the "all" line of cache_stats.
all_hits()
{
	awk '$1 == "all" {
		for (i = 2; i < NF; i++)
			if ($i == "hits")
				print $(i + 1)
	}' "$stats"
}

# Prints the number after "$1" on the first line of cache_stats.
stats_field()
{
	awk -v k="$1" '$1 == "enabled" {
		for (i = 1; i < NF; i++)
			if ($i == k)
				print $(i + 1)
	}' "$stats"
}

# Prints the number of possible CPUs (a list such as 0-3,8-11).
possible_cpus()
{
	awk -F, '{
		for (i = 1; i <= NF; i++)
			c += split($i, r, "-") == 2 ? r[2] - r[1] + 1 : 1
		print c
	}' /sys/devices/system/cpu/possible
}

# Kernel messages of this run's module, without their timestamps.
report()
{
	if [ -n "$marker" ]; then
		dmesg | sed -n "/$marker/,\$p"
	else
		dmesg
	fi | grep "$module: " | sed 's/^\[[^]]*\] *//'
}

case "$seconds" in
''|*[!0-9]*)
	echo "usage: $0 [SECONDS]" >&2
	exit 1
	;;
esac

[ "$(id -u)" -eq 0 ] || skip_all "must be run as root"

if [ ! -d "$kprobes" ] && ! grep -q " $debugfs debugfs " /proc/mounts; then
	mount -t debugfs none "$debugfs" 2>/dev/null
fi
[ -e "$stats" ] || skip_all "no $stats: kernel without CONFIG_KPROBE_CACHE"

moddir=/lib/modules/$(uname -r)
if [ -r "$moddir/modules.builtin" ] &&
   grep -q "/$module\.ko" "$moddir/modules.builtin"; then
	skip_all "$module is built in: it ran at boot"
fi
# modprobe -n is not reliable (busybox); modules.dep is, when present.
if [ -r "$moddir/modules.dep" ] &&
   ! grep -q "/$module\.ko[^:]*:" "$moddir/modules.dep"; then
	skip_all "module $module not found"
fi

if [ -d "/sys/module/$module" ]; then
	rmmod "$module" 2>/dev/null ||
		skip_all "$module is loaded and cannot be removed"
fi

ktap_print_header
ktap_set_plan 4
echo "# $module for $seconds s"

# The module can only turn the cache on with CONFIG_KUNIT: make sure it
# is on, and restore the setting afterwards.
was_enabled=
if [ -r "$enabled" ]; then
	was_enabled=$(cat "$enabled")
	echo 1 > "$enabled"
fi
echo reset > "$stats" || echo "# cannot reset $stats"

marker=
if echo "kprobe_cache_stress: start $$" > /dev/kmsg 2>/dev/null; then
	marker="kprobe_cache_stress: start $$"
fi

before=$(mktemp) || exit 1
cat "$kprobes/list" > "$before" 2>/dev/null

# 1: the module's checks pass (its init fails otherwise).
if modprobe "$module" "seconds=$seconds"; then
	ok "$module seconds=$seconds"
else
	not_ok "$module seconds=$seconds"
fi
report | comment

# 2: no probe of the module is left, and no probe appeared during the run.
if [ ! -r "$kprobes/list" ]; then
	ok "no probe left # SKIP no $kprobes/list"
else
	new=$(grep -v -x -F -f "$before" "$kprobes/list")
	if [ -n "$new" ] || grep -q -e "$module" -e "tkc_" "$kprobes/list"; then
		not_ok "no probe left"
		{
			echo "$new"
			grep -e "$module" -e "tkc_" "$kprobes/list"
		} | sort -u | comment
	else
		ok "no probe left"
	fi
fi
rm -f "$before"

# 3: the cache answered lookups during the run.
hits=$(all_hits)
grep -e "^enabled" -e "^all" "$stats" | comment
if [ -n "$hits" ] && [ "$hits" -gt 0 ]; then
	ok "cache hits $hits"
else
	not_ok "cache hits ${hits:-unknown}"
fi

if [ -d "/sys/module/$module" ]; then
	rmmod "$module" || echo "# cannot remove $module"
fi

# 4: the caches take memory only while the switch is on: none once it is
# turned off, bytes_per_cpu on each possible CPU once it is turned on.
echo 0 > "$enabled"
off=$(stats_field allocated)
echo 1 > "$enabled"
on=$(stats_field allocated)
want=$(($(stats_field bytes_per_cpu) * $(possible_cpus)))
if [ "$off" = 0 ] && [ "$on" = "$want" ]; then
	ok "cache memory: $off bytes off, $on on"
else
	not_ok "cache memory: ${off:-unknown} bytes off, ${on:-unknown} on (want 0 and $want)"
fi

if [ -n "$was_enabled" ]; then
	echo "$was_enabled" > "$enabled"
fi

ktap_finished
