// SPDX-License-Identifier: GPL-2.0
/*
 * Mass-probe benchmark: the cost of a kprobe hit as the number of
 * registered probes grows, measured with kstats.
 *
 * The module carries KPB_NR_FN small generated functions: the probe sites.
 * Each hit path has its own range of KPB_HOT_MAX functions for its hot set,
 * the last KPB_HOT_MAX functions are never probed (the "twins" of the hot
 * sites, called next to them to measure the unprobed call in the same
 * loop), and the rest are "fill" sites: probes that are registered but
 * never hit,
 * disabled or armed in one enable_kprobes() batch (one at a time, arming
 * 40,000 of them would take minutes).  Disabled probes stay in the kprobe
 * table, so every get_kprobe() on a hit finds its way past them just as if
 * they were armed.
 *
 * It is driven by commands written to /sys/kernel/debug/test_kprobe_bench/ctl;
 * each command's result is one line in .../result:
 *
 *   fill N [arm]           register or unregister fill probes until there
 *                          are N, disabled, or with "arm" all armed in one
 *                          enable_kprobes() call
 *   hot PATH H             arm probes on the first H sites of PATH, which
 *                          is ftrace, int3, opt (jump-optimized) or
 *                          kretprobe, replacing PATH's previous hot set
 *   optwait                wait until the opt hot set is jump-optimized
 *   unhot                  unregister the hot probes of every path
 *   hit PATH H LOOPS NODE [TWIN]
 *                          call the first H sites of PATH once each,
 *                          untimed, then round robin, LOOPS calls, each
 *                          call's duration in ns into the kstats
 *                          histogram NODE; with TWIN, each call
 *                          alternates with a call of an unprobed site of
 *                          the same code, timed into TWIN
 *   churn PATH H BATCH TO NODE
 *                          as hit, for as long as another thread takes to
 *                          unregister fill probes in batches of BATCH
 *                          down to TO: each unregistration changes the
 *                          kprobe table while the hot probes are hit
 *   empty LOOPS            call kpb_empty() LOOPS times (traced through
 *                          kstats/_control to measure kstats itself)
 *   set PATH N [MODE]      register N probes on fill sites of PATH
 *                          (ftrace and kretprobe: the entries, int3: the
 *                          instruction after) with register_kprobes() or
 *                          register_kretprobes(): the enabling set; the
 *                          fill set must be empty.  MODE off (the
 *                          default): disabled; on: enabled; aggr:
 *                          enabled, each site that fire calls holding a
 *                          probe of its own first (an aggregator);
 *                          aggr-disabled: the same, that probe disabled;
 *                          mixed: enabled, every odd one with a
 *                          post_handler (ftrace: the IPMODIFY ftrace_ops)
 *   arm MODE [BUDGET_MS]   arm the set: MODE one calls enable_kprobe() for
 *                          one probe after the other and stops after
 *                          BUDGET_MS, MODE batch calls enable_kprobes()
 *   disarm MODE            disarm the armed probes of the set, with
 *                          disable_kprobe() or disable_kprobes()
 *   fire                   call every 16th function of the set: the
 *                          enabled probes, and only those, must fire
 *                          (with aggr, the sites' own probes too)
 *   unset                  unregister the set in one unregister_kprobes()
 *   conflict on|off        hold the set's second site with an IPMODIFY
 *                          ftrace_ops of this module's, as a live patch
 *                          would, or let it go
 *   spin on|off            call the set's first site in a kernel thread,
 *                          over and over; off reports the probe hits
 *                          meanwhile
 *   sample MODE LOOPS NODE fire the kpb_sample trace event LOOPS times, in
 *                          batches of KPB_BATCH, each batch's ns per event
 *                          into NODE; MODE kstats first attaches a kstats
 *                          probe to the event, MODE record calls
 *                          kstats_record() instead of the event
 *   clear                  delete the histograms this module created
 *
 * The selftest in tools/testing/selftests/kprobe_bench/ runs the sweep.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/ftrace.h>
#include <linux/jiffies.h>
#include <linux/kprobes.h>
#include <linux/kstats.h>
#include <linux/kthread.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>
#include <asm/ibt.h>
#include <asm/text-patching.h>

#define CREATE_TRACE_POINTS
#include "test_kprobe_bench_trace.h"

/*
 * The probe sites: kpb_fn_0 .. kpb_fn_<CONFIG_TEST_KPROBE_BENCH_SITES - 1>,
 * each returning its argument xor its own 32-bit constant, so that the
 * compiler cannot merge them.  The body (a move and an xor with a 32-bit
 * immediate, 7 bytes) is long enough for a jump-optimized probe after the
 * fentry call.  The build generates test_kprobe_bench_sites.h, one
 * KPB_SITE(n) line per function.
 *
 * Each one aligned as CONFIG_FUNCTION_ALIGNMENT asks: at -Os, GCC 12.2
 * (the compiler checked) leaves out the padding of -falign-functions, and
 * the sites then sit back to back at an odd stride (37 bytes on x86-64
 * with call padding), which no kernel built at -O2 has, and which crowds
 * runs of them into a few sets of any cache indexed by address bits.
 */
#define KPB_SITE(n)							\
	static noinline __noclone __aligned(CONFIG_FUNCTION_ALIGNMENT)	\
	u32 kpb_fn_##n(u32 x)						\
	{								\
		return x ^ (0x40000000U + (n));				\
	}
