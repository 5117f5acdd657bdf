// SPDX-License-Identifier: GPL-2.0
/*
 * Stress test for the kprobe lookup cache (CONFIG_KPROBE_CACHE).
 *
 * Eight target functions have two probe sites each: the function entry
 * (the ftrace path, kprobe_ftrace_handler()) and the first instruction
 * after it (the int3 path, kprobe_int3_handler(); those probes have a post
 * handler, so the optimizer leaves them on int3).  Each site has three
 * probe slots; several registered slots at one site make an aggregated
 * probe.
 *
 * One kthread per online CPU calls the targets in a loop, and a per-CPU
 * hrtimer calls them from hard interrupt context, so that lookups on the
 * ftrace path are interrupted by lookups of the same addresses.  Meanwhile
 * a mutator kthread, moving to the next online CPU at every step, picks a
 * random slot and registers, disables, enables or unregisters it; every
 * 64th step it unregisters, in one unregister_kprobes() call, every probe
 * on one target.  The run-time switch of the cache is flipped every 256
 * steps when it can be reached (CONFIG_KUNIT).
 *
 * Checked:
 *  - no handler runs for a probe that was never registered or whose
 *    unregistration has returned, and (on x86) no handler runs for a hit
 *    at another address than its probe's;
 *  - after every step, one call of the target on the mutator's CPU runs
 *    the handler of each enabled probe at the site exactly once, and the
 *    handler of no other probe there.
 *
 * Everything happens in module init, which fails with -EINVAL when a check
 * failed or a kprobe call failed unexpectedly, so that modprobe fails.
 *
 * The hitters run the targets while kprobes and ftrace rewrite them, so
 * the test relies on the CPU honouring cross-modified code once the
 * writer's text_poke_sync() is done, as x86 hardware and KVM do.  QEMU's
 * multi-threaded TCG (-accel tcg with several vCPUs; seen with 7.2) may
 * keep a translation of the code read while another vCPU was writing
 * it: that vCPU then keeps hitting an int3 that is no longer in memory,
 * after text_poke_bp() has finished.  At an ftrace site,
 * kprobe_int3_handler() finds the ftrace kprobe there, which has no
 * instruction slot, and "single-steps" it at address 0; elsewhere it is
 * an "Oops: int3".  Under TCG, run it with -accel tcg,thread=single.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/hrtimer.h>
#include <linux/jiffies.h>
#include <linux/kprobe_cache.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>

static unsigned int seconds = 60;
module_param(seconds, uint, 0444);
MODULE_PARM_DESC(seconds, "How long the mutator runs, in seconds (default 60)");

static unsigned long seed = 1;
module_param(seed, ulong, 0444);
MODULE_PARM_DESC(seed, "Seed of the mutator's random choices (default 1)");

static unsigned int irq_us = 100;
module_param(irq_us, uint, 0444);
MODULE_PARM_DESC(irq_us,
		 "Period of the per-CPU timer that calls the targets in hard interrupts, in us; 0: no timer (default 100)");

/*
 * The cache's statistics and run-time switch are exported to modules only
 * for KUnit.  Without them the test runs all the same, without flipping
 * the switch and without reporting the cache's counters.
 */
#if IS_ENABLED(CONFIG_KPROBE_CACHE) && IS_ENABLED(CONFIG_KUNIT)
#define TKC_CACHE_API	1

static void tkc_read_stats(struct kprobe_cache_stats *s)
{
	kprobe_cache_read_stats(s);
}

static void tkc_switch(bool on)
{
	kprobe_cache_switch(on);
}

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
#else
#define TKC_CACHE_API	0

static void tkc_read_stats(struct kprobe_cache_stats *s)
{
	memset(s, 0, sizeof(*s));
}

static void tkc_switch(bool on)
{
}
#endif

#define TKC_TARGETS	8
#define TKC_SITES	(2 * TKC_TARGETS)
#define TKC_SLOTS	3
#define TKC_BATCH_EVERY	64
#define TKC_FLIP_EVERY	256
#define TKC_PATH_CALLS	1000

/*
 * The targets have different bodies, so that the compiler cannot merge
 * them, and an instruction after the entry for the int3 site.
 */
#define TKC_DEFINE_TARGET(n)					\
	static noinline int tkc_target##n(int x)		\
	{							\
		barrier();					\
		return x * 5 + (n);				\
	}

