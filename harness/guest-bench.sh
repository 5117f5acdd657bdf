#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest side of the benchmark (installed as a tests.d script): runs the
# series' kprobe_bench kselftest with the sweep in /kseries/bench.env, then
# prints its output files framed for harness/bench_report.py.
[ -f /kseries/bench.env ] && . /kseries/bench.env
export KPB_N KPB_H KPB_H_BIG KPB_BIG_N KPB_BIG_PATHS KPB_PATHS KPB_LOOPS KPB_ROUNDS KPB_ENABLE_BUDGET KPB_ENABLE_N KPB_CHURN_BATCH
export KPB_OUT=/tmp/kprobe_bench
/kseries/selftests/kprobe_bench/kprobe_bench.sh
rc=$?
for f in "$KPB_OUT/bench.tsv" "$KPB_OUT"/nodes/*; do
	[ -f "$f" ] || continue
	echo "### FILE ${f#"$KPB_OUT"/}"
	cat "$f"
	echo "### ENDFILE"
done
exit $rc
