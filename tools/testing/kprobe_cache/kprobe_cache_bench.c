// SPDX-License-Identifier: GPL-2.0
/*
 * kprobe_cache_bench - user space benchmark of kernel/kprobe_cache.c
 *
 * What it measures
 * ----------------
 * The kprobe hit path looks the probed address up with get_kprobe().  It
 * used to walk one of 64 hlist chains of kprobe_table[] (kernel/kprobes.c):
 * with N probes registered a chain holds about N/64 kprobes and a hit
 * visits about N/128 of them, each a separately allocated object on its own
 * cache line.  It now reads the table's index, an open-addressing array of
 * (address, kprobe pointer) slots sized to N, and reads no kprobe on its
 * way.  The per-CPU kprobe cache answers a hot
 * address from one 64-byte set.  This program links the kernel's own
 * kernel/kprobe_cache.c, built in user space with one CPU by
 * kprobe_cache_glue.c and kprobe_cache_shim.h, and compares:
 *
 *   walk_lookup(addr)       - the chain walk of get_kprobe() before the
 *                             index
 *   index_lookup(addr)      - get_kprobe() with the index, a model of its
 *                             code in kernel/kprobes.c (with its hash,
 *                             kernel/kprobe_hash.h)
 *   get_kprobe_cached(addr) - the kernel's, with its bypass, its sequence
 *                             count and, on a miss, kprobe_cache_miss():
 *                             the index (get_kprobe_from_index(), the
 *                             model's), the insertion and its barrier
 *
 * on a fake kprobe table that looks like the kernel's:
 *
 *  - struct kprobe has the size (128 bytes) and the hlist/addr offsets of
 *    the real x86-64 struct;
 *  - the kprobes sit in 256-byte slots (a kmalloc size class) taken in a
 *    seeded random order from a pool four times larger than needed, so
 *    neighbours on a chain are far apart, as slab objects are;
 *  - the probed addresses are distinct, 16-byte aligned fake kernel text
 *    addresses 0xffffffff81000000 + 16 * k for random k (or, with
 *    --stride S, 0xffffffff81000000 + S * i for the i-th probe: functions
 *    of one size in a row, a layout a hash can crowd), and are hashed with
 *    hash_ptr(addr, 6) like kprobe_table[];
 *  - the index is grown as registration grows it in the kernel (to the
 *    same size), in an array aligned to its size.
 *
 * For N = 1, 64, 1000, 10000, 40000 probes and a hot set of H = 1, 16, 256,
 * 4096 addresses picked at random among them it reports:
 *
 *  - walk_hot_ns, index_hot_ns, cache_hot_ns: ns per lookup when lookups
 *    cycle through the hot set back to back (caches warm; independent
 *    lookups, so this is throughput, not latency): the best of five timed
 *    loops;
 *  - index_lat_ns, cache_lat_ns: the same with each lookup's address
 *    depending on the previous lookup's result, so that lookups cannot
 *    overlap: the latency of a warm lookup, which is what a kprobe hit
 *    pays (one lookup per trap or ftrace call, with a lot of other code
 *    between two);
 *  - walk_cold_ns, index_cold_ns, cache_cold_ns: the median latency of a
 *    single lookup after all CPU caches were flushed by reading a buffer
 *    of at least twice the last level cache (and at least 64 MiB), minus
 *    the measured clock_gettime() overhead;
 *  - the hit and bypass rates of the cache in a separate pass over the hot
 *    set, from the cache's own statistics.
 *
 * The cache variant is always warmed first, so its lookups are hits unless
 * more than four hot addresses share a set; beyond that, misses into a
 * full set replace an entry only now and then, and a CPU whose hot set
 * thrashes its cache bypasses it for a while (kernel/kprobe_cache.h).
 * Cold numbers include TLB and instruction cache misses, as a cold kprobe
 * hit in the kernel would, but not the per-CPU offset and the static key,
 * which a kernel lookup finds cached (the key is code there): those are
 * read again after each flush.
 *
 * How to run it
 * -------------
 *   make            build
 *   make run        full table, then cachegrind.sh (a few minutes)
 *   make quick      small sizes and cachegrind.sh quick (under a minute)
 *
 *   ./kprobe_cache_bench [--quick] [--n LIST] [--h LIST] [--stride S]
 *   ./kprobe_cache_bench [--stride S] --cachegrind walk|index|cache|steady N H COUNT [EVICT_KIB]
 *
 * --n and --h replace the sizes and hot set sizes with comma-separated
 * lists (at most 16 numbers each; pairs with H > N are skipped), e.g.
 * --n 40000 --h 512,1024,2048 for hot sets around the cache's capacity.
 * --stride S (bytes, S > 0) places the probes at a fixed stride instead
 * of at random.
 *
 * The second form is for cachegrind.sh: it builds the table, warms the
 * cache (cache variant; steady: the cache variant run through its bypass
 * decisions until a bypass begins, the cycle of a hot set that overflows
 * the cache, or for 20,000 lookups), then does COUNT lookups of the hot set, each
 * after reading EVICT_KIB KiB (default: the cold-flush size above), which
 * must exceed the simulated last level cache.  cachegrind.sh attributes
 * the data read misses of walk_lookup(), index_lookup(),
 * get_kprobe_cached(), kprobe_cache_miss(), kprobe_cache_fill() and
 * get_kprobe_from_index() (and of what was inlined into them) to the
 * lookups.
 * Pin the benchmark to one CPU (the Makefile uses taskset when it is
 * available) for stable numbers.
 */
