/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What lib/kstats.c needs of the kernel beyond tools/include, for building
 * it in user space on x86-64.  The per-CPU accesses of kstats_record() keep
 * the kernel's instructions: a per-CPU pointer is an offset into the CPU's
 * area, which %gs points to (set with arch_prctl()), and the preemption
 * count is a per-CPU word too (x86's __preempt_count), here the first one
 * of the area.  What kstats_record() does not use (debugfs, the mutex,
 * memory) is the simplest stand-in that keeps kstats_new() and the read
 * path working.
 */
#ifndef _KSTATS_SHIM_H
#define _KSTATS_SHIM_H

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/types.h>
#include <linux/compiler.h>
#include <linux/err.h>
#include <linux/export.h>
#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/types.h>

#define __init
#define __exit
#define __percpu
#define VISIBLE_IF_KUNIT static
#define EXPORT_SYMBOL_IF_KUNIT(sym) \
	static const void *kstats_shim_export_##sym __maybe_unused = &(sym)
#define NOKPROBE_SYMBOL(fname) \
	static const void *kstats_shim_nokprobe_##fname __maybe_unused = &(fname)
#define MODULE_DESCRIPTION(text) \
	static const char kstats_shim_description[] __maybe_unused = text
#define MODULE_LICENSE(text) \
	static const char kstats_shim_license[] __maybe_unused = text
#define THIS_MODULE NULL
#define module_init(fn) int (*kstats_shim_init)(void) = fn
#define module_exit(fn) void (*kstats_shim_exit)(void) = fn
#define lockdep_assert_held(lock) ((void)(lock))
#define pr_warn(fmt, ...) fprintf(stderr, fmt, ##__VA_ARGS__)

/* As x86-64's fls64(): bsr, with -1 preset for 0. */
static __always_inline int fls64(u64 x)
{
	long bitpos = -1;

	asm("bsrq %1,%q0" : "+r" (bitpos) : "rm" (x));
	return bitpos + 1;
}

static inline u64 div64_u64(u64 dividend, u64 divisor)
{
	return dividend / divisor;
}

static inline u64 div_u64_rem(u64 dividend, u32 divisor, u32 *remainder)
{
	*remainder = dividend % divisor;
	return dividend / divisor;
}

static inline u64 mul_u64_u64_div_u64(u64 a, u64 b, u64 c)
{
	return (__uint128_t)a * b / c;
}

static inline size_t kstats_shim_strscpy(char *dst, const char *src, size_t n)
{
	snprintf(dst, n, "%s", src);
	return strlen(dst);
}

#define strscpy(dst, src) kstats_shim_strscpy(dst, src, sizeof(dst))

/* One thread: a mutex is nothing. */
struct mutex {
	int unused;
};

#define DEFINE_MUTEX(name) struct mutex name
static inline void mutex_lock(struct mutex *lock)
{
}

static inline void mutex_unlock(struct mutex *lock)
{
}

#define GFP_KERNEL 0
static inline void *kzalloc(size_t size, int flags)
{
	return calloc(1, size);
}

#define kzalloc_obj(obj, ...) kzalloc(sizeof(obj), GFP_KERNEL)
static inline void kfree(const void *p)
{
	free((void *)p);
}

/*
 * Per-CPU areas: KSTATS_SHIM_CPUS of KSTATS_SHIM_AREA bytes.  The first
 * cache line of each holds the CPU's preemption count, so allocations
 * start at KSTATS_SHIM_FIRST: an offset of 0 would be a NULL per-CPU
 * pointer, and one in that line would share it with the count.
 */
#define KSTATS_SHIM_CPUS 2
#define KSTATS_SHIM_AREA (1024UL * 1024)
#define KSTATS_SHIM_FIRST 64
extern char *kstats_shim_areas;
extern unsigned long kstats_shim_next;
#define nr_cpu_ids KSTATS_SHIM_CPUS
#define cpu_possible_mask NULL
#define for_each_possible_cpu(cpu) \
	for ((cpu) = 0; (cpu) < KSTATS_SHIM_CPUS; (cpu)++)
static inline int cpumask_next(int n, const void *mask)
{
	return n + 1;
}

static inline void *kstats_shim_per_cpu(const void *ptr, int cpu)
{
	return kstats_shim_areas + cpu * KSTATS_SHIM_AREA + (unsigned long)ptr;
}

#define per_cpu_ptr(ptr, cpu) ((typeof(ptr))kstats_shim_per_cpu(ptr, cpu))
static inline void *__alloc_percpu(size_t size, size_t align)
{
	unsigned long off = (kstats_shim_next + align - 1) & ~(align - 1);

	if (off + size > KSTATS_SHIM_AREA)
		return NULL;
	kstats_shim_next = off + size;
	return (void *)off;
}

static inline void free_percpu(void *ptr)
{
}

/* x86-64's this_cpu_inc() and this_cpu_add() on a u64: one instruction. */
static __always_inline void kstats_shim_inc(u64 *pcp)
{
	asm volatile("incq %%gs:%0" : "+m" (*pcp));
}

static __always_inline void kstats_shim_add(u64 *pcp, u64 val)
{
	asm volatile("addq %1, %%gs:%0" : "+m" (*pcp) : "re" (val));
}

#define this_cpu_inc(pcp) kstats_shim_inc(&(pcp))
#define this_cpu_add(pcp, val) kstats_shim_add(&(pcp), val)

/*
 * x86's preempt_disable_notrace() and preempt_enable_notrace() on a
 * preemptible kernel: an increment of the count, and a decrement that
 * calls the scheduler when it reaches zero (never here: the count's
 * PREEMPT_NEED_RESCHED bit, inverted as on x86, stays set).
 */
void kstats_shim_resched(void);
static __always_inline void preempt_disable_notrace(void)
{
	asm volatile("incl %%gs:0" : : : "memory");
}

static __always_inline void preempt_enable_notrace(void)
{
	asm goto("decl %%gs:0\n\tje %l[resched]" : : : "memory", "cc" : resched);
	return;
resched:
	kstats_shim_resched();
}

/* seq_file, as far as the histogram's text goes. */
struct seq_file {
	char *buf;
	size_t size;
	size_t count;
	void *private;
};

struct seq_operations {
	void *(*start)(struct seq_file *m, loff_t *pos);
	void (*stop)(struct seq_file *m, void *v);
	void *(*next)(struct seq_file *m, void *v, loff_t *pos);
	int (*show)(struct seq_file *m, void *v);
};

#define SEQ_SKIP 1
static inline __printf(2, 3) void seq_printf(struct seq_file *m,
					      const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(m->buf + m->count, m->size - m->count, fmt, ap);
	va_end(ap);
	if (n > 0 && (size_t)n < m->size - m->count)
		m->count += n;
}

/* Files: kstats_new() creates none here, kstats_open() is never called. */
struct dentry;
struct inode {
	void *i_private;
};

struct file {
	struct inode *inode;
};

struct file_operations {
	void *owner;
	int (*open)(struct inode *inode, struct file *file);
	ssize_t (*read)(struct file *file, char __user *buf, size_t n,
			loff_t *pos);
	ssize_t (*write)(struct file *file, const char __user *buf, size_t n,
			 loff_t *pos);
	int (*release)(struct inode *inode, struct file *file);
	loff_t (*llseek)(struct file *file, loff_t offset, int whence);
};

static inline struct inode *file_inode(const struct file *file)
{
	return file->inode;
}

static inline struct dentry *debugfs_create_dir(const char *name,
						struct dentry *parent)
{
	return NULL;
}

static inline struct dentry *debugfs_create_file(const char *name, int mode,
						 struct dentry *parent,
						 void *data,
						 const struct file_operations *fops)
{
	return NULL;
}

static inline void debugfs_remove(struct dentry *dentry)
{
}

#define seq_read NULL
#define seq_lseek NULL
#define seq_release_private NULL
static inline void *__seq_open_private(struct file *file,
				       const struct seq_operations *ops,
				       int size)
{
	return NULL;
}

static inline unsigned long copy_from_user(void *to, const void __user *from,
					   unsigned long n)
{
	memcpy(to, from, n);
	return 0;
}

#endif /* _KSTATS_SHIM_H */
