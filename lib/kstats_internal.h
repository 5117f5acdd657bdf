/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kstats internals shared by lib/kstats.c and its KUnit test.
 */
#ifndef _LIB_KSTATS_INTERNAL_H
#define _LIB_KSTATS_INTERNAL_H

#include <linux/kstats.h>
#include <linux/seq_file.h>
#include <linux/types.h>

/**
 * struct kstats_iter - where a reader of a histogram's file is
 * @ks: the histogram
 * @line: number of the current line, from 0
 * @slot: slot of the current line
 * @cpu: CPU of the current line, or nr_cpu_ids or more on a CPUS line
 * @more: false once past the last line
 * @count: on a CPUS line, the samples of the slot on all CPUs
 * @sum: on a CPUS line, the sum of those samples (shifted, see lib/kstats.c)
 * @with: on a CPUS line, the number of CPUs with samples in the slot
 * @cum: samples on all CPUs up to and including the last CPUS line
 * @total: samples on all CPUs when reading started, or @cum if larger
 */
struct kstats_iter {
	struct kstats *ks;
	loff_t line;
	unsigned int slot;
	int cpu;
	bool more;
	u64 count;
	u64 sum;
	unsigned int with;
	u64 cum;
	u64 total;
};

#if IS_ENABLED(CONFIG_KUNIT)
unsigned int kstats_value_to_slot(u64 value, unsigned int frac_bits);
unsigned int kstats_nr_slots(unsigned int frac_bits);
extern const struct seq_operations kstats_seq_ops;
int kstats_command(struct kstats *ks, const char *cmd, size_t len);
#endif

#endif /* _LIB_KSTATS_INTERNAL_H */
