# SPDX-License-Identifier: GPL-2.0
# Entry points; the work is done by the scripts in harness/.
#
#   make bench    the mass-probe benchmark: hook cost vs probes, cache off/on
#   make peers    one boot: what kstats, BPF and a hist trigger add to a call
#   make massetup one boot: N kprobe events defined, enabled, disabled and
#                 removed through tracefs, timed (MS_N, MS_PROFILE=1), then
#                 fprobe events and BPF kprobe_multi on the same functions
#   make check    every check of the series (what CI runs)
#   make check-ports  each port built and booted, with its tests
#   make shell    boot the patched kernel to a busybox shell in QEMU
#   make tree     out/linux: base + the series, one commit per patch
#   make export   write out/linux's series branch back to patches/
#   make harness  the lookup cache measured on the host CPU (full table)
#   make stress   debug kernel (KASAN, lockdep), long kprobe cache stress run
#   make cachesim cache misses of the hit path, modelled in QEMU, cache off/on
#
# BASE=7.2 or BASE=6.18 works on the port in ports/BASE instead of 6.12
# (make tree BASE=7.2, make check BASE=7.2, make bench BASE=6.18, ...);
# plain make check checks 6.12 in full and each port's patches (make
# check-ports builds and boots every port).
# KSRC=/path/to/linux uses your own git tree of the base's release line.
# make bench N="0 1000 40000" H="1 16" PATHS="ftrace int3" LOOPS=20000
# chooses another sweep.

OUT ?= $(CURDIR)/out
export OUT KSRC BASE CHECK_PORTS CHECK_PORTS_BOOT KSERIES_CACHE JOBS VANILLA_TARBALL BOOT_TIMEOUT STRESS_SECONDS NO_DEBUG CHECK_DISTRO QEMU_ACCEL QEMU_ICOUNT
export FULL N H H_BIG BIG_N BIG_PATHS PATHS LOOPS ROUNDS ENABLE_BUDGET ENABLE_N CHURN_BATCH BENCH_TREE BENCH_OUT BENCH_FRAGS BENCH_PARALLEL BASE_N BASE_H PRE_N BOOST_N BOOST_H MASSETUP_N
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
