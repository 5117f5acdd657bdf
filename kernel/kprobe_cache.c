// SPDX-License-Identifier: GPL-2.0
/*
 * Per-CPU lookup cache in front of get_kprobe().
 *
 * get_kprobe() hashes the address into the kprobe table's index and reads
 * an index slot and the struct kprobe it points to, scattered over memory
 * that the probed code does not otherwise touch.  The hit path only ever
 * needs a handful of hot addresses, so each CPU keeps the last ones it
 * looked up in a small set-associative cache (kprobe_cache.h)
 * and searches the table only on a miss.
 *
 * Coherence.  The cache must never return a kprobe that get_kprobe() would
 * not return at that moment.  Every change of the kprobe table goes
 * through kprobe_table_add(), kprobe_table_replace() or kprobe_table_del()
 * in kernel/kprobes.c, under kprobe_mutex.  The last two (an aggregator
 * replacing a probe; the removal of a probe or aggregator, by
 * unregistration, the rollback of a failed arm or the optimizer's removal
 * of unused probes) end with kprobe_cache_invalidate(addr) for the
 * address concerned.  It increments the generation of the one set that
 * address maps to, a fully ordered increment (a full barrier before and
 * after it), then removes the address from that set in every CPU's
 * cache: it writes NULL over the address of the entry and leaves its
 * kprobe pointer alone.  A hit reads nothing but its own CPU's state and
 * set; only a miss reads a generation:
 *
 *  - A lookup that begins once the removal is visible cannot find the old
 *    entry.  One that found it earlier is inside the RCU read-side
 *    critical section (preemption or interrupts disabled) that the writer
 *    waits for before unregister returns or a probe is freed
 *    (synchronize_rcu(), or synchronize_rcu_tasks() in the optimizer,
 *    which also waits for such sections): exactly the window in which
 *    get_kprobe() may also still return the removed probe.
 *  - A miss reads the generation of its set (acquire) before it walks the
 *    table, inserts what it found (unless its set is full and it is not
 *    that set's turn to replace an entry, see KPROBE_CACHE_REPLACE: then
 *    it writes nothing), and after a full barrier reads the generation
 *    again: if it moved, the walk may have raced with a change
 *    of the table, and the miss takes its entry out again.  A miss whose
 *    first read sees the new generation also sees the table change that
 *    was ordered before the increment, and finds no removed probe.  For a
 *    miss whose first read does not: each side stores (the entry; the
 *    generation), then has a full barrier, then loads (the generation;
 *    the set), so at least one of them sees the other's store: either the
 *    writer's sweep finds the new entry or the miss finds the new
 *    generation, and no removed probe stays cached.
 *  - Adding a probe needs no invalidation: the cache holds no negative
 *    entries, and a second probe at a cached address goes through an
 *    aggregator, which replaces the first probe in the table and
 *    invalidates.
 *
 * A resize of the table's index moves no address to another kprobe: a
 * cached entry stays the kprobe get_kprobe() returns, and nothing is
 * invalidated.  A miss walks the index through its CPU's copy of the
 * index word (see struct kprobe_cache_cpu), which every resize writes
 * before any slot of the new index changes, so before the fully ordered
 * increment of any later table change: a miss whose first read of the
 * generation sees that increment also sees the copy that points to the
 * index the change was made in.
 *
 * A CPU whose hot set overflows its cache (KPROBE_CACHE_WINDOW in
 * kprobe_cache.h) looks its next lookups up in the index
 * directly, as get_kprobe() does (through the CPU's copy of the index
 * word): it neither reads nor writes its sets meanwhile, and the
 * invalidations that happen meanwhile still sweep them, so when it comes
 * back to them they hold nothing stale.  Whether a lookup bypasses the
 * cache only decides where the answer comes from, never what it is.
 *
 * Disabling a probe or all probes does not change the table: the callers
 * check kprobe_disabled() after the lookup, as they do after get_kprobe().
 * Module unload turns probes GONE in place, also without changing the table.
 *
 * Memory.  The sets take 16 KiB per possible CPU (with the default 256
 * sets), which a kernel that never registers a kprobe should not pay for:
 * they are allocated when the first kprobe is registered, or when the
 * cache is turned on in debugfs, and freed when it is turned off (not when
 * the last probe goes: a probe that comes and goes alone would then pay a
 * grace period and a text patch each time).  The static key that puts them
 * on the hit path is on exactly while they exist.  kprobe_cache_start()
 * allocates empty sets and gives every CPU its own before it turns the key
 * on: a CPU takes the enabled branch only after the int3 that
 * text_poke_bp() writes first, which comes after those stores, and x86
 * keeps stores in order (an int3 serializes, as do the IPIs that follow
 * it; without jump labels, the key is an atomic_t that x86 also orders
 * after them).  kprobe_cache_stop() turns the key off, waits for the
 * lookups that took the branch before (they run with preemption or
 * interrupts disabled) and only then frees the sets.  Both run under
 * kprobe_mutex, as every change of the table does: an invalidation finds
 * every CPU's sets or none, and with none there is nothing to sweep, since
 * no miss can insert.  What stays from boot is each CPU's 64-byte state
 * and the 2 KiB of generations.
 *
 * So an invalidation costs one atomic increment and, per possible CPU, a
 * read of one 64-byte set (a write only where the address is cached), and
 * no IPI: unregistering N probes on C CPUs reads N * C sets, once each.  A
 * hit costs two cache lines, its CPU's state (sequence count, bypass,
 * statistics) and one set, whatever the number of CPUs or probes.
 * Lookups of addresses in other sets keep hitting.
 *
 * Readers and writers of one CPU's cache are that CPU's lookups, which can
 * nest: an interrupt that hits a kprobe inside kprobe_ftrace_handler(), or
 * an int3 or NMI inside either (kprobe_int3_handler() runs in NMI context
 * on x86).  A writer (the insertion after a miss, and its removal if the
 * generation moved) makes a per-CPU sequence count odd while it writes,
 * with single-instruction this_cpu increments, and a writer that finds the
 * count odd has interrupted another writer and writes nothing.  A reader
 * uses what it found only if the count was even and unchanged around its
 * probe: otherwise a nested insert could have paired the address of its
 * new entry with the kprobe of the entry it replaced.  A reader that loses
 * this race walks the table.  Other CPUs only ever write NULL over an
 * entry's address, never its kprobe: a reader that found an address reads
 * the kprobe that was stored with it.
 */