TKC_DEFINE_TARGET(0)
TKC_DEFINE_TARGET(1)
TKC_DEFINE_TARGET(2)
TKC_DEFINE_TARGET(3)
TKC_DEFINE_TARGET(4)
TKC_DEFINE_TARGET(5)
TKC_DEFINE_TARGET(6)
TKC_DEFINE_TARGET(7)

/* Filled at run time, so that the targets are neither inlined nor cloned. */
static int (*tkc_fn[TKC_TARGETS])(int x) __read_mostly;

static void tkc_fill_targets(void)
{
	tkc_fn[0] = tkc_target0;
	tkc_fn[1] = tkc_target1;
	tkc_fn[2] = tkc_target2;
	tkc_fn[3] = tkc_target3;
	tkc_fn[4] = tkc_target4;
	tkc_fn[5] = tkc_target5;
	tkc_fn[6] = tkc_target6;
	tkc_fn[7] = tkc_target7;
}

/*
 * The state of a slot.  Only the mutator changes it: LIVE before
 * register_kprobe() and enable_kprobe() (handlers may run before they
 * return), DISABLED after disable_kprobe() returned, DEAD after
 * unregister_kprobe(s)() returned.
 */
enum tkc_state { TKC_IDLE, TKC_LIVE, TKC_DISABLED, TKC_DEAD };

static const char * const tkc_state_names[] = {
	[TKC_IDLE] = "idle",
	[TKC_LIVE] = "live",
	[TKC_DISABLED] = "disabled",
	[TKC_DEAD] = "dead",
};

struct tkc_site;

/**
 * struct tkc_slot - one probe that comes and goes at a site
 * @kp: the probe
 * @state: enum tkc_state
 * @hits: handler runs outside the mutator task
 * @mutator_hits: handler runs in the mutator task; only the mutator writes
 *	it, from the handler, which runs in the mutator's context
 * @site: the site of the slot
 * @index: the index of the slot in @site
 */
struct tkc_slot {
	struct kprobe kp;
	atomic_t state;
	atomic_long_t hits;
	unsigned long mutator_hits;
	struct tkc_site *site;
	unsigned int index;
};

/**
 * struct tkc_site - one probed address
 * @target: index of the target function
 * @entry: the function entry, else the int3 site inside the function
 * @addr: the probed address, as register_kprobe() adjusted it
 * @slot: the probe slots
 */
struct tkc_site {
	unsigned int target;
	bool entry;
	kprobe_opcode_t *addr;
	struct tkc_slot slot[TKC_SLOTS];
};

static struct tkc_site tkc_sites[TKC_SITES];

static struct task_struct *tkc_mutator_task;
static DECLARE_COMPLETION(tkc_mutator_done);

/* Nonzero on a CPU while its timer calls a target in hard interrupt. */
static DEFINE_PER_CPU(unsigned int, tkc_in_timer);

/* Written by the first handler that found a violation. */
static atomic_long_t tkc_violations;
static struct {
	const char *what;
	unsigned int site;
	unsigned int slot;
	int state;
	int cpu;
	unsigned long ip;
} tkc_first_violation;

/* Written by the mutator only. */
static struct {
	unsigned long iterations;
	unsigned long registrations;
	unsigned long aggregations;
	unsigned long nomem;
	unsigned long disables;
	unsigned long enables;
	unsigned long unregs;
	unsigned long batches;
	unsigned long batch_unregs;
	unsigned long flips;
	unsigned long migrate_fails;
	unsigned long checks;
	unsigned long mismatches;
} tkc_st;

static struct {
	const char *action;
	unsigned long iteration;
	unsigned int site;
	unsigned int slot;
	int state;
	long delta;
	int cpu;
} tkc_first_mismatch;

/* The first unexpected error of a kprobe call; it ends the run. */
static struct {
	int err;
	const char *call;
	unsigned int site;
	unsigned int slot;
} tkc_error;

static unsigned int tkc_site_index(const struct tkc_site *site)
{
	return site - tkc_sites;
}

/* xorshift64*, seeded through one splitmix64 step; mutator only. */
static u64 tkc_rng;

static void tkc_rng_seed(unsigned long s)
{
	u64 z = (u64)s + 0x9e3779b97f4a7c15ULL;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	z ^= z >> 31;
	tkc_rng = z ? z : 1;
}

