// SPDX-License-Identifier: GPL-2.0
/*
 * kstats - per-CPU log-linear histograms of u64 samples, shown in debugfs.
 *
 * A histogram splits the u64 range into buckets, one per power of two, and
 * each bucket into 2^frac_bits equal slots.  Every CPU owns a private array
 * of slots, so recording a sample is two this_cpu operations on memory no
 * other CPU writes.  Readers stream the debugfs file line by line from the
 * live arrays; they never stop the writers.
 *
 * See Documentation/trace/kstats.rst.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ctype.h>
#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/kprobes.h>
#include <linux/kstats.h>
#include <linux/list.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <kunit/visibility.h>

#include "kstats_internal.h"

/*
 * Slots whose bucket is above this keep their sum shifted right by
 * (bucket - KSTATS_SUM_SHIFT_MIN), so that every addend is below
 * 2^(KSTATS_SUM_SHIFT_MIN + frac_bits) <= 2^25 and a slot's sum on one CPU
 * cannot wrap before 2^39 samples.  The error this adds to the average is
 * below 2^-19 of the value.
 */
#define KSTATS_SUM_SHIFT_MIN	20

struct kstats_slot {
	u64 count;
	u64 sum;
};

struct kstats {
	/* Read on every kstats_record(): keep together, first. */
	struct kstats_slot __percpu *slots;
	unsigned int nr_slots;
	u8 frac_bits;
	bool active;

	struct dentry *dentry;
	struct list_head list;
	char name[KSTATS_NAME_MAX + 1];
};

static DEFINE_MUTEX(kstats_mutex);
static LIST_HEAD(kstats_list);
static struct dentry *kstats_root;

VISIBLE_IF_KUNIT unsigned int kstats_nr_slots(unsigned int frac_bits)
{
	/*
	 * Buckets 1..(64 - frac_bits) hold 2^frac_bits slots each, and the
	 * values below 2^frac_bits take one slot each (bucket 0); one more
	 * slot catches anything out of range.
	 */
	return ((64 - frac_bits + 1) << frac_bits) + 1;
}
EXPORT_SYMBOL_IF_KUNIT(kstats_nr_slots);

static __always_inline unsigned int __kstats_slot(u64 value,
						  unsigned int frac_bits)
{
	unsigned int bucket = fls64(value >> frac_bits);
	u64 mask = (1U << frac_bits) - 1;

	if (!bucket)
		return value;
	return (bucket << frac_bits) | ((value >> (bucket - 1)) & mask);
}

#if IS_ENABLED(CONFIG_KUNIT)
unsigned int kstats_value_to_slot(u64 value, unsigned int frac_bits)
{
	return __kstats_slot(value, frac_bits);
}
EXPORT_SYMBOL_IF_KUNIT(kstats_value_to_slot);
#endif

static __always_inline unsigned int
kstats_sum_shift(unsigned int slot, unsigned int frac_bits)
{
	unsigned int bucket = slot >> frac_bits;

	return bucket > KSTATS_SUM_SHIFT_MIN ? bucket - KSTATS_SUM_SHIFT_MIN : 0;
}

/**
 * kstats_record() - add one sample to a histogram
 * @ks: the histogram, from kstats_new(); NULL or an error pointer (a
 *	kstats_new() that failed) is a no-op
 * @value: the sample, e.g. a duration in ns
 *
 * Callable from any context, including hard interrupts: it takes no lock,
 * never sleeps and writes only the current CPU's slot.  Samples are dropped
 * while the histogram is stopped.
 *
 * From NMIs too on 64-bit architectures, whose this_cpu operations on u64
 * are single instructions.  Where they are not (i386 among them), an NMI
 * that records into a histogram while the CPU it interrupted is inside
 * kstats_record() for the same histogram can lose one of the two samples
 * from the slot's count or sum; nothing else is affected.
 */
void kstats_record(struct kstats *ks, u64 value)
{
	unsigned int slot;

	if (IS_ERR_OR_NULL(ks) || !READ_ONCE(ks->active))
		return;

	slot = __kstats_slot(value, ks->frac_bits);
	if (unlikely(slot >= ks->nr_slots))
		slot = ks->nr_slots - 1;

	/* Keep count and sum of one sample on the same CPU. */
	preempt_disable_notrace();
	this_cpu_inc(ks->slots[slot].count);
	this_cpu_add(ks->slots[slot].sum,
		     value >> kstats_sum_shift(slot, ks->frac_bits));
	preempt_enable_notrace();
}
EXPORT_SYMBOL_GPL(kstats_record);
NOKPROBE_SYMBOL(kstats_record);

