// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the x86 kprobe single-step path where it meets faults,
 * reentry and NMIs:
 *
 *  - an int3 kprobe, with and without a post_handler, on an instruction
 *    that faults while it is single-stepped in its slot, hit from every
 *    online CPU at once;
 *  - the same instruction probed and hit from another kprobe's handler,
 *    so that it faults while single-stepped as KPROBE_REENTER;
 *  - a kprobe hit from NMIs sent to a CPU that keeps single-stepping
 *    other kprobes, some of the NMIs landing in a single-step.
 *
 * The faulting instruction is a load from user memory with an exception
 * table entry, as in every uaccess helper.  Such an instruction is never
 * boosted or optimized, so it is single-stepped.  When its user page is
 * mapped but not present, the page fault is handled and the probe is hit
 * a second time; when the page cannot be read, the fault is fixed up and
 * the load returns -EFAULT.  The counts of handler calls check both.
 */

#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/nmi.h>
#include <linux/mman.h>
#include <linux/sched/mm.h>
#include <linux/stringify.h>
#include <linux/unaligned.h>
#include <asm/apic.h>
#include <asm/asm.h>
#include <asm/nmi.h>
#include <asm/smap.h>

/* Pages per round: KSS_PAGES readable and untouched, KSS_PAGES PROT_NONE. */
#define KSS_PAGES	32
#define KSS_ROUNDS	4
#define KSS_MAX_CPUS	4
/* NMIs sent in the NMI case, and the longest it may run. */
#define KSS_NMIS	3000
#define KSS_NMI_MS	30000

/*
 * The displacements of the 7-byte NOPs that precede the probed
 * instructions, so that the test finds their addresses by reading its own
 * code instead of taking the address of a label inside a function.
 */
#define KSS_MARK_LOAD	0x6b737321
#define KSS_MARK_PAUSE	0x6b737322
#define KSS_POISON	0x6b73735f6b73735fUL
#define KSS_MARK(m)	".byte 0x0f, 0x1f, 0x80\n\t.long " __stringify(m) "\n"

/**
 * kss_load() - load a word from user memory
 * @uptr: the user address
 * @val: where to put the word (0 when the load faults)
 *
 * Return: 0, or -EFAULT if the load faulted and was fixed up.
 */
static noinline int kss_load(const unsigned long __user *uptr,
			     unsigned long *val)
{
	/* The pages the test loads from read as 0: this means a fault. */
	unsigned long v = KSS_POISON;

	stac();
	asm volatile(KSS_MARK(KSS_MARK_LOAD)
		     "1:	mov (%[ptr]), %[v]\n"
		     "2:\n"
		     _ASM_EXTABLE_UA(1b, 2b)
		     : [v] "+r" (v)
		     : [ptr] "r" (uptr)
		     : "memory");
	clac();
	if (v == KSS_POISON) {
		*val = 0;
		return -EFAULT;
	}
	*val = v;
	return 0;
}

/*
 * A PAUSE, probed in the NMI case.  Under QEMU's round-robin TCG, a PAUSE
 * hands the host thread to the other vCPU, which then sends its NMI:
 * executed in the probe's slot, it makes NMIs land in the single-step.
 */
static noinline void kss_pause(void)
{
	asm volatile(KSS_MARK(KSS_MARK_PAUSE) "pause" ::: "memory");
}

/* The address of the instruction after @mark in @fn, or NULL. */
static void *kss_find(const void *fn, u32 mark)
{
	const u8 *text = fn;
	int i;

	for (i = 0; i < 128; i++)
		if (text[i] == 0x0f && text[i + 1] == 0x1f && text[i + 2] == 0x80 &&
		    get_unaligned((const u32 *)(text + i + 3)) == mark)
			return (void *)(text + i + 7);
	return NULL;
}

/* The address of the load in kss_load(), or NULL. */
static void *kss_load_insn(void)
{
	return kss_find(kss_load, KSS_MARK_LOAD);
}

