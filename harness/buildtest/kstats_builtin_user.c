// SPDX-License-Identifier: GPL-2.0
/*
 * A user of the kstats API compiled as code built into the kernel.  With
 * CONFIG_KSTATS=m it must get the inline stubs of <linux/kstats.h>: a
 * reference to kstats_new() and friends would not link into vmlinux.
 * harness/reachable.sh compiles it and checks its undefined symbols.
 */
#include <linux/err.h>
#include <linux/init.h>
#include <linux/kstats.h>

int __init kstats_builtin_user(void);

int __init kstats_builtin_user(void)
{
	struct kstats *ks = kstats_new("builtin_user", KSTATS_DEFAULT_FRAC_BITS);

	if (IS_ERR(ks))
		return PTR_ERR(ks);
	kstats_record(ks, 1);
	kstats_delete(ks);
	return 0;
}
