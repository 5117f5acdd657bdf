// SPDX-License-Identifier: GPL-2.0
/*
 * kstats_trace - time functions, code sections and tracepoint pairs at run
 * time into kstats histograms, driven by commands written to
 * /sys/kernel/debug/kstats/_control:
 *
 *   trace S [bits B] [start X] [end Y] [maxactive M]
 *   remove S
 *
 * Function mode (no end) puts a kretprobe on X (default S).  The entry
 * handler stores the entry time in the kretprobe instance's own data, the
 * return handler records now - entry: every call carries its own start
 * time, so the sample stays right when the function sleeps, migrates,
 * recurses or runs on several CPUs at once, and no shared memory is
 * written on either side.
 *
 * Section mode (start X end Y, two functions) puts a kprobe on each and
 * records, per CPU, the time from a hit of X to the next hit of Y.
 * Tracepoint mode (X and Y trace events, named SYSTEM:EVENT) does the same
 * with a callback on each event.
 *
 * Every node S comes with GAP-S: per CPU, the time from the end of one
 * sample (return, Y) to the start of the next (entry, X).
 *
 * See Documentation/trace/kstats.rst.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/kprobes.h>
#include <linux/kstats.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/trace_events.h>
#include <linux/uaccess.h>

/* The longest command line, and the most a single write() may carry. */
#define KSTATS_CMD_MAX		1024
#define KSTATS_WRITE_MAX	4096

#define KSTATS_GAP_PREFIX	"GAP-"
#define KSTATS_TRACE_NAME_MAX	(KSTATS_NAME_MAX - (sizeof(KSTATS_GAP_PREFIX) - 1))

/* Same bound as kprobe_events' maxactive. */
#define KSTATS_MAXACTIVE_MAX	4096

#define KSTATS_MAX_WORDS	10

static unsigned int maxactive;
module_param(maxactive, uint, 0644);
MODULE_PARM_DESC(maxactive,
		 "default kretprobe instances per traced function (0: 16 per possible CPU, at least 256)");

enum kstats_trace_mode {
	KSTATS_TRACE_FUNCTION,
	KSTATS_TRACE_SECTION,
	KSTATS_TRACE_TRACEPOINT,
};

static const char * const kstats_trace_mode_name[] = {
	[KSTATS_TRACE_FUNCTION] = "function",
	[KSTATS_TRACE_SECTION] = "section",
	[KSTATS_TRACE_TRACEPOINT] = "tracepoint",
};

/* Per-CPU state of the section and tracepoint modes, and of GAP nodes. */
struct kstats_trace_pcpu {
	u64 start;	/* time of the last unmatched X hit, or 0 */
	u64 end;	/* time of the last end of a sample, or 0 */
};

struct kstats_tracer {
	struct list_head list;
	enum kstats_trace_mode mode;
	u8 bits;
	struct kstats *ks;
	struct kstats *gap;
	struct kstats_trace_pcpu __percpu *pcpu;

	struct kretprobe krp;		/* function */
	struct kprobe kp_start;		/* section */
	struct kprobe kp_end;
	struct trace_event_callback *ev_start;	/* tracepoint */
	struct trace_event_callback *ev_end;

	char name[KSTATS_NAME_MAX + 1];
	char *start;
	char *end;
};

/* Serialises commands and the tracer list. */
static DEFINE_MUTEX(kstats_trace_mutex);
static LIST_HEAD(kstats_tracers);
static struct dentry *kstats_dir;
static struct dentry *kstats_control;

static __always_inline u64 kstats_trace_now(void)
{
	/* Global and NMI safe: samples may start and end on different CPUs. */
	return ktime_get_mono_fast_ns();
}

/* A sample starts at @now on this CPU: close the gap since the last end. */
static __always_inline void kstats_trace_gap(struct kstats_tracer *kt, u64 now)
{
	u64 end = this_cpu_read(kt->pcpu->end);

	if (end && now > end)
		kstats_record(kt->gap, now - end);
}

static int kstats_entry_handler(struct kretprobe_instance *ri,
				struct pt_regs *regs)
{
	struct kstats_tracer *kt = container_of(get_kretprobe(ri),
						struct kstats_tracer, krp);
	u64 now = kstats_trace_now();