/* A number in [0, n). */
static u32 tkc_rand(u32 n)
{
	u64 x = tkc_rng;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	tkc_rng = x;
	return (((x * 0x2545f4914f6cdd1dULL) >> 32) * n) >> 32;
}

static void tkc_violation(struct tkc_slot *s, int state, unsigned long ip,
			  const char *what)
{
	if (atomic_long_inc_return(&tkc_violations) != 1)
		return;
	tkc_first_violation.what = what;
	tkc_first_violation.site = tkc_site_index(s->site);
	tkc_first_violation.slot = s->index;
	tkc_first_violation.state = state;
	tkc_first_violation.cpu = raw_smp_processor_id();
	tkc_first_violation.ip = ip;
}

static int tkc_pre(struct kprobe *kp, struct pt_regs *regs)
{
	struct tkc_slot *s = container_of(kp, struct tkc_slot, kp);
	unsigned long addr = (unsigned long)s->site->addr;
	unsigned long ip = instruction_pointer(regs);
	int state = atomic_read(&s->state);

	if (state == TKC_IDLE || state == TKC_DEAD)
		tkc_violation(s, state, ip, "handler of an unregistered probe");
	/* On x86 both hit paths call the handler with ip = addr + 1. */
	else if (IS_ENABLED(CONFIG_X86) && ip != addr + sizeof(kprobe_opcode_t))
		tkc_violation(s, state, ip, "handler for a hit at another address");

	/*
	 * A call from the timer may interrupt the mutator; the kprobe
	 * handlers of the int3 path run in NMI context, so in_task() cannot
	 * tell them apart.
	 */
	if (current == READ_ONCE(tkc_mutator_task) && !this_cpu_read(tkc_in_timer))
		s->mutator_hits++;
	else
		atomic_long_inc(&s->hits);
	return 0;
}

/* A post handler keeps a probe off the optimizer, on int3. */
static void tkc_post(struct kprobe *kp, struct pt_regs *regs,
		     unsigned long flags)
{
}

static void tkc_init_kprobe(struct tkc_slot *s, kprobe_opcode_t *addr)
{
	memset(&s->kp, 0, sizeof(s->kp));
	s->kp.addr = addr;
	s->kp.pre_handler = tkc_pre;
	if (!s->site->entry)
		s->kp.post_handler = tkc_post;
}

static void tkc_fail(int err, const char *call, struct tkc_slot *s)
{
	if (tkc_error.err)
		return;
	tkc_error.err = err;
	tkc_error.call = call;
	tkc_error.site = tkc_site_index(s->site);
	tkc_error.slot = s->index;
}

static bool tkc_registered(struct tkc_slot *s)
{
	int state = atomic_read(&s->state);

	return state == TKC_LIVE || state == TKC_DISABLED;
}

/*
 * Register @s at its site.  -ENOMEM (an aggregator or an instruction slot
 * could not be allocated) is expected under memory pressure: the slot
 * stays unregistered.  Any other error ends the run.
 */
static void tkc_register(struct tkc_slot *s, int state)
{
	bool aggr = false;
	int i, ret;

	for (i = 0; i < TKC_SLOTS; i++)
		if (i != s->index && tkc_registered(&s->site->slot[i]))
			aggr = true;

	tkc_init_kprobe(s, s->site->addr);
	atomic_set(&s->state, TKC_LIVE);
	ret = register_kprobe(&s->kp);
	if (ret) {
		atomic_set(&s->state, state);
		if (ret == -ENOMEM)
			tkc_st.nomem++;
		else
			tkc_fail(ret, "register_kprobe", s);
		return;
	}
	tkc_st.registrations++;
	if (aggr)
		tkc_st.aggregations++;
}

static void tkc_unregister(struct tkc_slot *s)
{
	unregister_kprobe(&s->kp);
	atomic_set(&s->state, TKC_DEAD);
	tkc_st.unregs++;
}

static void tkc_disable(struct tkc_slot *s)
{
	int ret = disable_kprobe(&s->kp);

	if (ret) {
		tkc_fail(ret, "disable_kprobe", s);
		return;
	}
	atomic_set(&s->state, TKC_DISABLED);
	tkc_st.disables++;
}

static void tkc_enable(struct tkc_slot *s)
{
	int ret;

	atomic_set(&s->state, TKC_LIVE);
	ret = enable_kprobe(&s->kp);
	if (ret) {
		atomic_set(&s->state, TKC_DISABLED);
		tkc_fail(ret, "enable_kprobe", s);
		return;
	}
	tkc_st.enables++;
}

