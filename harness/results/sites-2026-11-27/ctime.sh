#!/bin/bash
# GCC's time on the benchmark module at two site counts (ccache off).
cd /work/main
for n in 64512 24576 64512 24576; do
	out/linux/scripts/config --file out/tA-build/.config --set-val TEST_KPROBE_BENCH_SITES $n
	make -C out/linux O=$PWD/out/tA-build olddefconfig >/dev/null 2>&1
	rm -f out/tA-build/lib/test_kprobe_bench.o
	t0=$(date +%s.%N)
	CCACHE_DISABLE=1 make -C out/linux O=$PWD/out/tA-build CC="ccache gcc" lib/test_kprobe_bench.o >/dev/null 2>&1 || echo FAIL
	t1=$(date +%s.%N)
	echo "sites=$n $(grep -c KPB_SITE out/tA-build/lib/test_kprobe_bench_sites.h) lines: $(echo "$t1 - $t0" | bc) s"
done
