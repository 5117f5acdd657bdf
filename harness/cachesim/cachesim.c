// SPDX-License-Identifier: GPL-2.0
/*
 * cachesim: a data-cache model as a QEMU TCG plugin (plugin API 1, QEMU 7.2).
 *
 *   qemu-system-x86_64 ... -plugin cachesim.so,outfile=FILE[,ARG=VALUE...]
 *
 * Arguments (sizes in bytes, or with a K/M/G suffix):
 *   outfile=FILE     where the per-phase tables go (default cachesim.out)
 *   l1size=32K       per-vCPU L1 data cache size
 *   l1assoc=8        its ways
 *   llsize=4M        shared last-level cache size
 *   llassoc=16       its ways
 *   line=64          line size of both (a power of two)
 *   index=phys|virt  index and tag by guest physical address (default) or
 *                    by virtual address (cheaper; user address spaces alias)
 *   flush=on|off     invalidate every cache at a phase change (default off)
 *   verbose=on|off   one line on stderr per phase change (default on)
 *   from=K           model nothing until the guest starts phase K (below)
 *
 * Model: every guest load and store (QEMU_PLUGIN_MEM_RW, not told apart)
 * looks its line up in the L1 of the vCPU that issued it; on an L1 miss
 * it looks it up in the last-level cache shared by all vCPUs.  Both are
 * set-associative with true LRU replacement, and a miss allocates the
 * line in the level that missed (and in L1 on an LL hit).  Nothing else:
 * no write-back traffic, no inclusion or back-invalidation, no
 * coherence between the L1s, no prefetching, no instruction fetches.
 * An access that straddles a line touches both lines and may count two
 * misses.  Memory-mapped I/O is not cached: such accesses are only
 * counted ("io").  Physical indexing uses qemu_plugin_hwaddr_phys_addr()
 * (QEMU's RAM address, which is the guest physical address for the pc
 * machine's low RAM); when QEMU cannot tell it ("nohw") the virtual
 * address stands in.
 *
 * Counters, per phase: per guest instruction address (PC) the accesses,
 * L1 misses and LL misses it caused (MMIO not included); totals per
 * vCPU.  Each instruction's record is created at translation time, in a
 * hash table keyed by PC, and its address is the memory callback's
 * userdata, so the hot path does no lookup.  A guest program
 * starts a new phase with one-byte loads from a magic address window
 * (marker.h, cachesim-mark); the plugin then writes the phase that ended,
 * zeroes the counters and keeps the cache contents (unless flush=on), so
 * a phase starts with the caches as the previous one left them, like
 * hardware would.  The last phase is written at exit.
 *
 * With from=K the model starts switched off: only user-space code is
 * instrumented, and only to see the markers, so the guest runs at close
 * to plain TCG speed (kernel code carries no callback at all).  When the
 * guest starts phase K the plugin flushes QEMU's translations
 * (qemu_plugin_reset()) and from then on instruments every instruction:
 * the caches start empty at that point.  This keeps long set-up work
 * (booting, loading modules, registering probes) out of the model's
 * cost; the phases before K are written with zero counts and "model=off".
 * Output:
 *
 *   # cachesim index=phys line=64 l1=32768/8 ll=4194304/16 vcpus=2 flush=off marker=0x4b5300000000 from=-1
 *   phase SEQ ID LABEL          SEQ counts from 0; ID -1 before any marker
 *   total ACCESSES L1_MISSES LL_MISSES
 *   other io=N split=N nohw=N secs=S model=on|off
 *                                S: host seconds the phase lasted
 *   cpu N ACCESSES L1_MISSES LL_MISSES
 *   PC ACCESSES L1_MISSES LL_MISSES      hex PC, ascending, one per PC
 *   end SEQ
 *
 * The counters and the shared LLC are not locked on the hot path: run
 * QEMU with -accel tcg,thread=single (one host thread runs all vCPUs,
 * callbacks never overlap) for exact numbers.  Translation and the phase
 * switch take a mutex.
 */
#include <glib.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <qemu-plugin.h>

#define CACHESIM_PLUGIN
#include "marker.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

/* x86-64 user addresses lie below; the kernel's above (canonical). */
#define USER_TOP	(1ULL << 47)

