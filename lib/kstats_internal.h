/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kstats internals shared by lib/kstats.c and its KUnit test.
 */
#ifndef _LIB_KSTATS_INTERNAL_H
#define _LIB_KSTATS_INTERNAL_H

#include <linux/kstats.h>
#include <linux/types.h>

/**
 * struct kstats_text - a rendered snapshot of one histogram
 * @len: number of bytes in @buf, without a terminating NUL
 * @buf: the text, NUL terminated
 */
struct kstats_text {
	size_t len;
	char buf[];
};

#if IS_ENABLED(CONFIG_KUNIT)
unsigned int kstats_value_to_slot(u64 value, unsigned int frac_bits);
unsigned int kstats_nr_slots(unsigned int frac_bits);
struct kstats_text *kstats_render(struct kstats *ks);
int kstats_command(struct kstats *ks, const char *cmd, size_t len);
#endif

#endif /* _LIB_KSTATS_INTERNAL_H */