static void kstats_reset(struct kstats *ks)
{
	int cpu;

	for_each_possible_cpu(cpu)
		memset(per_cpu_ptr(ks->slots, cpu), 0,
		       ks->nr_slots * sizeof(struct kstats_slot));
}

static u64 kstats_avg(u64 sum, u64 count, unsigned int shift)
{
	return count ? div64_u64(sum, count) << shift : 0;
}

/* Print "p" as a fraction with six decimals, without floating point. */
static void kstats_print_line(struct seq_file *m, unsigned int slot,
			      const char *what, unsigned int cpu, u64 count,
			      u64 avg, u64 cum, u64 total)
{
	u64 ppm = total ? mul_u64_u64_div_u64(min(cum, total), 1000000,
					      total) : 0;
	u32 frac;
	u64 whole = div_u64_rem(ppm, 1000000, &frac);

	seq_printf(m, "slot %-3u %-4s %-4u count %8llu avg %8llu p %llu.%06u\n",
		   slot, what, cpu, count, avg, whole, frac);
}

/*
 * The file is read as a stream of lines, one per (slot, CPU) with samples
 * and one per slot for all CPUs, from the live per-CPU arrays: the memory
 * a reader takes is the seq_file buffer and this iterator, whatever the
 * number of CPUs.  A CPU line is computed from that CPU's array alone, in
 * one pass, so its count and fraction agree.  The CPUS lines carry the
 * running count over all CPUs; samples recorded while the file is read can
 * make it overtake the total taken when reading started, so that total is
 * raised when it does and the fraction never passes 1.
 */
static bool kstats_iter_cpus_line(const struct kstats_iter *it)
{
	/* Signed: -1, before the first CPU of a slot, is not past the last. */
	return it->cpu >= (int)nr_cpu_ids;
}

/* Sets the CPUS line of it->slot; false if no CPU has samples there. */
static bool kstats_iter_fill_cpus(struct kstats_iter *it)
{
	u64 count = 0, sum = 0;
	unsigned int with = 0;
	int cpu;

	for_each_possible_cpu(cpu) {
		struct kstats_slot *s = per_cpu_ptr(it->ks->slots, cpu) +
					it->slot;
		u64 c = READ_ONCE(s->count);

		if (!c)
			continue;
		count += c;
		sum += READ_ONCE(s->sum);
		with++;
	}
	if (!count)
		return false;
	it->count = count;
	it->sum = sum;
	it->with = with;
	it->cum += count;
	if (it->cum > it->total)
		it->total = it->cum;
	return true;
}

/* Moves to the next line with samples; false at the end. */
static bool kstats_iter_advance(struct kstats_iter *it)
{
	struct kstats *ks = it->ks;

	while (it->slot < ks->nr_slots) {
		if (kstats_iter_cpus_line(it)) {
			it->slot++;
			it->cpu = -1;
			continue;
		}
		it->cpu = cpumask_next(it->cpu, cpu_possible_mask);
		if (kstats_iter_cpus_line(it)) {
			if (kstats_iter_fill_cpus(it))
				return true;
			continue;
		}
		if (READ_ONCE(per_cpu_ptr(ks->slots, it->cpu)[it->slot].count))
			return true;
	}
	return false;
}

static void kstats_iter_rewind(struct kstats_iter *it)
{
	struct kstats *ks = it->ks;
	unsigned int slot;
	int cpu;

	it->total = 0;
	for_each_possible_cpu(cpu) {
		struct kstats_slot *s = per_cpu_ptr(ks->slots, cpu);

		for (slot = 0; slot < ks->nr_slots; slot++)
			it->total += READ_ONCE(s[slot].count);
	}
	it->cum = 0;
	it->slot = 0;
	it->cpu = -1;
	it->line = 0;
	it->more = kstats_iter_advance(it);
}

static void *kstats_seq_start(struct seq_file *m, loff_t *pos)
{
	struct kstats_iter *it = m->private;

	/*
	 * seq_file asks again for the line it could not fit, and for line 0
	 * after a seek; anything else is replayed from the start.
	 */
	if (!*pos || *pos < it->line)
		kstats_iter_rewind(it);
	while (it->more && it->line < *pos) {
		it->more = kstats_iter_advance(it);
		it->line++;
	}
	return it->more ? it : NULL;
}

