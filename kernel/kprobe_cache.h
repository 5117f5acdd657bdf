/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small per-CPU, set-associative cache of address -> kprobe lookups:
 * the layout of one CPU's sets and the operations on them (probe, insert,
 * remove, flush, the bypass window), for kprobe_cache.c, which adds the
 * per-CPU data, the nesting rules and the kprobe table, and for its
 * tests.
 */
#ifndef _KERNEL_KPROBE_CACHE_H
#define _KERNEL_KPROBE_CACHE_H

#include <linux/bits.h>
#include <linux/compiler.h>
#include <linux/hash.h>
#include <linux/types.h>

#ifdef CONFIG_KPROBE_CACHE_SHIFT
#define KPROBE_CACHE_SHIFT	CONFIG_KPROBE_CACHE_SHIFT
#else
#define KPROBE_CACHE_SHIFT	8
#endif
#define KPROBE_CACHE_SETS	BIT(KPROBE_CACHE_SHIFT)
#define KPROBE_CACHE_WAYS	4

struct kprobe;

/**
 * struct kprobe_cache_stats - what one CPU's cache did
 * @hits: lookups answered by the cache
 * @misses: lookups that walked the kprobe table
 * @inserts: entries written after a miss
 * @invalidations: entries removed because the table had changed
 * @bypassed: lookups that went straight to the table while the hot set
 *	overflowed the cache
 */
struct kprobe_cache_stats {
	unsigned long hits;
	unsigned long misses;
	unsigned long inserts;
	unsigned long invalidations;
	unsigned long bypassed;
};

struct kprobe_cache_way {
	void *addr;
	struct kprobe *kp;
};

/* One set is one 64-byte cache line on 64-bit. */
struct kprobe_cache_set {
	struct kprobe_cache_way way[KPROBE_CACHE_WAYS];
} __aligned(KPROBE_CACHE_WAYS * sizeof(struct kprobe_cache_way));

/**
 * struct kprobe_cache - one CPU's cache
 * @set: the sets; an address can only live in set hash_ptr(addr, SHIFT)
 *
 * 64 bytes per set: 16 KiB per CPU with the default 256 sets, allocated
 * when the first kprobe is registered and freed when the cache is turned
 * off (kprobe_cache.c).
 */
struct kprobe_cache {
	struct kprobe_cache_set set[KPROBE_CACHE_SETS];
};

/*
 * Only the owning CPU probes a cache or inserts into it, but its lookups
 * can nest: an interrupt or NMI may hit a kprobe while a lookup runs.
 * Inserts must be serialized by the caller, and a reader that an insert
 * may interrupt must check that none happened while it probed
 * (kprobe_cache.c keeps a per-CPU sequence count for that).
 * Otherwise a probe could pair the address of a new entry with the kprobe
 * of the entry that the new one replaced.  Other CPUs may remove entries
 * (kprobe_cache_remove(), kprobe_cache_flush()) at any time: those only
 * write NULL addresses.
 */
/*
 * The one set that can hold @addr.  One multiplication: at some fixed
 * strides it crowds a run of hot addresses into a few sets, and those
 * then thrash until the CPU bypasses the cache, so that a crowded cache
 * costs what the kprobe table's index costs.  The index, which has no
 * such bound, hashes with kprobe_addr_hash() instead.
 */
static __always_inline unsigned int kprobe_cache_set_index(const void *addr)
{
	return hash_ptr(addr, KPROBE_CACHE_SHIFT);
}

static __always_inline struct kprobe *
kprobe_cache_probe(struct kprobe_cache *c, void *addr)
{
	struct kprobe_cache_set *set = &c->set[kprobe_cache_set_index(addr)];
	int i;

	for (i = 0; i < KPROBE_CACHE_WAYS; i++)
		if (READ_ONCE(set->way[i].addr) == addr)
			return READ_ONCE(set->way[i].kp);
	return NULL;
}

/*
 * Caches @kp for @addr in a free way of its set or in the way that holds
 * @addr already.  If the set is full, replaces way @victim (modulo the
 * number of ways) when @replace is true, and writes nothing otherwise.
 * Returns true when the set was full.
 */
static __always_inline bool kprobe_cache_insert(struct kprobe_cache *c, void *addr,
						struct kprobe *kp, unsigned int victim,
						bool replace)
{
	struct kprobe_cache_set *set = &c->set[kprobe_cache_set_index(addr)];
	struct kprobe_cache_way *way = NULL;
	int i;

	for (i = 0; i < KPROBE_CACHE_WAYS; i++) {
		void *cur = READ_ONCE(set->way[i].addr);

		if (!cur || cur == addr) {
			way = &set->way[i];
			break;
		}
	}
	if (!way) {
		if (!replace)
			return true;
		way = &set->way[victim % KPROBE_CACHE_WAYS];
	}

	WRITE_ONCE(way->kp, kp);
	WRITE_ONCE(way->addr, addr);
	return i == KPROBE_CACHE_WAYS;
}

