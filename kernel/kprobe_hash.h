/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The hash that places a probed address in the kprobe table's index
 * (kprobes.c), for the code that must place addresses as the index does.
 * It uses nothing of the kernel beyond <linux/hash.h>.
 */
#ifndef _KERNEL_KPROBE_HASH_H
#define _KERNEL_KPROBE_HASH_H

#include <linux/bits.h>
#include <linux/compiler.h>
#include <linux/hash.h>
#include <linux/types.h>

/**
 * kprobe_addr_hash - hash a probed address to @bits bits
 * @addr: the address
 * @bits: the number of bits wanted, 1 to 32
 *
 * hash_ptr() keeps the top bits of one multiplication by the golden ratio.
 * Over addresses at a fixed stride (functions of one size back to back,
 * a run of equal stubs) that is a Weyl sequence: even for most strides,
 * but for some it puts the addresses on a few tracks, and an open-
 * addressing table indexed by it then reads long runs of slots.  Folding
 * the product's high half into its low half and hashing that again with
 * hash_long() mixes every address bit into the top bits nonlinearly, so
 * that such runs spread like random addresses; it costs one more
 * multiplication.
 *
 * Return: the hash, in the low @bits bits.
 */
static __always_inline u32 kprobe_addr_hash(const void *addr,
					    unsigned int bits)
{
	unsigned long x = (unsigned long)addr * GOLDEN_RATIO_PRIME;

	x ^= x >> (BITS_PER_LONG / 2);
	return hash_long(x, bits);
}

#endif /* _KERNEL_KPROBE_HASH_H */
