// SPDX-License-Identifier: GPL-2.0
/*
 * kstats_host - the cost of one kstats_record() on the host CPU.
 *
 * Builds the kernel's own lib/kstats.c in user space on x86-64, with
 * kstats_shim.h standing in for the kernel around it, and times
 * kstats_record() warm (the same histogram, called back to back) and cold
 * (the histogram's header, the sample's slot and the preemption count
 * flushed from every cache level before each call).  Before timing, it
 * checks that the build records right: samples from two "CPUs" (two
 * per-CPU areas, %gs switched between them) are read back through the
 * kernel's own seq_file code and must all be counted.
 *
 * Usage: kstats_host [-q] [-n CALLS]
 *   -q        quick: the check and a short run (for make check)
 *   -n CALLS  warm calls per run [10,000,000]; cold: CALLS / 1,000
 */
#include <asm/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

#include "../../../lib/kstats.c"

char *kstats_shim_areas;
unsigned long kstats_shim_next = 64;

void kstats_shim_resched(void)
{
	fprintf(stderr, "kstats_host: preemption count reached 0\n");
	exit(1);
}

static void set_cpu(int cpu)
{
	if (syscall(SYS_arch_prctl, ARCH_SET_GS,
		    kstats_shim_areas + cpu * KSTATS_SHIM_AREA)) {
		perror("arch_prctl(ARCH_SET_GS)");
		exit(1);
	}
}

static u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void nothing(struct kstats *ks, u64 value)
{
	barrier();
}

/*
 * A call, as from a module: through a pointer that the compiler cannot
 * follow, so that it neither inlines the function nor hoists its loads.
 */
static __always_inline void call(void (*fn)(struct kstats *, u64),
				 struct kstats *ks, u64 value)
{
	asm("" : "+r" (fn));
	fn(ks, value);
}

