// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the address order of module symbols: on the symbol tables
 * of this module (the whole one its init runs with, and the core one kept
 * after init), naming an address through the order finds the symbol and
 * the next symbol that a scan of the table finds.
 */

#include <kunit/test.h>
#include <linux/module.h>
#include <linux/module_symbol.h>
#include "internal.h"

/* Two names for one function: ties must go to the first in the table. */
static noinline __used int mod_kallsyms_kunit_target(int x)
{
	return x + 1;
}

static int mod_kallsyms_kunit_alias(int x) __alias(mod_kallsyms_kunit_target) __used;

static struct mod_kallsyms *test_table(struct kunit *test, bool core)
{
	if (!IS_MODULE(CONFIG_MODULE_KALLSYMS_KUNIT_TEST))
		kunit_skip(test, "built in: no module symbols");
	/* Ours: neither table changes while this module is loaded. */
	return core ? &THIS_MODULE->core_kallsyms :
		      rcu_dereference_protected(THIS_MODULE->kallsyms, 1);
}

static bool names_addr(struct mod_kallsyms *k, unsigned int i)
{
	const char *name = k->strtab + k->symtab[i].st_name;

	return k->symtab[i].st_shndx != SHN_UNDEF && *name &&
	       !is_mapping_symbol(name);
}

static unsigned long order_value(struct mod_kallsyms *k, unsigned int pos)
{
	return kallsyms_symbol_value(&k->symtab[k->addr_order[pos]]);
}

/* The order holds each symbol that may name an address once, sorted. */
static void check_order(struct kunit *test, bool core)
{
	struct mod_kallsyms *k = test_table(test, core);
	unsigned int i, pos, named = 0, ties = 0;

	KUNIT_ASSERT_NOT_NULL(test, k->addr_order);
	for (i = 1; i < k->num_symtab; i++)
		named += names_addr(k, i);
	KUNIT_EXPECT_EQ(test, k->num_addr_order, named);
	for (pos = 0; pos < k->num_addr_order; pos++) {
		KUNIT_ASSERT_GT(test, k->addr_order[pos], 0);
		KUNIT_ASSERT_LT(test, k->addr_order[pos], k->num_symtab);
		KUNIT_EXPECT_TRUE(test, names_addr(k, k->addr_order[pos]));
		if (!pos)
			continue;
		KUNIT_EXPECT_LE(test, order_value(k, pos - 1), order_value(k, pos));
		if (order_value(k, pos - 1) == order_value(k, pos)) {
			ties++;
			KUNIT_EXPECT_LT(test, k->addr_order[pos - 1],
					k->addr_order[pos]);
		}
	}
	/* The alias above: the tie rule is exercised. */
	KUNIT_EXPECT_GT(test, ties, 0);
}

static void test_order_init(struct kunit *test)
{
	check_order(test, false);
}

static void test_order_core(struct kunit *test)
{
	check_order(test, true);
}

static unsigned int check_addr(struct kunit *test, struct mod_kallsyms *k,
			       struct mod_kallsyms *scan, unsigned long start,
			       unsigned long end, unsigned long addr)
{
	unsigned long next_found, next_scanned;
	unsigned int found, scanned;

	if (addr < start || addr >= end)
		return 0;
	found = mod_kallsyms_closest(k, start, end, addr, &next_found);
	scanned = mod_kallsyms_closest(scan, start, end, addr, &next_scanned);
	KUNIT_EXPECT_EQ_MSG(test, found, scanned, "region offset %#lx",
			    addr - start);
	KUNIT_EXPECT_EQ_MSG(test, next_found, next_scanned,
			    "region offset %#lx", addr - start);
	return 1;
}

/*
 * Every symbol's address, the bytes on each side of it and the ends of
 * each memory region of the module: the symbol and the next address that
 * the binary search finds are those of a scan of the same table.
 */
static void check_lookups(struct kunit *test, bool core)
{
	struct mod_kallsyms *k = test_table(test, core);
	struct mod_kallsyms scan = *k;
	unsigned int pos, checked = 0;

	scan.addr_order = NULL;
	scan.num_addr_order = 0;
	for_each_mod_mem_type(type) {
		struct module_memory *mem = &THIS_MODULE->mem[type];
		unsigned long start = (unsigned long)mem->base;
		unsigned long end = start + mem->size;

		if (!mem->size)
			continue;
		checked += check_addr(test, k, &scan, start, end, start);
		checked += check_addr(test, k, &scan, start, end, end - 1);
		for (pos = 0; pos < k->num_addr_order; pos++) {
			unsigned long v = order_value(k, pos);

			checked += check_addr(test, k, &scan, start, end, v - 1);
			checked += check_addr(test, k, &scan, start, end, v);
			checked += check_addr(test, k, &scan, start, end, v + 1);
		}
	}
	/* At least the two names of the function above, each side. */
	KUNIT_EXPECT_GE(test, checked, 6);
	kunit_info(test, "%u addresses, %u symbols in order\n", checked,
		   k->num_addr_order);
}

static void test_lookup_init(struct kunit *test)
{
	check_lookups(test, false);
}

static void test_lookup_core(struct kunit *test)
{
	check_lookups(test, true);
}

static struct kunit_case mod_kallsyms_cases[] = {
	KUNIT_CASE(test_order_init),
	KUNIT_CASE(test_order_core),
	KUNIT_CASE(test_lookup_init),
	KUNIT_CASE(test_lookup_core),
	{}
};

static struct kunit_suite mod_kallsyms_suite = {
	.name = "module_kallsyms",
	.test_cases = mod_kallsyms_cases,
};

kunit_test_suite(mod_kallsyms_suite);

MODULE_DESCRIPTION("KUnit tests of module symbol lookups by address");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