struct kss_probe {
	struct kprobe kp;
	atomic_t pre;
	atomic_t post;
	/* Loads made from the pre_handler, and how many did not fault. */
	atomic_t nested;
	atomic_t nested_bad;
};

static int kss_pre(struct kprobe *p, struct pt_regs *regs)
{
	atomic_inc(&container_of(p, struct kss_probe, kp)->pre);
	return 0;
}

NOKPROBE_SYMBOL(kss_pre);

static void kss_post(struct kprobe *p, struct pt_regs *regs,
		     unsigned long flags)
{
	atomic_inc(&container_of(p, struct kss_probe, kp)->post);
}

NOKPROBE_SYMBOL(kss_post);

static void kss_unregister(void *kp)
{
	unregister_kprobe(kp);
}

/*
 * Register @kp with the counting handlers (and a post_handler if @post),
 * to be unregistered when the test ends, however it ends.
 */
static int kss_register(struct kunit *test, struct kprobe *kp, bool post)
{
	int ret;

	if (!kp->pre_handler)
		kp->pre_handler = kss_pre;
	if (post)
		kp->post_handler = kss_post;
	ret = register_kprobe(kp);
	if (ret)
		return ret;
	return kunit_add_action_or_reset(test, kss_unregister, kp);
}

/*
 * The pre_handler of the outer probe of the reentry case: the probed
 * function's first argument is a user address, which it loads through
 * kss_load(), whose own probe is then hit as a reentry.  From int3
 * context the page fault cannot be handled, so the load must fail.
 */
static int kss_outer_pre(struct kprobe *p, struct pt_regs *regs)
{
	struct kss_probe *kss = container_of(p, struct kss_probe, kp);
	unsigned long v;

	atomic_inc(&kss->pre);
	atomic_inc(&kss->nested);
	if (kss_load((const unsigned long __user *)regs->di, &v) != -EFAULT)
		atomic_inc(&kss->nested_bad);
	return 0;
}

NOKPROBE_SYMBOL(kss_outer_pre);

/* Probed at its entry by an int3 kprobe (notrace: no ftrace call site). */
static noinline notrace int kss_outer(const unsigned long __user *uptr)
{
	return READ_ONCE(*(const int *)&uptr) & 1;
}

/* Called from the NMI handler; probed at its entry. */
static noinline notrace int kss_nmi_target(int x)
{
	return READ_ONCE(x) + 1;
}

/* An unreadable page of the KUnit thread's mm: loads from it fault. */
static const unsigned long __user *kss_none;

enum kss_mode { KSS_DIRECT, KSS_REENTER };

struct kss_worker {
	struct task_struct *task;
	struct mm_struct *mm;
	struct completion done;
	enum kss_mode mode;
	/* Loads that succeeded, loads that faulted for good, and the rest. */
	unsigned int ok;
	unsigned int efault;
	unsigned int bad;
	/* The NMI case: loop until this is set, calling kss_pause() too. */
	bool *stop;
	unsigned int pauses;
};

/*
 * One round: map KSS_PAGES untouched readable pages followed by KSS_PAGES
 * unreadable ones, and load from each page once.
 */
static void kss_round(struct kss_worker *w)
{
	unsigned long base, v;
	int i, ret;

	base = vm_mmap(NULL, 0, 2 * KSS_PAGES * PAGE_SIZE, PROT_READ,
		       MAP_ANONYMOUS | MAP_PRIVATE, 0);
	if (IS_ERR_VALUE(base)) {
		w->bad++;
		return;
	}
	if (vm_mmap(NULL, base + KSS_PAGES * PAGE_SIZE, KSS_PAGES * PAGE_SIZE,
		    PROT_NONE, MAP_ANONYMOUS | MAP_PRIVATE | MAP_FIXED, 0) !=
	    base + KSS_PAGES * PAGE_SIZE) {
		w->bad++;
		goto out;
	}
	for (i = 0; i < 2 * KSS_PAGES; i++) {
		const unsigned long __user *uptr =
			(const unsigned long __user *)(base + i * PAGE_SIZE);

		if (w->mode == KSS_REENTER) {
			kss_outer(uptr);
			continue;
		}
		ret = kss_load(uptr, &v);
		if (i < KSS_PAGES && !ret && !v)
			w->ok++;
		else if (i >= KSS_PAGES && ret == -EFAULT)
			w->efault++;
		else
			w->bad++;
	}
out:
	vm_munmap(base, 2 * KSS_PAGES * PAGE_SIZE);
}

