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
 * steps when it can be reached (CONFIG_KUNIT).  Every TKC_FILL_EVERY
 * steps it grows or shrinks, in one call, a set of disabled "fill" probes
 * on up to 200 other functions to a random size, so that the index of the
 * kprobe table is resized while the hot sites are hit.
 *
 * Checked:
 *  - no handler runs for a probe that was never registered or whose
 *    unregistration has returned, and (on x86) no handler runs for a hit
 *    at another address than its probe's;
 *  - after every step, one call of the target on the mutator's CPU runs
 *    the handler of each enabled probe at the site exactly once, and the
 *    handler of no other probe there;
 *  - after every change of the fill set, a call of each fill function
 *    runs no handler (the fill probes stay disabled).
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
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "kprobe_cache.h"

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
	if (kprobe_cache_switch(on))
		pr_warn("no memory to turn the lookup cache on\n");
}
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

/* The index's statistics are exported to modules only for KUnit too. */
#if IS_ENABLED(CONFIG_KUNIT)
#define TKC_INDEX_API	1

static void tkc_read_index(struct kprobe_index_stats *st)
{
	kprobe_index_read_stats(st);
}

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
#else
#define TKC_INDEX_API	0

static void tkc_read_index(struct kprobe_index_stats *st)
{
	memset(st, 0, sizeof(*st));
}
#endif

static unsigned long tkc_index_resizes0;

#define TKC_TARGETS	8
#define TKC_SITES	(2 * TKC_TARGETS)
#define TKC_SLOTS	3
#define TKC_BATCH_EVERY	64
#define TKC_FLIP_EVERY	256
#define TKC_FILL_EVERY	16
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

/*
 * The fill functions: probed (disabled) and called after every change of
 * the fill set, which must not run a handler.  Their bodies differ so
 * that they are not merged.
 */
#define TKC_FILL_FN(n)						\
static noinline int tkc_fill_fn##n(int x)			\
{								\
	return x * 3 + 0x##n;					\
}