struct cache {
	uint64_t *tag;		/* nsets * assoc: line number + 1, MRU first; 0 = empty */
	uint64_t nsets;
	uint64_t mask;		/* nsets - 1 when pow2 */
	unsigned int assoc;
	bool pow2;
};

struct vcpu {
	struct cache l1;
	uint64_t acc, l1_miss, ll_miss;
	uint64_t io, split, nohw;
};

/* One per guest instruction address; the mem callback's userdata. */
struct insn {
	uint64_t pc;		/* the hash key points here */
	uint64_t acc, l1_miss, ll_miss;
};

static struct vcpu *vcpus;
static unsigned int n_vcpus;
static struct cache llc;
static unsigned int line_shift = 6;
static bool index_phys = true;
static bool flush_at_phase;
static bool verbose = true;
/* from=K: the model is off until phase K starts; -1: on from the start. */
static long from_id = -1;
static bool model_on = true;
static bool model_starting;
static qemu_plugin_id_t plugin_id;

static GMutex lock;		/* insns, the output, the phase state */
static GHashTable *insns;
static FILE *out;
static const char *outfile = "cachesim.out";

static unsigned long phase_seq;
static gint64 phase_t0;		/* g_get_monotonic_time() at its start */
static long phase_id = -1;
static char phase_label[CACHESIM_LABEL_MAX + 1] = "start";
/* The label being spelled by the guest's label loads. */
static char pending_label[CACHESIM_LABEL_MAX + 1];
static unsigned int pending_len;

static int cache_init(struct cache *c, uint64_t size, unsigned int assoc,
		      const char *name)
{
	uint64_t line = 1ULL << line_shift;

	if (!assoc || !size || size % (line * assoc)) {
		fprintf(stderr,
			"cachesim: %s: size %" PRIu64 " is not a multiple of %u ways x %" PRIu64 " bytes\n",
			name, size, assoc, line);
		return -1;
	}
	c->assoc = assoc;
	c->nsets = size / line / assoc;
	c->pow2 = !(c->nsets & (c->nsets - 1));
	c->mask = c->nsets - 1;
	c->tag = g_new0(uint64_t, c->nsets * assoc);
	return 0;
}

static void cache_flush(struct cache *c)
{
	memset(c->tag, 0, c->nsets * c->assoc * sizeof(*c->tag));
}

/* Looks @line up, makes it the set's most recent; true on a hit. */
static inline bool cache_access(struct cache *c, uint64_t line)
{
	uint64_t tag = line + 1;
	uint64_t set = c->pow2 ? (line & c->mask) : (line % c->nsets);
	uint64_t *way = c->tag + set * c->assoc;
	unsigned int i;
	bool hit;

	if (way[0] == tag)
		return true;
	for (i = 1; i < c->assoc; i++)
		if (way[i] == tag)
			break;
	hit = i < c->assoc;
	if (!hit)
		i = c->assoc - 1;	/* the LRU way is evicted */
	memmove(way + 1, way, i * sizeof(*way));
	way[0] = tag;
	return hit;
}

static inline void access_line(struct vcpu *v, struct insn *r, uint64_t line)
{
	if (cache_access(&v->l1, line))
		return;
	r->l1_miss++;
	v->l1_miss++;
	if (cache_access(&llc, line))
		return;
	r->ll_miss++;
	v->ll_miss++;
}

static gint insn_cmp(gconstpointer a, gconstpointer b)
{
	const struct insn *x = *(const struct insn * const *)a;
	const struct insn *y = *(const struct insn * const *)b;

	return x->pc < y->pc ? -1 : x->pc > y->pc;
}

static void collect(gpointer key, gpointer value, gpointer arr)
{
	struct insn *r = value;

	(void)key;
	if (r->acc || r->l1_miss || r->ll_miss)
		g_ptr_array_add(arr, r);
}

