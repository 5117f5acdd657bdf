// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for kstats.
 */

#include <kunit/test.h>
#include <linux/cpumask.h>
#include <linux/err.h>
#include <linux/kstats.h>
#include <linux/limits.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/workqueue.h>

#include "kstats_internal.h"

KUNIT_DEFINE_ACTION_WRAPPER(kstats_delete_action, kstats_delete,
			    struct kstats *);

/* Create a node that is deleted when the test ends, pass or fail. */
static struct kstats *kstats_test_new(struct kunit *test, const char *name,
				      u8 frac_bits)
{
	struct kstats *ks = kstats_new(name, frac_bits);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ks);
	KUNIT_ASSERT_EQ(test, 0,
			kunit_add_action_or_reset(test, kstats_delete_action,
						  ks));
	return ks;
}

#define KSTATS_TEST_BUF	65536

/* A seq_file that writes into a KUnit buffer, reading histogram @ks. */
static struct seq_file *kstats_test_seq(struct kunit *test, struct kstats *ks)
{
	struct seq_file *m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);
	struct kstats_iter *it = kunit_kzalloc(test, sizeof(*it), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, m);
	KUNIT_ASSERT_NOT_NULL(test, it);
	m->buf = kunit_kzalloc(test, KSTATS_TEST_BUF, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, m->buf);
	m->size = KSTATS_TEST_BUF - 1;
	it->ks = ks;
	m->private = it;
	return m;
}

/*
 * Reads the whole file the way seq_read() does, but stopping and starting
 * again after every @per_start lines (0: never), as a reader with a small
 * buffer makes it do.
 */
static char *kstats_test_read(struct kunit *test, struct kstats *ks,
			      unsigned int per_start)
{
	struct seq_file *m = kstats_test_seq(test, ks);
	const struct seq_operations *op = &kstats_seq_ops;
	unsigned int shown = 0;
	loff_t pos = 0;
	void *v;

	v = op->start(m, &pos);
	while (v) {
		KUNIT_ASSERT_FALSE(test, IS_ERR(v));
		if (op->show(m, v) < 0)
			break;
		KUNIT_ASSERT_FALSE(test, seq_has_overflowed(m));
		v = op->next(m, v, &pos);
		if (v && per_start && !(++shown % per_start)) {
			op->stop(m, v);
			v = op->start(m, &pos);
		}
	}
	op->stop(m, v);
	m->buf[m->count] = '\0';
	return m->buf;
}

static char *kstats_test_text(struct kunit *test, struct kstats *ks)
{
	char *text = kstats_test_read(test, ks, 0);

	/* Stopping after every line or every other one changes nothing. */
	KUNIT_EXPECT_STREQ(test, kstats_test_read(test, ks, 1), text);
	KUNIT_EXPECT_STREQ(test, kstats_test_read(test, ks, 2), text);
	return text;
}

/*
 * The slot of @v, worked out from the position of its most significant bit
 * rather than the way lib/kstats.c does it: values below 2^f have a slot
 * each; above, the slot is the bucket (msb - f + 1) times 2^f plus the f
 * bits that follow the msb.
 */
static unsigned int kstats_test_ref_slot(u64 v, unsigned int f)
{
	unsigned int msb;

	if (v < (1ULL << f))
		return v;
	msb = 63 - __builtin_clzll(v);
	return ((msb - f + 1) << f) + ((v >> (msb - f)) & ((1ULL << f) - 1));
}

static void kstats_test_check_slot(struct kunit *test, u64 v, unsigned int f)
{
	unsigned int slot = kstats_value_to_slot(v, f);

	KUNIT_EXPECT_EQ_MSG(test, slot, kstats_test_ref_slot(v, f),
			    "value %llu frac_bits %u", v, f);
	KUNIT_EXPECT_LT_MSG(test, slot, kstats_nr_slots(f),
			    "value %llu frac_bits %u", v, f);
}