/*
 * tools/testing/kprobe_cache builds this file in user space: a new include
 * needs its stand-in there (kprobe_cache_shim.h and the Makefile's list).
 */
#include <linux/atomic.h>
#include <linux/debugfs.h>
#include <linux/jump_label.h>
#include <linux/kprobes.h>
#include <linux/kstrtox.h>
#include <linux/percpu.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <kunit/visibility.h>

#include "kprobe_cache.h"

/*
 * One CPU's state besides its sets: the sequence count of its writers, the
 * lookups it has left to make without the cache while its hot set
 * overflows it, the window that decides the bypass, its copy of the kprobe
 * table's index word, its sets, and the statistics that only this CPU
 * writes; 64 bytes, one cache line, which every lookup reads.  @bypass is
 * signed: nested lookups may decrement it past zero, which ends the bypass
 * as well.  16 bits are enough for @seq (a reader only compares it with
 * itself around one probe of one set, while at most a few nested writers
 * run) and for @bypass (KPROBE_CACHE_BYPASS and the few nested decrements
 * below zero).
 *
 * @cache is NULL while the key is off and points to the CPU's sets while
 * it is on; it changes only under kprobe_mutex, while no lookup can use
 * it (see "Memory" above).
 *
 * @index is what the index word of kernel/kprobes.c was when the index was
 * last replaced: kprobe_cache_index_moved() writes it on every CPU, after
 * the word and before the old index is freed, and the lookups of this CPU
 * that walk the index (a miss, a bypassed lookup) read it here rather than
 * in the word's own cache line: a cold lookup that the cache cannot answer
 * then reads this line and the index's slots, and nothing else of the
 * table.  While it is being written a CPU's lookups may still use the old
 * index, as they may when they read the word itself just before it moved;
 * the writer holds kprobe_mutex, and changes no slot meanwhile.
 */
