#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# hitpath: no helper of the kprobe lookup can be probed.  The int3, NMI and
# ftrace handlers look probes up through get_kprobe_cached() and
# get_kprobe() (both NOKPROBE_SYMBOL); what those call must be inlined
# into them or be on the kprobe blacklist itself, or a probe on it
# recurses.  A compiler may emit a "static inline" function out of line
# (-Os, KASAN, GCOV), so each object of the hit path is compiled again
# with -fno-inline, which emits every function that is not
# __always_inline, and every helper named below must then be absent from
# it or blacklisted.  The helpers: every static function of
# kernel/kprobe_cache.h and kernel/kprobe_hash.h, and the
# index's lookup helpers in kernel/kprobes.c.
# Usage: hitpath.sh SRC OBJ RESULTS   (OBJ: a built tree of SRC)
. "$(dirname "$0")/common.sh"

SRC=$(realpath "$1") OBJ=$(realpath "$2") RES=$3
objs="kernel/kprobes.o kernel/kprobe_cache.o arch/x86/kernel/kprobes/core.o
arch/x86/kernel/kprobes/ftrace.o arch/x86/kernel/kprobes/opt.o"
tmp=$OBJ/hitpath
rm -rf "$tmp"
mkdir -p "$tmp"

names=$( {
	hdrs=("$SRC"/kernel/kprobe_cache.h "$SRC"/kernel/kprobe_hash.h)
	# "static TYPE name(", and "static TYPE" with "name(" on the next line.
	cat "${hdrs[@]}" 2>/dev/null | sed -n 's/^static .*[ *]\([a-z_0-9]*\)(.*/\1/p'
	grep -h -A1 '^static [a-z_ ]*\*\?$' "${hdrs[@]}" 2>/dev/null |
		sed -n 's/^\([a-z_0-9]*\)(.*/\1/p'
	echo kprobe_index_lookup
	echo kprobe_index_slots
} | sort -u)

# probeable OBJECT: the helpers defined in OBJECT and not blacklisted.
probeable() {
	local black
	black=$(readelf -rW "$1" 2>/dev/null | awk '
		/^Relocation section/ { on = ($3 ~ /_kprobe_blacklist/) ; next }
		on && NF >= 5 { sub(/[+-].*/, "", $5); print $5 }' | sort -u)
	nm --defined-only "$1" | awk '$2 ~ /^[tT]$/ { sub(/\..*/, "", $3); print $3 }' |
		sort -u | comm -12 - <(echo "$names") | comm -23 - <(echo "$black")
}

bad= n=0
for o in $objs; do
	[ -f "$OBJ/$o" ] || continue
	cmdf=$OBJ/$(dirname "$o")/.$(basename "$o").cmd
	cmd=$(sed -n "s|^savedcmd_$o := ||p" "$cmdf" 2>/dev/null | sed 's/ *;.*//')
	if [ -z "$cmd" ]; then
		bad=1
		log "hitpath: no compile command for $o in $cmdf"
		continue
	fi
	out=$tmp/$(basename "$o")
	cmd=${cmd/ -o $o / -o $out }
	cmd=$(echo "$cmd" | sed "s|-Wp,-MMD,[^ ]*|-Wp,-MMD,$out.d|")
	if ! (cd "$OBJ" && eval "$cmd -fno-inline") >"$out.log" 2>&1; then
		bad=1
		log "hitpath: $o does not compile with -fno-inline (see $out.log)"
		continue
	fi
	n=$((n + 1))
	for f in "$OBJ/$o" "$out"; do
		p=$(probeable "$f" | tr '\n' ' ')
		[ -z "$p" ] || { bad=1; log "hitpath: $f: probeable hit-path helpers: $p"; }
	done
done
what="hit path: no kprobe lookup helper can be probed ($n objects, as built and with -fno-inline)"
if [ -n "$bad" ] || [ "$n" -eq 0 ]; then
	rec FAIL "$what"
	exit 1
fi
rec PASS "$what"
