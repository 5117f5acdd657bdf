// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's kernel/kprobe_cache.c (found through -iquote
 * $(srctree)/kernel), built in user space with kprobe_cache_shim.h, and
 * what kprobe_cache_bench.c needs of its insides.
 */
#include <asm/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "kprobe_cache.c"
#include "kprobe_cache_host.h"

DEFINE_PER_CPU_ALIGNED(unsigned long, kpc_shim_this_cpu_off);

void kpc_shim_bad_size(void)
{
	fprintf(stderr, "kprobe_cache_bench: per-CPU access of an odd size\n");
	exit(1);
}

/* No concurrent changes of the table: nothing to serialize. */
void kprobe_table_lock(void)
{
}

void kprobe_table_unlock(void)
{
}

void kpc_host_reset(void)
{
	unsigned long gs;

	/* The per-CPU accesses take %gs's base for the CPU's offset: 0. */
	if (syscall(SYS_arch_prctl, ARCH_GET_GS, &gs) || gs) {
		fprintf(stderr, "kprobe_cache_bench: %%gs base is not 0\n");
		exit(1);
	}
	if (kprobe_cache_switch(false) || kprobe_cache_switch(true)) {
		fprintf(stderr, "kprobe_cache_bench: no memory for the cache\n");
		exit(1);
	}
	kpc_host_reset_stats();
}

void kpc_host_restart(void)
{
	if (kprobe_cache_switch(true)) {
		fprintf(stderr, "kprobe_cache_bench: no memory for the cache\n");
		exit(1);
	}
	kpc_host_reset_stats();
}

void kpc_host_index_moved(unsigned long index)
{
	kprobe_cache_index_moved(index);
}

void kpc_host_warm(void *addr, struct kprobe *p)
{
	struct kprobe_cache_cpu *cc = this_cpu_ptr(&kprobe_cache_cpu);

	kprobe_cache_insert(cc->cache, addr, p, cc->inserts, true);
	this_cpu_inc(kprobe_cache_cpu.inserts);
}

void kpc_host_stats(struct kpc_host_stats *st)
{
	struct kprobe_cache_stats sum;

	kprobe_cache_read_stats(&sum);
	st->hits = sum.hits;
	st->misses = sum.misses;
	st->bypassed = sum.bypassed;
}

void kpc_host_reset_stats(void)
{
	static const char reset[] = "reset\n";
	loff_t pos = 0;

	if (kprobe_cache_stats_write(NULL, reset, sizeof(reset) - 1, &pos) !=
	    sizeof(reset) - 1) {
		fprintf(stderr, "kprobe_cache_bench: cache_stats refused reset\n");
		exit(1);
	}
}

bool kpc_host_bypass_began(void)
{
	return this_cpu_read(kprobe_cache_cpu.bypass) == KPROBE_CACHE_BYPASS;
}

unsigned long kpc_host_read_gens(void)
{
	unsigned long sum = 0;
	unsigned int s;

	for (s = 0; s < KPROBE_CACHE_SETS; s++)
		sum += atomic_long_read(&kprobe_cache_gen[s]);
	return sum;
}

void kpc_host_geometry(unsigned long *sets, unsigned long *ways,
		       size_t *bytes)
{
	*sets = KPROBE_CACHE_SETS;
	*ways = KPROBE_CACHE_WAYS;
	*bytes = sizeof(struct kprobe_cache);
}

void kpc_host_touch_kernel_hot(void)
{
	unsigned long v = this_cpu_read(kpc_shim_this_cpu_off);

	v += static_key_enabled(&kprobe_cache_key);
	asm volatile("" : : "r" (v));
}

void kpc_host_print_stats(FILE *fp)
{
	struct seq_file m = { .fp = fp };

	kprobe_cache_stats_show(&m, NULL);
}
