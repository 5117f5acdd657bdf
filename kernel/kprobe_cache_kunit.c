// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the kprobe lookup cache (CONFIG_KPROBE_CACHE).
 *
 * Each case runs twice: with the probe on the function entry (the ftrace
 * path, kprobe_ftrace_handler()) and inside the function (the int3 path,
 * kprobe_int3_handler(); the probe has a post handler, so the optimizer
 * leaves it on int3).
 */

#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/bitmap.h>
#include <linux/completion.h>
#include <linux/context_tracking.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/sched.h>
#include <linux/smp.h>
#include <linux/stringify.h>

#include "kprobe_cache.h"
#include "kprobe_hash.h"

static noinline int kpc_target(int x)
{
	/* Enough instructions for a probe inside the function. */
	barrier();
	return x * 3 + 1;
}

/* A second probe site, for a cache set other than kpc_target's. */
static noinline int kpc_other(int x)
{
	barrier();
	return x + 2;
}

/*
 * 4,096 one-byte instructions, 16 per cache set on average: enough for four
 * times as many probes in one set as the set has ways.
 */
#define KPC_NOPS	4096

static noinline void kpc_nops(void)
{
	asm volatile(".rept " __stringify(KPC_NOPS) "\n\tnop\n\t.endr");
}

/* Called through a pointer, as in test_kprobes.c, so that it is not inlined. */
static int (*kpc_call)(int x);
static void (*kpc_nops_call)(void);

enum kpc_path { KPC_FTRACE, KPC_INT3 };

static const char * const kpc_path_names[] = { "ftrace", "int3" };

static void kpc_path_desc(const enum kpc_path *p, char *desc)
{
	strscpy(desc, kpc_path_names[*p], KUNIT_PARAM_DESC_SIZE);
}

static const enum kpc_path kpc_paths[] = { KPC_FTRACE, KPC_INT3 };
KUNIT_ARRAY_PARAM(kpc_path, kpc_paths, kpc_path_desc);

struct kpc_probe {
	struct kprobe kp;
	atomic_t hits;
};

static int kpc_pre(struct kprobe *kp, struct pt_regs *regs)
{
	struct kpc_probe *p = container_of(kp, struct kpc_probe, kp);

	atomic_inc(&p->hits);
	return 0;
}

static void kpc_post(struct kprobe *kp, struct pt_regs *regs,
		     unsigned long flags)
{
}

/*
 * Register @p on kpc_target through @path.  For int3, the first offset
 * past the entry that kprobes accepts and does not move onto the ftrace
 * call site (with IBT, the endbr64 before it) is an instruction boundary
 * inside the function.
 */
static int kpc_register(struct kunit *test, struct kpc_probe *p,
			enum kpc_path path)
{
	unsigned int off;
	int ret = -EINVAL;

	for (off = path == KPC_FTRACE ? 0 : 1; off < 32; off++) {
		memset(p, 0, sizeof(*p));
		p->kp.addr = (kprobe_opcode_t *)((unsigned long)kpc_target + off);
		p->kp.pre_handler = kpc_pre;
		if (path == KPC_INT3)
			p->kp.post_handler = kpc_post;
		ret = register_kprobe(&p->kp);
		if (path == KPC_FTRACE)
			break;
		if (ret == -EILSEQ)
			continue;
		if (ret || !kprobe_ftrace(&p->kp))
			break;
		/* Moved onto the ftrace site: try further in. */
		unregister_kprobe(&p->kp);
		ret = -EILSEQ;
	}
	if (!ret && path == KPC_FTRACE)
		KUNIT_EXPECT_TRUE(test, kprobe_ftrace(&p->kp));
	if (!ret && path == KPC_INT3)
		KUNIT_EXPECT_FALSE(test, kprobe_ftrace(&p->kp));
	return ret;
}

/* Same address as @first, for aggregation. */
static int kpc_register_at(struct kpc_probe *p, struct kpc_probe *first)
{
	memset(p, 0, sizeof(*p));
	p->kp.addr = first->kp.addr;
	p->kp.pre_handler = kpc_pre;
	p->kp.post_handler = first->kp.post_handler;
	return register_kprobe(&p->kp);
}

/* This CPU's statistics: the caller keeps interrupts off around its hits. */
static struct kprobe_cache_stats kpc_stats(void)
{
	struct kprobe_cache_stats s;

	kprobe_cache_read_cpu_stats(smp_processor_id(), &s);
	return s;
}

static void kpc_hit(int n)
{
	int i;

	for (i = 0; i < n; i++)
		kpc_call(i);
}