struct kprobe_cache_cpu {
	u16 seq;
	s16 bypass;
	struct kprobe_cache_window win;
	unsigned long index;
	struct kprobe_cache *cache;
	unsigned long hits;
	unsigned long misses;
	unsigned long inserts;
	unsigned long bypassed;
};

static_assert(sizeof(struct kprobe_cache_cpu) <= 64);
static_assert(KPROBE_CACHE_BYPASS <= S16_MAX);

static DEFINE_PER_CPU_ALIGNED(struct kprobe_cache_cpu, kprobe_cache_cpu);
/*
 * Entries of a CPU's cache that other CPUs removed: written by those, so
 * kept out of the line that the CPU's every lookup reads.
 */
static DEFINE_PER_CPU(unsigned long, kprobe_cache_invalidations);
/*
 * The generation of each set, moved by every invalidation of an address
 * in the set, read by misses only.  64-bit (KPROBE_CACHE depends on
 * 64BIT): no generation wraps around.
 */
static atomic_long_t kprobe_cache_gen[KPROBE_CACHE_SETS];
/*
 * On while every CPU has its sets.  Flipping it patches get_kprobe_cached()
 * with text_poke_bp(), whose temporary int3 a CPU may hit inside the int3
 * or ftrace handler (or an NMI): poke_int3_handler() deals with it in
 * exc_int3() before kprobes sees the trap, as for every static branch in
 * those paths.
 */
static DEFINE_STATIC_KEY_FALSE(kprobe_cache_key);
/* The run-time switch, under kprobe_mutex: whether to have the sets. */
static bool kprobe_cache_on = true;

/**
 * kprobe_cache_invalidate() - drop every CPU's cached lookups of an address
 * @addr: the address whose entry in the kprobe hash table changed
 *
 * Called after every change of the kprobe hash table, before the
 * synchronize_rcu() that precedes freeing or returning to the caller, with
 * kprobe_mutex held.  Costs one atomic increment and a read of the set of
 * @addr in each possible CPU's cache, and nothing while there are no
 * caches.
 */
void kprobe_cache_invalidate(void *addr)
{
	unsigned int s = kprobe_cache_set_index(addr);
	unsigned long *inv;
	struct kprobe_cache *c;
	unsigned int n;
	int cpu;

	if (!static_key_enabled(&kprobe_cache_key))
		return;

	/*
	 * Fully ordered: the table change before the new generation, which
	 * pairs with the acquire in kprobe_cache_miss(), and the generation
	 * before the sweep, which pairs with the smp_mb() in
	 * kprobe_cache_fill().
	 */
	atomic_long_inc_return(&kprobe_cache_gen[s]);
	for_each_possible_cpu(cpu) {
		c = per_cpu_ptr(&kprobe_cache_cpu, cpu)->cache;
		n = kprobe_cache_remove(c, addr);
		if (n) {
			inv = per_cpu_ptr(&kprobe_cache_invalidations, cpu);
			WRITE_ONCE(*inv, READ_ONCE(*inv) + n);
		}
	}
}

/**
 * kprobe_cache_index_moved() - give every CPU the kprobe table's new index
 * @index: the index word that was just published
 *
 * Called with kprobe_mutex held after each replacement of the index, before
 * the old one is freed (after an RCU grace period) and before any slot of
 * the new one changes.  A lookup that read the old word from a CPU's state
 * runs with preemption or interrupts disabled, as one that read it from the
 * kprobe table does: the grace period waits for it.
 */
void kprobe_cache_index_moved(unsigned long index)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		/* The new index's slots before the copy, as for the word. */
		smp_store_release(&per_cpu_ptr(&kprobe_cache_cpu, cpu)->index,
				  index);
	}
}

/*
 * Caches @p for @addr, found by a walk of the table that began after the
 * generation of set @s read @gen.
 */
static void kprobe_cache_fill(unsigned int s, unsigned long gen, void *addr,
			      struct kprobe *p)
{
	struct kprobe_cache_cpu *cc = this_cpu_ptr(&kprobe_cache_cpu);
	struct kprobe_cache *c = READ_ONCE(cc->cache);
	bool full, replace;

