#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make massetup: mass setup of kprobe events through tracefs, timed phase
# by phase (define, enable, disable, remove, and a syscall loop idle and
# armed) at each N of MS_N, in one boot (harness/massetup/guest-massetup.sh);
# with MS_PROFILE=1, kstats times the registration path's functions
# during every phase.
#
# MS_SRC      kernel tree (default $OUT/linux, as checked out)
# MS_OBJ      its build directory (default $OUT/massetup-build); built with
#             harness/configs/qemu.config and massetup.config (the
#             peers) unless MS_NOBUILD=1
# MS_N        the numbers of events (default "1000")
# MS_LOOP     reads of /proc/self/stat in the idle and armed loops (2000)
# MS_PROFILE  1: the kstats profile (default 0)
# MS_FUNCS    the functions it times (default: guest-massetup.sh's list)
# MS_PEERS    0: no peers (fprobe events, BPF kprobe_multi); default 1
# MS_FPROBE_MAX  the largest N of the fprobe events (default 2000)
# MS_RESULTS  where to keep the guest's output (default
#             harness/results/massetup-DATE)
# MS_DISTRO   1: the distribution-like configuration (distro.config on
#             top, QEMU -cpu max), as make bench boots it
# MS_MODULE   a module the guest loads first (e.g. test_kprobe_bench, whose
#             64,512 functions make bench loads): setup next to a big
#             module's symbols
# MS_ON_MODULE 1: the events go on MS_MODULE's functions ("module:function";
#             no peers)
. "$(dirname "$0")/common.sh"

SRC=${MS_SRC:-$LINUX}
OBJ=${MS_OBJ:-$OUT/massetup-build}
W=$OUT/massetup
RESULTS=${MS_RESULTS:-$TOP/harness/results/massetup-$(date -u +%Y-%m-%d)}
cc=$(kmake_cc)
t0=$(date +%s)

[ -f "$SRC/Makefile" ] || die "no kernel tree at $SRC (MS_SRC)"
if [ "${MS_NOBUILD:-0}" != 1 ]; then
	frags=("$TOP/harness/configs/qemu.config" "$TOP/harness/configs/massetup.config")
	[ "${MS_DISTRO:-0}" != 1 ] || frags+=("${DISTRO_FRAGS[@]}")
	"$TOP/harness/kconfig.sh" "$SRC" "$OBJ" "${frags[@]}"
	log "massetup: building $SRC in $OBJ"
	make -C "$SRC" O="$OBJ" ${cc:+"$cc"} -j"$JOBS" all >"$OBJ/build.log" 2>&1 ||
		{ tail -30 "$OBJ/build.log"; die "build failed, see $OBJ/build.log"; }
fi
[ -f "$OBJ/arch/x86/boot/bzImage" ] || die "no bzImage in $OBJ"
desc=$(git -C "$SRC" describe --always --dirty 2>/dev/null || echo "not a git tree")

rm -rf "${W:?}/extra" "${W:?}/boot"
env=("MS_N='${MS_N:-1000}'" "MS_LOOP='${MS_LOOP:-2000}'" "MS_PROFILE='${MS_PROFILE:-0}'"
	"MS_PEERS='${MS_PEERS:-1}'" "MS_FPROBE_MAX='${MS_FPROBE_MAX:-2000}'")
[ -z "${MS_FUNCS:-}" ] || env+=("MS_FUNCS='$MS_FUNCS'")
[ -z "${MS_MODULE:-}" ] || env+=("MS_MODULE='$MS_MODULE'")
[ -z "${MS_ON_MODULE:-}" ] || env+=("MS_ON_MODULE='$MS_ON_MODULE'")
"$TOP/harness/massetup/stage.sh" "$W/extra/kseries" 50-massetup.sh "${env[@]}"
"$TOP/harness/initramfs.sh" "$OBJ" "$SRC" "$W/initramfs.cpio" "$W/extra"

log "massetup: booting $desc (N = ${MS_N:-1000})"
rc=0
[ "${MS_DISTRO:-0}" != 1 ] || export QEMU_CPU=max
"$TOP/harness/boot.sh" "$OBJ/arch/x86/boot/bzImage" "$W/initramfs.cpio" "$W/boot" \
	"${BOOT_TIMEOUT:-3600}" &
qemu=$!
sleep 1
tail -n +1 -F --pid="$qemu" "$W/boot/results.log" 2>/dev/null |
	grep --line-buffered -E '^MS ' | sed -u 's/^/  guest: /' >&2 || true
wait "$qemu" || rc=$?
[ "$rc" -eq 0 ] || die "massetup: QEMU failed (rc $rc), see $W/boot/console.log"
grep -q "^### END 50-massetup.sh rc=0" "$W/boot/results.log" ||
	die "massetup: the guest script failed or did not finish, see $W/boot/results.log"
# The kernel that booted must be the one built (its build number and time).
booted=$(grep -m1 -o 'Linux version .*' "$W/boot/console.log" || true)
uts=$(sed -n 's/^#define UTS_VERSION "\(.*\)"$/\1/p' "$OBJ/include/generated/utsversion.h" 2>/dev/null || true)
[ -z "$uts" ] || [[ "$booted" == *"$uts"* ]] ||
	die "massetup: booted '$booted', not the build in $OBJ ($uts)"
mkdir -p "$RESULTS"
{
	echo "# $desc, $(basename "$OBJ"), $(date -u +%Y-%m-%d), QEMU TCG, 2 vCPUs"
	echo "# $booted"
	grep -E '^MS|^MSF' "$W/boot/results.log"
} >"$RESULTS/massetup.txt"
python3 "$TOP/harness/massetup_report.py" "$(basename "$OBJ")=$RESULTS/massetup.txt" >&2 || true
log "massetup: done in $(($(date +%s) - t0)) s: $RESULTS/massetup.txt"