static int kss_worker_fn(void *data)
{
	struct kss_worker *w = data;
	int r;

	kthread_use_mm(w->mm);
	if (w->stop) {
		/*
		 * No mapping changes here: their TLB shootdowns would make
		 * this CPU wait for the NMI sender.
		 */
		while (!READ_ONCE(*w->stop)) {
			unsigned long v;

			for (r = 0; r < 64; r++)
				kss_pause();
			w->pauses += 64;
			for (r = 0; r < 16; r++) {
				if (kss_load(kss_none, &v) == -EFAULT)
					w->efault++;
				else
					w->bad++;
			}
			cond_resched();
		}
	} else {
		for (r = 0; r < KSS_ROUNDS; r++)
			kss_round(w);
	}
	kthread_unuse_mm(w->mm);
	complete(&w->done);
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
	return 0;
}

/* Give the KUnit thread an mm with an unreadable page, and return it. */
static struct mm_struct *kss_mm(struct kunit *test)
{
	unsigned long addr;

	addr = kunit_vm_mmap(test, NULL, 0, PAGE_SIZE, PROT_NONE,
			     MAP_ANONYMOUS | MAP_PRIVATE, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR_VALUE(addr));
	KUNIT_ASSERT_NE(test, addr, 0);
	KUNIT_ASSERT_NOT_NULL(test, current->mm);
	kss_none = (const unsigned long __user *)addr;
	return current->mm;
}

/* Run one worker per online CPU (at most KSS_MAX_CPUS) and add up. */
static void kss_run_workers(struct mm_struct *mm, enum kss_mode mode,
			    unsigned int *ok, unsigned int *efault,
			    unsigned int *bad, unsigned int *n,
			    struct kunit *test)
{
	struct kss_worker w[KSS_MAX_CPUS] = {};
	int cpu, i, nw = 0;

	for_each_online_cpu(cpu) {
		if (nw == KSS_MAX_CPUS)
			break;
		w[nw].mm = mm;
		w[nw].mode = mode;
		init_completion(&w[nw].done);
		w[nw].task = kthread_run_on_cpu(kss_worker_fn, &w[nw], cpu,
						"kss/%u");
		if (IS_ERR(w[nw].task)) {
			KUNIT_FAIL(test, "no worker thread for CPU %d", cpu);
			break;
		}
		nw++;
	}
	*ok = *efault = *bad = 0;
	for (i = 0; i < nw; i++) {
		wait_for_completion(&w[i].done);
		kthread_stop(w[i].task);
		*ok += w[i].ok;
		*efault += w[i].efault;
		*bad += w[i].bad;
	}
	*n = nw;
}

/*
 * The probed load faults while single-stepped, on every CPU at once: a
 * not-present page is faulted in and the load runs again through the
 * probe (two hits), an unreadable page is fixed up (one hit).
 */
