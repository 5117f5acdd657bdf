// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the address and name orders of module symbols: naming an
 * address through the address order finds the symbol and the next symbol
 * that a scan of the same table finds, and looking a name up through the
 * name order finds the symbols that a scan finds, in the same order; on
 * the core and init symbol tables of this module and on a table of edge
 * cases.
 */

#include <kunit/test.h>
#include <linux/module.h>
#include <linux/module_symbol.h>
#include "internal.h"

/* Two names for one function: ties must go to the first in the table. */
static noinline int mod_kallsyms_kunit_target(int x)
{
	return x + 1;
}

static int mod_kallsyms_kunit_alias(int x) __alias(mod_kallsyms_kunit_target);

/* Both names referenced, so that the compiler emits both symbols. */
static int (*const mod_kallsyms_kunit_fns[])(int) __used = {
	mod_kallsyms_kunit_target, mod_kallsyms_kunit_alias,
};

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

/* The core table of this module, kept from load to unload. */
static struct mod_kallsyms *core_table(void)
{
	return &THIS_MODULE->core_kallsyms;
}

/*
 * Whether the suite runs from the module's load: its first run, which a
 * run asked for through debugfs waits for.
 */
static bool run_from_load, ran;

static int mod_kallsyms_suite_init(struct kunit_suite *suite)
{
	run_from_load = !ran;
	ran = true;
	return 0;
}

/*
 * The init table of this module, all its symbols, which names its
 * addresses from its load until its init is done, and so while the suite
 * runs from the load: it is freed once the core table takes over, so a
 * later run skips the test.
 */
static struct mod_kallsyms *init_table(struct kunit *test)
{
	struct mod_kallsyms *k = rcu_dereference_raw(THIS_MODULE->kallsyms);

	if (!run_from_load || k == core_table())
		kunit_skip(test, "the init table is gone (the suite ran after the load)");
	return k;
}