	/* Interrupting another writer of this CPU's cache: leave it be. */
	if (READ_ONCE(cc->seq) & 1)
		return;
	this_cpu_inc(kprobe_cache_cpu.seq);
	barrier();
	/*
	 * The window is this CPU's, but the switch and a reset of the
	 * statistics start it afresh from other CPUs: one window may then
	 * mix old and new counts and end early or late, which only moves a
	 * bypass decision (see kprobe_cache_window_reset()).  A benign race.
	 */
	replace = data_race(kprobe_cache_may_replace(&cc->win));
	full = kprobe_cache_insert(c, addr, p, READ_ONCE(cc->inserts), replace);
	/* The same benign race with a remote reset of the window. */
	if (data_race(kprobe_cache_window_end(&cc->win, READ_ONCE(cc->hits),
					      full)))
		WRITE_ONCE(cc->bypass, KPROBE_CACHE_BYPASS);
	/*
	 * Nothing written: nothing can be stale.  Otherwise a change of the
	 * table since the walk began may have swept the set before the entry
	 * was there: then @p may be stale, and the entry goes.  The barrier
	 * orders the new entry before the second read of the generation.
	 */
	if (!full || replace) {
		this_cpu_inc(kprobe_cache_cpu.inserts);
		smp_mb(); /* pairs with kprobe_cache_invalidate() */
		if (atomic_long_read(&kprobe_cache_gen[s]) != gen)
			kprobe_cache_remove(c, addr);
	}
	barrier();
	this_cpu_inc(kprobe_cache_cpu.seq);
}

NOKPROBE_SYMBOL(kprobe_cache_fill);

/*
 * The miss path of get_kprobe_cached(), out of line: inline, its calls
 * made the compiler save registers on entry to get_kprobe_cached(), which
 * every hit then paid for (with -O2 every bypassed lookup as well).
 */
static noinline struct kprobe *kprobe_cache_miss(void *addr)
{
	unsigned int s = kprobe_cache_set_index(addr);
	unsigned long gen;
	struct kprobe *p;

	this_cpu_inc(kprobe_cache_cpu.misses);
	/* Before the walk: see kprobe_cache_fill(). */
	gen = atomic_long_read_acquire(&kprobe_cache_gen[s]);
	p = get_kprobe_from_index(this_cpu_read(kprobe_cache_cpu.index), addr);
	if (p)
		kprobe_cache_fill(s, gen, addr, p);
	return p;
}

NOKPROBE_SYMBOL(kprobe_cache_miss);

/**
 * get_kprobe_cached() - get_kprobe() for the hit path
 * @addr: the probed address
 *
 * Context: preemption disabled (int3 handler, ftrace handler); the result
 * may be used until preemption is enabled again, as with get_kprobe().
 * Return: the kprobe (or aggregator) registered at @addr, or NULL.
 */
struct kprobe *get_kprobe_cached(void *addr)
{
	struct kprobe_cache_cpu *cc;
	u16 seq;
	struct kprobe *p;

	if (!static_branch_likely(&kprobe_cache_key) || unlikely(!addr))
		return get_kprobe(addr);

	cc = this_cpu_ptr(&kprobe_cache_cpu);
	/*
	 * The hot set overflows the cache: see KPROBE_CACHE_WINDOW.  likely()
	 * only puts the bypass on the straight-line path, so that a bypassed
	 * lookup costs get_kprobe() and this test, and no taken branch; a hit
	 * takes one instead.
	 */
	if (likely(READ_ONCE(cc->bypass) > 0)) {
		this_cpu_dec(kprobe_cache_cpu.bypass);
		this_cpu_inc(kprobe_cache_cpu.bypassed);
		return get_kprobe_from_index(READ_ONCE(cc->index), addr);
	}
	seq = READ_ONCE(cc->seq);
	barrier();
	if (likely(!(seq & 1))) {
		p = kprobe_cache_probe(READ_ONCE(cc->cache), addr);
		barrier();
		if (likely(p && READ_ONCE(cc->seq) == seq)) {
			this_cpu_inc(kprobe_cache_cpu.hits);
			return p;
		}
	}
	return kprobe_cache_miss(addr);
}
EXPORT_SYMBOL_IF_KUNIT(get_kprobe_cached);
NOKPROBE_SYMBOL(get_kprobe_cached);

