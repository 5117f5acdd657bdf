#!/bin/bash
# The check's step 8 by hand: W=1 + sparse of the new C files, no ACPI/PCI, tree $1, dir $2.
cd /work/main
src=$1 obj=$2
rm -rf $obj; mkdir -p $obj
t0=$(date +%s)
harness/kconfig.sh $src $obj harness/configs/qemu.config harness/configs/check.config harness/configs/no-acpi.config > $obj.kconfig.log 2>&1 || { echo kconfig failed; exit 1; }
for f in $(cd $src && git diff --name-only --diff-filter=A base HEAD | grep -E '^(lib|kernel|arch)/.*\.c$'); do
	o=${f%.c}.o; mrc=0
	out=$(make -C $src O=$obj CC="ccache gcc" -j2 W=1 C=2 $o 2>&1) || mrc=$?
	if [ $mrc -ne 0 ] || grep -Eq "(warning|error):" <<<"$out"; then
		echo "FAIL $f (rc $mrc)"; echo "$out" | grep -E '(warning|error):' | head -8
	else
		echo "PASS $f"
	fi
	echo "  [$(( $(date +%s)-t0 )) s]"
done