#include "test_kprobe_bench_sites.h"
#undef KPB_SITE

typedef u32 (*kpb_fn_t)(u32 x);

#define KPB_SITE(n)	kpb_fn_##n,
static const kpb_fn_t kpb_fns[] = {
#include "test_kprobe_bench_sites.h"
};

#undef KPB_SITE

#define KPB_NR_FN	ARRAY_SIZE(kpb_fns)
#define KPB_HOT_MAX	4096
#define KPB_BATCH	16
#define KPB_OPT_WAIT_MS	20000

enum kpb_path { KPB_FTRACE, KPB_INT3, KPB_OPT, KPB_KRETPROBE, KPB_NR_PATHS };

static const char * const kpb_path_name[KPB_NR_PATHS] = {
	[KPB_FTRACE] = "ftrace",
	[KPB_INT3] = "int3",
	[KPB_OPT] = "opt",
	[KPB_KRETPROBE] = "kretprobe",
};

/*
 * Sites [0, KPB_FILL_BASE) are hot sets, one range per path; then fill;
 * the last KPB_HOT_MAX sites are the unprobed twins.
 */
#define KPB_FILL_BASE	(KPB_NR_PATHS * KPB_HOT_MAX)
#define KPB_TWIN_BASE	(KPB_NR_FN - KPB_HOT_MAX)
#define KPB_FILL_MAX	(KPB_TWIN_BASE - KPB_FILL_BASE)

static DEFINE_MUTEX(kpb_mutex);
static struct dentry *kpb_dir;
static char kpb_result[256];

static struct kprobe *kpb_fill;
static unsigned int kpb_nr_fill;

/* The armed hot set of each path. */
static struct kpb_hot {
	unsigned int n;
	struct kprobe *kp;
	struct kretprobe *rp;
} kpb_hot[KPB_NR_PATHS];

static DEFINE_PER_CPU(unsigned long, kpb_hits);

/*
 * A hook's cost is the difference of two medians, each about twice the
 * cost: with 8 slots per power of two, one slot of either moves it by an
 * eighth to a quarter.  32 slots (30 KiB per CPU and histogram) make that
 * 3-6%, and a reader that interpolates inside the slot less.
 */
#define KPB_FRAC_BITS	KSTATS_MAX_FRAC_BITS

#define KPB_MAX_NODES	512
static struct kstats *kpb_nodes[KPB_MAX_NODES];
static unsigned int kpb_nr_nodes;

static struct kstats *kpb_sample_ks;

static noinline __noclone void kpb_empty(void)
{
	barrier();
}

static void *kpb_site(unsigned int i)
{
	return (void *)kpb_fns[i];
}

/* The instruction after the fentry call: an int3 (or optimized) site. */
static void *kpb_body(unsigned int i)
{
	u8 *p = kpb_site(i);

	if (is_endbr(*(u32 *)p))
		p += ENDBR_INSN_SIZE;
	return p + MCOUNT_INSN_SIZE;
}

static int kpb_pre(struct kprobe *p, struct pt_regs *regs)
{
	this_cpu_inc(kpb_hits);
	return 0;
}

static void kpb_post(struct kprobe *p, struct pt_regs *regs,
		     unsigned long flags)
{
}

static int kpb_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	this_cpu_inc(kpb_hits);
	return 0;
}

static unsigned long kpb_read_hits(void)
{
	unsigned long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += per_cpu(kpb_hits, cpu);
	return sum;
}

/*
 * Unregisters @n kprobes (or kretprobes) in one call: one RCU grace period
 * for the whole batch instead of one per probe, which would take minutes
 * for 40,000 probes.
 */
static void kpb_unregister(struct kprobe *kp, struct kretprobe *rp,
			   unsigned int n)
{
	void **batch;
	unsigned int i;

	if (!n)
		return;
	batch = kvmalloc_array(n, sizeof(*batch), GFP_KERNEL);
	for (i = 0; i < n && !batch; i++) {
		/* No memory for the batch: slow, one grace period each. */
		if (kp)
			unregister_kprobe(&kp[i]);
		else
			unregister_kretprobe(&rp[i]);
	}
	if (!batch)
		return;
	for (i = 0; i < n; i++)
		batch[i] = kp ? (void *)&kp[i] : (void *)&rp[i];
	if (kp)
		unregister_kprobes((struct kprobe **)batch, n);
	else
		unregister_kretprobes((struct kretprobe **)batch, n);
	kvfree(batch);
}

/* Unregisters the fill probes from the @n-th on, in one batch. */
static void kpb_unfill_to(unsigned int n)
{
	if (n >= kpb_nr_fill)
		return;
	kpb_unregister(kpb_fill + n, NULL, kpb_nr_fill - n);
	memset(kpb_fill + n, 0, (kpb_nr_fill - n) * sizeof(*kpb_fill));
	kpb_nr_fill = n;
}

/* Registers disabled fill probes until there are @n. */
static int kpb_fill_to(unsigned int n)
{
	struct kprobe *p;
	int ret;

	if (!kpb_fill) {
		kpb_fill = kvcalloc(KPB_FILL_MAX, sizeof(*kpb_fill), GFP_KERNEL);
		if (!kpb_fill)
			return -ENOMEM;
	}
	while (kpb_nr_fill < n) {
		p = &kpb_fill[kpb_nr_fill];
		p->addr = kpb_site(KPB_FILL_BASE + kpb_nr_fill);
		p->pre_handler = kpb_pre;
		p->flags = KPROBE_FLAG_DISABLED;
		ret = register_kprobe(p);
		if (ret) {
			memset(p, 0, sizeof(*p));
			return ret;
		}
		kpb_nr_fill++;
		if (!(kpb_nr_fill & 255))
			cond_resched();
	}
	return 0;
}