#define _GNU_SOURCE
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include <linux/bits.h>
#include <linux/build_bug.h>
#include <linux/compiler.h>
#include <linux/hash.h>
#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/types.h>

#include "kprobe_hash.h"
#include "kprobe_cache_host.h"

#define KPROBE_HASH_BITS	6
#define KPROBE_TABLE_SIZE	BIT(KPROBE_HASH_BITS)

/* Size of a slab slot; the nodes are spread over POOL_FACTOR * N slots. */
#ifndef SLOT_SIZE
#define SLOT_SIZE		256
#endif
#define POOL_FACTOR		4

/* Fake kernel text: function entries are 16-byte aligned. */
#define TEXT_BASE		0xffffffff81000000UL
#define TEXT_ALIGN		16
#define TEXT_SLOTS		BIT(21)		/* 32 MiB of text */

#define MIN_EVICT_BYTES		(64UL << 20)
#define HUGE_SIZE		(2UL << 20)
#define DEFAULT_SEED		0x6b70726f6265ULL
/* The most numbers in --n and --h */
#define MAX_LIST		16

/*
 * The x86-64 struct kprobe (include/linux/kprobes.h with
 * arch/x86/include/asm/kprobes.h) is 128 bytes: hlist at 0, list at 16,
 * nmissed at 32, addr at 40, symbol_name at 48, offset at 56,
 * pre_handler at 64, post_handler at 72, opcode at 80, ainsn (32 bytes)
 * at 88 and flags at 120, padded to 128.  Only hlist and addr are used
 * here; the rest keeps the size and the offsets.
 */
struct kprobe {
	struct hlist_node hlist;
	unsigned long list[2];
	unsigned long nmissed;
	void *addr;
	unsigned long rest[10];
};

static struct hlist_head kprobe_table[KPROBE_TABLE_SIZE];

/*
 * The index, as in kernel/kprobes.c: slot array | log2(slots); a slot is
 * an address and its kprobe.
 */
struct kprobe_index_slot {
	unsigned long addr;
	struct kprobe *kp;
};

#define KPROBE_INDEX_MIN_BITS	6
#define KPROBE_INDEX_BITS_MASK	0x3fUL
#define KPROBE_INDEX_DELETED	(~0UL)
static unsigned long kprobe_index;
static unsigned int index_used, index_filled;
static struct kprobe **registered;	/* registration order */
static unsigned long sink;

static void *pool;
static void **addrs;		/* the N probed addresses */
static void **hot;		/* the H hot addresses */
static struct kprobe **hot_kp;	/* their kprobes */

static unsigned long *evict_buf;
static size_t evict_bytes;

static u64 rng_state = DEFAULT_SEED;
/* --stride: the distance of consecutive probed addresses, 0 for random */
static unsigned long text_stride;