/* Unregister every registered slot of sites @first..@last at once. */
static unsigned int tkc_unregister_sites(unsigned int first, unsigned int last)
{
	struct kprobe *kps[TKC_SITES * TKC_SLOTS];
	struct tkc_slot *slots[TKC_SITES * TKC_SLOTS];
	unsigned int n = 0, i, j;

	for (i = first; i <= last; i++) {
		for (j = 0; j < TKC_SLOTS; j++) {
			struct tkc_slot *s = &tkc_sites[i].slot[j];

			if (tkc_registered(s)) {
				slots[n] = s;
				kps[n++] = &s->kp;
			}
		}
	}
	if (!n)
		return 0;
	unregister_kprobes(kps, n);
	for (i = 0; i < n; i++)
		atomic_set(&slots[i]->state, TKC_DEAD);
	return n;
}

/*
 * Call the target of @site once on this CPU: the handler of every LIVE
 * slot there must run exactly once, and no other.
 */
static void tkc_check(struct tkc_site *site, const char *action)
{
	unsigned long before[TKC_SLOTS];
	int i;

	for (i = 0; i < TKC_SLOTS; i++)
		before[i] = READ_ONCE(site->slot[i].mutator_hits);
	tkc_fn[site->target](1);
	for (i = 0; i < TKC_SLOTS; i++) {
		struct tkc_slot *s = &site->slot[i];
		long delta = READ_ONCE(s->mutator_hits) - before[i];
		int state = atomic_read(&s->state);
		long want = state == TKC_LIVE ? 1 : 0;

		if (delta == want)
			continue;
		if (!tkc_st.mismatches++) {
			tkc_first_mismatch.action = action;
			tkc_first_mismatch.iteration = tkc_st.iterations;
			tkc_first_mismatch.site = tkc_site_index(site);
			tkc_first_mismatch.slot = i;
			tkc_first_mismatch.state = state;
			tkc_first_mismatch.delta = delta;
			tkc_first_mismatch.cpu = raw_smp_processor_id();
		}
	}
	tkc_st.checks++;
}

/* One step of the mutator: change one slot, or unregister one target. */
static void tkc_step(bool *cache_on)
{
	unsigned long it = tkc_st.iterations;
	struct tkc_site *site, *other = NULL;
	const char *action;
	struct tkc_slot *s;
	int state;

	if (it % TKC_BATCH_EVERY == TKC_BATCH_EVERY - 1) {
		unsigned int t = tkc_rand(TKC_TARGETS);

		site = &tkc_sites[2 * t];
		other = &tkc_sites[2 * t + 1];
		action = "unregister_kprobes";
		tkc_st.batch_unregs += tkc_unregister_sites(2 * t, 2 * t + 1);
		tkc_st.batches++;
	} else {
		site = &tkc_sites[tkc_rand(TKC_SITES)];
		s = &site->slot[tkc_rand(TKC_SLOTS)];
		state = atomic_read(&s->state);
		if (state == TKC_IDLE || state == TKC_DEAD) {
			action = "register_kprobe";
			tkc_register(s, state);
		} else if (tkc_rand(2)) {
			action = "unregister_kprobe";
			tkc_unregister(s);
		} else if (state == TKC_LIVE) {
			action = "disable_kprobe";
			tkc_disable(s);
		} else {
			action = "enable_kprobe";
			tkc_enable(s);
		}
	}

	if (TKC_CACHE_API && it % TKC_FLIP_EVERY == TKC_FLIP_EVERY / 2) {
		*cache_on = !*cache_on;
		tkc_switch(*cache_on);
		tkc_st.flips++;
	}

	tkc_check(site, action);
	if (other)
		tkc_check(other, action);
	tkc_st.iterations++;
}

/* Move to the next online CPU; stay bound to this one if that fails. */
static void tkc_migrate(int *cpu)
{
	int next = cpumask_next(*cpu, cpu_online_mask);

	if (next >= nr_cpu_ids)
		next = cpumask_first(cpu_online_mask);
	if (set_cpus_allowed_ptr(current, cpumask_of(next)))
		tkc_st.migrate_fails++;
	else
		*cpu = next;
}