	kstats_trace_gap(kt, now);
	*(u64 *)ri->data = now;
	return 0;
}

static int kstats_return_handler(struct kretprobe_instance *ri,
				 struct pt_regs *regs)
{
	struct kstats_tracer *kt = container_of(get_kretprobe(ri),
						struct kstats_tracer, krp);
	u64 now = kstats_trace_now();
	u64 start = *(u64 *)ri->data;

	/* The fast clock may step back a little across CPUs: clamp at 0. */
	kstats_record(kt->ks, now > start ? now - start : 0);
	this_cpu_write(kt->pcpu->end, now);
	return 0;
}

/* Section and tracepoint modes: X and Y hits, both on this CPU. */
static __always_inline void kstats_trace_start(struct kstats_tracer *kt)
{
	u64 now = kstats_trace_now();

	kstats_trace_gap(kt, now);
	this_cpu_write(kt->pcpu->start, now);
}

static __always_inline void kstats_trace_end(struct kstats_tracer *kt)
{
	u64 now = kstats_trace_now();
	u64 start = this_cpu_read(kt->pcpu->start);

	/* A Y hit with no X hit before it on this CPU is not a sample. */
	if (!start)
		return;
	this_cpu_write(kt->pcpu->start, 0);
	kstats_record(kt->ks, now > start ? now - start : 0);
	this_cpu_write(kt->pcpu->end, now);
}

static int kstats_kprobe_start(struct kprobe *p, struct pt_regs *regs)
{
	kstats_trace_start(container_of(p, struct kstats_tracer, kp_start));
	return 0;
}

static int kstats_kprobe_end(struct kprobe *p, struct pt_regs *regs)
{
	kstats_trace_end(container_of(p, struct kstats_tracer, kp_end));
	return 0;
}

#ifdef CONFIG_EVENT_TRACING
/*
 * Trace events call these through a callback of the trace event's own
 * type: neither depends on the prototype of the event's tracepoint.
 */
static void kstats_event_start(void *data)
{
	kstats_trace_start(data);
}

static void kstats_event_end(void *data)
{
	kstats_trace_end(data);
}

/* @name is SYSTEM:EVENT, as tracefs writes it (set_event). */
static struct trace_event_callback *
kstats_event_register(const char *name, void (*func)(void *data), void *data)
{
	const char *colon = strchr(name, ':');
	char *system;
	struct trace_event_callback *cb;

	system = kstrndup(name, colon - name, GFP_KERNEL);
	if (!system)
		return ERR_PTR(-ENOMEM);
	cb = trace_event_callback_register(system, colon + 1, func, data);
	kfree(system);
	/* No such event is an unknown name, as for a symbol. */
	if (cb == ERR_PTR(-EINVAL))
		return ERR_PTR(-ENOENT);
	return cb;
}

static int kstats_tp_register(struct kstats_tracer *kt)
{
	/* Arm the end first: a start alone would only leave stale times. */
	kt->ev_end = kstats_event_register(kt->end, kstats_event_end, kt);
	if (IS_ERR(kt->ev_end))
		return PTR_ERR(kt->ev_end);
	kt->ev_start = kstats_event_register(kt->start, kstats_event_start,
					     kt);
	if (IS_ERR(kt->ev_start)) {
		trace_event_callback_unregister(kt->ev_end);
		return PTR_ERR(kt->ev_start);
	}
	return 0;
}

static void kstats_tp_unregister(struct kstats_tracer *kt)
{
	trace_event_callback_unregister(kt->ev_start);
	trace_event_callback_unregister(kt->ev_end);
}
#else
static int kstats_tp_register(struct kstats_tracer *kt)
{
	return -EOPNOTSUPP;
}

static void kstats_tp_unregister(struct kstats_tracer *kt)
{
}
#endif