static void kpc_test_hit(struct kunit *test)
{
	const enum kpc_path *path = test->param_value;
	struct kprobe_cache_stats before, after;
	struct kpc_probe p;
	unsigned long flags;

	KUNIT_ASSERT_EQ(test, 0, kpc_register(test, &p, *path));
	/*
	 * Count on this CPU only, with interrupts off: neither a migration
	 * nor another kprobe hit from an interrupt can touch the counts.
	 */
	local_irq_save(flags);
	kpc_hit(1);
	before = kpc_stats();
	kpc_hit(100);
	after = kpc_stats();
	local_irq_restore(flags);
	KUNIT_EXPECT_EQ(test, atomic_read(&p.hits), 101);
	/*
	 * Every hit was answered from the cache, and nothing walked the
	 * table: on the int3 path, not even the single-step trap.
	 */
	KUNIT_EXPECT_EQ(test, after.hits - before.hits, 100UL);
	KUNIT_EXPECT_EQ(test, after.misses - before.misses, 0UL);
	unregister_kprobe(&p.kp);
}

/*
 * A function traced while RCU is not watching its CPU (an extended
 * quiescent state, as the idle loop enters it) must not run its
 * ftrace-based probe: the kprobe, and the index of the table it is found
 * in, may be freed under it.  The call outside that state hits.
 */
static void kpc_test_rcu_not_watching(struct kunit *test)
{
#ifdef CONFIG_CONTEXT_TRACKING_IDLE
	struct kpc_probe p;
	unsigned long flags;

	if (IS_ENABLED(CONFIG_RCU_EQS_DEBUG))
		kunit_skip(test, "RCU_EQS_DEBUG: only the idle task may enter idle");
	KUNIT_ASSERT_EQ(test, kpc_register(test, &p, KPC_FTRACE), 0);
	local_irq_save(flags);
	ct_idle_enter();
	kpc_call(1);
	ct_idle_exit();
	local_irq_restore(flags);
	kpc_call(2);
	unregister_kprobe(&p.kp);
	KUNIT_EXPECT_EQ(test, atomic_read(&p.hits), 1);
#else
	kunit_skip(test, "no CONFIG_CONTEXT_TRACKING_IDLE");
#endif
}

static void kpc_test_aggregate(struct kunit *test)
{
	const enum kpc_path *path = test->param_value;
	struct kpc_probe a, b, c;

	KUNIT_ASSERT_EQ(test, 0, kpc_register(test, &a, *path));
	kpc_hit(10);			/* a is cached on this CPU */
	KUNIT_ASSERT_EQ(test, 0, kpc_register_at(&b, &a));
	kpc_hit(1);
	KUNIT_EXPECT_EQ(test, atomic_read(&a.hits), 11);
	KUNIT_EXPECT_EQ(test, atomic_read(&b.hits), 1);
	/* A third probe joins the aggregator that is now cached. */
	KUNIT_ASSERT_EQ(test, 0, kpc_register_at(&c, &a));
	kpc_hit(1);
	KUNIT_EXPECT_EQ(test, atomic_read(&a.hits), 12);
	KUNIT_EXPECT_EQ(test, atomic_read(&b.hits), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&c.hits), 1);
	/* Unregister children one by one; the last takes the aggregator. */
	unregister_kprobe(&b.kp);
	kpc_hit(1);
	KUNIT_EXPECT_EQ(test, atomic_read(&a.hits), 13);
	KUNIT_EXPECT_EQ(test, atomic_read(&b.hits), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&c.hits), 2);
	unregister_kprobe(&a.kp);
	kpc_hit(1);
	KUNIT_EXPECT_EQ(test, atomic_read(&a.hits), 13);
	KUNIT_EXPECT_EQ(test, atomic_read(&c.hits), 3);
	unregister_kprobe(&c.kp);
	kpc_hit(1);
	KUNIT_EXPECT_EQ(test, atomic_read(&c.hits), 3);
}

static void kpc_test_unregister(struct kunit *test)
{
	const enum kpc_path *path = test->param_value;
	struct kpc_probe p;

	KUNIT_ASSERT_EQ(test, 0, kpc_register(test, &p, *path));
	kpc_hit(10);
	unregister_kprobe(&p.kp);
	kpc_hit(10);
	KUNIT_EXPECT_EQ(test, atomic_read(&p.hits), 10);
	/* And again at the same address, with a new probe. */
	KUNIT_ASSERT_EQ(test, 0, kpc_register(test, &p, *path));
	kpc_hit(3);
	KUNIT_EXPECT_EQ(test, atomic_read(&p.hits), 3);
	unregister_kprobe(&p.kp);
}

