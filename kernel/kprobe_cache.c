// SPDX-License-Identifier: GPL-2.0
/*
 * Per-CPU lookup cache in front of get_kprobe().
 *
 * get_kprobe() hashes the address into the kprobe table's index and reads
 * an index slot and the struct kprobe it points to, scattered over memory
 * that the probed code does not otherwise touch.  The hit path only ever
 * needs a handful of hot addresses, so each CPU keeps the last ones it
 * looked up in a small set-associative cache (include/linux/kprobe_cache.h)
 * and searches the table only on a miss.
 *
 * Coherence.  The cache must never return a kprobe that get_kprobe() would
 * not return at that moment.  Every change of the kprobe table goes
 * through kprobe_table_add(), kprobe_table_replace() or kprobe_table_del()
 * in kernel/kprobes.c, under kprobe_mutex.  The last two (an aggregator
 * replacing a probe; the removal of a probe or aggregator, by
 * unregistration, the rollback of a failed arm or the optimizer's removal
 * of unused probes) end with kprobe_cache_invalidate(addr) for the
 * address concerned, which
 * increments the generation of the one set that address maps to, with
 * release ordering.  A CPU's entries in a set are valid only while the
 * CPU's generation of that set equals the global one; everything below
 * holds set by set, as an address can only be cached in its own set:
 *
 *  - A lookup reads its set's generation (acquire) before it probes the
 *    cache or walks the table.  If it sees the new generation, it also sees the
 *    table change that preceded it, so it neither uses an older entry (the
 *    generations differ) nor inserts a removed probe (its walk cannot find
 *    it).
 *  - A lookup that still sees the old generation began before the
 *    increment was visible, so it is inside the RCU read-side critical
 *    section (preemption or interrupts disabled) that the writer waits
 *    for before unregister returns or a probe is freed (synchronize_rcu(),
 *    or synchronize_rcu_tasks() in the optimizer, which also waits for
 *    such sections): exactly the window in which get_kprobe() may also
 *    still return the removed probe.
 *  - Adding a probe needs no invalidation: the cache holds no negative
 *    entries, and a second probe at a cached address goes through an
 *    aggregator, which replaces the first probe in the table and
 *    invalidates.
 *  - A lookup that finds the table changed under it only inserts under the
 *    generation it read first; if an interrupting lookup has meanwhile moved
 *    the cache to a newer generation, it inserts nothing.
 *
 * A resize of the table's index moves no address to another kprobe: a
 * cached entry stays the kprobe get_kprobe() returns, and nothing is
 * invalidated.
 *
 * A CPU whose hot set overflows its cache (KPROBE_CACHE_WINDOW in
 * include/linux/kprobe_cache.h) calls get_kprobe() directly for its next
 * lookups: it neither reads nor writes its sets meanwhile, and when it
 * comes back to them, their generations decide what is still valid, as
 * after any other pause.  Whether a lookup bypasses the cache only decides
 * where the answer comes from, never what it is.
 *
 * Disabling a probe or all probes does not change the table: the callers
 * check kprobe_disabled() after the lookup, as they do after get_kprobe().
 * Module unload turns probes GONE in place, also without changing the table.
 * Turning the cache off and on through debugfs invalidates too.
 *
 * So invalidation costs one atomic increment and no IPI, whatever the
 * number of CPUs: unregistering N probes costs N increments, and a CPU
 * flushes one set (4 entries) when its next lookup in that set finds the
 * generation moved.  Lookups of addresses in other sets keep hitting.
 * Turning the cache back on moves every set's generation.
 *
 * Readers and writers of one CPU's cache are that CPU's lookups, which can
 * nest: an interrupt that hits a kprobe inside kprobe_ftrace_handler(), or
 * an int3 or NMI inside either (kprobe_int3_handler() runs in NMI context
 * on x86).  A writer (flush and insert after a miss) makes a per-CPU
 * sequence count odd while it writes, with single-instruction this_cpu
 * increments, and a writer that finds the count odd has interrupted
 * another writer and writes nothing.  A reader uses what it found only if
 * the count was even and unchanged around its probe: otherwise a nested
 * insert could have paired the address of its new entry with the kprobe of
 * the entry it replaced.  A reader that loses this race walks the table.
 */

