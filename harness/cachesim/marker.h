/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The phase-marker protocol between guest programs and the cachesim
 * QEMU plugin (harness/cachesim/cachesim.c).
 *
 * QEMU 7.2's plugin API can neither read guest registers nor guest
 * memory, but it sees the virtual address of every load.  A guest
 * program therefore signals "end the current phase, start phase K with
 * label L" by loading single bytes from a window of user addresses that
 * no Linux program maps unless it asks for exactly these addresses:
 *
 *   CACHESIM_LABEL_PAGE + 0        clear the pending label
 *   CACHESIM_LABEL_PAGE + c        append byte c (1..255) to the label
 *   CACHESIM_MARK_BASE + K * 4096 + CACHESIM_MARK_OFFSET
 *                                  end the phase, start phase K
 *
 * Only successful one-byte loads count (a load from an unmapped page
 * faults and reaches no plugin callback), stores and wider loads in the
 * window are ignored, and the marker offset is odd, so neither stray
 * code nor ordinary data movement can start a phase.
 *
 * cachesim_mark() is the guest side; the plugin only uses the constants.
 */
#ifndef CACHESIM_MARKER_H
#define CACHESIM_MARKER_H

/* "KS" in the top bytes; 32 MiB window, aligned to its size. */
#define CACHESIM_MARK_BASE	0x4b5300000000ULL
#define CACHESIM_MARK_SHIFT	25
#define CACHESIM_PAGE		4096ULL
#define CACHESIM_MARK_PAGES	4096ULL	/* phase ids 0..4095 */
#define CACHESIM_MARK_OFFSET	0x4b5ULL
#define CACHESIM_LABEL_PAGE	(CACHESIM_MARK_BASE + 0x1000000ULL)
#define CACHESIM_LABEL_MAX	63

#ifndef CACHESIM_PLUGIN
#include <errno.h>
#include <sys/mman.h>

static inline volatile unsigned char *cachesim_map(unsigned long long addr)
{
	void *p = mmap((void *)(unsigned long)addr, CACHESIM_PAGE, PROT_READ,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
		       -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	if (p != (void *)(unsigned long)addr) {
		/* A kernel without MAP_FIXED_NOREPLACE took it as a hint. */
		munmap(p, CACHESIM_PAGE);
		errno = EEXIST;
		return NULL;
	}
	return p;
}

/*
 * Ends the plugin's current phase and starts phase @k (0..4095) labelled
 * @label (up to 63 bytes; NULL or "" lets the plugin name it).  Without
 * the plugin this only costs two mmap()s.  Returns 0, or -1 with errno.
 */
static inline int cachesim_mark(unsigned int k, const char *label)
{
	volatile unsigned char *lab, *mark;
	unsigned int sum = 0, i;

	if (k >= CACHESIM_MARK_PAGES) {
		errno = EINVAL;
		return -1;
	}
	lab = cachesim_map(CACHESIM_LABEL_PAGE);
	if (!lab)
		return -1;
	mark = cachesim_map(CACHESIM_MARK_BASE + k * CACHESIM_PAGE);
	if (!mark) {
		int err = errno;

		munmap((void *)lab, CACHESIM_PAGE);
		errno = err;
		return -1;
	}
	/* One-byte volatile loads, in program order. */
	sum += lab[0];
	for (i = 0; label && label[i] && i < CACHESIM_LABEL_MAX; i++)
		sum += lab[(unsigned char)label[i]];
	sum += mark[CACHESIM_MARK_OFFSET];
	__asm__ volatile("" : : "r"(sum) : "memory");
	munmap((void *)mark, CACHESIM_PAGE);
	munmap((void *)lab, CACHESIM_PAGE);
	return 0;
}
#endif /* !CACHESIM_PLUGIN */

#endif /* CACHESIM_MARKER_H */