/* Arms every fill probe in one batch. */
static int kpb_arm_fill(void)
{
	struct kprobe **ps;
	unsigned int i;
	int ret;

	if (!kpb_nr_fill)
		return 0;
	ps = kvmalloc_array(kpb_nr_fill, sizeof(*ps), GFP_KERNEL);
	if (!ps)
		return -ENOMEM;
	for (i = 0; i < kpb_nr_fill; i++)
		ps[i] = &kpb_fill[i];
	ret = enable_kprobes(ps, kpb_nr_fill);
	kvfree(ps);
	return ret;
}

/* Grows or shrinks the fill set to @n probes, armed if @arm. */
static int kpb_cmd_fill(unsigned int n, bool arm)
{
	unsigned int i, from = kpb_nr_fill, armed = 0;
	u64 t0 = ktime_get_ns(), t1;
	int ret;

	if (n > KPB_FILL_MAX)
		return -ERANGE;
	kpb_unfill_to(n);
	ret = kpb_fill_to(n);
	t1 = ktime_get_ns();
	if (!ret && arm)
		ret = kpb_arm_fill();
	for (i = 0; i < kpb_nr_fill; i++)
		armed += !kprobe_disabled(&kpb_fill[i]);
	snprintf(kpb_result, sizeof(kpb_result),
		 "fill n=%u from=%u armed=%u ns=%llu arm_ns=%llu max=%zu\n",
		 kpb_nr_fill, from, armed, t1 - t0, ktime_get_ns() - t1,
		 KPB_FILL_MAX);
	return ret;
}

static void kpb_unhot(int path)
{
	struct kpb_hot *hot = &kpb_hot[path];

	kpb_unregister(hot->kp, hot->rp, hot->n);
	kvfree(hot->kp);
	kvfree(hot->rp);
	memset(hot, 0, sizeof(*hot));
}

static void kpb_unhot_all(void)
{
	int path;

	for (path = 0; path < KPB_NR_PATHS; path++)
		kpb_unhot(path);
}

static unsigned int kpb_count_optimized(void)
{
	struct kpb_hot *hot = &kpb_hot[KPB_OPT];
	unsigned int i, n = 0;
	u8 op;

	/* An optimized probe is a jump where the int3 was. */
	for (i = 0; i < hot->n; i++)
		if (!copy_from_kernel_nofault(&op, hot->kp[i].addr, 1) &&
		    op == JMP32_INSN_OPCODE)
			n++;
	return n;
}

/* The optimizer runs from a delayed work: wait until it did them all. */
static int kpb_cmd_optwait(void)
{
	unsigned long timeout = jiffies + msecs_to_jiffies(KPB_OPT_WAIT_MS);
	unsigned int n;

	while ((n = kpb_count_optimized()) < kpb_hot[KPB_OPT].n &&
	       time_before(jiffies, timeout))
		msleep(20);
	snprintf(kpb_result, sizeof(kpb_result), "optwait h=%u optimized=%u\n",
		 kpb_hot[KPB_OPT].n, n);
	return n < kpb_hot[KPB_OPT].n ? -ETIMEDOUT : 0;
}

static int kpb_cmd_hot(int path, unsigned int h)
{
	struct kpb_hot *hot = &kpb_hot[path];
	unsigned int base = path * KPB_HOT_MAX, i;
	u64 t0 = ktime_get_ns();
	int ret = 0;

	if (h > KPB_HOT_MAX)
		return -ERANGE;
	kpb_unhot(path);
	if (path == KPB_KRETPROBE)
		hot->rp = kvcalloc(h, sizeof(*hot->rp), GFP_KERNEL);
	else
		hot->kp = kvcalloc(h, sizeof(*hot->kp), GFP_KERNEL);
	if (h && !hot->kp && !hot->rp)
		return -ENOMEM;
	for (i = 0; i < h && !ret; i++) {
		if (path == KPB_KRETPROBE) {
			hot->rp[i].kp.addr = kpb_site(base + i);
			hot->rp[i].handler = kpb_ret;
			ret = register_kretprobe(&hot->rp[i]);
		} else {
			hot->kp[i].addr = path == KPB_FTRACE ?
					  kpb_site(base + i) : kpb_body(base + i);
			hot->kp[i].pre_handler = kpb_pre;
			ret = register_kprobe(&hot->kp[i]);
		}
		if (!ret)
			hot->n++;
		cond_resched();
	}
	snprintf(kpb_result, sizeof(kpb_result),
		 "hot path=%s h=%u register_ns=%llu\n",
		 kpb_path_name[path], hot->n, ktime_get_ns() - t0);
	if (ret)
		kpb_unhot(path);
	return ret;
}

/* Creates histogram @name; "clear" deletes them all. */
static struct kstats *kpb_node(const char *name)
{
	struct kstats *ks;

	if (kpb_nr_nodes == KPB_MAX_NODES)
		return ERR_PTR(-ENOSPC);
	ks = kstats_new(name, KPB_FRAC_BITS);
	if (!IS_ERR(ks))
		kpb_nodes[kpb_nr_nodes++] = ks;
	return ks;
}

