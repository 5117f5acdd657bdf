// SPDX-License-Identifier: GPL-2.0
/*
 * kstats - per-CPU log-linear histograms of u64 samples, shown in debugfs.
 *
 * A histogram splits the u64 range into buckets, one per power of two, and
 * each bucket into 2^frac_bits equal slots.  Every CPU owns a private array
 * of slots, so recording a sample is two this_cpu operations on memory no
 * other CPU writes.  Readers take a snapshot of all CPUs when they open the
 * debugfs file and print it; they never stop the writers.
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

/* Worst case length of one output line, with margin. */
#define KSTATS_LINE_MAX		128

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
 * @ks: the histogram, from kstats_new(); NULL is a no-op
 * @value: the sample, e.g. a duration in ns
 *
 * Callable from any context, including hard interrupts and NMIs: it takes
 * no lock, never sleeps and writes only the current CPU's slot.  Samples
 * are dropped while the histogram is stopped.
 */
void kstats_record(struct kstats *ks, u64 value)
{
	unsigned int slot;

	if (!ks || !READ_ONCE(ks->active))
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

/* Print "p" as a fraction with six decimals, without floating point. */
static int kstats_print_line(char *buf, unsigned int slot, const char *what,
			     unsigned int cpu, u64 count, u64 avg, u64 cum,
			     u64 total)
{
	u64 ppm = total ? mul_u64_u64_div_u64(cum, 1000000, total) : 0;
	u32 frac;
	u64 whole = div_u64_rem(ppm, 1000000, &frac);

	return scnprintf(buf, KSTATS_LINE_MAX,
			 "slot %-3u %-4s %-4u count %8llu avg %8llu p %llu.%06u\n",
			 slot, what, cpu, count, avg, whole, frac);
}

static u64 kstats_avg(u64 sum, u64 count, unsigned int shift)
{
	return count ? div64_u64(sum, count) << shift : 0;
}

/**
 * kstats_render() - print a snapshot of a histogram
 * @ks: the histogram
 *
 * For every slot with samples, one line per CPU that has samples in it and
 * one line for all CPUs.  The per-CPU arrays are copied first, so that the
 * cumulative fractions of one snapshot are consistent while other CPUs
 * keep recording.
 *
 * Return: the text (kvfree() it), or an ERR_PTR.
 */
VISIBLE_IF_KUNIT struct kstats_text *kstats_render(struct kstats *ks)
{
	unsigned int nr = ks->nr_slots, ncpus = 0, c, slot;
	struct kstats_text *text = ERR_PTR(-ENOMEM);
	size_t lines = nr, size, len = 0;
	struct kstats_slot *snap = NULL;
	u64 *total, *cum;
	int *cpus, cpu;

	cpus = kcalloc(num_possible_cpus(), sizeof(*cpus), GFP_KERNEL);
	/* Per snapshot CPU and, at index ncpus, over all CPUs. */
	total = kcalloc(2 * (num_possible_cpus() + 1), sizeof(*total),
			GFP_KERNEL);
	if (!cpus || !total)
		goto out;
	cum = total + num_possible_cpus() + 1;

	/* Only CPUs that have samples take room in the snapshot. */
	for_each_possible_cpu(cpu) {
		struct kstats_slot *s = per_cpu_ptr(ks->slots, cpu);

		for (slot = 0; slot < nr; slot++) {
			if (READ_ONCE(s[slot].count)) {
				cpus[ncpus++] = cpu;
				break;
			}
		}
	}

	if (ncpus) {
		snap = kvcalloc(size_mul(ncpus, nr), sizeof(*snap), GFP_KERNEL);
		if (!snap)
			goto out;
	}
	for (c = 0; c < ncpus; c++) {
		struct kstats_slot *s = per_cpu_ptr(ks->slots, cpus[c]);
		struct kstats_slot *d = snap + (size_t)c * nr;

		for (slot = 0; slot < nr; slot++) {
			d[slot].count = READ_ONCE(s[slot].count);
			d[slot].sum = READ_ONCE(s[slot].sum);
			total[c] += d[slot].count;
			if (d[slot].count)
				lines++;
		}
		total[ncpus] += total[c];
	}

	size = size_add(sizeof(*text), size_mul(lines, KSTATS_LINE_MAX));
	text = kvmalloc(size_add(size, 1), GFP_KERNEL);
	if (!text) {
		text = ERR_PTR(-ENOMEM);
		goto out;
	}

	for (slot = 0; slot < nr; slot++) {
		unsigned int shift = kstats_sum_shift(slot, ks->frac_bits);
		unsigned int with = 0;
		u64 count = 0, sum = 0;

		for (c = 0; c < ncpus; c++) {
			struct kstats_slot *d = snap + (size_t)c * nr + slot;

			if (!d->count)
				continue;
			cum[c] += d->count;
			len += kstats_print_line(text->buf + len, slot, "CPU",
						 cpus[c], d->count,
						 kstats_avg(d->sum, d->count,
							    shift),
						 cum[c], total[c]);
			count += d->count;
			sum += d->sum;
			with++;
		}
		if (!count)
			continue;
		cum[ncpus] += count;
		len += kstats_print_line(text->buf + len, slot, "CPUS", with,
					 count, kstats_avg(sum, count, shift),
					 cum[ncpus], total[ncpus]);
	}
	text->buf[len] = '\0';
	text->len = len;
out:
	kvfree(snap);
	kfree(total);
	kfree(cpus);
	return text;
}
EXPORT_SYMBOL_IF_KUNIT(kstats_render);

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
	struct kstats_text *text = kstats_render(inode->i_private);

	if (IS_ERR(text))
		return PTR_ERR(text);
	file->private_data = text;
	return 0;
}

static ssize_t kstats_read(struct file *file, char __user *ubuf, size_t count,
			   loff_t *ppos)
{
	struct kstats_text *text = file->private_data;

	return simple_read_from_buffer(ubuf, count, ppos, text->buf, text->len);
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

static int kstats_release(struct inode *inode, struct file *file)
{
	kvfree(file->private_data);
	return 0;
}

static const struct file_operations kstats_fops = {
	.owner = THIS_MODULE,
	.open = kstats_open,
	.read = kstats_read,
	.write = kstats_write,
	.release = kstats_release,
	.llseek = default_llseek,
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
	ks->slots = __alloc_percpu(ks->nr_slots * sizeof(struct kstats_slot),
				   __alignof__(struct kstats_slot));
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
