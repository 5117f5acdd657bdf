/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What kprobe_cache_bench.c uses of the kernel's kernel/kprobe_cache.c,
 * built in user space by kprobe_cache_glue.c.
 */
#ifndef _KPROBE_CACHE_HOST_H
#define _KPROBE_CACHE_HOST_H

#include <stdbool.h>
#include <stdio.h>
#include <stddef.h>

struct kprobe;

/* The kernel's hit-path lookup. */
struct kprobe *get_kprobe_cached(void *addr);

/* What kernel/kprobes.c provides: the benchmark's table defines them. */
struct kprobe *get_kprobe(void *addr);
struct kprobe *get_kprobe_from_index(unsigned long index, void *addr);

struct kpc_host_stats {
	unsigned long hits;
	unsigned long misses;
	unsigned long bypassed;
};

/* The cache switched off and on: fresh empty sets, no bypass. */
void kpc_host_reset(void);
/*
 * The cache switched on again: the sets kept, every CPU's bypass and
 * window started afresh, and the statistics zeroed.
 */
void kpc_host_restart(void);
/* kprobe_cache_index_moved(): the table's index was replaced. */
void kpc_host_index_moved(unsigned long index);
/* Caches @p for @addr as a miss would, without walking the table. */
void kpc_host_warm(void *addr, struct kprobe *p);
void kpc_host_stats(struct kpc_host_stats *st);
/* What writing "reset" to debugfs kprobes/cache_stats does. */
void kpc_host_reset_stats(void);
/* Whether the last lookup began a bypass. */
bool kpc_host_bypass_began(void);
/* Reads every set's generation; returns their sum. */
unsigned long kpc_host_read_gens(void);
void kpc_host_geometry(unsigned long *sets, unsigned long *ways,
		       size_t *bytes);
/*
 * Reads what a kernel lookup finds in the CPU caches however cold its
 * own data: the CPU's per-CPU offset, which every kernel entry reads, and
 * the static key, which the kernel patches into the code (a variable
 * here).  Called after each flush, so that a cold lookup's misses are
 * the kernel's.
 */
void kpc_host_touch_kernel_hot(void);
/* Prints what debugfs kprobes/cache_stats shows. */
void kpc_host_print_stats(FILE *fp);

#endif /* _KPROBE_CACHE_HOST_H */
