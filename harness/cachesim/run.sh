#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Usage: harness/cachesim/run.sh   (make cachesim)
#
# The 2014 kprobe-cache experiment (40,000 probes registered, perf record
# -e cache-misses: get_kprobe() 68-80% of the misses without the cache)
# under the cachesim QEMU plugin, which models the data caches since TCG
# has no PMU.  One guest boot of the kernel in out/tree-build (built with
# `make build` when missing), booted with nokaslr:
#
#   set-up, not modelled (the plugin runs with from=1: kernel code is not
#   instrumented until phase 1): load test_kprobe_bench, arm H probes per
#   path of PATHS, register N disabled fill probes (after the hot ones, so
#   that every lookup walks its whole hash chain), dump the module symbols;
#   then modelled, per path: LOOPS probe hits with the lookup cache off,
#   LOOPS with it on, each in a phase of its own (guest/50-cachesim-bench).
#
# Before that, harness/cachesim/validate.sh checks the model (16 KiB, 1 MiB
# and 64 MiB walks), and the host harness (harness/hostbench.sh quick, on a
# copy of tools/testing/kprobe_cache and the cache header of out/linux)
# runs meanwhile, for its cachegrind table.  Output in out/cachesim/run/
# (CACHESIM_DIR): table.txt (printed at the end), report.md, cachesim.out
# (the plugin's per-PC counts), results.log and console.log (the guest),
# symbols.tsv, validate.txt, hostbench-quick.txt.  Exits non-zero when the
# workload or a check failed; the goal (get_kprobe's share of the misses
# down >= 10x with the cache) is reported, not enforced.
#
# Environment (defaults in brackets):
#   CACHESIM_N         fill probes [40000]
#   CACHESIM_H         hot probes per path, called round robin [256]
#   CACHESIM_LOOPS     probe hits per measured phase [20000]
#   CACHESIM_WARM      hits before each phase, unmeasured [10 x H]
#   CACHESIM_PATHS     hit paths, of ftrace int3 ["ftrace int3"]
#   CACHESIM_ORDER     tail: arm the hot probes before the fill, so that
#                      they sit at the hash chain tails; head: after it,
#                      at the heads (as kprobe_bench.sh does) [tail]
#   CACHESIM_DIR       output directory [out/cachesim/run]
#   CACHESIM_ARGS      more plugin arguments, e.g. index=virt (cheaper)
#   CACHESIM_VALIDATE  0: skip validate.sh [1]
#   CACHESIM_HOSTBENCH quick, run or 0 (skip) [quick]
#   CACHESIM_TIMEOUT   bound on the guest boot, seconds [1500]

# shellcheck source-path=SCRIPTDIR source=../common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../common.sh"

