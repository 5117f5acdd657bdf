// SPDX-License-Identifier: GPL-2.0
/*
 * kstats_fuzz - write random commands to /sys/kernel/debug/kstats/_control
 * and check that a rejected write changes nothing and an accepted one
 * changes only what it asked for.
 *
 * The commands come from a seeded PRNG (the same seed gives the same
 * commands) and mix random bytes, printable word soup, valid verbs with
 * the wrong number of words, bad numbers, lines and writes over the size
 * limits, non-printable bytes, unknown symbols and trace events, names in
 * use, bad names, impossible mode combinations, symbols kprobes refuses,
 * removal of unknown names, commands split over two writes, several
 * lines per write, and, at a low rate because registering probes is slow
 * under emulation, valid commands on the targets of test_kstats_trace.
 *
 * Before the run it creates one node of its own, so that "name in use" has
 * something to hit, and records _control, kprobes/list and the names in
 * kstats/.  After every write all three must be byte for byte as recorded,
 * once the nodes the write created (only those named by its "trace"
 * lines, each with its two kstats files) are removed; a single-line write
 * that failed must not have changed them at all.  Most kinds of command
 * also have a known errno, which is checked too.
 *
 * Usage: kstats_fuzz [-s SEED] [-n WRITES] [-r PERMILLE] [-v]
 *   -s  PRNG seed (default 1)
 *   -n  number of write() calls (default 10000)
 *   -r  valid commands on real targets per 1000 commands (default 30)
 *   -v  print every write and its result
 */

#define _GNU_SOURCE
#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../kselftest.h"
#include "kstats_errno.h"

#define DEBUGFS		"/sys/kernel/debug"
#define KSTATS_DIR	DEBUGFS "/kstats"
#define CONTROL		KSTATS_DIR "/_control"
#define KPROBES_LIST	DEBUGFS "/kprobes/list"
#define TEST_MODULE	"/sys/module/test_kstats_trace"

/* The fuzz's own node; no generated command targets its function. */
#define KEEP_NAME	"fzkeep"
#define KEEP_CMD	"trace " KEEP_NAME " start kstats_test_recurse"

/* Limits of _control: a line, and a write. */
#define LINE_MAX_LEN	1024
#define WRITE_MAX_LEN	4096
#define BUF_SIZE	8192

#define NAME_LEN	64
#define MAX_NAMES	16
#define MAX_ERRNO	256
#define MAX_REPORTS	10

/* What a write should return, besides an exact errno (> 0). */
#define EXP_OK		0
#define EXP_FAIL	(-1)	/* any error */
#define EXP_ANY		(-2)	/* success or any error */

struct wr {
	char buf[BUF_SIZE];
	size_t len;
	int expect;
};

struct cmd {
	int kind;
	int nr;
	struct wr w[2];
};

struct text {
	char *buf;
	size_t len;
};

/* What a write may change: the listing, the probes, the kstats files. */
struct state {
	struct text ctl;
	struct text kp;
	struct text dir;
};

enum kind {
	K_GARBAGE, K_SOUP, K_ARITY, K_NUMBER, K_HUGE, K_NONPRINT, K_UNKNOWN,
	K_INUSE, K_REMOVE, K_BADNAME, K_MIXED, K_REFUSED, K_SPLIT, K_MULTI,
	K_VALID, NR_KINDS
};

static const char * const kind_name[NR_KINDS] = {
	[K_GARBAGE] = "garbage bytes",
	[K_SOUP] = "word soup",
	[K_ARITY] = "wrong arity",
	[K_NUMBER] = "bad number",
	[K_HUGE] = "size limits",
	[K_NONPRINT] = "non-printable",
	[K_UNKNOWN] = "unknown symbol",
	[K_INUSE] = "name in use",
	[K_REMOVE] = "remove unknown",
	[K_BADNAME] = "bad name",
	[K_MIXED] = "bad mode mix",
	[K_REFUSED] = "refused by kprobes",
	[K_SPLIT] = "split write",
	[K_MULTI] = "several lines",
	[K_VALID] = "valid, real target",
};

static const char * const fn_targets[] = {
	"kstats_test_empty", "kstats_test_sleep",
	"kstats_test_section_begin", "kstats_test_section_end",
};