TKC_FILL_FN(00) TKC_FILL_FN(01) TKC_FILL_FN(02) TKC_FILL_FN(03) TKC_FILL_FN(04)
TKC_FILL_FN(05) TKC_FILL_FN(06) TKC_FILL_FN(07) TKC_FILL_FN(08) TKC_FILL_FN(09)
TKC_FILL_FN(0a) TKC_FILL_FN(0b) TKC_FILL_FN(0c) TKC_FILL_FN(0d) TKC_FILL_FN(0e)
TKC_FILL_FN(0f) TKC_FILL_FN(10) TKC_FILL_FN(11) TKC_FILL_FN(12) TKC_FILL_FN(13)
TKC_FILL_FN(14) TKC_FILL_FN(15) TKC_FILL_FN(16) TKC_FILL_FN(17) TKC_FILL_FN(18)
TKC_FILL_FN(19) TKC_FILL_FN(1a) TKC_FILL_FN(1b) TKC_FILL_FN(1c) TKC_FILL_FN(1d)
TKC_FILL_FN(1e) TKC_FILL_FN(1f) TKC_FILL_FN(20) TKC_FILL_FN(21) TKC_FILL_FN(22)
TKC_FILL_FN(23) TKC_FILL_FN(24) TKC_FILL_FN(25) TKC_FILL_FN(26) TKC_FILL_FN(27)
TKC_FILL_FN(28) TKC_FILL_FN(29) TKC_FILL_FN(2a) TKC_FILL_FN(2b) TKC_FILL_FN(2c)
TKC_FILL_FN(2d) TKC_FILL_FN(2e) TKC_FILL_FN(2f) TKC_FILL_FN(30) TKC_FILL_FN(31)
TKC_FILL_FN(32) TKC_FILL_FN(33) TKC_FILL_FN(34) TKC_FILL_FN(35) TKC_FILL_FN(36)
TKC_FILL_FN(37) TKC_FILL_FN(38) TKC_FILL_FN(39) TKC_FILL_FN(3a) TKC_FILL_FN(3b)
TKC_FILL_FN(3c) TKC_FILL_FN(3d) TKC_FILL_FN(3e) TKC_FILL_FN(3f) TKC_FILL_FN(40)
TKC_FILL_FN(41) TKC_FILL_FN(42) TKC_FILL_FN(43) TKC_FILL_FN(44) TKC_FILL_FN(45)
TKC_FILL_FN(46) TKC_FILL_FN(47) TKC_FILL_FN(48) TKC_FILL_FN(49) TKC_FILL_FN(4a)
TKC_FILL_FN(4b) TKC_FILL_FN(4c) TKC_FILL_FN(4d) TKC_FILL_FN(4e) TKC_FILL_FN(4f)
TKC_FILL_FN(50) TKC_FILL_FN(51) TKC_FILL_FN(52) TKC_FILL_FN(53) TKC_FILL_FN(54)
TKC_FILL_FN(55) TKC_FILL_FN(56) TKC_FILL_FN(57) TKC_FILL_FN(58) TKC_FILL_FN(59)
TKC_FILL_FN(5a) TKC_FILL_FN(5b) TKC_FILL_FN(5c) TKC_FILL_FN(5d) TKC_FILL_FN(5e)
TKC_FILL_FN(5f) TKC_FILL_FN(60) TKC_FILL_FN(61) TKC_FILL_FN(62) TKC_FILL_FN(63)
TKC_FILL_FN(64) TKC_FILL_FN(65) TKC_FILL_FN(66) TKC_FILL_FN(67) TKC_FILL_FN(68)
TKC_FILL_FN(69) TKC_FILL_FN(6a) TKC_FILL_FN(6b) TKC_FILL_FN(6c) TKC_FILL_FN(6d)
TKC_FILL_FN(6e) TKC_FILL_FN(6f) TKC_FILL_FN(70) TKC_FILL_FN(71) TKC_FILL_FN(72)
TKC_FILL_FN(73) TKC_FILL_FN(74) TKC_FILL_FN(75) TKC_FILL_FN(76) TKC_FILL_FN(77)
TKC_FILL_FN(78) TKC_FILL_FN(79) TKC_FILL_FN(7a) TKC_FILL_FN(7b) TKC_FILL_FN(7c)
TKC_FILL_FN(7d) TKC_FILL_FN(7e) TKC_FILL_FN(7f) TKC_FILL_FN(80) TKC_FILL_FN(81)
TKC_FILL_FN(82) TKC_FILL_FN(83) TKC_FILL_FN(84) TKC_FILL_FN(85) TKC_FILL_FN(86)
TKC_FILL_FN(87) TKC_FILL_FN(88) TKC_FILL_FN(89) TKC_FILL_FN(8a) TKC_FILL_FN(8b)
TKC_FILL_FN(8c) TKC_FILL_FN(8d) TKC_FILL_FN(8e) TKC_FILL_FN(8f) TKC_FILL_FN(90)
TKC_FILL_FN(91) TKC_FILL_FN(92) TKC_FILL_FN(93) TKC_FILL_FN(94) TKC_FILL_FN(95)
TKC_FILL_FN(96) TKC_FILL_FN(97) TKC_FILL_FN(98) TKC_FILL_FN(99) TKC_FILL_FN(9a)
TKC_FILL_FN(9b) TKC_FILL_FN(9c) TKC_FILL_FN(9d) TKC_FILL_FN(9e) TKC_FILL_FN(9f)
TKC_FILL_FN(a0) TKC_FILL_FN(a1) TKC_FILL_FN(a2) TKC_FILL_FN(a3) TKC_FILL_FN(a4)
TKC_FILL_FN(a5) TKC_FILL_FN(a6) TKC_FILL_FN(a7) TKC_FILL_FN(a8) TKC_FILL_FN(a9)
TKC_FILL_FN(aa) TKC_FILL_FN(ab) TKC_FILL_FN(ac) TKC_FILL_FN(ad) TKC_FILL_FN(ae)
TKC_FILL_FN(af) TKC_FILL_FN(b0) TKC_FILL_FN(b1) TKC_FILL_FN(b2) TKC_FILL_FN(b3)
TKC_FILL_FN(b4) TKC_FILL_FN(b5) TKC_FILL_FN(b6) TKC_FILL_FN(b7) TKC_FILL_FN(b8)
TKC_FILL_FN(b9) TKC_FILL_FN(ba) TKC_FILL_FN(bb) TKC_FILL_FN(bc) TKC_FILL_FN(bd)
TKC_FILL_FN(be) TKC_FILL_FN(bf) TKC_FILL_FN(c0) TKC_FILL_FN(c1) TKC_FILL_FN(c2)
TKC_FILL_FN(c3) TKC_FILL_FN(c4) TKC_FILL_FN(c5) TKC_FILL_FN(c6) TKC_FILL_FN(c7)

