#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Usage: fninsns.sh OBJECT FUNCTION
# Prints the number of instructions of FUNCTION in OBJECT, then its
# disassembly (objdump, no raw bytes).
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: $0 OBJECT FUNCTION" >&2; exit 2; }
dis=$(objdump -d --no-show-raw-insn "$1" |
	awk -v f="<$2>:" '$2 == f { on = 1; next } on && /^$/ { exit } on')
[ -n "$dis" ] || { echo "$2 not in $1" >&2; exit 1; }
echo "$2: $(echo "$dis" | grep -c ':') instructions"
echo "$dis"
