// SPDX-License-Identifier: GPL-2.0
/*
 * cachesim-write K LABEL FILE TEXT [K2 [LABEL2]]: in a guest run under
 * the cachesim QEMU plugin, measure one write(2) in a phase of its own.
 *
 * Opens FILE for writing, starts phase K (LABEL), writes TEXT to FILE in
 * one write() call, then starts phase K2 (default 0, label LABEL2,
 * default "idle").  The phase K thus holds the write system call and
 * whatever the kernel does meanwhile, and none of the fork, exec, open
 * and exit work of a shell command such as
 * "cachesim-mark K; echo TEXT > FILE; cachesim-mark K2".  For a debugfs
 * control file the write runs the command, e.g. a benchmark loop.
 * Exits 1 (and says why) when the write fails or is short.  Without the
 * plugin the markers are no-ops.  Built static for the busybox initramfs.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "marker.h"

static int phase_id(const char *prog, const char *s, unsigned long *k)
{
	char *end;

	errno = 0;
	*k = strtoul(s, &end, 0);
	if (errno || end == s || *end || *k >= CACHESIM_MARK_PAGES) {
		fprintf(stderr, "%s: bad phase id '%s'\n", prog, s);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *label2 = "idle";
	unsigned long k, k2 = 0;
	size_t len;
	ssize_t n;
	int fd, err;

	if (argc < 5 || argc > 7) {
		fprintf(stderr, "usage: %s K LABEL FILE TEXT [K2 [LABEL2]]\n",
			argv[0]);
		return 2;
	}
	if (phase_id(argv[0], argv[1], &k) ||
	    (argc > 5 && phase_id(argv[0], argv[5], &k2)))
		return 2;
	if (argc > 6)
		label2 = argv[6];
	fd = open(argv[3], O_WRONLY);
	if (fd < 0) {
		fprintf(stderr, "%s: %s: %s\n", argv[0], argv[3],
			strerror(errno));
		return 1;
	}
	len = strlen(argv[4]);
	if (cachesim_mark(k, argv[2])) {
		fprintf(stderr, "%s: cannot map the marker pages: %s\n",
			argv[0], strerror(errno));
		return 1;
	}
	n = write(fd, argv[4], len);
	err = errno;
	if (cachesim_mark(k2, label2)) {
		fprintf(stderr, "%s: cannot map the marker pages: %s\n",
			argv[0], strerror(errno));
		return 1;
	}
	if (n < 0) {
		fprintf(stderr, "%s: write to %s: %s\n", argv[0], argv[3],
			strerror(err));
		return 1;
	}
	if ((size_t)n != len) {
		fprintf(stderr, "%s: short write to %s: %zd of %zu bytes\n",
			argv[0], argv[3], n, len);
		return 1;
	}
	return close(fd) ? 1 : 0;
}
