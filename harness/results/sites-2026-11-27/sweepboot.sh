#!/bin/bash
# Usage: sweepboot.sh BOOTDIR KPB_N NAME=SCRIPT...
# One boot of the kernel staged in out/tA-boot (the 6.12 series with
# harness/configs/check.config; its modules from out/tA-build) that runs a
# short kprobe_bench sweep over KPB_N with each SCRIPT, its output lines
# prefixed with [NAME] in BOOTDIR/results.log.
# testB: sweepboot.sh out/tB-boot "0 5000" old=OLD-SCRIPT new=NEW-SCRIPT
# testC (module bound turned into a cap, rebuilt in out/tA-build first):
#        sweepboot.sh out/tC-boot "0 1000" new=NEW-SCRIPT
set -e
cd /work/main
B=$1 N=$2
shift 2
rm -rf "$B"
mkdir -p "$B/extra/kseries/tests.d" "$B/extra/kseries/selftests"
cp out/tA-boot/bzImage "$B/"
cp -a out/tA-boot/extra/kseries/selftests/kprobe_bench "$B/extra/kseries/selftests/"
cp -a out/tA-boot/extra/kseries/selftests/kselftest "$B/extra/kseries/selftests/" 2>/dev/null || true
: >"$B/extra/kseries/kunit-modules"
i=0
for arg in "$@"; do
	v=${arg%%=*}
	install -m 0755 "${arg#*=}" "$B/extra/kseries/selftests/kprobe_bench/$v.sh"
	cat >"$B/extra/kseries/tests.d/4$i-$v.sh" <<SH
#!/bin/sh
export KPB_N="$N" KPB_H=1 KPB_H_BIG=0 KPB_LOOPS=300 KPB_ROUNDS=1 KPB_CHURN_BATCH=0 KPB_ENABLE_BUDGET=500 KPB_OUT=/tmp/kpb-$v
/kseries/selftests/kprobe_bench/$v.sh > /tmp/out-$v 2>&1
rc=\$?
sed 's/^/[$v] /' /tmp/out-$v
echo "[$v] exit \$rc"
rmmod test_kprobe_bench 2>/dev/null; true
SH
	chmod +x "$B/extra/kseries/tests.d/4$i-$v.sh"
	i=$((i + 1))
done
harness/initramfs.sh out/tA-build out/linux "$B/initramfs.cpio" "$B/extra"
harness/boot.sh "$B/bzImage" "$B/initramfs.cpio" "$B" 900