/* Calls site @site with argument @i, its duration into @ks. */
static void kpb_timed_call(unsigned int site, unsigned int i, struct kstats *ks)
{
	kpb_fn_t fn = kpb_fns[site];
	u64 t0, t1;

	preempt_disable();
	t0 = ktime_get_ns();
	fn(i);
	t1 = ktime_get_ns();
	preempt_enable();
	kstats_record(ks, t1 - t0);
}

/*
 * With @twin, the unprobed twin of each hot site is called next to it, in
 * turn before and after it: both histograms then see the same emulator and
 * host conditions, which a baseline measured minutes earlier does not.
 */
static int kpb_cmd_hit(int path, unsigned int h, unsigned int loops,
		       const char *name, const char *twin)
{
	unsigned int base = path * KPB_HOT_MAX, i;
	struct kstats *ks, *tks = NULL;
	unsigned long hits;

	if (!h || h > KPB_HOT_MAX)
		return -ERANGE;
	ks = kpb_node(name);
	if (IS_ERR(ks))
		return PTR_ERR(ks);
	if (twin) {
		tks = kpb_node(twin);
		if (IS_ERR(tks))
			return PTR_ERR(tks);
	}
	/*
	 * One untimed pass over the hot sites (and their twins) first.  The
	 * cache switch before a round flushed the lookup cache, so the first
	 * call of each site misses; with 1,024 hot sites and 4,000 calls in
	 * a round that pass was a quarter of the histogram, and with every
	 * call of it slower, the median was the 67th percentile of the calls
	 * after it.  A round times the hook once its hot set is in place;
	 * the lookup cache's statistics still count the pass.  The cache is
	 * per CPU, so the pass and the round stay on one CPU (they may still
	 * sleep in cond_resched()): a move would meet a cold cache halfway.
	 */
	migrate_disable();
	for (i = 0; i < h; i++) {
		kpb_fns[base + i](i);
		if (tks)
			kpb_fns[KPB_TWIN_BASE + i](i);
	}
	hits = kpb_read_hits();
	for (i = 0; i < loops; i++) {
		if (tks && (i & 1))
			kpb_timed_call(KPB_TWIN_BASE + i % h, i, tks);
		kpb_timed_call(base + i % h, i, ks);
		if (tks && !(i & 1))
			kpb_timed_call(KPB_TWIN_BASE + i % h, i, tks);
		if (!(i & 1023))
			cond_resched();
	}
	migrate_enable();
	snprintf(kpb_result, sizeof(kpb_result),
		 "hit path=%s h=%u loops=%u hits=%lu node=%s twin=%s\n",
		 kpb_path_name[path], h, loops, kpb_read_hits() - hits, name,
		 twin ? twin : "-");
	return 0;
}

struct kpb_churn {
	unsigned int batch;
	unsigned int target;
	u64 ns;
	bool done;
};

static int kpb_churn_fn(void *data)
{
	struct kpb_churn *c = data;
	u64 t0 = ktime_get_ns();

	while (kpb_nr_fill > c->target)
		kpb_unfill_to(kpb_nr_fill - c->target > c->batch ?
			      kpb_nr_fill - c->batch : c->target);
	c->ns = ktime_get_ns() - t0;
	/* The last access to *c: the caller's stack frame goes after it. */
	smp_store_release(&c->done, true);
	return 0;
}

/*
 * Hits while the table changes: the fill probes are unregistered by a
 * thread of their own (under kpb_mutex, which the caller holds, so no
 * other command touches them meanwhile).
 */
static int kpb_cmd_churn(int path, unsigned int h, unsigned int batch,
			 unsigned int target, const char *name)
{
	struct kpb_churn c = { .batch = batch, .target = target };
	unsigned int base = path * KPB_HOT_MAX, from = kpb_nr_fill, i = 0;
	struct task_struct *t;
	unsigned long hits;
	struct kstats *ks;

	if (!h || h > KPB_HOT_MAX || !batch || target >= kpb_nr_fill)
		return -ERANGE;
	ks = kpb_node(name);
	if (IS_ERR(ks))
		return PTR_ERR(ks);
	hits = kpb_read_hits();
	t = kthread_run(kpb_churn_fn, &c, "kpb_churn");
	if (IS_ERR(t))
		return PTR_ERR(t);
	/* Pairs with the release in kpb_churn_fn(): then c is ours again. */
	while (!smp_load_acquire(&c.done)) {
		kpb_timed_call(base + i % h, i, ks);
		if (!(++i & 63))
			cond_resched();
	}
	snprintf(kpb_result, sizeof(kpb_result),
		 "churn path=%s h=%u calls=%u hits=%lu from=%u to=%u ns=%llu node=%s\n",
		 kpb_path_name[path], h, i, kpb_read_hits() - hits, from,
		 kpb_nr_fill, c.ns, name);
	return 0;
}

static int kpb_cmd_empty(unsigned int loops)
{
	unsigned int i;

	for (i = 0; i < loops; i++) {
		kpb_empty();
		if (!(i & 1023))
			cond_resched();
	}
	snprintf(kpb_result, sizeof(kpb_result), "empty loops=%u\n", loops);
	return 0;
}

