// SPDX-License-Identifier: GPL-2.0
/*
 * callbench N [WARMUP]: call getpid() through syscall(2) WARMUP times
 * (default N / 10, at least 1,000), then N times more, timing each of
 * those N calls on its own with clock_gettime(CLOCK_MONOTONIC), which
 * the vDSO answers without entering the kernel.  Prints one line:
 *
 *	callbench calls=C n=N p50=X p99=Y mean=M min=A max=B
 *
 * C counts every getpid() made (warm-up included): what a probe on the
 * system call should have seen.  Times in ns, percentiles by nearest rank.
 * Built static, for the initramfs of the test guest.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Nearest rank: the smallest value with at least pct% of them at or below. */
static uint64_t rank(const uint64_t *sorted, unsigned long n, unsigned int pct)
{
	unsigned long r = (n * pct + 99) / 100;

	return sorted[r ? r - 1 : 0];
}

static unsigned long parse_count(const char *s, const char *what)
{
	char *end;
	unsigned long v;

	v = strtoul(s, &end, 10);
	if (*s == '\0' || *end != '\0' || v > 100000000ul) {
		fprintf(stderr, "callbench: bad %s '%s'\n", what, s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	unsigned long n, warm, i;
	uint64_t *d, t0, t1, sum = 0;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: callbench N [WARMUP]\n");
		return 2;
	}
	n = parse_count(argv[1], "N");
	if (n == 0) {
		fprintf(stderr, "callbench: N must be at least 1\n");
		return 2;
	}
	if (argc == 3)
		warm = parse_count(argv[2], "WARMUP");
	else
		warm = n / 10 < 1000 ? 1000 : n / 10;

	d = calloc(n, sizeof(*d));
	if (!d) {
		perror("callbench: calloc");
		return 1;
	}
	/* Touch the array and the code paths before the timed calls. */
	for (i = 0; i < warm; i++) {
		t0 = now_ns();
		syscall(SYS_getpid);
		t1 = now_ns();
		d[i % n] = t1 - t0;
	}
	for (i = 0; i < n; i++) {
		t0 = now_ns();
		syscall(SYS_getpid);
		t1 = now_ns();
		d[i] = t1 - t0;
	}

	for (i = 0; i < n; i++)
		sum += d[i];
	qsort(d, n, sizeof(*d), cmp_u64);
	printf("callbench calls=%lu n=%lu p50=%llu p99=%llu mean=%llu min=%llu max=%llu\n",
	       warm + n, n, (unsigned long long)rank(d, n, 50),
	       (unsigned long long)rank(d, n, 99),
	       (unsigned long long)(sum / n), (unsigned long long)d[0],
	       (unsigned long long)d[n - 1]);
	free(d);
	return 0;
}
