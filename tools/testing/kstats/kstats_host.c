// SPDX-License-Identifier: GPL-2.0
/*
 * kstats_host - the cost of one kstats_record() on the host CPU.
 *
 * kstats_glue.c builds the kernel's own lib/kstats.c in user space on
 * x86-64, with kstats_shim.h standing in for the kernel around it; this
 * program calls its kstats_record() directly, from another object, as a
 * module calls the exported function.  Before it times anything it checks
 * that the build records right: samples from two "CPUs" (two per-CPU
 * areas, %gs switched between them) are read back through the kernel's
 * own seq_file code and must all be counted, each on its CPU.
 *
 * warm: back-to-back calls on one histogram, over values spread across
 *	its slots, less the same loop calling an empty function: the
 *	throughput cost of a call whose data are in the caches.
 * cold: one call with the histogram's header and the sample's slot
 *	flushed from every cache level (the code, the stack and the
 *	preemption count, which a kernel keeps hot, stay cached), timed
 *	with the TSC, less the same for an empty call; median.
 *
 * Usage: kstats_host [-q] [-n CALLS]
 *   -q        quick: the check and a short run (for make check)
 *   -n CALLS  warm calls per run [10,000,000]; cold: CALLS / 1,000
 */
#include <sched.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

/* linux/kstats.h comes first, from the Makefile. */
#include "kstats_host.h"

#define NR_VALUES 4096
#define RUNS 5

static u64 values[NR_VALUES];

static u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Values of every size, so that the calls spread over the slots. */
static void make_values(void)
{
	u64 x = 88172645463325252ULL;
	int i;

	for (i = 0; i < NR_VALUES; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		values[i] = x >> (x & 63);
	}
}

/* Every sample counted once, on its CPU, and the last fraction 1. */
static int check_counts(struct kstats *ks)
{
	static char buf[1 << 20];
	u64 per_cpu[KSTATS_SHIM_CPUS] = { 0 };
	u64 i, n = 0, counted;
	char *last;
	int cpu, bad = 0;

	for (cpu = 0; cpu < KSTATS_SHIM_CPUS; cpu++) {
		kstats_host_set_cpu(cpu);
		for (i = 0; i < 100000; i++)
			kstats_record(ks, i * i * (cpu + 1));
		kstats_record(ks, ~0ULL);
		n += 100001;
	}
	kstats_host_set_cpu(0);
	counted = kstats_host_read(ks, buf, sizeof(buf), per_cpu);
	last = strrchr(buf, '\n');
	while (last && last > buf && last[-1] != '\n')
		last--;
	printf("check: %llu samples on %d CPUs, %llu counted (", n,
	       KSTATS_SHIM_CPUS, counted);
	for (cpu = 0; cpu < KSTATS_SHIM_CPUS; cpu++) {
		printf("%sCPU %d: %llu", cpu ? ", " : "", cpu, per_cpu[cpu]);
		bad |= per_cpu[cpu] != 100001;
	}
	printf("); %zu bytes of text, last line: %s", strlen(buf),
	       last ? last : "(none)\n");
	kstats_host_reset(ks);
	if (bad || counted != n || !last || !strstr(last, "CPUS") ||
	    !strstr(last, "p 1.000000")) {
		printf("check: FAIL\n");
		return 1;
	}
	printf("check: ok\n");
	return 0;
}

/* ns per call of @calls calls of @fn over the values. */
static double loop(void (*fn)(struct kstats *, u64), struct kstats *ks,
		   u64 calls)
{
	u64 i, t0;

	t0 = now_ns();
	for (i = 0; i < calls; i++)
		fn(ks, values[i % NR_VALUES]);
	return (double)(now_ns() - t0) / calls;
}

static double warm(struct kstats *ks, u64 calls, double *lo, double *hi)
{
	double d[RUNS];
	int i;

	for (i = 0; i < RUNS; i++) {
		/* Direct calls, each loop compiled on its own. */
		d[i] = loop(kstats_record, ks, calls) -
		       loop(kstats_host_nothing, ks, calls);
	}
	qsort(d, RUNS, sizeof(*d), cmp_double);
	*lo = d[0];
	*hi = d[RUNS - 1];
	return d[RUNS / 2];
}

/*
 * Median TSC ticks of one call of kstats_record() (@real) or of the empty
 * function, with the histogram's header and the slot flushed before it;
 * samples where the TSC was read on another CPU are dropped.
 */
static u64 cold_ticks(struct kstats *ks, u64 calls, bool real)
{
	u64 *c = calloc(calls, sizeof(*c));
	void *slot = kstats_host_slot(ks, 0, 1000);
	unsigned int aux0, aux1;
	u64 i, n = 0, t0, t1, r;

	if (!c)
		exit(1);
	for (i = 0; i < calls; i++) {
		_mm_clflush(ks);
		_mm_clflush(slot);
		_mm_mfence();
		_mm_lfence();
		t0 = __rdtscp(&aux0);
		_mm_lfence();
		if (real)
			kstats_record(ks, 1000);
		else
			kstats_host_nothing(ks, 1000);
		t1 = __rdtscp(&aux1);
		_mm_lfence();
		if (aux0 == aux1)
			c[n++] = t1 - t0;
	}
	qsort(c, n, sizeof(*c), cmp_u64);
	r = n ? c[n / 2] : 0;
	free(c);
	return r;
}

/* TSC ticks per ns, against CLOCK_MONOTONIC_RAW over 100 ms. */
static double tsc_ghz(void)
{
	u64 t0 = now_ns(), c0 = __rdtsc(), t1;

	do
		t1 = now_ns();
	while (t1 - t0 < 100000000);
	return (double)(__rdtsc() - c0) / (t1 - t0);
}

int main(int argc, char **argv)
{
	u64 calls = 10000000, cold_n, base, ticks;
	double ghz, w, lo, hi;
	struct kstats *ks;
	cpu_set_t one;
	int opt;

	while ((opt = getopt(argc, argv, "qn:")) != -1) {
		if (opt == 'q')
			calls = 1000000;
		else if (opt == 'n')
			calls = strtoull(optarg, NULL, 0);
		else
			return 2;
	}
	if (calls < 1000) {
		fprintf(stderr, "kstats_host: -n takes 1000 calls or more\n");
		return 2;
	}
	cold_n = calls / 1000;
	/* One host CPU: the TSC reads and the caches are that CPU's. */
	CPU_ZERO(&one);
	CPU_SET(sched_getcpu(), &one);
	sched_setaffinity(0, sizeof(one), &one);

	if (kstats_host_init()) {
		fprintf(stderr, "kstats_host: no memory for the per-CPU areas\n");
		return 1;
	}
	ks = kstats_new("host", KSTATS_DEFAULT_FRAC_BITS);
	if (IS_ERR_OR_NULL(ks)) {
		fprintf(stderr, "kstats_host: kstats_new() failed\n");
		return 1;
	}
	if (check_counts(ks))
		return 1;

	make_values();
	ghz = tsc_ghz();
	w = warm(ks, calls, &lo, &hi);
	base = cold_ticks(ks, cold_n, false);
	ticks = cold_ticks(ks, cold_n, true);
	printf("tsc: %.3f GHz\n", ghz);
	printf("warm: %.2f ns per call ", w);
	printf("(median of %d runs of %llu calls, %.2f-%.2f; less an empty call)\n",
	       RUNS, calls, lo, hi);
	printf("cold: %.1f ns per call ", (ticks > base ? ticks - base : 0) / ghz);
	printf("(median of %llu: %llu TSC ticks, less %llu for an empty call)\n",
	       cold_n, ticks, base);
	kstats_delete(ks);
	return 0;
}
