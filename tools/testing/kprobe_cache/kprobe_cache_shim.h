/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What kernel/kprobe_cache.c needs of the kernel beyond tools/include, for
 * building it in user space on x86-64, with one CPU.
 *
 * The per-CPU accesses keep the kernel's instructions: a per-CPU variable
 * is an ordinary variable, and this_cpu_*() reach it through %gs, whose
 * base is 0 in a Linux process, as x86-64 reaches a CPU's copy.
 * this_cpu_ptr() adds the CPU's offset, read through %gs as well (0 here).
 * Where the kernel patches a jump (the static key), the shim reads a
 * variable: a hit pays one load and one branch more than in the kernel.
 * What the lookups do not use (debugfs, the seq_file, the grace period)
 * is the simplest stand-in that keeps the file compiling and its
 * statistics readable.
 */
#ifndef _KPROBE_CACHE_SHIM_H
#define _KPROBE_CACHE_SHIM_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <asm/barrier.h>
#include <linux/build_bug.h>
#include <linux/compiler.h>
#include <linux/kernel.h>
#include <linux/types.h>

#define __init
#define __percpu
#define __user
#define VISIBLE_IF_KUNIT static
#define EXPORT_SYMBOL_IF_KUNIT(sym) \
	static const void *kpc_shim_export_##sym __maybe_unused = &(sym)
#define NOKPROBE_SYMBOL(fname) \
	static const void *kpc_shim_nokprobe_##fname __maybe_unused = &(fname)
#define pr_warn(fmt, ...) fprintf(stderr, fmt, ##__VA_ARGS__)
/* No KCSAN here: a data race is only annotated. */
#define data_race(expr) (expr)
/* synchronize_rcu(): tools/include's, empty (no other thread to wait for) */
#ifndef S16_MAX
#define S16_MAX 32767
#endif

/* One CPU. */
#define for_each_possible_cpu(cpu) for ((cpu) = 0; (cpu) < 1; (cpu)++)
#define cpu_to_node(cpu) ((void)(cpu), 0)
#define DEFINE_PER_CPU(type, name) __typeof__(type) name
#define DEFINE_PER_CPU_ALIGNED(type, name) __typeof__(type) name __aligned(64)

/* x86's this_cpu_off, 0 here; in a cache line of its own (see the key) */
extern unsigned long kpc_shim_this_cpu_off;

void kpc_shim_bad_size(void);

#define this_cpu_read(pcp)						\
({									\
	__typeof__(pcp) __v;						\
	asm volatile("mov %%gs:%1, %0" : "=r" (__v) : "m" (pcp));	\
	__v;								\
})

/* add with the operand's size, as x86's percpu_add_op() */
static __always_inline void kpc_shim_add(void *pcp, long val, size_t size)
{
	switch (size) {
	case 2:
		asm volatile("addw %1, %%gs:%0" : "+m" (*(u16 *)pcp) : "ri" ((u16)val));
		break;
	case 4:
		asm volatile("addl %1, %%gs:%0" : "+m" (*(u32 *)pcp) : "ri" ((u32)val));
		break;
	case 8:
		asm volatile("addq %1, %%gs:%0" : "+m" (*(u64 *)pcp) : "re" (val));
		break;
	default:
		kpc_shim_bad_size();
	}
}

#define this_cpu_add(pcp, val) kpc_shim_add(&(pcp), (val), sizeof(pcp))
#define this_cpu_inc(pcp) this_cpu_add(pcp, 1)
#define this_cpu_dec(pcp) this_cpu_add(pcp, -1)
#define this_cpu_ptr(ptr) \
	((__typeof__(ptr))((unsigned long)(ptr) + this_cpu_read(kpc_shim_this_cpu_off)))
#define per_cpu_ptr(ptr, cpu) ((void)(cpu), (ptr))

/*
 * The static key: a variable (see above), in a cache line of its own, so
 * that reading it again after a flush warms nothing else.
 */
struct static_key_false {
	bool enabled;
} __aligned(64);