static const char * const soup_words[] = {
	"trace", "remove", "bits", "start", "end", "maxactive", "trace",
	"remove", "0", "1", "3", "5", "6", "-1", "4096", "4097", "+2", "x",
	"fz1", "fz2", "GAP-fz1", "_x", "a/b", ".", "kstats_test_empty",
	"kstats_test_section_begin", "kstats_test_section_end",
	"test_kstats_trace:kstats_test_begin", "test_kstats_trace:kstats_test_end",
	"test_kstats_trace:", ":kstats_test_end", "nosuch",
};

static uint64_t rng_state;
static unsigned int name_seq;
static bool have_targets;
static bool verbose;

static struct state base;
static unsigned long kind_count[NR_KINDS], kind_ok[NR_KINDS];
static unsigned long errno_count[MAX_ERRNO];
static unsigned long writes, accepted, rejected, created, created_writes;
static unsigned long state_bad, expect_bad;
static double created_secs;

/* splitmix64 */
static uint64_t rnd(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static unsigned int below(unsigned int n)
{
	return rnd() % n;
}

static bool chance(unsigned int permille)
{
	return below(1000) < permille;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void add(struct wr *w, const char *fmt, ...)
{
	size_t room = sizeof(w->buf) - w->len;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(w->buf + w->len, room, fmt, ap);
	va_end(ap);
	if (n > 0)
		w->len += (size_t)n < room ? (size_t)n : room - 1;
}

static void add_char(struct wr *w, char c, size_t count)
{
	while (count-- && w->len < sizeof(w->buf))
		w->buf[w->len++] = c;
}

static const char *pick(const char * const *arr, size_t n)
{
	return arr[below(n)];
}

#define PICK(arr)	pick(arr, sizeof(arr) / sizeof((arr)[0]))

/* A fresh node name, not used before in this run. */
static const char *fresh(char *name)
{
	snprintf(name, NAME_LEN, "fz%u", name_seq++);
	return name;
}

static int read_text(const char *path, struct text *t)
{
	size_t size = 4096;
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	t->len = 0;
	for (;;) {
		if (!t->buf || t->len + 1024 > size) {
			size = t->len + 1024 > size ? 2 * size : size;
			t->buf = realloc(t->buf, size);
			if (!t->buf)
				ksft_exit_fail_msg("out of memory\n");
		}
		n = read(fd, t->buf + t->len, size - t->len - 1);
		if (n < 0) {
			n = -errno;
			close(fd);
			return n;
		}
		if (!n)
			break;
		t->len += n;
	}
	t->buf[t->len] = '\0';
	close(fd);
	return 0;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char * const *)a, *(char * const *)b);
}

/* The names in directory @path, sorted, one per line. */
static void read_names(const char *path, struct text *t)
{
	size_t n = 0, i, size = 1;
	char **names = NULL;
	struct dirent *d;
	DIR *dir;

	dir = opendir(path);
	if (!dir)
		ksft_exit_fail_msg("opendir %s: %s\n", path, strerror(errno));
	while ((d = readdir(dir))) {
		if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
			continue;
		names = realloc(names, (n + 1) * sizeof(*names));
		if (!names)
			ksft_exit_fail_msg("out of memory\n");
		names[n] = strdup(d->d_name);
		if (!names[n])
			ksft_exit_fail_msg("out of memory\n");
		size += strlen(names[n++]) + 1;
	}
	closedir(dir);
	qsort(names, n, sizeof(*names), cmp_name);
	t->buf = realloc(t->buf, size);
	if (!t->buf)
		ksft_exit_fail_msg("out of memory\n");
	t->len = 0;
	for (i = 0; i < n; i++) {
		t->len += sprintf(t->buf + t->len, "%s\n", names[i]);
		free(names[i]);
	}
	t->buf[t->len] = '\0';
	free(names);
}

static void read_state(struct state *st)
{
	int ret = read_text(CONTROL, &st->ctl);

	if (ret)
		ksft_exit_fail_msg("read %s: %s\n", CONTROL, strerror(-ret));
	/* No kprobes list without CONFIG_KPROBES: then it stays empty. */
	if (read_text(KPROBES_LIST, &st->kp)) {
		free(st->kp.buf);
		st->kp.buf = strdup("");
		st->kp.len = 0;
	}
	read_names(KSTATS_DIR, &st->dir);
}

static bool same(const struct text *a, const struct text *b)
{
	return a->len == b->len && !memcmp(a->buf, b->buf, a->len);
}