#if IS_ENABLED(CONFIG_KUNIT)
/**
 * kprobe_cache_fill_stale() - cache what a miss found while the table changed
 * @addr: a probed address
 *
 * Does on this CPU what a miss does when another CPU invalidates @addr
 * between its walk of the table and its insertion: the entry must not
 * stay.  For tests only.
 *
 * Context: preemption disabled, no change of the kprobe table and no
 * switch running.
 * Return: what the walk found.
 */
struct kprobe *kprobe_cache_fill_stale(void *addr)
{
	unsigned int s = kprobe_cache_set_index(addr);
	unsigned long gen = atomic_long_read_acquire(&kprobe_cache_gen[s]);
	struct kprobe *p = get_kprobe(addr);

	kprobe_cache_invalidate(addr);
	if (p && static_key_enabled(&kprobe_cache_key))
		kprobe_cache_fill(s, gen, addr, p);
	return p;
}
EXPORT_SYMBOL_IF_KUNIT(kprobe_cache_fill_stale);
#endif

/**
 * kprobe_cache_read_cpu_stats() - the statistics of one CPU
 * @cpu: the CPU
 * @st: where to put them
 */
VISIBLE_IF_KUNIT void kprobe_cache_read_cpu_stats(int cpu,
						  struct kprobe_cache_stats *st)
{
	struct kprobe_cache_cpu *cc = per_cpu_ptr(&kprobe_cache_cpu, cpu);

	st->hits = READ_ONCE(cc->hits);
	st->misses = READ_ONCE(cc->misses);
	st->inserts = READ_ONCE(cc->inserts);
	st->invalidations = READ_ONCE(*per_cpu_ptr(&kprobe_cache_invalidations, cpu));
	st->bypassed = READ_ONCE(cc->bypassed);
}
EXPORT_SYMBOL_IF_KUNIT(kprobe_cache_read_cpu_stats);

/**
 * kprobe_cache_read_stats() - sum the statistics of all CPUs
 * @sum: where to put the sums
 */
VISIBLE_IF_KUNIT void kprobe_cache_read_stats(struct kprobe_cache_stats *sum)
{
	struct kprobe_cache_stats st;
	int cpu;

	memset(sum, 0, sizeof(*sum));
	for_each_possible_cpu(cpu) {
		kprobe_cache_read_cpu_stats(cpu, &st);
		sum->hits += st.hits;
		sum->misses += st.misses;
		sum->inserts += st.inserts;
		sum->invalidations += st.invalidations;
		sum->bypassed += st.bypassed;
	}
}
EXPORT_SYMBOL_IF_KUNIT(kprobe_cache_read_stats);

/*
 * Starts @cpu's window of misses afresh, from any CPU.  A fill running on
 * @cpu meanwhile may write over part of it: that window then ends early
 * or late, which only moves a bypass decision.
 */
static void kprobe_cache_window_reset(int cpu)
{
	struct kprobe_cache_cpu *cc = per_cpu_ptr(&kprobe_cache_cpu, cpu);

	WRITE_ONCE(cc->win.misses, 0);
	WRITE_ONCE(cc->win.full, 0);
	WRITE_ONCE(cc->win.hits, (u32)READ_ONCE(cc->hits));
	WRITE_ONCE(cc->win.thrashed, false);
}

/* Frees every CPU's sets, when no lookup can use them. */
static void kprobe_cache_free(void)
{
	struct kprobe_cache_cpu *cc;
	struct kprobe_cache *c;
	int cpu;

	for_each_possible_cpu(cpu) {
		cc = per_cpu_ptr(&kprobe_cache_cpu, cpu);
		c = cc->cache;
		WRITE_ONCE(cc->cache, NULL);
		kvfree(c);
	}
}