/* The uncached lookup, as get_kprobe() in kernel/kprobes.c. */
static noinline struct kprobe *walk_lookup(void *addr)
{
	struct hlist_head *head;
	struct kprobe *p;

	head = &kprobe_table[hash_ptr(addr, KPROBE_HASH_BITS)];
	hlist_for_each_entry(p, head, hlist) {
		if (p->addr == addr)
			return p;
	}
	return NULL;
}

/* The lookup in the index @index, as kprobe_index_lookup(). */
static __always_inline struct kprobe *index_walk(unsigned long index,
						 void *addr)
{
	unsigned int bits = index & KPROBE_INDEX_BITS_MASK;
	struct kprobe_index_slot *slot;
	unsigned int i, n, mask;
	unsigned long a;

	slot = (struct kprobe_index_slot *)(index & ~KPROBE_INDEX_BITS_MASK);
	if (!slot)
		return NULL;
	mask = (1U << bits) - 1;
	i = kprobe_addr_hash(addr, bits);
	for (n = 0; n <= mask; n++) {
		a = READ_ONCE(slot[i].addr);
		if (!a)
			break;
		if (a == (unsigned long)addr && a != KPROBE_INDEX_DELETED) {
			/* smp_rmb() in the kernel, a compiler barrier on x86 */
			barrier();
			return READ_ONCE(slot[i].kp);
		}
		i = (i + 1) & mask;
	}
	return NULL;
}

/* The lookup, as get_kprobe() in kernel/kprobes.c. */
static noinline struct kprobe *index_lookup(void *addr)
{
	return index_walk(READ_ONCE(kprobe_index), addr);
}

/* For kernel/kprobe_cache.c: get_kprobe() itself. */
struct kprobe *get_kprobe(void *addr)
{
	return index_lookup(addr);
}

/* For kernel/kprobe_cache.c: its misses and bypassed lookups. */
noinline struct kprobe *get_kprobe_from_index(unsigned long index, void *addr)
{
	return index_walk(index, addr);
}

typedef struct kprobe *(*lookup_fn)(void *addr);

/* splitmix64 */
static u64 rng_next(void)
{
	u64 z;

	rng_state += 0x9e3779b97f4a7c15ULL;
	z = rng_state;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static unsigned long rng_below(unsigned long n)
{
	return rng_next() % n;
}

static void die(const char *msg)
{
	fprintf(stderr, "kprobe_cache_bench: %s\n", msg);
	exit(1);
}

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n, size);

	if (!p)
		die("out of memory");
	return p;
}

/* Zeroed, in huge pages if possible, as the kernel's direct map is. */
static void *xalloc_pages(size_t bytes)
{
	void *p;

	bytes = (bytes + HUGE_SIZE - 1) & ~(HUGE_SIZE - 1);
	p = aligned_alloc(HUGE_SIZE, bytes);
	if (!p)
		die("out of memory");
	madvise(p, bytes, MADV_HUGEPAGE);
	memset(p, 0, bytes);
	return p;
}

static u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

static u64 median(u64 *v, unsigned int n)
{
	qsort(v, n, sizeof(*v), cmp_u64);
	return v[n / 2];
}

static void free_index(void)
{
	free((void *)(kprobe_index & ~KPROBE_INDEX_BITS_MASK));
	kprobe_index = 0;
	kpc_host_index_moved(0);
	index_used = 0;
	index_filled = 0;
}

/* kprobe_index_put() */
static void index_put(unsigned long index, struct kprobe *p)
{
	struct kprobe_index_slot *slot;
	unsigned int bits = index & KPROBE_INDEX_BITS_MASK;
	unsigned int mask = (1U << bits) - 1;
	unsigned int i = kprobe_addr_hash(p->addr, bits);

	slot = (struct kprobe_index_slot *)(index & ~KPROBE_INDEX_BITS_MASK);
	while (slot[i].addr)
		i = (i + 1) & mask;
	index_filled++;
	index_used++;
	slot[i].kp = p;
	slot[i].addr = (unsigned long)p->addr;
}