static bool same_state(const struct state *a, const struct state *b)
{
	return same(&a->ctl, &b->ctl) && same(&a->kp, &b->kp) &&
	       same(&a->dir, &b->dir);
}

static int write_once(const char *buf, size_t len)
{
	int fd = open(CONTROL, O_WRONLY);
	ssize_t n;
	int err;

	if (fd < 0)
		ksft_exit_fail_msg("open %s: %s\n", CONTROL, strerror(errno));
	errno = 0;
	n = write(fd, buf, len);
	err = n == (ssize_t)len ? 0 : errno ? errno : EIO;
	close(fd);
	return err;
}

static bool exists(const char *name)
{
	char path[sizeof(KSTATS_DIR) + NAME_LEN + 8];
	struct stat st;

	snprintf(path, sizeof(path), KSTATS_DIR "/%.*s", NAME_LEN - 1, name);
	return !stat(path, &st);
}

/* Prints @len bytes of @buf as a C string, cut at 150 characters. */
static void show(const char *what, const char *buf, size_t len)
{
	size_t i;

	printf("#   %s (%zu bytes) \"", what, len);
	for (i = 0; i < len && i < 150; i++) {
		unsigned char c = buf[i];

		if (c == '\n')
			printf("\\n");
		else if (c == '\t')
			printf("\\t");
		else if (c == '\\' || c == '"')
			printf("\\%c", c);
		else if (c < ' ' || c > '~')
			printf("\\x%02x", c);
		else
			putchar(c);
	}
	printf("\"%s\n", i < len ? "..." : "");
}

/* Node names of the "trace" lines of @w, as the kernel would split them. */
static int traced_names(const struct wr *w, char names[][NAME_LEN])
{
	char copy[BUF_SIZE + 1], *line, *next, *word, *save;
	int n = 0;

	memcpy(copy, w->buf, w->len);
	copy[w->len] = '\0';
	for (line = copy; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		word = strtok_r(line, " \t", &save);
		if (!word || strcmp(word, "trace"))
			continue;
		word = strtok_r(NULL, " \t", &save);
		if (word && n < MAX_NAMES)
			snprintf(names[n++], NAME_LEN, "%s", word);
	}
	return n;
}

static bool is_line_of(const struct text *t, const char *line, size_t len)
{
	const char *p = t->buf, *end = t->buf + t->len;

	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (l == len && !memcmp(p, line, len))
			return true;
		p += l + 1;
	}
	return false;
}

static void report(const char *why, const struct cmd *c, const struct wr *w,
		   int err)
{
	char name[16];

	if (state_bad + expect_bad > MAX_REPORTS)
		return;
	ksft_print_msg("MISMATCH (%s): %s, write returned %s\n",
		       kind_name[c->kind], why,
		       kstats_errno_name(err, name, sizeof(name)));
	show("write", w->buf, w->len);
}

/*
 * Checks the state after write @w of @c returned @err: removes the nodes
 * it created, then compares _control and kprobes/list with the baseline.
 */