/*
 * Gives every possible CPU empty sets, near it, then puts them on the hit
 * path.  With kprobe_mutex held: no change of the table runs meanwhile,
 * and none had sets to sweep before, so fresh empty sets hold nothing
 * stale.  Returns -ENOMEM, with nothing allocated, if a CPU's sets cannot
 * be.  kvzalloc: a large KPROBE_CACHE_SHIFT asks for 256 KiB per CPU, and
 * x86-64 maps vmalloc space in every page table, so that the int3
 * handler can read it in NMI context.
 */
static int kprobe_cache_start(void)
{
	struct kprobe_cache *c;
	int cpu;

	if (static_key_enabled(&kprobe_cache_key))
		return 0;
	for_each_possible_cpu(cpu) {
		c = kvzalloc_node(sizeof(*c), GFP_KERNEL | __GFP_NOWARN,
				  cpu_to_node(cpu));
		if (!c) {
			kprobe_cache_free();
			return -ENOMEM;
		}
		WRITE_ONCE(per_cpu_ptr(&kprobe_cache_cpu, cpu)->cache, c);
	}
	/* Each CPU's sets before any CPU can take the branch: see "Memory". */
	static_branch_enable(&kprobe_cache_key);
	return 0;
}

/* Takes the sets off the hit path and frees them; with kprobe_mutex held. */
static void kprobe_cache_stop(void)
{
	if (!static_key_enabled(&kprobe_cache_key))
		return;
	static_branch_disable(&kprobe_cache_key);
	/*
	 * A lookup that took the enabled branch before it was patched out
	 * runs with preemption or interrupts disabled, in an NMI at worst
	 * (with RCU watching: the ftrace handler drops hits where it is
	 * not): the grace period waits for it.
	 */
	synchronize_rcu();
	kprobe_cache_free();
}

/**
 * kprobe_cache_probe_added() - a kprobe went into the table
 *
 * Called with kprobe_mutex held (and not text_mutex, which the static key
 * takes) after a new address was added to the kprobe table.  Allocates
 * the caches at the first one, unless the cache is switched off.  If they
 * cannot be allocated, the cache is switched off, and lookups use the
 * index: turning it on again in debugfs tries again.
 */
void kprobe_cache_probe_added(void)
{
	if (!kprobe_cache_on || !kprobe_cache_start())
		return;
	kprobe_cache_on = false;
	pr_warn("kprobes: no memory for the lookup cache, switched it off\n");
}

/**
 * kprobe_cache_allocated() - the memory that the caches take
 *
 * Counts the CPUs that have sets: 0 until the first kprobe is registered
 * and while the cache is switched off.
 *
 * Return: the bytes allocated for all CPUs' sets.
 */
VISIBLE_IF_KUNIT size_t kprobe_cache_allocated(void)
{
	size_t n = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		if (READ_ONCE(per_cpu_ptr(&kprobe_cache_cpu, cpu)->cache))
			n++;
	return n * sizeof(struct kprobe_cache);
}
EXPORT_SYMBOL_IF_KUNIT(kprobe_cache_allocated);

/**
 * kprobe_cache_switch() - turn the cache on or off for all CPUs
 * @on: true to use the cache on the hit path
 *
 * Turning it off frees every CPU's cache; turning it on allocates them,
 * empty.  Either starts every CPU's bypass decisions afresh.
 *
 * Context: process context, may sleep; takes kprobe_mutex.
 * Return: 0, or -ENOMEM if the caches could not be allocated: the switch
 * then stays off.
 */
