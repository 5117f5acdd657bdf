#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make peers: "why not BPF?" in numbers.  Builds a kernel tree with the
# guest configuration plus harness/configs/peers.config (BPF, BTF, syscall
# tracepoints, hist triggers), boots it once under QEMU and measures what
# each way of timing one kernel function (__x64_sys_getpid) adds to a call
# of it: kstats' function, section and tracepoint modes, a BPF kprobe +
# kretprobe pair and a BPF fentry + fexit pair (bcc funclatency style:
# hash map of start times, per-CPU log2 histogram), and an ftrace hist
# trigger on a synthetic latency event (harness/peers/guest-peers.sh).
#
# Writes PEERS_RESULTS (default harness/results/peers-DATE/): peers.md
# (summary per mode and every run), peers.tsv, the guest's logs.  Fails
# when a mode's histogram did not count about as many samples as calls.
#
# PEERS_SRC   kernel tree to build (default $OUT/linux, as checked out)
# PEERS_OBJ   its build directory (default $OUT/peers-build)
# PEERS_N     timed calls per run (default 50000)
# PEERS_ROUNDS  rounds of none, mode, none, mode, ... (default 3)
# PEERS_MODES   the modes to run (default: all six)
# PEERS_BTF=0 build without debug info and BTF (fentry/fexit then skip)
# PEERS_NICE  nice level of the kernel build (default 0)
. "$(dirname "$0")/common.sh"

SRC=${PEERS_SRC:-$LINUX}
OBJ=${PEERS_OBJ:-$OUT/peers-build}
W=$OUT/peers
RESULTS=${PEERS_RESULTS:-$TOP/harness/results/peers-$(date -u +%Y-%m-%d)}
BTF=${PEERS_BTF:-1}
P=$TOP/harness/peers
cc=$(kmake_cc)

[ -f "$SRC/Makefile" ] || die "no kernel tree at $SRC (PEERS_SRC)"

# The kernel.
frags=("$TOP/harness/configs/qemu.config" "$TOP/harness/configs/peers.config")
mkdir -p "$OBJ" "$W"
if [ "$BTF" = 0 ]; then
	cat >"$W/no-btf.config" <<-'EOF'
	# PEERS_BTF=0: no debug info, so no BTF.
	CONFIG_DEBUG_INFO_NONE=y
	# CONFIG_DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT is not set
	# CONFIG_DEBUG_INFO_BTF is not set
	EOF
	frags+=("$W/no-btf.config")
fi
"$TOP/harness/kconfig.sh" "$SRC" "$OBJ" "${frags[@]}"
desc=$(git -C "$SRC" describe --always --dirty 2>/dev/null || echo "not a git tree")
log "peers: building $SRC ($desc) in $OBJ"
t=$(date +%s)
nice -n "${PEERS_NICE:-0}" make -C "$SRC" O="$OBJ" ${cc:+"$cc"} -j"$JOBS" all \
	>"$OBJ/build.log" 2>&1 ||
	{ tail -30 "$OBJ/build.log"; die "build failed, see $OBJ/build.log"; }
build_s=$(($(date +%s) - t))
log "peers: kernel built in ${build_s}s"

# The guest programs, static, and the BPF object.
rm -rf "${W:?}/extra" "${W:?}/boot"
envs=()
[ -n "${PEERS_N:-}" ] && envs+=("PEERS_N='$PEERS_N'")
[ -n "${PEERS_ROUNDS:-}" ] && envs+=("PEERS_ROUNDS='$PEERS_ROUNDS'")
[ -n "${PEERS_MODES:-}" ] && envs+=("PEERS_MODES='$PEERS_MODES'")
"$P/stage.sh" "$W/extra/kseries" "${envs[@]}"
"$TOP/harness/initramfs.sh" "$OBJ" "$SRC" "$W/initramfs.cpio" "$W/extra"

# One boot.  tsc=reliable: the clocksource watchdog must not move the
# guest off the TSC mid-run (the vDSO then falls back to a system call).
log "peers: booting"
rc=0
KSERIES_APPEND="tsc=reliable ${KSERIES_APPEND:-}" "$TOP/harness/boot.sh" \
	"$OBJ/arch/x86/boot/bzImage" "$W/initramfs.cpio" "$W/boot" \
	"${BOOT_TIMEOUT:-900}" &
qemu=$!
sleep 1
tail -n +1 -F --pid="$qemu" "$W/boot/results.log" 2>/dev/null |
	grep --line-buffered -E '^# \[|^PEERS .*status=(FAIL|skip)' |
	sed -u 's/^# /  guest: /; s/^PEERS /  guest: /' >&2 || true
wait "$qemu" || rc=$?
[ "$rc" -eq 0 ] || die "peers: QEMU failed (rc $rc), see $W/boot/console.log"
grep -q "^### END 50-peers.sh" "$W/boot/results.log" ||
	die "peers: the guest script did not finish, see $W/boot/results.log"

mkdir -p "$RESULTS"
cp "$W/boot/results.log" "$W/boot/console.log" "$RESULTS/"
rep=0
python3 "$P/peers_report.py" "$W/boot/results.log" "$RESULTS" \
	--title "Per-call overhead of timing __x64_sys_getpid, QEMU TCG (2 vCPUs), $(date -u +%Y-%m-%d)" \
	--note "kernel: $desc, qemu.config + peers.config$([ "$BTF" = 0 ] && echo ' (PEERS_BTF=0)'), make all took ${build_s}s" \
	--note "host: $(nproc) cores, QEMU $(qemu-system-x86_64 --version | head -1 | awk '{ print $4 }') ${QEMU_ACCEL:-tcg,thread=single}" ||
	rep=$?
sed -n '/^| mode /,/^$/p' "$RESULTS/peers.md" >&2
[ "$rep" -eq 0 ] || die "peers: a mode failed, see $RESULTS/peers.md"
log "peers: done: $RESULTS/peers.md"