static void check_state(const struct cmd *c, const struct wr *w, int err)
{
	static struct state st;
	char names[MAX_NAMES][NAME_LEN], gap[NAME_LEN + 8], rm[NAME_LEN + 8];
	char found[MAX_NAMES][NAME_LEN];
	int nr_names, nr_found = 0, i, j;
	const char *p, *end;
	bool bad = false;

	read_state(&st);
	if (same_state(&st, &base)) {
		/* Fine unless every line succeeded and one was a "trace". */
		if (!err && traced_names(w, names)) {
			report("accepted, but no node appeared", c, w, err);
			state_bad++;
		}
		return;
	}
	if (err && !memchr(w->buf, '\n', w->len)) {
		report("rejected, but the state changed", c, w, err);
		bad = true;
	}

	/* Nodes that were not there before; each must be named by @w. */
	nr_names = traced_names(w, names);
	p = st.ctl.buf;
	end = st.ctl.buf + st.ctl.len;
	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);
		size_t wl = strcspn(p, "\n ");

		if (!is_line_of(&base.ctl, p, l) && nr_found < MAX_NAMES &&
		    wl < NAME_LEN) {
			memcpy(found[nr_found], p, wl);
			found[nr_found++][wl] = '\0';
		}
		p += l + 1;
	}
	for (i = 0; i < nr_found; i++) {
		for (j = 0; j < nr_names; j++)
			if (!strcmp(found[i], names[j]))
				break;
		if (j == nr_names) {
			report("a node appeared that the write did not name",
			       c, w, err);
			bad = true;
		}
		snprintf(gap, sizeof(gap), "GAP-%.*s", NAME_LEN - 1, found[i]);
		if (!exists(found[i]) || !exists(gap)) {
			report("a new node lacks its kstats files", c, w, err);
			bad = true;
		}
		snprintf(rm, sizeof(rm), "remove %.*s", NAME_LEN - 1, found[i]);
		if (write_once(rm, strlen(rm))) {
			report("cannot remove a node it created", c, w, err);
			bad = true;
		}
		if (exists(found[i]) || exists(gap)) {
			report("removed node left kstats files", c, w, err);
			bad = true;
		}
		created++;
	}
	if (!err && nr_found < nr_names) {
		report("accepted, but fewer nodes appeared", c, w, err);
		bad = true;
	}

	read_state(&st);
	if (!same_state(&st, &base)) {
		report("state differs from the baseline after removal", c, w,
		       err);
		if (state_bad + expect_bad <= MAX_REPORTS) {
			show("_control now", st.ctl.buf, st.ctl.len);
			show("kprobes/list now", st.kp.buf, st.kp.len);
			show("kstats/ now", st.dir.buf, st.dir.len);
		}
		/* Go on from the new state rather than fail every write. */
		read_state(&base);
		bad = true;
	}
	if (bad)
		state_bad++;
}

static void gen_garbage(struct wr *w)
{
	size_t i, n = 1 + below(80);
	bool nonprint = false;

	for (i = 0; i < n; i++) {
		unsigned char c = below(4) ? below(256) : ' ' + below(95);

		if ((c < ' ' || c > '~') && c != '\n' && c != '\t')
			nonprint = true;
		w->buf[w->len++] = c;
	}
	w->expect = nonprint ? EINVAL : EXP_FAIL;
}

static void gen_soup(struct wr *w)
{
	unsigned int i, n = below(13);
	static const char * const sep[] = { " ", " ", "\t", "  " };

	for (i = 0; i < n; i++) {
		if (i)
			add(w, "%s", PICK(sep));
		if (below(8))
			add(w, "%s", PICK(soup_words));
		else
			add(w, "w%x", (unsigned int)rnd());
	}
	if (!n || chance(100))
		add(w, "\n");
	w->expect = EXP_ANY;
}

static void gen_arity(struct wr *w)
{
	char name[NAME_LEN];

	w->expect = EINVAL;
	switch (below(8)) {
	case 0:
		add(w, "trace");
		break;
	case 1:
		add(w, "remove");
		break;
	case 2:
		add(w, "remove %s %s", fresh(name), PICK(soup_words));
		break;
	case 3:
		add(w, "trace %s start", fresh(name));
		break;
	case 4:
		add(w, "trace %s start %s bits 2 end", fresh(name),
		    PICK(fn_targets));
		break;
	case 5:
		/* Eleven words. */
		add(w, "trace %s start a end b bits 1 maxactive 2 x",
		    fresh(name));
		break;
	case 6:
		add(w, "trace %s bits 1 bits 2 start kstats_test_empty",
		    fresh(name));
		break;
	default:
		add(w, "%s %s", below(2) ? "Trace" : "delete", fresh(name));
		break;
	}
}

static void gen_number(struct wr *w)
{
	static const char * const nan[] = {
		"x", "-1", "0x3", "3a", "1.5", "-", "+", "--1", "1e3",
	};
	static const char * const big_bits[] = {
		"6", "7", "31", "64", "4294967295", "4294967296",
		"18446744073709551616", "99999999999999999999999",
	};
	static const char * const big_max[] = {
		"0", "4097", "65536", "4294967296", "99999999999999999999",
		"+0",
	};
	const char *key = below(2) ? "bits" : "maxactive";
	char name[NAME_LEN];

	add(w, "trace %s start kstats_test_empty %s ", fresh(name), key);
	/* Every value below fails before the probe would be registered. */
	if (below(2)) {
		add(w, "%s", PICK(nan));
		w->expect = EINVAL;
	} else if (key[0] == 'b') {
		add(w, "%s", PICK(big_bits));
		w->expect = ERANGE;
	} else {
		add(w, "%s", PICK(big_max));
		w->expect = ERANGE;
	}
}