static void *kstats_seq_next(struct seq_file *m, void *v, loff_t *pos)
{
	struct kstats_iter *it = v;

	it->more = kstats_iter_advance(it);
	it->line++;
	*pos = it->line;
	return it->more ? it : NULL;
}

static void kstats_seq_stop(struct seq_file *m, void *v)
{
}

static int kstats_seq_show(struct seq_file *m, void *v)
{
	struct kstats_iter *it = v;
	struct kstats *ks = it->ks;
	unsigned int shift = kstats_sum_shift(it->slot, ks->frac_bits);
	struct kstats_slot *s;
	u64 count, sum, cum = 0, total = 0;
	unsigned int slot;

	if (kstats_iter_cpus_line(it)) {
		kstats_print_line(m, it->slot, "CPUS", it->with, it->count,
				  kstats_avg(it->sum, it->count, shift),
				  it->cum, it->total);
		return 0;
	}

	s = per_cpu_ptr(ks->slots, it->cpu);
	count = READ_ONCE(s[it->slot].count);
	sum = READ_ONCE(s[it->slot].sum);
	for (slot = 0; slot < ks->nr_slots; slot++) {
		u64 c = slot == it->slot ? count : READ_ONCE(s[slot].count);

		total += c;
		if (slot <= it->slot)
			cum += c;
	}
	/* Reset since the line was found: nothing to show. */
	if (!count)
		return SEQ_SKIP;
	kstats_print_line(m, it->slot, "CPU", it->cpu, count,
			  kstats_avg(sum, count, shift), cum, total);
	return 0;
}

VISIBLE_IF_KUNIT const struct seq_operations kstats_seq_ops = {
	.start = kstats_seq_start,
	.next = kstats_seq_next,
	.stop = kstats_seq_stop,
	.show = kstats_seq_show,
};
EXPORT_SYMBOL_IF_KUNIT(kstats_seq_ops);

/**
 * kstats_command() - apply a command written to a histogram's file
 * @ks: the histogram
 * @cmd: "start", "stop" or "reset", in any case, maybe with one trailing
 *	newline; need not be NUL terminated
 * @len: number of bytes in @cmd
 *
 * Return: 0, or -EINVAL for anything else.
 */