static int tkc_mutator(void *arg)
{
	unsigned long deadline = jiffies + (unsigned long)seconds * HZ;
	bool cache_on = true;
	int cpu = -1;

	tkc_switch(true);
	do {
		tkc_migrate(&cpu);
		tkc_step(&cache_on);
		cond_resched();
	} while (!tkc_error.err && !kthread_should_stop() &&
		 time_before(jiffies, deadline));
	tkc_switch(true);
	complete(&tkc_mutator_done);

	set_current_state(TASK_INTERRUPTIBLE);
	while (!kthread_should_stop()) {
		schedule();
		set_current_state(TASK_INTERRUPTIBLE);
	}
	__set_current_state(TASK_RUNNING);
	return 0;
}

/**
 * struct tkc_hitter - the caller of the targets on one CPU
 * @task: the kthread, bound to the CPU, while it runs
 * @started: the kthread was started
 * @timer: calls one target per period in hard interrupt context
 * @period: the timer's period
 * @calls: calls by the kthread
 * @timer_calls: calls by the timer
 */
struct tkc_hitter {
	struct task_struct *task;
	bool started;
	struct hrtimer timer;
	ktime_t period;
	unsigned long calls;
	unsigned long timer_calls;
};

static DEFINE_PER_CPU(struct tkc_hitter, tkc_hitters);

static enum hrtimer_restart tkc_timer_fn(struct hrtimer *timer)
{
	struct tkc_hitter *h = container_of(timer, struct tkc_hitter, timer);

	this_cpu_inc(tkc_in_timer);
	tkc_fn[h->timer_calls % TKC_TARGETS](1);
	this_cpu_dec(tkc_in_timer);
	h->timer_calls++;
	hrtimer_forward_now(timer, h->period);
	return HRTIMER_RESTART;
}

static int tkc_hitter(void *arg)
{
	struct tkc_hitter *h = arg;
	int i;

	if (irq_us) {
		hrtimer_init(&h->timer, CLOCK_MONOTONIC,
			     HRTIMER_MODE_REL_PINNED_HARD);
		h->timer.function = tkc_timer_fn;
		h->period = ns_to_ktime((u64)irq_us * NSEC_PER_USEC);
		hrtimer_start(&h->timer, h->period, HRTIMER_MODE_REL_PINNED_HARD);
	}
	while (!kthread_should_stop()) {
		for (i = 0; i < TKC_TARGETS; i++)
			tkc_fn[i](i);
		h->calls += TKC_TARGETS;
		cond_resched();
	}
	if (irq_us)
		hrtimer_cancel(&h->timer);
	return 0;
}

static void tkc_stop_hitters(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct tkc_hitter *h = per_cpu_ptr(&tkc_hitters, cpu);

		if (h->task)
			kthread_stop(h->task);
		h->task = NULL;
	}
}

static int tkc_start_hitters(void)
{
	struct task_struct *t;
	int cpu;

	for_each_online_cpu(cpu) {
		struct tkc_hitter *h = per_cpu_ptr(&tkc_hitters, cpu);

		t = kthread_create(tkc_hitter, h, "tkc_hitter/%d", cpu);
		if (IS_ERR(t)) {
			tkc_stop_hitters();
			return PTR_ERR(t);
		}
		kthread_bind(t, cpu);
		h->task = t;
		h->started = true;
		wake_up_process(t);
	}
	return 0;
}

/* Register slot 0 of @site at @addr to find out where kprobes puts it. */
static int tkc_try_site(struct tkc_site *site, kprobe_opcode_t *addr,
			bool *ftrace)
{
	struct tkc_slot *s = &site->slot[0];
	int ret;

	tkc_init_kprobe(s, addr);
	atomic_set(&s->state, TKC_LIVE);
	ret = register_kprobe(&s->kp);
	if (ret) {
		atomic_set(&s->state, TKC_IDLE);
		return ret;
	}
	site->addr = s->kp.addr;
	*ftrace = kprobe_ftrace(&s->kp);
	unregister_kprobe(&s->kp);
	atomic_set(&s->state, TKC_DEAD);
	return 0;
}

static bool tkc_same_function(void *a, void *b)
{
	char *sa = kasprintf(GFP_KERNEL, "%ps", a);
	char *sb = kasprintf(GFP_KERNEL, "%ps", b);
	bool same = sa && sb && !strcmp(sa, sb);

	kfree(sa);
	kfree(sb);
	return same;
}

