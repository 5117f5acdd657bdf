// SPDX-License-Identifier: GPL-2.0
/*
 * cachesim-walk FIRST_K SIZE:PASSES [SIZE:PASSES...]: the validation
 * workload of harness/cachesim/validate.sh.
 *
 Phases: the setup around the walks runs in phase FIRST_K + n (n walks),
 * "walk-idle", entered at the start and again after each walk.  For
 * each SIZE (bytes, or with a K/M/G suffix) it maps a buffer, writes
 * every byte (so that every page is a page of its own, not the shared
 * zero page), walks it once to warm the caches, then starts phase
 * FIRST_K + i labelled "walkSIZE" and reads one byte per 64-byte line,
 * PASSES times over, then goes back to "walk-idle" and unmaps the
 * buffer.  Every read of the walks happens in walk_lines(), so the
 * plugin's per-PC counts of that one symbol in a walk phase are exactly
 * that walk's, whatever else the guest does meanwhile.  One line per
 * walk on stdout:
 *
 *   walk label=walk16K bytes=16384 lines=256 passes=4096 touches=1048576 ns=N ns_per_touch=X
 *
 * Built static and linked at a fixed address away from busybox's, so
 * the PCs are its own.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "marker.h"

#define LINE 64

/* The result, so that the compiler keeps every load. */
volatile unsigned long walk_sink;

__attribute__((noinline))
unsigned long walk_lines(const volatile unsigned char *buf, size_t bytes,
			 unsigned long passes)
{
	unsigned long sum = 0, p;
	size_t i;

	for (p = 0; p < passes; p++)
		for (i = 0; i < bytes; i += LINE)
			sum += buf[i];
	return sum;
}

static int parse_size(const char *s, size_t *out, char **rest)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return -1;
	switch (*end) {
	case 'G':
		v <<= 10;
		/* fall through */
	case 'M':
		v <<= 10;
		/* fall through */
	case 'K':
		v <<= 10;
		end++;
		break;
	}
	*out = v;
	*rest = end;
	return 0;
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	unsigned long first, idle, k;
	char *end;
	int i;

	if (argc < 3) {
		fprintf(stderr, "usage: %s FIRST_K SIZE:PASSES...\n", argv[0]);
		return 2;
	}
	first = strtoul(argv[1], &end, 0);
	if (*end || end == argv[1] ||
	    first + argc - 2 >= CACHESIM_MARK_PAGES) {
		fprintf(stderr, "%s: bad FIRST_K '%s'\n", argv[0], argv[1]);
		return 2;
	}
	idle = first + argc - 2;
	if (cachesim_mark(idle, "walk-idle")) {
		perror("cachesim_mark");
		return 1;
	}
	for (i = 2; i < argc; i++) {
		unsigned long passes;
		size_t bytes;
		char label[32];
		unsigned char *buf;
		double t0, t1;

		if (parse_size(argv[i], &bytes, &end) || *end != ':' ||
		    bytes < LINE || bytes % LINE) {
			fprintf(stderr, "%s: bad SIZE:PASSES '%s'\n", argv[0],
				argv[i]);
			return 2;
		}
		passes = strtoul(end + 1, &end, 10);
		if (*end || !passes) {
			fprintf(stderr, "%s: bad PASSES in '%s'\n", argv[0],
				argv[i]);
			return 2;
		}
		snprintf(label, sizeof(label), "walk%.*s",
			 (int)strcspn(argv[i], ":"), argv[i]);

		buf = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (buf == MAP_FAILED) {
			perror("mmap");
			return 1;
		}
		memset(buf, 1, bytes);
		walk_sink += walk_lines(buf, bytes, 1);

		k = first + i - 2;
		if (cachesim_mark(k, label)) {
			perror("cachesim_mark");
			return 1;
		}
		t0 = now_ns();
		walk_sink += walk_lines(buf, bytes, passes);
		t1 = now_ns();
		if (cachesim_mark(idle, "walk-idle")) {
			perror("cachesim_mark");
			return 1;
		}
		printf("walk label=%s bytes=%zu lines=%zu passes=%lu touches=%llu ns=%.0f ns_per_touch=%.2f\n",
		       label, bytes, bytes / LINE, passes,
		       (unsigned long long)bytes / LINE * passes, t1 - t0,
		       (t1 - t0) / ((double)bytes / LINE * passes));
		fflush(stdout);
		munmap(buf, bytes);
	}
	return 0;
}
