/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kstats_glue.c builds the kernel's lib/kstats.c and reaches into it for
 * kstats_host.c, which calls kstats_record() as a module would: directly,
 * from another object.
 */
#ifndef _KSTATS_HOST_H
#define _KSTATS_HOST_H

struct kstats;

/* Runs kstats' module_init() function. */
int kstats_host_init(void);
/* Points %gs at CPU @cpu's per-CPU area. */
void kstats_host_set_cpu(int cpu);
/* The per-CPU slot of @value in CPU @cpu's array of @ks. */
void *kstats_host_slot(struct kstats *ks, int cpu, u64 value);
/*
 * Reads the histogram's text into @buf through kstats' seq_file
 * operations; returns the count of its all-CPU lines and adds the count of
 * each CPU's lines to @per_cpu[cpu].
 */
u64 kstats_host_read(struct kstats *ks, char *buf, size_t size, u64 *per_cpu);
/* What writing "reset" to the histogram's file does. */
void kstats_host_reset(struct kstats *ks);
/* An exported function that does nothing, for the cost of the call. */
void kstats_host_nothing(struct kstats *ks, u64 value);

#endif /* _KSTATS_HOST_H */