/*
 * The enabling-time set: probes on fill sites, registered with
 * register_kprobes() (kretprobes: register_kretprobes()) disabled, then
 * armed and disarmed one at a time or in one batch; or registered enabled
 * (KPB_SET_ON), where with KPB_SET_AGGR each site that "fire" calls first
 * gets a probe of its own, so that the set's probes join it under an
 * aggregator (KPB_SET_AGGR_OFF: a disabled one, so that the aggregator
 * is disabled until the set's probe joins it).  KPB_SET_MIXED gives every
 * odd probe a post_handler: on ftrace, the probes of one batch then use
 * both of the kprobes' ftrace_ops.
 */
enum kpb_set_mode {
	KPB_SET_OFF, KPB_SET_ON, KPB_SET_AGGR, KPB_SET_AGGR_OFF, KPB_SET_MIXED
};

static const char * const kpb_set_mode_name[] = {
	[KPB_SET_OFF] = "off",
	[KPB_SET_ON] = "on",
	[KPB_SET_AGGR] = "aggr",
	[KPB_SET_AGGR_OFF] = "aggr-disabled",
	[KPB_SET_MIXED] = "mixed",
};

static struct kpb_set {
	struct kprobe *kp;
	struct kretprobe *rp;
	struct kprobe **ps;
	struct kprobe *extra;
	unsigned int n, armed, nr_extra;
	bool extra_on;
	int path;
} kpb_set;

/* Every 16th site of the set: the ones kpb_cmd_fire() calls. */
#define KPB_FIRE_STRIDE	16

static u64 kpb_set_unregister(void)
{
	struct kpb_set *s = &kpb_set;
	struct kretprobe **rps;
	unsigned int i;
	u64 t0 = ktime_get_ns();

	if (s->n && s->rp) {
		/* The kretprobes' entry probes are s->ps[]: reuse the array. */
		rps = (struct kretprobe **)s->ps;
		for (i = 0; i < s->n; i++)
			rps[i] = &s->rp[i];
		unregister_kretprobes(rps, s->n);
	} else if (s->n) {
		unregister_kprobes(s->ps, s->n);
	}
	t0 = ktime_get_ns() - t0;
	for (i = 0; i < s->nr_extra; i++)
		unregister_kprobe(&s->extra[i]);
	kvfree(s->kp);
	kvfree(s->rp);
	kvfree(s->ps);
	kvfree(s->extra);
	memset(s, 0, sizeof(*s));
	return t0;
}

/* The probed address of the set's @i-th site on @path. */
static void *kpb_set_addr(int path, unsigned int i)
{
	return path == KPB_INT3 ? kpb_body(KPB_FILL_BASE + i) :
				  kpb_site(KPB_FILL_BASE + i);
}

/* With KPB_SET_AGGR*: one probe of its own on each fired site. */
static int kpb_set_extra(int path, unsigned int n, bool on)
{
	struct kpb_set *s = &kpb_set;
	unsigned int i;
	int ret;

	s->extra = kvcalloc(DIV_ROUND_UP(n, KPB_FIRE_STRIDE), sizeof(*s->extra),
			    GFP_KERNEL);
	if (!s->extra)
		return -ENOMEM;
	for (i = 0; i < n; i += KPB_FIRE_STRIDE) {
		s->extra[s->nr_extra].addr = kpb_set_addr(path, i);
		s->extra[s->nr_extra].pre_handler = kpb_pre;
		s->extra[s->nr_extra].flags = on ? 0 : KPROBE_FLAG_DISABLED;
		ret = register_kprobe(&s->extra[s->nr_extra]);
		if (ret)
			return ret;
		s->nr_extra++;
	}
	return 0;
}

static int kpb_set_register(int path, unsigned int n, int mode)
{
	struct kpb_set *s = &kpb_set;
	unsigned int flags = mode == KPB_SET_OFF ? KPROBE_FLAG_DISABLED : 0;
	struct kretprobe **rps;
	unsigned int i;

	if (path == KPB_KRETPROBE) {
		s->rp = kvcalloc(n, sizeof(*s->rp), GFP_KERNEL);
		if (!s->rp)
			return -ENOMEM;
		for (i = 0; i < n; i++) {
			s->rp[i].kp.addr = kpb_set_addr(path, i);
			s->rp[i].kp.flags = flags;
			s->rp[i].handler = kpb_ret;
			s->rp[i].maxactive = 4;
		}
		rps = (struct kretprobe **)s->ps;
		for (i = 0; i < n; i++)
			rps[i] = &s->rp[i];
		return register_kretprobes(rps, n);
	}
	s->kp = kvcalloc(n, sizeof(*s->kp), GFP_KERNEL);
	if (!s->kp)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		s->kp[i].addr = kpb_set_addr(path, i);
		s->kp[i].pre_handler = kpb_pre;
		if (mode == KPB_SET_MIXED && i % 2)
			s->kp[i].post_handler = kpb_post;
		s->kp[i].flags = flags;
		s->ps[i] = &s->kp[i];
	}
	return register_kprobes(s->ps, n);
}