static void kstats_test_slot_mapping(struct kunit *test)
{
	unsigned int f, k;

	for (f = 0; f <= KSTATS_MAX_FRAC_BITS; f++) {
		kstats_test_check_slot(test, 0, f);
		kstats_test_check_slot(test, 1, f);
		kstats_test_check_slot(test, U64_MAX, f);
		for (k = 1; k < 64; k++) {
			u64 p = 1ULL << k;

			kstats_test_check_slot(test, p - 1, f);
			kstats_test_check_slot(test, p, f);
			kstats_test_check_slot(test, p + 1, f);
			/* Neighbours fall in the same or the next slot. */
			KUNIT_EXPECT_LE(test, kstats_value_to_slot(p - 1, f),
					kstats_value_to_slot(p, f));
			KUNIT_EXPECT_LE(test, kstats_value_to_slot(p, f) -
					kstats_value_to_slot(p - 1, f), 1);
		}
		/* Small values map one to one, then slots get wider. */
		for (k = 0; k < (1U << f); k++)
			KUNIT_EXPECT_EQ(test, kstats_value_to_slot(k, f), k);
		/* U64_MAX takes the last slot that a value can reach. */
		KUNIT_EXPECT_EQ(test, kstats_value_to_slot(U64_MAX, f),
				kstats_nr_slots(f) - 2);
	}
	KUNIT_EXPECT_EQ(test, kstats_nr_slots(3), 497U);
	KUNIT_EXPECT_EQ(test, kstats_nr_slots(0), 66U);
	KUNIT_EXPECT_EQ(test, kstats_nr_slots(5), 1921U);
}

/* Find the aggregate line of @slot in @text and return its avg field. */
static u64 kstats_test_avg(struct kunit *test, const char *text,
			   unsigned int slot)
{
	char prefix[32];
	const char *line;
	unsigned long long count, avg;
	unsigned int cpus;

	snprintf(prefix, sizeof(prefix), "slot %-3u CPUS ", slot);
	line = strstr(text, prefix);
	KUNIT_ASSERT_NOT_NULL_MSG(test, line, "no line for slot %u in:\n%s",
				  slot, text);
	KUNIT_ASSERT_EQ(test, 3,
			sscanf(line + strlen(prefix), "%u count %llu avg %llu",
			       &cpus, &count, &avg));
	return avg;
}

static void kstats_test_sum_scaling(struct kunit *test)
{
	struct kstats *ks = kstats_test_new(test, "kunit_scaling", 3);
	unsigned int slot = kstats_value_to_slot(U64_MAX, 3);
	u64 big = (1ULL << 40) + 12345, avg;
	char *text;
	int i;

	/* Without scaling, 1000 times U64_MAX wraps the sum 999 times. */
	for (i = 0; i < 1000; i++) {
		kstats_record(ks, U64_MAX);
		kstats_record(ks, big);
	}
	text = kstats_test_text(test, ks);

	/* The average of equal samples is the sample, within 2^-19. */
	avg = kstats_test_avg(test, text, slot);
	KUNIT_EXPECT_GE(test, avg, U64_MAX - (U64_MAX >> 19));
	avg = kstats_test_avg(test, text, kstats_value_to_slot(big, 3));
	KUNIT_EXPECT_LE(test, avg, big);
	KUNIT_EXPECT_GE(test, avg, big - (big >> 19));
	/* Small values keep an exact average. */
	kstats_record(ks, 1000);
	kstats_record(ks, 1003);
	text = kstats_test_text(test, ks);
	KUNIT_EXPECT_EQ(test, kstats_test_avg(test, text,
					      kstats_value_to_slot(1000, 3)),
			1001);
}

struct kstats_test_work {
	struct kstats *ks;
	const u64 *values;
	int n;
};

static long kstats_test_record_fn(void *arg)
{
	struct kstats_test_work *w = arg;
	int i;

	for (i = 0; i < w->n; i++)
		kstats_record(w->ks, w->values[i]);
	return 0;
}

static void kstats_test_text_output(struct kunit *test)
{
	static const u64 on_a[] = { 1, 1, 1, 100 };
	static const u64 on_b[] = { 1, 100, 103, 1000 };
	struct kstats_test_work wa, wb;
	struct kstats *ks;
	int a, b;
	char *expected, *text;

	a = cpumask_first(cpu_online_mask);
	b = cpumask_next(a, cpu_online_mask);
	if (b >= nr_cpu_ids)
		kunit_skip(test, "needs two online CPUs");

	ks = kstats_test_new(test, "kunit_text", 3);
	KUNIT_EXPECT_STREQ(test, kstats_test_text(test, ks), "");

	wa = (struct kstats_test_work){ ks, on_a, ARRAY_SIZE(on_a) };
	wb = (struct kstats_test_work){ ks, on_b, ARRAY_SIZE(on_b) };
	KUNIT_ASSERT_EQ(test, 0, work_on_cpu(a, kstats_test_record_fn, &wa));
	KUNIT_ASSERT_EQ(test, 0, work_on_cpu(b, kstats_test_record_fn, &wb));

	/*
	 * frac_bits 3: 1 is slot 1, 96..103 share slot 36, 1000 is slot 63.
	 * Per CPU: a has 4 samples, b has 4; in all 8.
	 */
	expected = kunit_kzalloc(test, 1024, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, expected);
	snprintf(expected, 1024,
		 "slot 1   CPU  %-4d count        3 avg        1 p 0.750000\n"
		 "slot 1   CPU  %-4d count        1 avg        1 p 0.250000\n"
		 "slot 1   CPUS 2    count        4 avg        1 p 0.500000\n"
		 "slot 36  CPU  %-4d count        1 avg      100 p 1.000000\n"
		 "slot 36  CPU  %-4d count        2 avg      101 p 0.750000\n"
		 "slot 36  CPUS 2    count        3 avg      101 p 0.875000\n"
		 "slot 63  CPU  %-4d count        1 avg     1000 p 1.000000\n"
		 "slot 63  CPUS 1    count        1 avg     1000 p 1.000000\n",
		 a, b, a, b, b);
	text = kstats_test_text(test, ks);
	KUNIT_EXPECT_STREQ(test, text, expected);
}

