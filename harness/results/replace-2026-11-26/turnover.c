// SPDX-License-Identifier: GPL-2.0
/*
 * The insertion policy and bypass of include/linux/kprobe_cache.h on one
 * CPU, without timing: hit rates of hot sets cycled round robin, and how
 * many lookups a new hot set needs before a pass over it hits >= 90%.
 * The miss path is get_kprobe_cached()'s (kernel/kprobe_cache.c), minus
 * the table walk (every looked-up address is a probe) and the
 * generation check (nothing is unregistered).
 *
 * Usage: turnover A B   (A hot addresses, then B new ones)
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <linux/compiler.h>
#include <linux/types.h>
#include "kprobe_cache.h"

static struct kprobe_cache kc;
static struct {
	int bypass;
	struct kprobe_cache_window win;
	struct kprobe_cache_stats st;
} cpu;
static unsigned long long rs = 42;

static unsigned long rnd(void)
{
	rs = rs * 6364136223846793005ULL + 1442695040888963407ULL;
	return rs >> 17;
}

/* 1: hit, 0: miss, 2: bypassed */
static int lookup(void *addr)
{
	bool full, replace;

	if (cpu.bypass > 0) {
		cpu.bypass--;
		cpu.st.bypassed++;
		return 2;
	}
	if (kprobe_cache_probe(&kc, addr)) {
		cpu.st.hits++;
		return 1;
	}
	cpu.st.misses++;
	replace = kprobe_cache_may_replace(&cpu.win);
	full = kprobe_cache_insert(&kc, addr, (struct kprobe *)addr,
				   cpu.st.inserts, replace);
	if (!full || replace)
		cpu.st.inserts++;
	if (kprobe_cache_window_end(&cpu.win, cpu.st.hits, full))
		cpu.bypass = KPROBE_CACHE_BYPASS;
	return 0;
}

/* Random 16-byte aligned addresses in 32 MiB of text from @base. */
static void **hot_set(unsigned int n, unsigned long base)
{
	void **a = calloc(n, sizeof(*a));
	unsigned int i;

	for (i = 0; i < n && a; i++)
		a[i] = (void *)(base + 16 * (rnd() % (1UL << 21)));
	return a;
}

static void passes(void **a, unsigned int n, unsigned int count,
		   const char *what)
{
	struct kprobe_cache_stats s = cpu.st;
	unsigned int i, j;
	double all = (double)n * count;

	for (j = 0; j < count; j++)
		for (i = 0; i < n; i++)
			lookup(a[i]);
	printf("%s: hits %.1f%% bypassed %.1f%% inserts %.2f%%\n", what,
	       100.0 * (cpu.st.hits - s.hits) / all,
	       100.0 * (cpu.st.bypassed - s.bypassed) / all,
	       100.0 * (cpu.st.inserts - s.inserts) / all);
}

int main(int argc, char **argv)
{
	unsigned int ha, hb, i, j;
	unsigned long n = 0, h;
	void **a, **b;

	if (argc != 3)
		return 2;
	ha = atoi(argv[1]);
	hb = atoi(argv[2]);
	a = hot_set(ha, 0xffffffff81000000UL);
	b = hot_set(hb, 0xffffffff83000000UL);
	if (!ha || !hb || !a || !b)
		return 2;
	printf("KPROBE_CACHE_REPLACE %d, A = %u, then B = %u\n",
	       KPROBE_CACHE_REPLACE, ha, hb);
	passes(a, ha, 200, "A, warming");
	passes(a, ha, 100, "A, steady");
	for (j = 0; j < 100000; j++) {
		for (i = 0, h = 0; i < hb; i++)
			h += lookup(b[i]) == 1;
		n += hb;
		if (h * 10 >= 9UL * hb)
			break;
	}
	printf("B: %lu lookups until a pass hits >= 90%%\n", n);
	passes(b, hb, 100, "B, next 100 passes");
	return 0;
}