static int kstats_tracer_register(struct kstats_tracer *kt,
				  unsigned int nr_active)
{
	int ret;

	switch (kt->mode) {
	case KSTATS_TRACE_FUNCTION:
		kt->krp.kp.symbol_name = kt->start;
		kt->krp.entry_handler = kstats_entry_handler;
		kt->krp.handler = kstats_return_handler;
		kt->krp.data_size = sizeof(u64);
		kt->krp.maxactive = nr_active;
		return register_kretprobe(&kt->krp);
	case KSTATS_TRACE_SECTION:
		kt->kp_start.symbol_name = kt->start;
		kt->kp_start.pre_handler = kstats_kprobe_start;
		kt->kp_end.symbol_name = kt->end;
		kt->kp_end.pre_handler = kstats_kprobe_end;
		ret = register_kprobe(&kt->kp_end);
		if (ret)
			return ret;
		ret = register_kprobe(&kt->kp_start);
		if (ret)
			unregister_kprobe(&kt->kp_end);
		return ret;
	case KSTATS_TRACE_TRACEPOINT:
		return kstats_tp_register(kt);
	}
	return -EINVAL;
}

/* After this returns no handler of @kt runs or will run. */
static void kstats_tracer_unregister(struct kstats_tracer *kt)
{
	switch (kt->mode) {
	case KSTATS_TRACE_FUNCTION:
		unregister_kretprobe(&kt->krp);
		break;
	case KSTATS_TRACE_SECTION:
		unregister_kprobe(&kt->kp_start);
		unregister_kprobe(&kt->kp_end);
		break;
	case KSTATS_TRACE_TRACEPOINT:
		kstats_tp_unregister(kt);
		break;
	}
}

/* Frees a tracer whose probes are not (or no longer) registered. */
static void kstats_tracer_free(struct kstats_tracer *kt)
{
	kstats_delete(kt->ks);
	kstats_delete(kt->gap);
	free_percpu(kt->pcpu);
	kfree(kt->start);
	kfree(kt->end);
	kfree(kt);
}

static struct kstats_tracer *kstats_tracer_find(const char *name)
{
	struct kstats_tracer *kt;

	lockdep_assert_held(&kstats_trace_mutex);
	list_for_each_entry(kt, &kstats_tracers, list)
		if (!strcmp(kt->name, name))
			return kt;
	return NULL;
}

static unsigned int kstats_default_maxactive(void)
{
	unsigned int n = READ_ONCE(maxactive);

	if (!n)
		n = max(256U, 16 * num_possible_cpus());
	return min_t(unsigned int, n, KSTATS_MAXACTIVE_MAX);
}

struct kstats_trace_args {
	const char *name;
	const char *start;
	const char *end;
	u8 bits;
	unsigned int maxactive;
};

/* A trace event is named SYSTEM:EVENT, both parts not empty. */
static bool kstats_is_tp(const char *name)
{
	const char *colon = strchr(name, ':');

	return colon && colon != name && colon[1] && !strchr(colon + 1, ':');
}