static int kpb_cmd_set(int path, unsigned int n, int mode)
{
	struct kpb_set *s = &kpb_set;
	unsigned int i;
	u64 t0;
	int ret;

	if (path == KPB_OPT || (path == KPB_KRETPROBE && mode == KPB_SET_MIXED))
		return -EINVAL;
	if (!n || n > KPB_FILL_MAX)
		return -ERANGE;
	if (kpb_nr_fill)
		return -EBUSY;
	kpb_set_unregister();
	s->ps = kvmalloc_array(n, sizeof(*s->ps), GFP_KERNEL);
	ret = s->ps ? 0 : -ENOMEM;
	if (!ret && (mode == KPB_SET_AGGR || mode == KPB_SET_AGGR_OFF))
		ret = kpb_set_extra(path, n, mode == KPB_SET_AGGR);
	if (ret) {
		kpb_set_unregister();
		return ret;
	}
	s->path = path;
	t0 = ktime_get_ns();
	ret = kpb_set_register(path, n, mode);
	t0 = ktime_get_ns() - t0;
	if (ret) {
		kpb_set_unregister();
		return ret;
	}
	/* The kretprobes' array held kretprobe pointers: entry probes again. */
	for (i = 0; s->rp && i < n; i++)
		s->ps[i] = &s->rp[i].kp;
	s->n = n;
	s->armed = mode == KPB_SET_OFF ? 0 : n;
	s->extra_on = mode == KPB_SET_AGGR;
	snprintf(kpb_result, sizeof(kpb_result),
		 "set path=%s n=%u register_ns=%llu\n", kpb_path_name[path], n, t0);
	return 0;
}

/*
 * Arms the set: one probe at a time with enable_kprobe() (stopping after
 * @budget_ms), or all with one enable_kprobes() call.
 */
static int kpb_cmd_arm(bool batch, unsigned int budget_ms)
{
	struct kpb_set *s = &kpb_set;
	u64 t0, deadline;
	unsigned int i;
	int ret = 0;

	if (!s->n)
		return -ENOENT;
	if (s->armed)
		return -EBUSY;
	t0 = ktime_get_ns();
	deadline = t0 + (u64)budget_ms * NSEC_PER_MSEC;
	if (batch) {
		ret = enable_kprobes(s->ps, s->n);
		s->armed = ret ? 0 : s->n;
	} else {
		for (i = 0; i < s->n && !ret; i++) {
			ret = enable_kprobe(s->ps[i]);
			s->armed += !ret;
			if (ktime_get_ns() > deadline)
				break;
			cond_resched();
		}
	}
	snprintf(kpb_result, sizeof(kpb_result),
		 "arm path=%s mode=%s n=%u armed=%u ns=%llu\n",
		 kpb_path_name[s->path], batch ? "batch" : "one", s->n, s->armed,
		 ktime_get_ns() - t0);
	return ret;
}

/* Disarms the armed probes of the set, one at a time or in one batch. */
static int kpb_cmd_disarm(bool batch)
{
	struct kpb_set *s = &kpb_set;
	unsigned int i, done = 0;
	u64 t0;
	int ret = 0;

	if (!s->n)
		return -ENOENT;
	t0 = ktime_get_ns();
	if (batch && s->armed) {
		ret = disable_kprobes(s->ps, s->armed);
		done = ret ? 0 : s->armed;
	} else {
		for (i = 0; i < s->armed && !ret; i++) {
			ret = disable_kprobe(s->ps[i]);
			done += !ret;
			cond_resched();
		}
	}
	s->armed -= done;
	snprintf(kpb_result, sizeof(kpb_result),
		 "disarm path=%s mode=%s disarmed=%u ns=%llu\n",
		 kpb_path_name[s->path], batch ? "batch" : "one", done,
		 ktime_get_ns() - t0);
	return ret;
}

/*
 * Calls every 16th function of the set: the probes that are armed, and
 * only those, fire (unless kprobes are switched off as a whole).  Arming
 * one at a time goes in the set's order, so "expect" counts the calls of
 * the first s->armed functions, whatever the probes' flags say.  (After a
 * disarm that stopped half way, the armed ones are not the first: the
 * selftest fires "enabled" only right after arming.)  With aggr, each
 * call also hits the site's own probe.
 */
static int kpb_cmd_fire(void)
{
	struct kpb_set *s = &kpb_set;
	unsigned int i, calls = 0, expect = 0;
	unsigned long h0 = kpb_read_hits();

	for (i = 0; i < s->n; i += KPB_FIRE_STRIDE) {
		kpb_fns[KPB_FILL_BASE + i](i);
		calls++;
		expect += (i < s->armed) + s->extra_on;
	}
	snprintf(kpb_result, sizeof(kpb_result),
		 "fire calls=%u hits=%lu expect=%u\n",
		 calls, kpb_read_hits() - h0, expect);
	return 0;
}

#ifdef CONFIG_DYNAMIC_FTRACE_WITH_REGS
static void kpb_conflict_fn(unsigned long ip, unsigned long parent_ip,
			    struct ftrace_ops *op, struct ftrace_regs *fregs)
{
}

static struct ftrace_ops kpb_conflict_ops = {
	.func = kpb_conflict_fn,
	.flags = FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_IPMODIFY,
};

static bool kpb_conflict_on;

/*
 * Another ftrace user that may change the instruction pointer, on the set's
 * second site (the first one that "set ... mixed" gives a post_handler):
 * ftrace lets only one such user have a function.
 */
static int kpb_cmd_conflict(bool on)
{
	unsigned long ip = (unsigned long)kpb_site(KPB_FILL_BASE + 1);
	int ret = 0;

	/* The filter stays while the ops is off: kpb_conflict_free() frees it. */
	if (on && !kpb_conflict_on) {
		ret = ftrace_set_filter_ip(&kpb_conflict_ops, ip, 0, 1);
		if (!ret)
			ret = register_ftrace_function(&kpb_conflict_ops);
	} else if (!on && kpb_conflict_on) {
		ret = unregister_ftrace_function(&kpb_conflict_ops);
	}
	if (ret)
		return ret;
	kpb_conflict_on = on;
	snprintf(kpb_result, sizeof(kpb_result), "conflict %s at %ps\n",
		 on ? "on" : "off", (void *)ip);
	return 0;
}