static void kpc_test_disable_enable(struct kunit *test)
{
	const enum kpc_path *path = test->param_value;
	struct kpc_probe p;

	KUNIT_ASSERT_EQ(test, 0, kpc_register(test, &p, *path));
	kpc_hit(5);
	KUNIT_ASSERT_EQ(test, 0, disable_kprobe(&p.kp));
	kpc_hit(5);
	KUNIT_EXPECT_EQ(test, atomic_read(&p.hits), 5);
	KUNIT_ASSERT_EQ(test, 0, enable_kprobe(&p.kp));
	kpc_hit(5);
	KUNIT_EXPECT_EQ(test, atomic_read(&p.hits), 10);
	unregister_kprobe(&p.kp);
}

struct kpc_hammer {
	struct completion done;
	atomic_t stop;
	long calls;
};

static int kpc_hammer_fn(void *arg)
{
	struct kpc_hammer *h = arg;

	while (!atomic_read(&h->stop)) {
		kpc_call(1);
		h->calls++;
		cond_resched();
	}
	complete(&h->done);
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
	return 0;
}

/*
 * Flip the switch while another CPU (and this one) keep hitting the
 * probe: no hit may be lost or doubled.
 */
static void kpc_test_switch(struct kunit *test)
{
	const enum kpc_path *path = test->param_value;
	struct kpc_hammer h = {};
	struct task_struct *t;
	struct kpc_probe p;
	int i, cpu, other, mine = 0;

	KUNIT_ASSERT_EQ(test, 0, kpc_register(test, &p, *path));
	init_completion(&h.done);
	cpu = get_cpu();
	other = cpumask_any_but(cpu_online_mask, cpu);
	put_cpu();
	if (other >= nr_cpu_ids)
		other = cpu;
	t = kthread_create(kpc_hammer_fn, &h, "kpc_hammer");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	kthread_bind(t, other);
	wake_up_process(t);

	for (i = 0; i < 200; i++) {
		kprobe_cache_switch(i & 1);
		kpc_hit(10);
		mine += 10;
		if (!(i % 16))
			usleep_range(1000, 2000);
	}
	kprobe_cache_switch(true);
	atomic_set(&h.stop, 1);
	wait_for_completion(&h.done);
	kthread_stop(t);
	unregister_kprobe(&p.kp);

	KUNIT_EXPECT_GT(test, h.calls, 0L);
	KUNIT_EXPECT_EQ(test, (long)atomic_read(&p.hits), h.calls + mine);
}

static int kpc_init(struct kunit *test)
{
	kpc_call = kpc_target;
	kpc_nops_call = kpc_nops;
	return kprobe_cache_switch(true);
}

/*
 * The caches exist only while the switch is on: turned off they are freed,
 * a registration or an unregistration does not allocate them, and hits go
 * through the index; turned on, every possible CPU has its sets again,
 * empty.
 */
static void kpc_test_memory(struct kunit *test)
{
	const enum kpc_path *path = test->param_value;
	size_t all = sizeof(struct kprobe_cache) * num_possible_cpus();
	struct kprobe_cache_stats before, after;
	struct kpc_probe p;
	unsigned long flags;
	int ret;

	KUNIT_EXPECT_EQ(test, kprobe_cache_allocated(), all);
	KUNIT_ASSERT_EQ(test, 0, kprobe_cache_switch(false));
	KUNIT_EXPECT_EQ(test, kprobe_cache_allocated(), 0);
	/* A probe that comes and goes while there are no caches. */
	KUNIT_ASSERT_EQ(test, 0, kpc_register(test, &p, *path));
	unregister_kprobe(&p.kp);
	KUNIT_ASSERT_EQ(test, 0, kpc_register(test, &p, *path));
	KUNIT_EXPECT_EQ(test, kprobe_cache_allocated(), 0);

	local_irq_save(flags);
	before = kpc_stats();
	kpc_hit(10);
	after = kpc_stats();
	local_irq_restore(flags);
	KUNIT_EXPECT_EQ(test, atomic_read(&p.hits), 10);
	KUNIT_EXPECT_EQ(test, after.hits - before.hits, 0UL);
	KUNIT_EXPECT_EQ(test, after.misses - before.misses, 0UL);

	ret = kprobe_cache_switch(true);
	KUNIT_EXPECT_EQ(test, ret, 0);
	if (!ret) {
		KUNIT_EXPECT_EQ(test, kprobe_cache_allocated(), all);
		local_irq_save(flags);
		before = kpc_stats();
		kpc_hit(10);
		after = kpc_stats();
		local_irq_restore(flags);
		KUNIT_EXPECT_EQ(test, atomic_read(&p.hits), 20);
		/* Empty sets: the first lookup misses, the others hit. */
		KUNIT_EXPECT_EQ(test, after.misses - before.misses, 1UL);
		KUNIT_EXPECT_EQ(test, after.hits - before.hits, 9UL);
	}
	unregister_kprobe(&p.kp);
}