#include <linux/atomic.h>
#include <linux/debugfs.h>
#include <linux/jump_label.h>
#include <linux/kprobe_cache.h>
#include <linux/kprobes.h>
#include <linux/kstrtox.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <kunit/visibility.h>

/*
 * One CPU's state besides its sets: the sequence count of its writers, the
 * lookups it has left to make without the cache while its hot set
 * overflows it, the window that decides that, its statistics and, per
 * set, the generation its entries belong to.  @bypass is signed: nested
 * lookups may decrement it past zero, which ends the bypass as well.
 */
struct kprobe_cache_cpu {
	unsigned int seq;
	int bypass;
	struct kprobe_cache_window win;
	struct kprobe_cache_stats stats;
	unsigned long gen[KPROBE_CACHE_SETS];
};

static DEFINE_PER_CPU_ALIGNED(struct kprobe_cache, kprobe_cache);
static DEFINE_PER_CPU(struct kprobe_cache_cpu, kprobe_cache_cpu);
/*
 * The generation of each set.  Global and per-CPU generations start equal
 * (0) with every cache empty.  64-bit (KPROBE_CACHE depends on 64BIT): no
 * generation wraps around.
 */
static atomic_long_t kprobe_cache_gen[KPROBE_CACHE_SETS];
/*
 * The run-time switch.  Flipping it patches get_kprobe_cached() with
 * text_poke_bp(), whose temporary int3 a CPU may hit inside the int3 or
 * ftrace handler (or an NMI): poke_int3_handler() deals with it in
 * exc_int3() before kprobes sees the trap, as for every static branch in
 * those paths.
 */
static DEFINE_STATIC_KEY_TRUE(kprobe_cache_key);
static DEFINE_MUTEX(kprobe_cache_switch_mutex);

/**
 * kprobe_cache_invalidate() - drop every CPU's cached lookups of an address
 * @addr: the address whose entry in the kprobe hash table changed
 *
 * Called after every change of the kprobe hash table, before the
 * synchronize_rcu() that precedes freeing or returning to the caller.
 * Costs one atomic increment; each CPU flushes the set of @addr lazily.
 */
void kprobe_cache_invalidate(void *addr)
{
	atomic_long_inc_return_release(&kprobe_cache_gen[kprobe_cache_set_index(addr)]);
}

static void kprobe_cache_invalidate_all(void)
{
	unsigned int s;

	for (s = 0; s < KPROBE_CACHE_SETS; s++)
		atomic_long_inc_return_release(&kprobe_cache_gen[s]);
}

static void kprobe_cache_fill(unsigned int s, unsigned long gen, void *addr,
			      struct kprobe *p)
{
	struct kprobe_cache_cpu *cc = this_cpu_ptr(&kprobe_cache_cpu);
	bool evicted;

	/* Interrupting another writer of this CPU's cache: leave it be. */
	if (READ_ONCE(cc->seq) & 1)
		return;
	this_cpu_inc(kprobe_cache_cpu.seq);
	barrier();
	/*
	 * A nested lookup may have moved the cache to a newer generation
	 * since ours was read: then p may be stale.
	 */
	if ((long)(gen - cc->gen[s]) >= 0) {
		if (cc->gen[s] != gen) {
			kprobe_cache_flush_set(this_cpu_ptr(&kprobe_cache), s);
			WRITE_ONCE(cc->gen[s], gen);
			cc->stats.invalidations++;
		}
		evicted = kprobe_cache_insert(this_cpu_ptr(&kprobe_cache),
					      addr, p, cc->stats.inserts);
		cc->stats.inserts++;
		if (kprobe_cache_window_end(&cc->win, READ_ONCE(cc->stats.hits),
					    evicted))
			WRITE_ONCE(cc->bypass, KPROBE_CACHE_BYPASS);
	}
	barrier();
	this_cpu_inc(kprobe_cache_cpu.seq);
}

