# SPDX-License-Identifier: GPL-2.0
# Entry points; the work is done by the scripts in harness/.
#
#   make bench    the headline benchmark: the kernel without the kprobe
#                 patches against the series (cache off and on), ftrace,
#                 int3 and kretprobe at N = 1 and 40,000, 16 and 4,096 hot;
#                 arming 1,000 one at a time against in a batch; the mass
#                 setup through tracefs: report, table and plots in
#                 out/bench/results/ (24.5 min on a fresh clone, cold ccache)
#   make bench FULL=1  the whole sweep: N 0-40,000, H 1-256, the optimized
#                 path, churn, enabling time at every N, the base at four N,
#                 boosted int3 on the plain guest (not timed end to end;
#                 about 45-60 min from the phases of the default run)
#   make peers    one boot: what kstats, BPF and a hist trigger add to a call
#                 (about 12 min with a cold ccache)
#   make massetup one boot: N kprobe events defined, enabled, disabled and
#                 removed through tracefs, then fprobe events and BPF
#                 kprobe_multi on the same functions (MS_N; a boot of 2-7 min
#                 once its kernel is built; its build, like make bench's,
#                 about 5 min cold)
#   make check    every check of the series, what CI runs (21 min warm,
#                 2026-12-06; a cold ccache adds the cold builds)
#   make check-ports  each port built and booted, with its tests (31 min)
#   make cachesim cache misses of the hit path, modelled in QEMU, cache
#                 off/on (3 min)
#   make harness  the lookup cache measured on the host CPU (full table)
#   make stress   debug kernel (KASAN, lockdep), 300 s kprobe cache stress
#   make shell    boot the patched kernel to a busybox shell in QEMU
#   make tree     out/linux: base + the series, one commit per patch
#   make export   write out/linux's series branch back to patches/
#
# BASE=7.2 or BASE=6.18 works on the port in ports/BASE instead of 6.12
# (make tree BASE=7.2, make check BASE=7.2, make bench BASE=6.18, ...);
# plain make check checks 6.12 in full and each port's patches (make
# check-ports builds and boots every port).
# KSRC=/path/to/linux uses your own git tree of the base's release line.
# make bench N="0 1000 40000" H="1 16" PATHS="ftrace int3" LOOPS=20000
# chooses another sweep; harness/bench.sh's header lists every knob.

OUT ?= $(CURDIR)/out
export OUT KSRC BASE CHECK_PORTS CHECK_PORTS_BOOT KSERIES_CACHE JOBS VANILLA_TARBALL BOOT_TIMEOUT STRESS_SECONDS NO_DEBUG NO_BENCH CHECK_DISTRO QEMU_ACCEL QEMU_ICOUNT
export FULL N H H_BIG BIG_N BIG_PATHS PATHS LOOPS ROUNDS ENABLE_BUDGET ENABLE_N CHURN_BATCH BENCH_TREE BENCH_OUT BENCH_FRAGS BENCH_PARALLEL BENCH_DISTRO MASSETUP_FPROBE_MAX BASE_N BASE_H PRE_N BOOST_N BOOST_H MASSETUP_N
export PEERS_SRC PEERS_OBJ PEERS_N PEERS_ROUNDS PEERS_MODES PEERS_BTF PEERS_NICE PEERS_RESULTS
export MS_SRC MS_OBJ MS_N MS_LOOP MS_PROFILE MS_FUNCS MS_NOBUILD MS_RESULTS MS_PEERS MS_FPROBE_MAX MS_DISTRO MS_MODULE MS_ON_MODULE

.PHONY: all bench peers massetup cachesim check check-ports deps base tree export build shell harness stress clean distclean help

all: help

help:
	@sed -n 's/^#   //p' Makefile

deps:
	@harness/deps.sh

base:
	@harness/base.sh

tree:
	@harness/tree.sh

export:
	@harness/export.sh

check:
	@harness/check.sh

check-ports:
	@harness/check-ports.sh

build:
	@harness/build.sh

shell:
	@harness/build.sh --shell

harness:
	@harness/harness.sh

stress:
	@harness/stress.sh

bench:
	@harness/bench.sh

peers:
	@harness/peers.sh

massetup:
	@harness/massetup.sh

cachesim:
	@harness/cachesim/run.sh

clean:
	rm -rf $(OUT)/check $(OUT)/check-ports $(OUT)/tree-build $(OUT)/stress $(OUT)/harness $(OUT)/bench $(OUT)/cachesim $(OUT)/peers $(OUT)/peers-build $(OUT)/massetup $(OUT)/massetup-build

distclean:
	rm -rf $(OUT)