/*
 * The entry site of target @t is its address; its int3 site is the first
 * offset from 1 on that register_kprobe() accepts (not -EILSEQ) and that
 * is neither the entry (which skips an ENDBR) nor on ftrace.
 */
static int tkc_find_sites(unsigned int t)
{
	struct tkc_site *entry = &tkc_sites[2 * t];
	struct tkc_site *inner = &tkc_sites[2 * t + 1];
	void *fn = tkc_fn[t];
	unsigned int off;
	bool ftrace;
	int ret;

	ret = tkc_try_site(entry, fn, &ftrace);
	if (ret) {
		pr_err("cannot probe the entry of %ps: %d\n", fn, ret);
		return ret;
	}
	if (IS_ENABLED(CONFIG_KPROBES_ON_FTRACE) && !ftrace) {
		pr_err("the entry of %ps is not on the ftrace path (compiled without CC_FLAGS_FTRACE?)\n",
		       fn);
		return -EINVAL;
	}

	for (off = 1; off < 64; off++) {
		ret = tkc_try_site(inner, fn + off, &ftrace);
		if (ret == -EILSEQ)
			continue;
		if (ret) {
			pr_err("cannot probe %ps+%u: %d\n", fn, off, ret);
			return ret;
		}
		if (inner->addr == entry->addr || ftrace)
			continue;
		if (!tkc_same_function(inner->addr, fn))
			break;
		return 0;
	}
	pr_err("no int3 site found in %ps\n", fn);
	return -EINVAL;
}

static void tkc_init_sites(void)
{
	unsigned int i, j;

	for (i = 0; i < TKC_SITES; i++) {
		struct tkc_site *site = &tkc_sites[i];

		site->target = i / 2;
		site->entry = !(i % 2);
		for (j = 0; j < TKC_SLOTS; j++) {
			site->slot[j].site = site;
			site->slot[j].index = j;
			atomic_set(&site->slot[j].state, TKC_IDLE);
		}
	}
}

/*
 * How the cache answers the hits of one path alone: one probe at @site,
 * called TKC_PATH_CALLS times with nothing else changing the table.  For
 * information only: it does not decide the result.
 */
static void tkc_path_stats(struct tkc_site *site)
{
	const char *path = site->entry ? "ftrace" : "int3";
	struct tkc_slot *s = &site->slot[0];
	struct kprobe_cache_stats a, b;
	int i, ret;

	tkc_init_kprobe(s, site->addr);
	atomic_set(&s->state, TKC_LIVE);
	ret = register_kprobe(&s->kp);
	if (ret) {
		atomic_set(&s->state, TKC_DEAD);
		pr_warn("%s path alone: register_kprobe failed: %d\n", path, ret);
		return;
	}
	tkc_read_stats(&a);
	for (i = 0; i < TKC_PATH_CALLS; i++)
		tkc_fn[site->target](i);
	tkc_read_stats(&b);
	unregister_kprobe(&s->kp);
	atomic_set(&s->state, TKC_DEAD);

	pr_info("%s path alone: %d calls, cache hits %lu misses %lu inserts %lu\n",
		path, TKC_PATH_CALLS, b.hits - a.hits, b.misses - a.misses,
		b.inserts - a.inserts);
	if (b.hits == a.hits)
		pr_warn("%s path alone: the cache answered no lookup\n", path);
}