static void kss_fault_case(struct kunit *test, bool post)
{
	unsigned int ok, efault, bad, n;
	struct kss_probe *kss;
	struct mm_struct *mm;
	unsigned long v;

	kss = kunit_kzalloc(test, sizeof(*kss), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, kss);
	kss->kp.addr = kss_load_insn();
	KUNIT_ASSERT_NOT_NULL(test, kss->kp.addr);
	mm = kss_mm(test);
	KUNIT_ASSERT_EQ(test, kss_register(test, &kss->kp, post), 0);

	kss_run_workers(mm, KSS_DIRECT, &ok, &efault, &bad, &n, test);
	/* The next hit on this CPU must still work. */
	KUNIT_EXPECT_EQ(test, kss_load(kss_none, &v), -EFAULT);
	kunit_release_action(test, kss_unregister, &kss->kp);

	kunit_info(test, "%u CPUs: %u loads, %u fixed-up faults, %u pre, %u post\n",
		   n, ok, efault, atomic_read(&kss->pre),
		   atomic_read(&kss->post));
	KUNIT_EXPECT_EQ(test, bad, 0);
	KUNIT_EXPECT_EQ(test, ok, n * KSS_ROUNDS * KSS_PAGES);
	KUNIT_EXPECT_EQ(test, efault, n * KSS_ROUNDS * KSS_PAGES);
	/* +1: the load from the KUnit thread itself. */
	KUNIT_EXPECT_EQ(test, (unsigned int)atomic_read(&kss->pre),
			2 * ok + efault + 1);
	KUNIT_EXPECT_EQ(test, (unsigned int)atomic_read(&kss->post),
			post ? ok : 0);
}

static void kss_fault(struct kunit *test)
{
	kss_fault_case(test, false);
}

static void kss_fault_post(struct kunit *test)
{
	kss_fault_case(test, true);
}

/*
 * The probed load is reached from another kprobe's pre_handler: its probe
 * is re-entered, single-stepped as KPROBE_REENTER, faults, and the fault
 * must give the outer probe back its state.
 */
static void kss_fault_reenter(struct kunit *test)
{
	unsigned int ok, efault, bad, n, calls;
	struct kss_probe *inner, *outer;
	unsigned long missed0, v;
	struct mm_struct *mm;

	inner = kunit_kzalloc(test, sizeof(*inner), GFP_KERNEL);
	outer = kunit_kzalloc(test, sizeof(*outer), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, inner);
	KUNIT_ASSERT_NOT_NULL(test, outer);
	inner->kp.addr = kss_load_insn();
	KUNIT_ASSERT_NOT_NULL(test, inner->kp.addr);
	outer->kp.addr = (kprobe_opcode_t *)kss_outer;
	outer->kp.pre_handler = kss_outer_pre;
	mm = kss_mm(test);
	KUNIT_ASSERT_EQ(test, kss_register(test, &inner->kp, true), 0);
	KUNIT_ASSERT_EQ(test, kss_register(test, &outer->kp, true), 0);
	missed0 = inner->kp.nmissed;

	kss_run_workers(mm, KSS_REENTER, &ok, &efault, &bad, &n, test);
	calls = n * KSS_ROUNDS * 2 * KSS_PAGES;

	kunit_release_action(test, kss_unregister, &outer->kp);
	/* The inner probe still works on its own: one fixed-up fault. */
	KUNIT_EXPECT_EQ(test, kss_load(kss_none, &v), -EFAULT);
	kunit_release_action(test, kss_unregister, &inner->kp);

	kunit_info(test, "%u CPUs: %u calls, outer pre %u post %u, inner missed %lu\n",
		   n, calls, atomic_read(&outer->pre), atomic_read(&outer->post),
		   inner->kp.nmissed - missed0);
	KUNIT_EXPECT_EQ(test, bad, 0);
	KUNIT_EXPECT_EQ(test, (unsigned int)atomic_read(&outer->pre), calls);
	KUNIT_EXPECT_EQ(test, (unsigned int)atomic_read(&outer->post), calls);
	KUNIT_EXPECT_EQ(test, (unsigned int)atomic_read(&outer->nested), calls);
	KUNIT_EXPECT_EQ(test, atomic_read(&outer->nested_bad), 0);
	/* Re-entered: counted as missed, its handlers not called. */
	KUNIT_EXPECT_EQ(test, inner->kp.nmissed - missed0, (unsigned long)calls);
	KUNIT_EXPECT_EQ(test, atomic_read(&inner->pre), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&inner->post), 0);
}

