#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Usage: harness/cachesim/validate.sh [BZIMAGE]
#
# Checks the cachesim data-cache model against walks whose miss counts are
# known, and measures what the plugin costs.  Boots BZIMAGE (default: the
# newer of out/tree-build and out/check/build; its build dir provides the
# modules and must sit at BZIMAGE/../../../..) twice under QEMU TCG with
# the same initramfs: once without the plugin (baseline), once with it.
# The guest (guest/50-cachesim-validate) reads one byte per 64-byte line
# of a 16 KiB, a 1 MiB and a 64 MiB buffer, each walk in its own phase.
# For the reads of walk_lines() alone, per line read, it expects:
#   16 KiB (fits L1):          L1 misses < 0.05
#   1 MiB  (L1 < size < LL):   L1 misses > 0.9, LL misses < 0.05
#   64 MiB (exceeds LL):       L1 and LL misses > 0.9
# and as many accesses as reads (+-1%).  Prints the measured numbers, the
# slowdown (QEMU wall time, kernel boot to /init, ns per read), the top
# kernel symbols of the boot phase, and exits non-zero when a check fails.
# Everything lands in out/cachesim/validate/.  Environment:
#   CACHESIM_ARGS     more plugin arguments, e.g. "index=virt,l1size=48K"
#                     (the checks assume the default geometry)
#   CACHESIM_RUNS     boots per configuration (default 1); the timings are
#                     the fastest of them, as the host may be busy
#   CACHESIM_TIMEOUT  bound on each boot (default 900 s)

# shellcheck source-path=SCRIPTDIR source=../common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../common.sh"

HERE=$TOP/harness/cachesim
DEST=$OUT/cachesim
V=$DEST/validate
TIMEOUT=${CACHESIM_TIMEOUT:-900}
RUNS=${CACHESIM_RUNS:-1}
case $RUNS in '' | *[!0-9]* | 0) die "CACHESIM_RUNS must be a positive number" ;; esac

