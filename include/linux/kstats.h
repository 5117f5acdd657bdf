/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kstats - per-CPU log-linear histograms of u64 samples, shown in debugfs.
 *
 * See Documentation/trace/kstats.rst.
 */
#ifndef _LINUX_KSTATS_H
#define _LINUX_KSTATS_H

#include <linux/types.h>

struct kstats;

/* Largest frac_bits accepted by kstats_new(). */
#define KSTATS_MAX_FRAC_BITS	5
/* frac_bits used by callers that have no better idea. */
#define KSTATS_DEFAULT_FRAC_BITS	3
/* Longest node name, not counting the terminating NUL. */
#define KSTATS_NAME_MAX		63

/*
 * IS_REACHABLE: with CONFIG_KSTATS=m, code built into the kernel gets the
 * stubs below (it could not link against the module), modules get kstats.
 */
#if IS_REACHABLE(CONFIG_KSTATS)
struct kstats *kstats_new(const char *name, u8 frac_bits);
void kstats_record(struct kstats *ks, u64 value);
void kstats_delete(struct kstats *ks);
#else
static inline struct kstats *kstats_new(const char *name, u8 frac_bits)
{
	return NULL;
}

static inline void kstats_record(struct kstats *ks, u64 value)
{
}

static inline void kstats_delete(struct kstats *ks)
{
}
#endif

#endif /* _LINUX_KSTATS_H */
