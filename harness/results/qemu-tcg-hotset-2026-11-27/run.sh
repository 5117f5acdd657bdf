#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The same kernel (the series from patches/) and the same short sweep of
# make bench (one probe registered, 1, 16 and 4,096 hot, every path)
# under Debian's QEMU and under the two builds of build-qemu.sh, one boot
# each, in the order given (default: w16 debian w12); then, for the
# profile, one boot per path (ftrace, opt) under the TB_JMP_CACHE_BITS 12
# build run by perf (cpu-clock samples and QEMU's writes, see perf.sh),
# with 100 times the calls per point so that each window lasts seconds.
# Usage: run.sh QEMU_DIR OUT_DIR [VARIANT...]    (from the repository's top)
set -euo pipefail
qdir=$(realpath "${1:?usage: run.sh QEMU_DIR OUT_DIR [VARIANT...]}")
out=$(realpath -m "${2:?usage: run.sh QEMU_DIR OUT_DIR [VARIANT...]}")
shift 2
here=$(cd "$(dirname "$0")" && pwd)
B=$out/bench
mkdir -p "$out"
common=(ENABLE_N=0 BASE_N=0 PRE_N=0 BOOST_N=0 CHURN_BATCH=0 N=1 H_BIG=4096 BIG_N=1)
vars=("$@")
[ ${#vars[@]} -gt 0 ] || vars=(w16 debian w12)
for q in "${vars[@]}"; do
	p=$PATH
	[ "$q" = debian ] || p=$qdir/$q:$PATH
	echo "[$(date +%T)] $q"
	env PATH="$p" BENCH_OUT="$B" "${common[@]}" H="1 16" \
		BIG_PATHS="ftrace int3 kretprobe opt" harness/bench.sh >"$out/$q.log" 2>&1
	mkdir -p "$out/$q"
	cp -r "$B/results/report.md" "$B/boot/results.log" "$out/$q/"
done
mkdir -p "$qdir/wperf"
sed "s|QEMU_BIN|$qdir/qemu-jmp12|" "$here/perf.sh" >"$qdir/wperf/qemu-system-x86_64"
chmod +x "$qdir/wperf/qemu-system-x86_64"
for path in ftrace opt; do
	echo "[$(date +%T)] perf, $path"
	env PATH="$qdir/wperf:$PATH" QPERF="$out/perf-$path" BENCH_OUT="$B" "${common[@]}" \
		H=1 LOOPS=4800000 PATHS=$path BIG_PATHS=$path harness/bench.sh >"$out/perf-$path.log" 2>&1
	cp "$B/boot/results.log" "$out/perf-$path.results.log"
	python3 "$here/profile.py" "$out/perf-$path.data" "$out/perf-$path.results.log" \
		>"$out/profile-$path.txt"
done
