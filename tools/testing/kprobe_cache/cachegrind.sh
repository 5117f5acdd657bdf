#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Data read misses per cold lookup in cachegrind's cache simulation, of
# walk_lookup() (the chain walk), index_lookup() (get_kprobe() with the
# index) and the kernel's get_kprobe_cached() with kprobe_cache_miss(),
# kprobe_cache_fill() and get_kprobe_from_index() (the kprobe cache, its
# miss path with the index and the insertion, and its bypass), with
# H=16 hot probes among N=1000, 10000 and 40000, and H=4096 among 40000
# (more than the cache holds).  Only the misses that cg_annotate
# attributes to those functions (and to the code inlined into them) count;
# table building, cache warming and the cache flushing between lookups
# are other functions.
#
# Then the cache in the steady state of H=4096 among N=40000, a hot set it
# cannot hold: from the start of a bypass, STEADY lookups (about one cycle
# of a bypass and the window of cache misses after it; quick: COUNT, all
# of them bypassed).
#
# Arguments: none for the full table, or quick for N=1000 and 40000 only.
#
# Environment:
#   COUNT	lookups per run (default 200, quick 100)
#   STEADY	lookups of the steady-state run (default 4400, quick COUNT)
#   CG_LL	cachegrind's --LL=size,assoc,line (default: the host's last
#		level cache as sysfs reports it; cachegrind's own guess can be
#		far off in a VM)
#   TASKSET	a command prefix to pin the runs, e.g. "taskset -c 1"
#   STRIDE	place the probes STRIDE bytes apart instead of at random
#		(kprobe_cache_bench --stride)

set -e
prog=${0##*/}
cd "$(dirname "$0")"

bench=./kprobe_cache_bench
points="1000:16 10000:16 40000:16 40000:4096"
count=${COUNT:-200}
steady=${STEADY:-4400}
if [ "$1" = quick ]; then
	points="1000:16 40000:16 40000:4096"
	count=${COUNT:-100}
	steady=${STEADY:-$count}
elif [ -n "$1" ]; then
	echo "Usage: $prog [quick]" >&2
	exit 2
fi

if ! command -v valgrind >/dev/null 2>&1 ||
   ! command -v cg_annotate >/dev/null 2>&1; then
	echo "$prog: valgrind or cg_annotate not found, skipped"
	exit 0
fi
[ -x "$bench" ] || { echo "$prog: build $bench first" >&2; exit 1; }

# size in bytes of a sysfs cache size such as 32768K
to_bytes() {
	case "$1" in
	*K) echo $((${1%K} * 1024)) ;;
	*M) echo $((${1%M} * 1024 * 1024)) ;;
	*) echo "$1" ;;
	esac
}

if [ -z "$CG_LL" ]; then
	llc=
	for d in /sys/devices/system/cpu/cpu0/cache/index*; do
		[ -r "$d/type" ] || continue
		[ "$(cat "$d/type")" = Instruction ] || llc=$d
	done
	if [ -z "$llc" ]; then
		echo "$prog: no cache sizes in sysfs (a VM may have none): set CG_LL" >&2
		exit 1
	fi
	size=$(to_bytes "$(cat "$llc/size")")
	ways=$(cat "$llc/ways_of_associativity")
	line=$(cat "$llc/coherency_line_size")
	# cachegrind needs a power of two number of sets
	sets=$((size / (ways * line)))
	p=1
	while [ $((p * 2)) -le "$sets" ]; do
		p=$((p * 2))
	done
	CG_LL=$((p * ways * line)),$ways,$line
fi
evict_kib=$((${CG_LL%%,*} * 2 / 1024))

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# D1 and LL read misses per lookup of walk_lookup, index_lookup,
# get_kprobe_cached, kprobe_cache_miss, kprobe_cache_fill and
# get_kprobe_from_index (a run calls one of the first two, or the third
# and, on a cache miss, the next three, when bypassing the last)
fns='walk_lookup|index_lookup|get_kprobe_from_index|get_kprobe_cached'
fns="$fns|kprobe_cache_miss|kprobe_cache_fill"
misses() {
	cg_annotate --show=D1mr,DLmr --show-percs=no --threshold=0 \
		--auto=no "$1" |
	awk -v count="$count" \
	    -v fns="$fns" '
		$NF ~ (":(" fns ")(\\.[0-9A-Za-z_.]+)?$") {
			gsub(",", "", $1)
			gsub(",", "", $2)
			d1 += $1
			ll += $2
		}
		END { printf "%.2f %.2f", d1 / count, ll / count }'
}

# run VARIANT N H COUNT OUT: one cachegrind run of the benchmark
run() {
	if ! $TASKSET valgrind --tool=cachegrind --cache-sim=yes \
		--LL="$CG_LL" --cachegrind-out-file="$5" \
		"$bench" ${STRIDE:+--stride "$STRIDE"} \
		--cachegrind "$1" "$2" "$3" "$4" "$evict_kib" \
		>"$5.log" 2>&1; then
		cat "$5.log" >&2
		exit 1
	fi
	grep '^cachegrind:' "$5.log"
}

rows=
for pt in $points; do
	n=${pt%:*}
	hot=${pt#*:}
	row="$n $hot"
	for v in walk index cache; do
		out=$tmp/$v.$n.$hot
		run $v "$n" "$hot" "$count" "$out"
		row="$row $(misses "$out")"
	done
	rows="$rows$row
"
done

echo "simulated caches (cachegrind --LL=$CG_LL, flush $evict_kib KiB):"
grep '^desc:' "$out" | sed 's/^desc: */  /'
layout=${STRIDE:+, probes $STRIDE bytes apart}
echo "data read misses per cold lookup, $count lookups per run$layout:"
printf '%6s %5s %8s %8s %9s %9s %9s %9s\n' N H walk_D1 walk_LL \
	index_D1 index_LL cache_D1 cache_LL
printf '%s' "$rows" | while read -r n h wd1 wll xd1 xll cd1 cll; do
	printf '%6s %5s %8s %8s %9s %9s %9s %9s\n' "$n" "$h" "$wd1" "$wll" \
		"$xd1" "$xll" "$cd1" "$cll"
done

# The steady state of a hot set that overflows the cache.
out=$tmp/steady
run steady 40000 4096 "$steady" "$out" >/dev/null
mix=$(grep -o 'cache_hits=.*' "$out.log" | sed 's/cache_//g')
count=$steady
echo "steady: N=40000 H=4096 lookups=$steady $mix D1_LL=$(misses "$out" | tr ' ' /)"