/* kprobe_index_resize() for the first @nr registered kprobes. */
static void index_resize(unsigned int nr)
{
	unsigned int bits = KPROBE_INDEX_MIN_BITS, i;
	unsigned long index;
	size_t bytes;
	void *slot;

	while ((1UL << bits) < 2UL * nr)
		bits++;
	bytes = sizeof(struct kprobe_index_slot) << bits;
	/*
	 * kvmalloc() of a power-of-two size is aligned to the size; huge
	 * pages, as the kernel's direct map, also keep TLB misses out of
	 * the cold numbers as for the kprobes.
	 */
	slot = xalloc_pages(bytes);
	free_index();
	index = (unsigned long)slot | bits;
	for (i = 0; i < nr - 1; i++)
		index_put(index, registered[i]);
	kprobe_index = index;
	kpc_host_index_moved(index);
}

/* kprobe_table_add(): the index part, @p being the @nr-th kprobe. */
static void index_add(struct kprobe *p, unsigned int nr)
{
	unsigned int size = kprobe_index ?
		1U << (kprobe_index & KPROBE_INDEX_BITS_MASK) : 0;

	if ((index_filled + 1) * 4 > size * 3)
		index_resize(nr);
	index_put(kprobe_index, p);
}

static void free_table(void)
{
	free_index();
	free(registered);
	registered = NULL;
	free(pool);
	free(addrs);
	free(hot);
	free(hot_kp);
	pool = NULL;
	addrs = NULL;
	hot = NULL;
	hot_kp = NULL;
}

/* Register n fake kprobes in random slots and pick h hot ones. */
static void build_table(unsigned int n, unsigned int h, u64 seed)
{
	unsigned long nslots = (unsigned long)n * POOL_FACTOR;
	unsigned long *used, i, j, k, t;
	unsigned int *slot, *idx;

	free_table();
	rng_state = seed;
	memset(kprobe_table, 0, sizeof(kprobe_table));
	kpc_host_reset();

	pool = xalloc_pages(nslots * SLOT_SIZE);
	registered = xcalloc(n, sizeof(*registered));
	addrs = xcalloc(n, sizeof(*addrs));
	hot = xcalloc(h, sizeof(*hot));
	hot_kp = xcalloc(h, sizeof(*hot_kp));
	slot = xcalloc(nslots, sizeof(*slot));
	idx = xcalloc(n, sizeof(*idx));
	used = xcalloc(TEXT_SLOTS / BITS_PER_LONG, sizeof(*used));

	/* A random order of the pool's slots, as a fragmented slab. */
	for (i = 0; i < nslots; i++)
		slot[i] = i;
	for (i = nslots - 1; i > 0; i--) {
		j = rng_below(i + 1);
		t = slot[i];
		slot[i] = slot[j];
		slot[j] = t;
	}

	for (i = 0; i < n; i++) {
		struct kprobe *p = pool + (size_t)slot[i] * SLOT_SIZE;

		if (text_stride) {
			addrs[i] = (void *)(TEXT_BASE + text_stride * i);
		} else {
			do {
				k = rng_below(TEXT_SLOTS);
			} while (used[k / BITS_PER_LONG] &
				 (1UL << (k % BITS_PER_LONG)));
			used[k / BITS_PER_LONG] |= 1UL << (k % BITS_PER_LONG);
			addrs[i] = (void *)(TEXT_BASE + TEXT_ALIGN * k);
		}
		p->addr = addrs[i];
		/* register_kprobe() adds at the head of the chain. */
		hlist_add_head(&p->hlist,
			       &kprobe_table[hash_ptr(p->addr, KPROBE_HASH_BITS)]);
		registered[i] = p;
		index_add(p, i + 1);
	}

	/* h distinct hot addresses: a partial Fisher-Yates shuffle. */
	for (i = 0; i < n; i++)
		idx[i] = i;
	for (i = 0; i < h; i++) {
		j = i + rng_below(n - i);
		t = idx[i];
		idx[i] = idx[j];
		idx[j] = t;
		hot[i] = addrs[idx[i]];
		hot_kp[i] = pool + (size_t)slot[idx[i]] * SLOT_SIZE;
	}

	free(slot);
	free(idx);
	free(used);
}