VISIBLE_IF_KUNIT int kstats_command(struct kstats *ks, const char *cmd,
				    size_t len)
{
	char word[8];

	if (len && cmd[len - 1] == '\n')
		len--;
	if (!len || len >= sizeof(word))
		return -EINVAL;
	memcpy(word, cmd, len);
	word[len] = '\0';

	if (!strcasecmp(word, "start"))
		WRITE_ONCE(ks->active, true);
	else if (!strcasecmp(word, "stop"))
		WRITE_ONCE(ks->active, false);
	else if (!strcasecmp(word, "reset"))
		kstats_reset(ks);
	else
		return -EINVAL;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(kstats_command);

static int kstats_open(struct inode *inode, struct file *file)
{
	struct kstats_iter *it;

	it = __seq_open_private(file, &kstats_seq_ops, sizeof(*it));
	if (!it)
		return -ENOMEM;
	it->ks = inode->i_private;
	return 0;
}

static ssize_t kstats_write(struct file *file, const char __user *ubuf,
			    size_t count, loff_t *ppos)
{
	char cmd[8];
	int ret;

	if (!count || count >= sizeof(cmd))
		return -EINVAL;
	if (copy_from_user(cmd, ubuf, count))
		return -EFAULT;
	ret = kstats_command(file_inode(file)->i_private, cmd, count);
	return ret ? ret : count;
}

static const struct file_operations kstats_fops = {
	.owner = THIS_MODULE,
	.open = kstats_open,
	.read = seq_read,
	.write = kstats_write,
	.release = seq_release_private,
	.llseek = seq_lseek,
};

static bool kstats_name_valid(const char *name)
{
	size_t len = strnlen(name, KSTATS_NAME_MAX + 1);
	size_t i;

	/* Names starting with '_' are kept for kstats' own files. */
	if (!len || len > KSTATS_NAME_MAX || name[0] == '_' ||
	    !strcmp(name, ".") || !strcmp(name, ".."))
		return false;
	for (i = 0; i < len; i++)
		if (!isgraph(name[i]) || name[i] == '/')
			return false;
	return true;
}

static struct kstats *kstats_find(const char *name)
{
	struct kstats *ks;

	lockdep_assert_held(&kstats_mutex);
	list_for_each_entry(ks, &kstats_list, list)
		if (!strcmp(ks->name, name))
			return ks;
	return NULL;
}

/**
 * kstats_new() - create a histogram and its file kstats/@name in debugfs
 * @name: file name: 1 to %KSTATS_NAME_MAX printable characters, no '/' or
 *	spaces, not starting with '_'
 * @frac_bits: each power of two is split in 2^@frac_bits slots, 0 to
 *	%KSTATS_MAX_FRAC_BITS; the relative width of a slot is 2^-@frac_bits
 *
 * The histogram starts active.  Memory: 16 bytes per slot per possible
 * CPU, ((65 - @frac_bits) << @frac_bits) + 1 slots (7.8 KiB per CPU for
 * @frac_bits = 3).
 *
 * Context: process context, may sleep.
 * Return: the histogram, or ERR_PTR(-EINVAL) for a bad name or
 * @frac_bits, ERR_PTR(-EEXIST) if @name is taken, ERR_PTR(-ENOMEM).
 */
struct kstats *kstats_new(const char *name, u8 frac_bits)
{
	struct kstats *ks;
	int ret;

	if (!name || frac_bits > KSTATS_MAX_FRAC_BITS ||
	    !kstats_name_valid(name))
		return ERR_PTR(-EINVAL);

	ks = kzalloc(sizeof(*ks), GFP_KERNEL);
	if (!ks)
		return ERR_PTR(-ENOMEM);
	strscpy(ks->name, name);
	ks->frac_bits = frac_bits;
	ks->nr_slots = kstats_nr_slots(frac_bits);
	/* Aligned to its size: no slot straddles two cache lines. */
	ks->slots = __alloc_percpu(ks->nr_slots * sizeof(struct kstats_slot),
				   sizeof(struct kstats_slot));
	if (!ks->slots) {
		ret = -ENOMEM;
		goto err_free;
	}

	mutex_lock(&kstats_mutex);
	if (kstats_find(name)) {
		mutex_unlock(&kstats_mutex);
		ret = -EEXIST;
		goto err_free;
	}
	if (!kstats_root)
		kstats_root = debugfs_create_dir("kstats", NULL);
	ks->active = true;
	ks->dentry = debugfs_create_file(name, 0644, kstats_root, ks,
					 &kstats_fops);
	list_add_tail(&ks->list, &kstats_list);
	mutex_unlock(&kstats_mutex);
	return ks;

err_free:
	free_percpu(ks->slots);
	kfree(ks);
	return ERR_PTR(ret);
}
EXPORT_SYMBOL_GPL(kstats_new);

static void kstats_free(struct kstats *ks)
{
	/* Waits for readers and writers of the file to leave. */
	debugfs_remove(ks->dentry);
	free_percpu(ks->slots);
	kfree(ks);
}

/**
 * kstats_delete() - remove a histogram and its debugfs file
 * @ks: the histogram, from kstats_new(); NULL is a no-op
 *
 * The caller makes sure that nobody calls kstats_record() on @ks any more.
 *
 * Context: process context, may sleep.
 */
void kstats_delete(struct kstats *ks)
{
	if (IS_ERR_OR_NULL(ks))
		return;
	mutex_lock(&kstats_mutex);
	list_del(&ks->list);
	mutex_unlock(&kstats_mutex);
	kstats_free(ks);
}
EXPORT_SYMBOL_GPL(kstats_delete);

static int __init kstats_init(void)
{
	mutex_lock(&kstats_mutex);
	if (!kstats_root)
		kstats_root = debugfs_create_dir("kstats", NULL);
	mutex_unlock(&kstats_mutex);
	return 0;
}

static void __exit kstats_exit(void)
{
	struct kstats *ks, *tmp;

	/* Users hold a reference on this module; only strays are left. */
	list_for_each_entry_safe(ks, tmp, &kstats_list, list) {
		pr_warn("removing leftover node %s\n", ks->name);
		list_del(&ks->list);
		kstats_free(ks);
	}
	debugfs_remove(kstats_root);
	kstats_root = NULL;
}

module_init(kstats_init);
module_exit(kstats_exit);

MODULE_DESCRIPTION("Per-CPU log-linear histograms in debugfs");
MODULE_LICENSE("GPL");