static int kstats_trace_add(const struct kstats_trace_args *a)
{
	char gap_name[KSTATS_NAME_MAX + 1];
	struct kstats_tracer *kt;
	bool tp_start, tp_end;
	int ret;

	if (strlen(a->name) > KSTATS_TRACE_NAME_MAX)
		return -ENAMETOOLONG;
	tp_start = kstats_is_tp(a->start);
	tp_end = a->end && kstats_is_tp(a->end);
	/* A ':' anywhere else: not a symbol, and not an event either. */
	if ((!tp_start && strchr(a->start, ':')) ||
	    (a->end && !tp_end && strchr(a->end, ':')))
		return -EINVAL;
	/* Both ends of one kind, two different ends, no kretprobe on a tp. */
	if (a->end && (tp_start != tp_end || !strcmp(a->start, a->end)))
		return -EINVAL;
	if (!a->end && tp_start)
		return -EINVAL;

	kt = kzalloc(sizeof(*kt), GFP_KERNEL);
	if (!kt)
		return -ENOMEM;
	strscpy(kt->name, a->name);
	kt->bits = a->bits;
	kt->mode = !a->end ? KSTATS_TRACE_FUNCTION :
		   tp_start ? KSTATS_TRACE_TRACEPOINT : KSTATS_TRACE_SECTION;
	kt->start = kstrdup(a->start, GFP_KERNEL);
	kt->end = a->end ? kstrdup(a->end, GFP_KERNEL) : NULL;
	kt->pcpu = alloc_percpu(struct kstats_trace_pcpu);
	if (!kt->start || (a->end && !kt->end) || !kt->pcpu) {
		ret = -ENOMEM;
		goto err_free;
	}

	mutex_lock(&kstats_trace_mutex);
	if (kstats_tracer_find(a->name)) {
		ret = -EEXIST;
		goto err_unlock;
	}
	snprintf(gap_name, sizeof(gap_name), KSTATS_GAP_PREFIX "%s", a->name);
	kt->ks = kstats_new(a->name, a->bits);
	if (IS_ERR(kt->ks)) {
		ret = PTR_ERR(kt->ks);
		kt->ks = NULL;
		goto err_unlock;
	}
	kt->gap = kstats_new(gap_name, a->bits);
	if (IS_ERR(kt->gap)) {
		ret = PTR_ERR(kt->gap);
		kt->gap = NULL;
		goto err_unlock;
	}
	ret = kstats_tracer_register(kt, a->maxactive);
	if (ret)
		goto err_unlock;
	list_add_tail(&kt->list, &kstats_tracers);
	mutex_unlock(&kstats_trace_mutex);
	return 0;

err_unlock:
	mutex_unlock(&kstats_trace_mutex);
err_free:
	kstats_tracer_free(kt);
	return ret;
}

static int kstats_trace_remove(const char *name)
{
	struct kstats_tracer *kt;

	mutex_lock(&kstats_trace_mutex);
	kt = kstats_tracer_find(name);
	if (!kt) {
		mutex_unlock(&kstats_trace_mutex);
		return -ENOENT;
	}
	/* Under the lock, so that the name is free again when it is left. */
	list_del(&kt->list);
	kstats_tracer_unregister(kt);
	kstats_tracer_free(kt);
	mutex_unlock(&kstats_trace_mutex);
	return 0;
}

/* Parses a number word of the command into @val, at most @max. */
static int kstats_parse_uint(const char *word, unsigned int max,
			     unsigned int *val)
{
	int ret = kstrtouint(word, 10, val);

	if (ret == -ERANGE || (!ret && *val > max))
		return -ERANGE;
	return ret;
}

/* Splits @line in place into at most @max words; -EINVAL if more. */
static int kstats_split(char *line, char **words, int max)
{
	int n = 0;
	char *w;

	while ((w = strsep(&line, " \t"))) {
		if (!*w)
			continue;
		if (n == max)
			return -EINVAL;
		words[n++] = w;
	}
	return n;
}

static int kstats_control_line(char *line)
{
	struct kstats_trace_args a = {
		.bits = KSTATS_DEFAULT_FRAC_BITS,
		.maxactive = kstats_default_maxactive(),
	};
	char *w[KSTATS_MAX_WORDS];
	unsigned int val;
	int n, i, ret;
	bool seen_bits = false, seen_max = false;

	n = kstats_split(line, w, KSTATS_MAX_WORDS);
	if (n < 2)
		return -EINVAL;
	if (!strcmp(w[0], "remove"))
		return n == 2 ? kstats_trace_remove(w[1]) : -EINVAL;
	if (strcmp(w[0], "trace"))
		return -EINVAL;

	a.name = w[1];
	for (i = 2; i < n; i += 2) {
		if (i + 1 == n)
			return -EINVAL;
		if (!strcmp(w[i], "bits") && !seen_bits) {
			ret = kstats_parse_uint(w[i + 1], KSTATS_MAX_FRAC_BITS,
						&val);
			if (ret)
				return ret;
			a.bits = val;
			seen_bits = true;
		} else if (!strcmp(w[i], "maxactive") && !seen_max) {
			ret = kstats_parse_uint(w[i + 1], KSTATS_MAXACTIVE_MAX,
						&val);
			if (ret)
				return ret;
			if (!val)
				return -ERANGE;
			a.maxactive = val;
			seen_max = true;
		} else if (!strcmp(w[i], "start") && !a.start) {
			a.start = w[i + 1];
		} else if (!strcmp(w[i], "end") && !a.end) {
			a.end = w[i + 1];
		} else {
			return -EINVAL;
		}
	}
	if (!a.start)
		a.start = a.name;
	/* maxactive sizes a kretprobe: only function mode has one. */
	if (seen_max && a.end)
		return -EINVAL;
	return kstats_trace_add(&a);
}