/* Writes the current phase and zeroes its counters; lock held. */
static void dump_phase(void)
{
	uint64_t acc = 0, l1 = 0, ll = 0, io = 0, split = 0, nohw = 0;
	double secs = (g_get_monotonic_time() - phase_t0) / 1e6;
	GPtrArray *arr;
	unsigned int i;

	for (i = 0; i < n_vcpus; i++) {
		acc += vcpus[i].acc;
		l1 += vcpus[i].l1_miss;
		ll += vcpus[i].ll_miss;
		io += vcpus[i].io;
		split += vcpus[i].split;
		nohw += vcpus[i].nohw;
	}
	fprintf(out, "phase %lu %ld %s\n", phase_seq, phase_id, phase_label);
	fprintf(out, "total %" PRIu64 " %" PRIu64 " %" PRIu64 "\n",
		acc, l1, ll);
	fprintf(out, "other io=%" PRIu64 " split=%" PRIu64 " nohw=%" PRIu64 " secs=%.3f model=%s\n",
		io, split, nohw, secs, model_on ? "on" : "off");
	for (i = 0; i < n_vcpus; i++) {
		struct vcpu *v = &vcpus[i];

		fprintf(out, "cpu %u %" PRIu64 " %" PRIu64 " %" PRIu64 "\n",
			i, v->acc, v->l1_miss, v->ll_miss);
		v->acc = v->l1_miss = v->ll_miss = 0;
		v->io = v->split = v->nohw = 0;
	}

	arr = g_ptr_array_new();
	g_hash_table_foreach(insns, collect, arr);
	g_ptr_array_sort(arr, insn_cmp);
	for (i = 0; i < arr->len; i++) {
		struct insn *r = g_ptr_array_index(arr, i);

		fprintf(out, "%" PRIx64 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n",
			r->pc, r->acc, r->l1_miss, r->ll_miss);
		r->acc = r->l1_miss = r->ll_miss = 0;
	}
	g_ptr_array_free(arr, TRUE);
	fprintf(out, "end %lu\n", phase_seq);
	fflush(out);
	if (verbose)
		fprintf(stderr,
			"cachesim: phase %lu (%ld %s) ended after %.1f s: %" PRIu64 " accesses, %" PRIu64 " L1 misses, %" PRIu64 " LL misses\n",
			phase_seq, phase_id, phase_label, secs, acc, l1, ll);
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
static void at_exit(qemu_plugin_id_t id, void *p);

/*
 * Called by qemu_plugin_reset() once QEMU has flushed every translation
 * and dropped our callbacks, with all vCPUs stopped: every block
 * translated from now on carries the model's callbacks.
 */
static void model_start(qemu_plugin_id_t id)
{
	g_mutex_lock(&lock);
	model_on = true;
	phase_t0 = g_get_monotonic_time();
	g_mutex_unlock(&lock);
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	if (verbose)
		fprintf(stderr, "cachesim: model on from phase %ld\n", from_id);
}

static void new_phase(unsigned long id)
{
	bool start = false;
	unsigned int i;

	g_mutex_lock(&lock);
	dump_phase();
	if (flush_at_phase) {
		for (i = 0; i < n_vcpus; i++)
			cache_flush(&vcpus[i].l1);
		cache_flush(&llc);
	}
	phase_seq++;
	phase_t0 = g_get_monotonic_time();
	phase_id = id;
	if (pending_len)
		memcpy(phase_label, pending_label, pending_len + 1);
	else
		snprintf(phase_label, sizeof(phase_label), "phase%lu", id);
	pending_len = 0;
	pending_label[0] = 0;
	if (!model_on && !model_starting && (long)id == from_id)
		start = model_starting = true;
	g_mutex_unlock(&lock);
	/* Asynchronous: runs model_start() when the vCPUs next stop. */
	if (start)
		qemu_plugin_reset(plugin_id, model_start);
}

/* A load or store inside the marker window (rare: only cachesim-mark). */
static void marker_access(qemu_plugin_meminfo_t info, uint64_t vaddr)
{
	uint64_t off = vaddr - CACHESIM_MARK_BASE;
	uint64_t lab = CACHESIM_LABEL_PAGE - CACHESIM_MARK_BASE;

	if (qemu_plugin_mem_is_store(info) || qemu_plugin_mem_size_shift(info))
		return;
	if (off >= lab && off < lab + 256) {
		unsigned int c = off - lab;

		g_mutex_lock(&lock);
		if (!c) {
			pending_len = 0;
		} else if (pending_len < CACHESIM_LABEL_MAX) {
			/* Keep labels one word for the table format. */
			pending_label[pending_len++] =
				(c > ' ' && c < 127) ? (char)c : '_';
		}
		pending_label[pending_len] = 0;
		g_mutex_unlock(&lock);
	} else if (off < CACHESIM_MARK_PAGES * CACHESIM_PAGE &&
		   off % CACHESIM_PAGE == CACHESIM_MARK_OFFSET) {
		new_phase(off / CACHESIM_PAGE);
	}
}

/* The hot path: every guest load and store. */
static void mem_cb(unsigned int cpu, qemu_plugin_meminfo_t info,
		   uint64_t vaddr, void *udata)
{
	struct insn *r = udata;
	struct vcpu *v = &vcpus[cpu];
	uint64_t addr = vaddr, first, last;

	if (G_UNLIKELY((vaddr >> CACHESIM_MARK_SHIFT) ==
		       (CACHESIM_MARK_BASE >> CACHESIM_MARK_SHIFT)))
		marker_access(info, vaddr);
	if (index_phys) {
		struct qemu_plugin_hwaddr *hw = qemu_plugin_get_hwaddr(info, vaddr);

		if (G_UNLIKELY(!hw)) {
			v->nohw++;
		} else if (G_UNLIKELY(qemu_plugin_hwaddr_is_io(hw))) {
			v->io++;
			return;
		} else {
			addr = qemu_plugin_hwaddr_phys_addr(hw);
		}
	}
	first = addr >> line_shift;
	last = (addr + (1u << qemu_plugin_mem_size_shift(info)) - 1) >> line_shift;
	r->acc++;
	v->acc++;
	access_line(v, r, first);
	if (G_UNLIKELY(last != first)) {
		v->split++;
		access_line(v, r, last);
	}
}

/* While the model is off: only the marker window matters. */
static void mark_cb(unsigned int cpu, qemu_plugin_meminfo_t info,
		    uint64_t vaddr, void *udata)
{
	(void)cpu;
	(void)udata;
	if (G_UNLIKELY((vaddr >> CACHESIM_MARK_SHIFT) ==
		       (CACHESIM_MARK_BASE >> CACHESIM_MARK_SHIFT)))
		marker_access(info, vaddr);
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb), i;

	(void)id;
	if (!model_on) {
		/*
		 * Markers come from user space: leave kernel code alone.
		 * Loads and stores both: QEMU 7.2 swaps the two filters
		 * (op_rw() in accel/tcg/plugin-gen.c adds one to a value
		 * that is already 1 or 2), and marker_access() ignores
		 * stores anyway.
		 */
		if (qemu_plugin_tb_vaddr(tb) >= USER_TOP)
			return;
		for (i = 0; i < n; i++)
			qemu_plugin_register_vcpu_mem_cb(qemu_plugin_tb_get_insn(tb, i),
							 mark_cb,
							 QEMU_PLUGIN_CB_NO_REGS,
							 QEMU_PLUGIN_MEM_RW, NULL);
		return;
	}
	g_mutex_lock(&lock);
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		uint64_t pc = qemu_plugin_insn_vaddr(insn);
		struct insn *r = g_hash_table_lookup(insns, &pc);

		if (!r) {
			r = g_new0(struct insn, 1);
			r->pc = pc;
			g_hash_table_insert(insns, &r->pc, r);
		}
		qemu_plugin_register_vcpu_mem_cb(insn, mem_cb,
						 QEMU_PLUGIN_CB_NO_REGS,
						 QEMU_PLUGIN_MEM_RW, r);
	}
	g_mutex_unlock(&lock);
}