/*
 * A change of the kprobe table drops only the cached lookups of the cache
 * set of the address concerned: hits in other sets go on hitting.
 */
static void kpc_test_other_set(struct kunit *test)
{
	const enum kpc_path *path = test->param_value;
	struct kprobe_cache_stats before, after;
	struct kpc_probe p, q;
	unsigned long flags;
	int ret;

	KUNIT_ASSERT_EQ(test, 0, kpc_register(test, &p, *path));
	memset(&q, 0, sizeof(q));
	q.kp.addr = (kprobe_opcode_t *)kpc_other;
	q.kp.pre_handler = kpc_pre;
	ret = register_kprobe(&q.kp);
	if (ret) {
		unregister_kprobe(&p.kp);
		KUNIT_FAIL(test, "registering a probe on kpc_other: %d", ret);
		return;
	}
	if (kprobe_cache_set_index(p.kp.addr) == kprobe_cache_set_index(q.kp.addr)) {
		unregister_kprobe(&q.kp);
		unregister_kprobe(&p.kp);
		kunit_skip(test, "both probes map to the same cache set");
	}
	/* Cache p on this CPU, change the table in q's set, count p's hits. */
	migrate_disable();
	local_irq_save(flags);
	kpc_hit(1);
	local_irq_restore(flags);
	unregister_kprobe(&q.kp);
	local_irq_save(flags);
	before = kpc_stats();
	kpc_hit(100);
	after = kpc_stats();
	local_irq_restore(flags);
	migrate_enable();
	KUNIT_EXPECT_EQ(test, atomic_read(&p.hits), 101);
	KUNIT_EXPECT_EQ(test, after.hits - before.hits, 100UL);
	KUNIT_EXPECT_EQ(test, after.misses - before.misses, 0UL);
	unregister_kprobe(&p.kp);
}

static void kpc_hit_ipi(void *n)
{
	kpc_hit(*(int *)n);
}

/* @n hits on @cpu, from an interrupt there; returns the hits it counted. */
static unsigned long kpc_hit_on(struct kunit *test, int cpu, int n)
{
	struct kprobe_cache_stats before, after;

	kprobe_cache_read_cpu_stats(cpu, &before);
	KUNIT_EXPECT_EQ(test, 0, smp_call_function_single(cpu, kpc_hit_ipi,
							  &n, 1));
	kprobe_cache_read_cpu_stats(cpu, &after);
	return after.hits - before.hits;
}

/*
 * A change of the table made on this CPU removes the address from the
 * other CPUs' caches: their next hits find the new aggregator, and once
 * the aggregator is gone, a new probe at the same address (which changes
 * the table without invalidating anything) and not the freed one.
 */
static void kpc_test_other_cpu(struct kunit *test)
{
	const enum kpc_path *path = test->param_value;
	struct kprobe_cache_stats before, after;
	struct kpc_probe a, b, c;
	int cpu, other;

	cpu = get_cpu();
	other = cpumask_any_but(cpu_online_mask, cpu);
	put_cpu();
	if (other >= nr_cpu_ids)
		kunit_skip(test, "needs two online CPUs");
	KUNIT_ASSERT_EQ(test, 0, kpc_register(test, &a, *path));
	/* a, or an aggregator of it (int3: the optimizer's), is cached there. */
	KUNIT_EXPECT_EQ(test, kpc_hit_on(test, other, 3), 2UL);
	kprobe_cache_read_cpu_stats(other, &before);
	KUNIT_ASSERT_EQ(test, 0, kpc_register_at(&b, &a));
	kprobe_cache_read_cpu_stats(other, &after);
	/* On ftrace, a was alone in the table: the aggregator replaced it. */
	if (*path == KPC_FTRACE)
		KUNIT_EXPECT_GE(test, after.invalidations - before.invalidations, 1UL);
	kpc_hit_on(test, other, 3);
	KUNIT_EXPECT_EQ(test, atomic_read(&a.hits), 6);
	KUNIT_EXPECT_EQ(test, atomic_read(&b.hits), 3);
	unregister_kprobe(&b.kp);
	kpc_hit_on(test, other, 3);
	KUNIT_EXPECT_EQ(test, atomic_read(&a.hits), 9);
	KUNIT_EXPECT_EQ(test, atomic_read(&b.hits), 3);
	/* The aggregator is cached there, and goes from the table now. */
	kprobe_cache_read_cpu_stats(other, &before);
	unregister_kprobe(&a.kp);
	kprobe_cache_read_cpu_stats(other, &after);
	KUNIT_EXPECT_GE(test, after.invalidations - before.invalidations, 1UL);
	KUNIT_ASSERT_EQ(test, 0, kpc_register_at(&c, &a));
	kpc_hit_on(test, other, 3);
	KUNIT_EXPECT_EQ(test, atomic_read(&a.hits), 9);
	KUNIT_EXPECT_EQ(test, atomic_read(&c.hits), 3);
	unregister_kprobe(&c.kp);
}