/* The order of @k holds each symbol that may name an address once, sorted. */
static void check_order(struct kunit *test, struct mod_kallsyms *k)
{
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

static void test_order(struct kunit *test)
{
	check_order(test, core_table());
}

static void test_init_order(struct kunit *test)
{
	check_order(test, init_table(test));
}

/*
 * The lookup as it was before the address order, written out here so that
 * the tests do not compare the code under test with itself: the closest
 * symbol at or below @addr that names an address (the first in the table
 * at its address), not below @start, and in @nextval the address of the
 * first such symbol above @addr, if lower than @end.
 */
static unsigned int scan_closest(struct mod_kallsyms *k, unsigned long start,
				 unsigned long end, unsigned long addr,
				 unsigned long *nextval)
{
	unsigned long bestval = start - 1;
	unsigned int i, best = 0;

	*nextval = end;
	for (i = 1; i < k->num_symtab; i++) {
		unsigned long v = kallsyms_symbol_value(&k->symtab[i]);

		if (!names_addr(k, i))
			continue;
		if (v <= addr && v > bestval) {
			best = i;
			bestval = v;
		}
		if (v > addr && v < *nextval)
			*nextval = v;
	}
	return best;
}

/*
 * The search, the function's own scan (the table without its order) and
 * the old scan agree at @addr; returns 1.
 */
static unsigned int check_addr(struct kunit *test, struct mod_kallsyms *k,
			       unsigned long start, unsigned long end,
			       unsigned long addr)
{
	struct mod_kallsyms unordered = *k;
	unsigned long next_found, next_unordered, next_scanned;
	unsigned int found, scanned;

	unordered.addr_order = NULL;
	unordered.num_addr_order = 0;
	found = mod_kallsyms_closest(k, start, end, addr, &next_found);
	scanned = scan_closest(k, start, end, addr, &next_scanned);
	KUNIT_EXPECT_EQ_MSG(test, found, scanned, "offset %#lx of [%#lx, %#lx)",
			    addr - start, 0UL, end - start);
	KUNIT_EXPECT_EQ_MSG(test, next_found, next_scanned,
			    "offset %#lx of [%#lx, %#lx)", addr - start, 0UL,
			    end - start);
	KUNIT_EXPECT_EQ_MSG(test, mod_kallsyms_closest(&unordered, start, end, addr,
						       &next_unordered), scanned,
			    "without the order, offset %#lx", addr - start);
	KUNIT_EXPECT_EQ_MSG(test, next_unordered, next_scanned,
			    "without the order, offset %#lx", addr - start);
	return 1;
}

/* Every address of @k's order, the bytes on each side, the region's ends. */
static unsigned int check_region(struct kunit *test, struct mod_kallsyms *k,
				 unsigned long start, unsigned long end)
{
	unsigned int pos, checked = 0;

	checked += check_addr(test, k, start, end, start);
	checked += check_addr(test, k, start, end, end - 1);
	for (pos = 0; pos < k->num_addr_order; pos++) {
		unsigned long v = order_value(k, pos);

		checked += check_addr(test, k, start, end, v - 1);
		checked += check_addr(test, k, start, end, v);
		checked += check_addr(test, k, start, end, v + 1);
	}
	return checked;
}

/* Each memory region of this module, in table @k. */
static void check_regions(struct kunit *test, struct mod_kallsyms *k)
{
	unsigned int checked = 0;

	for_each_mod_mem_type(type) {
		struct module_memory *mem = &THIS_MODULE->mem[type];
		unsigned long start = (unsigned long)mem->base;

		if (mem->size)
			checked += check_region(test, k, start,
						start + mem->size);
	}
	KUNIT_EXPECT_GT(test, checked, 0);
	kunit_info(test, "%u lookups, %u symbols in order\n", checked,
		   k->num_addr_order);
}

static void test_lookups(struct kunit *test)
{
	check_regions(test, core_table());
}

static void test_init_lookups(struct kunit *test)
{
	check_regions(test, init_table(test));
}

static const char *sym_name(struct mod_kallsyms *k, unsigned int i)
{
	return k->strtab + k->symtab[i].st_name;
}

/* The name order of @k holds each defined symbol once, by name, then index. */
static void check_name_order(struct kunit *test, struct mod_kallsyms *k)
{
	unsigned int i, pos, defined = 0;

	KUNIT_ASSERT_NOT_NULL(test, k->name_order);
	for (i = 0; i < k->num_symtab; i++)
		defined += k->symtab[i].st_shndx != SHN_UNDEF;
	KUNIT_EXPECT_EQ(test, k->num_name_order, defined);
	for (pos = 0; pos < k->num_name_order; pos++) {
		unsigned int j = k->name_order[pos];
		int cmp;

		KUNIT_ASSERT_LT(test, j, k->num_symtab);
		KUNIT_EXPECT_NE(test, k->symtab[j].st_shndx, SHN_UNDEF);
		if (!pos)
			continue;
		cmp = strcmp(sym_name(k, k->name_order[pos - 1]), sym_name(k, j));
		KUNIT_EXPECT_LE(test, cmp, 0);
		if (!cmp)
			KUNIT_EXPECT_LT(test, k->name_order[pos - 1], j);
	}
}

/*
 * What a lookup by name found before the name order: the scan of
 * find_kallsyms_symbol_value() and module_kallsyms_on_each_symbol(), from
 * symbol 0, for a defined symbol of that name.  The index of the next one
 * at or after @from, -1 if there is none.
 */
static int scan_named(struct mod_kallsyms *k, const char *name,
		      unsigned int from)
{
	unsigned int i;

	for (i = from; i < k->num_symtab; i++)
		if (!strcmp(name, sym_name(k, i)) &&
		    k->symtab[i].st_shndx != SHN_UNDEF)
			return i;
	return -1;
}

/*
 * The walk through the name order and the walk without it both find the
 * symbols named @name that the scan finds, in its order; returns how many.
 */
static unsigned int check_name(struct kunit *test, struct mod_kallsyms *k,
			       const char *name)
{
	struct mod_kallsyms no_order = *k;
	unsigned int c_order = 0, c_scan = 0, n = 0;
	const Elf_Sym *want;
	int i = -1;

	no_order.name_order = NULL;
	no_order.num_name_order = 0;
	do {
		i = scan_named(k, name, i + 1);
		want = i < 0 ? NULL : &k->symtab[i];
		KUNIT_EXPECT_PTR_EQ_MSG(test, mod_kallsyms_next_named(k, name, &c_order),
					want, "name \"%s\", match %u", name, n);
		KUNIT_EXPECT_PTR_EQ_MSG(test, mod_kallsyms_next_named(&no_order, name, &c_scan),
					want, "name \"%s\", match %u, no order", name, n);
		n += i >= 0;
	} while (i >= 0);
	return n;
}

/*
 * Every name of table @k, each once (from its first symbol): together they
 * find every defined symbol; and a missing name.
 */
static void check_names(struct kunit *test, struct mod_kallsyms *k)
{
	unsigned int i, names = 0, found = 0;

	for (i = 0; i < k->num_symtab; i++) {
		if (k->symtab[i].st_shndx == SHN_UNDEF ||
		    scan_named(k, sym_name(k, i), 0) != i)
			continue;
		names++;
		found += check_name(test, k, sym_name(k, i));
	}
	KUNIT_EXPECT_EQ(test, found, k->num_name_order);
	KUNIT_EXPECT_EQ(test, check_name(test, k, "mod_kallsyms_kunit_none"), 0);
	KUNIT_EXPECT_EQ(test, check_name(test, k, "mod_kallsyms_kunit_target"), 1);
	KUNIT_EXPECT_EQ(test, check_name(test, k, "mod_kallsyms_kunit_alias"), 1);
	kunit_info(test, "%u names, %u symbols found by name\n", names, found);
}

static void test_name_order(struct kunit *test)
{
	check_name_order(test, core_table());
}

static void test_names(struct kunit *test)
{
	check_names(test, core_table());
}

static void test_init_name_order(struct kunit *test)
{
	check_name_order(test, init_table(test));
}

static void test_init_names(struct kunit *test)
{
	check_names(test, init_table(test));
}

/*
 * A table of edge cases: two names at 0x1000 ("b" first), an unnamed
 * symbol, a mapping symbol and an undefined one (none may name an
 * address), two names at 0x3000 ("d" first), symbols below and above the
 * regions tried.
 */
static const char edge_strtab[] = "\0a\0b\0$x\0c\0d\0e\0f\0g";

#define EDGE_SYM(name, shndx, value) \
	{ .st_name = (name), .st_shndx = (shndx), .st_value = (value) }

static Elf_Sym edge_syms[] = {
	EDGE_SYM(0, SHN_UNDEF, 0),
	EDGE_SYM(3, 1, 0x1000),		/* b */
	EDGE_SYM(1, 1, 0x1000),		/* a */
	EDGE_SYM(0, 1, 0x1800),		/* unnamed */
	EDGE_SYM(5, 1, 0x1900),		/* $x */
	EDGE_SYM(8, SHN_UNDEF, 0x2000),	/* c, undefined */
	EDGE_SYM(10, 1, 0x3000),	/* d */
	EDGE_SYM(12, 1, 0x800),		/* e */
	EDGE_SYM(14, 1, 0x5000),	/* f */
	EDGE_SYM(16, 1, 0x3000),	/* g */
	EDGE_SYM(1, 1, 0x10),		/* a again, low */
};

static void test_edges(struct kunit *test)
{
	static const unsigned long regions[][2] = {
		{ 0x1000, 0x4000 }, { 0x1001, 0x4000 }, { 1, 0x4000 },
		{ 0x800, 0x6000 }, { 0, 0x6000 }, { 0x3000, 0x3001 },
	};
	unsigned int order[ARRAY_SIZE(edge_syms)];
	unsigned int names[ARRAY_SIZE(edge_syms)];
	Elf_Sym zero_syms[ARRAY_SIZE(edge_syms)];
	static const char * const tried[] = {
		"", "a", "b", "$x", "c", "d", "e", "f", "g", "0", "h", "aa",
	};
	unsigned int cursor = 0;
	struct mod_kallsyms k = {
		.symtab = edge_syms,
		.num_symtab = ARRAY_SIZE(edge_syms),
		.strtab = (char *)edge_strtab,
	};
	unsigned long next;
	unsigned int i;

	mod_kallsyms_add_order(&k, order);
	KUNIT_ASSERT_EQ(test, k.num_addr_order, 7);

	KUNIT_EXPECT_EQ(test, mod_kallsyms_closest(&k, 0x1000, 0x4000, 0x1000, &next), 1);
	KUNIT_EXPECT_EQ(test, next, 0x3000);
	KUNIT_EXPECT_EQ(test, mod_kallsyms_closest(&k, 0x1000, 0x4000, 0x3fff, &next), 6);
	KUNIT_EXPECT_EQ(test, next, 0x4000);
	KUNIT_EXPECT_EQ(test, mod_kallsyms_closest(&k, 0x1000, 0x4000, 0xfff, &next), 0);
	KUNIT_EXPECT_EQ(test, next, 0x1000);
	KUNIT_EXPECT_EQ(test, mod_kallsyms_closest(&k, 1, 0x4000, 0xfff, &next), 7);
	KUNIT_EXPECT_EQ(test, mod_kallsyms_closest(&k, 1, 0x4000, 0x7ff, &next), 10);
	KUNIT_EXPECT_EQ(test, mod_kallsyms_closest(&k, 0, 0x6000, 0x1000, &next), 0);

	for (i = 0; i < ARRAY_SIZE(regions); i++) {
		check_region(test, &k, regions[i][0], regions[i][1]);
		check_addr(test, &k, regions[i][0], regions[i][1], 0);
		check_addr(test, &k, regions[i][0], regions[i][1], ULONG_MAX);
	}

	/* Every symbol but the null one and undefined "c" is found by name. */
	mod_kallsyms_add_name_order(&k, names);
	KUNIT_ASSERT_EQ(test, k.num_name_order, ARRAY_SIZE(edge_syms) - 2);
	/* "a" twice, in table order; then no more, however often asked */
	KUNIT_EXPECT_PTR_EQ(test, mod_kallsyms_next_named(&k, "a", &cursor), &edge_syms[2]);
	KUNIT_EXPECT_PTR_EQ(test, mod_kallsyms_next_named(&k, "a", &cursor), &edge_syms[10]);
	KUNIT_EXPECT_NULL(test, mod_kallsyms_next_named(&k, "a", &cursor));
	KUNIT_EXPECT_NULL(test, mod_kallsyms_next_named(&k, "a", &cursor));
	cursor = 0;
	KUNIT_EXPECT_NULL(test, mod_kallsyms_next_named(&k, "c", &cursor));
	cursor = 0;
	KUNIT_EXPECT_PTR_EQ(test, mod_kallsyms_next_named(&k, "", &cursor), &edge_syms[3]);
	KUNIT_EXPECT_NULL(test, mod_kallsyms_next_named(&k, "", &cursor));
	cursor = 0;
	KUNIT_EXPECT_PTR_EQ(test, mod_kallsyms_next_named(&k, "$x", &cursor), &edge_syms[4]);
	KUNIT_EXPECT_NULL(test, mod_kallsyms_next_named(&k, "$x", &cursor));
	for (i = 0; i < ARRAY_SIZE(tried); i++)
		check_name(test, &k, tried[i]);

	/* A defined symbol 0 (which no loader makes) is found, as it was. */
	memcpy(zero_syms, edge_syms, sizeof(zero_syms));
	zero_syms[0].st_shndx = 1;
	k.symtab = zero_syms;
	mod_kallsyms_add_name_order(&k, names);
	KUNIT_ASSERT_EQ(test, k.num_name_order, ARRAY_SIZE(edge_syms) - 1);
	cursor = 0;
	KUNIT_EXPECT_PTR_EQ(test, mod_kallsyms_next_named(&k, "", &cursor), &zero_syms[0]);
	KUNIT_EXPECT_PTR_EQ(test, mod_kallsyms_next_named(&k, "", &cursor), &zero_syms[3]);
	KUNIT_EXPECT_NULL(test, mod_kallsyms_next_named(&k, "", &cursor));
	for (i = 0; i < ARRAY_SIZE(tried); i++)
		check_name(test, &k, tried[i]);
}

static struct kunit_case mod_kallsyms_cases[] = {
	KUNIT_CASE(test_order),
	KUNIT_CASE(test_lookups),
	KUNIT_CASE(test_init_order),
	KUNIT_CASE(test_init_lookups),
	KUNIT_CASE(test_name_order),
	KUNIT_CASE(test_names),
	KUNIT_CASE(test_init_name_order),
	KUNIT_CASE(test_init_names),
	KUNIT_CASE(test_edges),
	{}
};

static struct kunit_suite mod_kallsyms_suite = {
	.name = "module_kallsyms",
	.suite_init = mod_kallsyms_suite_init,
	.test_cases = mod_kallsyms_cases,
};

kunit_test_suite(mod_kallsyms_suite);

MODULE_DESCRIPTION("KUnit tests of module symbol lookups by address and by name");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