[ $# -le 1 ] || die "usage: $0 [BZIMAGE]"
if [ $# = 1 ]; then
	BZIMAGE=$1
else
	BZIMAGE=
	for c in "$OUT/tree-build" "$OUT/check/build"; do
		c=$c/arch/x86/boot/bzImage
		if [ -f "$c" ] && { [ -z "$BZIMAGE" ] || [ "$c" -nt "$BZIMAGE" ]; }; then
			BZIMAGE=$c
		fi
	done
	[ -n "$BZIMAGE" ] || die "no bzImage in out/tree-build or out/check/build (make build)"
fi
BZIMAGE=$(realpath -e -- "$BZIMAGE") || die "no kernel image $BZIMAGE"
OBJ=$(cd "$(dirname "$BZIMAGE")/../../.." && pwd)
[ -f "$OBJ/.config" ] || die "no kernel build dir around $BZIMAGE ($OBJ/.config)"
grep -q '^CONFIG_64BIT=y' "$OBJ/.config" || die "$BZIMAGE is not a 64-bit kernel"
[ -d "$LINUX" ] || die "no kernel source $LINUX (make tree)"

"$HERE/build.sh"

# A snapshot of the kernel, in case its build dir is rebuilt meanwhile.
log "validate: kernel $BZIMAGE"
rm -rf -- "$V"
mkdir -p "$V/root/usr/bin" "$V/root/kseries/tests.d"
cp -- "$BZIMAGE" "$V/bzImage"
cp -- "$OBJ/System.map" "$V/System.map" || die "no $OBJ/System.map"
install -m 0755 "$DEST/bin/cachesim-mark" "$DEST/bin/cachesim-walk" "$V/root/usr/bin/"
install -m 0755 "$HERE/guest/50-cachesim-validate" "$V/root/kseries/tests.d/"
nm -n "$DEST/bin/cachesim-walk" >"$V/walk.nm"
"$TOP/harness/initramfs.sh" "$OBJ" "$LINUX" "$V/initramfs.cpio" "$V/root"

# run NAME [PLUGIN_ARGS]: one boot into $V/NAME, its QEMU wall time in
# $V/NAME/secs.
run() {
	local dir=$V/$1 rc=0 start append
	mkdir -p "$dir"
	append="console=ttyS0 panic=-1 oops=panic loglevel=7 nokaslr ${KSERIES_APPEND:-}"
	local qemu=(qemu-system-x86_64 -accel "tcg,thread=single" -smp 2 -m 1G -no-reboot
		-kernel "$V/bzImage" -initrd "$V/initramfs.cpio"
		-display none -monitor none -nodefaults
		-serial "file:$dir/console.log" -serial "file:$dir/results.log"
		-append "$append")
	if [ $# -gt 1 ]; then
		qemu+=(-plugin "$DEST/cachesim.so,outfile=$dir/cachesim.out${2:+,$2}")
	fi
	log "validate: boot $1 (timeout ${TIMEOUT}s)"
	start=$(date +%s.%N)
	timeout -k 10 "$TIMEOUT" "${qemu[@]}" </dev/null 2>"$dir/qemu.stderr" || rc=$?
	secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
	[ "$rc" = 0 ] || die "$1: QEMU rc=$rc after ${secs}s (see $dir/)"
	grep -q '^### END 50-cachesim-validate rc=0' "$dir/results.log" ||
		die "$1: the guest workload failed (see $dir/results.log)"
	grep -q '^### DONE' "$dir/results.log" || die "$1: the guest did not finish"
	echo "$secs" >"$dir/secs"
	log "validate: $1 done in ${secs}s"
}

# The guest clock's time at "Run /init" (kernel boot), from printk times.
init_time() {
	sed -n 's/^\[ *\([0-9.]*\)\] Run \/init as init process.*/\1/p' "$1" | head -n1
}

# Alternate the two configurations, so that load on the host hits both.
for i in $(seq 1 "$RUNS"); do
	sfx=
	[ "$i" = 1 ] || sfx=.$i
	run "baseline$sfx"
	run "plugin$sfx" "index=phys${CACHESIM_ARGS:+,$CACHESIM_ARGS}"
done

P=$V/plugin
# The kernel must run where System.map says (nokaslr).
stext=$(awk '$3 == "_stext" { print $1; exit }' "$V/System.map")
gstext=$(awk '$3 == "_stext" { print $1; exit }' "$P/results.log")
if [ -z "$stext" ] || [ "$stext" != "$gstext" ]; then
	die "_stext at ${gstext:-?} in the guest, ${stext:-?} in System.map"
fi
SYMS=(--syms "$V/System.map" --syms "$P/results.log" --syms "$V/walk.nm")
"$HERE/symbolize.py" "$P/cachesim.out" "${SYMS[@]}" --tsv >"$V/symbols.tsv"

# One line per walk: label reads ns_base ns_plugin accesses l1 ll, the
# counts from the first plugin run, the times the fastest of all runs.
walks=$(awk '
	FILENAME ~ /symbols.tsv$/ {
		if ($4 == "walk_lines") { acc[$3] = $5; l1[$3] = $6; ll[$3] = $7 }
		next
	}
	$1 == "walk" {
		for (i = 2; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
		w = f["label"]; ns = f["ns_per_touch"] + 0
		if (FILENAME ~ /\/baseline[^\/]*\/results.log$/) {
			if (!(w in base) || ns < base[w]) base[w] = ns
			next
		}
		if (!(w in reads)) { order[++n] = w; reads[w] = f["touches"] }
		if (!(w in plug) || ns < plug[w]) plug[w] = ns
	}
	END {
		for (i = 1; i <= n; i++) {
			w = order[i]
			print w, reads[w], base[w], plug[w], acc[w] + 0, l1[w] + 0, ll[w] + 0
		}
	}' "$V"/baseline*/results.log "$V"/plugin*/results.log "$V/symbols.tsv")
[ "$(echo "$walks" | wc -l)" = 3 ] || die "expected 3 walks, got: $walks"

# check NAME AWK_CONDITION: the condition over a, l1 and ll, the accesses
# and misses of walk $w per read.
fail=0
check() {
	if awk -v a="$acc" -v l1="$l1" -v ll="$ll" -v r="$reads" \
		"BEGIN { a /= r; l1 /= r; ll /= r; exit !($2) }"; then
		echo "PASS $w $1" >>"$V/checks.txt"
	else
		echo "FAIL $w $1" >>"$V/checks.txt"
		fail=1
	fi
}
printf '\n%-9s %9s %11s %12s %12s %10s %10s\n' walk reads accesses/read \
	L1miss/read LLmiss/read ns/read ns/read
printf '%-9s %9s %11s %12s %12s %10s %10s\n' "" "" "" "" "" baseline plugin
while read -r w reads nsb nsp acc l1 ll; do
	printf '%-9s %9d %11.4f %12.4f %12.4f %10.1f %10.1f\n' "$w" "$reads" \
		"$(awk -v a="$acc" -v r="$reads" 'BEGIN { print a / r }')" \
		"$(awk -v a="$l1" -v r="$reads" 'BEGIN { print a / r }')" \
		"$(awk -v a="$ll" -v r="$reads" 'BEGIN { print a / r }')" "$nsb" "$nsp"
	check "accesses/read within 1% of 1" "a > 0.99 && a < 1.01"
	case $w in
	walk16K) check "L1 misses/read < 0.05" "l1 < 0.05" ;;
	walk1M)
		check "L1 misses/read > 0.9" "l1 > 0.9"
		check "LL misses/read < 0.05" "ll < 0.05"
		;;
	walk64M)
		check "L1 misses/read > 0.9" "l1 > 0.9"
		check "LL misses/read > 0.9" "ll > 0.9"
		;;
	*) die "unexpected walk $w" ;;
	esac
done <<<"$walks"
echo
cat "$V/checks.txt"

# fastest KIND FILE_NAME: the smallest number in $V/KIND*/FILE_NAME.
fastest() {
	local f
	for f in "$V/$1"*/"$2"; do
		case $2 in
		console.log) init_time "$f" ;;
		*) cat -- "$f" ;;
		esac
	done | sort -g | head -n1
}
echo
echo "slowdown with the plugin (fastest of $RUNS run(s) each):"
awk -v b="$(fastest baseline secs)" -v p="$(fastest plugin secs)" \
	-v bi="$(fastest baseline console.log)" -v pi="$(fastest plugin console.log)" 'BEGIN {
	printf "  QEMU start to exit (boot, tests, kallsyms, poweroff): %.1f s -> %.1f s (x%.1f)\n", b, p, p / b
	if (bi > 0 && pi > 0)
		printf "  kernel boot to /init (guest clock): %.2f s -> %.2f s (x%.1f)\n", bi, pi, pi / bi
}'
echo "$walks" | awk '{ printf "  %s: %.1f -> %.1f ns per read (x%.1f)\n", $1, $3, $4, $4 / $3 }'

echo
echo "boot phase (before the first marker), kernel symbols:"
"$HERE/symbolize.py" "$P/cachesim.out" "${SYMS[@]}" --phase start --top 8
echo "walk1M vs walk64M, per read:"
r1=$(echo "$walks" | awk '$1 == "walk1M" { print $2 }')
r64=$(echo "$walks" | awk '$1 == "walk64M" { print $2 }')
"$HERE/symbolize.py" "$P/cachesim.out" "${SYMS[@]}" \
	--compare walk1M walk64M --hits "$r1" "$r64" --top 5
grep -h cachesim "$P/qemu.stderr" | sed 's/^/  /' || true

echo
log "validate: logs and tables in $V"
[ "$fail" = 0 ] || die "cachesim validation FAILED (see $V/checks.txt)"
log "validate: PASS"