static void kstats_test_start_stop_reset(struct kunit *test)
{
	struct kstats *ks = kstats_test_new(test, "kunit_ssr", 0);
	static const char * const bad[] = {
		"", "\n", "go", "stopp", "start now", "reset\n\n", "started",
	};
	unsigned int i;
	char *text;

	kstats_record(ks, 5);
	KUNIT_EXPECT_NOT_NULL(test, strstr(kstats_test_text(test, ks),
					   "CPUS 1    count        1"));

	KUNIT_EXPECT_EQ(test, 0, kstats_command(ks, "stop\n", 5));
	kstats_record(ks, 5);
	KUNIT_EXPECT_NOT_NULL(test, strstr(kstats_test_text(test, ks),
					   "CPUS 1    count        1"));

	KUNIT_EXPECT_EQ(test, 0, kstats_command(ks, "START", 5));
	kstats_record(ks, 5);
	/* The test may have moved to another CPU since its first sample. */
	text = kstats_test_text(test, ks);
	KUNIT_EXPECT_TRUE(test, strstr(text, "CPUS 1    count        2") ||
			  strstr(text, "CPUS 2    count        2"));

	KUNIT_EXPECT_EQ(test, 0, kstats_command(ks, "Reset\n", 6));
	KUNIT_EXPECT_STREQ(test, kstats_test_text(test, ks), "");
	/* Reset keeps the node active. */
	kstats_record(ks, 5);
	KUNIT_EXPECT_NOT_NULL(test, strstr(kstats_test_text(test, ks),
					   "CPUS 1    count        1"));

	for (i = 0; i < ARRAY_SIZE(bad); i++)
		KUNIT_EXPECT_EQ_MSG(test, -EINVAL,
				    kstats_command(ks, bad[i], strlen(bad[i])),
				    "command '%s'", bad[i]);
	/* NULL and error pointers are no-ops for record and delete. */
	kstats_record(NULL, 1);
	kstats_delete(NULL);
	kstats_record(ERR_PTR(-ENOMEM), 1);
	kstats_record(ERR_PTR(-MAX_ERRNO), 1);
	kstats_delete(ERR_PTR(-EINVAL));
}

/*
 * Lines are read from the live arrays: a reset between finding a line and
 * printing it skips the line, a line asked for again (the seq_file buffer
 * was full) prints the same, and a seek to the start reads everything anew.
 */
static void kstats_test_live_read(struct kunit *test)
{
	struct kstats *ks = kstats_test_new(test, "kunit_live", 3);
	const struct seq_operations *op = &kstats_seq_ops;
	struct seq_file *m = kstats_test_seq(test, ks);
	static const char want[] =
		"slot 7   CPUS 1    count        1 avg        7 p 1.000000\n";
	loff_t pos = 0;
	char *text;
	void *v;

	KUNIT_EXPECT_NULL(test, op->start(m, &pos));
	op->stop(m, NULL);

	/* CPU lines: the samples must stay on one CPU. */
	migrate_disable();
	kstats_record(ks, 5);
	kstats_record(ks, 5000);
	pos = 0;
	v = op->start(m, &pos);
	KUNIT_ASSERT_NOT_NULL(test, v);
	KUNIT_EXPECT_EQ(test, 0, op->show(m, v));
	KUNIT_EXPECT_NOT_NULL(test, strstr(m->buf, "slot 5   CPU "));
	KUNIT_EXPECT_NOT_NULL(test, strstr(m->buf, "p 0.500000"));
	/* The same line again. */
	m->count = 0;
	op->stop(m, v);
	v = op->start(m, &pos);
	KUNIT_ASSERT_NOT_NULL(test, v);
	KUNIT_EXPECT_EQ(test, 0, op->show(m, v));
	KUNIT_EXPECT_NOT_NULL(test, strstr(m->buf, "slot 5   CPU "));

	/* Past the CPU line of slot 5, to its CPUS line: reset under it. */
	v = op->next(m, v, &pos);
	KUNIT_ASSERT_NOT_NULL(test, v);
	KUNIT_EXPECT_EQ(test, 0, kstats_command(ks, "reset", 5));
	kstats_record(ks, 5000);
	v = op->next(m, v, &pos);
	KUNIT_ASSERT_NOT_NULL(test, v);
	m->count = 0;
	/* The CPU line of the 5000 recorded after the reset; then reset it. */
	KUNIT_EXPECT_EQ(test, 0, op->show(m, v));
	KUNIT_EXPECT_NOT_NULL(test, strstr(m->buf, "p 1.000000"));
	KUNIT_EXPECT_EQ(test, 0, kstats_command(ks, "reset", 5));
	m->count = 0;
	KUNIT_EXPECT_EQ(test, SEQ_SKIP, op->show(m, v));
	op->stop(m, v);
	migrate_enable();

	/* From the start again: the one sample left, and nothing else. */
	kstats_record(ks, 7);
	text = kstats_test_text(test, ks);
	KUNIT_EXPECT_NOT_NULL(test, strstr(text, want));
	KUNIT_EXPECT_NULL(test, strstr(text, "slot 5"));
	KUNIT_EXPECT_NULL(test, strstr(text, "slot 8"));
}