static ssize_t kstats_control_write(struct file *file, const char __user *ubuf,
				    size_t count, loff_t *ppos)
{
	char *buf, *line, *next;
	size_t i;
	int ret = 0;

	if (!count)
		return -EINVAL;
	if (count > KSTATS_WRITE_MAX)
		return -E2BIG;
	buf = memdup_user_nul(ubuf, count);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	/* Printable ASCII, tabs and newlines only. */
	for (i = 0; i < count; i++) {
		if ((buf[i] < ' ' || buf[i] > '~') && buf[i] != '\n' &&
		    buf[i] != '\t') {
			ret = -EINVAL;
			goto out;
		}
	}
	/* Check every line's length before running any of them. */
	for (line = buf; line; line = next) {
		next = strchr(line, '\n');
		if ((next ? next - line : strlen(line)) >= KSTATS_CMD_MAX) {
			ret = -E2BIG;
			goto out;
		}
		if (next)
			next++;
	}
	/*
	 * One command per line, run in order until one fails; the newline
	 * after the last one is optional.  An empty line is an error.
	 */
	if (buf[count - 1] == '\n')
		buf[count - 1] = '\0';
	for (line = buf; line && !ret; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		ret = kstats_control_line(line);
	}
out:
	kfree(buf);
	return ret ? ret : count;
}

static unsigned long kstats_tracer_missed(struct kstats_tracer *kt)
{
	switch (kt->mode) {
	case KSTATS_TRACE_FUNCTION:
		return kt->krp.nmissed + kt->krp.kp.nmissed;
	case KSTATS_TRACE_SECTION:
		return kt->kp_start.nmissed + kt->kp_end.nmissed;
	default:
		return 0;
	}
}

static int kstats_control_show(struct seq_file *m, void *v)
{
	struct kstats_tracer *kt;

	mutex_lock(&kstats_trace_mutex);
	list_for_each_entry(kt, &kstats_tracers, list) {
		seq_printf(m, "%s %s start %s", kt->name,
			   kstats_trace_mode_name[kt->mode], kt->start);
		if (kt->end)
			seq_printf(m, " end %s", kt->end);
		seq_printf(m, " bits %u", kt->bits);
		if (kt->mode == KSTATS_TRACE_FUNCTION)
			seq_printf(m, " maxactive %d", kt->krp.maxactive);
		seq_printf(m, " missed %lu\n", kstats_tracer_missed(kt));
	}
	mutex_unlock(&kstats_trace_mutex);
	return 0;
}

static int kstats_control_open(struct inode *inode, struct file *file)
{
	return single_open(file, kstats_control_show, NULL);
}

static const struct file_operations kstats_control_fops = {
	.owner = THIS_MODULE,
	.open = kstats_control_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.write = kstats_control_write,
	.release = single_release,
};

static int __init kstats_trace_init(void)
{
	/* kstats creates its directory when it loads, before this module. */
	kstats_dir = debugfs_lookup("kstats", NULL);
	if (!kstats_dir)
		return -ENODEV;
	kstats_control = debugfs_create_file("_control", 0600, kstats_dir,
					     NULL, &kstats_control_fops);
	return 0;
}

static void __exit kstats_trace_exit(void)
{
	struct kstats_tracer *kt, *tmp;

	/* No new command can start once the file is gone. */
	debugfs_remove(kstats_control);
	list_for_each_entry_safe(kt, tmp, &kstats_tracers, list) {
		list_del(&kt->list);
		kstats_tracer_unregister(kt);
		kstats_tracer_free(kt);
	}
	dput(kstats_dir);
}

module_init(kstats_trace_init);
module_exit(kstats_trace_exit);

MODULE_DESCRIPTION("Time functions, code sections and tracepoints into kstats");
MODULE_LICENSE("GPL");