/*
 * A miss whose walk of the table raced with a change of it leaves nothing
 * in the cache: the next lookup misses again, the one after hits.
 */
static void kpc_test_fill_race(struct kunit *test)
{
	const enum kpc_path *path = test->param_value;
	struct kprobe_cache_stats before, after;
	unsigned long flags;
	struct kpc_probe p;
	struct kprobe *found;

	KUNIT_ASSERT_EQ(test, 0, kpc_register(test, &p, *path));
	migrate_disable();
	local_irq_save(flags);
	found = kprobe_cache_fill_stale(p.kp.addr);
	before = kpc_stats();
	kpc_hit(2);
	after = kpc_stats();
	local_irq_restore(flags);
	migrate_enable();
	unregister_kprobe(&p.kp);
	KUNIT_EXPECT_NOT_NULL(test, found);
	KUNIT_EXPECT_EQ(test, atomic_read(&p.hits), 2);
	KUNIT_EXPECT_EQ(test, after.misses - before.misses, 1UL);
	KUNIT_EXPECT_EQ(test, after.hits - before.hits, 1UL);
}

/* Four times as many probes in one set as it has ways, hit in turn. */
#define KPC_THRASH	(4 * KPROBE_CACHE_WAYS)

static void kpc_unregister_all(struct kpc_probe *p, unsigned int n)
{
	while (n)
		unregister_kprobe(&p[--n].kp);
}

/*
 * Calls kpc_nops() @calls times on one CPU with interrupts off; returns the
 * hits, misses and bypassed lookups that CPU's cache counted meanwhile.
 */
static struct kprobe_cache_stats kpc_run_nops(unsigned int calls)
{
	struct kprobe_cache_stats before, after;
	unsigned long flags;
	unsigned int i;

	migrate_disable();
	local_irq_save(flags);
	before = kpc_stats();
	for (i = 0; i < calls; i++)
		kpc_nops_call();
	after = kpc_stats();
	local_irq_restore(flags);
	migrate_enable();
	after.hits -= before.hits;
	after.misses -= before.misses;
	after.bypassed -= before.bypassed;
	return after;
}

/*
 * Registers @n int3 probes in kpc_nops(), all at addresses of the cache set
 * that holds the most of its addresses, and returns them.  Skips the test
 * when no set holds @n of them; fails it, with nothing left registered,
 * when a registration fails.
 */
static struct kpc_probe *kpc_register_one_set(struct kunit *test,
					      unsigned int n)
{
	unsigned int *count, i, k, s = 0;
	struct kpc_probe *p;
	u8 *base;
	int ret;

	count = kunit_kcalloc(test, KPROBE_CACHE_SETS, sizeof(*count), GFP_KERNEL);
	p = kunit_kcalloc(test, n, sizeof(*p), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, count);
	KUNIT_ASSERT_NOT_NULL(test, p);
	/*
	 * Past the entry (endbr64, the ftrace call): nops only.  From the
	 * pointer, so that no relocation points into the function's body.
	 */
	base = (u8 *)kpc_nops_call + 16;
	for (i = 0; i < KPC_NOPS - 32; i++)
		count[kprobe_cache_set_index(base + i)]++;
	for (i = 1; i < KPROBE_CACHE_SETS; i++)
		if (count[i] > count[s])
			s = i;
	if (count[s] < n)
		kunit_skip(test, "no cache set holds %u addresses", n);
	for (i = 0, k = 0; k < n; i++) {
		if (kprobe_cache_set_index(base + i) != s)
			continue;
		p[k].kp.addr = (kprobe_opcode_t *)(base + i);
		p[k].kp.pre_handler = kpc_pre;
		/* A post handler keeps the optimizer away. */
		p[k].kp.post_handler = kpc_post;
		ret = register_kprobe(&p[k].kp);
		if (ret) {
			kpc_unregister_all(p, k);
			KUNIT_FAIL_AND_ABORT(test, "registering a probe at %pS: %d",
					     base + i, ret);
		}
		k++;
	}
	return p;
}

/*
 * A hot set that overflows its cache set makes most lookups miss: after a
 * window with fewer hits than misses the CPU bypasses the cache, and every
 * probe still runs on every hit.  Once the hot set fits again, the cache is
 * used and nothing is bypassed.
 */