/* Every lookup must find the right kprobe, and nothing else is found. */
static void check_table(unsigned int h)
{
	unsigned int i;

	for (i = 0; i < h; i++) {
		if (walk_lookup(hot[i]) != hot_kp[i] ||
		    index_lookup(hot[i]) != hot_kp[i] ||
		    get_kprobe_cached(hot[i]) != hot_kp[i] ||
		    get_kprobe_cached(hot[i]) != hot_kp[i])
			die("lookup returned the wrong kprobe");
	}
	if (walk_lookup((void *)(TEXT_BASE + 8)) ||
	    index_lookup((void *)(TEXT_BASE + 8)) ||
	    get_kprobe_cached((void *)(TEXT_BASE + 8)))
		die("lookup of an unregistered address succeeded");
}

/* Fill the cache with the hot set, without walking the table. */
static noinline void warm_cache(unsigned int h)
{
	unsigned int i;

	for (i = 0; i < h; i++)
		kpc_host_warm(hot[i], hot_kp[i]);
}

/*
 * Flush the CPU caches (or cachegrind's) by reading a big buffer, then
 * read what a kernel lookup would find cached (kpc_host_touch_kernel_hot()).
 */
static noinline void evict(void)
{
	unsigned long sum = 0;
	size_t i;

	for (i = 0; i < evict_bytes / sizeof(long); i += 64 / sizeof(long))
		sum += evict_buf[i];
	WRITE_ONCE(sink, sink + sum);
	kpc_host_touch_kernel_hot();
}

/*
 * Cycles @iters lookups through the hot set.  With @chain, the index of
 * each address read depends on the previous result (a kprobe is never at
 * address 1, so the index does not change), which serializes the lookups.
 */
static __always_inline unsigned long hot_loop(lookup_fn fn, unsigned int h,
					      unsigned long iters, bool chain)
{
	unsigned long sum = 0, dep = 0, r, i;
	unsigned int j = 0;

	for (i = 0; i < iters; i++) {
		r = (unsigned long)fn(hot[j + dep]);
		sum += r;
		if (chain)
			dep = r == 1;
		if (++j == h)
			j = 0;
	}
	return sum;
}

static noinline unsigned long hot_walk(unsigned int h, unsigned long iters)
{
	return hot_loop(walk_lookup, h, iters, false);
}

static noinline unsigned long hot_index(unsigned int h, unsigned long iters)
{
	return hot_loop(index_lookup, h, iters, false);
}

static noinline unsigned long hot_cache(unsigned int h, unsigned long iters)
{
	return hot_loop(get_kprobe_cached, h, iters, false);
}

static noinline unsigned long lat_index(unsigned int h, unsigned long iters)
{
	return hot_loop(index_lookup, h, iters, true);
}

static noinline unsigned long lat_cache(unsigned int h, unsigned long iters)
{
	return hot_loop(get_kprobe_cached, h, iters, true);
}

enum variant { WALK, INDEX, CACHE };

static const char * const variant_name[] = { "walk", "index", "cache" };
static const lookup_fn variant_fn[] = { walk_lookup, index_lookup, get_kprobe_cached };

static u64 time_hot(enum variant v, unsigned int h, unsigned long iters,
		    bool chain)
{
	unsigned long sum;
	u64 t0, t1;

	t0 = now_ns();
	if (chain)
		sum = v == CACHE ? lat_cache(h, iters) : lat_index(h, iters);
	else
		sum = v == CACHE ? hot_cache(h, iters) :
		      v == INDEX ? hot_index(h, iters) : hot_walk(h, iters);
	t1 = now_ns();
	WRITE_ONCE(sink, sink + sum);
	return t1 - t0;
}

/*
 * ns per back-to-back lookup (@chain: per lookup that waits for the
 * previous one): the best of 5 loops of about target_ns.
 */
static double measure_hot(enum variant v, unsigned int h, u64 target_ns,
			  bool chain)
{
	unsigned long iters = h;
	double best = 0;
	u64 t;
	int r;

	for (;;) {
		t = time_hot(v, h, iters, chain);
		if (t >= target_ns / 8)
			break;
		iters *= 2;
	}
	iters = (double)iters * target_ns / t + 1;
	for (r = 0; r < 5; r++) {
		double ns = (double)time_hot(v, h, iters, chain) / iters;

		if (!r || ns < best)
			best = ns;
	}
	return best;
}

