// SPDX-License-Identifier: GPL-2.0
/*
 * cachesim-mark K [LABEL]: in a guest run under the cachesim QEMU plugin,
 * end the current measurement phase and start phase K (0..4095), named
 * LABEL (up to 63 printable bytes).  Without the plugin it does nothing
 * visible.  Built static (gcc -static -O2) for the busybox initramfs.
 * The protocol is in marker.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "marker.h"

int main(int argc, char **argv)
{
	unsigned long k;
	char *end;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: %s K [LABEL]   (0 <= K < %llu)\n",
			argv[0], CACHESIM_MARK_PAGES);
		return 2;
	}
	errno = 0;
	k = strtoul(argv[1], &end, 0);
	if (errno || end == argv[1] || *end || k >= CACHESIM_MARK_PAGES) {
		fprintf(stderr, "%s: bad phase id '%s'\n", argv[0], argv[1]);
		return 2;
	}
	if (argc == 3 && strlen(argv[2]) > CACHESIM_LABEL_MAX)
		fprintf(stderr, "%s: label cut to %d bytes\n", argv[0],
			CACHESIM_LABEL_MAX);
	if (cachesim_mark(k, argc == 3 ? argv[2] : NULL)) {
		fprintf(stderr, "%s: cannot map the marker pages: %s\n",
			argv[0], strerror(errno));
		return 1;
	}
	return 0;
}