static int (* const tkc_fill_fns[])(int x) = {
	tkc_fill_fn00, tkc_fill_fn01, tkc_fill_fn02, tkc_fill_fn03, tkc_fill_fn04,
	tkc_fill_fn05, tkc_fill_fn06, tkc_fill_fn07, tkc_fill_fn08, tkc_fill_fn09,
	tkc_fill_fn0a, tkc_fill_fn0b, tkc_fill_fn0c, tkc_fill_fn0d, tkc_fill_fn0e,
	tkc_fill_fn0f, tkc_fill_fn10, tkc_fill_fn11, tkc_fill_fn12, tkc_fill_fn13,
	tkc_fill_fn14, tkc_fill_fn15, tkc_fill_fn16, tkc_fill_fn17, tkc_fill_fn18,
	tkc_fill_fn19, tkc_fill_fn1a, tkc_fill_fn1b, tkc_fill_fn1c, tkc_fill_fn1d,
	tkc_fill_fn1e, tkc_fill_fn1f, tkc_fill_fn20, tkc_fill_fn21, tkc_fill_fn22,
	tkc_fill_fn23, tkc_fill_fn24, tkc_fill_fn25, tkc_fill_fn26, tkc_fill_fn27,
	tkc_fill_fn28, tkc_fill_fn29, tkc_fill_fn2a, tkc_fill_fn2b, tkc_fill_fn2c,
	tkc_fill_fn2d, tkc_fill_fn2e, tkc_fill_fn2f, tkc_fill_fn30, tkc_fill_fn31,
	tkc_fill_fn32, tkc_fill_fn33, tkc_fill_fn34, tkc_fill_fn35, tkc_fill_fn36,
	tkc_fill_fn37, tkc_fill_fn38, tkc_fill_fn39, tkc_fill_fn3a, tkc_fill_fn3b,
	tkc_fill_fn3c, tkc_fill_fn3d, tkc_fill_fn3e, tkc_fill_fn3f, tkc_fill_fn40,
	tkc_fill_fn41, tkc_fill_fn42, tkc_fill_fn43, tkc_fill_fn44, tkc_fill_fn45,
	tkc_fill_fn46, tkc_fill_fn47, tkc_fill_fn48, tkc_fill_fn49, tkc_fill_fn4a,
	tkc_fill_fn4b, tkc_fill_fn4c, tkc_fill_fn4d, tkc_fill_fn4e, tkc_fill_fn4f,
	tkc_fill_fn50, tkc_fill_fn51, tkc_fill_fn52, tkc_fill_fn53, tkc_fill_fn54,
	tkc_fill_fn55, tkc_fill_fn56, tkc_fill_fn57, tkc_fill_fn58, tkc_fill_fn59,
	tkc_fill_fn5a, tkc_fill_fn5b, tkc_fill_fn5c, tkc_fill_fn5d, tkc_fill_fn5e,
	tkc_fill_fn5f, tkc_fill_fn60, tkc_fill_fn61, tkc_fill_fn62, tkc_fill_fn63,
	tkc_fill_fn64, tkc_fill_fn65, tkc_fill_fn66, tkc_fill_fn67, tkc_fill_fn68,
	tkc_fill_fn69, tkc_fill_fn6a, tkc_fill_fn6b, tkc_fill_fn6c, tkc_fill_fn6d,
	tkc_fill_fn6e, tkc_fill_fn6f, tkc_fill_fn70, tkc_fill_fn71, tkc_fill_fn72,
	tkc_fill_fn73, tkc_fill_fn74, tkc_fill_fn75, tkc_fill_fn76, tkc_fill_fn77,
	tkc_fill_fn78, tkc_fill_fn79, tkc_fill_fn7a, tkc_fill_fn7b, tkc_fill_fn7c,
	tkc_fill_fn7d, tkc_fill_fn7e, tkc_fill_fn7f, tkc_fill_fn80, tkc_fill_fn81,
	tkc_fill_fn82, tkc_fill_fn83, tkc_fill_fn84, tkc_fill_fn85, tkc_fill_fn86,
	tkc_fill_fn87, tkc_fill_fn88, tkc_fill_fn89, tkc_fill_fn8a, tkc_fill_fn8b,
	tkc_fill_fn8c, tkc_fill_fn8d, tkc_fill_fn8e, tkc_fill_fn8f, tkc_fill_fn90,
	tkc_fill_fn91, tkc_fill_fn92, tkc_fill_fn93, tkc_fill_fn94, tkc_fill_fn95,
	tkc_fill_fn96, tkc_fill_fn97, tkc_fill_fn98, tkc_fill_fn99, tkc_fill_fn9a,
	tkc_fill_fn9b, tkc_fill_fn9c, tkc_fill_fn9d, tkc_fill_fn9e, tkc_fill_fn9f,
	tkc_fill_fna0, tkc_fill_fna1, tkc_fill_fna2, tkc_fill_fna3, tkc_fill_fna4,
	tkc_fill_fna5, tkc_fill_fna6, tkc_fill_fna7, tkc_fill_fna8, tkc_fill_fna9,
	tkc_fill_fnaa, tkc_fill_fnab, tkc_fill_fnac, tkc_fill_fnad, tkc_fill_fnae,
	tkc_fill_fnaf, tkc_fill_fnb0, tkc_fill_fnb1, tkc_fill_fnb2, tkc_fill_fnb3,
	tkc_fill_fnb4, tkc_fill_fnb5, tkc_fill_fnb6, tkc_fill_fnb7, tkc_fill_fnb8,
	tkc_fill_fnb9, tkc_fill_fnba, tkc_fill_fnbb, tkc_fill_fnbc, tkc_fill_fnbd,
	tkc_fill_fnbe, tkc_fill_fnbf, tkc_fill_fnc0, tkc_fill_fnc1, tkc_fill_fnc2,
	tkc_fill_fnc3, tkc_fill_fnc4, tkc_fill_fnc5, tkc_fill_fnc6, tkc_fill_fnc7,
};