static void kpc_test_thrash(struct kunit *test)
{
	struct kpc_probe *p = kpc_register_one_set(test, KPC_THRASH);
	struct kprobe_cache_stats d;
	unsigned int i;

	d = kpc_run_nops(200);
	for (i = 0; i < KPC_THRASH; i++)
		KUNIT_EXPECT_EQ(test, atomic_read(&p[i].hits), 200);
	KUNIT_EXPECT_GT(test, d.bypassed, 0UL);
	/* The bypass begins after two windows with fewer hits than misses. */
	KUNIT_EXPECT_LT(test, d.hits, (unsigned long)KPROBE_CACHE_WINDOW);

	/* As many probes as ways: they fit, the cache is used again. */
	for (i = KPROBE_CACHE_WAYS; i < KPC_THRASH; i++)
		unregister_kprobe(&p[i].kp);
	kprobe_cache_switch(true);
	d = kpc_run_nops(200);
	for (i = 0; i < KPROBE_CACHE_WAYS; i++)
		KUNIT_EXPECT_EQ(test, atomic_read(&p[i].hits), 400);
	KUNIT_EXPECT_EQ(test, d.bypassed, 0UL);
	KUNIT_EXPECT_LE(test, d.misses, (unsigned long)KPROBE_CACHE_WAYS);
	kpc_unregister_all(p, KPROBE_CACHE_WAYS);
}

/*
 * One hot address more than a set has ways: if every miss replaced an
 * entry, the five would evict each other round robin and never hit.  A
 * full set takes a new entry only once in KPROBE_CACHE_REPLACE misses, so
 * four of the five keep hitting: at least 3 lookups in 4 hit (about 79%),
 * and nothing is bypassed.
 */
static void kpc_test_overfull_set(struct kunit *test)
{
	const unsigned int n = KPROBE_CACHE_WAYS + 1, calls = 400;
	struct kpc_probe *p = kpc_register_one_set(test, n);
	struct kprobe_cache_stats d;
	unsigned int i;

	d = kpc_run_nops(calls);
	kunit_info(test, "%u calls, %u probes: %lu hits, %lu misses, %lu bypassed\n",
		   calls, n, d.hits, d.misses, d.bypassed);
	for (i = 0; i < n; i++)
		KUNIT_EXPECT_EQ(test, atomic_read(&p[i].hits), calls);
	KUNIT_EXPECT_GE(test, d.hits, 3UL * n * calls / 4);
	KUNIT_EXPECT_EQ(test, d.bypassed, 0UL);
	kpc_unregister_all(p, n);
}

struct kpc_moved {
	struct kpc_probe *thrash;	/* probes in one cache set */
	unsigned int nthrash;		/* three times its ways, or more */
	struct kprobe *kp;		/* probes that only the new index holds */
	struct kprobe **kps;		/* pointers to them */
	unsigned int n;
	unsigned int found;		/* of those, found by bypassed lookups */
	bool bypassing;
};

/*
 * On one CPU, in an interrupt: thrashes the cache set of m->thrash until
 * the CPU bypasses its cache, then looks m->kp up, bypassed.
 */
static void kpc_moved_ipi(void *arg)
{
	struct kprobe_cache_stats before, after;
	struct kpc_moved *m = arg;
	struct kprobe *p;
	unsigned int i;

	m->found = 0;
	m->bypassing = false;
	kprobe_cache_read_cpu_stats(smp_processor_id(), &before);
	for (i = 0; i < 4 * KPROBE_CACHE_WINDOW * m->nthrash; i++) {
		get_kprobe_cached(m->thrash[i % m->nthrash].kp.addr);
		kprobe_cache_read_cpu_stats(smp_processor_id(), &after);
		if (after.bypassed != before.bypassed)
			break;
	}
	/* The bypass has KPROBE_CACHE_BYPASS - 1 lookups left. */
	if (after.bypassed == before.bypassed ||
	    m->n >= KPROBE_CACHE_BYPASS - 1)
		return;
	for (i = 0; i < m->n; i++) {
		p = get_kprobe_cached(m->kp[i].addr);
		m->found += p && p->addr == m->kp[i].addr;
	}
	kprobe_cache_read_cpu_stats(smp_processor_id(), &before);
	m->bypassing = before.bypassed - after.bypassed == m->n;
}

/* Every online CPU's bypassed lookups find every probe of @m. */
static void kpc_moved_check(struct kunit *test, struct kpc_moved *m)
{
	int cpu;

	cpus_read_lock();
	for_each_online_cpu(cpu) {
		KUNIT_EXPECT_EQ(test, 0, smp_call_function_single(cpu, kpc_moved_ipi,
								  m, 1));
		KUNIT_EXPECT_TRUE_MSG(test, m->bypassing, "cpu%d", cpu);
		KUNIT_EXPECT_EQ_MSG(test, m->found, m->n, "cpu%d", cpu);
	}
	cpus_read_unlock();
}