static void kpb_conflict_free(void)
{
	ftrace_free_filter(&kpb_conflict_ops);
}
#else
static int kpb_cmd_conflict(bool on)
{
	return on ? -EOPNOTSUPP : 0;
}

static void kpb_conflict_free(void)
{
}
#endif

static struct task_struct *kpb_spinner;
static unsigned long kpb_spin_hits;

static int kpb_spin_fn(void *data)
{
	kpb_fn_t fn = kpb_fns[KPB_FILL_BASE];
	u32 x = 0;

	/* Opaque: the compiler could drop calls of a pure function. */
	OPTIMIZER_HIDE_VAR(fn);
	while (!kthread_should_stop()) {
		x = fn(x);
		cond_resched();
	}
	return 0;
}

/* Calls the set's first site in a loop, from a kernel thread. */
static int kpb_cmd_spin(bool on)
{
	if (on && !kpb_spinner) {
		kpb_spin_hits = kpb_read_hits();
		kpb_spinner = kthread_run(kpb_spin_fn, NULL, "kpb_spin");
		if (IS_ERR(kpb_spinner)) {
			int ret = PTR_ERR(kpb_spinner);

			kpb_spinner = NULL;
			return ret;
		}
	} else if (!on && kpb_spinner) {
		kthread_stop(kpb_spinner);
		kpb_spinner = NULL;
		kpb_spin_hits = kpb_read_hits() - kpb_spin_hits;
	}
	snprintf(kpb_result, sizeof(kpb_result), "spin %s hits=%lu\n",
		 on ? "on" : "off", on ? 0 : kpb_spin_hits);
	return 0;
}

static int kpb_cmd_unset(void)
{
	unsigned int n = kpb_set.n;
	u64 ns = kpb_set_unregister();

	snprintf(kpb_result, sizeof(kpb_result),
		 "unset n=%u unregister_ns=%llu\n", n, ns);
	return 0;
}

static void kpb_sample_probe(void *data, u64 value)
{
	kstats_record(kpb_sample_ks, value);
}

static int kpb_cmd_sample(const char *mode, unsigned int loops,
			  const char *name)
{
	bool record = !strcmp(mode, "record");
	bool attach = !strcmp(mode, "kstats");
	struct kstats *ks;
	unsigned int i, j;
	u64 t0;
	int ret = 0;

	if (!record && !attach && strcmp(mode, "off") && strcmp(mode, "hist"))
		return -EINVAL;
	ks = kpb_node(name);
	if (IS_ERR(ks))
		return PTR_ERR(ks);
	if (record || attach) {
		kpb_sample_ks = kstats_new("kpb-sample-data",
					   KSTATS_DEFAULT_FRAC_BITS);
		if (IS_ERR(kpb_sample_ks)) {
			ret = PTR_ERR(kpb_sample_ks);
			kpb_sample_ks = NULL;
			return ret;
		}
	}
	if (attach) {
		ret = register_trace_kpb_sample(kpb_sample_probe, NULL);
		if (ret)
			goto out;
	}
	for (i = 0; i < loops / KPB_BATCH; i++) {
		preempt_disable();
		t0 = ktime_get_ns();
		for (j = 0; j < KPB_BATCH; j++) {
			if (record)
				kstats_record(kpb_sample_ks, j);
			else
				trace_kpb_sample(j);
		}
		t0 = ktime_get_ns() - t0;
		preempt_enable();
		kstats_record(ks, div_u64(t0, KPB_BATCH));
		if (!(i & 63))
			cond_resched();
	}
	if (attach) {
		unregister_trace_kpb_sample(kpb_sample_probe, NULL);
		tracepoint_synchronize_unregister();
	}
	snprintf(kpb_result, sizeof(kpb_result),
		 "sample mode=%s loops=%u batch=%u node=%s\n",
		 mode, loops, KPB_BATCH, name);
out:
	kstats_delete(kpb_sample_ks);
	kpb_sample_ks = NULL;
	return ret;
}

static void kpb_clear(void)
{
	while (kpb_nr_nodes)
		kstats_delete(kpb_nodes[--kpb_nr_nodes]);
}

static int kpb_path(const char *name)
{
	int i;

	for (i = 0; i < KPB_NR_PATHS; i++)
		if (!strcmp(name, kpb_path_name[i]))
			return i;
	return -EINVAL;
}