static void vcpu_init(qemu_plugin_id_t id, unsigned int cpu)
{
	(void)id;
	if (cpu >= n_vcpus) {
		fprintf(stderr, "cachesim: vCPU %u beyond the %u planned\n",
			cpu, n_vcpus);
		abort();
	}
}

static void at_exit(qemu_plugin_id_t id, void *p)
{
	(void)id;
	(void)p;
	g_mutex_lock(&lock);
	dump_phase();
	fclose(out);
	out = NULL;
	g_mutex_unlock(&lock);
}

static int parse_size(const char *s, uint64_t *v)
{
	char *end;

	*v = g_ascii_strtoull(s, &end, 10);
	if (end == s)
		return -1;
	switch (g_ascii_toupper(*end)) {
	case 'G':
		*v <<= 10;
		/* fall through */
	case 'M':
		*v <<= 10;
		/* fall through */
	case 'K':
		*v <<= 10;
		end++;
		if (g_ascii_strcasecmp(end, "iB") == 0 || *end == 'B' ||
		    *end == 'b')
			end += strlen(end);
		break;
	}
	return *end ? -1 : 0;
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
					   const qemu_info_t *info,
					   int argc, char **argv)
{
	uint64_t l1size = 32 << 10, llsize = 4 << 20, l1assoc = 8;
	uint64_t llassoc = 16, line = 64;
	unsigned int i;
	int a;

	for (a = 0; a < argc; a++) {
		char *eq = strchr(argv[a], '=');
		const char *val;
		g_autofree char *key = NULL;
		int bad = 0;

		if (!eq) {
			fprintf(stderr, "cachesim: argument '%s' is not KEY=VALUE\n",
				argv[a]);
			return -1;
		}
		key = g_strndup(argv[a], eq - argv[a]);
		val = eq + 1;
		if (!strcmp(key, "outfile"))
			outfile = val;
		else if (!strcmp(key, "l1size"))
			bad = parse_size(val, &l1size);
		else if (!strcmp(key, "l1assoc"))
			bad = parse_size(val, &l1assoc);
		else if (!strcmp(key, "llsize"))
			bad = parse_size(val, &llsize);
		else if (!strcmp(key, "llassoc"))
			bad = parse_size(val, &llassoc);
		else if (!strcmp(key, "line"))
			bad = parse_size(val, &line) || line < 8 ||
			      (line & (line - 1));
		else if (!strcmp(key, "index")) {
			index_phys = !strcmp(val, "phys");
			bad = !index_phys && strcmp(val, "virt");
		} else if (!strcmp(key, "flush")) {
			bad = !qemu_plugin_bool_parse(key, val, &flush_at_phase);
		} else if (!strcmp(key, "verbose")) {
			bad = !qemu_plugin_bool_parse(key, val, &verbose);
		} else if (!strcmp(key, "from")) {
			char *end;

			from_id = strtol(val, &end, 0);
			bad = end == val || *end || from_id < 0 ||
			      from_id >= (long)CACHESIM_MARK_PAGES;
		} else {
			bad = 1;
		}
		if (bad) {
			fprintf(stderr, "cachesim: bad argument '%s'\n", argv[a]);
			return -1;
		}
	}
	if (l1assoc > 1024 || llassoc > 1024) {
		fprintf(stderr, "cachesim: at most 1024 ways\n");
		return -1;
	}
	line_shift = __builtin_ctzll(line);

	n_vcpus = 1;
	if (info->system_emulation && info->system.max_vcpus > 0)
		n_vcpus = info->system.max_vcpus;
	vcpus = g_new0(struct vcpu, n_vcpus);
	for (i = 0; i < n_vcpus; i++)
		if (cache_init(&vcpus[i].l1, l1size, l1assoc, "l1"))
			return -1;
	if (cache_init(&llc, llsize, llassoc, "ll"))
		return -1;
	if (!info->system_emulation)
		index_phys = false;	/* no physical addresses in user mode */

	out = fopen(outfile, "w");
	if (!out) {
		fprintf(stderr, "cachesim: cannot write %s\n", outfile);
		return -1;
	}
	fprintf(out,
		"# cachesim index=%s line=%" PRIu64 " l1=%" PRIu64 "/%" PRIu64 " ll=%" PRIu64 "/%" PRIu64 " vcpus=%u flush=%s marker=0x%llx from=%ld\n",
		index_phys ? "phys" : "virt", line, l1size, l1assoc, llsize,
		llassoc, n_vcpus, flush_at_phase ? "on" : "off",
		CACHESIM_MARK_BASE, from_id);
	fflush(out);

	insns = g_hash_table_new(g_int64_hash, g_int64_equal);
	phase_t0 = g_get_monotonic_time();
	plugin_id = id;
	model_on = from_id < 0;
	qemu_plugin_register_vcpu_init_cb(id, vcpu_init);
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