NOKPROBE_SYMBOL(kprobe_cache_fill);

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
	unsigned int seq, s;
	unsigned long gen;
	struct kprobe *p;

	if (!static_branch_likely(&kprobe_cache_key) || unlikely(!addr))
		return get_kprobe(addr);

	cc = this_cpu_ptr(&kprobe_cache_cpu);
	if (unlikely(READ_ONCE(cc->bypass) > 0)) {
		/* The hot set overflows the cache: see KPROBE_CACHE_WINDOW. */
		this_cpu_dec(kprobe_cache_cpu.bypass);
		this_cpu_inc(kprobe_cache_cpu.stats.bypassed);
		return get_kprobe(addr);
	}
	s = kprobe_cache_set_index(addr);
	gen = atomic_long_read_acquire(&kprobe_cache_gen[s]);
	seq = READ_ONCE(cc->seq);
	barrier();
	if (likely(READ_ONCE(cc->gen[s]) == gen && !(seq & 1))) {
		p = kprobe_cache_probe(this_cpu_ptr(&kprobe_cache), addr);
		barrier();
		if (likely(p && READ_ONCE(cc->seq) == seq)) {
			this_cpu_inc(kprobe_cache_cpu.stats.hits);
			return p;
		}
	}
	this_cpu_inc(kprobe_cache_cpu.stats.misses);
	p = get_kprobe(addr);
	if (p)
		kprobe_cache_fill(s, gen, addr, p);
	return p;
}

NOKPROBE_SYMBOL(get_kprobe_cached);

/**
 * kprobe_cache_read_cpu_stats() - the statistics of one CPU
 * @cpu: the CPU
 * @st: where to put them
 */
VISIBLE_IF_KUNIT void kprobe_cache_read_cpu_stats(int cpu,
						  struct kprobe_cache_stats *st)
{
	struct kprobe_cache_stats *s = per_cpu_ptr(&kprobe_cache_cpu.stats, cpu);

	st->hits = READ_ONCE(s->hits);
	st->misses = READ_ONCE(s->misses);
	st->inserts = READ_ONCE(s->inserts);
	st->invalidations = READ_ONCE(s->invalidations);
	st->bypassed = READ_ONCE(s->bypassed);
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

/**
 * kprobe_cache_switch() - turn the cache on or off for all CPUs
 * @on: true to use the cache on the hit path
 *
 * Context: process context, may sleep.
 */
VISIBLE_IF_KUNIT void kprobe_cache_switch(bool on)
{
	int cpu;

	mutex_lock(&kprobe_cache_switch_mutex);
	/* A switch starts every CPU afresh, bypass included. */
	for_each_possible_cpu(cpu)
		WRITE_ONCE(per_cpu_ptr(&kprobe_cache_cpu, cpu)->bypass, 0);
	if (on && !static_key_enabled(&kprobe_cache_key)) {
		/*
		 * Generations keep counting while the cache is off; this one
		 * makes sure that nothing cached before is used, whatever
		 * happened to the table meanwhile.  A CPU can only take the
		 * enabled branch after text_poke_bp() has synchronized it
		 * with an IPI, which comes after this increment: it then
		 * reads the new generation.
		 */
		kprobe_cache_invalidate_all();
		static_branch_enable(&kprobe_cache_key);
	} else if (!on && static_key_enabled(&kprobe_cache_key)) {
		static_branch_disable(&kprobe_cache_key);
	}
	mutex_unlock(&kprobe_cache_switch_mutex);
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
	seq_printf(m, "enabled %d sets %lu ways %u bytes_per_cpu %zu generation %lu\n",
		   static_key_enabled(&kprobe_cache_key), KPROBE_CACHE_SETS,
		   KPROBE_CACHE_WAYS, sizeof(struct kprobe_cache), gen);
	for_each_possible_cpu(cpu) {
		struct kprobe_cache_stats *s = per_cpu_ptr(&kprobe_cache_cpu.stats, cpu);

		seq_printf(m, "cpu%-4d hits %lu misses %lu inserts %lu invalidations %lu bypassed %lu\n",
			   cpu, READ_ONCE(s->hits), READ_ONCE(s->misses),
			   READ_ONCE(s->inserts), READ_ONCE(s->invalidations),
			   READ_ONCE(s->bypassed));
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
		struct kprobe_cache_stats *s = per_cpu_ptr(&kprobe_cache_cpu.stats, cpu);

		WRITE_ONCE(s->hits, 0);
		WRITE_ONCE(s->misses, 0);
		WRITE_ONCE(s->inserts, 0);
		WRITE_ONCE(s->invalidations, 0);
		WRITE_ONCE(s->bypassed, 0);
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
	char buf[2] = { static_key_enabled(&kprobe_cache_key) ? '1' : '0', '\n' };

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
	kprobe_cache_switch(on);
	return count;
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