static void gen_huge(struct wr *w)
{
	size_t n;

	switch (below(6)) {
	case 0:
		/* One line at or over the limit. */
		add(w, "trace ");
		add_char(w, 'h', LINE_MAX_LEN - 6 + below(2000));
		w->expect = E2BIG;
		break;
	case 1:
		/* A write over the limit, in short lines. */
		n = WRITE_MAX_LEN + 1 + below(2000);
		while (w->len + 16 < n)
			add(w, "remove fzu%05u\n", below(100000));
		add_char(w, 'r', n - w->len);
		w->expect = E2BIG;
		break;
	case 2:
		/* The longest line: long names are refused after parsing. */
		add(w, "trace ");
		add_char(w, 'n', LINE_MAX_LEN - 1 - 6);
		if (below(2))
			add(w, "\n");
		w->expect = ENAMETOOLONG;
		break;
	case 3:
		/* A fine line followed by one over the limit: none runs. */
		add(w, "trace %s\n", KEEP_NAME);
		add_char(w, 'z', LINE_MAX_LEN + below(100));
		w->expect = E2BIG;
		break;
	case 4:
		/* Exactly the largest write. */
		while (w->len + 15 <= WRITE_MAX_LEN)
			add(w, "remove fzu%04u\n", below(10000));
		add_char(w, 'u', WRITE_MAX_LEN - w->len);
		w->expect = ENOENT;
		break;
	default:
		/* An empty write. */
		w->expect = EINVAL;
		break;
	}
}

static void gen_line(struct wr *w);

static void gen_nonprint(struct wr *w)
{
	static const unsigned char bad[] = {
		0x00, 0x01, 0x07, 0x08, 0x0b, 0x0c, 0x0d, 0x1b, 0x1f, 0x7f,
		0x80, 0x9b, 0xa0, 0xc3, 0xff,
	};
	char name[NAME_LEN];
	size_t at;

	if (below(2))
		add(w, "trace %s start %s", fresh(name), PICK(fn_targets));
	else
		gen_line(w);
	at = below(w->len + 1);
	memmove(w->buf + at + 1, w->buf + at, w->len - at);
	w->buf[at] = bad[below(sizeof(bad))];
	w->len++;
	w->expect = EINVAL;
}

static void gen_unknown(struct wr *w)
{
	unsigned int r = (unsigned int)rnd();
	char name[NAME_LEN];

	w->expect = ENOENT;
	switch (below(6)) {
	case 0:
		add(w, "trace %s start kstats_fuzz_nosuch_%x", fresh(name), r);
		break;
	case 1:
		add(w, "trace kstats_fuzz_nosuch_%x", r);
		break;
	case 2:
		add(w,
		    "trace %s start test_kstats_trace:kstats_fuzz_nosuch_%x end test_kstats_trace:kstats_test_end",
		    fresh(name), r);
		break;
	case 3:
		add(w,
		    "trace %s start test_kstats_trace:kstats_test_begin end test_kstats_trace:kstats_fuzz_nosuch_%x",
		    fresh(name), r);
		break;
	case 4:
		add(w, "trace %s start kstats_test_section_begin end kstats_fuzz_nosuch_%x",
		    fresh(name), r);
		break;
	default:
		add(w, "trace %s start kstats_test_empty+0x4 bits %u",
		    fresh(name), below(6));
		break;
	}
}

static void gen_inuse(struct wr *w)
{
	w->expect = EEXIST;
	switch (below(4)) {
	case 0:
		add(w, "trace %s start kstats_test_empty", KEEP_NAME);
		break;
	case 1:
		add(w, "trace %s", KEEP_NAME);
		break;
	case 2:
		add(w, "trace GAP-%s start kstats_test_empty", KEEP_NAME);
		break;
	default:
		add(w,
		    "trace %s bits %u start test_kstats_trace:kstats_test_begin end test_kstats_trace:kstats_test_end",
		    KEEP_NAME, below(6));
		break;
	}
}

static void gen_remove(struct wr *w)
{
	char name[NAME_LEN];

	w->expect = ENOENT;
	switch (below(5)) {
	case 0:
		add(w, "remove GAP-%s", KEEP_NAME);
		break;
	case 1:
		add(w, "remove _control");
		break;
	case 2:
		add(w, "remove\t%s\n", fresh(name));
		break;
	case 3:
		add(w, "remove ");
		add_char(w, 'r', 60 + below(200));
		break;
	default:
		add(w, "remove %s", fresh(name));
		break;
	}
}