#define TKC_FILL	ARRAY_SIZE(tkc_fill_fns)

static struct kprobe tkc_fill[TKC_FILL];
static struct kprobe *tkc_fill_kps[TKC_FILL];
static unsigned int tkc_nr_fill;
/* Handler runs of fill probes, which are never enabled: must stay 0. */
static atomic_long_t tkc_fill_hits;

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
	unsigned long fill_grows;
	unsigned long fill_shrinks;
	unsigned long fill_max;
	unsigned long fill_calls;
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

static int tkc_fill_pre(struct kprobe *kp, struct pt_regs *regs)
{
	atomic_long_inc(&tkc_fill_hits);
	return 0;
}

/*
 * Grow or shrink the fill set to @n disabled probes, in one
 * register_kprobes() or unregister_kprobes() call.  -ENOMEM leaves the
 * set as it was; any other error ends the run.
 */
static void tkc_refill(unsigned int n)
{
	unsigned int i, k = 0;
	int (*fn)(int x);
	int ret;

	if (n > tkc_nr_fill) {
		for (i = tkc_nr_fill; i < n; i++) {
			memset(&tkc_fill[i], 0, sizeof(tkc_fill[i]));
			tkc_fill[i].addr = (kprobe_opcode_t *)tkc_fill_fns[i];
			tkc_fill[i].pre_handler = tkc_fill_pre;
			tkc_fill[i].flags = KPROBE_FLAG_DISABLED;
			tkc_fill_kps[k++] = &tkc_fill[i];
		}
		ret = register_kprobes(tkc_fill_kps, k);
		if (ret == -ENOMEM) {
			tkc_st.nomem++;
			return;
		}
		if (ret && !tkc_error.err) {
			tkc_error.err = ret;
			tkc_error.call = "register_kprobes (fill)";
			return;
		}
		tkc_nr_fill = n;
		tkc_st.fill_grows++;
		tkc_st.fill_max = max_t(unsigned long, tkc_st.fill_max, n);
	} else if (n < tkc_nr_fill) {
		for (i = n; i < tkc_nr_fill; i++)
			tkc_fill_kps[k++] = &tkc_fill[i];
		unregister_kprobes(tkc_fill_kps, k);
		tkc_nr_fill = n;
		tkc_st.fill_shrinks++;
	}

	/*
	 * Call what the disabled probes sit on, none of which may fire; the
	 * pointers are read at run time, so that no call is optimized out.
	 */
	for (i = 0; i < tkc_nr_fill; i++) {
		fn = READ_ONCE(tkc_fill_fns[i]);
		fn(i);
	}
	tkc_st.fill_calls += tkc_nr_fill;
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

	if (it % TKC_FILL_EVERY == TKC_FILL_EVERY / 2)
		tkc_refill(tkc_rand(TKC_FILL + 1));

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
	pr_info("fill set grown %lu shrunk %lu times, up to %lu probes, %lu calls, fill handler runs %ld\n",
		tkc_st.fill_grows, tkc_st.fill_shrinks, tkc_st.fill_max,
		tkc_st.fill_calls, atomic_long_read(&tkc_fill_hits));
	if (TKC_INDEX_API) {
		struct kprobe_index_stats ix;

		tkc_read_index(&ix);
		pr_info("kprobe index resizes %lu, now %u slots\n",
			ix.resizes - tkc_index_resizes0, ix.slots);
	}
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
	if (TKC_INDEX_API) {
		struct kprobe_index_stats ix;

		tkc_read_index(&ix);
		tkc_index_resizes0 = ix.resizes;
	}
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
	tkc_refill(0);
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
	    atomic_long_read(&tkc_fill_hits) ||
	    tkc_st.mismatches || !tkc_st.iterations ||
	    (tkc_st.fill_grows && !tkc_st.fill_calls)) {
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