/*
 * A CPU that bypasses its cache, and its misses, look probes up in its own
 * copy of the kprobe table's index word.  Every replacement of the index,
 * larger or smaller, must reach every CPU's copy: a probe registered after
 * it is only in the new index, and the old one is freed.  As many disabled
 * probes as the index has slots make it grow; once they are gone, and a
 * few of the thrashing probes, it shrinks, and one more probe is only in
 * the small index.
 */
static void kpc_test_index_moved(struct kunit *test)
{
	struct kprobe_index_stats st, st2;
	struct kpc_moved m = {};
	unsigned int i, k, s;
	u8 *base, *addr;
	int ret;

	m.thrash = kpc_register_one_set(test, KPC_THRASH);
	m.nthrash = KPC_THRASH;
	s = kprobe_cache_set_index(m.thrash[0].kp.addr);
	kprobe_index_read_stats(&st);
	m.n = st.slots;
	if (m.n > KPC_NOPS / 2) {
		kpc_unregister_all(m.thrash, m.nthrash);
		kunit_skip(test, "the index has %u slots already", st.slots);
	}
	m.kp = kunit_kcalloc(test, m.n, sizeof(*m.kp), GFP_KERNEL);
	m.kps = kunit_kcalloc(test, m.n, sizeof(*m.kps), GFP_KERNEL);
	if (!m.kp || !m.kps) {
		kpc_unregister_all(m.thrash, m.nthrash);
		KUNIT_FAIL_AND_ABORT(test, "out of memory");
	}
	/*
	 * Past the entry, as in kpc_register_one_set(), and not in its set.
	 * The lookups return an aggregator where the optimizer made one:
	 * they are checked for the address only.
	 */
	base = (u8 *)kpc_nops_call + 16;
	for (i = 0, k = 0; k < m.n; i++) {
		if (kprobe_cache_set_index(base + i) == s)
			continue;
		m.kp[k].addr = (kprobe_opcode_t *)(base + i);
		m.kp[k].flags = KPROBE_FLAG_DISABLED;
		m.kps[k] = &m.kp[k];
		k++;
	}
	kprobe_index_read_stats(&st);
	ret = register_kprobes(m.kps, m.n);
	if (ret) {
		kpc_unregister_all(m.thrash, m.nthrash);
		KUNIT_FAIL_AND_ABORT(test, "registering %u probes: %d", m.n, ret);
	}
	kprobe_index_read_stats(&st2);
	KUNIT_EXPECT_GT(test, st2.slots, st.slots);
	/* No lookup that could still use the old index runs after this. */
	synchronize_rcu();
	kpc_moved_check(test, &m);

	/* Three times as many in the set as it has ways still thrash it. */
	unregister_kprobes(m.kps, m.n);
	while (m.nthrash > 3 * KPROBE_CACHE_WAYS)
		unregister_kprobe(&m.thrash[--m.nthrash].kp);
	kprobe_index_read_stats(&st);
	/*
	 * It shrinks below an eighth used: other probes may keep it large
	 * (the growth above is checked all the same).
	 */
	if (st.probes * 8 >= st2.slots) {
		kpc_unregister_all(m.thrash, m.nthrash);
		kunit_info(test, "%u probes left in %u slots: no shrinking checked\n",
			   st.probes, st2.slots);
		return;
	}
	KUNIT_EXPECT_LT(test, st.slots, st2.slots);
	addr = (u8 *)m.kp[0].addr;
	memset(&m.kp[0], 0, sizeof(m.kp[0]));
	m.kp[0].addr = (kprobe_opcode_t *)addr;
	m.kp[0].flags = KPROBE_FLAG_DISABLED;
	m.n = 1;
	ret = register_kprobe(&m.kp[0]);
	if (!ret) {
		synchronize_rcu();
		kpc_moved_check(test, &m);
		unregister_kprobe(&m.kp[0]);
	}
	kpc_unregister_all(m.thrash, m.nthrash);
	KUNIT_EXPECT_EQ(test, ret, 0);
}

/* A window of misses that find their set full, after @more hits. */
static unsigned int kpc_window(struct kprobe_cache_window *w,
			       unsigned long *hits, unsigned long more)
{
	unsigned int i, starts = 0;

	*hits += more;
	for (i = 0; i < KPROBE_CACHE_WINDOW; i++)
		starts += kprobe_cache_window_end(w, *hits, true);
	return starts;
}