static void gen_badname(struct wr *w)
{
	static const char * const names[] = {
		"_x", "_control", ".", "..", "a/b", "/", "x/", "../x",
	};

	switch (below(3)) {
	case 0:
		add(w, "trace %s start %s", PICK(names), PICK(fn_targets));
		w->expect = EINVAL;
		break;
	case 1:
		add(w, "trace ");
		add_char(w, 'l', 60 + below(200));
		add(w, " start kstats_test_empty");
		w->expect = ENAMETOOLONG;
		break;
	default:
		/* The longest name is fine: fail on the symbol instead. */
		add(w, "trace ");
		add_char(w, 'm', 59);
		add(w, " start kstats_fuzz_nosuch");
		w->expect = ENOENT;
		break;
	}
}

static void gen_mixed(struct wr *w)
{
	char name[NAME_LEN];

	w->expect = EINVAL;
	fresh(name);
	switch (below(7)) {
	case 5:
		/* SYSTEM:EVENT with a part missing, or a third part. */
		add(w, "trace %s start %s end test_kstats_trace:kstats_test_end",
		    name, below(2) ? ":kstats_test_begin" : "test_kstats_trace:");
		if (below(2))
			add(w, ":x");
		break;
	case 0:
		add(w, "trace %s start kstats_test_empty end test_kstats_trace:kstats_test_end",
		    name);
		break;
	case 1:
		add(w, "trace %s start test_kstats_trace:kstats_test_begin end kstats_test_empty",
		    name);
		break;
	case 2:
		add(w, "trace %s start test_kstats_trace:kstats_test_begin", name);
		break;
	case 3:
		add(w, "trace %s start %s end %s", name, fn_targets[2],
		    fn_targets[2]);
		break;
	case 4:
		add(w, "trace %s start %s end %s maxactive %u", name,
		    fn_targets[2], fn_targets[3], 1 + below(100));
		break;
	default:
		add(w,
		    "trace %s end test_kstats_trace:kstats_test_end start test_kstats_trace:kstats_test_end",
		    name);
		break;
	}
}

static void gen_refused(struct wr *w)
{
	/* A NOKPROBE_SYMBOL(), and a symbol that is not text. */
	static const char * const syms[] = { "kstats_record", "jiffies" };
	char name[NAME_LEN];

	add(w, "trace %s start %s", fresh(name), PICK(syms));
	w->expect = EINVAL;
}

/* A valid command on a real target, one line, no newline. */
static void gen_valid_line(struct wr *w)
{
	char name[NAME_LEN];

	fresh(name);
	switch (below(3)) {
	case 0:
		add(w, "trace %s", name);
		if (below(2))
			add(w, " bits %u", below(6));
		add(w, " start %s", fn_targets[below(2) ? 0 : 2]);
		if (below(2))
			add(w, " maxactive %u",
			    below(4) ? 1 + below(64) : 1 + below(4096));
		break;
	case 1:
		add(w, "trace %s start %s end %s", name, fn_targets[2],
		    fn_targets[3]);
		if (below(2))
			add(w, " bits %u", below(6));
		break;
	default:
		add(w,
		    "trace %s start test_kstats_trace:kstats_test_begin end test_kstats_trace:kstats_test_end",
		    name);
		if (below(2))
			add(w, " bits %u", below(6));
		break;
	}
}

/* One invalid line with a known errno, fast to reject. */
static void gen_line(struct wr *w)
{
	switch (below(7)) {
	case 0:
		gen_arity(w);
		break;
	case 1:
		gen_number(w);
		break;
	case 2:
		gen_unknown(w);
		break;
	case 3:
		gen_inuse(w);
		break;
	case 4:
		gen_remove(w);
		w->len -= w->buf[w->len - 1] == '\n';
		break;
	case 5:
		gen_badname(w);
		break;
	default:
		gen_mixed(w);
		break;
	}
}

static void gen_valid(struct wr *w)
{
	struct wr tail = { .len = 0 };

	gen_valid_line(w);
	w->expect = EXP_OK;
	switch (below(8)) {
	case 0:
		add(w, "\n");
		break;
	case 1:
		/* Two valid lines. */
		add(w, "\n");
		gen_valid_line(w);
		break;
	case 2:
		/* The second line fails after the first ran. */
		gen_line(&tail);
		add(w, "\n%.*s", (int)tail.len, tail.buf);
		w->expect = tail.expect;
		break;
	case 3:
		/* An empty line after it. */
		add(w, "\n\n");
		w->expect = EINVAL;
		break;
	default:
		break;
	}
}