/*
 * More hot addresses than ways in a set make the set thrash if every miss
 * inserts: hit round robin, each address evicts another one that comes
 * back before it does, and every lookup of the set misses and pays for
 * the probe, the table, the insertion and its full barrier.  Two limits.
 *
 * A miss that finds its set full replaces an entry only once in
 * KPROBE_CACHE_REPLACE such misses (bimodal insertion): the addresses
 * that are in the set stay there and keep hitting, the others are looked
 * up in the table without an insertion, and the set still turns over,
 * more slowly, when the hot set changes.  Five hot addresses in a set of
 * four ways hit four times in five instead of never.
 *
 * A window of KPROBE_CACHE_WINDOW misses thrashes when it has fewer hits
 * than misses and at least half of the misses find their set full.  A CPU
 * that sees two such windows in a row goes to the table directly for its
 * next KPROBE_CACHE_BYPASS lookups, then tries the cache again; one more
 * window that thrashes then starts the next bypass.  One window is not
 * enough: the first pass over a new hot set about as large as the cache
 * cannot hit yet, and its last misses find full the sets that the pass
 * itself filled.  A window whose misses only fill empty ways, as after a
 * table change, never thrashes.
 */
#define KPROBE_CACHE_REPLACE	16
#define KPROBE_CACHE_WINDOW	256
#define KPROBE_CACHE_BYPASS	4096

/**
 * struct kprobe_cache_window - one CPU's current window of misses
 * @misses: misses that found a kprobe, in this window
 * @full: those of them that found their set full
 * @thrashed: whether the window before this one thrashed
 * @hits: the low 32 bits of the CPU's hit count when the window began
 *
 * 12 bytes, so that a CPU's whole state fits in one cache line.  32 bits
 * of the hit count are enough: a window only asks whether fewer than
 * KPROBE_CACHE_WINDOW hits came since it began, and the difference of the
 * low halves is exact up to 2^32 - 1 hits.
 */
struct kprobe_cache_window {
	u16 misses;
	u16 full;
	bool thrashed;
	u32 hits;
};

/* Whether the next miss that finds its set full replaces an entry. */
static __always_inline bool kprobe_cache_may_replace(const struct kprobe_cache_window *w)
{
	return !(w->full % KPROBE_CACHE_REPLACE);
}

/*
 * Counts a miss that found a kprobe in @w (@full: kprobe_cache_insert()'s
 * result); @hits is the CPU's hit count so far.  Returns true when this
 * miss ends the second window in a row in which the cache thrashed.
 */
static __always_inline bool kprobe_cache_window_end(struct kprobe_cache_window *w,
						    unsigned long hits, bool full)
{
	bool thrashed, before;

	w->full += full;
	if (++w->misses < KPROBE_CACHE_WINDOW)
		return false;
	before = w->thrashed;
	thrashed = (u32)hits - w->hits < KPROBE_CACHE_WINDOW &&
		   w->full >= KPROBE_CACHE_WINDOW / 2;
	w->misses = 0;
	w->full = 0;
	w->hits = (u32)hits;
	w->thrashed = thrashed;
	return thrashed && before;
}

/*
 * Removes @addr from @c: it writes NULL over the address of its entry and
 * leaves the kprobe pointer, so that the cache's own CPU may run it while
 * another CPU removes an entry.  Returns the number of entries removed.
 */
static __always_inline unsigned int kprobe_cache_remove(struct kprobe_cache *c,
							const void *addr)
{
	struct kprobe_cache_set *set = &c->set[kprobe_cache_set_index(addr)];
	unsigned int i, n = 0;

	for (i = 0; i < KPROBE_CACHE_WAYS; i++) {
		if (READ_ONCE(set->way[i].addr) == addr) {
			WRITE_ONCE(set->way[i].addr, NULL);
			n++;
		}
	}
	return n;
}

static __always_inline void kprobe_cache_flush(struct kprobe_cache *c)
{
	unsigned int s;
	int i;

	for (s = 0; s < KPROBE_CACHE_SETS; s++)
		for (i = 0; i < KPROBE_CACHE_WAYS; i++)
			WRITE_ONCE(c->set[s].way[i].addr, NULL);
}

#ifdef CONFIG_KPROBE_CACHE
#if IS_ENABLED(CONFIG_KUNIT)
void kprobe_cache_read_stats(struct kprobe_cache_stats *sum);
void kprobe_cache_read_cpu_stats(int cpu, struct kprobe_cache_stats *st);
int kprobe_cache_switch(bool on);
size_t kprobe_cache_allocated(void);
struct kprobe *kprobe_cache_fill_stale(void *addr);
#endif
#endif

#endif /* _KERNEL_KPROBE_CACHE_H */
