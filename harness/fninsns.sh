#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Usage: fninsns.sh OBJECT FUNCTION
# Prints the number of instructions of FUNCTION in OBJECT and of those up
# to its first return, then its disassembly (objdump, no raw bytes).
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: $0 OBJECT FUNCTION" >&2; exit 2; }
dis=$(objdump -d --no-show-raw-insn "$1" |
	awk -v f="<$2>:" '$2 == f { on = 1; next } on && /^$/ { exit } on')
[ -n "$dis" ] || { echo "$2 not in $1" >&2; exit 1; }
all=$(echo "$dis" | grep -c ':')
first_ret=$(echo "$dis" | awk '/:/ { n++ } /\tret|jmp.*__x86_return_thunk/ { print n; exit }')
echo "$2: $all instructions, $first_ret up to the first return"
echo "$dis"