static void gen_split(struct cmd *c)
{
	struct wr whole = { .len = 0 };
	size_t at;

	gen_valid_line(&whole);
	at = 1 + below(whole.len - 1);
	memcpy(c->w[0].buf, whole.buf, at);
	c->w[0].len = at;
	memcpy(c->w[1].buf, whole.buf + at, whole.len - at);
	c->w[1].len = whole.len - at;
	c->w[0].expect = EXP_ANY;
	c->w[1].expect = EXP_ANY;
	c->nr = 2;
}

static void gen_multi(struct wr *w)
{
	unsigned int i, n = 2 + below(3);
	struct wr line;
	bool nonprint = false;
	int first = EXP_ANY;

	for (i = 0; i < n; i++) {
		line.len = 0;
		if (below(5)) {
			gen_line(&line);
		} else {
			gen_nonprint(&line);
			/* A newline inside it would make two lines. */
			if (memchr(line.buf, '\n', line.len))
				line.expect = EXP_FAIL;
			nonprint = true;
		}
		if (i)
			add(w, "\n");
		memcpy(w->buf + w->len, line.buf, line.len);
		w->len += line.len;
		if (!i)
			first = line.expect;
	}
	if (below(2))
		add(w, "\n");
	w->expect = nonprint ? EINVAL : first;
}

static void generate(struct cmd *c, unsigned int valid_permille)
{
	static const unsigned char weight[NR_KINDS] = {
		[K_GARBAGE] = 10, [K_SOUP] = 10, [K_ARITY] = 8,
		[K_NUMBER] = 8, [K_HUGE] = 5, [K_NONPRINT] = 8,
		[K_UNKNOWN] = 8, [K_INUSE] = 6, [K_REMOVE] = 6,
		[K_BADNAME] = 6, [K_MIXED] = 6, [K_REFUSED] = 2,
		[K_SPLIT] = 4, [K_MULTI] = 8,
	};
	unsigned int total = 0, r, k;

	memset(c, 0, sizeof(*c));
	c->nr = 1;
	if (have_targets && chance(valid_permille)) {
		c->kind = K_VALID;
		gen_valid(&c->w[0]);
		return;
	}
	for (k = 0; k < NR_KINDS; k++)
		total += weight[k];
	r = below(total);
	for (k = 0; r >= weight[k]; k++)
		r -= weight[k];
	/* Without the test module its symbols are unknown: keep to garbage. */
	if (!have_targets && k != K_GARBAGE && k != K_HUGE)
		k = K_GARBAGE;
	c->kind = k;
	switch (k) {
	case K_GARBAGE:
		gen_garbage(&c->w[0]);
		break;
	case K_SOUP:
		gen_soup(&c->w[0]);
		break;
	case K_ARITY:
		gen_arity(&c->w[0]);
		break;
	case K_NUMBER:
		gen_number(&c->w[0]);
		break;
	case K_HUGE:
		gen_huge(&c->w[0]);
		break;
	case K_NONPRINT:
		gen_nonprint(&c->w[0]);
		break;
	case K_UNKNOWN:
		gen_unknown(&c->w[0]);
		break;
	case K_INUSE:
		gen_inuse(&c->w[0]);
		break;
	case K_REMOVE:
		gen_remove(&c->w[0]);
		break;
	case K_BADNAME:
		gen_badname(&c->w[0]);
		break;
	case K_MIXED:
		gen_mixed(&c->w[0]);
		break;
	case K_REFUSED:
		gen_refused(&c->w[0]);
		break;
	case K_SPLIT:
		gen_split(c);
		break;
	default:
		gen_multi(&c->w[0]);
		break;
	}
}

static bool expected(int expect, int err)
{
	switch (expect) {
	case EXP_ANY:
		return true;
	case EXP_FAIL:
		return err != 0;
	default:
		return err == expect;
	}
}