/*
 * The first pass over a new hot set about as large as the cache: misses
 * that find full the sets that the pass itself filled, and no hit yet.
 * One such window starts no bypass, a second one does, and once a bypass
 * has ended one more does.  A window with as many hits as misses starts
 * the count over.
 */
static void kpc_test_window(struct kunit *test)
{
	struct kprobe_cache_window w = {};
	unsigned long hits = 0;

	KUNIT_EXPECT_EQ(test, kpc_window(&w, &hits, 0), 0);
	KUNIT_EXPECT_EQ(test, kpc_window(&w, &hits, 0), 1);
	KUNIT_EXPECT_EQ(test, kpc_window(&w, &hits, 0), 1);
	KUNIT_EXPECT_EQ(test, kpc_window(&w, &hits, KPROBE_CACHE_WINDOW), 0);
	KUNIT_EXPECT_EQ(test, kpc_window(&w, &hits, 0), 0);
	KUNIT_EXPECT_EQ(test, kpc_window(&w, &hits, KPROBE_CACHE_WINDOW - 1), 1);
}

/*
 * Probed addresses at a fixed stride (functions of one size back to back)
 * must spread over the kprobe index's slots as random ones do.  Hashed as
 * hash_ptr() does, by one multiplication, they form a Weyl sequence that
 * some strides put on a few tracks: 4,096 addresses 1,008 bytes apart in
 * 8,192 slots cost 42 slots per lookup.  For every multiple of 16 up to
 * 1,024 and for 37: at most 2 slots per lookup (random addresses: 1.5).
 * Linear probing as in the index, with its three tag bits below the slot
 * bits; without deletions a key's lookup reads the slots its insertion
 * read.
 */
#define KPC_SPREAD_KEYS		4096
#define KPC_SPREAD_BITS		13
#define KPC_SPREAD_TAG_BITS	3

static void kpc_spread(struct kunit *test, unsigned long stride,
		       unsigned long *used)
{
	const unsigned long base = 0xffffffff81000000UL;
	unsigned int mask = BIT(KPC_SPREAD_BITS) - 1;
	unsigned int i, h, reads = 0;
	void *addr;

	bitmap_zero(used, mask + 1);
	for (i = 0; i < KPC_SPREAD_KEYS; i++) {
		addr = (void *)(base + i * stride);
		h = kprobe_addr_hash(addr, KPC_SPREAD_BITS + KPC_SPREAD_TAG_BITS);
		h >>= KPC_SPREAD_TAG_BITS;
		for (reads++; __test_and_set_bit(h, used); reads++)
			h = (h + 1) & mask;
	}
	KUNIT_EXPECT_LE_MSG(test, reads, 2 * KPC_SPREAD_KEYS,
			    "stride %lu: slots read", stride);
}

static void kpc_test_hash_spread(struct kunit *test)
{
	unsigned long stride, *used;

	used = kunit_kcalloc(test, BITS_TO_LONGS(BIT(KPC_SPREAD_BITS)),
			     sizeof(*used), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, used);
	for (stride = 16; stride <= 1024; stride += 16)
		kpc_spread(test, stride, used);
	kpc_spread(test, 37, used);
}

static struct kunit_case kpc_cases[] = {
	KUNIT_CASE_PARAM(kpc_test_hit, kpc_path_gen_params),
	KUNIT_CASE(kpc_test_rcu_not_watching),
	KUNIT_CASE_PARAM(kpc_test_aggregate, kpc_path_gen_params),
	KUNIT_CASE_PARAM(kpc_test_unregister, kpc_path_gen_params),
	KUNIT_CASE_PARAM(kpc_test_disable_enable, kpc_path_gen_params),
	KUNIT_CASE_PARAM(kpc_test_switch, kpc_path_gen_params),
	KUNIT_CASE_PARAM(kpc_test_memory, kpc_path_gen_params),
	KUNIT_CASE_PARAM(kpc_test_other_set, kpc_path_gen_params),
	KUNIT_CASE_PARAM(kpc_test_other_cpu, kpc_path_gen_params),
	KUNIT_CASE_PARAM(kpc_test_fill_race, kpc_path_gen_params),
	KUNIT_CASE(kpc_test_thrash),
	KUNIT_CASE(kpc_test_overfull_set),
	KUNIT_CASE(kpc_test_window),
	KUNIT_CASE(kpc_test_index_moved),
	KUNIT_CASE(kpc_test_hash_spread),
	{}
};

static struct kunit_suite kpc_suite = {
	.name = "kprobe_cache",
	.init = kpc_init,
	.test_cases = kpc_cases,
};

kunit_test_suite(kpc_suite);

MODULE_DESCRIPTION("KUnit tests for the kprobe lookup cache");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