/* The NMI case's state, read by the NMI handler and the sender. */
static struct {
	int cpu;
	bool armed;
	struct kprobe *ss;	/* the probe single-stepped on that CPU */
	atomic_t nmis;
	atomic_t in_slot;	/* NMIs that interrupted its single-step */
	int sent;
	struct completion sent_all;
} kss_nmi;

static int kss_nmi_handler(unsigned int type, struct pt_regs *regs)
{
	unsigned long slot;

	if (!READ_ONCE(kss_nmi.armed) || smp_processor_id() != kss_nmi.cpu)
		return NMI_DONE;
	atomic_inc(&kss_nmi.nmis);
	slot = (unsigned long)kss_nmi.ss->ainsn.insn;
	if (regs->ip >= slot && regs->ip < slot + MAX_INSN_SIZE)
		atomic_inc(&kss_nmi.in_slot);
	kss_nmi_target(regs->ip & 1);
	return NMI_HANDLED;
}

NOKPROBE_SYMBOL(kss_nmi_handler);

/* Bound to another CPU: sends KSS_NMIS NMIs to kss_nmi.cpu. */
static int kss_nmi_sender(void *unused)
{
	unsigned long end = jiffies + msecs_to_jiffies(KSS_NMI_MS);
	int i;

	while (kss_nmi.sent < KSS_NMIS && time_before(jiffies, end)) {
		__apic_send_IPI_mask(cpumask_of(kss_nmi.cpu), NMI_VECTOR);
		kss_nmi.sent++;
		for (i = 0; i < 256; i++)
			cpu_relax();
		if (!(kss_nmi.sent % 64))
			cond_resched();
	}
	complete(&kss_nmi.sent_all);
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
	return 0;
}

static void kss_nmi_disarm(void *unused)
{
	WRITE_ONCE(kss_nmi.armed, false);
	unregister_nmi_handler(NMI_LOCAL, "kss_kunit");
}

/*
 * NMIs hit a kprobe while the CPU they interrupt keeps hitting
 * single-stepped kprobes (one on a PAUSE, one on a load that faults):
 * every NMI must either run the probe's handlers or count as missed, and
 * the interrupted probes must not notice.
 */