HERE=$TOP/harness/cachesim
DEST=$OUT/cachesim
R=${CACHESIM_DIR:-$DEST/run}
case $R in /*) ;; *) R=$PWD/$R ;; esac
OBJ=$OUT/tree-build
N=${CACHESIM_N:-40000}
H=${CACHESIM_H:-256}
LOOPS=${CACHESIM_LOOPS:-20000}
WARM=${CACHESIM_WARM:-$((${H:-0} * 10))}
PATHS=${CACHESIM_PATHS:-ftrace int3}
ORDER=${CACHESIM_ORDER:-tail}
ARGS=${CACHESIM_ARGS:-}
VALIDATE=${CACHESIM_VALIDATE:-1}
HOSTBENCH=${CACHESIM_HOSTBENCH:-quick}
TIMEOUT=${CACHESIM_TIMEOUT:-1500}

for v in N H LOOPS WARM TIMEOUT; do
	case ${!v} in '' | *[!0-9]*) die "CACHESIM_$v must be a number" ;; esac
done
if [ "$H" -lt 1 ] || [ "$H" -gt 4096 ]; then
	die "CACHESIM_H must be 1..4096"
fi
[ "$LOOPS" -ge 1 ] || die "CACHESIM_LOOPS must be positive"
for p in $PATHS; do
	case $p in ftrace | int3) ;; *) die "CACHESIM_PATHS: unknown path $p" ;; esac
done
case $ORDER in tail | head) ;; *) die "CACHESIM_ORDER must be tail or head" ;; esac
case $HOSTBENCH in quick | run | 0) ;; *) die "CACHESIM_HOSTBENCH must be quick, run or 0" ;; esac

log "cachesim run: N=$N H=$H LOOPS=$LOOPS WARM=$WARM paths '$PATHS' order $ORDER${ARGS:+ plugin $ARGS}"
if [ ! -f "$OBJ/arch/x86/boot/bzImage" ]; then
	log "cachesim run: no kernel in $OBJ, building it (make build)"
	"$TOP/harness/build.sh"
fi
[ -d "$LINUX" ] || die "no kernel source $LINUX (make tree)"
for c in CONFIG_KPROBE_CACHE=y CONFIG_TEST_KPROBE_BENCH=m CONFIG_64BIT=y; do
	grep -qx "$c" "$OBJ/.config" || die "$OBJ/.config lacks $c"
done
[ -f "$OBJ/lib/test_kprobe_bench.ko" ] || die "no $OBJ/lib/test_kprobe_bench.ko"

"$HERE/build.sh"

# A snapshot of the kernel and its modules, in case out/tree-build is
# rebuilt meanwhile.
rm -rf -- "$R"
mkdir -p "$R/root/usr/bin" "$R/root/kseries/tests.d"
cp -- "$OBJ/arch/x86/boot/bzImage" "$OBJ/System.map" "$R/"
install -m 0755 "$DEST/bin/cachesim-mark" "$DEST/bin/cachesim-write" "$R/root/usr/bin/"
install -m 0755 "$HERE/guest/50-cachesim-bench" "$R/root/kseries/tests.d/"
printf 'CS_N=%s\nCS_H=%s\nCS_LOOPS=%s\nCS_WARM=%s\nCS_PATHS="%s"\nCS_ORDER=%s\n' \
	"$N" "$H" "$LOOPS" "$WARM" "$PATHS" "$ORDER" >"$R/root/kseries/cachesim.env"
"$TOP/harness/initramfs.sh" "$OBJ" "$LINUX" "$R/initramfs.cpio" "$R/root"

# The host harness in the background: its cachegrind table counts, its
# timings do not matter here.  On a copy, to leave out/linux untouched.
hb_pid=
if [ "$HOSTBENCH" != 0 ]; then
	hs=$R/hostsrc
	mkdir -p "$hs/tools/testing" "$hs/tools/arch" "$hs/kernel"
	cp -a -- "$LINUX/tools/include" "$hs/tools/"
	cp -a -- "$LINUX/tools/arch/x86" "$hs/tools/arch/"
	cp -a -- "$LINUX/tools/testing/kprobe_cache" "$hs/tools/testing/"
	cp -- "$LINUX"/kernel/kprobe_cache.[ch] "$LINUX/kernel/kprobe_hash.h" "$hs/kernel/"
	log "cachesim run: host harness ($HOSTBENCH) in the background"
	"$TOP/harness/hostbench.sh" "$hs" "$R" "$HOSTBENCH" >"$R/hostbench.log" 2>&1 &
	hb_pid=$!
fi

fail=0
if [ "$VALIDATE" = 1 ]; then
	log "cachesim run: validating the model (validate.sh)"
	if "$HERE/validate.sh" "$OBJ/arch/x86/boot/bzImage" >"$R/validate.txt" 2>&1; then
		valid="PASS ($(grep -c '^PASS' "$DEST/validate/checks.txt") checks)"
	else
		valid="FAIL (see $R/validate.txt)"
		fail=1
	fi
	log "cachesim run: validation $valid"
else
	valid="not run (CACHESIM_VALIDATE=0)"
fi

append="console=ttyS0 panic=-1 oops=panic loglevel=7 nokaslr ${KSERIES_APPEND:-}"
plugin="$DEST/cachesim.so,outfile=$R/cachesim.out,from=1${ARGS:+,$ARGS}"
qemu=(qemu-system-x86_64 -accel "tcg,thread=single" -smp 2 -m 1G -no-reboot
	-kernel "$R/bzImage" -initrd "$R/initramfs.cpio"
	-display none -monitor none -nodefaults
	-serial "file:$R/console.log" -serial "file:$R/results.log"
	-append "$append" -plugin "$plugin")
log "cachesim run: booting under the plugin (timeout ${TIMEOUT}s)"
: >"$R/results.log"
start=$(date +%s.%N)
timeout -k 10 "$TIMEOUT" "${qemu[@]}" </dev/null 2>"$R/qemu.stderr" &
qpid=$!
# The guest's progress lines, relayed until QEMU exits.
tail -n +1 -F --pid="$qpid" "$R/results.log" 2>/dev/null |
	grep --line-buffered -E '^# \[|^FAIL' | sed -u 's/^# /  guest: /' >&2 &
relay=$!
rc=0
wait "$qpid" || rc=$?
secs=$(echo "$(date +%s.%N) - $start" | bc)
wait "$relay" || true
log "cachesim run: QEMU exited rc=$rc after $(printf '%.0f' "$secs") s"
grep -h '^cachesim:' "$R/qemu.stderr" | sed 's/^/  /' >&2 || true
[ "$rc" = 0 ] || die "QEMU failed (rc $rc), see $R/console.log and $R/qemu.stderr"
grep -q '^### END 50-cachesim-bench rc=0' "$R/results.log" ||
	die "the guest workload failed, see $R/results.log"
grep -q '^### DONE' "$R/results.log" || die "the guest did not finish, see $R/results.log"

stext=$(awk '$3 == "_stext" { print $1; exit }' "$R/System.map")
gstext=$(awk '$3 == "_stext" { print $1; exit }' "$R/results.log")
if [ -z "$stext" ] || [ "$stext" != "$gstext" ]; then
	die "_stext at ${gstext:-?} in the guest, ${stext:-?} in System.map (nokaslr?)"
fi

if [ -n "$hb_pid" ]; then
	if wait "$hb_pid"; then
		log "cachesim run: host harness done"
	else
		log "cachesim run: host harness FAILED, see $R/hostbench.log"
		fail=1
	fi
fi

SYMS=(--syms "$R/System.map" --syms "$R/results.log")
"$HERE/symbolize.py" "$R/cachesim.out" "${SYMS[@]}" --tsv >"$R/symbols.tsv"
hostfile=
[ "$HOSTBENCH" = 0 ] || hostfile=$R/hostbench-$HOSTBENCH.txt
wall=$(echo "$(date +%s.%N) - $T0" | bc)
report_rc=0
"$HERE/report.py" --out "$R" --cachesim "$R/cachesim.out" "${SYMS[@]}" \
	--results "$R/results.log" ${hostfile:+--hostbench "$hostfile"} \
	--validation "$valid" --validate-file "$R/validate.txt" \
	--qemu-secs "$secs" --wall-secs "$wall" \
	--setting "N=$N" --setting "H=$H" --setting "LOOPS=$LOOPS" \
	--setting "WARM=$WARM" --setting "PATHS=$PATHS" --setting "ORDER=$ORDER" \
	--setting "plugin=${ARGS:-defaults}" || report_rc=$?
cat "$R/table.txt"
[ "$report_rc" = 0 ] || fail=1
log "cachesim run: report in $R/report.md; total wall time $(printf '%.0f' "$wall") s"
[ "$fail" = 0 ] || die "cachesim run: a check failed (see above)"
log "cachesim run: done"
