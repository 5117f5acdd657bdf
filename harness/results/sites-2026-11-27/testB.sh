#!/bin/bash
# Test B: the sweep asked for more fill probes than a 24,576-site module holds:
# the old script (before the count check) and the new one, in one boot.
set -e
cd /work/main
B=out/tB-boot
rm -rf $B; mkdir -p $B/extra/kseries/tests.d $B/extra/kseries/selftests
cp out/tA-boot/bzImage $B/
cp -a out/tA-boot/extra/kseries/selftests/kprobe_bench $B/extra/kseries/selftests/
cp -a out/tA-boot/extra/kseries/selftests/kselftest $B/extra/kseries/selftests/ 2>/dev/null || true
install -m 0755 /tmp/ks/old_kpb.sh $B/extra/kseries/selftests/kprobe_bench/old.sh
: > $B/extra/kseries/kunit-modules
for v in old new; do
  s=kprobe_bench.sh; [ $v = old ] && s=old.sh
  cat > $B/extra/kseries/tests.d/4$([ $v = old ] && echo 0 || echo 1)-$v.sh <<SH
#!/bin/sh
export KPB_N="0 5000" KPB_H=1 KPB_H_BIG=0 KPB_LOOPS=300 KPB_ROUNDS=1 KPB_CHURN_BATCH=0 KPB_ENABLE_BUDGET=500 KPB_OUT=/tmp/kpb-$v
/kseries/selftests/kprobe_bench/$s > /tmp/out-$v 2>&1
rc=\$?
sed 's/^/[$v] /' /tmp/out-$v
echo "[$v] exit \$rc"
rmmod test_kprobe_bench 2>/dev/null; true
SH
  chmod +x $B/extra/kseries/tests.d/4*-$v.sh
done
harness/initramfs.sh out/tA-build out/linux $B/initramfs.cpio $B/extra
harness/boot.sh $B/bzImage $B/initramfs.cpio $B 900
