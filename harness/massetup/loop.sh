#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# loop.sh COUNT: the syscall loop of guest-massetup.sh (COUNT reads of
# /proc/self/stat), as a command of its own for kmulti to run.
i=0
while [ "$i" -lt "$1" ]; do
	read -r _ </proc/self/stat
	i=$((i + 1))
done