VISIBLE_IF_KUNIT int kprobe_cache_switch(bool on)
{
	int cpu, ret = 0;

	kprobe_table_lock();
	/* A switch starts every CPU afresh: no bypass, an empty window. */
	for_each_possible_cpu(cpu) {
		WRITE_ONCE(per_cpu_ptr(&kprobe_cache_cpu, cpu)->bypass, 0);
		kprobe_cache_window_reset(cpu);
	}
	if (on)
		ret = kprobe_cache_start();
	else
		kprobe_cache_stop();
	kprobe_cache_on = on && !ret;
	kprobe_table_unlock();
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(kprobe_cache_switch);

static int kprobe_cache_stats_show(struct seq_file *m, void *v)
{
	struct kprobe_cache_stats sum;
	unsigned long gen = 0;
	unsigned int s;
	int cpu;

	for (s = 0; s < KPROBE_CACHE_SETS; s++)
		gen += atomic_long_read(&kprobe_cache_gen[s]);
	seq_printf(m, "enabled %d sets %lu ways %u bytes_per_cpu %zu generation %lu allocated %zu\n",
		   READ_ONCE(kprobe_cache_on), KPROBE_CACHE_SETS,
		   KPROBE_CACHE_WAYS, sizeof(struct kprobe_cache), gen,
		   kprobe_cache_allocated());
	for_each_possible_cpu(cpu) {
		struct kprobe_cache_stats st;

		kprobe_cache_read_cpu_stats(cpu, &st);
		seq_printf(m, "cpu%-4d hits %lu misses %lu inserts %lu invalidations %lu bypassed %lu\n",
			   cpu, st.hits, st.misses, st.inserts, st.invalidations,
			   st.bypassed);
	}
	kprobe_cache_read_stats(&sum);
	seq_printf(m, "all     hits %lu misses %lu inserts %lu invalidations %lu bypassed %lu\n",
		   sum.hits, sum.misses, sum.inserts, sum.invalidations,
		   sum.bypassed);
	return 0;
}

static int kprobe_cache_stats_open(struct inode *inode, struct file *file)
{
	return single_open(file, kprobe_cache_stats_show, NULL);
}

/* Writing "reset" zeroes the counters (not the cache). */
static ssize_t kprobe_cache_stats_write(struct file *file,
					const char __user *ubuf, size_t count,
					loff_t *ppos)
{
	char buf[8] = {};
	int cpu;

	if (!count || count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	if (!sysfs_streq(buf, "reset"))
		return -EINVAL;
	for_each_possible_cpu(cpu) {
		struct kprobe_cache_cpu *cc = per_cpu_ptr(&kprobe_cache_cpu, cpu);

		WRITE_ONCE(cc->hits, 0);
		WRITE_ONCE(cc->misses, 0);
		WRITE_ONCE(cc->inserts, 0);
		WRITE_ONCE(*per_cpu_ptr(&kprobe_cache_invalidations, cpu), 0);
		WRITE_ONCE(cc->bypassed, 0);
		/* The window counts hits from a hit count that went. */
		kprobe_cache_window_reset(cpu);
	}
	return count;
}

static const struct file_operations kprobe_cache_stats_fops = {
	.open = kprobe_cache_stats_open,
	.read = seq_read,
	.write = kprobe_cache_stats_write,
	.llseek = seq_lseek,
	.release = single_release,
};

static ssize_t kprobe_cache_enabled_read(struct file *file, char __user *ubuf,
					 size_t count, loff_t *ppos)
{
	char buf[2] = { READ_ONCE(kprobe_cache_on) ? '1' : '0', '\n' };

	return simple_read_from_buffer(ubuf, count, ppos, buf, sizeof(buf));
}

static ssize_t kprobe_cache_enabled_write(struct file *file,
					  const char __user *ubuf, size_t count,
					  loff_t *ppos)
{
	bool on;
	int ret;

	ret = kstrtobool_from_user(ubuf, count, &on);
	if (ret)
		return ret;
	ret = kprobe_cache_switch(on);
	return ret ? ret : count;
}

static const struct file_operations kprobe_cache_enabled_fops = {
	.read = kprobe_cache_enabled_read,
	.write = kprobe_cache_enabled_write,
	.llseek = default_llseek,
};

/**
 * kprobe_cache_debugfs_init() - add the cache's files to debugfs kprobes/
 * @dir: the kprobes/ directory
 */
void __init kprobe_cache_debugfs_init(struct dentry *dir)
{
	debugfs_create_file("cache_enabled", 0600, dir, NULL,
			    &kprobe_cache_enabled_fops);
	debugfs_create_file("cache_stats", 0600, dir, NULL,
			    &kprobe_cache_stats_fops);
}