static int kpb_command(char *buf)
{
	char verb[16], word[16], name[KSTATS_NAME_MAX + 1];
	char twin[KSTATS_NAME_MAX + 1];
	unsigned int a, b, d;
	int path, n;

	n = sscanf(buf, "%15s", verb);
	if (n != 1)
		return -EINVAL;
	if (!strcmp(verb, "fill") && sscanf(buf, "%*s %u", &a) == 1) {
		n = sscanf(buf, "%*s %*u %15s", word);
		if (n == 1 && strcmp(word, "arm"))
			return -EINVAL;
		return kpb_cmd_fill(a, n == 1);
	}
	if (!strcmp(verb, "fire"))
		return kpb_cmd_fire();
	if (!strcmp(verb, "unset"))
		return kpb_cmd_unset();
	if ((!strcmp(verb, "conflict") || !strcmp(verb, "spin")) &&
	    sscanf(buf, "%*s %15s", word) == 1) {
		if (strcmp(word, "on") && strcmp(word, "off"))
			return -EINVAL;
		if (!strcmp(verb, "spin"))
			return kpb_cmd_spin(!strcmp(word, "on"));
		return kpb_cmd_conflict(!strcmp(word, "on"));
	}
	if ((!strcmp(verb, "arm") || !strcmp(verb, "disarm")) &&
	    sscanf(buf, "%*s %15s", word) == 1) {
		if (strcmp(word, "one") && strcmp(word, "batch"))
			return -EINVAL;
		if (!strcmp(verb, "disarm"))
			return kpb_cmd_disarm(!strcmp(word, "batch"));
		if (sscanf(buf, "%*s %*s %u", &a) != 1)
			a = UINT_MAX;
		return kpb_cmd_arm(!strcmp(word, "batch"), a);
	}
	if (!strcmp(verb, "optwait"))
		return kpb_cmd_optwait();
	if (!strcmp(verb, "unhot")) {
		kpb_unhot_all();
		snprintf(kpb_result, sizeof(kpb_result), "unhot\n");
		return 0;
	}
	if (!strcmp(verb, "clear")) {
		kpb_clear();
		snprintf(kpb_result, sizeof(kpb_result), "clear\n");
		return 0;
	}
	if (!strcmp(verb, "empty") && sscanf(buf, "%*s %u", &a) == 1)
		return kpb_cmd_empty(a);
	if (!strcmp(verb, "set") && sscanf(buf, "%*s %15s %u", word, &a) == 2) {
		path = kpb_path(word);
		if (path < 0)
			return path;
		if (sscanf(buf, "%*s %*s %*u %15s", word) != 1)
			return kpb_cmd_set(path, a, KPB_SET_OFF);
		n = match_string(kpb_set_mode_name, ARRAY_SIZE(kpb_set_mode_name), word);
		return n < 0 ? -EINVAL : kpb_cmd_set(path, a, n);
	}
	if (!strcmp(verb, "sample") &&
	    sscanf(buf, "%*s %15s %u %63s", word, &a, name) == 3)
		return kpb_cmd_sample(word, a, name);
	if (!strcmp(verb, "hot") && sscanf(buf, "%*s %15s %u", word, &a) == 2) {
		path = kpb_path(word);
		return path < 0 ? path : kpb_cmd_hot(path, a);
	}
	if (!strcmp(verb, "churn") &&
	    sscanf(buf, "%*s %15s %u %u %u %63s", word, &a, &b, &d, name) == 5) {
		path = kpb_path(word);
		return path < 0 ? path : kpb_cmd_churn(path, a, b, d, name);
	}
	if (!strcmp(verb, "hit") &&
	    sscanf(buf, "%*s %15s %u %u %63s", word, &a, &b, name) == 4) {
		path = kpb_path(word);
		n = sscanf(buf, "%*s %*s %*u %*u %*s %63s", twin);
		if (path < 0)
			return path;
		return kpb_cmd_hit(path, a, b, name, n == 1 ? twin : NULL);
	}
	return -EINVAL;
}

static ssize_t kpb_ctl_write(struct file *file, const char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	char buf[128];
	int ret;

	if (!count || count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	mutex_lock(&kpb_mutex);
	kpb_result[0] = '\0';
	ret = kpb_command(buf);
	mutex_unlock(&kpb_mutex);
	return ret ? ret : count;
}

static ssize_t kpb_result_read(struct file *file, char __user *ubuf,
			       size_t count, loff_t *ppos)
{
	char buf[sizeof(kpb_result)];
	size_t len;

	mutex_lock(&kpb_mutex);
	len = strscpy(buf, kpb_result, sizeof(buf));
	mutex_unlock(&kpb_mutex);
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

static const struct file_operations kpb_ctl_fops = {
	.owner = THIS_MODULE,
	.write = kpb_ctl_write,
};

static const struct file_operations kpb_result_fops = {
	.owner = THIS_MODULE,
	.read = kpb_result_read,
	.llseek = default_llseek,
};

static int __init kpb_init(void)
{
	kpb_dir = debugfs_create_dir("test_kprobe_bench", NULL);
	debugfs_create_file("ctl", 0200, kpb_dir, NULL, &kpb_ctl_fops);
	debugfs_create_file("result", 0444, kpb_dir, NULL, &kpb_result_fops);
	pr_info("%zu probe sites, %u per hot set, up to %zu fill probes\n",
		KPB_NR_FN, KPB_HOT_MAX, KPB_FILL_MAX);
	return 0;
}

static void __exit kpb_exit(void)
{
	debugfs_remove(kpb_dir);
	mutex_lock(&kpb_mutex);
	kpb_cmd_spin(false);
	kpb_cmd_conflict(false);
	kpb_conflict_free();
	kpb_unhot_all();
	kpb_set_unregister();
	kpb_unfill_to(0);
	kvfree(kpb_fill);
	kpb_clear();
	mutex_unlock(&kpb_mutex);
}

module_init(kpb_init);
module_exit(kpb_exit);

MODULE_DESCRIPTION("Mass-probe kprobe hit cost benchmark, measured with kstats");
MODULE_LICENSE("GPL");