static u64 timer_overhead(void)
{
	u64 d[1001];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(d); i++) {
		u64 t0 = now_ns();

		d[i] = now_ns() - t0;
	}
	return median(d, ARRAY_SIZE(d));
}

/* Median ns of one lookup after flushing the CPU caches. */
static double measure_cold(enum variant v, unsigned int h, unsigned int samples,
			   u64 overhead)
{
	lookup_fn fn = variant_fn[v];
	unsigned long sum = 0;
	unsigned int s;
	u64 *d, t0, m;

	d = xcalloc(samples, sizeof(*d));
	for (s = 0; s < samples; s++) {
		void *addr = hot[s % h];

		evict();
		now_ns();	/* warm the clock, not the lookup */
		t0 = now_ns();
		sum += (unsigned long)fn(addr);
		d[s] = now_ns() - t0;
	}
	WRITE_ONCE(sink, sink + sum);
	m = median(d, samples);
	free(d);
	return m > overhead ? (double)(m - overhead) : 0;
}

static unsigned long parse_size(const char *s)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);

	if (*end == 'K')
		v <<= 10;
	else if (*end == 'M')
		v <<= 20;
	else if (*end == 'G')
		v <<= 30;
	return v;
}

static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	char *nl;

	if (!f)
		return -1;
	if (!fgets(buf, len, f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	nl = strchr(buf, '\n');
	if (nl)
		*nl = '\0';
	return 0;
}

/* Print cpu0's caches and return the size of the last level one. */
static unsigned long print_caches(void)
{
	static const char * const keys[] = { "level", "type", "size",
					     "ways_of_associativity" };
	char path[128], val[4][64];
	unsigned long llc = 0;
	unsigned int i, k;
	int level = 0;

	printf("caches:");
	for (i = 0; i < 16; i++) {
		for (k = 0; k < ARRAY_SIZE(keys); k++) {
			snprintf(path, sizeof(path),
				 "/sys/devices/system/cpu/cpu0/cache/index%u/%s",
				 i, keys[k]);
			if (read_line(path, val[k], sizeof(val[k])))
				snprintf(val[k], sizeof(val[k]), "?");
		}
		if (!strcmp(val[0], "?"))
			break;
		printf(" L%s%s %s %s-way;", val[0],
		       !strcmp(val[1], "Data") ? "d" :
		       !strcmp(val[1], "Instruction") ? "i" : "",
		       val[2], val[3]);
		if (strcmp(val[1], "Instruction") && atoi(val[0]) >= level) {
			level = atoi(val[0]);
			llc = parse_size(val[2]);
		}
	}
	printf("\n");
	return llc;
}

static void print_cpu(void)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[256], *v;

	while (f && fgets(line, sizeof(line), f)) {
		if (strncmp(line, "model name", 10))
			continue;
		v = strchr(line, ':');
		printf("cpu: %s", v ? v + 2 : line);
		break;
	}
	if (f)
		fclose(f);
}

static void setup_evict(unsigned long bytes)
{
	evict_bytes = bytes;
	evict_buf = xalloc_pages(bytes);
	evict();
}

static unsigned long evict_size(unsigned long llc)
{
	return 2 * llc > MIN_EVICT_BYTES ? 2 * llc : MIN_EVICT_BYTES;
}

static unsigned long parse_ulong(const char *s)
{
	char *end;
	unsigned long v = strtoul(s, &end, 0);

	if (!*s || *end)
		die("bad number");
	return v;
}

static const char *prog_name = "kprobe_cache_bench";

static void print_usage(void)
{
	fprintf(stderr, "Usage: %s [--quick] [--n LIST] [--h LIST] [--stride S]\n",
		prog_name);
	fprintf(stderr, "       %s [--stride S] --cachegrind walk|index|cache|steady",
		prog_name);
	fprintf(stderr, " N H COUNT [EVICT_KIB]\n");
	fprintf(stderr, "LIST: up to %d comma-separated numbers > 0; S: bytes > 0\n",
		MAX_LIST);
	exit(2);
}

