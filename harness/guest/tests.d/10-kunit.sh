#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Loads the KUnit modules named in /kseries/kunit-modules (their suites run
# at load time), then prints every suite's debugfs results as KTAP.
# A module that fails to load shows up as a failed TAP case.

LIST=/kseries/kunit-modules
n=0

if [ -f "$LIST" ]; then
	while read -r mod; do
		case "$mod" in '' | '#'*) continue ;; esac
		n=$((n + 1))
		if modprobe "$mod" 2>&1; then
			echo "ok $n modprobe_$mod"
		else
			echo "not ok $n modprobe_$mod"
		fi
	done <"$LIST"
fi
[ "$n" -gt 0 ] && echo "1..$n"

for d in /sys/kernel/debug/kunit/*/; do
	[ -f "${d}results" ] || continue
	suite=$(basename "$d")
	echo "### KTAP $suite"
	cat "${d}results"
	echo "### ENDKTAP $suite"
done
exit 0