static void tkc_report(const struct kprobe_cache_stats *a,
		       const struct kprobe_cache_stats *b, unsigned int left)
{
	unsigned long mutator_hits = 0, other_hits = 0;
	unsigned int i, j;
	int cpu;

	for (i = 0; i < TKC_SITES; i++) {
		for (j = 0; j < TKC_SLOTS; j++) {
			mutator_hits += tkc_sites[i].slot[j].mutator_hits;
			other_hits += atomic_long_read(&tkc_sites[i].slot[j].hits);
		}
	}

	pr_info("seconds %u seed %lu timer %u us\n", seconds, seed, irq_us);
	pr_info("iterations %lu checks %lu failed migrations %lu\n",
		tkc_st.iterations, tkc_st.checks, tkc_st.migrate_fails);
	pr_info("registrations %lu aggregations %lu -ENOMEM %lu\n",
		tkc_st.registrations, tkc_st.aggregations, tkc_st.nomem);
	pr_info("disables %lu enables %lu\n", tkc_st.disables, tkc_st.enables);
	pr_info("unregistrations single %lu batched %lu in %lu batches, %u at the end\n",
		tkc_st.unregs, tkc_st.batch_unregs, tkc_st.batches, left);
	for_each_possible_cpu(cpu) {
		struct tkc_hitter *h = per_cpu_ptr(&tkc_hitters, cpu);

		if (h->started)
			pr_info("cpu %d hitter calls %lu timer calls %lu\n",
				cpu, h->calls, h->timer_calls);
	}
	pr_info("handler hits mutator %lu others %lu\n",
		mutator_hits, other_hits);

	pr_info("violations %ld\n", atomic_long_read(&tkc_violations));
	if (atomic_long_read(&tkc_violations))
		pr_err("first violation: %s: site %u (%pS) slot %u state %s cpu %d ip %pS\n",
		       tkc_first_violation.what, tkc_first_violation.site,
		       tkc_sites[tkc_first_violation.site].addr,
		       tkc_first_violation.slot,
		       tkc_state_names[tkc_first_violation.state],
		       tkc_first_violation.cpu, (void *)tkc_first_violation.ip);

	pr_info("check mismatches %lu\n", tkc_st.mismatches);
	if (tkc_st.mismatches)
		pr_err("first mismatch: iteration %lu after %s: site %u (%pS) slot %u state %s delta %ld cpu %d\n",
		       tkc_first_mismatch.iteration, tkc_first_mismatch.action,
		       tkc_first_mismatch.site,
		       tkc_sites[tkc_first_mismatch.site].addr,
		       tkc_first_mismatch.slot,
		       tkc_state_names[tkc_first_mismatch.state],
		       tkc_first_mismatch.delta, tkc_first_mismatch.cpu);

	if (tkc_error.err)
		pr_err("%s failed: %d at site %u (%pS) slot %u\n",
		       tkc_error.call, tkc_error.err, tkc_error.site,
		       tkc_sites[tkc_error.site].addr, tkc_error.slot);

	if (TKC_CACHE_API) {
		pr_info("cache switch flips %lu\n", tkc_st.flips);
		pr_info("cache hits %lu misses %lu inserts %lu invalidations %lu\n",
			b->hits - a->hits, b->misses - a->misses,
			b->inserts - a->inserts,
			b->invalidations - a->invalidations);
	} else {
		pr_info("cache statistics and switch not reachable (need CONFIG_KPROBE_CACHE and CONFIG_KUNIT)\n");
	}
}

static int __init tkc_init(void)
{
	struct kprobe_cache_stats a, b;
	struct task_struct *t;
	unsigned int i, left;
	int ret;

	tkc_fill_targets();
	tkc_init_sites();
	tkc_rng_seed(seed);
	for (i = 0; i < TKC_TARGETS; i++) {
		ret = tkc_find_sites(i);
		if (ret)
			return ret;
	}

	tkc_read_stats(&a);
	ret = tkc_start_hitters();
	if (ret)
		return ret;

	t = kthread_create(tkc_mutator, NULL, "tkc_mutator");
	if (IS_ERR(t)) {
		tkc_stop_hitters();
		return PTR_ERR(t);
	}
	WRITE_ONCE(tkc_mutator_task, t);
	wake_up_process(t);
	/* Killable: killing modprobe ends the run early. */
	ret = wait_for_completion_killable(&tkc_mutator_done);
	kthread_stop(t);
	WRITE_ONCE(tkc_mutator_task, NULL);

	tkc_stop_hitters();
	left = tkc_unregister_sites(0, TKC_SITES - 1);
	/* No probe is left: any handler now is a violation. */
	for (i = 0; i < TKC_TARGETS; i++)
		tkc_fn[i](i);
	tkc_read_stats(&b);

	if (TKC_CACHE_API) {
		tkc_path_stats(&tkc_sites[0]);
		tkc_path_stats(&tkc_sites[1]);
	}
	tkc_report(&a, &b, left);

	if (ret) {
		pr_err("interrupted\n");
		return ret;
	}
	if (tkc_error.err || atomic_long_read(&tkc_violations) ||
	    tkc_st.mismatches || !tkc_st.iterations) {
		pr_err("FAIL\n");
		return -EINVAL;
	}
	pr_info("PASS\n");
	return 0;
}

static void __exit tkc_exit(void)
{
}

module_init(tkc_init);
module_exit(tkc_exit);

MODULE_DESCRIPTION("Stress test for the kprobe lookup cache");
MODULE_LICENSE("GPL");