/* A comma-separated list of numbers > 0 into @v; returns how many. */
static unsigned int parse_list(const char *s, unsigned int *v)
{
	unsigned int n = 0;
	unsigned long x;
	char *end;

	for (;;) {
		x = strtoul(s, &end, 10);
		if (end == s || !x || x > 1000000 || n == MAX_LIST ||
		    (*end && *end != ','))
			print_usage();
		v[n++] = x;
		if (!*end)
			return n;
		s = end + 1;
	}
}

/* argv[0] is "--cachegrind", the rest its arguments. */
static int cachegrind_mode(int argc, char **argv)
{
	unsigned long n, h, count, i;
	unsigned long sum = 0, bad = 0, hits, misses, bypassed;
	struct kpc_host_stats st;
	bool steady = false;
	enum variant v;

	if (argc < 5 || argc > 6)
		print_usage();
	for (v = WALK; v <= CACHE; v++)
		if (!strcmp(argv[1], variant_name[v]))
			break;
	if (v > CACHE && !strcmp(argv[1], "steady")) {
		v = CACHE;
		steady = true;
	}
	if (v > CACHE)
		print_usage();
	n = parse_ulong(argv[2]);
	h = parse_ulong(argv[3]);
	count = parse_ulong(argv[4]);
	if (!n || !h || h > n || !count)
		die("need 0 < H <= N and COUNT > 0");
	if (argc == 6)
		setup_evict(parse_ulong(argv[5]) << 10);
	else
		setup_evict(evict_size(print_caches()));

	build_table(n, h, DEFAULT_SEED);
	if (v == CACHE)
		warm_cache(h);
	/*
	 * Warm, through the bypass decisions: stop where a bypass begins.
	 * The generations first, whose first reads would count as misses
	 * of the lookups.
	 */
	if (steady)
		sum += kpc_host_read_gens();
	for (i = 0; steady && i < 20000; i++) {
		sum += (unsigned long)get_kprobe_cached(hot[i % h]);
		if (kpc_host_bypass_began())
			break;
	}
	kpc_host_stats(&st);
	hits = st.hits;
	misses = st.misses;
	bypassed = st.bypassed;
	for (i = 0; i < count; i++) {
		struct kprobe *p;

		evict();
		p = variant_fn[v](hot[i % h]);
		sum += (unsigned long)p;
		bad += p != hot_kp[i % h];
	}
	WRITE_ONCE(sink, sink + sum);
	kpc_host_stats(&st);
	printf("cachegrind: %s N=%lu H=%lu COUNT=%lu stride=%lu ",
	       argv[1], n, h, count, text_stride);
	printf("evict=%zu KiB wrong=%lu cache_hits=%lu cache_misses=%lu bypassed=%lu\n",
	       evict_bytes >> 10, bad, st.hits - hits, st.misses - misses,
	       st.bypassed - bypassed);
	free_table();
	return bad ? 1 : 0;
}

