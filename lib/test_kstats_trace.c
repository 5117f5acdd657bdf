// SPDX-License-Identifier: GPL-2.0
/*
 * Targets for the kstats run-time tracing selftest
 * (tools/testing/selftests/kstats/).
 *
 * Writing "MODE CALLS US THREADS" to /sys/kernel/debug/test_kstats_trace/run
 * starts THREADS kernel threads, spread over the online CPUs, that each make
 * CALLS calls of a target at the same time, and returns when all are done:
 *
 *   empty    kstats_test_empty(): does nothing (tracing overhead floor)
 *   sleep    kstats_test_sleep(): sleeps US microseconds
 *   migrate  kstats_test_sleep(): sleeps US/2, moves to another CPU,
 *            sleeps US/2
 *   recurse  kstats_test_recurse(): US levels deep (US is the depth)
 *   section  kstats_test_section_begin(), US microseconds of busy wait,
 *            kstats_test_section_end(); and the same between the
 *            trace events test_kstats_trace:kstats_test_begin and
 *            test_kstats_trace:kstats_test_end
 *
 * For sleep, migrate and section, the duration of every call measured by
 * the caller goes to the histogram kstats/test_kstats_trace-expected
 * (created afresh by each run), which the selftest compares with what
 * tracing recorded.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/kstats.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>

#define EXPECTED_NAME	"test_kstats_trace-expected"
#define MAX_THREADS	64
#define MAX_DEPTH	64

#define CREATE_TRACE_POINTS
#include "test_kstats_trace_events.h"

enum test_mode { T_EMPTY, T_SLEEP, T_MIGRATE, T_RECURSE, T_SECTION };

static const char * const test_mode_name[] = {
	[T_EMPTY] = "empty",
	[T_SLEEP] = "sleep",
	[T_MIGRATE] = "migrate",
	[T_RECURSE] = "recurse",
	[T_SECTION] = "section",
};

struct test_run {
	enum test_mode mode;
	unsigned int calls;
	unsigned int us;
	struct kstats *expected;
	struct completion done;
};

static DEFINE_MUTEX(test_mutex);
static struct dentry *test_dir;
static struct kstats *test_expected;
static unsigned int test_sink;

/*
 * The three functions below store different values so that the compiler
 * cannot fold them into one: each needs its own address to be probed.
 */
static noinline __noclone void kstats_test_empty(void)
{
	WRITE_ONCE(test_sink, 0);
}

static noinline __noclone void kstats_test_sleep(unsigned int us, bool migrate)
{
	int cpu;

	if (!migrate) {
		fsleep(us);
		return;
	}
	fsleep(us / 2);
	cpu = cpumask_any_but(cpu_online_mask, raw_smp_processor_id());
	if (cpu < nr_cpu_ids)
		set_cpus_allowed_ptr(current, cpumask_of(cpu));
	fsleep(us - us / 2);
}

static noinline __noclone unsigned int kstats_test_recurse(unsigned int depth)
{
	unsigned int ret = 1;

	if (depth > 1)
		ret += kstats_test_recurse(depth - 1);
	/* Uses the result after the call: no tail call, no loop. */
	WRITE_ONCE(test_sink, ret);
	return ret;
}

static noinline __noclone void kstats_test_section_begin(void)
{
	WRITE_ONCE(test_sink, 1);
}

static noinline __noclone void kstats_test_section_end(void)
{
	WRITE_ONCE(test_sink, 2);
}

static void test_one_call(struct test_run *run)
{
	u64 t0 = ktime_get_ns();

	switch (run->mode) {
	case T_EMPTY:
		kstats_test_empty();
		return;
	case T_SLEEP:
	case T_MIGRATE:
		kstats_test_sleep(run->us, run->mode == T_MIGRATE);
		break;
	case T_RECURSE:
		kstats_test_recurse(run->us);
		return;
	case T_SECTION:
		/* Both pairs bound the same busy wait, on one CPU. */
		preempt_disable();
		t0 = ktime_get_ns();
		trace_kstats_test_begin(run->us);
		kstats_test_section_begin();
		udelay(run->us);
		kstats_test_section_end();
		trace_kstats_test_end(run->us);
		preempt_enable();
		break;
	}
	kstats_record(run->expected, ktime_get_ns() - t0);
}

static int test_thread(void *arg)
{
	struct test_run *run = arg;
	unsigned int i;

	for (i = 0; i < run->calls; i++) {
		test_one_call(run);
		cond_resched();
	}
	/*
	 * Signal and exit from core kernel text: once the writer has seen
	 * every thread's completion the module may be unloaded, and a
	 * thread preempted on its way out of test_thread() would then run
	 * freed code.
	 */
	kthread_complete_and_exit(&run->done, 0);
}

static int test_start(struct test_run *run, unsigned int threads)
{
	struct task_struct *t;
	unsigned int i;
	int cpu = -1, ret = 0;

	init_completion(&run->done);
	for (i = 0; i < threads; i++) {
		cpu = cpumask_next_wrap(cpu, cpu_online_mask, -1, false);
		t = kthread_create(test_thread, run, "kstats_test/%u", i);
		if (IS_ERR(t)) {
			/* The threads already started still finish the run. */
			ret = PTR_ERR(t);
			break;
		}
		/* Start bound to a CPU; migrate mode moves it later. */
		set_cpus_allowed_ptr(t, cpumask_of(cpu));
		wake_up_process(t);
	}
	/* Each thread started completes once, as it exits. */
	while (i--)
		wait_for_completion(&run->done);
	return ret;
}

static ssize_t test_run_write(struct file *file, const char __user *ubuf,
			      size_t count, loff_t *ppos)
{
	struct test_run run = { };
	unsigned int threads;
	char buf[64], mode[16];
	int ret, i;

	if (!count || count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	if (sscanf(buf, "%15s %u %u %u", mode, &run.calls, &run.us,
		   &threads) != 4)
		return -EINVAL;
	ret = -EINVAL;
	for (i = 0; i < ARRAY_SIZE(test_mode_name); i++)
		if (!strcmp(mode, test_mode_name[i]))
			ret = i;
	if (ret < 0 || !threads || threads > MAX_THREADS ||
	    (ret == T_RECURSE && (!run.us || run.us > MAX_DEPTH)))
		return -EINVAL;
	run.mode = ret;

	mutex_lock(&test_mutex);
	kstats_delete(test_expected);
	test_expected = kstats_new(EXPECTED_NAME, KSTATS_DEFAULT_FRAC_BITS);
	if (IS_ERR(test_expected)) {
		ret = PTR_ERR(test_expected);
		test_expected = NULL;
	} else {
		run.expected = test_expected;
		ret = test_start(&run, threads);
	}
	mutex_unlock(&test_mutex);
	return ret ? ret : count;
}

static const struct file_operations test_run_fops = {
	.owner = THIS_MODULE,
	.write = test_run_write,
};

static int __init test_kstats_trace_init(void)
{
	test_dir = debugfs_create_dir("test_kstats_trace", NULL);
	debugfs_create_file("run", 0200, test_dir, NULL, &test_run_fops);
	return 0;
}

static void __exit test_kstats_trace_exit(void)
{
	debugfs_remove(test_dir);
	kstats_delete(test_expected);
}

module_init(test_kstats_trace_init);
module_exit(test_kstats_trace_exit);

MODULE_DESCRIPTION("Targets for the kstats run-time tracing selftest");
MODULE_LICENSE("GPL");