static void run_write(const struct cmd *c, const struct wr *w)
{
	char name[16], want[16];
	double t0 = now();
	int err;

	err = write_once(w->buf, w->len);
	writes++;
	kind_count[c->kind]++;
	if (!err) {
		accepted++;
		kind_ok[c->kind]++;
	} else {
		rejected++;
		errno_count[err < MAX_ERRNO ? err : 0]++;
	}
	if (verbose) {
		ksft_print_msg("%s: %s\n", kind_name[c->kind],
			       kstats_errno_name(err, name, sizeof(name)));
		show("write", w->buf, w->len);
	}
	if (!expected(w->expect, err)) {
		if (state_bad + expect_bad < MAX_REPORTS) {
			ksft_print_msg("MISMATCH (%s): expected %s, got %s\n",
				       kind_name[c->kind],
				       w->expect == EXP_FAIL ? "an error" :
				       kstats_errno_name(w->expect, want,
							 sizeof(want)),
				       kstats_errno_name(err, name,
							 sizeof(name)));
			show("write", w->buf, w->len);
		}
		expect_bad++;
	}
	check_state(c, w, err);
	if (!err && memmem(w->buf, w->len, "trace", 5)) {
		created_writes++;
		created_secs += now() - t0;
	}
}

int main(int argc, char **argv)
{
	unsigned long long seed = 1;
	unsigned long nr_writes = 10000;
	unsigned int valid_permille = 30;
	struct state st0;
	double t0;
	char name[16];
	struct cmd c;
	int opt, i, err;

	while ((opt = getopt(argc, argv, "s:n:r:v")) != -1) {
		switch (opt) {
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 'n':
			nr_writes = strtoul(optarg, NULL, 0);
			break;
		case 'r':
			valid_permille = strtoul(optarg, NULL, 0);
			break;
		case 'v':
			verbose = true;
			break;
		default:
			fprintf(stderr,
				"usage: %s [-s SEED] [-n WRITES] [-r PERMILLE] [-v]\n",
				argv[0]);
			return KSFT_FAIL;
		}
	}

	ksft_print_header();
	if (access(CONTROL, W_OK))
		ksft_exit_skip("no %s (CONFIG_KSTATS_TRACE, root)\n", CONTROL);
	have_targets = !access(TEST_MODULE, F_OK);
	ksft_set_plan(4);
	ksft_print_msg("seed %llu, %lu writes, %u valid commands per 1000%s\n",
		       seed, nr_writes, valid_permille,
		       have_targets ? "" :
		       " (no test_kstats_trace: garbage only)");
	rng_state = seed;

	memset(&st0, 0, sizeof(st0));
	read_state(&st0);
	err = have_targets ? write_once(KEEP_CMD, strlen(KEEP_CMD)) : 0;
	if (err)
		ksft_print_msg("%s: %s\n", KEEP_CMD,
			       kstats_errno_name(err, name, sizeof(name)));
	ksft_test_result(!err, "setup: node " KEEP_NAME "\n");
	read_state(&base);

	t0 = now();
	while (writes < nr_writes) {
		generate(&c, valid_permille);
		for (i = 0; i < c.nr; i++)
			run_write(&c, &c.w[i]);
	}
	t0 = now() - t0;

	ksft_print_msg("%lu writes in %.1f s: %lu accepted, %lu rejected\n",
		       writes, t0, accepted, rejected);
	ksft_print_msg("%lu nodes created and removed\n", created);
	if (created_writes)
		ksft_print_msg("%lu accepted \"trace\" writes, %.1f ms each %s\n",
			       created_writes,
			       1000 * created_secs / created_writes,
			       "to register, check and remove");
	for (i = 1; i < MAX_ERRNO; i++)
		if (errno_count[i])
			ksft_print_msg("rejected with %-12s %lu\n",
				       kstats_errno_name(i, name, sizeof(name)),
				       errno_count[i]);
	for (i = 0; i < NR_KINDS; i++)
		ksft_print_msg("kind %-20s %6lu writes, %5lu accepted\n",
			       kind_name[i], kind_count[i], kind_ok[i]);
	ksft_print_msg("%lu writes left a bad state, %lu returned an unexpected errno\n",
		       state_bad, expect_bad);
	ksft_test_result(!state_bad, "state restored after every write\n");
	ksft_test_result(!expect_bad, "errno as expected for every write\n");

	err = have_targets ? write_once("remove " KEEP_NAME,
					strlen("remove " KEEP_NAME)) : 0;
	read_state(&base);
	ksft_test_result(!err && same_state(&base, &st0),
			 "cleanup: state as before the run\n");
	ksft_finished();
}
