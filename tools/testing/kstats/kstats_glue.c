// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's lib/kstats.c (found through -I$(KSRC)/lib), built in user
 * space with kstats_shim.h, and what kstats_host.c needs of its insides.
 */
#include <asm/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "kstats.c"
#include "kstats_host.h"

char *kstats_shim_areas;
unsigned long kstats_shim_next = KSTATS_SHIM_FIRST;

void kstats_shim_resched(void)
{
	fprintf(stderr, "kstats_host: preemption count reached 0\n");
	exit(1);
}

int kstats_host_init(void)
{
	size_t size = KSTATS_SHIM_CPUS * KSTATS_SHIM_AREA;
	int cpu;

	kstats_shim_areas = aligned_alloc(4096, size);
	if (!kstats_shim_areas)
		return -ENOMEM;
	memset(kstats_shim_areas, 0, size);
	/* x86's PREEMPT_ENABLED: the inverted NEED_RESCHED bit set. */
	for (cpu = 0; cpu < KSTATS_SHIM_CPUS; cpu++)
		*(u32 *)(kstats_shim_areas + cpu * KSTATS_SHIM_AREA) = 0x80000000;
	kstats_host_set_cpu(0);
	return kstats_shim_init();
}

void kstats_host_set_cpu(int cpu)
{
	if (syscall(SYS_arch_prctl, ARCH_SET_GS,
		    kstats_shim_areas + cpu * KSTATS_SHIM_AREA)) {
		perror("arch_prctl(ARCH_SET_GS)");
		exit(1);
	}
}

void *kstats_host_slot(struct kstats *ks, int cpu, u64 value)
{
	return per_cpu_ptr(ks->slots, cpu) + __kstats_slot(value, ks->frac_bits);
}

u64 kstats_host_read(struct kstats *ks, char *buf, size_t size, u64 *per_cpu)
{
	struct kstats_iter it = { .ks = ks };
	struct seq_file m = { .buf = buf, .size = size, .private = &it };
	u64 counted = 0;
	loff_t pos = 0;
	void *v;

	buf[0] = '\0';
	for (v = kstats_seq_ops.start(&m, &pos); v;
	     v = kstats_seq_ops.next(&m, v, &pos)) {
		if (kstats_seq_ops.show(&m, v) == SEQ_SKIP)
			continue;
		if (kstats_iter_cpus_line(&it))
			counted += it.count;
		else
			per_cpu[it.cpu] += per_cpu_ptr(ks->slots, it.cpu)[it.slot].count;
	}
	kstats_seq_ops.stop(&m, v);
	return counted;
}

void kstats_host_reset(struct kstats *ks)
{
	kstats_reset(ks);
}

void kstats_host_nothing(struct kstats *ks, u64 value)
{
	barrier();
}