#define DEFINE_STATIC_KEY_FALSE(name) struct static_key_false name = { false }
#define static_key_enabled(key) READ_ONCE((key)->enabled)
#define static_branch_likely(key) likely(READ_ONCE((key)->enabled))
#define static_branch_enable(key) WRITE_ONCE((key)->enabled, true)
#define static_branch_disable(key) WRITE_ONCE((key)->enabled, false)

static inline long atomic_long_read(const atomic_long_t *v)
{
	return READ_ONCE(v->counter);
}

static inline long atomic_long_read_acquire(const atomic_long_t *v)
{
	return __atomic_load_n(&v->counter, __ATOMIC_ACQUIRE);
}

/* lock xadd, fully ordered, as the kernel's */
static inline long atomic_long_inc_return(atomic_long_t *v)
{
	return __atomic_add_fetch(&v->counter, 1, __ATOMIC_SEQ_CST);
}

#define GFP_KERNEL	0
#define __GFP_NOWARN	0

/* kvzalloc() of a 16 KiB power of two is page-aligned (a slab object). */
static inline void *kvzalloc_node(size_t size, unsigned int flags, int node)
{
	size_t bytes = (size + 4095) & ~4095UL;
	void *p = aligned_alloc(4096, bytes);

	if (p)
		memset(p, 0, bytes);
	return p;
}

static inline void kvfree(const void *p)
{
	free((void *)p);
}

/* What kernel/kprobes.c gives the cache; kprobe_cache_bench.c defines it. */
struct kprobe;
struct kprobe *get_kprobe(void *addr);
struct kprobe *get_kprobe_from_index(unsigned long index, void *addr);
void kprobe_table_lock(void);
void kprobe_table_unlock(void);

/* debugfs and seq_file: statistics printed to a stdio stream. */
struct inode;
struct file;
struct dentry;

struct seq_file {
	FILE *fp;
};

#define seq_printf(m, fmt, ...) fprintf((m)->fp, fmt, ##__VA_ARGS__)

struct file_operations {
	int (*open)(struct inode *inode, struct file *file);
	ssize_t (*read)(struct file *file, char *buf, size_t count, loff_t *pos);
	ssize_t (*write)(struct file *file, const char *buf, size_t count,
			 loff_t *pos);
	loff_t (*llseek)(struct file *file, loff_t off, int whence);
	int (*release)(struct inode *inode, struct file *file);
};

#define seq_read	NULL
#define seq_lseek	NULL
#define single_release	NULL
#define default_llseek	NULL

static inline int single_open(struct file *file,
			      int (*show)(struct seq_file *m, void *v),
			      void *data)
{
	return -EOPNOTSUPP;
}

static inline struct dentry *debugfs_create_file(const char *name, int mode,
						 struct dentry *parent, void *data,
						 const struct file_operations *fops)
{
	return NULL;
}

static inline unsigned long copy_from_user(void *to, const void *from,
					   unsigned long n)
{
	memcpy(to, from, n);
	return 0;
}

static inline ssize_t simple_read_from_buffer(void *to, size_t count,
					      loff_t *ppos, const void *from,
					      size_t available)
{
	loff_t pos = *ppos;

	if (pos < 0)
		return -EINVAL;
	if ((size_t)pos >= available || !count)
		return 0;
	if (count > available - pos)
		count = available - pos;
	memcpy(to, (const char *)from + pos, count);
	*ppos = pos + count;
	return count;
}

static inline int kstrtobool_from_user(const char *s, size_t count, bool *res)
{
	if (!count)
		return -EINVAL;
	switch (s[0]) {
	case '1': case 'y': case 'Y':
		*res = true;
		return 0;
	case '0': case 'n': case 'N':
		*res = false;
		return 0;
	}
	return -EINVAL;
}

/* As the kernel's: equal but for one trailing newline on either side. */
static inline bool sysfs_streq(const char *s1, const char *s2)
{
	while (*s1 && *s1 == *s2) {
		s1++;
		s2++;
	}
	if (*s1 == *s2)
		return true;
	if (!*s1 && *s2 == '\n' && !s2[1])
		return true;
	return *s1 == '\n' && !s1[1] && !*s2;
}

#endif /* _KPROBE_CACHE_SHIM_H */