static __always_inline void record(struct kstats *ks, u64 value)
{
	call(kstats_record, ks, value);
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

/* The histogram's text, through the kernel's seq_file operations. */
static u64 read_back(struct kstats *ks, char *buf, size_t size)
{
	struct kstats_iter it = { .ks = ks };
	struct seq_file m = { .buf = buf, .size = size, .private = &it };
	u64 counted = 0;
	loff_t pos = 0;
	void *v;

	for (v = kstats_seq_ops.start(&m, &pos); v;
	     v = kstats_seq_ops.next(&m, v, &pos)) {
		if (kstats_seq_ops.show(&m, v) == SEQ_SKIP)
			continue;
		if (kstats_iter_cpus_line(&it))
			counted += it.count;
	}
	kstats_seq_ops.stop(&m, v);
	return counted;
}

/* Every sample of two CPUs counted once, and the last fraction 1. */
static int check_counts(struct kstats *ks)
{
	static char buf[1 << 20];
	u64 i, n = 0, counted;
	char *last;
	int cpu;

	for (cpu = 0; cpu < KSTATS_SHIM_CPUS; cpu++) {
		set_cpu(cpu);
		for (i = 0; i < 100000; i++, n++)
			record(ks, i * i * (cpu + 1));
		record(ks, ~0ULL);
		n++;
	}
	set_cpu(0);
	counted = read_back(ks, buf, sizeof(buf));
	last = strrchr(buf, '\n');
	while (last && last > buf && last[-1] != '\n')
		last--;
	printf("check: %llu samples on %d CPUs, %llu counted; %zu bytes of text, last line: %s",
	       (unsigned long long)n, KSTATS_SHIM_CPUS,
	       (unsigned long long)counted, strlen(buf), last ? last : "(none)\n");
	kstats_reset(ks);
	if (counted != n || !last || !strstr(last, "CPUS") ||
	    !strstr(last, "p 1.000000")) {
		printf("check: FAIL\n");
		return 1;
	}
	printf("check: ok\n");
	return 0;
}

static double warm(struct kstats *ks, u64 calls, u64 mask)
{
	u64 i, t0, t1;

	t0 = now_ns();
	for (i = 0; i < calls; i++)
		record(ks, 1000 + (i & mask));
	t1 = now_ns();
	return (double)(t1 - t0) / calls;
}

static void flush(const void *p)
{
	_mm_clflush(p);
}

/*
 * TSC cycles of one call with the lines it reads flushed, median of
 * @calls, minus the same for an empty call.
 */
static u64 cold_cycles(struct kstats *ks, u64 calls, bool real)
{
	u64 *c = calloc(calls, sizeof(*c));
	unsigned int slot = __kstats_slot(1000, ks->frac_bits), aux;
	u64 i, t0, t1, r;

	for (i = 0; i < calls; i++) {
		flush(ks);
		flush(per_cpu_ptr(ks->slots, 0) + slot);
		flush(kstats_shim_areas);
		_mm_mfence();
		_mm_lfence();
		t0 = __rdtscp(&aux);
		_mm_lfence();
		call(real ? kstats_record : nothing, ks, 1000);
		t1 = __rdtscp(&aux);
		_mm_lfence();
		c[i] = t1 - t0;
	}
	qsort(c, calls, sizeof(*c), cmp_u64);
	r = c[calls / 2];
	free(c);
	return r;
}

/* TSC cycles per ns, against CLOCK_MONOTONIC over 100 ms. */
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
	u64 calls = 10000000, cold_n, base, cyc;
	double ghz, w1[5], w2[5];
	struct kstats *ks;
	bool quick = false;
	int i, opt, cpu;

	while ((opt = getopt(argc, argv, "qn:")) != -1) {
		if (opt == 'q')
			quick = true;
		else if (opt == 'n')
			calls = strtoull(optarg, NULL, 0);
		else
			return 2;
	}
	if (quick)
		calls = 1000000;
	cold_n = calls / 1000 < 100 ? 100 : calls / 1000;

	kstats_shim_areas = aligned_alloc(4096, KSTATS_SHIM_CPUS * KSTATS_SHIM_AREA);
	if (!kstats_shim_areas)
		return 1;
	memset(kstats_shim_areas, 0, KSTATS_SHIM_CPUS * KSTATS_SHIM_AREA);
	/* x86's PREEMPT_ENABLED: the inverted NEED_RESCHED bit set. */
	for (cpu = 0; cpu < KSTATS_SHIM_CPUS; cpu++)
		*(u32 *)(kstats_shim_areas + cpu * KSTATS_SHIM_AREA) = 0x80000000;
	set_cpu(0);
	kstats_shim_init();

	ks = kstats_new("host", KSTATS_DEFAULT_FRAC_BITS);
	if (IS_ERR_OR_NULL(ks)) {
		printf("kstats_new() failed\n");
		return 1;
	}
	if (check_counts(ks))
		return 1;

	ghz = tsc_ghz();
	for (i = 0; i < 5; i++) {
		w1[i] = warm(ks, calls, 0);
		w2[i] = warm(ks, calls, 1023);
	}
	qsort(w1, 5, sizeof(double), cmp_double);
	qsort(w2, 5, sizeof(double), cmp_double);
	base = cold_cycles(ks, cold_n, false);
	cyc = cold_cycles(ks, cold_n, true);
	printf("tsc: %.3f GHz\n", ghz);
	printf("warm: one value: %.2f ns per call (median of 5 runs of %llu; %.2f-%.2f)\n",
	       w1[2], (unsigned long long)calls, w1[0], w1[4]);
	printf("warm: 1,024 values, 128 slots: %.2f ns per call (%.2f-%.2f)\n",
	       w2[2], w2[0], w2[4]);
	printf("cold: %.1f ns per call (median of %llu; %llu cycles, less %llu of an empty call)\n",
	       (cyc > base ? cyc - base : 0) / ghz, (unsigned long long)cold_n,
	       (unsigned long long)cyc, (unsigned long long)base);
	kstats_delete(ks);
	kstats_shim_exit();
	return 0;
}