static void kss_nmi_reenter(struct kunit *test)
{
	struct kss_probe *ss, *nmi, *ps;
	struct task_struct *sender;
	struct kss_worker *w;
	unsigned long missed0;
	bool stop = false;
	int scpu;

	if (num_online_cpus() < 2)
		kunit_skip(test, "needs two online CPUs");
	ss = kunit_kzalloc(test, sizeof(*ss), GFP_KERNEL);
	nmi = kunit_kzalloc(test, sizeof(*nmi), GFP_KERNEL);
	ps = kunit_kzalloc(test, sizeof(*ps), GFP_KERNEL);
	w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ps);
	KUNIT_ASSERT_NOT_NULL(test, ss);
	KUNIT_ASSERT_NOT_NULL(test, nmi);
	KUNIT_ASSERT_NOT_NULL(test, w);
	ss->kp.addr = kss_load_insn();
	KUNIT_ASSERT_NOT_NULL(test, ss->kp.addr);
	ps->kp.addr = kss_find(kss_pause, KSS_MARK_PAUSE);
	KUNIT_ASSERT_NOT_NULL(test, ps->kp.addr);
	nmi->kp.addr = (kprobe_opcode_t *)kss_nmi_target;
	w->mm = kss_mm(test);
	KUNIT_ASSERT_EQ(test, kss_register(test, &ss->kp, true), 0);
	KUNIT_ASSERT_EQ(test, kss_register(test, &ps->kp, true), 0);
	KUNIT_ASSERT_EQ(test, kss_register(test, &nmi->kp, true), 0);
	missed0 = nmi->kp.nmissed;

	/* The worker on the first online CPU, the sender on the next. */
	kss_nmi.cpu = cpumask_first(cpu_online_mask);
	scpu = cpumask_next(kss_nmi.cpu, cpu_online_mask);
	kss_nmi.ss = &ps->kp;
	kss_nmi.sent = 0;
	atomic_set(&kss_nmi.nmis, 0);
	atomic_set(&kss_nmi.in_slot, 0);
	init_completion(&kss_nmi.sent_all);
	WRITE_ONCE(kss_nmi.armed, true);
	KUNIT_ASSERT_EQ(test, register_nmi_handler(NMI_LOCAL, kss_nmi_handler,
						   0, "kss_kunit"), 0);
	KUNIT_ASSERT_EQ(test, 0,
			kunit_add_action_or_reset(test, kss_nmi_disarm, NULL));

	w->stop = &stop;
	init_completion(&w->done);
	w->task = kthread_run_on_cpu(kss_worker_fn, w, kss_nmi.cpu, "kss/%u");
	KUNIT_ASSERT_FALSE(test, IS_ERR(w->task));
	sender = kthread_run_on_cpu(kss_nmi_sender, NULL, scpu, "kss_nmi/%u");
	if (!IS_ERR(sender)) {
		wait_for_completion(&kss_nmi.sent_all);
		kthread_stop(sender);
	}
	WRITE_ONCE(stop, true);
	wait_for_completion(&w->done);
	kthread_stop(w->task);
	KUNIT_ASSERT_FALSE(test, IS_ERR(sender));
	/* Let the last NMI in flight arrive before the handler goes. */
	msleep(20);
	kunit_release_action(test, kss_nmi_disarm, NULL);
	kunit_release_action(test, kss_unregister, &nmi->kp);
	kunit_release_action(test, kss_unregister, &ps->kp);
	kunit_release_action(test, kss_unregister, &ss->kp);

	kunit_info(test, "%d NMIs sent, %d received, %d during a single-step; probe in NMI: %d hits, %lu missed; %u pauses, %u faults\n",
		   kss_nmi.sent, atomic_read(&kss_nmi.nmis),
		   atomic_read(&kss_nmi.in_slot), atomic_read(&nmi->pre),
		   nmi->kp.nmissed - missed0, w->pauses, w->efault);
	KUNIT_EXPECT_EQ(test, w->bad, 0);
	KUNIT_EXPECT_GT(test, atomic_read(&kss_nmi.nmis), 0);
	/* Every NMI hit the probe once: handled, or missed as a reentry. */
	KUNIT_EXPECT_EQ(test, atomic_read(&nmi->pre) + nmi->kp.nmissed - missed0,
			(unsigned long)atomic_read(&kss_nmi.nmis));
	KUNIT_EXPECT_EQ(test, atomic_read(&nmi->post), atomic_read(&nmi->pre));
	/* The interrupted probes ran their handlers once per hit. */
	KUNIT_EXPECT_EQ(test, (unsigned int)atomic_read(&ss->pre), w->efault);
	KUNIT_EXPECT_EQ(test, (unsigned int)atomic_read(&ss->post), 0);
	KUNIT_EXPECT_EQ(test, (unsigned int)atomic_read(&ps->pre), w->pauses);
	KUNIT_EXPECT_EQ(test, (unsigned int)atomic_read(&ps->post), w->pauses);
	/* Some NMIs must have landed in the single-step itself. */
	KUNIT_EXPECT_GT(test, atomic_read(&kss_nmi.in_slot), 0);
}

static struct kunit_case kss_cases[] = {
	KUNIT_CASE_SLOW(kss_fault),
	KUNIT_CASE_SLOW(kss_fault_post),
	KUNIT_CASE_SLOW(kss_fault_reenter),
	KUNIT_CASE_SLOW(kss_nmi_reenter),
	{}
};

static struct kunit_suite kss_suite = {
	.name = "x86_kprobes_ss",
	.test_cases = kss_cases,
};

kunit_test_suite(kss_suite);

MODULE_DESCRIPTION("KUnit tests of x86 kprobe single-stepping with faults, reentry and NMIs");
MODULE_LICENSE("GPL");