int main(int argc, char **argv)
{
	unsigned int sizes[MAX_LIST] = { 1, 64, 1000, 10000, 40000 };
	unsigned int hots[MAX_LIST] = { 1, 16, 256, 4096 };
	unsigned int nsizes = 5, nhots = 4, samples = 301, i, j;
	u64 target_ns = 20000000, overhead, t_start = now_ns();
	bool quick = false, n_given = false, h_given = false;
	unsigned long sets, ways;
	struct kpc_host_stats st;
	size_t bytes;

	BUILD_BUG_ON(sizeof(struct kprobe) != 128);
	BUILD_BUG_ON(offsetof(struct kprobe, addr) != 40);
	BUILD_BUG_ON(sizeof(struct kprobe) > SLOT_SIZE);

	prog_name = argv[0];
	for (i = 1; i < (unsigned int)argc; i++) {
		if (!strcmp(argv[i], "--cachegrind")) {
			if (quick || n_given || h_given)
				print_usage();
			return cachegrind_mode(argc - i, argv + i);
		} else if (!strcmp(argv[i], "--quick")) {
			quick = true;
		} else if (i + 1 < (unsigned int)argc &&
			   !strcmp(argv[i], "--n")) {
			nsizes = parse_list(argv[++i], sizes);
			n_given = true;
		} else if (i + 1 < (unsigned int)argc &&
			   !strcmp(argv[i], "--h")) {
			nhots = parse_list(argv[++i], hots);
			h_given = true;
		} else if (i + 1 < (unsigned int)argc &&
			   !strcmp(argv[i], "--stride")) {
			text_stride = parse_ulong(argv[++i]);
			if (!text_stride)
				print_usage();
		} else {
			print_usage();
		}
	}
	if (quick) {
		/* Shorter runs; by default only N <= 1000 and H <= 16. */
		if (!n_given)
			nsizes = 3;
		if (!h_given)
			nhots = 2;
		samples = 101;
		target_ns = 5000000;
	}

	printf("kprobe_cache_bench: get_kprobe() chain walk, index and kprobe_cache%s\n",
	       quick ? " (quick)" : "");
	if (text_stride)
		printf("addresses: %#lx + %lu * i\n", TEXT_BASE, text_stride);
	else
		printf("addresses: %#lx + %d * random\n", TEXT_BASE, TEXT_ALIGN);
	print_cpu();
	setup_evict(evict_size(print_caches()));
	overhead = timer_overhead();
	printf("struct kprobe %zu B in %d B slots, pool %dx N; ",
	       sizeof(struct kprobe), SLOT_SIZE, POOL_FACTOR);
	kpc_host_geometry(&sets, &ways, &bytes);
	printf("kprobe_cache %lu sets x %lu ways (%zu B)\n", sets, ways, bytes);
	printf("hot: best of 5 loops of %llu ms; ",
	       (unsigned long long)target_ns / 1000000);
	printf("cold: median of %u, evict %zu MiB, timer overhead %llu ns subtracted\n\n",
	       samples, evict_bytes >> 20, (unsigned long long)overhead);
	printf("%6s %5s %12s %12s %12s %12s %13s %13s %7s %8s %12s %12s\n",
	       "N", "H", "walk_hot_ns", "index_hot_ns", "cache_hot_ns",
	       "walk_cold_ns", "index_cold_ns", "cache_cold_ns", "hit%",
	       "bypass%", "index_lat_ns", "cache_lat_ns");

	for (i = 0; i < nsizes; i++) {
		for (j = 0; j < nhots; j++) {
			unsigned int n = sizes[i], h = hots[j];
			double wh, xh, ch, xl, cl, wc, xc, cc, hit, byp;
			unsigned long lookups = 100 * (unsigned long)h;

			if (h > n)
				continue;
			build_table(n, h, DEFAULT_SEED + n * 1000 + h);
			check_table(h);
			wh = measure_hot(WALK, h, target_ns, false);
			xh = measure_hot(INDEX, h, target_ns, false);
			ch = measure_hot(CACHE, h, target_ns, false);
			xl = measure_hot(INDEX, h, target_ns, true);
			cl = measure_hot(CACHE, h, target_ns, true);
			wc = measure_cold(WALK, h, samples, overhead);
			xc = measure_cold(INDEX, h, samples, overhead);
			cc = measure_cold(CACHE, h, samples, overhead);
			/*
			 * Hit rate of a separate pass, counted exactly, from
			 * the warm sets but without the bypass that the timed
			 * loops may have left.
			 */
			kpc_host_restart();
			WRITE_ONCE(sink, sink + hot_cache(h, lookups));
			kpc_host_stats(&st);
			hit = 100.0 * st.hits / lookups;
			byp = 100.0 * st.bypassed / lookups;
			printf("%6u %5u %12.1f %12.2f %12.2f %12.0f %13.0f %13.0f",
			       n, h, wh, xh, ch, wc, xc, cc);
			printf(" %7.2f %8.2f %12.2f %12.2f\n", hit, byp, xl, cl);
			fflush(stdout);
		}
	}
	free_table();
	printf("\ntotal %.1f s\n", (now_ns() - t_start) / 1e9);
	return 0;
}