static void kstats_test_rejects(struct kunit *test)
{
	static const char * const bad_names[] = {
		"", "a/b", "_control", "with space", "tab\there", ".", "..",
		"0123456789012345678901234567890123456789012345678901234567890123",
	};
	unsigned int i;

	KUNIT_EXPECT_EQ(test, PTR_ERR(kstats_new("kunit_bits", 6)), -EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(kstats_new("kunit_bits", 255)), -EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(kstats_new(NULL, 3)), -EINVAL);
	for (i = 0; i < ARRAY_SIZE(bad_names); i++)
		KUNIT_EXPECT_EQ_MSG(test, PTR_ERR(kstats_new(bad_names[i], 3)),
				    -EINVAL, "name '%s'", bad_names[i]);

	/* 63 characters is the longest name. */
	kstats_test_new(test, "012345678901234567890123456789012345678901234567890123456789012", 0);
	kstats_test_new(test, "kunit_dup", 5);
	KUNIT_EXPECT_EQ(test, PTR_ERR(kstats_new("kunit_dup", 5)), -EEXIST);
	KUNIT_EXPECT_EQ(test, PTR_ERR(kstats_new("kunit_dup", 0)), -EEXIST);
}

#define KSTATS_TEST_NODES 1000

static void kstats_test_many_nodes(struct kunit *test)
{
	struct kstats **nodes;
	char name[32];
	int i, made;

	nodes = kunit_kcalloc(test, KSTATS_TEST_NODES, sizeof(*nodes),
			      GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, nodes);

	for (made = 0; made < KSTATS_TEST_NODES; made++) {
		snprintf(name, sizeof(name), "kunit_many_%d", made);
		nodes[made] = kstats_new(name, made % (KSTATS_MAX_FRAC_BITS + 1));
		if (IS_ERR(nodes[made]))
			break;
		kstats_record(nodes[made], made);
	}
	KUNIT_EXPECT_EQ(test, made, KSTATS_TEST_NODES);
	for (i = 0; i < made; i++)
		kstats_delete(nodes[i]);

	/* Every name is free again: nothing stale is left behind. */
	for (i = 0; i < KSTATS_TEST_NODES; i += 99) {
		struct kstats *ks;

		snprintf(name, sizeof(name), "kunit_many_%d", i);
		ks = kstats_new(name, 3);
		KUNIT_EXPECT_FALSE_MSG(test, IS_ERR(ks), "%s: %ld", name,
				       PTR_ERR(ks));
		kstats_delete(ks);
	}
}

static struct kunit_case kstats_test_cases[] = {
	KUNIT_CASE(kstats_test_slot_mapping),
	KUNIT_CASE(kstats_test_sum_scaling),
	KUNIT_CASE(kstats_test_text_output),
	KUNIT_CASE(kstats_test_start_stop_reset),
	KUNIT_CASE(kstats_test_live_read),
	KUNIT_CASE(kstats_test_rejects),
	KUNIT_CASE(kstats_test_many_nodes),
	{}
};

static struct kunit_suite kstats_test_suite = {
	.name = "kstats",
	.test_cases = kstats_test_cases,
};

kunit_test_suite(kstats_test_suite);

MODULE_DESCRIPTION("KUnit tests for kstats");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
