// SPDX-License-Identifier: GPL-2.0
/*
 * evdefine TRACEFS_FILE DEFS: defines dynamic events the way perf probe
 * does, one write(2) per definition on one open file.  Opens TRACEFS_FILE
 * (kprobe_events, dynamic_events) for appending once, then writes each
 * line of DEFS (a definition per line) with a write of its own, newline
 * included, and goes on after a refused one.  Prints
 *
 *   ED lines=L events=E refused=R s=S first_half_s=H [errno=N line=K]
 *
 * (seconds by CLOCK_MONOTONIC, from the first write to the last, and to
 * the end of the first half of the lines; errno and line of the first
 * refused definition, if any).  Exits 0 when every line was read and
 * written, refused or not; non-zero, saying why on stderr, when a file
 * cannot be opened or read.  Linked static, for the initramfs of the
 * test guest.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	size_t cap = 0, lines = 0, events = 0, refused = 0, half = 0, i;
	size_t first_bad = 0;
	int first_errno = 0;
	char **defs = NULL, *line = NULL;
	double t0, t_half = 0, t1;
	size_t len = 0;
	ssize_t got;
	FILE *f;
	int fd;

	if (argc != 3) {
		fprintf(stderr, "usage: evdefine TRACEFS_FILE DEFS\n");
		return 2;
	}
	f = fopen(argv[2], "r");
	if (!f) {
		fprintf(stderr, "evdefine: %s: %s\n", argv[2], strerror(errno));
		return 1;
	}
	/* Read every definition first: only the writes are timed. */
	while ((got = getline(&line, &len, f)) > 0) {
		if (line[got - 1] != '\n') {
			fprintf(stderr, "evdefine: %s: last line without a newline\n", argv[2]);
			return 1;
		}
		if (lines == cap) {
			cap = cap ? 2 * cap : 1024;
			defs = realloc(defs, cap * sizeof(*defs));
			if (!defs) {
				fprintf(stderr, "evdefine: out of memory\n");
				return 1;
			}
		}
		defs[lines] = strdup(line);
		if (!defs[lines]) {
			fprintf(stderr, "evdefine: out of memory\n");
			return 1;
		}
		lines++;
	}
	if (ferror(f)) {
		fprintf(stderr, "evdefine: %s: read error\n", argv[2]);
		return 1;
	}
	fclose(f);
	free(line);

	fd = open(argv[1], O_WRONLY | O_APPEND);
	if (fd < 0) {
		fprintf(stderr, "evdefine: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	half = lines / 2;
	t0 = now();
	for (i = 0; i < lines; i++) {
		size_t n = strlen(defs[i]);

		if (i == half)
			t_half = now();
		if (write(fd, defs[i], n) == (ssize_t)n) {
			events++;
			continue;
		}
		if (!refused++) {
			first_errno = errno;
			first_bad = i + 1;
		}
	}
	t1 = now();
	if (!lines)
		t_half = t1;
	close(fd);
	printf("ED lines=%zu events=%zu refused=%zu s=%.2f first_half_s=%.2f",
	       lines, events, refused, t1 - t0, t_half - t0);
	if (refused)
		printf(" errno=%d line=%zu", first_errno, first_bad);
	printf("\n");
	return 0;
}
